"""median, quantile and percentile with numpy's signatures, q checks and
errors, on the core's order statistics (``composite.reduce.statistics``: methods
linear, lower, higher, nearest and midpoint, NaN propagating; numpy's other
estimators run eagerly), for static ``q`` (Python numbers, lists or host
arrays); and their NaN-skipping forms (nanquantile, nanpercentile,
nanmedian), written in numpy on the lazy arrays: a sort puts the NaNs last
and each slice reads its order statistics below its own count of numbers."""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.reduce import statistics as cstats
from lazytensor.numpy._base import ndarray, node_of, wrap
from lazytensor.numpy._dispatch import eager, implements
from lazytensor.numpy._ufuncs import finish as _finish
from lazytensor.numpy._ufuncs import finish_broadcast

import numpy as np

_METHODS = ("linear", "midpoint", *cstats.PICKS)


def _checked_q(q, name: str) -> np.ndarray:
    """``q`` as host fractions in [0, 1] (numpy's error otherwise)."""
    scale, what = (100, "Percentiles") if name.endswith("percentile") else (1, "Quantiles")
    qs = np.true_divide(np.asarray(q.__array__() if isinstance(q, ndarray) else q), scale)
    if not np.all((qs >= 0) & (qs <= 1)):  # NaN too
        raise ValueError(f"{what} must be in the range [0, {scale}]")
    return qs


def _result_dtype(x_dtype, q, qs: np.ndarray):
    """An array q is float64; a numpy scalar q is strong (its own dtype), a
    Python one weak (None: the data's float dtype)."""
    strong = qs.ndim or isinstance(q, (np.generic, np.ndarray, ndarray))
    return np.result_type(x_dtype, qs.dtype if not qs.ndim else np.float64) if strong else None


def _quantile(a, q, axis, out, method, keepdims, name: str, weights):
    objects = not isinstance(q, ndarray) and np.asarray(q).dtype == object  # Fraction q
    if method not in _METHODS or weights is not None or objects:  # numpy's other estimators,
        # weighted quantiles (inverted_cdf only; numpy checks the weights): eager, counted
        return eager(f"numpy.{name} (method={method!r}, weights)", getattr(np, name), (a, q),
                     {"axis": axis, "out": out, "method": method, "keepdims": keepdims,
                      "weights": weights})
    qs = _checked_q(q, name)
    x = node_of(a)
    if dt.is_complex(x.dtype):
        raise TypeError("a must be an array of real numbers")
    if dt.is_bool(x.dtype):
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    size = math.prod(x.shape[d] for d in caxes.normalize_axes(axis, x.ndim))
    if size == 0:
        raise IndexError(f"index -1 is out of bounds for axis 0 with size {size}")
    dtype = _result_dtype(x.dtype, q, qs)
    return finish_broadcast(cstats.quantile(x, qs, axis, bool(keepdims), dtype, method), out)


@implements("quantile")
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    return _quantile(a, q, axis, out, method, keepdims, "quantile", weights)


@implements("percentile")
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    return _quantile(a, q, axis, out, method, keepdims, "percentile", weights)


@implements("median")
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle element, or the mean of the two middle ones."""
    return _finish(cstats.median(node_of(a), axis, bool(keepdims)), out)


# ------------------------------------------------------------ NaN-skipping forms

def _nan_sorted(a, axis):
    """The reduced axes of float ``a`` merged into a sorted last axis (NaNs
    last), each slice's count of numbers (keepdims) and the reduced axes."""
    flat, axes = cstats.reduced_last(node_of(a), axis)
    ordered = np.sort(wrap(flat), axis=-1)
    return ordered, np.sum(~np.isnan(ordered), axis=-1, keepdims=True), axes


def _at(ordered, index, count):
    """The sorted value at per-slice ``index`` (clipped into the numbers)."""
    index = np.clip(index, 0, np.maximum(count - 1, 0)).astype(np.int64)
    return np.take_along_axis(ordered, index, axis=-1)


def _nan_one_quantile(ordered, count, q: float, method: str, dtype):
    """numpy's quantile of each slice's first ``count`` values: the virtual
    index q * (count - 1), a picked value or numpy's lerp between neighbours."""
    virtual = (count - 1).astype(np.float64) * q
    if method in cstats.PICKS:
        rule = {"lower": np.floor, "higher": np.ceil, "nearest": np.round}[method]
        return _at(ordered, rule(virtual), count)
    below = np.floor(virtual)
    t = virtual - below
    if method == "midpoint":
        t = np.where(t > 0, 0.5, 0.0)
    lo, hi = _at(ordered, below, count), _at(ordered, below + 1, count)
    diff, t = (hi - lo).astype(dtype), t.astype(dtype)
    lo, hi = lo.astype(dtype), hi.astype(dtype)
    return np.where(t >= 0.5, hi - diff * (1 - t), lo + diff * t)


def _nan_finish(picks, count, qs: np.ndarray, shape, axes, keepdims, out):
    """All-NaN slices give NaN; q's axes lead; keepdims keeps size-1 axes."""
    picks = [np.where(count > 0, p, np.nan).astype(p.dtype)[..., 0] for p in picks]
    node = np.stack(picks).reshape(qs.shape + picks[0].shape) if qs.ndim else picks[0]
    if keepdims:
        node = node.reshape(qs.shape + tuple(1 if d in axes else n for d, n in enumerate(shape)))
    return _finish(node_of(node), out)


def _nanquantile(a, q, axis, out, method, keepdims, name: str, weights):
    x = node_of(a)
    if x.dtype.kind != "f":  # no NaN to skip (numpy calls the plain form)
        return _quantile(a, q, axis, out, method, keepdims, name[3:], weights)
    if method not in _METHODS or weights is not None or 0 in x.shape:
        return eager(f"numpy.{name} (method={method!r}, weights, empty)", getattr(np, name),
                     (a, q), {"axis": axis, "out": out, "method": method,
                              "keepdims": keepdims, "weights": weights})
    qs = _checked_q(q, name)
    dtype = _result_dtype(x.dtype, q, qs) or x.dtype
    ordered, count, axes = _nan_sorted(a, axis)
    picks = [_nan_one_quantile(ordered, count, float(v), method, dtype) for v in qs.reshape(-1)]
    return _nan_finish(picks, count, qs, x.shape, axes, keepdims, out)


@implements("nanquantile")
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    return _nanquantile(a, q, axis, out, method, keepdims, "nanquantile", weights)


@implements("nanpercentile")
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    return _nanquantile(a, q, axis, out, method, keepdims, "nanpercentile", weights)


@implements("nanmedian")
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The mean of each slice's two middle numbers, as numpy's median."""
    x = node_of(a)
    if x.dtype.kind != "f":
        return median(a, axis, out, overwrite_input, keepdims)
    if 0 in x.shape:
        return eager("numpy.nanmedian (empty)", np.nanmedian, (a,),
                     {"axis": axis, "out": out, "keepdims": keepdims})
    ordered, count, axes = _nan_sorted(a, axis)
    lo, hi = _at(ordered, (count - 1) // 2, count), _at(ordered, count // 2, count)
    mid = (lo + hi) / 2
    return _nan_finish([mid], count, np.asarray(0.5), x.shape, axes, keepdims, out)
