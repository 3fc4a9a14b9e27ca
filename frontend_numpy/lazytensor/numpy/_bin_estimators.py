"""String ``bins`` of ``np.histogram`` / ``np.histogram_bin_edges``
("auto", "fd", "sturges", "scott", "rice", "sqrt"): the number of
equal bins that numpy's estimator picks, with the data kept lazy.

numpy's own estimator functions are called on the lazy data (the numpy
functions inside them, ptp/percentile/std, record lazily) and only the
resulting bin width and the data's outer edges are read to the host; the
count is then ceil(range / width) (at least a width of 1 for integer data,
one bin for a zero width or no data), as numpy documents it. "stone"
and "doane" (see ``LAZY``), weighted data (numpy raises) and a numpy
without these helpers go to numpy's own function, eagerly.
"""

from __future__ import annotations

from lazytensor.numpy._base import ndarray

import numpy as np

_IMPL = getattr(np.lib, "_histograms_impl", None)
_SELECTORS = getattr(_IMPL, "_hist_bin_selectors", {})
_OUTER_EDGES = getattr(_IMPL, "_get_outer_edges", None)
# estimators computed lazily: not "stone" (a histogram per candidate count),
# nor "doane", whose skewness term of symmetric data (np.arange) is 0 give or
# take the summation order's last bit, which can move ceil(range / width) by one
LAZY = (frozenset(_SELECTORS) - {"stone", "doane"}
        if _OUTER_EDGES is not None and hasattr(_IMPL, "_unsigned_subtract") else frozenset())


def equal_bins(a: ndarray, name: str, range_) -> tuple[int, tuple[float, float]] | None:
    """(bin count, (first edge, last edge)) of estimator ``name`` for the
    lazy ``a`` (raveled; bools as uint8), or None where numpy's own function
    must run (an estimator not in ``LAZY``)."""
    if name not in LAZY:
        return None
    x = a.ravel()
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    first, last = (_host_scalar(e) for e in _OUTER_EDGES(x, range_))
    edges = (float(first), float(last))
    if range_ is not None:
        x = x[(x >= first) & (x <= last)]
    if x.size == 0:
        return 1, edges
    width = _host_scalar(_SELECTORS[name](x, (first, last)))
    if not width:
        return 1, edges
    if np.issubdtype(x.dtype, np.integer) and width < 1:
        width = 1
    # the span in the edges' own dtype (float32 data: a float32 span), as numpy's
    return int(np.ceil(_IMPL._unsigned_subtract(last, first) / width)), edges


def _host_scalar(value):
    """A lazy 0-d value read as the numpy scalar it stands for."""
    return np.asarray(value)[()] if isinstance(value, ndarray) else value
