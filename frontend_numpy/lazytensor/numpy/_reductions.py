"""Reductions with numpy's signatures and dtype rules: sum/prod widen small
integers to int64 (numpy's add/multiply reduction loops), mean/var/std of
integers are float64, float16 means accumulate in float32, var of complex
is real; NaN-ignoring variants; cumulative sums and products.
"""

from __future__ import annotations

import math
import warnings

from lazytensor.core import dtypes as dt
from lazytensor.core import masked, metrics
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise import predicates
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.movement.shape import ravel
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.reduce import numerics as cnum
from lazytensor.core.composite.reduce import reduction as cred
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.numpy import _masked_writes
from lazytensor.numpy._base import lift, ndarray, node_of, wrap
from lazytensor.numpy._creation import as_dtype
from lazytensor.numpy._dispatch import NUMPY_DIRS, implements
from lazytensor.numpy._ufunc_methods import reduce, scalar_axis, scan
from lazytensor.numpy._ufuncs import finish

import numpy as np

_NV = np._NoValue


def _kd(keepdims) -> bool:
    return False if keepdims is _NV else bool(keepdims)


def _where(where):
    return True if where is _NV else where


# ------------------------------------------------------------ ufunc reductions

@implements("sum")
def sum_(a, axis=None, dtype=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
    return reduce(np.add, a, axis, dtype, out, _kd(keepdims), initial, _where(where))


@implements("prod")
def prod(a, axis=None, dtype=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
    return reduce(np.multiply, a, axis, dtype, out, _kd(keepdims), initial, _where(where))


@implements("max", "amax")
def max_(a, axis=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
    return reduce(np.maximum, a, axis, None, out, _kd(keepdims), initial, _where(where))


@implements("min", "amin")
def min_(a, axis=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
    return reduce(np.minimum, a, axis, None, out, _kd(keepdims), initial, _where(where))


@implements("all")
def all_(a, axis=None, out=None, keepdims=_NV, *, where=_NV):
    return reduce(np.logical_and, a, axis, None, out, _kd(keepdims), _NV, _where(where))


@implements("any")
def any_(a, axis=None, out=None, keepdims=_NV, *, where=_NV):
    return reduce(np.logical_or, a, axis, None, out, _kd(keepdims), _NV, _where(where))


@implements("ptp")
def ptp(a, axis=None, out=None, keepdims=_NV):
    return finish(cred.ptp(node_of(a), axis, _kd(keepdims)), out)


@implements("count_nonzero")
def count_nonzero(a, axis=None, *, keepdims=False):
    return wrap(cred.count_nonzero(node_of(a), axis, keepdims))


# ------------------------------------------------------------------- statistics

def _stat_dtypes(x: Node, dtype) -> tuple[np.dtype, np.dtype]:
    """(compute dtype, result dtype) of numpy's mean/var for ``x``."""
    if dtype is not None:
        d = as_dtype(dtype)
        return (dt.float32 if d == dt.float16 else d), d
    if not dt.is_inexact(x.dtype):
        return dt.float64, dt.float64
    if x.dtype == dt.float16:
        return dt.float32, dt.float16
    return x.dtype, x.dtype


def _mask(x: Node, where) -> Node:
    return ew.as_node(node_of(where), dt.bool_, x.shape)


@implements("mean")
def mean(a, axis=None, dtype=None, out=None, keepdims=_NV, *, where=_NV):
    a, axis, where = _unmasked(a, axis, keepdims, where)
    x = node_of(a)
    compute, result = _stat_dtypes(x, dtype)
    keep, where = _kd(keepdims), _where(where)
    if where is True:
        if _count(x, axis) == 0:
            _warn("Mean of empty slice")
        node = cred.mean(ew.convert(x, compute), axis, keep, compute)
    else:
        node = cred.masked_mean(ew.convert(x, compute), _mask(x, where), axis, keep)
    return finish(ew.convert(node, result), out)


def _unmasked(a, axis, keepdims, where) -> tuple:
    """``x[m].mean()`` as the mean of x where m holds (``_masked_writes``):
    a graph of x's shape, the same whatever m's count."""
    found = _masked_writes.whole(a, axis, _kd(keepdims)) if _where(where) is True else None
    if found is None:
        return a, axis, where
    full, mask, axes = found
    return wrap(full), axes, wrap(masked.spread(mask, full.shape))


def _count(x: Node, axis) -> int:
    """How many elements each result of a reduction over ``axis`` reads."""
    return math.prod(x.shape[d] for d in caxes.normalize_axes(axis, x.ndim))


def _warn(message: str) -> None:
    """numpy's RuntimeWarning for a reduction over too few elements: the
    shapes decide it (numpy's warnings that depend on values are not given)."""
    warnings.warn(message, RuntimeWarning, stacklevel=metrics.user_stacklevel(NUMPY_DIRS))


def _variance(x: Node, axis, compute, ddof, keep, where, mean=_NV, no_dof=None) -> Node:
    """var's node; ``mean`` (numpy's ``mean=``: the mean with keepdims) is
    subtracted as given instead of being computed again; ``no_dof``: what a
    masked slice of count <= ddof gives (nanvar's NaN; var's is inf)."""
    center = None if mean is _NV else node_of(mean)
    if where is True:
        if ddof >= _count(x, axis):
            _warn("Degrees of freedom <= 0 for slice")
        return cred.var(ew.convert(x, compute), axis, keep, ddof, compute, center)
    return cred.masked_var(ew.convert(x, compute), _mask(x, where), axis, keep, ddof,
                           None if center is None else ew.convert(center, compute), no_dof)


def _ddof(ddof, correction):
    """numpy's rule: ``correction`` is ``ddof``'s array-API name; a nonzero
    ddof next to it raises."""
    if correction is _NV:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def _spread(a, axis, dtype, ddof, keepdims, where, mean, correction, no_dof=None):
    """(variance node, result dtype) of var and std (nanvar's, nanstd's with
    ``no_dof``: see ``_variance``)."""
    if mean is _NV:
        a, axis, where = _unmasked(a, axis, keepdims, where)
    x = node_of(a)
    compute, result = _stat_dtypes(x, dtype)
    ddof = _ddof(ddof, correction)
    return _variance(x, axis, compute, ddof, _kd(keepdims), _where(where), mean, no_dof), result


def _var(node: Node, result: np.dtype, out):
    return finish(ew.convert(node, dt.real_dtype(result)), out)


def _std(node: Node, result: np.dtype, out):
    if result == dt.float16:  # numpy's sqrt of the float16 variance (inf past its range)
        node = ew.convert(node, result)
    return _var(make(Op.SQRT, (node,)), result, out)


@implements("var")
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NV, *, where=_NV, mean=_NV,
        correction=_NV):
    return _var(*_spread(a, axis, dtype, ddof, keepdims, where, mean, correction), out)


@implements("std")
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NV, *, where=_NV, mean=_NV,
        correction=_NV):
    return _std(*_spread(a, axis, dtype, ddof, keepdims, where, mean, correction), out)


def _weights_along(x: Node, w: Node, axis) -> Node:
    """numpy 2's weights of another shape than ``a``: one weight per element
    of the axes named (in their order), broadcast over the others."""
    if w.shape == x.shape:
        return w
    if axis is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    axes = cs.normalize_axis_tuple(axis, x.ndim)
    if w.shape != tuple(x.shape[a] for a in axes):
        raise ValueError("Shape of weights must be consistent with shape of a along "
                         "specified axis.")
    w = cs.transpose(w, tuple(int(i) for i in np.argsort(axes)))
    w = cs.reshape(w, tuple(s if d in axes else 1 for d, s in enumerate(x.shape)))
    return ew.broadcast_to(w, x.shape)


@implements("average")
def average(a, axis=None, weights=None, returned=False, *, keepdims=_NV):
    """numpy.average on the shared core average (integers average in float64)."""
    x, keep = node_of(a), _kd(keepdims)
    if weights is None:
        compute, result = _stat_dtypes(x, None)
        avg, total = cred.average(ew.convert(x, compute), axis, None, keep)
        avg, total = ew.convert(avg, result), ew.convert(total, result)
    else:
        w = _weights_along(x, node_of(weights), axis)
        dtype = np.result_type(x.dtype, w.dtype, x.dtype if dt.is_inexact(x.dtype) else
                               np.float64)
        avg, total = cred.average(ew.convert(x, dtype), axis, ew.convert(w, dtype), keep)
    return (wrap(avg), wrap(total)) if returned else wrap(avg)


# ------------------------------------------------------------------ arg-reductions

def _argreduce(kind: str, a, axis, out, keepdims) -> ndarray:
    x = node_of(a)
    axis = scalar_axis(x, axis)
    if dt.is_complex(x.dtype):
        x = _complex_hits(kind, x, axis)
        kind = "argmax"
    node = cred.argreduce(kind, x, axis, bool(keepdims))
    return finish(node, out)


def _complex_hits(kind: str, x: Node, axis) -> Node:
    """Where each slice of complex ``x`` holds its first extreme in numpy's
    lexicographic order (``max``/``min`` compare so), or its NaNs, which
    numpy's argmax and argmin both pick first."""
    a = wrap(x)
    nan = np.isnan(a)
    extreme = (np.max if kind == "argmax" else np.min)(a, axis=axis, keepdims=True)
    return node_of(np.where(np.any(nan, axis=axis, keepdims=True), nan, a == extreme))


@implements("argmax")
def argmax(a, axis=None, out=None, *, keepdims=_NV):
    return _argreduce("argmax", a, axis, out, _kd(keepdims))


@implements("argmin")
def argmin(a, axis=None, out=None, *, keepdims=_NV):
    return _argreduce("argmin", a, axis, out, _kd(keepdims))


# --------------------------------------------------------------------- scans

def _scan(ufunc, a, axis, dtype, out, include_initial=False):
    x = node_of(a)
    if axis is None:
        x, axis = ravel(x), 0
    return scan(ufunc, wrap(x), axis, dtype, out, include_initial)


@implements("cumsum")
def cumsum(a, axis=None, dtype=None, out=None):
    return _scan(np.add, a, axis, dtype, out)


@implements("cumprod")
def cumprod(a, axis=None, dtype=None, out=None):
    return _scan(np.multiply, a, axis, dtype, out)


def _cumulative(ufunc, x, axis, dtype, out, include_initial):
    node = node_of(x)
    if axis is None and node.ndim > 1:
        raise ValueError("For arrays which have more than one dimension ``axis`` "
                         "argument is required.")
    return _scan(ufunc, wrap(node), axis, dtype, out, include_initial)


@implements("cumulative_sum")
def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(np.add, x, axis, dtype, out, include_initial)


@implements("cumulative_prod")
def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(np.multiply, x, axis, dtype, out, include_initial)


# ---------------------------------------------------------------- NaN-ignoring

def _nan_replaced(a, value) -> Node:
    return cred.nan_to(node_of(a), value)


@implements("nansum")
def nansum(a, axis=None, dtype=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
    return sum_(wrap(_nan_replaced(a, 0)), axis, dtype, out, keepdims, initial, where)


@implements("nanprod")
def nanprod(a, axis=None, dtype=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
    return prod(wrap(_nan_replaced(a, 1)), axis, dtype, out, keepdims, initial, where)


def _nan_extremum(kind: str, a, axis, out, keepdims, initial, where):
    mask = None if _where(where) is True else lift(where)
    return finish(cnum.nan_extremum(kind, node_of(a), axis, _kd(keepdims), mask,
                                    None if initial is _NV else initial), out)


@implements("nanmax")
def nanmax(a, axis=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
    return _nan_extremum("max", a, axis, out, keepdims, initial, where)


@implements("nanmin")
def nanmin(a, axis=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
    return _nan_extremum("min", a, axis, out, keepdims, initial, where)


def _valid(a, where):
    x = node_of(a)
    valid = make(Op.NOT, (predicates.isnan(x),))
    if _where(where) is not True:
        valid = make(Op.AND, (valid, ew.as_node(node_of(where), dt.bool_, x.shape)))
    return wrap(valid)


def _too_few(x: Node, axis, ddof) -> bool:
    """Whether the shapes alone leave some slice no more than ``ddof``
    numbers (the nan statistics' warning; all-NaN slices are not looked for)."""
    axes = caxes.normalize_axes(axis, x.ndim)
    kept = math.prod(n for d, n in enumerate(x.shape) if d not in axes)
    return kept > 0 and _count(x, axis) <= ddof


def _nan_stat_input(a, dtype, out) -> Node:
    """``a``'s node, with numpy's TypeError for an inexact ``a`` given a
    dtype or out that is not inexact."""
    x = node_of(a)
    if dt.is_inexact(x.dtype):
        if dtype is not None and as_dtype(dtype).kind not in "fc":
            raise TypeError("If a is inexact, then dtype must be inexact")
        if out is not None and np.dtype(out.dtype).kind not in "fc":
            raise TypeError("If a is inexact, then out must be inexact")
    return x


@implements("nanmean")
def nanmean(a, axis=None, dtype=None, out=None, keepdims=_NV, *, where=_NV):
    x = _nan_stat_input(a, dtype, out)
    if not dt.is_inexact(x.dtype):
        return mean(wrap(x), axis, dtype, out, keepdims, where=where)
    if _too_few(x, axis, 0):
        _warn("Mean of empty slice")
    return mean(wrap(x), axis, dtype, out, keepdims, where=_valid(x, where))


def _nan_spread(a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    """nanvar's (variance node, result dtype): NaN for a slice with no more
    than ddof numbers."""
    x = _nan_stat_input(a, dtype, out)
    if not dt.is_inexact(x.dtype):
        return _spread(x, axis, dtype, ddof, keepdims, where, mean, correction)
    if _too_few(x, axis, _ddof(ddof, correction)):
        _warn("Degrees of freedom <= 0 for slice.")
    return _spread(wrap(_nan_replaced(x, 0)), axis, dtype, ddof, keepdims, _valid(x, where),
                   mean, correction, no_dof=math.nan)


@implements("nanvar")
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NV, *, where=_NV,
           mean=_NV, correction=_NV):
    return _var(*_nan_spread(a, axis, dtype, out, ddof, keepdims, where, mean, correction), out)


@implements("nanstd")
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NV, *, where=_NV,
           mean=_NV, correction=_NV):
    return _std(*_nan_spread(a, axis, dtype, out, ddof, keepdims, where, mean, correction), out)


@implements("nancumsum")
def nancumsum(a, axis=None, dtype=None, out=None):
    return cumsum(wrap(_nan_replaced(a, 0)), axis, dtype, out)


@implements("nancumprod")
def nancumprod(a, axis=None, dtype=None, out=None):
    return cumprod(wrap(_nan_replaced(a, 1)), axis, dtype, out)
