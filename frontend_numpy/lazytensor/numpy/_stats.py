"""median, quantile and percentile with numpy's signatures, q checks and
errors, on the core's order statistics (``composite.statistics``: methods
linear, lower, higher, nearest and midpoint, NaN propagating; numpy's other
estimators run eagerly), for static ``q`` (Python numbers, lists or host
arrays)."""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import reduction as cred
from lazytensor.core.composite import statistics as cstats
from lazytensor.numpy._base import ndarray, node_of
from lazytensor.numpy._dispatch import eager, implements
from lazytensor.numpy._ufuncs import finish as _finish

import numpy as np

_METHODS = ("linear", "midpoint", *cstats.PICKS)


def _quantile(a, q, axis, out, method, keepdims, name: str, weights):
    if method not in _METHODS or weights is not None:  # numpy's other estimators and
        # weighted quantiles (inverted_cdf only; numpy checks the weights): eager, counted
        return eager(f"numpy.{name} (method={method!r}, weights)", getattr(np, name), (a, q),
                     {"axis": axis, "out": out, "method": method, "keepdims": keepdims,
                      "weights": weights})
    scale, what = (100, "Percentiles") if name == "percentile" else (1, "Quantiles")
    qs = np.true_divide(np.asarray(q.__array__() if isinstance(q, ndarray) else q), scale)
    if not np.all((qs >= 0) & (qs <= 1)):  # NaN too
        raise ValueError(f"{what} must be in the range [0, {scale}]")
    x = node_of(a)
    if dt.is_bool(x.dtype):
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    size = math.prod(x.shape[d] for d in cred.normalize_axes(axis, x.ndim))
    if size == 0:
        raise IndexError(f"index -1 is out of bounds for axis 0 with size {size}")
    # an array q is float64; a numpy scalar q is strong (its own dtype), a Python one weak
    strong = qs.ndim or isinstance(q, (np.generic, np.ndarray, ndarray))
    dtype = np.result_type(x.dtype, qs.dtype if not qs.ndim else np.float64) if strong else None
    return _finish(cstats.quantile(x, qs, axis, bool(keepdims), dtype, method), out)


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
