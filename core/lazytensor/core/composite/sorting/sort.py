"""Sorting, searching and scans with numpy's conventions: sort/argsort
(stable; NaN last, as numpy and XLA's float ordering agree), partition,
lexsort, searchsorted (a branch-free binary search), top_k, cumulative sum/prod/
max/min, diff and clip. (nan_to_num lives in ``npextra``.)

Result dtypes that frameworks choose differently (cumsum of small ints,
index dtypes) are the caller's ``dtype``/``index_dtype``.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> a = constant(np.array([1.0, 2.0, 3.0]), np.dtype("float64"))
>>> searchsorted(a, constant(np.array([2.0, 9.0]), np.dtype("float64"))).shape
(2,)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const, iota
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing.take import take, take_along_axis
from lazytensor.core.composite.movement.shape import (
    as_axes,
    concatenate,
    moveaxis,
    ravel,
    slice_axis,
    squeeze,
)
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.composite.reduce.reduction import argreduce, reduce
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make

Operand = ew.Operand


def _flat_or_axis(x: Node, axis: int | None) -> tuple[Node, int]:
    if axis is None:
        return ravel(x), 0
    return x, normalize_axis(axis, x.ndim)


def sort(x: Node, axis: int | None = -1, descending: bool = False) -> Node:
    """Stable sort along ``axis`` (the ravel when None); NaN sorts last
    (first when descending, as torch does)."""
    x, axis = _flat_or_axis(x, axis)
    if x.shape[axis] <= 1:
        return x
    return make(Op.SORT, (x,), axis, descending, True)


def argsort(x: Node, axis: int | None = -1, descending: bool = False,
            index_dtype: np.dtype = dt.int64) -> Node:
    """Indices that sort x stably along ``axis`` (the ravel when None)."""
    x, axis = _flat_or_axis(x, axis)
    return make(Op.ARGSORT, (x,), axis, descending, True, index_dtype)


def lexsort(keys: Sequence[Node], axis: int = -1) -> Node:
    """numpy.lexsort: indices sorting by the last key, ties broken by the
    ones before; one stable argsort per key, from the first (least
    significant) key on. Keys share one shape (ShapeError otherwise); a
    0-d key gives 0. int64 indices.

    >>> from lazytensor.core.leaves import constant
    >>> lexsort([constant(np.array([2, 1, 1]), np.dtype("int64"))]).shape
    (3,)
    """
    if any(k.shape != keys[0].shape for k in keys):
        raise ShapeError("all keys need to be the same shape")
    if not keys[0].ndim:
        return ew.full((), 0, dt.int64)
    axis = normalize_axis(axis, keys[0].ndim)
    order = argsort(keys[0], axis)
    for key in keys[1:]:
        step = argsort(take_along_axis(key, order, axis), axis)
        order = take_along_axis(order, step, axis)
    return order


def _check_kth(x: Node, kth: int | Sequence[int], axis: int) -> None:
    """numpy's bounds check of kth, which an empty array skips."""
    n = x.shape[axis]
    if 0 in x.shape:
        return
    for k in as_axes(kth):
        if not -n <= k < n:
            raise ShapeError(f"kth(={k}) out of bounds ({n})")


def partition(x: Node, kth: int | Sequence[int], axis: int | None = -1) -> Node:
    """numpy.partition: a full sort is one valid partition for every kth."""
    x, axis = _flat_or_axis(x, axis)
    _check_kth(x, kth, axis)
    return sort(x, axis)


def argpartition(x: Node, kth: int | Sequence[int], axis: int | None = -1,
                 index_dtype: np.dtype = dt.int64) -> Node:
    """numpy.argpartition, as a stable argsort."""
    x, axis = _flat_or_axis(x, axis)
    _check_kth(x, kth, axis)
    return argsort(x, axis, index_dtype=index_dtype)


def top_k(x: Node, k: int, axis: int = -1, largest: bool = True,
          index_dtype: np.dtype = dt.int64) -> tuple[Node, Node]:
    """The k largest (or smallest) elements along ``axis``, sorted, and
    their indices. Largest uses TOP_K; smallest a stable argsort (so NaN,
    the largest value, is never picked before a number)."""
    axis = normalize_axis(axis, x.ndim)
    if not 0 <= k <= x.shape[axis]:
        raise ShapeError(f"selected index k out of range: k={k} for size {x.shape[axis]}")
    moved = moveaxis(x, axis, -1)
    if largest:
        if dt.is_float(x.dtype):  # -NaN -> NaN: XLA's TOP_K ranks a negative NaN last
            moved = make(Op.SELECT, (make(Op.NE, (moved, moved)),
                                     const(np.nan, x.dtype, moved.shape), moved))
        both = make(Op.TOP_K, (moved,), k)
        values = make(Op.TUPLE_GET, (both,), 0)
        indices = ew.convert(make(Op.TUPLE_GET, (both,), 1), index_dtype)
    else:
        order = slice_axis(argsort(moved, -1, index_dtype=index_dtype), moved.ndim - 1, 0, k)
        values, indices = take_along_axis(moved, order, -1), order
    return moveaxis(values, -1, axis), moveaxis(indices, -1, axis)


# --------------------------------------------------------------- searching

def _less(a: Node, b: Node) -> Node:
    """numpy's sort order: a < b, with NaN after every number."""
    lt = make(Op.LT, (a, b))
    if not dt.is_float(a.dtype):
        return lt
    a_num = make(Op.EQ, (a, a))
    b_nan = make(Op.NE, (b, b))
    return make(Op.OR, (lt, make(Op.AND, (a_num, b_nan))))


def searchsorted(a: Node, v: Node, side: str = "left", sorter: Node | None = None,
                 index_dtype: np.dtype = dt.int64) -> Node:
    """numpy.searchsorted on a sorted 1-d ``a`` (or ``a[sorter]``): for each
    element of v, the insertion point that keeps ``a`` sorted. ``a`` and
    ``v`` share a dtype (the caller promotes). A binary search of
    ceil(log2(n + 1)) halving steps, each a gather and a compare.

    Shape rule: v.shape; dtype ``index_dtype``."""
    if a.ndim != 1:
        raise ShapeError("object too deep for desired array")
    if side not in ("left", "right"):
        raise ShapeError(f"side must be 'left' or 'right' (got {side!r})")
    if a.dtype != v.dtype:
        raise DTypeError(f"searchsorted: a and v dtypes differ: {a.dtype} vs {v.dtype}")
    if sorter is not None:
        a = take(a, sorter)
    n, shape = a.shape[0], v.shape
    lo, hi = ew.full(shape, 0, dt.int64), const(n, dt.int64, shape)
    one = const(1, dt.int64, shape)
    for _ in range(n.bit_length()):
        mid = make(Op.SHIFT_RIGHT_LOGICAL, (make(Op.ADD, (lo, hi)), one))
        probe = _gather_1d(a, make(Op.MIN, (mid, const(n - 1, dt.int64, shape))))
        right = _less(probe, v) if side == "left" else make(Op.NOT, (_less(v, probe),))
        open_ = make(Op.LT, (lo, hi))
        lo = make(Op.SELECT, (make(Op.AND, (open_, right)), make(Op.ADD, (mid, one)), lo))
        hi = make(Op.SELECT, (make(Op.AND, (open_, make(Op.NOT, (right,)))), mid, hi))
    return ew.convert(lo, index_dtype)


def _gather_1d(a: Node, idx: Node) -> Node:
    column = make(Op.RESHAPE, (idx,), (*idx.shape, 1))
    return make(Op.GATHER, (a, column), (), (0,), (0,), (), (), (1,), "clip")


# -------------------------------------------------------------------- scans

_SCANS = {"cumsum": Op.CUMSUM, "cumprod": Op.CUMPROD, "cummax": Op.CUMMAX,
          "cummin": Op.CUMMIN, "cumlogsumexp": Op.CUMLOGSUMEXP}


def cumulative(kind: str, x: Node, axis: int | None = None, dtype: np.dtype | None = None,
               reverse: bool = False) -> Node:
    """cumsum/cumprod/cummax/cummin/cumlogsumexp along ``axis`` (the ravel
    when None), accumulated in ``dtype`` (numpy: int64 for small ints,
    passed by the caller)."""
    x, axis = _flat_or_axis(x, axis)
    x = ew.convert(x, dtype) if dtype is not None else x
    if kind in ("cumsum", "cumprod") and dt.is_bool(x.dtype):
        raise DTypeError(f"{kind}: bool input needs an integer dtype")
    return make(_SCANS[kind], (x,), axis, reverse)


_BOOL_SCANS = {Op.CUMSUM: Op.CUMMAX, Op.CUMPROD: Op.CUMMIN}  # bool add is OR, multiply AND


def scan(op: Op, x: Node, axis: int, include_initial: bool = False, initial=0) -> Node:
    """One scan primitive (``Op.CUMSUM``, ``CUMPROD``, ``CUMMAX``, ``CUMMIN``,
    ``CUMLOGSUMEXP``) along ``axis`` in x's dtype; bools scan as running
    OR / AND (numpy's bool add / multiply accumulate), max and min.
    ``include_initial`` prepends one slice of ``initial`` (the Array API's
    cumulative_sum / cumulative_prod).

    Shape rule: x's shape (``axis`` one longer with include_initial).

    >>> from lazytensor.core.leaves import constant
    >>> b = constant(np.ones(300, bool), np.dtype("bool"))
    >>> scan(Op.CUMSUM, b, 0, include_initial=True).shape
    (301,)
    """
    axis = normalize_axis(axis, x.ndim)
    if dt.is_bool(x.dtype):
        wide = make(_BOOL_SCANS.get(op, op), (ew.convert(x, dt.uint8),), axis, False)
        out = ew.convert(wide, dt.bool_)
    else:
        out = make(op, (x,), axis, False)
    if not include_initial:
        return out
    first = ew.full(tuple(1 if d == axis else s for d, s in enumerate(out.shape)), initial,
                    out.dtype)
    return concatenate([first, out], axis, out.dtype)


def cumsum(x: Node, axis: int | None = None, dtype: np.dtype | None = None) -> Node:
    return cumulative("cumsum", x, axis, dtype)


def cumprod(x: Node, axis: int | None = None, dtype: np.dtype | None = None) -> Node:
    return cumulative("cumprod", x, axis, dtype)


def cummax(x: Node, axis: int | None = None) -> Node:
    return cumulative("cummax", x, axis)


def cummin(x: Node, axis: int | None = None) -> Node:
    return cumulative("cummin", x, axis)


def diff(x: Node, n: int = 1, axis: int = -1, prepend: Operand | None = None,
         append: Operand | None = None) -> Node:
    """numpy.diff: the n-th discrete difference along ``axis`` (bool: XOR,
    numpy's not_equal). ``prepend``/``append`` (scalars or Nodes) are
    broadcast to one slice along the axis and joined first; they must
    already have x's dtype or be Python scalars."""
    if n < 0:
        raise ShapeError(f"order must be non-negative but got {n}")
    if x.ndim == 0:
        raise ShapeError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, x.ndim)
    parts = [p for p in (_edge(prepend, x, axis), x, _edge(append, x, axis)) if p is not None]
    x = concatenate(parts, axis, x.dtype) if len(parts) > 1 else x
    op = Op.NE if dt.is_bool(x.dtype) else Op.SUB
    for _ in range(n):
        size = x.shape[axis]
        if size == 0:
            break
        x = make(op, (slice_axis(x, axis, 1, size), slice_axis(x, axis, 0, size - 1)))
    return x


def _edge(value: Operand | None, x: Node, axis: int) -> Node | None:
    """numpy's rule: a 0-d value is broadcast to one slice along ``axis``."""
    if value is None:
        return None
    if isinstance(value, Node) and value.ndim:
        return ew.convert(value, x.dtype)
    return ew.as_node(value, x.dtype, tuple(1 if d == axis else s for d, s in enumerate(x.shape)))


def clip(x: Node, lo: Operand | None = None, hi: Operand | None = None,
         dtype: np.dtype | None = None) -> Node:
    """numpy.clip: minimum(maximum(x, lo), hi) in ``dtype`` (default x's),
    broadcasting all three; NaN in x stays NaN."""
    dtype = dtype or x.dtype
    out = ew.convert(x, dtype)
    if lo is not None:
        out = ew.apply(Op.MAX, out, lo, dtype=dtype)
    if hi is not None:
        out = ew.apply(Op.MIN, out, hi, dtype=dtype)
    return out


def mode(x: Node, axis: int = -1, index_dtype: np.dtype = dt.int64) -> tuple[Node, Node]:
    """The most frequent value along ``axis`` (the smallest of equally
    frequent ones) and the last index where it occurs, as torch.mode: a
    stable sort, the length of each run of equal values (position minus
    the running start of its run), the first longest run. NaNs never equal
    each other, so each is a run of one.

    Shape rule: x's shape without ``axis``; dtypes: x's and ``index_dtype``.

    >>> from lazytensor.core.leaves import constant
    >>> v, i = mode(constant(np.array([[5, 3, 5, 3, 3, 5]]), np.dtype("int64")))
    >>> v.shape, i.dtype
    ((1,), dtype('int64'))
    """
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    if n == 0:
        raise ShapeError(f"mode: reduction axis {axis} has zero size")
    ordered = sort(x, axis)
    position = iota(x.shape, axis, index_dtype)
    first = const(True, dt.bool_, slice_axis(x, axis, 0, 1).shape)
    changes = make(Op.NE, (slice_axis(ordered, axis, 1, None), slice_axis(ordered, axis, 0, -1)))
    starts = concatenate([first, changes], axis, dt.bool_)
    zeros = const(0, index_dtype, x.shape)
    run_start = scan(Op.CUMMAX, make(Op.SELECT, (starts, position, zeros)), axis)
    run_length = make(Op.SUB, (position, run_start))
    best = argreduce("argmax", run_length, axis, keepdims=True, index_dtype=index_dtype)
    value = take_along_axis(ordered, best, axis)
    same = make(Op.EQ, (x, ew.broadcast_to(value, x.shape)))
    if dt.is_inexact(x.dtype):  # a NaN mode: its last NaN
        nan = make(Op.NE, (value, value))
        both = make(Op.AND, (make(Op.NE, (x, x)), ew.broadcast_to(nan, x.shape)))
        same = make(Op.OR, (same, both))
    where = make(Op.SELECT, (same, position, const(-1, index_dtype, x.shape)))
    last = reduce("max", where, axis)
    return squeeze(value, axis), last
