"""Views and shape ops with PyTorch's aliasing semantics.

A view op returns a tensor whose storage is a core ``ViewHandle`` onto its
input's storage: its value is ``forward(base)`` and an in-place write to it
becomes ``backward(base, value)`` in the base, so writes reach every alias
as in torch. The wrapper's sizes, strides and storage offset are the ones
torch would report (computed here from the input's), so ``is_contiguous``,
``contiguous()``, ``reshape`` (view or copy) and ``view`` errors behave as in
torch. Views that repeat elements (expand, overlapping as_strided) are
read-only, and writing to them raises torch's error.
"""

from __future__ import annotations

import math

import numpy as np
from lazytensor.core import Node, Op, ViewHandle, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite import indexing as ix
from lazytensor.core.composite import matrix, rearrange
from lazytensor.core.composite import shape as cs
from lazytensor.core.composite.elementwise import as_node, broadcast_to, convert
from lazytensor.torch._promotion import result_type
from lazytensor.torch._tensor import (
    LazyTensor,
    alias,
    node_of_host,
    set_metadata,
    to_cpu,
    wrap,
    wrap_handle,
    wrap_view,
)
from lazytensor.torch.aten._common import (
    aten,
    contiguous_strides,
    dense_strides,
    dim,
    node,
    np_dtype,
    size_list,
)

import torch


# ------------------------------------------------------------- view shapes
def infer_size(size, numel: int) -> tuple[int, ...]:
    """A view/reshape size with one -1 resolved (torch's error otherwise)."""
    size = size_list(size)
    known = math.prod(s for s in size if s != -1)
    if size.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in size:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
        size = tuple(numel // known if s == -1 else s for s in size)
    if math.prod(size) != numel:
        raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
    return size


def view_strides(old: tuple, stride: tuple, new: tuple) -> tuple | None:
    """Strides of ``new`` viewing memory laid out as (old, stride), or None
    when no view exists (torch's computeStride)."""
    if not old:
        return (1,) * len(new)
    if math.prod(old) == 0:
        return tuple(stride) if tuple(old) == tuple(new) else contiguous_strides(new)
    out = [0] * len(new)
    view_d = len(new) - 1
    chunk = stride[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and stride[d - 1] != tensor_numel * chunk):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * chunk
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk, tensor_numel, view_numel = stride[d - 1], 1, 1
    return tuple(out) if view_d == -1 else None


def _reshape_view(x: LazyTensor, size: tuple, strides) -> LazyTensor:
    old = tuple(x.shape)
    return wrap_view(x, lambda n: cs.reshape(n, size), lambda b, v: cs.reshape(v, old),
                     strides, x.storage_offset())


def _view(x, size):
    if isinstance(size, torch.dtype):
        return _view_dtype(x, size)
    size = infer_size(size, x.numel())
    strides = view_strides(tuple(x.shape), x.stride(), size)
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return _reshape_view(x, size, strides)


def _view_dtype(x, dtype: torch.dtype):
    target = np_dtype(dtype)
    source = node(x).dtype
    if target.itemsize != source.itemsize:
        raise RuntimeError("lazytensor.torch: view(dtype) between dtypes of different sizes "
                           "is not supported")
    return wrap_view(x, lambda n: make(Op.BITCAST_CONVERT, (n,), target),
                     lambda b, v: make(Op.BITCAST_CONVERT, (v,), source),
                     x.stride(), x.storage_offset())


def _reshape_alias(x, size, stride):
    return _reshape_view(x, infer_size(size, x.numel()), tuple(stride))


def _alias(x):
    return alias(x)


def _view_as_real(x):
    n = node(x)
    if not dt.is_complex(n.dtype):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    stride = tuple(2 * s for s in x.stride()) + (1,)

    def forward(v: Node) -> Node:
        parts = [cs.reshape(make(op, (v,)), (*v.shape, 1)) for op in (Op.REAL, Op.IMAG)]
        return make(Op.CONCATENATE, tuple(parts), v.ndim)

    return wrap_view(x, forward, lambda b, v: _to_complex(v), stride, 2 * x.storage_offset())


def _to_complex(v: Node) -> Node:
    last = v.ndim - 1
    re, im = (cs.reshape(cs.slice_axis(v, last, i, i + 1), v.shape[:-1]) for i in (0, 1))
    return make(Op.COMPLEX, (re, im))


def _view_as_complex(x):
    n = node(x)
    if n.ndim == 0 or n.shape[-1] != 2 or n.dtype not in (dt.float32, dt.float64):
        raise RuntimeError("Tensor must have a last dimension of size 2")
    stride = tuple(s // 2 for s in x.stride()[:-1])
    return wrap_view(x, _to_complex, lambda b, v: _view_as_real_node(v), stride,
                     x.storage_offset() // 2)


def _view_as_real_node(v: Node) -> Node:
    parts = [cs.reshape(make(op, (v,)), (*v.shape, 1)) for op in (Op.REAL, Op.IMAG)]
    return make(Op.CONCATENATE, tuple(parts), v.ndim)


# ---------------------------------------------------------- permutations
def _permute(x, dims):
    n = x.dim()
    perm = tuple(dim(d, n) for d in dims)
    if len(set(perm)) != n or len(perm) != n:
        raise RuntimeError("permute(): dims must be a permutation of the input's dims")
    inverse = [0] * n
    for i, p in enumerate(perm):
        inverse[p] = i
    inverse = tuple(inverse)
    stride = x.stride()
    return wrap_view(x, lambda v: make(Op.TRANSPOSE, (v,), perm),
                     lambda b, v: make(Op.TRANSPOSE, (v,), inverse),
                     tuple(stride[p] for p in perm), x.storage_offset())


def _transpose(x, dim0, dim1):
    n = x.dim()
    a, b = dim(dim0, n), dim(dim1, n)
    if n == 0:
        return alias(x)
    perm = list(range(n))
    perm[a], perm[b] = perm[b], perm[a]
    return _permute(x, perm)


def _t(x):
    if x.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.dim()}D")
    return _permute(x, (1, 0)) if x.dim() == 2 else alias(x)


# ---------------------------------------------------------- size-1 axes
def _unsqueeze(x, d):
    n = x.dim()
    d = dim(d, n + 1)
    size = tuple(x.shape[:d]) + (1,) + tuple(x.shape[d:])
    stride = list(x.stride())
    stride.insert(d, 1 if d >= n else x.shape[d] * stride[d])
    return _reshape_view(x, size, tuple(stride))


def _squeeze(x, d=None):
    n = x.dim()
    if d is None:
        axes = {i for i, s in enumerate(x.shape) if s == 1}
    else:
        axes = {dim(a, n) for a in ((d,) if isinstance(d, int) else d)}
        axes = {a for a in axes if n and x.shape[a] == 1}
    size = tuple(s for i, s in enumerate(x.shape) if i not in axes)
    stride = tuple(s for i, s in enumerate(x.stride()) if i not in axes)
    return _reshape_view(x, size, stride)


# ---------------------------------------------------------- broadcasting
def _expand(x, size, *, implicit=False):
    size = size_list(size)
    old = tuple(x.shape)
    lead = len(size) - len(old)
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(old)}}}, size={list(size)}): the number of sizes "
            f"provided ({len(size)}) must be greater or equal to the number of dimensions in "
            f"the tensor ({len(old)})"
        )
    shape, strides = [], []
    for i, s in enumerate(size):
        j = i - lead
        if j < 0:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension 0")
            shape.append(s)
            strides.append(0)
        elif s == -1 or s == old[j]:
            shape.append(old[j])
            strides.append(x.stride()[j])
        elif old[j] == 1:
            shape.append(s)
            strides.append(0)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size "
                f"({old[j]}) at non-singleton dimension {i}.  Target sizes: {list(size)}.  "
                f"Tensor sizes: {list(old)}"
            )
    shape = tuple(shape)
    if shape == old:
        return alias(x)
    grows = any(s != 1 and (i < lead or old[i - lead] == 1) for i, s in enumerate(shape))
    backward = None if grows and math.prod(shape) > 1 else (lambda b, v: cs.reshape(v, old))
    return wrap_view(x, lambda v: broadcast_to(v, shape), backward, tuple(strides),
                     x.storage_offset())


# ------------------------------------------------------------ selections
def _slice(x, d=0, start=None, end=None, step=1):
    n = x.dim()
    d = dim(d, n)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    length = x.shape[d]
    lo, hi, _ = slice(start, end, 1).indices(length)
    hi = max(hi, lo)
    index = (slice(None),) * d + (slice(lo, hi, step),)
    count = len(range(lo, hi, step))
    stride = list(x.stride())
    offset = x.storage_offset() + (lo * stride[d] if count else 0)
    stride[d] *= step
    return wrap_view(x, lambda v: cs.slice_axis(v, d, lo, hi, step),
                     lambda b, v: ix.setitem(b, index, v), tuple(stride), offset)


def _select(x, d, index):
    n = x.dim()
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim(d, n)
    size = x.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(x.shape)} at "
            f"dimension {d}"
        )
    index %= size
    key = (slice(None),) * d + (index,)
    stride = list(x.stride())
    offset = x.storage_offset() + index * stride[d]
    del stride[d]
    return wrap_view(x, lambda v: ix.getitem(v, key), lambda b, v: ix.setitem(b, key, v),
                     tuple(stride), offset)


def _split_with_sizes(x, split_sizes, d=0):
    d = dim(d, x.dim())
    if sum(split_sizes) != x.shape[d]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {x.shape[d]} (input "
            f"tensor's size at dimension {d}), but got split_sizes={list(split_sizes)}"
        )
    out, start = [], 0
    for s in split_sizes:
        out.append(_slice(x, d, start, start + s))
        start += s
    return out


def _split(x, split_size, d=0):
    d = dim(d, x.dim())
    length = x.shape[d]
    if split_size <= 0 and length:
        raise RuntimeError(f"split expects split_size be non-negative, but got {split_size}")
    sizes = [min(split_size, length - i) for i in range(0, length, split_size)] if length \
        else [0]
    return _split_with_sizes(x, sizes, d)


def _unbind(x, d=0):
    d = dim(d, x.dim())
    return [_select(x, d, i) for i in range(x.shape[d])]


def _diagonal(x, offset=0, dim1=0, dim2=1):
    n = x.dim()
    a, b = dim(dim1, n), dim(dim2, n)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    stride = x.stride()
    length = matrix.diagonal_length(x.shape[a], x.shape[b], offset)
    start = x.storage_offset()
    if length:
        start += offset * stride[b] if offset >= 0 else -offset * stride[a]
    strides = tuple(s for i, s in enumerate(stride) if i not in (a, b)) + (stride[a] + stride[b],)
    return wrap_view(x, lambda v: matrix.diagonal(v, offset, a, b),
                     lambda base, v: matrix.set_diagonal(base, v, offset, a, b), strides, start)


# -------------------------------------------------------- strided views
def _strided_positions(size, stride, offset: int) -> np.ndarray:
    pos = np.full(tuple(size), offset, dtype=np.int64)
    for d, (s, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = s
        pos = pos + (np.arange(s, dtype=np.int64) * st).reshape(shape)
    return pos


def strided_view(base_handle, base_shape, size, stride, offset: int, strides_out):
    """A view reading ``base`` (seen as contiguous memory) at the positions
    (offset + sum(i_k * stride_k)); read-only when positions repeat."""
    size = tuple(size)
    pos = _strided_positions(size, stride, offset)
    numel = math.prod(base_shape)
    if pos.size and (pos.min() < 0 or pos.max() >= numel):
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset} "
            f"require a storage of more elements than the {numel} available"
        )
    flat_index = (pos.reshape(-1),)
    unique = np.unique(pos).size == pos.size

    def forward(b: Node) -> Node:
        return cs.reshape(ix.getitem(cs.ravel(b), flat_index), size)

    def backward(b: Node, v: Node) -> Node:
        flat = ix.setitem(cs.ravel(b), flat_index, cs.ravel(v), unique_indices=True)
        return cs.reshape(flat, b.shape)

    handle = ViewHandle(base_handle, forward, backward if unique else None)
    return wrap_handle(handle, tuple(strides_out), offset)


def _root(x: LazyTensor):
    h = x._h
    return h.base if isinstance(h, ViewHandle) else h


def _as_strided(x, size, stride, storage_offset=None):
    offset = x.storage_offset() if storage_offset is None else storage_offset
    root = _root(x)
    size, stride = size_list(size), tuple(stride)
    shape = root.node.shape
    if offset == 0 and math.prod(size) == math.prod(shape) and \
            stride == contiguous_strides(size):  # the whole root, reshaped
        handle = ViewHandle(root, lambda n: cs.reshape(n, size),
                            lambda b, v: cs.reshape(v, shape))
        return wrap_handle(handle, stride, 0)
    return strided_view(root, shape, size, stride, offset, stride)


def _unfold(x, dimension, size, step):
    n = x.dim()
    d = dim(dimension, n)
    length = x.shape[d] if n else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape = list(x.shape) if n else [1]
    count = (length - size) // step + 1
    virtual = contiguous_strides(tuple(x.shape))
    virt_stride = list(virtual) if n else [1]
    out_size = shape[:d] + [count] + shape[d + 1:] + [size]
    out_virt = virt_stride[:d] + [virt_stride[d] * step] + virt_stride[d + 1:] + [virt_stride[d]]
    real = list(x.stride()) if n else [1]
    out_real = real[:d] + [real[d] * step] + real[d + 1:] + [real[d]]
    if not n:
        out_size, out_virt, out_real = [size], [1], [1]
    return strided_view(x._h, tuple(x.shape), out_size, out_virt, 0, out_real)


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
    elif src.dim() == 0:
        value = as_node(src.item(), np_dtype(src.dtype))
    else:
        value = node_of_host(src)
    target = node(self).dtype
    value = convert(value, target)
    if not isinstance(self, LazyTensor):  # lazy -> CPU destination
        self.copy_(to_cpu(src))
        return self
    try:
        value = broadcast_to(value, tuple(self.shape))
    except ValueError as exc:
        raise RuntimeError(
            f"The size of tensor a ({self.shape[-1] if self.dim() else 1}) must match the "
            f"size of tensor b ({src.shape[-1] if src.dim() else 1}) at non-singleton "
            "dimension"
        ) from exc
    assign(self, value)
    return self


def _lift(x):
    return x if isinstance(x, LazyTensor) else wrap(node_of_host(x))


# ------------------------------------------------------------ joins etc.
def _cat(tensors, d=0):
    live = [t for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)]
    if not live:
        return wrap(node(tensors[0])) if tensors else None
    n = live[0].dim()
    d = dim(d, n)
    dtype = result_type(*live)
    nodes = [convert(node(t), dtype) for t in live]
    for t in nodes[1:]:
        if t.ndim != n:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {n} and {t.ndim}")
    return wrap(make(Op.CONCATENATE, tuple(nodes), d) if len(nodes) > 1 else nodes[0])


def _stack(tensors, d=0):
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tuple(tensors[0].shape)
    for t in tensors:
        if tuple(t.shape) != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry "
                f"0 and {list(t.shape)} at entry {tensors.index(t)}"
            )
    d = dim(d, len(shape) + 1)
    dtype = result_type(*tensors)
    new = shape[:d] + (1,) + shape[d:]
    nodes = [cs.reshape(convert(node(t), dtype), new) for t in tensors]
    return wrap(make(Op.CONCATENATE, tuple(nodes), d) if len(nodes) > 1 else nodes[0])


def _flip(x, dims):
    n = node(x)
    axes = tuple(sorted({dim(d, n.ndim) for d in dims}))
    return wrap(make(Op.REV, (n,), axes) if axes and n.ndim else n)


def _roll(x, shifts, dims=()):
    n = node(x)
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
    for size, (lo, hi, _) in zip(n.shape, cfg):
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
        v = node(value) if isinstance(value, LazyTensor) else value.item()
        return wrap(broadcast_to(convert(v, n.dtype), n.shape) if isinstance(v, Node)
                    else as_node(v, n.dtype, n.shape))
    return wrap(as_node(value, n.dtype, n.shape))


def _zero(x):
    n = node(x)
    return wrap(as_node(0, n.dtype, n.shape))


def _unsafe_view(x, size):
    size = infer_size(size, x.numel())
    return _reshape_view(x, size, view_strides(tuple(x.shape), x.stride(), size)
                         or contiguous_strides(size))


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


def _local_scalar_dense(x):
    return x._h.numpy().item()


def _pin_memory(x, device=None):
    return x


TABLE = {
    aten.view.default: _view, aten.view.dtype: _view_dtype, aten._unsafe_view: _unsafe_view,
    aten._reshape_alias: _reshape_alias, aten.alias: _alias, aten.detach: _alias,
    aten.view_as_real: _view_as_real, aten.view_as_complex: _view_as_complex,
    aten.lift_fresh: _lift, aten.lift: _lift,
    aten.permute: _permute, aten.transpose.int: _transpose, aten.t: _t,
    aten.unsqueeze: _unsqueeze, aten.squeeze.default: _squeeze, aten.squeeze.dim: _squeeze,
    aten.squeeze.dims: _squeeze, aten.expand: _expand,
    aten.slice.Tensor: _slice, aten.select.int: _select,
    aten.split.Tensor: _split, aten.split_with_sizes: _split_with_sizes,
    aten.unbind.int: _unbind, aten.diagonal: _diagonal,
    aten.as_strided: _as_strided, aten.unfold: _unfold,
    aten.clone: _clone, aten._to_copy: _to_copy, aten.copy_: _copy,
    aten.cat: _cat, aten.stack: _stack, aten.flip: _flip, aten.roll: _roll,
    aten.constant_pad_nd: _constant_pad_nd, aten.repeat: _repeat,
    aten.tril: _tri(True), aten.triu: _tri(False), aten.fill.Scalar: _fill,
    aten.fill.Tensor: _fill, aten.zero: _zero,
    aten._local_scalar_dense: _local_scalar_dense, aten.resize_: _resize_, aten._pin_memory: _pin_memory,
}

