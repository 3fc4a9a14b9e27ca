"""Reductions beyond ``reduction.py``: half-precision accumulation in
float32 (numpy and torch both sum float16 in a wider accumulator), vector
p-norms, running extrema with their positions, and order statistics by
sorting (lower median with a NaN policy, k-th smallest) returning values
and the original positions, as torch's ``median``/``kthvalue`` and numpy's
``median``/``partition`` need; cumulative ops with TensorFlow's
``exclusive``/``reverse`` options, and equal-width histograms over a range
(torch's ``histc``).

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.array([[3.0, 1.0, 2.0]]), np.dtype("float32"))
>>> [v.shape for v in median_along(x, 1, keepdim=False)]
[(1,), (1,)]
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import as_node, broadcast_to, convert, full
from lazytensor.core.composite.indexing.along import coordinates, gather_at
from lazytensor.core.composite.movement import shape as S
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.reduce import reduction as R
from lazytensor.core.composite.sets.counting import bincount
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

INDEX = dt.int64
HALF = (dt.float16, dt.bfloat16)


def accumulated(reduction: Callable[[Node], Node], x: Node, target: np.dtype) -> Node:
    """``reduction(x as target)``; half-precision targets accumulate in
    float32 and round once at the end (torch's ``acc_type``, numpy's
    pairwise float16 sums).

    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.ones(4), np.dtype("float16"))
    >>> accumulated(lambda v: R.reduce("sum", v), x, x.dtype).dtype
    dtype('float16')
    """
    if target not in HALF:
        return reduction(convert(x, target))
    return convert(reduction(convert(convert(x, target), dt.float32)), target)


def vector_norm(x: Node, p: float, axes: tuple[int, ...], keepdims: bool = False) -> Node:
    """The p-norm (sum |x|^p)^(1/p) over ``axes``, with p = inf, -inf and
    0 as max, min and count of nonzeros; real result for complex ``x``.

    >>> from lazytensor.core.leaves import constant
    >>> vector_norm(constant(np.ones((2, 3)), np.dtype("float32")), 2.0, (1,)).shape
    (2,)
    """
    a = make(Op.ABS, (x,))
    if p == math.inf:
        return R.reduce("max", a, axes, keepdims)
    if p == -math.inf:
        return R.reduce("min", a, axes, keepdims)
    if p == 0:
        nz = convert(make(Op.NE, (a, as_node(0, a.dtype, a.shape))), a.dtype)
        return R.reduce("sum", nz, axes, keepdims)
    if p == 1:
        return R.reduce("sum", a, axes, keepdims)
    if p == 2:
        return make(Op.SQRT, (R.reduce("sum", make(Op.MUL, (a, a)), axes, keepdims),))
    powered = make(Op.POW, (a, as_node(p, a.dtype, a.shape)))
    total = R.reduce("sum", powered, axes, keepdims)
    return make(Op.POW, (total, as_node(1.0 / p, total.dtype, total.shape)))


def running_extreme(x: Node, axis: int, kind: str) -> tuple[Node, Node]:
    """Running max or min (``kind``) along ``axis`` and the index of the
    last extreme seen so far (a NaN counts as the extreme).

    >>> from lazytensor.core.leaves import constant
    >>> v, i = running_extreme(constant(np.array([1.0, 3.0, 2.0]), np.dtype("float32")), 0, "max")
    >>> i.dtype
    dtype('int64')
    """
    values = make(Op.CUMMAX if kind == "max" else Op.CUMMIN, (x,), axis, False)
    hit = make(Op.EQ, (x, values))
    if dt.is_inexact(x.dtype):
        hit = make(Op.OR, (hit, make(Op.NE, (x, x))))
    positions = make(Op.IOTA, (), INDEX, x.shape, axis)
    marked = make(Op.SELECT, (hit, positions, as_node(-1, INDEX, x.shape)))
    return values, make(Op.CUMMAX, (marked,), axis, False)


def sorted_with_indices(x: Node, axis: int) -> tuple[Node, Node]:
    """Ascending values along ``axis`` (NaNs last) and their original
    positions (a stable sort)."""
    return (make(Op.SORT, (x,), axis, False, True),
            make(Op.ARGSORT, (x,), axis, False, True, INDEX))


def pick(values: Node, indices: Node, axis: int, position, keepdim: bool) -> tuple[Node, Node]:
    """Entry ``position`` (an int, or a per-row index node) along ``axis``
    of sorted values and of their original indices."""
    n = values.ndim
    if isinstance(position, int):
        start = (0,) * axis + (position,) + (0,) * (n - axis - 1)
        limit = values.shape[:axis] + (position + 1,) + values.shape[axis + 1:]
        cut = [make(Op.SLICE, (v,), start, limit, (1,) * n) for v in (values, indices)]
    else:
        shape = values.shape[:axis] + (1,) + values.shape[axis + 1:]
        where = make(Op.BROADCAST_IN_DIM, (position,), shape,
                     tuple(a for a in range(n) if a != axis))
        coords = coordinates(where, axis)
        cut = [make(Op.RESHAPE, (gather_at(v, coords),), shape) for v in (values, indices)]
    if not keepdim:
        squeezed = values.shape[:axis] + values.shape[axis + 1:]
        cut = [make(Op.RESHAPE, (c,), squeezed) for c in cut]
    return cut[0], cut[1]


def median_along(x: Node, axis: int, keepdim: bool, ignore_nan: bool = False,
                 ) -> tuple[Node, Node]:
    """The lower median along ``axis`` and its position. A NaN in a row is
    that row's median (at the first NaN) unless ``ignore_nan``, which takes
    the lower median of the other values."""
    values, indices = sorted_with_indices(x, axis)
    size = x.shape[axis]
    if not dt.is_inexact(x.dtype):
        return pick(values, indices, axis, (size - 1) // 2, keepdim)
    if ignore_nan:  # NaNs sort last: count the others
        real = convert(make(Op.EQ, (x, x)), INDEX)
        count = make(Op.REDUCE_SUM, (real,), (axis,))
        half = make(Op.DIV, (make(Op.SUB, (count, as_node(1, INDEX, count.shape))),
                             as_node(2, INDEX, count.shape)))
        pos = make(Op.MAX, (half, as_node(0, INDEX, count.shape)))
        return pick(values, indices, axis, pos, keepdim)
    v, i = pick(values, indices, axis, (size - 1) // 2, keepdim)
    nan = make(Op.NE, (x, x))
    nan_pos = make(Op.ARGMAX, (nan,), axis, INDEX)
    has_nan = R.reduce("any", nan, (axis,), keepdim)
    nan_pos = caxes.keep_dims(nan_pos, x.shape, (axis,)) if keepdim else nan_pos
    v = make(Op.SELECT, (has_nan, as_node(math.nan, v.dtype, v.shape), v))
    return v, make(Op.SELECT, (has_nan, nan_pos, i))


def kth_smallest(x: Node, k: int, axis: int, keepdim: bool) -> tuple[Node, Node]:
    """The ``k``-th smallest (0-based) value along ``axis`` and its position."""
    values, indices = sorted_with_indices(x, axis)
    return pick(values, indices, axis, k, keepdim)


def cumulative(x: Node, op: Op, axis: int, reverse: bool = False, exclusive: bool = False,
               identity=0) -> Node:
    """The running ``op`` (CUMSUM, CUMPROD, CUMLOGSUMEXP...) along ``axis``;
    ``reverse`` runs from the end; ``exclusive`` shifts ``identity`` in, so
    each element leaves itself out. Shape and dtype of x.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([1, 2, 3]), np.dtype("int32"))
    >>> cumulative(x, Op.CUMSUM, 0, exclusive=True).shape
    (3,)
    """
    out = make(op, (x,), axis, reverse)
    n = x.shape[axis]
    if not exclusive or not n:
        return out
    edge = full(x.shape[:axis] + (1,) + x.shape[axis + 1:], identity, x.dtype)
    kept = S.slice_axis(out, axis, *((1, n) if reverse else (0, n - 1)))
    return S.concatenate([kept, edge] if reverse else [edge, kept], axis)


def histc(x: Node, bins: int, lo: float, hi: float) -> Node:
    """Counts (in x's floating dtype) of x's elements in ``bins`` equal bins
    over [lo, hi]: the data's range when lo == hi, widened by 1 each way when
    still empty; elements outside are dropped; bin = trunc((x - lo) * bins /
    (hi - lo)) in x's dtype, the top edge in the last bin (torch's CPU kernel).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> histc(constant(np.array([0.0, 1.0, 3.0]), np.dtype("float32")), 3, 0, 3).shape
    (3,)
    """
    flat = S.ravel(x)
    low, high = as_node(lo, x.dtype, ()), as_node(hi, x.dtype, ())
    if lo == hi and flat.shape[0]:
        low, high = R.reduce("min", flat, 0), R.reduce("max", flat, 0)
    same = make(Op.EQ, (low, high))
    one = as_node(1, x.dtype, ())
    low = make(Op.SELECT, (same, make(Op.SUB, (low, one)), low))
    high = make(Op.SELECT, (same, make(Op.ADD, (high, one)), high))
    shape = flat.shape
    lo_b, hi_b = broadcast_to(low, shape), broadcast_to(high, shape)
    inside = make(Op.AND, (make(Op.GE, (flat, lo_b)), make(Op.LE, (flat, hi_b))))
    scaled = make(Op.MUL, (make(Op.SUB, (flat, lo_b)), as_node(bins, x.dtype, shape)))
    pos = convert(make(Op.DIV, (scaled, make(Op.SUB, (hi_b, lo_b)))), INDEX)
    pos = make(Op.MIN, (pos, as_node(bins - 1, INDEX, shape)))
    pos = make(Op.SELECT, (inside, pos, as_node(-1, INDEX, shape)))
    return convert(bincount(pos, bins), x.dtype)


def zero_fraction(x: Node) -> Node:
    """The fraction (0-d float32) of x's elements that are zero."""
    zeros = convert(make(Op.EQ, (x, as_node(0, x.dtype, x.shape))), dt.float32)
    return R.mean(zeros)
