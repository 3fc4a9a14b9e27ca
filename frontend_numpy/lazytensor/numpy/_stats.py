"""Order statistics on a sort: median, quantile and percentile (numpy's
default 'linear' method) with numpy's dtype rules and NaN propagation, for
static ``q`` (Python numbers, lists or host arrays)."""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite import npextra as npx
from lazytensor.core.composite import reduction as cred
from lazytensor.core.composite import shape as cs
from lazytensor.core.composite import sorting as csort
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.numpy._base import ndarray, node_of, wrap
from lazytensor.numpy._dispatch import implements
from lazytensor.numpy._ufuncs import store

import numpy as np


def _prepared(a, axis) -> tuple[Node, int, tuple]:
    """x as float, moved so the reduced axis is last, and the kept shape."""
    x = node_of(a)
    if not dt.is_inexact(x.dtype):
        x = ew.convert(x, dt.float64)
    if axis is None:
        return cs.ravel(x), 0, ()
    axes = cred.normalize_axes(axis, x.ndim)
    kept = tuple(d for d in range(x.ndim) if d not in axes)
    moved = cs.transpose(x, kept + axes)
    rest = tuple(x.shape[d] for d in kept)
    size = math.prod(x.shape[d] for d in axes)
    return cs.reshape(moved, rest + (size,)), len(kept), axes


def _pick(sorted_x: Node, i: int) -> Node:
    return cs.squeeze(cs.slice_axis(sorted_x, sorted_x.ndim - 1, i, i + 1), -1)


def _nan_guard(x: Node, out: Node) -> Node:
    """NaN wherever the reduced slice holds a NaN (numpy propagates it)."""
    if dt.is_complex(x.dtype):
        return out
    has_nan = cred.reduce("any", npx.isnan(x), -1)
    return make(Op.SELECT, (ew.broadcast_to(has_nan, out.shape), npx.const(math.nan, out), out))


def _lerp(a: Node, b: Node, t: float, dtype: np.dtype) -> Node:
    """numpy's _lerp: a + (b - a) * t, from the b side when t >= 0.5; b - a
    in the data's dtype, the rest in ``dtype`` (float64 for an array q)."""
    diff = ew.convert(make(Op.SUB, (b, a)), dtype)
    a, b = ew.convert(a, dtype), ew.convert(b, dtype)
    if t >= 0.5:
        return make(Op.SUB, (b, make(Op.MUL, (diff, npx.const(1.0 - t, diff)))))
    return make(Op.ADD, (a, make(Op.MUL, (diff, npx.const(t, diff)))))


def _one_quantile(sorted_x: Node, q: float, dtype: np.dtype) -> Node:
    n = sorted_x.shape[-1]
    virtual = q * (n - 1)
    below = min(max(int(math.floor(virtual)), 0), n - 1)
    above = min(below + 1, n - 1)
    return _lerp(_pick(sorted_x, below), _pick(sorted_x, above), virtual - below, dtype)


def _finish(node: Node, kept: int, axes: tuple, keepdims: bool, ndim: int, out):
    if keepdims:
        lead = node.ndim - kept
        full = list(node.shape[:lead]) + [1] * ndim
        rest = iter(node.shape[lead:])
        for d in range(ndim):
            if d not in axes:
                full[lead + d] = next(rest)
        node = cs.reshape(node, tuple(full))
    if out is None:
        return wrap(node)
    store(np.add, out, node, casting="unsafe")
    return out


def _quantile(a, q, axis, out, method, keepdims, name: str):
    if method != "linear":
        raise NotImplementedError(f"lazytensor.numpy.{name}: method={method!r} (only 'linear')")
    qs = np.asarray(q.__array__() if isinstance(q, ndarray) else q, dtype=np.float64)
    if ((qs < 0) | (qs > 1)).any():
        raise ValueError("Quantiles must be in the range [0, 1]")
    source = node_of(a)
    if dt.is_bool(source.dtype):
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    ndim = source.ndim
    x, kept, axes = _prepared(a, axis)
    if axis is None:
        axes = tuple(range(ndim))
    if x.shape[-1] == 0:
        raise IndexError(f"index -1 is out of bounds for axis 0 with size {x.shape[-1]}")
    sorted_x = csort.sort(x, -1)
    dtype = np.result_type(x.dtype, np.float64) if qs.ndim else x.dtype  # array q: float64
    picks = [_nan_guard(x, _one_quantile(sorted_x, float(v), dtype)) for v in qs.reshape(-1)]
    node = cs.stack(picks, 0) if qs.ndim else picks[0]
    if qs.ndim:
        node = cs.reshape(node, qs.shape + picks[0].shape)
    return _finish(node, kept, axes, keepdims, ndim, out)


@implements("quantile")
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    return _quantile(a, q, axis, out, method, keepdims, "quantile")


@implements("percentile")
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    qs = np.true_divide(np.asarray(q.__array__() if isinstance(q, ndarray) else q), 100)
    if ((qs < 0) | (qs > 1)).any():
        raise ValueError("Percentiles must be in the range [0, 100]")
    return _quantile(a, qs, axis, out, method, keepdims, "percentile")


@implements("median")
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle element, or the mean of the two middle ones."""
    ndim = node_of(a).ndim
    x, kept, axes = _prepared(a, axis)
    if axis is None:
        axes = tuple(range(ndim))
    n = x.shape[-1]
    if n == 0:
        node = ew.full(x.shape[:-1], math.nan, x.dtype)
    else:
        sorted_x = csort.sort(x, -1)
        mid = _pick(sorted_x, n // 2)
        if n % 2 == 0:
            total = make(Op.ADD, (_pick(sorted_x, n // 2 - 1), mid))
            mid = make(Op.DIV, (total, npx.const(2.0, total)))
        node = _nan_guard(x, mid)
    return _finish(node, kept, axes, keepdims, ndim, out)
