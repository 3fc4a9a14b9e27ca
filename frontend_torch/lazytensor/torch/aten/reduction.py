"""Reductions, arg-reductions, scans, sorting and norms, with torch's
argument conventions (``dim`` lists, ``keepdim``, ``dtype``, ``correction``)
and result dtypes (integer sums are int64, mean needs a float input).
The math is ``lazytensor.core.composite.reduce.reduction``."""

from __future__ import annotations

import math

import numpy as np
from lazytensor.core import Node, Op, data_lengths, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import as_node, convert
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.reduce import numerics
from lazytensor.core.composite.reduce import reduction as R
from lazytensor.core.composite.reduce.accumulate import (
    accumulated,
    cumulative,
    histc,
    kth_smallest,
    median_along,
    running_extreme,
    vector_norm,
)
from lazytensor.core.composite.sets import counting
from lazytensor.core.composite.sorting import sort as sorting
from lazytensor.torch._fallback import eager
from lazytensor.torch._tensor import scalar_type_name, wrap
from lazytensor.torch.aten import masked_reads
from lazytensor.torch.aten._common import aten, dims, node, np_dtype, opmath
from lazytensor.torch.aten._common import dim as _dim

import torch
from torch._decomp import decomposition_table

INDEX = dt.int64

# (op, dtype, shape, arguments) whose torch kernel accepted a bool or complex input
_ACCEPTED: set = set()


def _probed(op, impl):
    """``impl``, after torch's own ``op`` ran on a CPU stand-in (zeros of the
    input's shape and dtype) of a bool or complex input: torch has no such
    kernel for many of these ops (argmax, topk or median of bools; max, sort
    or cummax of complex numbers) and raises its error, where the core would
    compute an answer. An accepted signature is remembered."""
    def probed(x, *args, **kwargs):
        if x.dtype is torch.bool or x.is_complex():
            key = (op, x.dtype, tuple(x.shape), repr(args), repr(kwargs))
            if key not in _ACCEPTED:
                op(torch.zeros(x.shape, dtype=x.dtype), *args, **kwargs)
                _ACCEPTED.add(key)
        return impl(x, *args, **kwargs)

    return probed


def _sum_dtype(x: Node, dtype) -> np.dtype:
    if dtype is not None:
        return np_dtype(dtype)
    return dt.int64 if (dt.is_int(x.dtype) or dt.is_bool(x.dtype)) else x.dtype


# sum/prod accumulated in bool (dtype=torch.bool) are any/all (XLA has no
# bool add or multiply)
_BOOL_KIND = {"sum": "any", "prod": "all"}


def _accumulate(kind: str):
    """sum/prod: integer and bool inputs accumulate in int64 (torch's rule)."""
    def impl(x, dim=None, keepdim=False, *, dtype=None, mask=None):  # noqa: A002
        n = node(x)
        axes = dims(dim, n.ndim)
        target = _sum_dtype(n, dtype)
        how = _BOOL_KIND[kind] if target == dt.bool_ else kind
        if mask is not None:  # (masked_reads: the source of a masked read)
            return wrap(accumulated(lambda v: R.reduce_where(how, v, axes, keepdim, mask),
                                    n, target))
        return wrap(accumulated(lambda v: R.reduce(how, v, axes, keepdim), n, target))

    return impl


def _mean(x, dim=None, keepdim=False, *, dtype=None, mask=None):  # noqa: A002
    n = node(x)
    target = np_dtype(dtype, n.dtype)
    if not dt.is_inexact(target):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {scalar_type_name(target)}"
        )
    axes = dims(dim, n.ndim)
    if mask is not None:  # (masked_reads: the source of a masked read)
        return wrap(accumulated(lambda v: R.masked_mean(v, mask, axes, keepdim), n, target))
    return wrap(accumulated(lambda v: R.mean(v, axes, keepdim), n, target))


def _extreme(kind: str, name: str):
    def impl(x, dim=(), keepdim=False):  # noqa: A002
        n = node(x)
        axes = dims(dim, n.ndim)
        empty = [a for a in axes if n.shape[a] == 0]
        if empty and dim not in (None, (), []):  # torch: IndexError only for named dims,
            named = [dim] if isinstance(dim, int) else list(dim)  # named as given
            first = next(d for d in named if n.shape[d % n.ndim] == 0)
            raise IndexError(f"{name}(): Expected reduction dim {first} to have non-zero size.")
        if empty or (n.ndim and not n.shape[0] and not axes):
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        return wrap(R.reduce(kind, n, axes, keepdim))

    return impl


def _arg(kind: str):
    def impl(x, dim=None, keepdim=False):  # noqa: A002
        n = node(x)
        if n.ndim == 0:
            return wrap(as_node(0, INDEX, (1,) * 0))
        axis = None if dim is None else _dim(dim, n.ndim)
        if n.shape and axis is None and math.prod(n.shape) == 0:
            raise IndexError(f"{kind}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        if n.shape and axis is not None and n.shape[axis] == 0:
            raise IndexError(f"{kind}(): Expected reduction dim {axis} to have non-zero size.")
        return wrap(R.argreduce(kind, n, axis, keepdim, INDEX))

    return impl


def _max_dim(kind: str):
    def impl(x, dim, keepdim=False):  # noqa: A002
        n = node(x)
        d = _dim(dim, n.ndim)
        if n.ndim == 0:
            return wrap(n), wrap(as_node(0, INDEX, ()))
        if n.shape[d] == 0:
            raise IndexError(f"{kind}(): Expected reduction dim {d} to have non-zero size.")
        values = R.reduce(kind, n, (d,), keepdim)
        indices = R.argreduce("argmax" if kind == "max" else "argmin", n, d, keepdim, INDEX)
        return wrap(values), wrap(indices)

    return impl


def _logical_reduce(kind: str):
    def impl(x, dim=None, keepdim=False):  # noqa: A002
        n = node(x)
        out = R.reduce(kind, n, dims(dim, n.ndim), keepdim)
        return wrap(convert(out, dt.uint8) if n.dtype == dt.uint8 else out)

    return impl


def _var_like(sqrt: bool, with_mean: bool):
    def impl(x, dim=None, *, correction=None, keepdim=False):  # noqa: A002
        n = node(x)
        axes = dims(dim, n.ndim)
        ddof = 1 if correction is None else correction
        if not dt.is_inexact(n.dtype):
            raise RuntimeError("std and var only support floating point and complex dtypes")
        v = accumulated(lambda f: R.var(f, axes, keepdim, ddof), n, n.dtype)
        if dt.is_complex(n.dtype):
            v = make(Op.REAL, (v,)) if dt.is_complex(v.dtype) else v
        out = make(Op.SQRT, (v,)) if sqrt else v
        if not with_mean:
            return wrap(out)
        return wrap(out), wrap(accumulated(lambda f: R.mean(f, axes, keepdim), n, n.dtype))

    return impl


def _logsumexp(x, dim, keepdim=False):  # noqa: A002
    n = node(x)
    if not dt.is_inexact(n.dtype):
        n = convert(n, dt.float32)
    return wrap(R.logsumexp(n, dims(dim, n.ndim), keepdim))


_SCAN_NAMES = {Op.CUMSUM: "cumsum", Op.CUMPROD: "cumprod", Op.CUMLOGSUMEXP: "logcumsumexp"}


def _scan(op: Op):
    def impl(x, dim, *, dtype=None):  # noqa: A002
        n = node(x)
        target = _sum_dtype(n, dtype) if op in (Op.CUMSUM, Op.CUMPROD) else n.dtype
        if (target == dt.bool_ and n.ndim) or (op is Op.CUMLOGSUMEXP and
                                                not dt.is_inexact(target)):
            raise NotImplementedError(  # (torch has no such kernel; XLA neither)
                f"\"{_SCAN_NAMES[op]}_out_cpu\" not implemented for '{scalar_type_name(target)}'")
        if n.ndim == 0:
            return wrap(convert(n, target))
        d = _dim(dim, n.ndim)
        return wrap(accumulated(lambda v: cumulative(v, op, d), n, target))

    return impl


def _cum_extreme(kind: str):
    """cummax/cummin: values and the index of the last extreme seen so far."""
    def impl(x, dim):  # noqa: A002
        n = node(x)
        if n.ndim == 0:
            return wrap(n), wrap(as_node(0, INDEX, ()))
        values, indices = running_extreme(convert(n, dt.uint8) if dt.is_bool(n.dtype) else n,
                                          _dim(dim, n.ndim), kind)
        return wrap(convert(values, n.dtype)), wrap(indices)

    return impl


def _vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    n = node(x)
    if dtype is not None:
        n = convert(n, np_dtype(dtype))
    if not dt.is_inexact(n.dtype):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {scalar_type_name(n.dtype)}")
    return wrap(vector_norm(n, float(ord), dims(dim, n.ndim), keepdim))


def _count_nonzero(x, dim=None):  # noqa: A002
    n = node(x)
    return wrap(R.count_nonzero(n, dims(dim, n.ndim)))


def _sort(x, dim=-1, descending=False, *, stable=False):  # noqa: A002
    n = node(x)
    if n.ndim == 0:
        return wrap(n), wrap(as_node(0, INDEX, ()))
    d = _dim(dim, n.ndim)
    return wrap(sorting.sort(n, d, descending)), wrap(sorting.argsort(n, d, descending, INDEX))


def _topk(x, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    n = node(x)
    d = _dim(dim, n.ndim)
    if not 0 <= k <= (n.shape[d] if n.ndim else 1):
        raise RuntimeError("selected index k out of range")
    if n.ndim == 0:
        return _sort(x)
    values, indices = sorting.top_k(n, k, d, largest, INDEX)
    return wrap(values), wrap(indices)


# ------------------------------------------------- order statistics by sorting
def _along(x, d, what: str = "median"):
    """x's node (a 0-d tensor as 1-d), the dim, and whether it was 0-d;
    an empty dim raises torch's IndexError for ``what``."""
    n = node(x)
    flat = n.ndim == 0
    if flat:
        n = make(Op.RESHAPE, (n,), (1,))
    d = _dim(d, n.ndim)
    if n.shape[d] == 0:
        raise IndexError(f"{what}(): Expected reduction dim {d} to have non-zero size.")
    return n, d, flat


def _scalar_if(flat: bool, v: Node, i: Node):
    if flat:
        v, i = make(Op.RESHAPE, (v,), ()), make(Op.RESHAPE, (i,), ())
    return wrap(v), wrap(i)


def _median_dim(ignore_nan: bool):
    def impl(x, d, keepdim=False):
        n, d, flat = _along(x, d)
        return _scalar_if(flat, *median_along(n, d, keepdim or flat, ignore_nan))

    return impl


def _median_all(ignore_nan: bool):
    def impl(x):
        n = node(x)
        if n.ndim == 0 or math.prod(n.shape) == 0:
            if not n.ndim:
                return wrap(n)
            return wrap(as_node(math.nan, n.dtype, ()))
        flat = make(Op.RESHAPE, (n,), (math.prod(n.shape),))
        return wrap(median_along(flat, 0, False, ignore_nan)[0])

    return impl


def _kthvalue(x, k, d=-1, keepdim=False):
    n, d, flat = _along(x, d, "kthvalue")
    if not 1 <= k <= n.shape[d]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _scalar_if(flat, *kth_smallest(n, k - 1, d, keepdim or flat))


def _mode(x, d=-1, keepdim=False):
    """torch.mode: the core's ``mode`` (the smallest most frequent value,
    its last index) after torch's checks."""
    if dt.is_complex(node(x).dtype):
        raise NotImplementedError(f"\"mode_cpu\" not implemented for "
                                  f"'{scalar_type_name(node(x).dtype)}'")
    n, d, flat = _along(x, d, "mode")
    values, indices = sorting.mode(n, d, INDEX)
    if keepdim and not flat:
        values, indices = (caxes.keep_dims(v, n.shape, (d,)) for v in (values, indices))
    return _scalar_if(flat, values, indices)


def _histc(x, bins=100, min=0, max=0):  # noqa: A002
    """torch.histc: the core's ``histc`` (``bins`` equal bins over [min,
    max], the data's range when min == max), after torch's checks."""
    n = node(x)
    if not dt.is_float(n.dtype):
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{scalar_type_name(n.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    lo_v, hi_v = float(min), float(max)
    if lo_v > hi_v:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(lo_v) and math.isfinite(hi_v)):
        raise RuntimeError(f"torch.histc: range of [{min}, {max}] is not finite")
    return wrap(histc(n, bins, lo_v, hi_v))


def _bincount(x, weights=None, minlength=0):
    """torch.bincount, lazily. The length is known without the data for
    positions along an axis no longer than ``minlength`` (the index of the
    nearest code, ``bincount(d.argmin(1), minlength=k)``); otherwise
    (a confusion matrix's ``bincount(y * k + pred)``) the data's min and max
    are read, one barrier, and the counting stays on the device. Inputs
    torch rejects, and empty ones, run eagerly (torch's errors)."""
    n = node(x)
    odd_weights = weights is not None and (weights.shape != x.shape or weights.is_complex())
    if n.ndim != 1 or not dt.is_int(n.dtype) or not x.numel() or minlength < 0 or odd_weights:
        return eager(aten.bincount.default)(x, weights, minlength)
    minlength, smallest = data_lengths.bincount_length(n, minlength)
    if smallest < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return wrap(counting.bincount(n, minlength))
    w = node(weights)  # torch sums float32 weights in float32, all others in float64
    return wrap(counting.bincount(n, minlength, convert(w, w.dtype if w.dtype == dt.float32
                                                         else dt.float64)))


def _histogram(x, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """torch.histogram of the flattened input: the core's numpy histogram
    (half-open bins, the last closed, values outside and NaN dropped) over
    torch's edges. An int ``bins`` without ``range`` reads the data's min
    and max (a barrier, as torch's own kernel needs them; equal ends widen
    by 0.5) and makes the edges with torch.linspace, as torch does. torch's
    errors come from its own op on one-element stand-ins."""
    standin = torch.zeros(bins.shape, dtype=bins.dtype) if isinstance(bins, torch.Tensor) \
        else bins
    extra = {} if range is None else {"range": range}
    torch.histogram(torch.zeros(1, dtype=x.dtype), standin, density=density,
                    weight=None if weight is None else torch.zeros(1, dtype=weight.dtype),
                    **extra)
    if weight is not None and weight.numel() != x.numel():
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            f"the input tensor excluding its innermost dimension, but got input with shape "
            f"{[x.numel(), 1]} and weight with shape {list(weight.shape)}")
    n = node(x)
    flat = make(Op.RESHAPE, (n,), (math.prod(n.shape),))
    if isinstance(bins, torch.Tensor):
        edges = node(bins)
    else:
        lo, hi = range if range is not None else (
            (x.min().item(), x.max().item()) if x.numel() else (0.0, 1.0))
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not "
                               "finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = node(torch.linspace(lo, hi, bins + 1, dtype=x.dtype).to(x.device))
    weights = None if weight is None else make(Op.RESHAPE, (node(weight),), flat.shape)
    hist = numerics.histogram(flat, edges, weights)
    if density:
        hist = numerics.histogram_density(hist, edges)
    return wrap(convert(hist, n.dtype)), wrap(edges)


def _table() -> dict:
    return {
        aten.sum: masked_reads.whole(_accumulate("sum")), aten.prod: _accumulate("prod"),
        aten.mean: masked_reads.whole(_mean),
        aten.amax: _extreme("max", "amax"), aten.amin: _extreme("min", "amin"),
        aten.max.default: _extreme("max", "max"), aten.min.default: _extreme("min", "min"),
        aten.max.dim: _max_dim("max"), aten.min.dim: _max_dim("min"),
        aten.argmax: _arg("argmax"), aten.argmin: _arg("argmin"),
        aten.any: _logical_reduce("any"), aten.all: _logical_reduce("all"),
        aten.var.correction: _var_like(False, False), aten.std.correction: _var_like(True, False),
        aten.var_mean.correction: _var_like(False, True),
        aten.std_mean.correction: _var_like(True, True),
        aten.logsumexp: opmath(_logsumexp), aten.cumsum: _scan(Op.CUMSUM),
        aten.cumprod: _scan(Op.CUMPROD), aten.logcumsumexp: _scan(Op.CUMLOGSUMEXP),
        aten.cummax: _cum_extreme("max"), aten.cummin: _cum_extreme("min"),
        aten.linalg_vector_norm: opmath(_vector_norm), aten.count_nonzero: _count_nonzero,
        aten.sort.default: _sort, aten.sort.stable: _sort,
        aten.topk: _topk, aten.median.dim: _median_dim(False),
        aten.nanmedian.dim: _median_dim(True), aten.median.default: _median_all(False),
        aten.nanmedian.default: _median_all(True), aten.kthvalue: _kthvalue,
        aten.histc.default: _histc, aten.mode.default: _mode, aten.bincount.default: _bincount,
        aten.histogram.bin_ct: _histogram, aten.histogram.bins_tensor: _histogram,
    }


# torch has no bool or complex kernel for some of these (see _probed)
PROBED = (
    aten.amax, aten.amin, aten.max.default, aten.min.default, aten.max.dim, aten.min.dim,
    aten.argmax, aten.argmin, aten.cummax, aten.cummin, aten.sort.default, aten.sort.stable,
    aten.topk, aten.median.dim, aten.nanmedian.dim, aten.median.default,
    aten.nanmedian.default, aten.kthvalue,
)
TABLE = _table()
TABLE.update({op: _probed(op, TABLE[op]) for op in PROBED})
TABLE[aten.nansum] = _probed(aten.nansum, decomposition_table[aten.nansum.default])
