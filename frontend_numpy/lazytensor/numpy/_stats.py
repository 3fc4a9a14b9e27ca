"""median, quantile and percentile with numpy's signatures, q checks and
errors, on the core's order statistics (``composite.reduce.statistics``: methods
linear, lower, higher, nearest and midpoint, NaN propagating; numpy's other
estimators run eagerly), for static ``q`` (Python numbers, lists or host
arrays); and their NaN-skipping forms (nanquantile, nanpercentile,
nanmedian, the core's ``nan_quantile``/``nan_median``)."""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.reduce import statistics as cstats
from lazytensor.numpy._base import ndarray, node_of
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
    return _finish(cstats.nan_quantile(x, qs, axis, bool(keepdims), dtype, method), out)


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
    return _finish(cstats.nan_median(x, axis, bool(keepdims)), out)
