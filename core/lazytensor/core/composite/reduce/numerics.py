"""Numerical routines that numpy and torch share: finite-difference
gradients (numpy.gradient / torch.gradient), bucketing (numpy.digitize /
torch.bucketize), histogram counting over equal-width or given bin edges
(numpy.histogram / torch.histc / torch.histogram), NaN-ignoring
arg-reductions and extrema, reductions over runs (ufunc.reduceat), flat <->
multi-dimensional index conversion, Horner polynomial evaluation and
Vandermonde matrices (numpy's and tf.experimental.numpy's vander).

Operands are Nodes; the caller applies its framework's dtype rules first
(each function states which dtypes its operands must share). Errors that
depend on the data (an out-of-range index, a non-monotonic ``bins``) cannot
be raised lazily; each function says what it returns instead.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> f = constant(np.array([1.0, 4.0, 9.0, 16.0]), np.dtype("float64"))
>>> [g.shape for g in gradient(f, [1.0], [0], 1)]
[(4,)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const, linspace
from lazytensor.core.composite.elementwise import apply, division, predicates
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise import arithmetic as arith
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.reduce import reduction as cred
from lazytensor.core.composite.sets import counting
from lazytensor.core.composite.sorting.sort import searchsorted
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make
from lazytensor.core.runtime import get_runtime

Spacing = float | Node  # a uniform step (Python number or 0-d Node) or 1-d coordinates


def _upload(host: np.ndarray) -> Node:
    """Host data as device data (hashed by shape and dtype: new values never
    recompile)."""
    return get_runtime().from_host(host).node


def _mul(a: Node, b: Node) -> Node:
    return make(Op.MUL, (a, b))


def _add(a: Node, b: Node) -> Node:
    return make(Op.ADD, (a, b))


def _sub(a: Node, b: Node) -> Node:
    return make(Op.SUB, (a, b))


def _div(a: Node, b: Node) -> Node:
    return make(Op.DIV, (a, b))


def _scaled(x: Node, factor: float) -> Node:
    return _mul(x, apply.const(factor, x))


# ----------------------------------------------------------------- gradient

def _along(v: Node, axis: int, ndim: int, shape: tuple[int, ...]) -> Node:
    """A 1-d coefficient vector laid along ``axis`` and broadcast to ``shape``."""
    return ew.broadcast_to(cs.reshape(v, tuple(-1 if d == axis else 1 for d in range(ndim))),
                           shape)


def _divide_by(x: Node, dx: float | Node) -> Node:
    return _div(x, apply.const(dx, x) if not isinstance(dx, Node) else ew.broadcast_to(dx, x.shape))


def _uniform(x: Node, axis: int, dx: float | Node, edge_order: int) -> Node:
    """numpy's uniform-spacing stencils: central differences inside, one-
    or two-sided ones at the ends."""
    n = x.shape[axis]

    def f(i: int, j: int) -> Node:
        return cs.slice_axis(x, axis, i, j)

    inner = _divide_by(_sub(f(2, n), f(0, n - 2)), _scaled(dx, 2.0) if isinstance(dx, Node)
                       else 2.0 * dx)
    if edge_order == 1:
        first, last = _sub(f(1, 2), f(0, 1)), _sub(f(n - 1, n), f(n - 2, n - 1))
    else:
        first = _add(_add(_scaled(f(0, 1), -1.5), _scaled(f(1, 2), 2.0)), _scaled(f(2, 3), -0.5))
        last = _add(_add(_scaled(f(n - 3, n - 2), 0.5), _scaled(f(n - 2, n - 1), -2.0)),
                    _scaled(f(n - 1, n), 1.5))
    return cs.concatenate([_divide_by(first, dx), inner, _divide_by(last, dx)], axis)


def _combine(x: Node, axis: int, terms: Sequence[tuple[Node, int, int]]) -> Node:
    """sum of coef * x[i:j] along ``axis`` (coefficients 1-d, or 0-d)."""
    total = None
    for coef, i, j in terms:
        part = cs.slice_axis(x, axis, i, j)
        coef = ew.convert(coef, x.dtype)
        c = ew.broadcast_to(coef, part.shape) if coef.ndim == 0 else \
            _along(coef, axis, x.ndim, part.shape)
        term = _mul(c, part)
        total = term if total is None else _add(total, term)
    return total


def _three_point(d1: Node, d2: Node, where: str) -> tuple[Node, Node, Node]:
    """numpy's second-order coefficients for steps d1, d2 at the start,
    the interior or the end of a non-uniform grid."""
    s = _add(d1, d2)
    if where == "inner":
        return (_div(make(Op.NEG, (d2,)), _mul(d1, s)), _div(_sub(d2, d1), _mul(d1, d2)),
                _div(d1, _mul(d2, s)))
    if where == "first":
        return (_div(make(Op.NEG, (_add(_add(d1, d1), d2),)), _mul(d1, s)),
                _div(s, _mul(d1, d2)), _div(make(Op.NEG, (d1,)), _mul(d2, s)))
    return (_div(d2, _mul(d1, s)), _div(make(Op.NEG, (s,)), _mul(d1, d2)),
            _div(_add(_add(d2, d2), d1), _mul(d2, s)))


def _nonuniform(x: Node, axis: int, coords: Node, edge_order: int) -> Node:
    """numpy's stencils for sample coordinates ``coords`` (the coefficients
    in their floating dtype, then applied in x's)."""
    n = x.shape[axis]
    d = _sub(cs.slice_axis(coords, 0, 1, n), cs.slice_axis(coords, 0, 0, n - 1))

    def step(i: int, j: int) -> Node:
        return cs.slice_axis(d, 0, i, j)

    a, b, c = _three_point(step(0, n - 2), step(1, n - 1), "inner")
    inner = _combine(x, axis, ((a, 0, n - 2), (b, 1, n - 1), (c, 2, n)))
    if edge_order == 1:
        first = _divide_by(_sub(*(cs.slice_axis(x, axis, i, i + 1) for i in (1, 0))),
                           ew.convert(cs.reshape(step(0, 1), ()), x.dtype))
        last = _divide_by(_sub(*(cs.slice_axis(x, axis, i, i + 1) for i in (n - 1, n - 2))),
                          ew.convert(cs.reshape(step(n - 2, n - 1), ()), x.dtype))
    else:
        d0, d1 = cs.reshape(step(0, 1), ()), cs.reshape(step(1, 2), ())
        a, b, c = _three_point(d0, d1, "first")
        first = _combine(x, axis, ((a, 0, 1), (b, 1, 2), (c, 2, 3)))
        d0, d1 = cs.reshape(step(n - 3, n - 2), ()), cs.reshape(step(n - 2, n - 1), ())
        a, b, c = _three_point(d0, d1, "last")
        last = _combine(x, axis, ((a, n - 3, n - 2), (b, n - 2, n - 1), (c, n - 1, n)))
    return cs.concatenate([first, inner, last], axis)


def spacing(value: float | Node | np.ndarray, n: int) -> Spacing:
    """One ``varargs`` entry of numpy.gradient (torch.gradient's ``spacing``)
    for an axis of ``n`` samples, as ``gradient`` takes it: a number or 0-d
    Node is a uniform step; 1-d coordinates (a Node, or host data) must
    have n entries and are floating (integers as float64); host coordinates
    with one constant step become that step.

    >>> spacing(np.array([0.0, 2.0, 4.0]), 3)
    2.0
    >>> spacing(np.array([0, 1, 3]), 3).dtype
    dtype('float64')
    """
    host = None if isinstance(value, Node) else np.asarray(value)
    if host is not None and host.ndim == 0:
        return host.item()
    ndim, length = (value.ndim, value.shape[:1]) if host is None else (host.ndim, host.shape[:1])
    if ndim == 0:
        return value
    if ndim != 1:
        raise ShapeError("distances must be either scalars or 1d")
    if length != (n,):
        raise ShapeError("when 1d, distances must match the length of the corresponding "
                         "dimension")
    if host is None:
        return ew.float_or_float64(value)
    host = host.astype(np.float64) if host.dtype.kind in "iub" else host
    steps = np.diff(host)
    if steps.size and (steps == steps[0]).all():
        return float(steps[0])
    return _upload(host)


def gradient(x: Node, spacing: Sequence[Spacing], axes: Sequence[int],
             edge_order: int = 1) -> list[Node]:
    """The derivative of the samples ``x`` along each of ``axes`` (numpy's
    and torch's ``gradient``): second-order central differences inside,
    first- or second-order (``edge_order``) one-sided ones at the ends.
    ``spacing[i]`` is a uniform step (a number or a 0-d Node) or the 1-d
    sample coordinates along ``axes[i]`` (floating; x's dtype must be at
    least as wide). ``x`` is floating.

    Shape rule: one array of x's shape and dtype per axis; each axis needs
    at least ``edge_order + 1`` samples.

    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.ones((3, 4)), np.dtype("float32"))
    >>> [(g.shape, str(g.dtype)) for g in gradient(x, [1.0, 0.5], [0, 1], 2)]
    [((3, 4), 'float32'), ((3, 4), 'float32')]
    """
    if edge_order not in (1, 2):
        raise ShapeError("'edge_order' greater than 2 not supported")
    out = []
    for axis, dx in zip(axes, spacing, strict=True):
        axis = caxes.normalize_axis(axis, x.ndim)
        if x.shape[axis] < edge_order + 1:
            raise ShapeError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        if isinstance(dx, Node) and dx.ndim == 1:
            out.append(_nonuniform(x, axis, dx, edge_order))
        else:
            out.append(_uniform(x, axis, dx, edge_order))
    return out


# ---------------------------------------------------------------- bucketing

def digitize(x: Node, bins: Node, right: bool = False) -> Node:
    """numpy.digitize (torch.bucketize with ``right`` flipped): the index of
    the bin of each element of ``x`` for monotonic 1-d ``bins`` (increasing
    or decreasing, decided on device from the end points; non-monotonic
    bins give unspecified indices). ``x`` and ``bins`` share a dtype.

    Shape rule: x's shape, int64.

    >>> from lazytensor.core.leaves import constant
    >>> b = constant(np.array([0.0, 1.0, 2.0]), np.dtype("float64"))
    >>> digitize(constant(np.array([0.5, 3.0]), np.dtype("float64")), b).shape
    (2,)
    """
    side = "left" if right else "right"
    n = bins.shape[0]
    rising = searchsorted(bins, x, side)
    if n < 2:
        return rising
    falling = _sub(const(n, dt.int64, x.shape), searchsorted(make(Op.REV, (bins,), (0,)), x, side))
    last, first = cs.slice_axis(bins, 0, n - 1, n), cs.slice_axis(bins, 0, 0, 1)
    down = cs.reshape(make(Op.LT, (last, first)), ())
    return make(Op.SELECT, (ew.broadcast_to(down, x.shape), falling, rising))


# ---------------------------------------------------------------- histogram

def histogram_range(x: Node, dtype: np.dtype) -> tuple[Node, Node]:
    """The automatic range of a histogram of ``x`` (numpy's): (min, max) as
    0-d ``dtype`` Nodes, widened by 0.5 each side when they are equal."""
    lo = ew.convert(cred.reduce("min", x), dtype)
    hi = ew.convert(cred.reduce("max", x), dtype)
    same = make(Op.EQ, (lo, hi))
    return (make(Op.SELECT, (same, _sub(lo, apply.const(0.5, lo)), lo)),
            make(Op.SELECT, (same, _add(hi, apply.const(0.5, hi)), hi)))


def equal_edges(first: Node, last: Node, bins: int) -> Node:
    """``bins + 1`` equally spaced edges from 0-d ``first`` to ``last``
    (numpy.linspace in their dtype)."""
    return linspace(first, last, bins + 1, compute_dtype=first.dtype)


def host_range(range_: tuple[float, float] | None) -> tuple[float, float]:
    """A histogram ``range`` given on the host, checked and widened as numpy
    does: None is (0, 1); min > max and infinite ends raise; equal ends
    widen by 0.5 each side.

    >>> host_range((2, 2)), host_range(None)
    ((1.5, 2.5), (0, 1))
    """
    first, last = (0, 1) if range_ is None else range_
    if first > last:
        raise ShapeError("max must be larger than min in range parameter.")
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ShapeError(f"supplied range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def histogram_edges(x: Node, bins: int, range_: tuple[float, float] | None = None,
                    ) -> Node:
    """numpy.histogram's (torch.histogram's) ``bins + 1`` equal-width edges
    of the 1-d ``x``: over ``range_`` (host numbers, computed on the host in
    numpy's result dtype of the range and x: at least float64 for integer
    x) or, when None, over min/max of x on device (float64 for integer x;
    an empty x takes (0, 1)). Equal ends widen by 0.5 each side.

    >>> from lazytensor.core.leaves import constant
    >>> histogram_edges(constant(np.arange(4), np.dtype("int64")), 2).dtype
    dtype('float64')
    >>> histogram_edges(constant(np.zeros(0), np.dtype("float32")), 4, (0, 2)).shape
    (5,)
    """
    if bins < 1:
        raise ShapeError("`bins` must be positive, when an integer")
    if range_ is None and x.shape[0]:
        dtype = x.dtype if dt.is_inexact(x.dtype) else dt.float64
        return equal_edges(*histogram_range(x, dtype), bins)
    first, last = host_range(range_)
    dtype = np.result_type(first, last, np.empty(0, x.dtype))
    dtype = dtype if dtype.kind in "fc" else np.dtype(np.float64)
    return _upload(np.linspace(first, last, bins + 1, endpoint=True, dtype=dtype))


def histogram_density(counts: Node, edges: Node) -> Node:
    """Counts as a probability density: counts / (bin width * total), in at
    least float64 (numpy's ``density=True``, torch's ``density``).

    >>> from lazytensor.core.leaves import constant
    >>> c = constant(np.array([1, 3]), np.dtype("int64"))
    >>> histogram_density(c, constant(np.array([0.0, 0.5, 1.0]), np.dtype("float32"))).dtype
    dtype('float64')
    """
    ftype = np.result_type(counts.dtype, np.float64)
    counts = ew.convert(counts, ftype)
    n = edges.shape[0]
    widths = _sub(cs.slice_axis(edges, 0, 1, n), cs.slice_axis(edges, 0, 0, n - 1))
    total = ew.broadcast_to(cred.reduce("sum", counts), counts.shape)
    return _div(_div(counts, ew.convert(widths, ftype)), total)


def _gather(edges: Node, index: Node) -> Node:
    return cs.reshape(make(Op.GATHER, (edges, cs.reshape(index, index.shape + (1,))),
                           (), (0,), (0,), (), (), (1,), "clip"), index.shape)


def _uniform_index(x: Node, edges: Node, first: Node, last: Node) -> Node:
    """numpy's bin of each element for equal-width edges: scaled position,
    then corrected by one where it disagrees with the edges."""
    n = edges.shape[0] - 1
    shape = x.shape
    f0, f1 = ew.broadcast_to(first, shape), ew.broadcast_to(last, shape)
    pos = _mul(_div(_sub(x, f0), _sub(f1, f0)), apply.const(float(n), x))
    safe = make(Op.SELECT, (predicates.isfinite(pos), pos, apply.const(0.0, pos)))
    idx = ew.convert(make(Op.CLAMP, (apply.const(-1.0, safe), safe, apply.const(float(n), safe))),
                     dt.int64)
    idx = make(Op.MIN, (make(Op.MAX, (idx, const(0, dt.int64, shape))),
                        const(n - 1, dt.int64, shape)))
    one = const(1, dt.int64, shape)
    down = make(Op.LT, (x, _gather(edges, idx)))
    idx = make(Op.SELECT, (down, _sub(idx, one), idx))
    up = make(Op.AND, (make(Op.GE, (x, _gather(edges, _add(idx, one)))),
                       make(Op.NE, (idx, const(n - 1, dt.int64, shape)))))
    return make(Op.SELECT, (up, _add(idx, one), idx))


def _searched_index(x: Node, edges: Node) -> Node:
    """The bin of each element for increasing edges (the last bin closed)."""
    n = edges.shape[0] - 1
    idx = _sub(searchsorted(edges, x, "right"), const(1, dt.int64, x.shape))
    at_end = make(Op.EQ, (x, ew.broadcast_to(cs.slice_axis(edges, 0, n, n + 1), x.shape)))
    return make(Op.SELECT, (at_end, const(n - 1, dt.int64, x.shape), idx))


def histogram(x: Node, edges: Node, weights: Node | None = None, uniform: bool = False,
              ) -> Node:
    """Counts (int64), or summed ``weights`` (their dtype), of the 1-d ``x``
    in the bins between consecutive increasing ``edges`` (each bin half
    open, the last closed); values outside are dropped. ``uniform`` edges
    are equal-width (numpy's index arithmetic). ``x`` has the edges' dtype.

    Shape rule: (len(edges) - 1,).

    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([0.0, 0.5, 1.0]), np.dtype("float64"))
    >>> histogram(x, equal_edges(*histogram_range(x, x.dtype), 4), uniform=True).shape
    (4,)
    """
    n = edges.shape[0] - 1
    first = cs.reshape(cs.slice_axis(edges, 0, 0, 1), ())
    last = cs.reshape(cs.slice_axis(edges, 0, n, n + 1), ())
    keep = make(Op.AND, (make(Op.GE, (x, ew.broadcast_to(first, x.shape))),
                         make(Op.LE, (x, ew.broadcast_to(last, x.shape)))))
    idx = _uniform_index(x, edges, first, last) if uniform else _searched_index(x, edges)
    idx = make(Op.SELECT, (keep, idx, const(0, dt.int64, x.shape)))
    if weights is None:
        return counting.bincount(idx, n, ew.convert(keep, dt.int64))
    acc = dt.complex128 if dt.is_complex(weights.dtype) else (
        dt.float64 if dt.is_inexact(weights.dtype) else dt.int64)
    w = ew.convert(weights, acc)
    w = make(Op.SELECT, (keep, w, apply.const(0, w)))
    return ew.convert(counting.bincount(idx, n, w), weights.dtype)


# --------------------------------------------- NaN-ignoring reductions

def nan_argreduce(kind: str, x: Node, axis: int | None, keepdims: bool = False) -> Node:
    """argmax/argmin ignoring NaN (``kind``: 'argmax' or 'argmin'); -1 for
    an all-NaN slice (numpy raises there: that depends on the data).

    Shape rule: x reduced over ``axis`` (all axes when None), int64.

    >>> from lazytensor.core.leaves import constant
    >>> nan_argreduce("argmax", constant(np.ones((2, 3)), np.dtype("float64")), 1).shape
    (2,)
    """
    if not dt.is_float(x.dtype):
        return cred.argreduce(kind, x, axis, keepdims)
    nan = predicates.isnan(x)
    fill = apply.const(-math.inf if kind == "argmax" else math.inf, x)
    found = cred.argreduce(kind, make(Op.SELECT, (nan, fill, x)), axis, keepdims)
    all_nan = cred.reduce("all", nan, axis, keepdims)
    return make(Op.SELECT, (all_nan, const(-1, found.dtype, found.shape), found))


def nan_extremum(kind: str, x: Node, axis=None, keepdims: bool = False,
                 where: Node | None = None, initial=None) -> Node:
    """numpy.nanmax/nanmin (``kind``: 'max' or 'min'): the extremum ignoring
    NaN; ``where``/``initial`` as in ``reduction.reduce_where``. An all-NaN
    slice gives NaN, or ``initial`` when given (numpy's fmax.reduce).
    Shape rule: x reduced over ``axis``, x's dtype.

    >>> from lazytensor.core.leaves import constant
    >>> nan_extremum("max", constant(np.ones((2, 3)), np.dtype("float64")), 1).shape
    (2,)
    """
    if not dt.is_inexact(x.dtype):
        return cred.reduce_where(kind, x, axis, keepdims, where, initial)
    nan = predicates.isnan(x)
    fill = apply.const(-math.inf if kind == "max" else math.inf, x)
    found = cred.reduce_where(kind, make(Op.SELECT, (nan, fill, x)), axis, keepdims, where,
                              initial)
    if initial is not None:
        return found
    all_nan = cred.reduce("all", nan, axis, keepdims)
    return make(Op.SELECT, (all_nan, apply.const(math.nan, found), found))


def reduce_runs(kind: str, x: Node, starts: Sequence[int], axis: int) -> Node:
    """numpy's ``ufunc.reduceat``: the ``kind`` reduction of each run
    ``starts[i]:starts[i+1]`` along (non-negative) ``axis`` (to the end for
    the last start), or the element at ``starts[i]`` itself where that run
    is empty. Starts lie in [0, n). Shape: x's with len(starts) along axis.

    >>> from lazytensor.core.leaves import constant
    >>> reduce_runs("sum", constant(np.arange(8.0), np.dtype("float64")), [0, 4, 2], 0).shape
    (3,)
    """
    bounds = [*starts, x.shape[axis]]
    runs = [cs.slice_axis(x, axis, start, max(stop, start + 1))
            for start, stop in zip(bounds[:-1], bounds[1:], strict=True)]
    if not runs:
        return ew.full(tuple(0 if d == axis else s for d, s in enumerate(x.shape)), 0, x.dtype)
    return cs.concatenate([cred.reduce_where(kind, run, axis, True) for run in runs], axis)


# ---------------------------------------------------------- index conversion

def _strides(shape: Sequence[int], order: str) -> list[int]:
    dims = list(shape) if order == "C" else list(shape)[::-1]
    strides, step = [], 1
    for size in reversed(dims):
        strides.append(step)
        step *= size
    strides.reverse()
    return strides if order == "C" else strides[::-1]


def unravel_index(index: Node, shape: Sequence[int], order: str = "C") -> list[Node]:
    """The coordinates in an array of ``shape`` of each flat ``index``
    (int64, non-negative and in range: others give unspecified values).

    >>> from lazytensor.core.leaves import constant
    >>> [c.shape for c in unravel_index(constant(np.array([5, 7]), np.dtype("int64")), (2, 4))]
    [(2,), (2,)]
    """
    out = []
    for size, stride in zip(shape, _strides(shape, order), strict=True):
        q = _div(index, const(stride, dt.int64, index.shape))
        out.append(make(Op.REM, (q, const(max(size, 1), dt.int64, index.shape))))
    return out


def ravel_multi_index(coords: Sequence[Node], dims: Sequence[int], modes: Sequence[str],
                      order: str = "C") -> Node:
    """The flat index of int64 ``coords`` (one array per dimension, one
    shape) in an array of ``dims``; per dimension ``modes`` 'wrap' (modulo),
    'clip' (to the ends) or 'raise' (taken as in range).

    >>> from lazytensor.core.leaves import constant
    >>> i = constant(np.array([1, 0]), np.dtype("int64"))
    >>> ravel_multi_index([i, i], (2, 3), ("raise", "raise")).shape
    (2,)
    """
    total = None
    for c, size, stride, mode in zip(coords, dims, _strides(dims, order), modes, strict=True):
        if mode == "wrap":
            c = division.remainder(c, apply.const(size, c))
        elif mode == "clip":
            c = make(Op.CLAMP, (apply.const(0, c), c, apply.const(size - 1, c)))
        term = _mul(c, apply.const(stride, c))
        total = term if total is None else _add(total, term)
    return total


# --------------------------------------------------------------- integration

def trapezoid(y: Node, x: Node | None = None, dx: float | Node = 1.0, axis: int = -1,
              dtype: np.dtype | None = None) -> Node:
    """The integral of ``y`` along ``axis`` by the trapezoid rule
    (numpy.trapezoid, torch.trapezoid): sum(d * (y[1:] + y[:-1])) / 2 with
    d the differences of the sample points ``x`` (1-d along ``axis``, or
    y's ndim) or the uniform step ``dx``. Neighbour sums are taken in y's
    dtype (bool: OR, numpy's add); the rest in ``dtype`` (default y's),
    which x (and a Node dx) must already have.

    Shape rule: y's shape without ``axis``.

    >>> from lazytensor.core.leaves import constant
    >>> y = constant(np.ones((2, 5)), np.dtype("float32"))
    >>> trapezoid(y, constant(np.arange(5.0), np.dtype("float32"))).shape
    (2,)
    """
    axis = caxes.normalize_axis(axis, y.ndim)
    n = y.shape[axis]
    pair = arith.add_or(cs.slice_axis(y, axis, 1, n), cs.slice_axis(y, axis, 0, max(n - 1, 0)))
    pair = ew.convert(pair, dtype or y.dtype)
    if x is None:
        d = ew.convert(dx, pair.dtype) if isinstance(dx, Node) else apply.const(dx, pair)
    else:
        xaxis = axis if x.ndim == y.ndim else 0
        m = x.shape[xaxis]
        d = _sub(cs.slice_axis(x, xaxis, 1, m), cs.slice_axis(x, xaxis, 0, m - 1))
        if x.ndim != y.ndim:
            d = cs.reshape(d, tuple(-1 if k == axis else 1 for k in range(y.ndim)))
        d = ew.convert(d, pair.dtype)
    shape = ew.broadcast_shapes(d.shape, pair.shape)
    total = cred.reduce("sum", _mul(ew.broadcast_to(pair, shape), ew.broadcast_to(d, shape)),
                        axis)
    return _scaled(total, 0.5)


# --------------------------------------------------------------- polynomials

def polyval(p: Node, x: Node, from_first: bool = False) -> Node:
    """sum p[i] * x**(deg - i) by Horner's rule from 0 (numpy.polyval), or
    from ``p[0]`` with ``from_first`` (tnp's: exact at x = inf, where
    0 * inf is NaN): p iterates over its first axis, each entry
    broadcasting against x; p and x share a dtype (bool: and/or).

    >>> from lazytensor.core.leaves import constant
    >>> polyval(constant(np.array([1.0, 0.0, 2.0]), np.dtype("float64")),
    ...         constant(np.arange(3.0), np.dtype("float64"))).shape
    (3,)
    """
    y, first = ew.full(x.shape, 0, x.dtype), 0
    if from_first and p.shape[0]:
        y, first = cs.reshape(cs.slice_axis(p, 0, 0, 1), p.shape[1:]), 1
    for i in range(first, p.shape[0]):
        pv = cs.reshape(cs.slice_axis(p, 0, i, i + 1), p.shape[1:])
        shape = ew.broadcast_shapes(y.shape, x.shape, pv.shape)
        y = arith.mul_and(ew.broadcast_to(y, shape), ew.broadcast_to(x, shape))
        y = arith.add_or(y, ew.broadcast_to(pv, shape))
    return ew.broadcast_to(y, ew.broadcast_shapes(y.shape, x.shape))


def vander(x: Node, columns: int | None = None, increasing: bool = False,
           by_powers: bool = False) -> Node:
    """[x**(columns-1), ..., x, 1] as columns of a (len(x), columns) matrix
    (``increasing``: [1, x, ..., x**(columns-1)]); ``columns`` defaults to
    len(x). Powers by repeated multiplication, as numpy.vander; with
    ``by_powers`` each column is ``x ** p`` (tf.experimental.numpy's, which
    differs in the last bits for floats). x is 1-d; the result has its dtype.

    >>> from lazytensor.core.leaves import constant
    >>> vander(constant(np.arange(3.0), np.dtype("float64")), 4).shape
    (3, 4)
    """
    if x.ndim != 1:
        raise ShapeError("x must be a one-dimensional array or sequence.")
    columns = x.shape[0] if columns is None else columns
    if columns < 0:
        raise ShapeError("N must be nonnegative")
    if columns == 0:
        return ew.full((x.shape[0], 0), 0, x.dtype)
    col = cs.reshape(x, (-1, 1))
    if by_powers:
        powers = [make(Op.POW, (col, ew.full(col.shape, p, x.dtype))) for p in range(columns)]
    else:
        powers = [ew.full(col.shape, 1, x.dtype)]
        for _ in range(columns - 1):
            powers.append(_mul(powers[-1], col))
    return cs.concatenate(powers if increasing else powers[::-1], 1)

