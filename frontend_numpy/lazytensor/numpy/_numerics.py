"""numpy's numerical routines on the core's shared composites
(``composite.reduce.numerics``, ``composite.linalg.lstsq``): gradient, digitize,
histogram, nanargmax/nanargmin, unravel_index/ravel_multi_index,
polyval/polyfit and numpy.linalg's pinv, matrix_rank, lstsq and cond.

Here live only numpy's signatures, dtype rules and errors. Errors that
depend on the *values* of lazy inputs (an index out of bounds, an all-NaN
slice, non-monotonic lazy ``bins``) cannot be raised lazily; they are
checked when the input is host data (lists, numpy arrays) and documented
where a lazy input gives a sentinel instead. Variants with no lazy mapping
(string ``bins``, complex nanargmax) run eagerly
through the shared fallback (warned and counted).
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings

from lazytensor.core import dtypes as dt
from lazytensor.core import metrics
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.linalg import lstsq as cls
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce import numerics as cnum
from lazytensor.core.composite.reduce import reduction as cred
from lazytensor.core.composite.sets import counting
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.numpy._base import ndarray, node_of, wrap
from lazytensor.numpy._bin_estimators import equal_bins
from lazytensor.numpy._dispatch import NUMPY_DIRS, eager, implements
from lazytensor.numpy._ufuncs import finish

import numpy as np

LinAlgError = np.linalg.LinAlgError
builtins_range = builtins.range
_NV = np._NoValue
_BOOL_SUBTRACT = ("numpy boolean subtract, the `-` operator, is not supported, use the "
                  "bitwise_xor, the `^` operator, or the logical_xor function instead.")


def linalg_implements(*names):
    return implements(*names, namespace=np.linalg)


def _host(value) -> np.ndarray | None:
    """``value`` as a host array when it is host data (not lazy), else None."""
    return None if isinstance(value, ndarray) else np.asarray(value)


# ----------------------------------------------------------------- gradient

@implements("gradient")
def gradient(f, *varargs, axis=None, edge_order=1):
    """numpy.gradient: one array per axis (a tuple for several axes)."""
    x = node_of(f)
    axes = tuple(range(x.ndim)) if axis is None else cs.normalize_axis_tuple(axis, x.ndim)
    if len(varargs) == 0:
        raw = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        raw = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        raw = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    spacing = [cnum.spacing(v._h.node if isinstance(v, ndarray) else v, x.shape[a])
               for v, a in zip(raw, axes, strict=True)]
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if dt.is_bool(x.dtype):
        raise TypeError(_BOOL_SUBTRACT)
    otype = x.dtype if dt.is_inexact(x.dtype) else dt.float64
    nodes = [s for s in spacing if isinstance(s, Node)]
    compute = np.result_type(otype, *(s.dtype for s in nodes)) if nodes else otype
    spacing = [ew.convert(s, compute) if isinstance(s, Node) and s.ndim == 0 else s
               for s in spacing]
    grads = cnum.gradient(ew.convert(x, compute), spacing, axes, 1 if edge_order == 1 else 2)
    out = tuple(wrap(ew.convert(g, otype)) for g in grads)
    return out[0] if len(out) == 1 else out


# ---------------------------------------------------------------- digitize

@implements("digitize")
def digitize(x, bins, right=False):
    """Bin indices (int64); lazy ``bins`` are taken as monotonic (their
    direction is read on device from the end points)."""
    xs, edges = node_of(x), node_of(bins)
    if dt.is_complex(xs.dtype):
        raise TypeError("x may not be complex")
    if edges.ndim != 1:
        raise ValueError("object too deep for desired array" if edges.ndim else
                         "object of too small depth for desired array")
    host = _host(bins)
    if host is not None and host.size > 1:
        ahead, behind = host[1:], host[:-1]  # compared, not np.diff: that wraps unsigned
        if not ((ahead >= behind).all() or (ahead <= behind).all()):
            raise ValueError("bins must be monotonically increasing or decreasing")
    dtype = np.result_type(xs.dtype, edges.dtype)
    return wrap(cnum.digitize(ew.convert(xs, dtype), ew.convert(edges, dtype), bool(right)))


# --------------------------------------------------------------- histogram

def _equal_edges(x: Node, bins, range_) -> Node:
    try:
        n = operator.index(bins)
    except TypeError:
        raise TypeError("`bins` must be an integer, a string, or an array") from None
    return cnum.histogram_edges(x, n, range_)


def _given_edges(bins) -> Node:
    edges = node_of(bins)
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    host = _host(bins)
    if host is not None and (host[1:] < host[:-1]).any():  # not np.diff: it wraps unsigned
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges


def _histogram_input(a, weights) -> tuple[Node, Node | None]:
    x = node_of(a)
    w = None if weights is None else node_of(weights)
    if w is not None and w.shape != x.shape:
        raise ValueError("weights should have the same shape as a.")
    if dt.is_bool(x.dtype):
        warnings.warn("Converting input from bool to <class 'numpy.uint8'> for compatibility.",
                      RuntimeWarning, stacklevel=metrics.user_stacklevel(NUMPY_DIRS))
        x = ew.convert(x, dt.uint8)
    return cs.ravel(x), None if w is None else cs.ravel(w)


@implements("histogram")
def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002 (numpy's name)
    """(counts, edges) for integer, string (numpy's estimators, one read of
    the width: ``_bin_estimators``) or array ``bins``. Lazy array ``bins``
    are taken as increasing. An automatic range of non-finite data gives
    NaN edges (numpy raises)."""
    if isinstance(bins, str):
        found = None if weights is not None else equal_bins(wrap(node_of(a)), bins, range)
        if found is None:  # "stone", weights (numpy's TypeError), an unknown name
            return eager("numpy.histogram", np.histogram, (a, bins, range, density, weights),
                         {})
        bins, range = found  # noqa: A001
    x, w = _histogram_input(a, weights)
    uniform = not isinstance(bins, ndarray) and np.ndim(bins) == 0
    edges = _equal_edges(x, bins, range) if uniform else _given_edges(bins)
    dtype = np.result_type(x.dtype, edges.dtype)
    counts = cnum.histogram(ew.convert(x, dtype), ew.convert(edges, dtype), w, uniform)
    if density:
        counts = cnum.histogram_density(counts, edges)
    return wrap(counts), wrap(edges)


@implements("histogram_bin_edges")
def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002 (numpy's name)
    """histogram's edges alone (string bins as histogram's; an automatic
    range of non-finite data gives NaN edges, as histogram's)."""
    if isinstance(bins, str):
        found = None if weights is not None else equal_bins(wrap(node_of(a)), bins, range)
        if found is None:
            return eager("numpy.histogram_bin_edges", np.histogram_bin_edges,
                         (a, bins, range, weights), {})
        bins, range = found  # noqa: A001
    x, _ = _histogram_input(a, weights)
    uniform = not isinstance(bins, ndarray) and np.ndim(bins) == 0
    return wrap(_equal_edges(x, bins, range) if uniform else _given_edges(bins))


def _dd_sample(sample) -> Node:
    """histogramdd's (N, D) sample: an (N, D) array as is, else the rows of
    ``atleast_2d(sample)`` as the D columns (in their common dtype)."""
    if isinstance(sample, (ndarray, np.ndarray)) and sample.ndim == 2:
        return node_of(sample)
    if isinstance(sample, (list, tuple)) and any(isinstance(s, ndarray) for s in sample):
        columns = [cs.atleast_1d(node_of(s)) for s in sample]
        dtype = np.result_type(*(c.dtype for c in columns))
        return cs.stack([ew.convert(c, dtype) for c in columns], 1)
    return cs.transpose(cs.atleast_2d(node_of(sample)))


def _dd_edges(column: Node, bins, range_, i: int) -> Node:
    """One axis's edges: ``bins`` equal steps over ``range_`` (host numbers)
    or the column's min/max (on device), or the given increasing edges."""
    if np.ndim(bins) == 1:
        host = _host(bins)
        if host is not None and (host[:-1] > host[1:]).any():
            raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
        return node_of(bins)
    if np.ndim(bins) != 0:
        raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
    if bins < 1:
        raise ValueError(f"`bins[{i}]` must be positive, when an integer")
    try:
        n = operator.index(bins)
    except TypeError:
        raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from None
    if range_ is None and column.shape[0]:  # the data's own min/max, as histogram's
        return cnum.histogram_edges(column, n, None)
    return node_of(np.linspace(*cnum.host_range(range_), n + 1))  # float64, as numpy's


@implements("histogramdd")
def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """numpy.histogramdd for integer or array ``bins`` (string bins run
    eagerly): each sample's bin along each axis by a search of the edges,
    one flat bin index, and a scatter-add of known length. Lazy array
    ``bins`` are taken as increasing; an automatic range of non-finite data
    gives NaN edges (numpy raises)."""
    if isinstance(bins, str) or (isinstance(bins, (list, tuple))
                                 and any(isinstance(b, str) for b in bins)):
        return eager("numpy.histogramdd", np.histogramdd, (sample, bins, range, density,
                                                             weights), {})
    x = _dd_sample(sample)
    n, d = x.shape
    try:
        if len(bins) != d:
            raise ValueError("The dimension of bins must be equal to the dimension of the "
                             "sample x.")
    except TypeError:
        bins = d * [bins]
    if range is None:
        range = (None,) * d  # noqa: A001
    elif len(range) != d:
        raise ValueError("range argument must have one entry per dimension")
    columns = [cs.reshape(cs.slice_axis(x, 1, i, i + 1), (n,)) for i in builtins_range(d)]
    edges = [_dd_edges(columns[i], bins[i], range[i], i) for i in builtins_range(d)]
    nbin = [e.shape[0] + 1 for e in edges]  # an outlier bin at each end
    flat = None
    for column, edge, size in zip(columns, edges, nbin, strict=True):
        e, c = wrap(edge), wrap(column)
        index = np.searchsorted(e, c, side="right")
        index = index - (c == e[-1]).astype(index.dtype)  # the last edge closes its bin
        flat = index if flat is None else flat * size + index
    w = None if weights is None else ew.as_node(node_of(weights), dt.float64, (n,))
    counts = counting.bincount(node_of(flat) if n else ew.full((0,), 0, dt.int64),
                                math.prod(nbin), w)
    hist = wrap(ew.convert(cs.reshape(counts, tuple(nbin)), dt.float64))
    hist = hist[(slice(1, -1),) * d]
    if density:
        total = hist.sum()
        for i, edge in enumerate(edges):
            shape = [1] * d
            shape[i] = nbin[i] - 2
            hist = hist / np.diff(wrap(edge)).reshape(shape)
        hist = hist / total
    return hist, [wrap(e) for e in edges]


@implements("histogram2d")
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """histogramdd of the two columns (x, y), as numpy's."""
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):
        bins = [bins, bins]
    if len(x) != len(y):
        raise ValueError("x and y must have the same length.")
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


# ------------------------------------------------------------ nanargmax/min

def _nan_arg(kind: str, a, axis, out, keepdims):
    x = node_of(a)
    if dt.is_complex(x.dtype):
        func = np.nanargmax if kind == "argmax" else np.nanargmin
        kwargs = {"out": out} if keepdims is _NV else {"out": out, "keepdims": keepdims}
        return eager(f"numpy.nan{kind}", func, (a, axis), kwargs)  # out= reaches a lazy out
    keep = False if keepdims is _NV else bool(keepdims)
    return finish(cnum.nan_argreduce(kind, x, None if axis is None else int(axis), keep), out)


@implements("nanargmax")
def nanargmax(a, axis=None, out=None, *, keepdims=_NV):
    """argmax ignoring NaN; an all-NaN slice gives -1 for lazy input
    (numpy raises ValueError: that depends on the data)."""
    return _nan_arg("argmax", a, axis, out, keepdims)


@implements("nanargmin")
def nanargmin(a, axis=None, out=None, *, keepdims=_NV):
    """argmin ignoring NaN; an all-NaN slice gives -1 (see nanargmax)."""
    return _nan_arg("argmin", a, axis, out, keepdims)


# ---------------------------------------------------------- index conversion

def _order(order: str) -> str:
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    return order


_INTP_MAX = np.iinfo(np.intp).max


def _int_index(value) -> Node:
    if isinstance(value, (list, tuple)) and np.asarray(value).size == 0 \
            and np.asarray(value).dtype.kind == "f":
        raise TypeError("indices must be integral: the provided empty sequence was inferred "
                        "as float. Wrap it with 'np.array(indices, dtype=np.intp)'")
    node = node_of(value)
    if not (dt.is_int(node.dtype) or dt.is_bool(node.dtype)):
        raise TypeError("only int indices permitted")
    return ew.convert(node, dt.int64)


@implements("unravel_index")
def unravel_index(indices, shape, order="C"):
    """Coordinate arrays of flat indices; out-of-bounds lazy indices give
    unspecified coordinates (host indices raise numpy's ValueError)."""
    dims = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(shape)
    idx = _int_index(indices)
    size = math.prod(dims)
    if size > _INTP_MAX:
        raise ValueError("dimensions are too large; arrays and shapes with a total size "
                         "greater than 'intp' are not supported.")
    if size == 0 and math.prod(idx.shape):  # every index is out of bounds, whatever its value
        raise ValueError("index is out of bounds for array with size 0")
    host = _host(indices)
    if host is not None and host.size:
        bad = host[(host < 0) | (host >= size)]
        if bad.size:
            raise ValueError(f"index {bad.flat[0]} is out of bounds for array with size {size}")
    if not dims and idx.ndim:
        raise ValueError("multiple indices are not supported for 0d arrays")
    return tuple(wrap(c) for c in cnum.unravel_index(idx, dims, _order(order)))


@implements("ravel_multi_index")
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices of coordinate arrays ('raise' checks host coordinates)."""
    dims = (operator.index(dims),) if np.ndim(dims) == 0 else tuple(dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    for m in modes:
        if m not in ("raise", "wrap", "clip"):
            raise ValueError(f"clipmode not understood: {m!r}")
    coords = [_int_index(c) for c in multi_index]
    if math.prod(dims) > _INTP_MAX:
        raise ValueError("invalid dims: array size defined by dims is larger than the maximum "
                         "possible size.")
    for c, size, m in zip(multi_index, dims, modes, strict=True):
        host = _host(c)
        if m == "raise" and host is not None and ((host < 0) | (host >= size)).any():
            raise ValueError("invalid entry in coordinates array")
    shape = ew.broadcast_shapes(*(c.shape for c in coords))
    if 0 in dims and math.prod(shape):  # no coordinate fits an empty axis, in any mode
        raise ValueError("cannot unravel if shape has zero entries (is empty).")
    coords = [ew.broadcast_to(c, shape) for c in coords]
    return wrap(cnum.ravel_multi_index(coords, dims, modes, _order(order)))


# --------------------------------------------------------------- polynomials

@implements("polyval")
def polyval(p, x):
    """Horner's rule from 0, in numpy's result dtype of x and p."""
    pn, xn = node_of(p), node_of(x)
    if pn.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    dtype = np.result_type(xn.dtype, pn.dtype) if pn.shape[0] else xn.dtype
    return wrap(cnum.polyval(ew.convert(pn, dtype), ew.convert(xn, dtype)))


def _poly_inputs(x, y, deg, w) -> tuple[Node, Node, Node | None]:
    xs, ys = node_of(x), node_of(y)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if xs.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if xs.shape[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if ys.ndim < 1 or ys.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if xs.shape[0] != ys.shape[0]:
        raise TypeError("expected x and y to have same length")
    ws = None if w is None else node_of(w)
    if ws is not None and ws.ndim != 1:
        raise TypeError("expected a 1-d array for weights")
    if ws is not None and ws.shape[0] != ys.shape[0]:
        raise TypeError("expected w and y to have the same length")
    return xs, ys, ws


@implements("polyfit")
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares fit on the core's SVD; complex data run eagerly.
    numpy's RankWarning (it depends on the data) is not issued."""
    deg = operator.index(deg)
    xs, ys, ws = _poly_inputs(x, y, deg, w)
    if any(dt.is_complex(n.dtype) for n in (xs, ys)):
        return eager("numpy.polyfit", np.polyfit, (x, y, deg, rcond, full, w, cov), {})
    xtype = np.result_type(xs.dtype, np.float64) if not dt.is_inexact(xs.dtype) else xs.dtype
    # numpy.vander promotes x with int64: float32 data is fitted in float64
    dtype = np.result_type(np.promote_types(xtype, np.int64),
                           ys.dtype if dt.is_inexact(ys.dtype) else np.float64)
    if rcond is None:
        rcond = xs.shape[0] * cls.eps(xtype)
    fit = cls.polyfit(ew.convert(xs, dtype), ew.convert(ys, dtype), deg, float(rcond),
                      None if ws is None else ew.convert(ws, dtype))
    if cov and not full:
        return wrap(fit.x), _polyfit_cov(fit, xs, ys, ws, deg, dtype, cov)
    if not full:
        return wrap(fit.x)
    c, rank, s = wrap(fit.x), wrap(fit.rank), wrap(fit.s)
    resids = _residuals(fit, xs.shape[0], deg + 1, rank)
    return c, resids, rank, s, rcond


def _polyfit_cov(fit, xs, ys, ws, deg, dtype, cov) -> ndarray:
    """numpy.polyfit's coefficient covariance, scaled by the residual sum of
    squares over len(x) - order unless ``cov == "unscaled"``; a (order,
    order, k) stack for a 2-d y."""
    base = wrap(cls.polyfit_cov(ew.convert(xs, dtype), deg,
                                None if ws is None else ew.convert(ws, dtype)))
    if ys.ndim == 2:
        base = base[:, :, None]
    if cov == "unscaled":
        return base
    m = xs.shape[0]
    if m <= deg + 1:
        raise ValueError("the number of data points must exceed order to scale the "
                         "covariance matrix")
    return base * (_residuals(fit, m, deg + 1, wrap(fit.rank)) / (m - deg - 1))


# ------------------------------------------------------------------- linalg

def lapack_dtypes(*nodes: Node) -> None:
    """numpy's LAPACK routines take no float16 (numpy raises TypeError; XLA's
    would fail only when the graph compiles, taking the rest of it along)."""
    for node in nodes:
        if node.dtype == np.float16:
            raise TypeError("array type float16 is unsupported in linalg")


def _float_matrix(a) -> Node:
    """``a`` as a floating (..., n, m) matrix stack (ints become float64)."""
    x = node_of(a)
    if x.ndim < 2:
        raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    lapack_dtypes(x)
    return ew.float_or_float64(x)


@linalg_implements("pinv")
def pinv(a, rcond=None, hermitian=False, *, rtol=_NV):
    """The pseudo-inverse by SVD (``hermitian`` only selects LAPACK's
    routine in numpy; the SVD serves both)."""
    given = node_of(a)
    x = _float_matrix(given)
    if rcond is None:  # (numpy takes eps of the input's dtype: integers raise ValueError)
        rcond = 1e-15 if rtol is _NV else (
            max(x.shape[-2:]) * float(np.finfo(given.dtype).eps) if rtol is None else rtol)
    elif rtol is not _NV:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    tol = rcond if np.ndim(rcond) == 0 and not isinstance(rcond, ndarray) else node_of(rcond)
    return wrap(cls.pinv(x, float(tol) if not isinstance(tol, Node) else tol))


@linalg_implements("matrix_rank")
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):  # noqa: N803 (numpy's name)
    """The number of singular values above the tolerance (int64); for
    fewer than 2 dims, whether any element is nonzero (0-d)."""
    if tol is not None and rtol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    x = node_of(A)
    if x.ndim < 2:
        nonzero = cred.reduce("any", make(Op.NE, (x, ew.full(x.shape, 0, x.dtype))))
        return wrap(ew.convert(nonzero, dt.int64))
    x = _float_matrix(x)
    if 0 in x.shape[-2:]:  # no singular values: rank 0
        return wrap(ew.full(x.shape[:-2], 0, dt.int64))
    if tol is not None:
        return wrap(cls.matrix_rank(x, None, node_of(tol)))
    return wrap(cls.matrix_rank(x, None if rtol is None else node_of(rtol)))


def _residuals(fit: cls.Lstsq, m: int, n: int, rank) -> ndarray:
    """numpy's residuals: the sums of squares when rank == n < m, else empty
    (the rank is read back: it decides the shape)."""
    real = fit.residuals.dtype
    if m <= n or int(rank) < n:
        return wrap(ew.full((0,), 0, real))
    return wrap(fit.residuals)


@linalg_implements("lstsq")
def lstsq(a, b, rcond=None):
    """(x, residuals, rank, s). ``rank`` is a lazy 0-d int32; when m > n it
    is materialized, because it decides the residuals' shape."""
    x, rhs = node_of(a), node_of(b)
    for arr in (x, rhs):
        if arr.ndim != 2 and not (arr is rhs and arr.ndim == 1):
            raise LinAlgError(f"{arr.ndim}-dimensional array given. Array must be "
                              "two-dimensional")
    lapack_dtypes(x, rhs)
    vector = rhs.ndim == 1
    if vector:
        rhs = cs.reshape(rhs, rhs.shape + (1,))
    (m, n), (m2, _) = x.shape, rhs.shape
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    dtype = np.result_type(x.dtype, rhs.dtype, np.float64 if not (
        dt.is_inexact(x.dtype) or dt.is_inexact(rhs.dtype)) else x.dtype)
    if 0 in (m, n):  # (empty problems: numpy's LAPACK special cases)
        return eager("numpy.linalg.lstsq", np.linalg.lstsq, (a, b, rcond), {})
    if rcond is None or rcond < 0:
        rcond = cls.eps(dtype) * max(m, n) if rcond is None else cls.eps(dtype)
    fit = cls.lstsq(ew.convert(x, dtype), ew.convert(rhs, dtype), float(rcond))
    sol = wrap(cs.reshape(fit.x, (n,)) if vector else fit.x)
    rank, s = wrap(fit.rank), wrap(fit.s)
    return sol, _residuals(fit, m, n, rank), rank, s


@linalg_implements("cond")
def cond(x, p=None):
    """The condition number (real); inf for a singular matrix."""
    node = _float_matrix(x)
    if 0 in node.shape[-2:]:
        raise LinAlgError("cond is not defined on empty arrays")
    if p not in (None, 2, -2) and node.shape[-1] != node.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return wrap(cls.cond(node, p))
