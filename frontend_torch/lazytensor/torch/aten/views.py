"""View ATen ops with PyTorch's aliasing semantics.

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
from lazytensor.core import CoreError, Node, Op, ViewHandle, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import broadcast_to
from lazytensor.core.composite.indexing import subscript as ix
from lazytensor.core.composite.linalg import matrix
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.movement import views as cviews
from lazytensor.core.composite.movement.strides import (
    diagonal_layout,
    expand_strides,
    scatter_at_positions,
    select_layout,
    slice_layout,
    strided_pair,
    strided_positions,
    unfold_layout,
    view_strides,
)
from lazytensor.core.layout import c_strides
from lazytensor.torch._tensor import LazyTensor, alias, wrap, wrap_handle, wrap_view
from lazytensor.torch.aten._common import aten, dim, node, np_dtype, size_list

import torch


# ------------------------------------------------------------- view shapes
def infer_size(size, numel: int) -> tuple[int, ...]:
    """A view/reshape size with one -1 resolved (the core's rule, numpy's
    too; torch's errors)."""
    size = size_list(size)
    try:
        return cs.resolve_shape(numel, size)
    except CoreError:
        if size.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred") from None
        for i, s in enumerate(size):
            if s < -1:
                raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape "
                                   f"{list(size)}") from None
        raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}") from None


def _reshape_view(x: LazyTensor, size: tuple, strides) -> LazyTensor:
    old = tuple(x.shape)
    if size == old:
        return wrap_view(x, _same, _second, strides, x.storage_offset())
    return wrap_view(x, lambda n: make(Op.RESHAPE, (n,), size),
                     lambda b, v: make(Op.RESHAPE, (v,), old), strides, x.storage_offset())


def _same(n: Node) -> Node:
    return n


def _second(b: Node, v: Node) -> Node:
    return v


def _view(x, size):
    if isinstance(size, torch.dtype):
        return _view_dtype(x, size)
    size = infer_size(size, x.numel())
    if x.is_contiguous():
        offset = x.storage_offset()
        return _reshape_view(x, size, c_strides(size) if offset else None)
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


def _view_as_real(x):
    n = node(x)
    if not dt.is_complex(n.dtype):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    stride = tuple(2 * s for s in x.stride()) + (1,)
    forward, backward = cviews.complex_pair()
    return wrap_view(x, forward, backward, stride, 2 * x.storage_offset())


def _view_as_complex(x):
    n = node(x)
    if n.ndim == 0 or n.shape[-1] != 2 or n.dtype not in (dt.float32, dt.float64):
        raise RuntimeError("Tensor must have a last dimension of size 2")
    stride = tuple(s // 2 for s in x.stride()[:-1])
    forward, backward = cviews.real_pair()
    return wrap_view(x, forward, backward, stride, x.storage_offset() // 2)


# ---------------------------------------------------------- permutations
_PERMUTATIONS: dict = {}  # (dims, rank) -> (permutation, inverse); bounded below
_PERMUTATIONS_LIMIT = 4096


def _permutation(dims, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``dims`` of a rank-``n`` tensor as a permutation and its inverse
    (remembered: a training step transposes the same few ways each step;
    torch's errors are raised again, never remembered)."""
    key = (tuple(dims), n)
    found = _PERMUTATIONS.get(key)
    if found is not None:
        return found
    if len(dims) != n:  # torch's wording, "sparse_coo" included
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    perm = tuple(dim(d, n) for d in dims)
    if len(set(perm)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    if len(_PERMUTATIONS) >= _PERMUTATIONS_LIMIT:
        _PERMUTATIONS.clear()
    found = _PERMUTATIONS[key] = (perm, cs.inverse_permutation(perm))
    return found


def _permute(x, dims):
    n = x.dim()
    perm, inverse = _permutation(dims, n)
    stride = x.stride()
    if perm == tuple(range(n)):  # the identity records nothing, as numpy's transpose
        return wrap_view(x, _same, _second, stride, x.storage_offset())
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
    n = x.dim()
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return _permute(x, (1, 0)) if n == 2 else alias(x)


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
    shape = []
    for i, s in enumerate(size):
        j = i - lead
        if j < 0:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension 0")
            shape.append(s)
        elif s == -1 or s == old[j]:
            shape.append(old[j])
        elif old[j] == 1:
            shape.append(s)
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
    return wrap_view(x, lambda v: broadcast_to(v, shape), backward,
                     expand_strides(old, x.stride(), shape),
                     x.storage_offset())


# ------------------------------------------------------------ selections
def _bounds(start, end, length: int) -> tuple[int, int]:
    """A slice's start and end clamped into [0, length] (an empty slice
    ends where it starts), as torch's slice."""
    lo, hi, _ = slice(start, end, 1).indices(length)
    return lo, max(hi, lo)


def _slice(x, d=0, start=None, end=None, step=1):
    d = dim(d, x.dim())
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    lo, hi = _bounds(start, end, x.shape[d])
    index = (slice(None),) * d + (slice(lo, hi, step),)
    stride, offset = slice_layout(x.stride(), x.storage_offset(), d, lo,
                                  len(range(lo, hi, step)), step)
    return wrap_view(x, lambda v: ix.getitem(v, index),
                     lambda b, v: ix.setitem(b, index, v), stride, offset)


def _select(x, d, index):
    n = x.dim()
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim(d, n)
    shape = tuple(x.shape)
    size = shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(shape)} at "
            f"dimension {d}"
        )
    index %= size
    forward, backward = cviews.view_of(node(x), (slice(None),) * d + (index,))
    stride, offset = select_layout(x.stride(), x.storage_offset(), d, index)
    return wrap_view(x, forward, backward, stride, offset)


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
    length = matrix.diagonal_length(x.shape[a], x.shape[b], offset)
    strides, start = diagonal_layout(x.stride(), x.storage_offset(), a, b, offset, length)
    return wrap_view(x, lambda v: matrix.diagonal(v, offset, a, b),
                     lambda base, v: matrix.set_diagonal(base, v, offset, a, b), strides, start)


# ------------------------------------------ gradients and scatters of views
def _select_backward(grad, input_sizes, d, index):
    """Zeros of ``input_sizes`` with ``grad`` at ``index`` along ``d``: a PAD."""
    sizes = size_list(input_sizes)
    d = dim(d, len(sizes))
    return wrap(cviews.embed_select(node(grad), sizes, d, index % sizes[d]))


def _slice_backward(grad, input_sizes, d, start, end, step):
    """Zeros of ``input_sizes`` with ``grad`` in the slice: a PAD with
    interior padding for strides."""
    sizes = size_list(input_sizes)
    d = dim(d, len(sizes))
    lo = _bounds(start, end, sizes[d])[0]
    return wrap(cviews.embed_slice(node(grad), sizes, d, lo, step))


def _select_scatter(x, src, d, index):
    n = node(x)
    d = dim(d, n.ndim)
    key = (slice(None),) * d + (index % n.shape[d],)
    return wrap(ix.setitem(n, key, node(src)))


def _slice_scatter(x, src, d=0, start=None, end=None, step=1):
    n = node(x)
    d = dim(d, n.ndim)
    key = (slice(None),) * d + (slice(*_bounds(start, end, n.shape[d]), step),)
    return wrap(ix.setitem(n, key, node(src)))


def _diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    n = node(x)
    a, b = dim(dim1, n.ndim), dim(dim2, n.ndim)
    return wrap(matrix.set_diagonal(n, node(src), offset, a, b))


# -------------------------------------------------------- strided views
def strided_view(base_handle, base_shape, size, stride, offset: int, strides_out):
    """A view reading ``base`` (seen as contiguous memory) at the positions
    (offset + sum(i_k * stride_k)); read-only when positions repeat."""
    size = tuple(size)
    pos = strided_positions(size, stride, offset)
    numel = math.prod(base_shape)
    if pos.size and (pos.min() < 0 or pos.max() >= numel):
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset} "
            f"require a storage of more elements than the {numel} available"
        )
    forward, backward = strided_pair(pos)
    return wrap_handle(ViewHandle(base_handle, forward, backward), tuple(strides_out), offset)


def _root(x: LazyTensor):
    h = x._h
    return h.base if isinstance(h, ViewHandle) else h


def _as_strided(x, size, stride, storage_offset=None):
    offset = x.storage_offset() if storage_offset is None else storage_offset
    root = _root(x)
    size, stride = size_list(size), tuple(stride)
    shape = root.node.shape
    if offset == 0 and math.prod(size) == math.prod(shape) and \
            stride == c_strides(size):  # the whole root, reshaped
        handle = ViewHandle(root, lambda n: cs.reshape(n, size),
                            lambda b, v: cs.reshape(v, shape))
        return wrap_handle(handle, stride, 0)
    return strided_view(root, shape, size, stride, offset, stride)


def _as_strided_scatter(x, src, size, stride, storage_offset=None):
    """torch's result: a tensor with x's strides and storage offset whose
    storage (as large as x's) holds x's elements and, at the storage
    positions of the strided view, ``src``; positions between x's elements
    are not seen. Lowered as one scatter of the src elements that land on
    an element of x (positions matched on the host). An overlapping view or
    another dtype of ``src`` runs in eager torch on a CPU copy of x with x's
    layout."""
    size, stride = size_list(size), tuple(stride)
    shape, strides, start = tuple(x.shape), x.stride(), x.storage_offset()
    storage = math.prod(_root(x).node.shape)  # in elements
    held = strided_positions(shape, strides, start).reshape(-1)
    if np.unique(held).size != held.size:  # an overlapping x: torch clones it contiguous
        strides, start, storage = c_strides(shape), 0, math.prod(shape)
        held = np.arange(storage)
    offset = start if storage_offset is None else storage_offset
    positions = strided_positions(size, stride, offset).reshape(-1)
    if tuple(src.shape) != tuple(size):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(size)}")
    if not (src.dtype == x.dtype and isinstance(src, LazyTensor)
            and np.unique(positions).size == positions.size):
        from lazytensor.torch._fallback import eager

        laid_out = torch.empty(storage, dtype=x.dtype).as_strided(shape, strides, start)
        return eager(aten.as_strided_scatter.default)(laid_out.copy_(x.cpu()), src, size,
                                                      stride, storage_offset)
    if positions.size and int(positions.max()) >= storage:
        item = x.element_size()
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {(int(positions.max()) + 1) * item}"
            f" are out of bounds for storage of size {storage * item}")
    return wrap(scatter_at_positions(node(x), held, node(src), positions), strides)


def _unfold(x, dimension, size, step):
    n = x.dim()
    d = dim(dimension, n)
    length = x.shape[d] if n else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    out_size, out_virt = unfold_layout(x.shape, c_strides(x.shape), d, size, step)
    out_real = unfold_layout(x.shape, x.stride(), d, size, step)[1]
    return strided_view(x._h, tuple(x.shape), out_size, out_virt, 0, out_real)


def _unsafe_view(x, size):
    size = infer_size(size, x.numel())
    return _reshape_view(x, size, view_strides(tuple(x.shape), x.stride(), size)
                         or c_strides(size))


TABLE = {
    aten.view.default: _view, aten.view.dtype: _view_dtype, aten._unsafe_view: _unsafe_view,
    aten._reshape_alias: _reshape_alias, aten.alias: alias, aten.detach: alias,
    aten.view_as_real: _view_as_real, aten.view_as_complex: _view_as_complex,
    aten.permute: _permute, aten.transpose.int: _transpose, aten.t: _t,
    aten.unsqueeze: _unsqueeze, aten.squeeze.default: _squeeze, aten.squeeze.dim: _squeeze,
    aten.squeeze.dims: _squeeze, aten.expand: _expand,
    aten.slice.Tensor: _slice, aten.select.int: _select,
    aten.split.Tensor: _split, aten.split_with_sizes: _split_with_sizes,
    aten.unbind.int: _unbind, aten.diagonal: _diagonal,
    aten.as_strided: _as_strided, aten.unfold: _unfold,
    aten.as_strided_scatter.default: _as_strided_scatter,
    aten.select_backward: _select_backward, aten.slice_backward: _slice_backward,
    aten.select_scatter: _select_scatter, aten.slice_scatter: _slice_scatter,
    aten.diagonal_scatter: _diagonal_scatter,
}
