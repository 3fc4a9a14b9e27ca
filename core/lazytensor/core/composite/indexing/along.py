"""Reads and writes along one axis with an index array of the operand's
rank: numpy's ``take_along_axis``/``put_along_axis``, torch's ``gather``/
``scatter``/``scatter_reduce``/``index_add``, tf's ``gather(batch_dims)``,
``gather_nd`` and ``tensor_scatter_nd_*`` (index tuples in a last axis).
Indices may be negative (counted from the end); out-of-range reads clip
and out-of-range writes are dropped, as on every XLA backend.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.arange(6.0).reshape(2, 3), np.dtype("float32"))
>>> i = constant(np.array([[2], [0]]), np.dtype("int64"))
>>> gather_along(x, 1, i).shape
(2, 1)
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import iota
from lazytensor.core.composite.elementwise import division
from lazytensor.core.composite.elementwise.apply import as_node, convert
from lazytensor.core.composite.indexing import subscript as ix
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.composite.reduce import folds
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, make

_KINDS = ("set", "add", "mul", "max", "min")


def coordinates(index: Node, axis: int) -> Node:
    """Full coordinates (``index.shape + (ndim,)``) that address, for every
    position of ``index``, the element whose ``axis`` coordinate is the
    index value and whose other coordinates are the position's own."""
    shape = index.shape
    cols = []
    for a in range(len(shape)):
        col = convert(index, dt.int64) if a == axis else iota(shape, a, dt.int64)
        cols.append(reshape(col, (*shape, 1)))
    return cols[0] if len(cols) == 1 else make(Op.CONCATENATE, tuple(cols), len(shape))


def _wrapped(index: Node, size: int) -> Node:
    if not dt.is_int(index.dtype):
        raise DTypeError(f"expected an index of an integer dtype, got {index.dtype}")
    return ix.wrap_negative(convert(index, dt.int64), size)


def gather_at(x: Node, coords: Node) -> Node:
    """The elements of ``x`` at full ``coords`` (from ``coordinates``)."""
    n = x.ndim
    return make(Op.GATHER, (x, coords), (), tuple(range(n)), tuple(range(n)), (), (),
                (1,) * n, "clip")


def gather_along(x: Node, axis: int, index: Node) -> Node:
    """``out[p] = x[p with p[axis] = index[p]]`` (``index`` of ``x``'s rank;
    shape ``index.shape``, dtype ``x``'s)."""
    if 0 in index.shape:
        return as_node(0, x.dtype, index.shape)
    out = gather_at(x, coordinates(_wrapped(index, x.shape[axis]), axis))
    return reshape(out, index.shape)


def scatter_along(x: Node, axis: int, index: Node, src: Node, kind: str = "set") -> Node:
    """``x`` with ``src[p]`` combined by ``kind`` (set/add/mul/max/min) into
    ``x[p with p[axis] = index[p]]``; ``src`` is cut to ``index``'s shape."""
    assert kind in _KINDS, kind
    if 0 in index.shape:
        return x
    if src.shape != index.shape:
        src = make(Op.SLICE, (src,), (0,) * src.ndim, index.shape, (1,) * src.ndim)
    coords = coordinates(_wrapped(index, x.shape[axis]), axis)
    return make(Op.SCATTER, (x, coords, convert(src, x.dtype)), (), tuple(range(x.ndim)),
                tuple(range(x.ndim)), (), (), kind, "fill")


def scatter_reduce_along(x: Node, axis: int, index: Node, src: Node, kind: str,
                         include_self: bool = True) -> Node:
    """``scatter_along`` with a reduction (add/mul/max/min/mean) that may
    leave ``x``'s own values out of the targeted positions (positions no
    index reaches keep ``x``'s value)."""
    if kind == "mean":
        return _scatter_mean(x, axis, index, src, include_self)
    if not include_self:
        ident = folds.identity_of(x.dtype, {"add": "sum", "mul": "prod"}.get(kind, kind))
        x = scatter_along(x, axis, index, as_node(ident, x.dtype, index.shape))
    return scatter_along(x, axis, index, src, kind)


def _scatter_mean(x: Node, axis: int, index: Node, src: Node, include_self: bool) -> Node:
    zero = as_node(0, x.dtype, x.shape)
    base = x if include_self else scatter_along(x, axis, index, as_node(0, x.dtype, index.shape))
    total = scatter_along(base, axis, index, src, "add")
    start = as_node(1 if include_self else 0, x.dtype, x.shape)
    count = scatter_along(start, axis, index, as_node(1, x.dtype, index.shape), "add")
    empty = make(Op.EQ, (count, zero))
    safe = make(Op.SELECT, (empty, as_node(1, x.dtype, x.shape), count))
    if dt.is_inexact(x.dtype):
        mean = make(Op.DIV, (total, safe))
    else:
        mean = division.floor_divide(total, safe)
    return make(Op.SELECT, (empty, x, mean))


def gather_batched(x: Node, index: Node, axis: int, batch_dims: int = 0) -> Node:
    """``x``'s slices along ``axis`` picked by integer ``index`` (one lax
    gather), the first ``batch_dims`` dims of ``x`` and ``index`` paired
    (StableHLO batching dims, ``axis >= batch_dims``); out-of-range indices
    clamp.

    Shape rule: x.shape[:axis] + index.shape[batch_dims:] + x.shape[axis + 1:].

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.zeros((2, 5, 3)), np.dtype("float32"))
    >>> gather_batched(x, constant(np.zeros((2, 4), np.int64), dt.int64), 1, 1).shape
    (2, 4, 3)
    """
    b = batch_dims
    coords = reshape(index, index.shape + (1,))
    rank = x.ndim - 1 - b + index.ndim
    offsets = tuple(range(b, axis)) + tuple(range(axis + index.ndim - b, rank))
    sizes = tuple(1 if d == axis or d < b else s for d, s in enumerate(x.shape))
    batch = tuple(range(b))
    return make(Op.GATHER, (x, coords), offsets, (axis,), (axis,), batch, batch, sizes, "clip")


def gather_nd(x: Node, index: Node, batch_dims: int = 0) -> Node:
    """The slices of ``x`` addressed by the index tuples in ``index``'s last
    axis (k coordinates into the dims after ``batch_dims``, which pair with
    index's leading dims); out-of-range coordinates clamp.

    Shape rule: index.shape[:-1] + x.shape[batch_dims + k:].

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.zeros((4, 5, 3)), np.dtype("float32"))
    >>> gather_nd(x, constant(np.zeros((6, 2), np.int64), dt.int64)).shape
    (6, 3)
    """
    b, k = batch_dims, index.shape[-1]
    dims = tuple(range(b, b + k))
    sizes = tuple(1 if d < b + k else s for d, s in enumerate(x.shape))
    rank = index.ndim - 1 + x.ndim - b - k
    batch = tuple(range(b))
    return make(Op.GATHER, (x, index), tuple(range(index.ndim - 1, rank)), dims, dims, batch,
                batch, sizes, "clip")


def scatter_nd(x: Node, index: Node, updates: Node, kind: str = "set") -> Node:
    """``x`` with each slice of ``updates`` combined by ``kind`` (set/add/
    mul/max/min) into the slice of ``x`` that the index tuple in
    ``index``'s last axis addresses (``gather_nd``'s inverse); out-of-range
    tuples are dropped. ``updates`` has shape index.shape[:-1] +
    x.shape[k:] and x's dtype."""
    assert kind in _KINDS, kind
    k = index.shape[-1]
    window = tuple(range(index.ndim - 1, updates.ndim))
    return make(Op.SCATTER, (x, index, updates), window, tuple(range(k)), tuple(range(k)), (),
                (), kind, "fill")


def _move_first(x: Node, axis: int) -> Node:
    return make(Op.TRANSPOSE, (x,), (axis, *[a for a in range(x.ndim) if a != axis]))


def _move_back(x: Node, axis: int) -> Node:
    perm = list(range(1, x.ndim))
    perm.insert(axis, 0)
    return make(Op.TRANSPOSE, (x,), tuple(perm))


def update_rows(x: Node, axis: int, index: Node, value, kind: str = "set") -> Node:
    """``x`` with the slices ``index[i]`` along ``axis`` set to (or combined
    by ``kind`` with) ``value``: slice ``i`` of a ``value`` array of ``x``'s
    rank, or one scalar / broadcastable value for all (``index_add``,
    ``index_copy``, ``index_fill``; numpy's ``x[..., index] += v``)."""
    index = reshape(index, (-1,))
    if x.ndim == 0:
        flat = reshape(value, (-1,)) if isinstance(value, Node) else value
        return reshape(ix.setitem(reshape(x, (1,)), (index,), flat, kind), ())
    if isinstance(value, Node) and value.ndim == x.ndim:
        if not axis:
            return ix.setitem(x, (index,), value, kind)
        out = ix.setitem(_move_first(x, axis), (index,), _move_first(value, axis), kind)
        return _move_back(out, axis)
    return ix.setitem(x, (slice(None),) * axis + (index,), value, kind)


def _sorted_and_common(seq: Node, values: Node, sorter: Node | None) -> tuple[Node, Node]:
    """``seq`` put in order by ``sorter`` (indices along its last axis, if
    given), and both operands converted to their common dtype."""
    if sorter is not None and seq.shape[-1]:
        seq = gather_at(seq, coordinates(convert(sorter, dt.int64), seq.ndim - 1))
    if values.dtype != seq.dtype:
        common = np.promote_types(values.dtype, seq.dtype)
        seq, values = convert(seq, common), convert(values, common)
    return seq, values


def searchsorted(seq: Node, values: Node, right: bool = False, sorter: Node | None = None,
                 ) -> Node:
    """Insertion points (int64) of ``values`` into the sorted last axis of
    ``seq`` (1-d, or batched with ``values``' leading axes), by counting
    #(seq < v) (left) or #(seq <= v) (right).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> s = constant(np.array([1.0, 2.0, 3.0]), np.dtype("float32"))
    >>> searchsorted(s, constant(np.array([2.5]), np.dtype("float32"))).shape
    (1,)
    """
    seq, values = _sorted_and_common(seq, values, sorter)
    lead = values.shape if seq.ndim == 1 else values.shape[:-1]
    shape = (*values.shape, seq.shape[-1])
    last = len(shape) - 1
    s_dims = (last,) if seq.ndim == 1 else tuple(range(len(lead))) + (last,)
    s_b = make(Op.BROADCAST_IN_DIM, (seq,), shape, s_dims)
    v_b = make(Op.BROADCAST_IN_DIM, (values,), shape, tuple(range(values.ndim)))
    hit = make(Op.LE if right else Op.LT, (s_b, v_b))
    return make(Op.REDUCE_SUM, (convert(hit, dt.int64),), (last,))


def bisect(seq: Node, values: Node, right: bool = False, sorter: Node | None = None) -> Node:
    """Insertion points (int64) of ``values`` into the last axis of ``seq``
    (1-d, or batched with ``values``' leading axes) by C's binary search:
    ceil(log2(n + 1)) halvings, going right while ``!(s >= v)`` (left) or
    ``!(s > v)`` (right). Equal to ``searchsorted`` for NaN-free input; a
    NaN compares false both ways, as in torch's kernel (a NaN value lands
    at the end, a NaN in ``seq`` sends the search to its right).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> s = constant(np.array([1.0, 2.0, 3.0]), np.dtype("float32"))
    >>> bisect(s, constant(np.array([2.0, np.nan]), np.dtype("float32"))).shape
    (2,)
    """
    seq, values = _sorted_and_common(seq, values, sorter)
    n, shape = seq.shape[-1], values.shape
    lo, hi = as_node(0, dt.int64, shape), as_node(n, dt.int64, shape)
    one = as_node(1, dt.int64, shape)
    for _ in range(n.bit_length()):
        mid = make(Op.SHIFT_RIGHT_LOGICAL, (make(Op.ADD, (lo, hi)), one))
        at = make(Op.MIN, (mid, as_node(n - 1, dt.int64, shape)))
        if seq.ndim == 1:
            probe = reshape(gather_at(seq, reshape(at, (*shape, 1))), shape)
        else:
            probe = gather_along(seq, seq.ndim - 1, at)
        stop = make(Op.GT if right else Op.GE, (probe, values))  # NaN: False, go right
        open_ = make(Op.LT, (lo, hi))
        go_right = make(Op.AND, (open_, make(Op.NOT, (stop,))))
        lo = make(Op.SELECT, (go_right, make(Op.ADD, (mid, one)), lo))
        hi = make(Op.SELECT, (make(Op.AND, (open_, stop)), mid, hi))
    return lo
