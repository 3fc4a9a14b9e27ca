"""Order statistics and moments over nodes: quantile and median (numpy's
and ``torch.quantile``'s methods linear, lower, higher, nearest and midpoint,
on a sort, NaN propagating), their NaN-skipping forms (numpy's
nanquantile and nanmedian), covariance and correlation matrices and
membership tests.

Callers pass operands already in the dtype their framework computes in (the
frontend applies its own promotion and raises its own errors); ``q`` values
are static host numbers.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.arange(12.0).reshape(3, 4), np.dtype("float64"))
>>> quantile(x, np.array([0.25, 0.5]), 1, False).shape
(2, 3)
>>> median(x, None, True).shape, cov(x).shape, corrcoef(cov(x)).shape
((1, 1), (3, 3), (3, 3))
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply, predicates
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.ufuncs import matmul
from lazytensor.core.composite.indexing.take import take_along_axis
from lazytensor.core.composite.linalg import matrix as cm
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.reduce import reduction as cred
from lazytensor.core.composite.sorting import sort as csort
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

Axis = int | Sequence[int] | None


# ------------------------------------------------------ quantile and median

def reduced_last(x: Node, axis: Axis) -> tuple[Node, tuple[int, ...]]:
    """``x`` with the ``axis`` axes (all when None) merged into one last axis,
    the kept axes first; and the normalized reduced axes."""
    if axis is None:
        return cs.ravel(x), tuple(range(x.ndim))
    axes = caxes.normalize_axes(axis, x.ndim)
    kept = tuple(d for d in range(x.ndim) if d not in axes)
    moved = cs.transpose(x, kept + axes)
    size = math.prod(x.shape[d] for d in axes)
    return cs.reshape(moved, tuple(x.shape[d] for d in kept) + (size,)), axes


def _pick(sorted_x: Node, i: int) -> Node:
    return cs.squeeze(cs.slice_axis(sorted_x, sorted_x.ndim - 1, i, i + 1), -1)


def _nan_guard(x: Node, out: Node) -> Node:
    """NaN wherever the reduced slice of ``x`` holds a NaN."""
    if dt.is_complex(x.dtype):
        return out
    has_nan = cred.reduce("any", predicates.isnan(x), -1)
    return make(Op.SELECT, (ew.broadcast_to(has_nan, out.shape), apply.const(math.nan, out), out))


def _lerp(a: Node, b: Node, t: float, dtype: np.dtype) -> Node:
    """numpy's _lerp: a + (b - a) * t, from the b side when t >= 0.5; b - a
    in the data's dtype, the rest in ``dtype``."""
    diff = ew.convert(make(Op.SUB, (b, a)), dtype)
    a, b = ew.convert(a, dtype), ew.convert(b, dtype)
    if t >= 0.5:
        return make(Op.SUB, (b, make(Op.MUL, (diff, apply.const(1.0 - t, diff)))))
    return make(Op.ADD, (a, make(Op.MUL, (diff, apply.const(t, diff)))))


# methods that pick one sorted value: its index from the virtual index q*(n-1)
# (round is half to even, as numpy's around); they keep x's dtype
PICKS = {"lower": math.floor, "higher": math.ceil, "nearest": round}


def _one_quantile(sorted_x: Node, q: float, dtype: np.dtype, method: str) -> Node:
    n = sorted_x.shape[-1]
    virtual = q * (n - 1)
    if method in PICKS:
        return _pick(sorted_x, min(max(PICKS[method](virtual), 0), n - 1))
    below = min(max(int(math.floor(virtual)), 0), n - 1)
    above = min(below + 1, n - 1)
    t = virtual - below
    if method == "midpoint" and t:  # halfway between neighbours, unless q hits one
        t = 0.5
    return _lerp(_pick(sorted_x, below), _pick(sorted_x, above), t, dtype)


def _keep_reduced(node: Node, ndim: int, axes: tuple[int, ...]) -> Node:
    """``node`` (leading q axes, then the kept axes) with size-1 reduced axes."""
    kept = ndim - len(axes)
    lead = node.ndim - kept
    full = list(node.shape[:lead]) + [1] * ndim
    rest = iter(node.shape[lead:])
    for d in range(ndim):
        if d not in axes:
            full[lead + d] = next(rest)
    return cs.reshape(node, tuple(full))


def quantile(x: Node, q: np.ndarray, axis: Axis = None, keepdims: bool = False,
             dtype: np.dtype | None = None, method: str = "linear") -> Node:
    """The ``q`` quantiles (host values in [0, 1]) of ``x`` over ``axis``,
    shape ``q.shape + kept shape``. 'linear' and 'midpoint' interpolate:
    integers compute in float64, the interpolation in ``dtype`` (default:
    x's float dtype); 'lower', 'higher' and 'nearest' pick a value of ``x``.

    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([1.0, 2.0, 4.0]), np.dtype("float64"))
    >>> quantile(x, np.array(0.5)).shape
    ()
    """
    q = np.asarray(q, dtype=np.float64)
    ndim = x.ndim
    flat, axes = reduced_last(x if method in PICKS else ew.float_or_float64(x), axis)
    dtype = flat.dtype if dtype is None or method in PICKS else np.dtype(dtype)
    sorted_x = csort.sort(flat, -1)
    picks = [_one_quantile(sorted_x, float(v), dtype, method) for v in q.reshape(-1)]
    if dt.is_inexact(flat.dtype):
        picks = [_nan_guard(flat, p) for p in picks]
    node = cs.reshape(cs.stack(picks, 0), q.shape + picks[0].shape) if q.ndim else picks[0]
    return _keep_reduced(node, ndim, axes) if keepdims else node


def median(x: Node, axis: Axis = None, keepdims: bool = False) -> Node:
    """The middle element over ``axis``, or the mean of the two middle ones
    (NaN for an empty slice or one holding NaN); integers give float64.

    >>> from lazytensor.core.leaves import constant
    >>> median(constant(np.arange(6).reshape(2, 3), np.dtype("int64")), 0).dtype
    dtype('float64')
    """
    ndim = x.ndim
    flat, axes = reduced_last(ew.float_or_float64(x), axis)
    n = flat.shape[-1]
    if n == 0:
        node = ew.full(flat.shape[:-1], math.nan, flat.dtype)
    else:
        sorted_x = csort.sort(flat, -1)
        mid = _pick(sorted_x, n // 2)
        if n % 2 == 0:
            total = make(Op.ADD, (_pick(sorted_x, n // 2 - 1), mid))
            mid = make(Op.DIV, (total, apply.const(2.0, total)))
        node = _nan_guard(flat, mid)
    return _keep_reduced(node, ndim, axes) if keepdims else node


# ---------------------------------------------------- covariance, correlation

# ------------------------------------------- NaN-skipping quantile and median
# numpy's nanquantile/nanmedian: a sort puts the NaNs last and each slice
# reads its order statistics below its own count of numbers.

def _nan_sorted(x: Node, axis: Axis) -> tuple[Node, Node, tuple[int, ...]]:
    """The ``axis`` axes of float ``x`` merged into a sorted last axis (NaNs
    last), each slice's count of numbers (int64, a size-1 last axis) and the
    reduced axes."""
    flat, axes = reduced_last(x, axis)
    ordered = csort.sort(flat, -1)
    numbers = ew.convert(make(Op.NOT, (predicates.isnan(ordered),)), dt.int64)
    return ordered, cred.reduce("sum", numbers, -1, True), axes


def _at(ordered: Node, index: Node, count: Node) -> Node:
    """The sorted value at the per-slice ``index`` (clipped into the slice's
    numbers), with a size-1 last axis."""
    top = make(Op.MAX, (make(Op.SUB, (count, apply.const(1, count))), apply.const(0, count)))
    index = make(Op.MIN, (make(Op.MAX, (index, apply.const(0, index))),
                          ew.convert(top, index.dtype)))
    return take_along_axis(ordered, ew.convert(index, dt.int64), -1)


_ROUNDING = {"lower": Op.FLOOR, "higher": Op.CEIL, "nearest": Op.ROUND_EVEN}


def _nan_one_quantile(ordered: Node, count: Node, q: float, method: str,
                      dtype: np.dtype) -> Node:
    """numpy's quantile of each slice's first ``count`` values: the virtual
    index q * (count - 1), a picked value or numpy's lerp between neighbours."""
    virtual = ew.convert(make(Op.SUB, (count, apply.const(1, count))), dt.float64)
    virtual = make(Op.MUL, (virtual, apply.const(q, virtual)))
    if method in PICKS:
        return _at(ordered, make(_ROUNDING[method], (virtual,)), count)
    below = make(Op.FLOOR, (virtual,))
    t = make(Op.SUB, (virtual, below))
    if method == "midpoint":
        t = make(Op.SELECT, (make(Op.GT, (t, apply.const(0, t))), apply.const(0.5, t),
                             apply.const(0.0, t)))
    lo = _at(ordered, below, count)
    hi = _at(ordered, make(Op.ADD, (below, apply.const(1, below))), count)
    diff, t = ew.convert(make(Op.SUB, (hi, lo)), dtype), ew.convert(t, dtype)
    lo, hi = ew.convert(lo, dtype), ew.convert(hi, dtype)
    down = make(Op.SUB, (hi, make(Op.MUL, (diff, make(Op.SUB, (apply.const(1, t), t))))))
    up = make(Op.ADD, (lo, make(Op.MUL, (diff, t))))
    return make(Op.SELECT, (make(Op.GE, (t, apply.const(0.5, t))), down, up))


def _nan_finish(picks: list[Node], count: Node, q: np.ndarray, shape: tuple[int, ...],
                axes: tuple[int, ...], keepdims: bool) -> Node:
    """All-NaN slices give NaN; q's axes lead; keepdims keeps size-1 axes."""
    some = make(Op.GT, (count, apply.const(0, count)))
    picks = [cs.squeeze(make(Op.SELECT, (some, p, apply.const(math.nan, p))), -1)
             for p in picks]
    node = cs.reshape(cs.stack(picks, 0), q.shape + picks[0].shape) if q.ndim else picks[0]
    if keepdims:
        node = cs.reshape(node, q.shape + tuple(1 if d in axes else n
                                                for d, n in enumerate(shape)))
    return node


def nan_quantile(x: Node, q: np.ndarray, axis: Axis = None, keepdims: bool = False,
                 dtype: np.dtype | None = None, method: str = "linear") -> Node:
    """numpy's nanquantile of floating ``x``: :func:`quantile` of each
    slice's numbers (NaN where a slice has none), shape ``q.shape + kept
    shape``; 'linear' and 'midpoint' interpolate in ``dtype`` (default x's).

    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([[1.0, np.nan], [2.0, 4.0]]), np.dtype("float64"))
    >>> nan_quantile(x, np.array([0.5, 1.0]), 1).shape
    (2, 2)
    """
    q = np.asarray(q, dtype=np.float64)
    dtype = x.dtype if dtype is None else np.dtype(dtype)
    ordered, count, axes = _nan_sorted(x, axis)
    picks = [_nan_one_quantile(ordered, count, float(v), method, dtype) for v in q.reshape(-1)]
    return _nan_finish(picks, count, q, x.shape, axes, keepdims)


def nan_median(x: Node, axis: Axis = None, keepdims: bool = False) -> Node:
    """numpy's nanmedian of floating ``x``: the mean of each slice's two
    middle numbers (NaN where a slice has none).

    >>> from lazytensor.core.leaves import constant
    >>> nan_median(constant(np.array([1.0, np.nan, 3.0]), np.dtype("float32"))).dtype
    dtype('float32')
    """
    ordered, count, axes = _nan_sorted(x, axis)
    one = apply.const(1, count)
    lo = _at(ordered, make(Op.DIV, (make(Op.SUB, (count, one)), apply.const(2, count))), count)
    hi = _at(ordered, make(Op.DIV, (count, apply.const(2, count))), count)
    mid = make(Op.DIV, (make(Op.ADD, (lo, hi)), apply.const(2, lo)))
    return _nan_finish([mid], count, np.asarray(0.5), x.shape, axes, keepdims)


def cov(m: Node, y: Node | None = None, rowvar: bool = True, ddof: int = 1,
        fweights: Node | None = None, aweights: Node | None = None) -> Node:
    """The covariance matrix of the variables in the rows of ``m`` (columns
    when not ``rowvar``), plus those of ``y``, divided by ``n - ddof``;
    squeezed (a scalar for one variable). Operands share one inexact dtype.
    With observation weights (frequency and/or reliability, 1-d of length
    ``n``, in that dtype) see ``_weighted_cov``.

    >>> from lazytensor.core.leaves import constant
    >>> cov(constant(np.ones(4), np.dtype("float64"))).shape
    ()
    """
    rows = [cs.atleast_2d(p) for p in ([m] if y is None else [m, y])]
    if not rowvar:  # m's columns are variables unless m is 1-d; y's unless it has one row
        flip = [m.ndim != 1] + [r.shape[0] != 1 for r in rows[1:]]
        rows = [cs.transpose(r) if f else r for r, f in zip(rows, flip, strict=True)]
    data = cs.concatenate(rows, 0)
    if fweights is not None or aweights is not None:
        return cs.squeeze(_weighted_cov(data, ddof, fweights, aweights))
    n = data.shape[1]
    mean = ew.broadcast_to(cred.mean(data, 1, keepdims=True), data.shape)
    centered = make(Op.SUB, (data, mean))
    conj = make(Op.CONJ, (centered,)) if dt.is_complex(centered.dtype) else centered
    prod = matmul(centered, cs.transpose(conj))
    out = make(Op.DIV, (prod, apply.const(float(max(n - ddof, 0)), prod)))
    return cs.squeeze(out)


def _weighted_cov(data: Node, ddof: int, fweights: Node | None,
                  aweights: Node | None) -> Node:
    """Weighted covariance of ``data``'s rows: weights ``w = f * a``, the
    weighted mean, and the divisor ``sum(w) - ddof * sum(w * a) / sum(w)``
    (``sum(w) - ddof`` without ``a``, ``sum(w)`` for ddof 0), at least 0."""
    w = fweights if aweights is None else aweights if fweights is None \
        else make(Op.MUL, (fweights, aweights))
    w_sum = cred.reduce("sum", w, None)
    wb = ew.broadcast_to(w, data.shape)
    mean = make(Op.DIV, (cred.reduce("sum", make(Op.MUL, (data, wb)), (1,), keepdims=True),
                         ew.broadcast_to(w_sum, (data.shape[0], 1))))
    centered = make(Op.SUB, (data, ew.broadcast_to(mean, data.shape)))
    conj = make(Op.CONJ, (centered,)) if dt.is_complex(centered.dtype) else centered
    prod = matmul(centered, cs.transpose(make(Op.MUL, (conj, wb))))
    fact = w_sum
    if ddof and aweights is None:
        fact = make(Op.SUB, (w_sum, apply.const(float(ddof), w_sum)))
    elif ddof:
        aw = cred.reduce("sum", make(Op.MUL, (w, aweights)), None)
        fact = make(Op.SUB, (w_sum, make(Op.DIV, (make(
            Op.MUL, (aw, apply.const(float(ddof), aw))), w_sum))))
    fact = make(Op.MAX, (fact, apply.const(0.0, fact)))
    scale = make(Op.DIV, (apply.const(1.0, fact), fact))  # numpy: c *= 1 / fact
    return make(Op.MUL, (prod, ew.broadcast_to(scale, prod.shape)))


def corrcoef(c: Node) -> Node:
    """The correlation matrix of a covariance matrix ``c`` (real results
    clipped to [-1, 1]; a scalar ``c`` gives c / c)."""
    if c.ndim == 0:
        return make(Op.DIV, (c, c))
    d = cm.diagonal(c)
    std = make(Op.SQRT, (make(Op.REAL, (d,)) if dt.is_complex(d.dtype) else d,))
    std = ew.convert(std, c.dtype)
    c = make(Op.DIV, (c, ew.broadcast_to(cs.reshape(std, (-1, 1)), c.shape)))
    c = make(Op.DIV, (c, ew.broadcast_to(std, c.shape)))
    if dt.is_complex(c.dtype):
        return c
    return make(Op.CLAMP, (apply.const(-1.0, c), c, apply.const(1.0, c)))


# ---------------------------------------------------------- counting, membership

def isin(x: Node, test: Node, invert: bool = False) -> Node:
    """Whether each element of ``x`` occurs in ``test`` (any shape; both of
    one dtype), as a broadcast compare; bool, shape of ``x``.

    >>> from lazytensor.core.leaves import constant
    >>> isin(constant(np.arange(4), np.dtype("int64")), constant(np.array([1, 3]),
    ...      np.dtype("int64"))).shape
    (4,)
    """
    t = cs.ravel(test)
    if t.shape[0] == 0:
        return ew.full(x.shape, bool(invert), dt.bool_)
    shape = x.shape + t.shape
    eq = make(Op.EQ, (ew.broadcast_to(cs.reshape(x, x.shape + (1,)), shape),
                      ew.broadcast_to(t, shape)))
    found = cred.reduce("any", eq, -1)
    return make(Op.NOT, (found,)) if invert else found
