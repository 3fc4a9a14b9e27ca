"""Copies, moves between devices, joins, padding, fills and resizing.

Every op here makes new storage (a new core ``Handle``); views live in
``views.py``. ``copy_`` and ``_to_copy`` are the host/lazy boundary.
"""

from __future__ import annotations

import math

from lazytensor.core import Op, make
from lazytensor.core.composite.elementwise.apply import as_node, broadcast_to, convert
from lazytensor.core.composite.linalg import matrix
from lazytensor.core.composite.movement import rearrange
from lazytensor.core.composite.movement import shape as cs
from lazytensor.torch._promotion import result_type
from lazytensor.torch._tensor import LazyTensor, node_of_host, set_metadata, to_cpu, wrap
from lazytensor.torch.aten import masked_reads
from lazytensor.torch.aten._common import (
    aten,
    broadcast_sizes,
    dense_strides,
    dim,
    node,
    np_dtype,
    size_list,
)

import torch


# ------------------------------------------------------ copies and moves
def _clone(x, *, memory_format=None):
    return wrap(node(x), dense_strides(x, memory_format))


def _to_copy(x, *, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
    if device is not None and torch.device(device).type != "lazy":
        cpu = to_cpu(x)
        return cpu.to(device=device, dtype=dtype or cpu.dtype)
    n = node(x)
    return wrap(convert(n, np_dtype(dtype, n.dtype)), dense_strides(x, memory_format))


def _copy(self, src, non_blocking=False):
    """copy_: src (lazy, or host data) broadcast to self and cast."""
    from lazytensor.torch._dispatch import assign

    if isinstance(src, LazyTensor):
        value = node(src)
    else:
        value = node_of_host(src)
    target = node(self).dtype
    value = convert(value, target)
    if not isinstance(self, LazyTensor):  # lazy -> CPU destination
        self.copy_(to_cpu(src))
        return self
    try:
        value = broadcast_to(value, tuple(self.shape))
    except ValueError as exc:  # torch's error: a clash, or a broadcast larger than self
        shape = broadcast_sizes(tuple(self.shape), tuple(src.shape))
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}") from exc
    assign(self, value)
    return self


def _lift(x):
    return x if isinstance(x, LazyTensor) else wrap(node_of_host(x))


# ------------------------------------------------------------ joins etc.
def _cat(tensors, d=0):
    """torch.cat: 1-d empty tensors are skipped, but their dtypes still take
    part in the promotion (cat([tensor([]), int64]) is float32)."""
    if not tensors:
        return None
    out = result_type(*tensors)
    for i, t in enumerate(tensors):
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    live = [(i, t) for i, t in enumerate(tensors) if not (t.dim() == 1 and t.shape[0] == 0)]
    if not live:
        return wrap(convert(node(tensors[0]), out))
    n, ref = live[0][1].dim(), tuple(live[0][1].shape)
    d = dim(d, n)
    for i, t in live[1:]:
        _check_cat_shape(ref, t, d, i)
    return wrap(cs.concatenate([node(t) for _, t in live], d, out))


def _check_cat_shape(ref: tuple, t, d: int, i: int) -> None:
    """torch's checks of tensor number ``i`` against the first one cat keeps."""
    if t.dim() != len(ref):
        raise RuntimeError(
            f"Tensors must have same number of dimensions: got {len(ref)} and {t.dim()}")
    for axis, (want, got) in enumerate(zip(ref, t.shape, strict=True)):
        if axis != d and want != got:
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected "
                               f"size {want} but got size {got} for tensor number {i} in the list.")


def _stack(tensors, d=0):
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tuple(tensors[0].shape)
    for i, t in enumerate(tensors):
        if tuple(t.shape) != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry "
                f"0 and {list(t.shape)} at entry {i}"
            )
    d = dim(d, len(shape) + 1)
    return wrap(cs.stack([node(t) for t in tensors], d, result_type(*tensors)))


def _flip(x, dims):
    n = node(x)
    wrapped = [dim(d, n.ndim) for d in dims]
    for i, d in enumerate(wrapped):
        if d in wrapped[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    axes = tuple(sorted(wrapped))
    return wrap(make(Op.REV, (n,), axes) if axes and n.ndim else n)


def _roll(x, shifts, dims=()):
    n = node(x)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if (dims or len(shifts) != 1) and len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if not dims:
        return wrap(cs.reshape(rearrange.roll(cs.ravel(n), tuple(shifts)[0], 0), n.shape))
    return wrap(rearrange.roll(n, tuple(shifts), tuple(dim(d, n.ndim) for d in dims)))


def _constant_pad_nd(x, pad, value=0):
    n = node(x)
    if len(pad) % 2 or len(pad) // 2 > n.ndim:
        raise RuntimeError(
            f"Length of pad must be even but instead it equals {len(pad)}" if len(pad) % 2
            else "Length of pad should be no more than twice the number of dimensions of the "
                 "input.")
    cfg = [(0, 0, 0)] * n.ndim
    for i in range(len(pad) // 2):
        cfg[n.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1], 0)
    for size, (lo, hi, _) in zip(n.shape, cfg, strict=False):
        if size + lo + hi < 0:
            raise RuntimeError(
                f"The input size {size}, plus negative padding {lo} and {hi} resulted in a "
                f"negative output size, which is invalid. Check dimension of your input.")
    return wrap(make(Op.PAD, (n, as_node(value, n.dtype)), tuple(cfg)))


def _repeat(x, repeats):
    n = node(x)
    if len(repeats) < n.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    return wrap(rearrange.tile(n, tuple(repeats)))


def _tri(lower: bool):
    def impl(x, diagonal=0):
        n = node(x)
        if n.ndim < 2:
            raise RuntimeError(f"{'tril' if lower else 'triu'}: input tensor must have at least "
                               "2 dimensions")
        return wrap(matrix.tril(n, diagonal) if lower else matrix.triu(n, diagonal))

    return impl


def _fill(x, value):
    n = node(x)
    if isinstance(value, torch.Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.dim()} dimensions.")
        value = node(value) if isinstance(value, LazyTensor) else value.item()
    return wrap(as_node(value, n.dtype, n.shape))


def _resize_(self, size, memory_format=None):
    """resize_: the old elements in C order, then zeros (torch leaves them
    uninitialized); the wrapper gets the new sizes in place."""
    from lazytensor.core import Handle

    size = size_list(size)
    if size == tuple(self.shape):
        return self
    flat = cs.ravel(node(self))
    count = math.prod(size)
    if count <= flat.shape[0]:
        flat = make(Op.SLICE, (flat,), (0,), (count,), (1,))
    else:
        flat = make(Op.PAD, (flat, as_node(0, flat.dtype)), ((0, count - flat.shape[0], 0),))
    set_metadata(self, size)
    self._h = Handle(cs.reshape(flat, size))
    return self


def _set_source(self, source):
    """``self.set_(source)``: self now shares source's storage and metadata."""
    if not isinstance(source, LazyTensor) or source.dtype != self.dtype:
        raise RuntimeError(f"Could not set tensor of type {source.dtype} on device "
                           f"{source.device} to a tensor of type {self.dtype} on {self.device}")
    set_metadata(self, tuple(source.shape), tuple(source.stride()), source.storage_offset())
    self._h = source._h
    return self


def local_scalar_dense(x):
    """``.item()``: from the table, and on the Lazy key where C++ reaches it
    below the Python key (``torch.tensor`` of a list of 0-dim lazy tensors)."""
    return x._h.numpy().item()


def _pin_memory(x, device=None):
    return x


TABLE = {
    aten.lift_fresh: _lift, aten.lift: _lift,
    aten.clone: _clone, aten._to_copy: masked_reads.through(_to_copy), aten.copy_: _copy,
    aten.cat: _cat, aten.stack: _stack, aten.flip: _flip, aten.roll: _roll,
    aten.constant_pad_nd: _constant_pad_nd, aten.repeat: _repeat,
    aten.tril: _tri(True), aten.triu: _tri(False), aten.fill.Scalar: _fill,
    aten.fill.Tensor: _fill, aten.zero: lambda x: _fill(x, 0),
    aten._local_scalar_dense: local_scalar_dense, aten.resize_: _resize_,
    aten._pin_memory: _pin_memory, aten.set_.source_Tensor: _set_source,
}
