"""Indexing ATen ops: advanced indexing (``index``, ``index_put``), gather
and scatter along a dim, index_select/add/copy/fill, masked_fill,
masked_scatter, take, put.

The semantics are numpy's advanced indexing, which torch shares; the core
does the work (``lazytensor.core.composite.indexing.subscript``). torch-specific
parts: index tensors on the CPU are bounds-checked on the host and sent as
device data (a new index never recompiles), boolean masks are materialized
(their result shape depends on their values), and torch's error types.
Lazy integer indices cannot raise when out of bounds: reads clip, writes
are dropped (as in torch_xla and JAX).
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import Node, Op, get_runtime, make
from lazytensor.core import dtypes as dt
from lazytensor.core import masked as core_masked
from lazytensor.core.composite.elementwise import arithmetic, predicates
from lazytensor.core.composite.elementwise.apply import as_node, broadcast_to, convert, full
from lazytensor.core.composite.indexing import along, take
from lazytensor.core.composite.indexing import subscript as ix
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.torch._tensor import NUMPY_OF, LazyTensor, host_array, scalar_type_name, wrap
from lazytensor.torch.aten import masked_reads
from lazytensor.torch.aten._common import aten, broadcast_sizes, cpp_type_name, dim, node

import torch

# torch's rule: long, int, byte or bool (int16 and int8 raise)
_INDEX_DTYPES = (torch.int64, torch.int32, torch.uint8, torch.bool)


_LONG, _INT_OR_LONG = (torch.int64,), (torch.int32, torch.int64)
# torch's index dtype check per op: (accepted dtypes, error type, message,
# formatted with the dtype's name)
_INDEX_CHECKS = {
    "gather": (_INT_OR_LONG, RuntimeError, "gather(): Expected dtype int32/int64 for index"),
    "scatter": (_INT_OR_LONG, RuntimeError, "scatter(): Expected dtype int32/int64 for index"),
    "index_select": (_INT_OR_LONG, RuntimeError,
                     "index_select(): Expected dtype int32 or int64 for index"),
    "index_add": (_INT_OR_LONG, RuntimeError,
                  "index_add_(): Expected dtype int32/int64 for index but got: {}"),
    "index_copy": (_LONG, RuntimeError,
                   "index_copy_(): Expected a long tensor for index, but got {}"),
    "index_fill": (_LONG, IndexError, "index_fill_(): Expected dtype int64 for index."),
    "take": (_LONG, RuntimeError, "take(): Expected a long tensor for index, but got {}"),
    "embedding": (_INT_OR_LONG, RuntimeError,
                  "Expected tensor for argument #1 'indices' to have one of the following "
                  "scalar types: Long, Int; but got torch.{}Tensor instead (while checking "
                  "arguments for embedding)"),
}

_EMPTY_UNCHECKED = frozenset({"gather", "scatter"})  # torch checks only non-empty indices


def index_checked(op: str, impl, position: int):
    """``impl`` after torch's check of the dtype of its index argument
    (positional argument ``position``) for ``op``."""
    accepted, error, message = _INDEX_CHECKS[op]

    def checked(*args, **kwargs):
        index = args[position] if len(args) > position else kwargs.get("index")
        if isinstance(index, torch.Tensor) and index.dtype not in accepted and \
                (index.numel() or op not in _EMPTY_UNCHECKED):
            raise error(message.format(scalar_type_name(NUMPY_OF[index.dtype])))
        return impl(*args, **kwargs)

    return checked


def _entry(t, size: int, axis: int):
    """One ``indices`` entry as a core index (None -> full slice)."""
    if t is None:
        return slice(None)
    if t.dtype not in _INDEX_DTYPES:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if t.dtype in (torch.bool, torch.uint8):
        mask = t._h.numpy() if isinstance(t, LazyTensor) else host_array(t)
        return np.asarray(mask, dtype=bool)
    if isinstance(t, LazyTensor):
        return node(t)
    host = host_array(t).astype(np.int64)
    bad = (host < -size) | (host >= size)
    if bad.any():
        raise IndexError(f"index {host[bad].flat[0]} is out of bounds for dimension {axis} "
                         f"with size {size}")
    return get_runtime().from_host(np.where(host < 0, host + size, host)).node


def _index_tuple(shape: tuple, indices) -> tuple:
    """The core index of ``indices`` into a tensor of ``shape``. Boolean masks
    are materialized here (a barrier): callers read their operands' nodes
    only after this, so that no pending node is held across the sync (its
    inputs may be donated by it)."""
    out, axis = [], 0
    for t in indices:
        entry = _entry(t, shape[axis] if axis < len(shape) else 0, axis)
        out.append(entry)
        axis += entry.ndim if isinstance(entry, np.ndarray) and entry.dtype == bool else 1
    return tuple(out)


def _index(x, indices):
    where = _index_tuple(tuple(x.shape), indices)
    out = wrap(ix.getitem(node(x), where))
    mask = masked_reads.read_mask(x, indices)
    if mask is not None:
        masked_reads.tag_read(out, node(x), mask)
    return out


def _index_put(x, indices, values, accumulate=False):
    full = None if accumulate else masked_reads.written(x, indices, values)
    if full is not None:  # x[m] = f(x[m]): a select of f(x), no data-dependent shape
        n = node(x)
        return wrap(core_masked.write(n, node(indices[0]), convert(full, n.dtype)))
    masked = _masked_put(x, indices, values, accumulate)
    if masked is not None:
        return masked
    where = _index_tuple(tuple(x.shape), indices)
    n = node(x)
    if values.dim() > 1:  # torch keeps no extra leading 1s (x[i] = v strips them before)
        _check_put_rank(values, ix.plan_index(n.shape, where).final_shape)
    try:
        return wrap(ix.setitem(n, where, convert(node(values), n.dtype),
                               "add" if accumulate else "set"))
    except ValueError as exc:  # the core's (numpy's) wording of a value that does not fit
        if "could not be broadcast to indexing result" not in str(exc):
            raise
        _check_put_rank(values, ix.plan_index(n.shape, where).final_shape, always=True)
        raise


def _check_put_rank(values, result: tuple, always: bool = False) -> None:
    """torch's error for a value of more dims than the indexing result."""
    if always or values.dim() > len(result):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot "
                           f"be broadcast to indexing result of shape {list(result)}") from None


def _masked_put(x, indices, values, accumulate: bool):
    """``x[..., mask] = v`` with one bool mask (the other entries full slices)
    and one value (``v.numel() == 1``, ndim <= 1): a select where the mask
    holds, with no barrier (which elements it writes does not change the
    result's shape). None when the write needs the general path."""
    entries = [i for i, t in enumerate(indices) if t is not None]
    if len(entries) != 1 or not isinstance(values, torch.Tensor) or values.dim() > 1 \
            or values.numel() != 1:
        return None
    start, mask = entries[0], indices[entries[0]]
    if not isinstance(mask, torch.Tensor) or mask.dtype is not torch.bool or mask.dim() == 0:
        return None
    n = node(x)
    if tuple(mask.shape) != n.shape[start:start + mask.dim()]:
        return None  # the general path raises torch's IndexError
    m = node(mask)
    if m.shape != n.shape:
        m = make(Op.BROADCAST_IN_DIM, (m,), n.shape, tuple(range(start, start + m.ndim)))
    v = as_node(reshape(convert(node(values), n.dtype), ()), n.dtype, n.shape)
    if accumulate:
        v = make(Op.ADD, (n, v))
    return wrap(make(Op.SELECT, (m, v, n)))


def _index_select(x, d, index):
    n = node(x)
    d = dim(d, n.ndim)
    idx = node(index)
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    picked = take.take(reshape(n, (1,)) if n.ndim == 0 else n, reshape(idx, (-1,)), d)
    return wrap(reshape(picked, ()) if n.ndim == 0 else picked)


def _gather(x, d, index, *, sparse_grad=False):
    n, idx = node(x), node(index)
    out_shape = idx.shape
    n = reshape(n, (1,)) if n.ndim == 0 else n
    idx = reshape(idx, (1,) * n.ndim) if idx.ndim == 0 else idx
    d = dim(d, n.ndim)
    if 0 in idx.shape:
        return wrap(as_node(0, n.dtype, out_shape))
    if idx.ndim != n.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor")
    for i, (a, b) in enumerate(zip(idx.shape, n.shape, strict=True)):
        if i != d and a > b:
            raise RuntimeError(f"Size does not match at dimension {i} expected index "
                               f"{list(idx.shape)} to be no larger than self {list(n.shape)} "
                               f"apart from dimension {d}")
    return wrap(reshape(along.gather_along(n, d, idx), out_shape))


_SCATTER_KINDS = {None: "set", "add": "add", "multiply": "mul", "sum": "add", "prod": "mul",
                  "amax": "max", "amin": "min"}


def _scalar_safe(fn):
    """Run a scatter on 1-element views of 0-dim operands."""
    def impl(x, d, index, src, *args, **kwargs):
        n = node(x)
        if n.ndim:
            return wrap(fn(n, dim(d, n.ndim), node(index), src, *args, **kwargs))
        dim(d, 0)
        idx = reshape(node(index), (1,))
        if isinstance(src, torch.Tensor):
            src = reshape(node(src), (1,))
        return wrap(reshape(fn(reshape(n, (1,)), 0, idx, src, *args, **kwargs), ()))

    return impl


def _source(n: Node, d: int, idx: Node, src) -> Node:
    """scatter's source as a node, after torch's shape checks: the index no
    larger than self (but along ``d``) nor than a tensor source."""
    tensor = isinstance(src, (Node, torch.Tensor))
    s = (src if isinstance(src, Node) else node(src)) if tensor else None
    if 0 in idx.shape:
        return s if tensor else as_node(src, n.dtype, idx.shape)
    for other, name in ((n, "self"), (s, "src")):
        if other is not None and other.ndim != idx.ndim:
            raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                               f"{name} tensor")
    too_big = any(a > b for i, (a, b) in enumerate(zip(idx.shape, n.shape, strict=True))
                  if i != d)
    if too_big or (s is not None and any(a > b for a, b in zip(idx.shape, s.shape,
                                                                strict=True))):
        tail = f" and to be no larger size than src {list(s.shape)}" if s is not None else ""
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self "
                           f"{list(n.shape)} apart from dimension {d}{tail}")
    return s if tensor else as_node(src, n.dtype, idx.shape)


def _scatter_core(n: Node, d: int, idx: Node, src, reduce=None) -> Node:
    return along.scatter_along(n, d, idx, _source(n, d, idx, src), _SCATTER_KINDS[reduce])


def _scatter(x, d, index, src=None, *, value=None, reduce=None):
    return _scalar_safe(_scatter_core)(x, d, index, src if value is None else value,
                                       reduce=reduce)


def _scatter_add(x, d, index, src):
    return _scatter(x, d, index, src, reduce="add")


def _scatter_reduce_core(n: Node, d: int, idx: Node, src, reduce, include_self=True) -> Node:
    kind = "mean" if reduce == "mean" else _SCATTER_KINDS[reduce]
    return along.scatter_reduce_along(n, d, idx, _source(n, d, idx, src), kind, include_self)


def _scatter_reduce(x, d, index, src, reduce, *, include_self=True):
    return _scalar_safe(_scatter_reduce_core)(x, d, index, src, reduce,
                                              include_self=include_self)


def _index_update(kind: str):
    def impl(x, d, index, source, *, alpha=1):
        n = node(x)
        d = dim(d, n.ndim)
        idx = reshape(node(index), (-1,))
        if isinstance(source, torch.Tensor):
            value = convert(node(source), n.dtype)
        else:
            value = source
        if kind == "add" and alpha != 1:
            value = arithmetic.mul_and(value, as_node(alpha, n.dtype, value.shape))  # (bool: and)
        return wrap(along.update_rows(n, d, idx, value, kind))

    return impl


def _masked_fill(x, mask, value):
    n, m = node(x), node(mask)
    if not dt.is_bool(m.dtype):
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{cpp_type_name(m.dtype)}")
    if isinstance(value, torch.Tensor) and value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but "
                           f"got tensor with {value.dim()} dimension(s).")
    shape = broadcast_sizes(m.shape, n.shape)  # torch's order: mask, then self
    v = as_node(node(value) if isinstance(value, torch.Tensor) else value, n.dtype, shape)
    return wrap(make(Op.SELECT, (broadcast_to(m, shape), v, broadcast_to(n, shape))))


def _masked_select(x, mask):
    """x's elements where the (materialized) bool mask holds, x and mask
    broadcast together; x stays lazy, only the mask is read."""
    if mask.dtype is not torch.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_sizes(tuple(mask.shape), tuple(x.shape))
    where = np.broadcast_to(_entry(mask, 0, 0), shape)
    return wrap(ix.getitem(broadcast_to(node(x), shape), (where,)))


def _nonzero(x):
    """Indices (count, ndim) of x's nonzero elements: only ``x != 0`` is
    read (the count decides the shape), as torch's CUDA kernel syncs."""
    truth = predicates.truthy(node(x))
    return wrap(get_runtime().from_host(np.argwhere(wrap(truth)._h.numpy())).node)


def _masked_scatter(x, mask, source):
    """masked_scatter: source's leading elements, in order, where mask holds
    (the core's cumulative-count gather; the count cannot be checked against
    source's length lazily, a short source repeats its last element)."""
    n, m, src = node(x), node(mask), node(source)
    if not dt.is_bool(m.dtype):
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {scalar_type_name(m.dtype)}")
    if src.dtype != n.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{scalar_type_name(n.dtype)} and {scalar_type_name(src.dtype)}")
    return wrap(take.masked_scatter(n, m, src))


def _masked_scatter_backward(grad_output, mask, sizes):
    """The gradient of masked_scatter's source: grad_output where mask holds,
    in order, then zeros, in source's shape."""
    g, m = node(grad_output), node(mask)
    zeros = full(tuple(int(s) for s in sizes), 0, g.dtype)
    return wrap(cnn.vjp(lambda src: take.masked_scatter(full(g.shape, 0, g.dtype), m, src),
                        (zeros,), g)[0])


def _take(x, index):
    return wrap(take.take(node(x), node(index)))


def _put(x, index, source, accumulate=False):
    """put: ``x.flatten()[index] = source.flatten()`` (summed over repeated
    indices with accumulate), negative indices from the end, after torch's
    checks. Lazy indices out of range are dropped (see the module doc)."""
    if index.dtype != torch.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{scalar_type_name(NUMPY_OF[index.dtype])}")
    if source.dtype != x.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {scalar_type_name(NUMPY_OF[x.dtype])} and "
                           f"source.dtype = {scalar_type_name(NUMPY_OF[source.dtype])}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    n = node(x)
    if index.numel() == 0:
        return wrap(n)
    if x.numel() == 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if isinstance(index, LazyTensor):
        where = (reshape(node(index), (-1,)),)
    else:  # a CPU index: checked now, with torch's message
        host = host_array(index).reshape(-1)
        bad = (host < -x.numel()) | (host >= x.numel())
        if bad.any():
            raise IndexError(f"out of range: tried to access index {host[bad][0]} on a tensor "
                             f"of {x.numel()} elements.")
        where = (_entry(index.reshape(-1), x.numel(), 0),)
    out = ix.setitem(reshape(n, (-1,)), where, reshape(node(source), (-1,)),
                     "add" if accumulate else "set")
    return wrap(reshape(out, n.shape))


def _index_reduce(x, d, index, source, reduce, *, include_self=True):
    """index_reduce: scatter_reduce with the index spread along ``d`` (torch
    has no bool or complex kernel)."""
    n, idx, src = node(x), node(index), node(source)
    if dt.is_bool(n.dtype) or dt.is_complex(n.dtype):
        raise NotImplementedError(f"\"index_func_\" not implemented for "
                                  f"'{scalar_type_name(n.dtype)}'")
    if n.ndim == 0:
        return _scatter_reduce(x, d, index, source, reduce, include_self=include_self)
    d = dim(d, n.ndim)
    spread = make(Op.BROADCAST_IN_DIM, (convert(idx, dt.int64),), src.shape, (d,))
    return wrap(_scatter_reduce_core(n, d, spread, src, reduce, include_self))


def _searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                  sorter=None):
    """Insertion points by torch's binary search (the core's ``bisect``: a NaN
    compares false both ways). torch has no bool or complex kernel: those
    raise its error (torch's own op runs on zeros of their shapes)."""
    if any(isinstance(t, torch.Tensor) and (t.dtype is torch.bool or t.is_complex())
           for t in (sorted_sequence, values)):
        torch.searchsorted(*(torch.zeros(t.shape, dtype=t.dtype) if isinstance(t, torch.Tensor)
                             else t for t in (sorted_sequence, values)), right=right)
    seq = node(sorted_sequence)
    vals = node(values) if isinstance(values, torch.Tensor) else as_node(values, seq.dtype)
    sorter = None if sorter is None else node(sorter)
    count = along.bisect(seq, vals, right or side == "right", sorter)
    return wrap(convert(count, dt.int32 if out_int32 else dt.int64))


TABLE = {
    aten.index_reduce: _index_reduce, aten.searchsorted.Tensor: _searchsorted,
    aten.searchsorted.Scalar: _searchsorted,
    aten.index.Tensor: _index, aten.index_put: _index_put, aten._index_put_impl: _index_put,
    aten.index_select: index_checked("index_select", _index_select, 2),
    aten.gather: index_checked("gather", _gather, 2),
    aten.scatter: index_checked("scatter", _scatter, 2),
    aten.scatter_add: index_checked("scatter", _scatter_add, 2),
    aten.scatter_reduce.two: index_checked("scatter", _scatter_reduce, 2),
    aten.index_add: index_checked("index_add", _index_update("add"), 2),
    aten.index_copy: index_checked("index_copy", _index_update("set"), 2),
    aten.index_fill: index_checked("index_fill", _index_update("set"), 2),
    aten.masked_fill: _masked_fill, aten.take: index_checked("take", _take, 1),
    aten.masked_scatter: _masked_scatter, aten.put: _put,
    aten.masked_select: _masked_select, aten.nonzero: _nonzero,
    aten.masked_scatter_backward.default: _masked_scatter_backward,
}
