"""More of numpy's namespace on core composites: element tests (isin,
isposinf...), select/choose, sinc/fix, append/unstack/rollaxis, integration
and statistics (trapezoid, cov, corrcoef), 1-d convolution and correlation
(one CONV), interp, bincount (only its length is materialized).
"""

from __future__ import annotations

import math
import operator
import warnings

from lazytensor.core import data_lengths, metrics
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise import formulas, predicates
from lazytensor.core.composite.elementwise.promotion import NUMPY, result_type
from lazytensor.core.composite.indexing import subscript as ci
from lazytensor.core.composite.indexing import take as ctake
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.movement.rearrange import resized
from lazytensor.core.composite.reduce import axes
from lazytensor.core.composite.reduce import numerics as cnum
from lazytensor.core.composite.reduce import statistics as cstats
from lazytensor.core.composite.sets import counting
from lazytensor.core.composite.signal import correlate as csignal
from lazytensor.core.composite.sorting import sort as csort
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.numpy import _shape, _ufunc_methods, _ufuncs
from lazytensor.numpy._base import lift, ndarray, node_of, wrap
from lazytensor.numpy._dispatch import NUMPY_DIRS, eager, implements, to_host

import numpy as np

# ------------------------------------------------------------ element tests

_BROADCAST_ISIN = 1 << 20  # x.size * t.size past which a compare table is too big


@implements("isin")
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element occurs in ``test_elements``: a broadcast compare
    for small tables, else a binary search in the sorted test elements
    (memory linear in the sizes); numpy's ``kind`` checks."""
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    x, t = node_of(element), node_of(test_elements)
    dtype = ew.promote(NUMPY, x, t)
    if kind == "table" and not all(dt.is_int(d) or dt.is_bool(d) for d in (x.dtype, t.dtype)):
        raise ValueError("The 'table' method is only supported for boolean or integer arrays. "
                         "Please select 'sort' or None for kind.")
    x, t = ew.convert(x, dtype), ew.convert(t, dtype)
    if math.prod(x.shape) * math.prod(t.shape) <= _BROADCAST_ISIN or dt.is_complex(dtype):
        return wrap(cstats.isin(x, t, bool(invert)))
    table = csort.sort(cs.ravel(t))
    found = make(Op.EQ, (ctake.take(table, csort.searchsorted(table, x), mode="clip"), x))
    return wrap(make(Op.NOT, (found,)) if invert else found)


def _inf_test(test):
    def impl(x, out=None):
        node = node_of(x)
        if dt.is_complex(node.dtype):
            raise TypeError("This operation is not supported for complex values because "
                            "it would be ambiguous.")
        return _ufuncs.finish_broadcast(test(node), out)

    return impl


isposinf = implements("isposinf")(_inf_test(predicates.isposinf))
isneginf = implements("isneginf")(_inf_test(predicates.isneginf))


@implements("iscomplex")
def iscomplex(x):
    return wrap(predicates.iscomplex(node_of(x)))


@implements("isreal")
def isreal(x):
    return wrap(predicates.isreal(node_of(x)))


# ---------------------------------------------------------------- choosing

@implements("select")
def select(condlist, choicelist, default=0):
    """The first choice whose condition holds (a Python ``default`` is weak)."""
    choices = [node_of(c) for c in choicelist] + [lift(default)]
    dtype = ew.promote(NUMPY, *choices)
    conditions = [node_of(c) for c in condlist]
    for i, c in enumerate(conditions):
        if c.dtype != dt.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    return wrap(ctake.select(conditions,
                              [ew.convert(c, dtype) for c in choices[:-1]],
                              ew.as_node(choices[-1], dtype, ew.operand_shape(choices[-1]))))


@implements("choose")
def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]``: a gather over the stacked, broadcast choices."""
    idx = node_of(a)
    lifted = [lift(c) for c in choices]  # Python scalars stay weak, as numpy's promotion
    dtype = ew.promote(NUMPY, *lifted)
    nodes = [c if isinstance(c, Node) else np.asarray(c).astype(dtype) for c in lifted]
    nodes = [node_of(c) for c in nodes]
    cs.broadcast_shapes(idx.shape, *(c.shape for c in nodes))  # a shape error before the check
    if mode == "raise" and isinstance(a, (list, np.ndarray)):
        host = np.asarray(a)
        if ((host < 0) | (host >= len(nodes))).any():
            raise ValueError("invalid entry in choice array")
    node = ctake.choose(idx, [ew.convert(c, dtype) for c in nodes], mode)
    return _ufunc_methods.finish_unsafe(np.add, node, out)


# ---------------------------------------------------------- small functions

@implements("sinc")
def sinc(x):
    """sin(pi x) / (pi x), 1 at 0."""
    return wrap(formulas.sinc(ew.float_or_float64(node_of(x))))


@implements("i0")
def i0(x):
    """numpy.i0, the modified Bessel function of order 0: float inputs keep
    their dtype, others become float64; complex input raises as numpy's."""
    node = node_of(x)
    if dt.is_complex(node.dtype):
        raise TypeError("i0 not supported for complex values")
    return wrap(formulas.bessel_i0(ew.float_or_float64(node)))


@implements("unwrap")
def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """numpy.unwrap: each step along ``axis`` larger than ``max(discont,
    period / 2)`` is moved by whole periods into [-period/2, period/2)
    (a step of exactly +period/2 stays +period/2), and the corrections
    accumulate. Integer input with an integer period stays integer."""
    x = wrap(node_of(p))
    step = np.diff(x, axis=axis)
    half = period / 2
    if np.result_type(step.dtype, period).kind in "iu":
        half, remainder = divmod(period, 2)
        ambiguous = remainder == 0
    else:
        ambiguous = True
    moved = np.mod(step + half, period) - half
    if ambiguous:
        moved = np.where((moved == -half) & (step > 0), half, moved)
    correction = np.where(np.abs(step) < (half if discont is None else discont), 0,
                          moved - step)
    head, tail = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    head[axis], tail[axis] = slice(None, 1), slice(1, None)
    rest = x[tuple(tail)] + np.cumsum(correction, axis=axis)
    dtype = np.result_type(step.dtype, period)
    return np.concatenate([x[tuple(head)].astype(dtype), rest.astype(dtype)], axis=axis)


@implements("fix")
def fix(x, out=None):
    return _ufuncs.call(np.trunc, (x,), {} if out is None else {"out": out})


@implements("astype")
def astype(x, dtype, /, *, copy=True, device=None):
    if not isinstance(x, (ndarray, np.ndarray, np.generic)):
        raise TypeError(f"Input should be a NumPy array or scalar. It is a {type(x)} instead.")
    x = x if isinstance(x, ndarray) else wrap(node_of(x))
    return x.astype(dtype, copy=copy)


@implements("unstack")
def unstack(x, /, *, axis=0):
    x = x if isinstance(x, ndarray) else wrap(node_of(x))
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    axis = axes.normalize_axis(axis, x.ndim)
    return tuple(x[(slice(None),) * axis + (i,)] for i in range(x.shape[axis]))


@implements("append")
def append(arr, values, axis=None):
    return wrap(cs.concatenate([node_of(arr), node_of(values)], axis))  # None: the ravels


def _codes(shape: tuple[int, ...], start: int = 0) -> np.ndarray:
    """Each element's position in the concatenated ravels, as an array of ``shape``."""
    return np.arange(start, start + math.prod(shape), dtype=np.int64).reshape(shape)


def _gather(flat: Node, codes: np.ndarray) -> Node:
    """``flat[codes]``; the positions are device data, so other positions
    (``delete(x, i)`` in a loop over i) reuse the compiled graph."""
    return ci.getitem(flat, (codes,), upload=True)


@implements("delete")
def delete(arr, obj, axis=None):
    """numpy deletes from an array of element positions (its checks and
    errors); one gather of ``arr`` at the positions left records the result.
    A lazy ``obj`` is read (it decides the shape)."""
    x = node_of(arr)
    kept = np.delete(_codes(x.shape), to_host(obj), axis)
    return wrap(_gather(cs.ravel(x), kept))


@implements("insert")
def insert(arr, obj, values, axis=None):
    """numpy inserts positions of ``values``' elements among those of
    ``arr`` (its broadcasting, checks and errors); one gather of both ravels
    records the result. ``values`` are cast to arr's dtype as numpy's
    (host values by numpy itself: an int beyond the dtype raises)."""
    x = node_of(arr)
    lazy = lift(values) if isinstance(values, ndarray) else None
    value = lazy if lazy is not None else lift(np.array(to_host(values), dtype=x.dtype))
    codes = np.insert(_codes(x.shape), to_host(obj), _codes(value.shape, math.prod(x.shape)),
                      axis)
    return wrap(_gather(cs.concatenate([x, ew.convert(value, x.dtype)], None), codes))


@implements("resize")
def resize(a, new_shape):
    """numpy.resize: a's ravel repeated cyclically (zeros when a is empty)
    to ``new_shape``'s size, in that shape."""
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    if any(int(d) < 0 for d in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    shape = tuple(int(d) for d in shape)
    return wrap(cs.reshape(resized(node_of(a), math.prod(shape)), shape))


@implements("rollaxis")
def rollaxis(a, axis, start=0):
    x = a if isinstance(a, ndarray) else wrap(node_of(a))
    n = x.ndim
    axis = axes.normalize_axis(axis, n)
    start = start + n if start < 0 else start
    if not 0 <= start <= n:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, "
                                      f"but {start} was passed in")
    if axis < start:
        start -= 1
    return _shape.moveaxis(x, axis, start) if axis != start else x[...]


# ------------------------------------------------------- integration, stats

@implements("trapezoid")
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """numpy's dtype: that of ``d * (y + y) / 2.0`` (NEP 50: a Python dx is weak)."""
    yn = node_of(y)
    d = node_of(x) if x is not None else lift(dx)
    dtype = result_type(NUMPY, ew.promote(NUMPY, yn, d), float)
    return wrap(cnum.trapezoid(yn, d if x is not None else None, d, axis, dtype))


@implements("cov")
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """Covariance (numpy computes in at least float64); observation weights
    get numpy's shape errors, and its value checks (integral, non-negative)
    where they are host data."""
    x = node_of(m)
    parts = [x] + ([node_of(y)] if y is not None else [])
    for name, part in zip("my", parts, strict=False):
        if part.ndim > 2:
            raise ValueError(f"{name} has more than 2 dimensions")
    target = as_dtype_or(dtype, np.result_type(*(p.dtype for p in parts), np.float64))
    weighted = fweights is not None or aweights is not None
    if weighted and (dtype is not None or target.kind == "c"):
        return eager("numpy.cov", np.cov, (m, y, rowvar, bias, ddof, fweights, aweights),
                     {"dtype": dtype})
    ddof = (0 if bias else 1) if ddof is None else ddof
    rows = [ew.convert(p, target) for p in parts]
    n = x.shape[0 if not rowvar and x.ndim == 2 else -1] if x.ndim else 1
    fw, aw = (_cov_weights(w, name, n, target) for w, name in
              ((fweights, "fweights"), (aweights, "aweights")))
    return wrap(cstats.cov(rows[0], rows[1] if len(rows) > 1 else None, bool(rowvar), ddof,
                           fw, aw))


def _cov_weights(weights, name: str, n: int, dtype: np.dtype) -> Node | None:
    """np.cov's ``fweights``/``aweights`` as a node of ``dtype``, numpy's checks."""
    if weights is None:
        return None
    if not isinstance(weights, ndarray):
        host = np.asarray(weights, dtype=float)
        if name == "fweights" and not np.all(host == np.around(host)):
            raise TypeError("fweights must be integer")
        if host.ndim <= 1 and host.shape[:1] == (n,) and np.any(host < 0):
            raise ValueError(f"{name} cannot be negative")
    w = node_of(weights)
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape != (n,):
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    return ew.convert(w, dtype)


def as_dtype_or(dtype, default) -> np.dtype:
    return np.dtype(default) if dtype is None else dt.canonical(dtype)


@implements("corrcoef")
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    return wrap(cstats.corrcoef(cov(x, y, rowvar, dtype=dtype)._h.node))


# ------------------------------------------------- convolution, correlation

def _operands_1d(a, v) -> tuple[Node, Node]:
    x, y = node_of(a), node_of(v)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError("object too deep for desired array")
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError("v cannot be empty" if y.shape[0] == 0 else "a cannot be empty")
    dtype = ew.promote(NUMPY, x, y)
    if dt.is_bool(dtype):  # numpy's bool loop: or of ands, i.e. a count > 0
        dtype = dt.int32
    return ew.convert(x, dtype), ew.convert(y, dtype)


def _bool_if(result: Node, a, v) -> Node:
    """Back to bool when both operands were (counts of true products)."""
    if all(dt.is_bool(node_of(o).dtype) for o in (a, v)):
        return make(Op.NE, (result, ew.full(result.shape, 0, result.dtype)))
    return result


@implements("correlate")
def correlate(a, v, mode="valid"):
    return wrap(_bool_if(csignal.correlate(*_operands_1d(a, v), _signal_mode(mode)), a, v))


@implements("convolve")
def convolve(a, v, mode="full"):
    return wrap(_bool_if(csignal.convolve(*_operands_1d(a, v), _signal_mode(mode)), a, v))


_MODES = ("valid", "same", "full")


def _signal_mode(mode) -> str:
    """numpy's mode: one of the three names or their numbers 0, 1, 2."""
    if isinstance(mode, str):
        if mode not in _MODES:
            raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
        return mode
    if isinstance(mode, (int, np.integer)) and not isinstance(mode, (bool, np.bool_)):
        if not 0 <= mode <= 2:
            raise ValueError("integer convolve/correlate mode must be 0, 1, or 2")
        return _MODES[int(mode)]
    raise TypeError("convolve/correlate mode not understood")


# ------------------------------------------------------------ interp, bincount

@implements("interp")
def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation at x over increasing xp (numpy's slope
    formula); with a ``period``, numpy's wrapping of x and xp into one
    period, sorted, and extended by one point at each end."""
    xs, grid, values = node_of(x), node_of(xp), node_of(fp)
    if grid.ndim != 1 or values.ndim != 1:
        raise ValueError("Data points must be 1-D sequences")
    if grid.shape != values.shape:
        raise ValueError("fp and xp are not of the same length.")
    if not grid.shape[0]:
        raise ValueError("array of sample points is empty")
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        xs = node_of(wrap(ew.convert(xs, dt.float64)) % period)
        wrapped = wrap(ew.convert(grid, dt.float64)) % period
        order = np.argsort(wrapped)
        grid, fp = wrapped[order], wrap(values)[order]
        grid = node_of(np.concatenate((grid[-1:] - period, grid, grid[0:1] + period)))
        values = node_of(np.concatenate((fp[-1:], fp, fp[0:1])))
        left = right = None
    values = ew.convert(values, dt.complex128 if dt.is_complex(values.dtype) else dt.float64)
    xs, grid = ew.convert(xs, dt.float64), ew.convert(grid, dt.float64)
    ends = [None if e is None else lift(e) for e in (left, right)]
    return wrap(csignal.interp(xs, grid, values, *ends))


@implements("vander")
def vander(x, N=None, increasing=False):  # noqa: N803 (numpy's name)
    """Columns x**(N-1) ... x**0 (reversed when ``increasing``) by repeated
    multiplication in x's dtype promoted with int64, as numpy's."""
    v = node_of(x)
    columns = None if N is None else operator.index(N)
    if v.ndim == 1 and columns is not None and columns < 0:
        raise ValueError("negative dimensions are not allowed")
    v = ew.convert(v, np.promote_types(v.dtype, dt.int64))
    return wrap(cnum.vander(v, columns, bool(increasing)))


@implements("bincount")
def bincount(x, weights=None, minlength=0):
    """Counts (or summed weights) per value: the length is data-dependent,
    so only max(x) is materialized; the counting is a lazy scatter-add."""
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if not isinstance(x, (ndarray, np.ndarray)):  # numpy casts a host sequence to intp
        host = np.asarray(x)
        if host.dtype.kind == "f":
            if host.size:
                warnings.warn("Non-integer input passed to bincount. In a future version of "
                              "NumPy, this will be an error. (Deprecated NumPy 2.1)",
                              DeprecationWarning, stacklevel=metrics.user_stacklevel(NUMPY_DIRS))
            x = host.astype(np.intp)
    idx = node_of(x)
    if idx.ndim != 1:
        raise ValueError("object too deep for desired array")
    if not dt.is_int(idx.dtype) and not dt.is_bool(idx.dtype):
        raise TypeError("Cannot cast array data from dtype('float64') to dtype('int64') "
                        "according to the rule 'safe'")
    length, smallest = data_lengths.bincount_length(idx, minlength)
    if smallest < 0:
        raise ValueError("'list' argument must have no negative elements")
    w = ew.as_node(node_of(weights), dt.float64, idx.shape) if weights is not None else None
    return wrap(counting.bincount(idx, length, w))


@implements("sort_complex")
def sort_complex(a):
    """Sorted along the last axis (real part, then imaginary), as complex:
    numpy's complex64 for 8- and 16-bit integers, complex128 otherwise."""
    import lazytensor.numpy as lnp

    b = lnp.sort(lnp.asarray(a))
    if b.dtype.kind == "c":
        return b
    return b.astype(np.complex64 if b.dtype.char in "bhBH" else np.complex128)
