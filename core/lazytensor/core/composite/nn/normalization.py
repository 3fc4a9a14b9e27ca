"""Normalization written only in core ops, shared by every frontend:
statistics (moments, weighted moments, per-channel batch statistics) and
layer / batch normalization with their gradients. Half types compute in
float32; ``eps`` is a user-chosen number (a scalar parameter).

>>> import numpy as np
>>> from lazytensor.core.composite.creation.arrays import const
>>> x = const(1.0, np.dtype("float32"), (2, 3, 4))
>>> [s.shape for s in batch_stats(x, 1e-5)]
[(3,), (3,), (3,)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.reduce import reduction as red
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def _c(value, like: Node) -> Node:
    """A math constant of ``like``'s dtype and shape."""
    return const(value, like.dtype, like.shape)


def _p(value, like: Node) -> Node:
    """A user-chosen number (a scalar parameter) of ``like``'s dtype and shape."""
    return ew.as_node(value, like.dtype, like.shape)


def _bin(op: Op, a: Node, b: Node) -> Node:
    return make(op, (a, b))


def layer_norm(x: Node, normalized_ndim: int, weight: Node | None, bias: Node | None,
               eps: float) -> tuple[Node, Node, Node]:
    """(out, mean, rstd) normalizing over the last ``normalized_ndim`` dims;
    mean and rstd keep those dims as size 1. Half types compute in float32."""
    compute = dt.float32 if x.dtype in (dt.float16, dt.bfloat16) else x.dtype
    xc = ew.convert(x, compute)
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    mean = red.mean(xc, axes, keepdims=True)
    centered = _bin(Op.SUB, xc, ew.broadcast_to(mean, xc.shape))
    var = red.mean(_bin(Op.MUL, centered, centered), axes, keepdims=True)
    rstd = make(Op.RSQRT, (_bin(Op.ADD, var, _p(eps, var)),))
    out = _bin(Op.MUL, centered, ew.broadcast_to(rstd, xc.shape))
    out = _affine(out, weight, bias, x.ndim - normalized_ndim)
    return ew.convert(out, x.dtype), mean, rstd


def _affine(out: Node, weight: Node | None, bias: Node | None, first_axis: int) -> Node:
    dims = tuple(range(first_axis, out.ndim))
    if weight is not None:
        w = make(Op.BROADCAST_IN_DIM, (ew.convert(weight, out.dtype),), out.shape, dims)
        out = _bin(Op.MUL, out, w)
    if bias is not None:
        b = make(Op.BROADCAST_IN_DIM, (ew.convert(bias, out.dtype),), out.shape, dims)
        out = _bin(Op.ADD, out, b)
    return out


def layer_norm_backward(grad: Node, x: Node, mean: Node, rstd: Node, weight: Node | None,
                        normalized_ndim: int) -> tuple[Node, Node, Node]:
    """(grad_x, grad_weight, grad_bias) of ``layer_norm``."""
    compute = rstd.dtype
    g, xc = ew.convert(grad, compute), ew.convert(x, compute)
    k = x.ndim - normalized_ndim
    axes = tuple(range(k, x.ndim))
    xhat = _bin(Op.MUL, _bin(Op.SUB, xc, ew.broadcast_to(mean, xc.shape)),
                ew.broadcast_to(rstd, xc.shape))
    gw = red.reduce("sum", _bin(Op.MUL, g, xhat), tuple(range(k)))
    gb = red.reduce("sum", g, tuple(range(k)))
    if weight is not None:
        g = _bin(Op.MUL, g, make(Op.BROADCAST_IN_DIM, (ew.convert(weight, compute),),
                                 g.shape, axes))
    mg = ew.broadcast_to(red.mean(g, axes, keepdims=True), g.shape)
    mgx = ew.broadcast_to(red.mean(_bin(Op.MUL, g, xhat), axes, keepdims=True), g.shape)
    gx = _bin(Op.MUL, ew.broadcast_to(rstd, g.shape),
              _bin(Op.SUB, _bin(Op.SUB, g, mg), _bin(Op.MUL, xhat, mgx)))
    return (ew.convert(gx, x.dtype), ew.convert(gw, x.dtype), ew.convert(gb, x.dtype))


def batch_norm(x: Node, weight: Node | None, bias: Node | None, mean: Node, invstd: Node,
               channel_axis: int = 1) -> Node:
    """(x - mean) * invstd * weight + bias with per-channel statistics."""
    compute = invstd.dtype
    shape = x.shape

    def per_channel(v: Node) -> Node:
        return make(Op.BROADCAST_IN_DIM, (ew.convert(v, compute),), shape, (channel_axis,))

    out = _bin(Op.MUL, _bin(Op.SUB, ew.convert(x, compute), per_channel(mean)),
               per_channel(invstd))
    if weight is not None:
        out = _bin(Op.MUL, out, per_channel(weight))
    if bias is not None:
        out = _bin(Op.ADD, out, per_channel(bias))
    return ew.convert(out, x.dtype)


def _wide(x: Node) -> Node:
    """Half types as float32 (the statistics' compute dtype)."""
    return ew.convert(x, dt.float32) if x.dtype in (dt.float16, dt.bfloat16) else x


def moments(x: Node, axes: Sequence[int], keepdims: bool = False) -> tuple[Node, Node]:
    """(mean, biased variance) over ``axes``, computed and returned in
    float32 for half types (torch's batch statistics, TensorFlow's
    ``nn.moments``).

    Shape rule: x reduced over ``axes`` (kept as size 1 with keepdims).

    >>> x = const(1.0, dt.float16, (4, 3))
    >>> [(m.shape, m.dtype.name) for m in moments(x, (0,))]
    [((3,), 'float32'), ((3,), 'float32')]
    """
    xc = _wide(x)
    axes = caxes.normalize_axes(axes, x.ndim)
    mean = red.mean(xc, axes, keepdims=True)
    centered = _bin(Op.SUB, xc, ew.broadcast_to(mean, xc.shape))
    var = red.mean(_bin(Op.MUL, centered, centered), axes, keepdims=True)
    if keepdims:
        return mean, var
    kept = tuple(s for a, s in enumerate(x.shape) if a not in axes)
    return reshape(mean, kept), reshape(var, kept)


def weighted_moments(x: Node, axes: Sequence[int], weights: Node, keepdims: bool = False,
                     ) -> tuple[Node, Node]:
    """(mean, variance) over ``axes`` with frequency ``weights`` (broadcast
    against x): sum(w x) / sum(w) and sum(w (x - mean)^2) / sum(w), computed
    and returned in float32 for half types (as ``moments``).

    >>> x = const(2.0, dt.float32, (4, 3))
    >>> [m.shape for m in weighted_moments(x, (0,), const(1.0, dt.float32, (4, 1)))]
    [(3,), (3,)]
    """
    x, axes = _wide(x), caxes.normalize_axes(axes, x.ndim)
    w = ew.broadcast_to(ew.convert(weights, x.dtype), x.shape)
    total = red.reduce("sum", w, axes, keepdims=True)
    mean = _bin(Op.DIV, red.reduce("sum", _bin(Op.MUL, w, x), axes, keepdims=True), total)
    centered = _bin(Op.SUB, x, ew.broadcast_to(mean, x.shape))
    spread = red.reduce("sum", _bin(Op.MUL, w, _bin(Op.MUL, centered, centered)), axes,
                        keepdims=True)
    var = _bin(Op.DIV, spread, total)
    if keepdims:
        return mean, var
    kept = tuple(s for a, s in enumerate(x.shape) if a not in axes)
    return reshape(mean, kept), reshape(var, kept)


def sufficient_statistics(x: Node, axes: Sequence[int], shift: Node | None = None,
                          keepdims: bool = False) -> tuple[Node, Node, Node]:
    """(count, sum(x - shift), sum((x - shift)^2)) over ``axes``; the count
    is a 0-d constant of x's dtype (TensorFlow's ``nn.sufficient_statistics``).

    >>> x = const(2.0, dt.float32, (4, 3))
    >>> [s.shape for s in sufficient_statistics(x, (0,))]
    [(), (3,), (3,)]
    """
    axes = caxes.normalize_axes(axes, x.ndim)
    count = const(float(math.prod(x.shape[a] for a in axes)), x.dtype)
    shifted = x if shift is None else _bin(Op.SUB, x, ew.broadcast_to(shift, x.shape))
    sums = [red.reduce("sum", v, axes, keepdims) for v in (shifted, _bin(Op.MUL, shifted,
                                                                          shifted))]
    return count, *sums


def moments_from_sums(count: Node, mean_ss: Node, variance_ss: Node,
                      shift: Node | None = None) -> tuple[Node, Node]:
    """(mean, variance) from ``sufficient_statistics``' sums (one dtype; the
    operands broadcast pairwise): mean = mean_ss / count [+ shift],
    variance = variance_ss / count - (mean_ss / count)^2.

    >>> n, m, v = sufficient_statistics(const(2.0, dt.float32, (4, 3)), (0,))
    >>> [s.shape for s in moments_from_sums(n, m, v)]
    [(3,), (3,)]
    """
    def apply(op: Op, a: Node, b: Node) -> Node:
        shape = ew.broadcast_shapes(a.shape, b.shape)
        return make(op, (ew.broadcast_to(a, shape), ew.broadcast_to(b, shape)))

    shifted_mean = apply(Op.DIV, mean_ss, count)
    variance = apply(Op.SUB, apply(Op.DIV, variance_ss, count),
                     _bin(Op.MUL, shifted_mean, shifted_mean))
    return (shifted_mean if shift is None else apply(Op.ADD, shifted_mean, shift)), variance


def batch_stats(x: Node, eps: float, channel_axis: int = 1) -> tuple[Node, Node, Node]:
    """(mean, biased var, invstd) per channel over every other axis."""
    mean, var = moments(x, tuple(a for a in range(x.ndim) if a != channel_axis))
    return mean, var, make(Op.RSQRT, (_bin(Op.ADD, var, _p(eps, var)),))


def batch_norm_backward(grad: Node, x: Node, weight: Node | None, mean: Node, invstd: Node,
                        training: bool, channel_axis: int = 1) -> tuple[Node, Node, Node]:
    """(grad_x, grad_weight, grad_bias) of ``batch_norm``; in training the
    statistics are functions of x (their gradient is included)."""
    compute = invstd.dtype
    g, xc = ew.convert(grad, compute), ew.convert(x, compute)
    axes = tuple(a for a in range(x.ndim) if a != channel_axis)

    def per_channel(v: Node) -> Node:
        return make(Op.BROADCAST_IN_DIM, (v,), x.shape, (channel_axis,))

    xhat = _bin(Op.MUL, _bin(Op.SUB, xc, per_channel(mean)), per_channel(invstd))
    gb = red.reduce("sum", g, axes)
    gw = red.reduce("sum", _bin(Op.MUL, g, xhat), axes)
    scale = invstd if weight is None else _bin(Op.MUL, invstd, ew.convert(weight, compute))
    if training:
        count = float(math.prod(x.shape[a] for a in axes))
        mg = per_channel(_bin(Op.DIV, gb, _c(count, gb)))
        mgx = per_channel(_bin(Op.DIV, gw, _c(count, gw)))
        g = _bin(Op.SUB, _bin(Op.SUB, g, mg), _bin(Op.MUL, xhat, mgx))
    gx = _bin(Op.MUL, g, per_channel(scale))
    return ew.convert(gx, x.dtype), ew.convert(gw, x.dtype), ew.convert(gb, x.dtype)
