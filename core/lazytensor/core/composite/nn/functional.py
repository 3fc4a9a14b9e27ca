"""Neural-network math written only in core ops, for every frontend:
convolution (channels-first or channels-last layouts), max/avg pooling,
softmax gradients, top-k membership, dropout, embedding and scaled
dot-product attention (normalization, losses and activations: their
sibling modules).

Layouts are arguments, never a framework: ``channels_last=False`` is torch's
(N, C, *spatial) with (O, I/groups, *k) kernels, ``True`` is TensorFlow's
(N, *spatial, C) with (*k, I/groups, O) kernels. Python numbers that a user
chooses (eps, momentum, dropout p, negative slopes) become scalar
parameters (changing them never recompiles); numbers that are properties of
the math (1/sqrt(2), 0.044715) and of static shapes are constants.
Gradients that need more than a line come from the core's autodiff
(``vjp``), so each forward rule here is also its backward.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((2, 3, 8, 8)), np.dtype("float32"))
>>> w = constant(np.zeros((4, 3, 3, 3)), np.dtype("float32"))
>>> conv(x, w, (1, 1), ((1, 1), (1, 1))).shape, max_pool(x, (2, 2), (2, 2)).shape
((2, 4, 8, 8), (2, 3, 4, 4))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from lazytensor.core import autodiff
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const, iota
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.linalg.matmul import matmul, tensordot
from lazytensor.core.composite.movement.shape import moveaxis, reshape
from lazytensor.core.composite.nn.normalization import _bin, _c, _p  # (one definition)
from lazytensor.core.composite.reduce import reduction as red
from lazytensor.core.ir import Node
from lazytensor.core.leaves import constant
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make
from lazytensor.core.rules.contract import window_output
from lazytensor.core.runtime import get_runtime

Pads = Sequence[tuple[int, int]]
_SPATIAL = "DHW"


# ------------------------------------------------------------------ vjp
def vjp(fn: Callable[..., Node], primals: Sequence[Node], cotangent: Node) -> list[Node]:
    """Gradients of ``fn(*primals)`` pulled back from ``cotangent``, recorded
    as one core VJP node. ``fn`` is traced on stand-in leaves, so only its
    own ops are replayed (never the primals' history).

    Shape/dtype rule: gradient i has primals[i]'s shape and dtype."""
    stand = [Node(Op.DATA, (), (), p.shape, p.dtype) for p in primals]
    with get_runtime().holding_cuts():  # stand-ins have no value to cut a graph at
        out = fn(*stand)
    program, inputs, refs, out_ref = autodiff._trace(out, stand)
    real = {id(s): p for s, p in zip(stand, primals, strict=False)}
    operands = tuple(real.get(id(i), i) for i in inputs)
    diff = tuple(dict.fromkeys(r for r in refs if r is not None))
    grads = []
    node = make(Op.VJP, (*operands, cotangent), program, diff, out_ref) if diff else None
    for p, ref in zip(primals, refs, strict=False):
        grads.append(make(Op.TUPLE_GET, (node,), diff.index(ref)) if ref is not None
                     else ew.full(p.shape, 0, p.dtype))
    return grads


# ----------------------------------------------------------- convolution
def _specs(nspatial: int, channels_last: bool) -> tuple[str, str, str]:
    if nspatial > len(_SPATIAL):
        raise ShapeError(f"convolution over {nspatial} spatial dims is not supported")
    sp = _SPATIAL[len(_SPATIAL) - nspatial:]
    if channels_last:
        return f"N{sp}C", f"{sp}IO", f"N{sp}C"
    return f"NC{sp}", f"OI{sp}", f"NC{sp}"


def same_padding(sizes, kernel, strides, dilation) -> tuple[tuple[int, int], ...]:
    """XLA/TensorFlow 'SAME' padding: output = ceil(input / stride)."""
    pads = []
    for n, k, s, d in zip(sizes, kernel, strides, dilation, strict=False):
        out = -(-n // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return tuple(pads)


def explicit_padding(padding: Pads | str, sizes, kernel, strides, dilation) -> Pads:
    """(low, high) pairs from 'VALID' (none), 'SAME' (``same_padding``) or pairs.

    >>> explicit_padding("SAME", (5,), (3,), (2,), (1,)), explicit_padding("VALID", (5,), 0, 0, 0)
    (((1, 1),), ((0, 0),))
    """
    if not isinstance(padding, str):
        return tuple(tuple(p) for p in padding)
    if padding.upper() == "VALID":
        return ((0, 0),) * len(sizes)
    return same_padding(sizes, kernel, strides, dilation)


def conv(x: Node, w: Node, strides: Sequence[int], padding: Pads | str,
         dilation: Sequence[int] | None = None, groups: int = 1,
         channels_last: bool = False) -> Node:
    """N-d convolution (cross-correlation, as every framework computes it).

    Shape rule: (N, C, *S) * (O, C/groups, *K) -> (N, O, *S') with
    S' = (S + lo + hi - dilation*(K-1) - 1) // stride + 1 (channels first)."""
    n = x.ndim - 2
    dilation = tuple(dilation or (1,) * n)
    lspec, rspec, ospec = _specs(n, channels_last)
    padding = explicit_padding(padding, x.shape[1:-1] if channels_last else x.shape[2:],
                               w.shape[:-2] if channels_last else w.shape[2:], strides, dilation)
    return make(Op.CONV, (x, w), tuple(strides), padding,
                (1,) * n, dilation, (lspec, rspec, ospec), groups, 1)


def conv_transpose(x: Node, w: Node, strides: Sequence[int], padding: Pads,
                   output_padding: Sequence[int], dilation: Sequence[int], groups: int = 1,
                   ) -> Node:
    """Transposed convolution (the gradient of ``conv`` with respect to its
    input), channels first; ``w`` is (C_in, C_out/groups, *K) as in torch.

    Shape rule: S' = (S - 1)*stride - lo - hi + dilation*(K-1) + output_padding + 1."""
    n = x.ndim - 2
    cin, cout_g, *k = w.shape
    g = groups
    w = reshape(w, (g, cin // g, cout_g, *k))
    w = make(Op.TRANSPOSE, (w,), (0, 2, 1, *range(3, 3 + n)))
    w = reshape(w, (g * cout_g, cin // g, *k))
    w = make(Op.REV, (w,), tuple(range(2, 2 + n)))
    pads = tuple(
        (d * (kk - 1) - lo, d * (kk - 1) - hi + op)
        for kk, (lo, hi), op, d in zip(k, padding, output_padding, dilation, strict=False)
    )
    lspec, rspec, ospec = _specs(n, False)
    return make(Op.CONV, (x, w), (1,) * n, pads, tuple(strides), tuple(dilation),
                (lspec, rspec, ospec), groups, 1)


def bias_add(x: Node, bias: Node, channel_axis: int = 1) -> Node:
    """x + bias along ``channel_axis``."""
    b = make(Op.BROADCAST_IN_DIM, (ew.convert(bias, x.dtype),), x.shape, (channel_axis,))
    return make(Op.ADD, (x, b))


# --------------------------------------------------------------- pooling
def pool_padding(sizes, kernel, strides, padding: Pads, dilation, ceil_mode: bool,
                 ) -> tuple[tuple[int, int], ...]:
    """Explicit (lo, hi) padding per spatial dim; ``ceil_mode`` adds what
    torch's ceil rounding needs on the high side (the last window must start
    inside the input or its left padding)."""
    out = []
    for n, k, s, (lo, hi), d in zip(sizes, kernel, strides, padding, dilation, strict=False):
        span = d * (k - 1) + 1
        count = (n + lo + hi - span) // s + 1
        if ceil_mode:
            count = -(-(n + lo + hi - span) // s) + 1
            if (count - 1) * s >= n + lo:
                count -= 1
        extra = max((count - 1) * s + span - (n + lo + hi), 0)
        out.append((lo, hi + extra))
    return tuple(out)


def _spatial_axes(x: Node, nspatial: int, channels_last: bool) -> tuple[int, ...]:
    start = x.ndim - nspatial - (1 if channels_last else 0)
    return tuple(range(start, start + nspatial))


def _window(x: Node, axes, kernel, strides, pads, dilation):
    dims = [1] * x.ndim
    st = [1] * x.ndim
    pad = [(0, 0)] * x.ndim
    dil = [1] * x.ndim
    for a, k, s, p, d in zip(axes, kernel, strides, pads, dilation, strict=False):
        dims[a], st[a], pad[a], dil[a] = k, s, tuple(p), d
    return tuple(dims), tuple(st), tuple(pad), (1,) * x.ndim, tuple(dil)


def max_pool(x: Node, kernel: Sequence[int], strides: Sequence[int] | None = None,
             padding: Pads | None = None, dilation: Sequence[int] | None = None,
             ceil_mode: bool = False, channels_last: bool = False) -> Node:
    """Max over windows of the trailing spatial dims (padding counts as -inf).

    Shape rule: spatial S -> window_output(S, K, stride, lo, hi, dilation)."""
    n = len(kernel)
    strides = tuple(strides or kernel)
    dilation = tuple(dilation or (1,) * n)
    axes = _spatial_axes(x, n, channels_last)
    pads = pool_padding([x.shape[a] for a in axes], kernel, strides,
                        padding or ((0, 0),) * n, dilation, ceil_mode)
    low = -math.inf if dt.is_inexact(x.dtype) else int(dt.iinfo(x.dtype).min)
    return make(Op.REDUCE_WINDOW_MAX, (x, const(low, x.dtype)),
                *_window(x, axes, kernel, strides, pads, dilation))


def max_pool_with_indices(x: Node, kernel: Sequence[int], strides: Sequence[int],
                          padding: Pads, dilation: Sequence[int], ceil_mode: bool = False,
                          index_dtype: np.dtype = dt.int64, nan_wins: bool = True,
                          ) -> tuple[Node, Node]:
    """Channels-first max pooling with, per output, the flat index (into the
    input's spatial plane) of the first maximal element. NaN counts as the
    maximum (torch's rule) or, with ``nan_wins=False``, only a strictly
    greater element replaces the window's first (TensorFlow's: a leading
    NaN stays, a later one never wins). Windows are read as strided slices
    of the padded input, one per kernel offset."""
    n = len(kernel)
    sizes = x.shape[-n:]
    pads = pool_padding(sizes, kernel, strides, padding, dilation, ceil_mode)
    outs = [window_output(s, k, st, lo, hi, 1, d) for s, k, st, (lo, hi), d
            in zip(sizes, kernel, strides, pads, dilation, strict=False)]
    low = -math.inf if dt.is_inexact(x.dtype) else int(dt.iinfo(x.dtype).min)
    cfg = ((0, 0, 0),) * (x.ndim - n) + tuple((lo, hi, 0) for lo, hi in pads)
    padded = make(Op.PAD, (x, const(low, x.dtype)), cfg)
    best = index = None
    lead = x.shape[:-n]
    for offset in np.ndindex(*kernel):
        start = (0,) * len(lead) + tuple(o * d for o, d in zip(offset, dilation, strict=False))
        limit = lead + tuple(s + (c - 1) * st + 1 for s, c, st in zip(start[len(lead):], outs,
                                                                   strides, strict=False))
        v = make(Op.SLICE, (padded,), start, limit, (1,) * len(lead) + tuple(strides))
        pos = _flat_positions(lead, outs, offset, strides, pads, dilation, sizes, index_dtype)
        if best is None:
            best, index = v, pos
            continue
        better = make(Op.GT, (v, best))
        if nan_wins and dt.is_inexact(x.dtype):
            better = make(Op.OR, (better, make(Op.AND, (
                make(Op.NE, (v, v)), make(Op.EQ, (best, best))))))
        best = make(Op.SELECT, (better, v, best))
        index = make(Op.SELECT, (better, pos, index))
    return best, index


def max_pool_flat_argmax(x: Node, kernel: Sequence[int], strides: Sequence[int],
                         padding: Pads, include_batch: bool = False) -> tuple[Node, Node]:
    """Channels-last max pooling (N, *spatial, C) with each maximum's flat
    int64 index into the input: (spatial position * C + c), plus b * (the
    size of one sample) with ``include_batch`` (TensorFlow's
    max_pool_with_argmax: a leading NaN stays, a later one never wins)."""
    n = len(kernel)
    values, plane = max_pool_with_indices(moveaxis(x, -1, 1), kernel, strides, padding,
                                          (1,) * n, nan_wins=False)
    values, plane = moveaxis(values, 1, -1), moveaxis(plane, 1, -1)
    index = make(Op.ADD, (make(Op.MUL, (plane, const(x.shape[-1], dt.int64, plane.shape))),
                          iota(plane.shape, plane.ndim - 1)))
    if include_batch:
        sample = math.prod(x.shape[1:])
        index = make(Op.ADD, (index, make(Op.MUL, (iota(plane.shape, 0),
                                                   const(sample, dt.int64, plane.shape)))))
    return values, index


def _flat_positions(lead, outs, offset, strides, pads, dilation, sizes, dtype) -> Node:
    """The flat input position read by each output at one kernel offset."""
    pos = np.zeros(tuple(outs), dtype=np.int64)
    plane = 1
    for axis in range(len(outs) - 1, -1, -1):
        coord = np.arange(outs[axis]) * strides[axis] - pads[axis][0] + offset[axis] * \
            dilation[axis]
        shape = [1] * len(outs)
        shape[axis] = outs[axis]
        pos = pos + coord.reshape(shape) * plane
        plane *= sizes[axis]
    node = constant(pos.astype(dtype), dtype)
    return make(Op.BROADCAST_IN_DIM, (node,), tuple(lead) + tuple(outs),
                tuple(range(len(lead), len(lead) + len(outs))))


def max_pool_backward(grad: Node, indices: Node, input_shape: Sequence[int],
                      nspatial: int) -> Node:
    """Scatter-add ``grad`` to the input positions named by ``indices``
    (flat spatial indices, as ``max_pool_with_indices`` gives)."""
    lead = tuple(input_shape[:-nspatial])
    plane = math.prod(input_shape[-nspatial:])
    batch = math.prod(lead)
    g = reshape(grad, (batch, -1))
    idx = reshape(ew.convert(indices, dt.int64), (batch, g.shape[1], 1))
    zeros = ew.full((batch, plane), 0, grad.dtype)
    out = make(Op.SCATTER, (zeros, idx, g), (), (1,), (1,), (0,), (0,), "add", "fill")
    return reshape(out, tuple(input_shape))


def avg_pool(x: Node, kernel: Sequence[int], strides: Sequence[int] | None = None,
             padding: Pads | None = None, ceil_mode: bool = False,
             count_include_pad: bool = True, divisor_override: int | None = None,
             channels_last: bool = False) -> Node:
    """Mean over windows; the divisor follows torch/TF: every element of the
    window inside the padded input (``count_include_pad``) or only the real
    elements, or ``divisor_override``. Divisors depend on shapes only, so
    they are constants."""
    n = len(kernel)
    strides = tuple(strides or kernel)
    padding = tuple(padding or ((0, 0),) * n)
    axes = _spatial_axes(x, n, channels_last)
    sizes = [x.shape[a] for a in axes]
    pads = pool_padding(sizes, kernel, strides, padding, (1,) * n, ceil_mode)
    window = _window(x, axes, kernel, strides, pads, (1,) * n)
    total = make(Op.REDUCE_WINDOW_SUM, (x, const(0, x.dtype)), *window)
    if divisor_override:
        return make(Op.DIV, (total, _c(divisor_override, total)))
    counts = _window_counts(sizes, kernel, strides, padding, pads, count_include_pad)
    shape = [1] * x.ndim
    for a, c in zip(axes, counts.shape, strict=False):
        shape[a] = c
    divisor = constant(counts.reshape(shape).astype(x.dtype), x.dtype)
    return make(Op.DIV, (total, ew.broadcast_to(divisor, total.shape)))


def adaptive_avg_pool(x: Node, output_size: Sequence[int],
                      channels_last: bool = False) -> Node:
    """Adaptive average pooling (torch's windows): along a spatial axis of
    size n, output i averages elements floor(i*n/out) .. ceil((i+1)*n/out)-1.
    Each axis is one contraction with a constant (n, out) averaging matrix,
    so the gradient is the same contraction transposed.

    Shape rule: the spatial dims become ``output_size``; dtype kept.

    >>> x = const(1.0, np.dtype("float32"), (2, 3, 7, 5))
    >>> adaptive_avg_pool(x, (3, 1)).shape
    (2, 3, 3, 1)
    """
    axes = _spatial_axes(x, len(output_size), channels_last)
    for axis, out in zip(axes, output_size, strict=True):
        n = x.shape[axis]
        weights = np.zeros((n, out), dtype=np.float64)
        for i in range(out):
            lo, hi = (i * n) // out, -(-(i + 1) * n // out)
            weights[lo:hi, i] = 1.0 / (hi - lo)
        matrix = constant(weights.astype(x.dtype), x.dtype)
        x = moveaxis(tensordot(x, matrix, (axis,), (0,)), -1, axis)
    return x


def adaptive_max_pool_with_indices(x: Node, output_size: Sequence[int]) -> tuple[Node, Node]:
    """Channels-first adaptive max pooling (``adaptive_avg_pool``'s windows)
    with, per output, the flat int64 index into the input's spatial plane
    of its maximum: the first in row-major order, or the last NaN (torch's
    kernel). One pass per axis, innermost first, each picking along its
    own axis and carrying the earlier passes' indices, so the row-major
    first maximum wins across axes.

    Shape rule: the spatial dims become ``output_size``; dtype kept.

    >>> x = const(1.0, np.dtype("float32"), (2, 3, 7, 5))
    >>> [n.shape for n in adaptive_max_pool_with_indices(x, (3, 2))]
    [(2, 3, 3, 2), (2, 3, 3, 2)]
    """
    value, index, plane = x, None, 1
    for axis, out in reversed(list(zip(range(x.ndim - len(output_size), x.ndim), output_size,
                                       strict=True))):
        value, index = _adaptive_max_pass(value, index, axis, out, plane)
        plane *= x.shape[axis]
    return value, index


def _adaptive_max_pass(value: Node, index: Node | None, axis: int, out: int,
                       plane: int) -> tuple[Node, Node]:
    """Windows of ``axis`` gathered as (out, K) (a short window repeats its
    last element), the pick per window, and its flat index: the window
    position times ``plane`` plus the carried ``index`` there."""
    n = value.shape[axis]
    starts = np.arange(out) * n // out
    ends = -(-(np.arange(out) + 1) * n // out)
    width = int(max((ends - starts).max(initial=1), 1))
    pos = np.minimum(starts[:, None] + np.arange(width), np.maximum(ends - 1, 0)[:, None])
    table = constant(pos.reshape(out, width, 1), dt.int64)
    shape = value.shape[:axis] + (out, width) + value.shape[axis + 1:]
    offset_dims = tuple(range(axis)) + tuple(range(axis + 2, value.ndim + 1))
    sizes = tuple(1 if d == axis else s for d, s in enumerate(value.shape))

    def windows(x: Node) -> Node:
        return make(Op.GATHER, (x, table), offset_dims, (axis,), (axis,), (), (), sizes, "clip")

    positions = make(Op.BROADCAST_IN_DIM, (constant(pos, dt.int64),), shape, (axis, axis + 1))
    return window_max(windows(value), positions, None if index is None else windows(index),
                      axis, plane)


def window_max(win: Node, positions: Node, carried: Node | None, axis: int,
               plane: int) -> tuple[Node, Node]:
    """Per window (``win``: windows of ``axis`` along ``axis + 1``) its first
    maximum (a NaN wins, as torch's max pools) and that element's flat index:
    its ``positions`` entry times ``plane`` plus the ``carried`` index there
    (the index into the inner axes, from an earlier pass)."""
    shape, width = win.shape, win.shape[axis + 1]
    k = iota(shape, axis + 1)
    top = ew.broadcast_to(red.reduce("max", win, axis + 1, keepdims=True), shape)
    pick = red.reduce("min", make(Op.SELECT, (make(Op.EQ, (win, top)), k, _c(width, k))),
                      axis + 1, keepdims=True)
    if dt.is_inexact(win.dtype):
        nan = red.reduce("max", make(Op.SELECT, (make(Op.NE, (win, win)), k, _c(-1, k))),
                         axis + 1, keepdims=True)
        pick = make(Op.SELECT, (make(Op.GE, (nan, _c(0, nan))), nan, pick))
    flat = make(Op.MUL, (positions, _c(plane, k)))
    if carried is not None:
        flat = make(Op.ADD, (flat, carried))
    chosen = make(Op.EQ, (k, ew.broadcast_to(pick, shape)))

    def picked(x: Node) -> Node:
        return red.reduce("sum", make(Op.SELECT, (chosen, x, _c(0, x))), axis + 1)

    return picked(win), picked(flat)


def _window_counts(sizes, kernel, strides, padding, pads, include_pad: bool) -> np.ndarray:
    counts = np.ones((), dtype=np.float64)
    for n, k, s, (lo, hi), (plo, phi) in zip(sizes, kernel, strides, padding, pads, strict=False):
        inside = np.zeros(n + plo + phi)
        inside[plo - lo if include_pad else plo: plo + n + (hi if include_pad else 0)] = 1
        c = np.array([inside[i * s: i * s + k].sum()
                      for i in range(window_output(n, k, s, plo, phi))])
        counts = np.multiply.outer(counts, c)
    return counts


# ------------------------------------------------------- softmax gradients
def softmax_backward(grad: Node, out: Node, axis: int) -> Node:
    """Gradient of softmax from its output: y * (g - sum(g * y))."""
    gy = _bin(Op.MUL, grad, out)
    total = ew.broadcast_to(red.reduce("sum", gy, axis, keepdims=True), gy.shape)
    return _bin(Op.SUB, gy, _bin(Op.MUL, out, total))


def log_softmax_backward(grad: Node, out: Node, axis: int) -> Node:
    """Gradient of log_softmax from its output: g - exp(y) * sum(g)."""
    total = ew.broadcast_to(red.reduce("sum", grad, axis, keepdims=True), grad.shape)
    return _bin(Op.SUB, grad, _bin(Op.MUL, make(Op.EXP, (out,)), total))


def safe_softmax(x: Node, axis: int) -> Node:
    """softmax whose fully masked rows (all -inf) are 0 instead of NaN."""
    y = red.softmax(x, axis)
    masked = red.reduce("all", make(Op.EQ, (x, _c(-math.inf, x))), axis, keepdims=True)
    return make(Op.SELECT, (ew.broadcast_to(masked, y.shape), _c(0.0, y), y))


# ------------------------------------------------------------- evaluation
def in_top_k(predictions: Node, targets: Node, k: int) -> Node:
    """Per row of (batch, classes) ``predictions``: whether the target
    class is among the ``k`` largest, i.e. fewer than k predictions are
    strictly greater than its own (ties at the boundary count as in).
    False for a non-finite target prediction or an out-of-range target.

    Shape rule: (batch,) bool.

    >>> p = const(0.5, np.dtype("float32"), (3, 4))
    >>> in_top_k(p, const(1, np.dtype("int32"), (3,)), 1).shape
    (3,)
    """
    rows, classes = predictions.shape
    index = ew.convert(targets, dt.int64)
    wide = make(Op.BROADCAST_IN_DIM, (index,), predictions.shape, (0,))
    hot = make(Op.EQ, (iota(predictions.shape, 1), wide))
    own = red.reduce("sum", make(Op.SELECT, (hot, predictions, _c(0, predictions))), 1)
    above = make(Op.GT, (predictions, make(Op.BROADCAST_IN_DIM, (own,), predictions.shape,
                                           (0,))))
    count = red.reduce("sum", ew.convert(above, dt.int64), 1)
    inside = make(Op.AND, (make(Op.GE, (index, const(0, dt.int64, (rows,)))),
                           make(Op.LT, (index, const(classes, dt.int64, (rows,))))))
    ranked = make(Op.LT, (count, ew.as_node(k, dt.int64, (rows,))))
    return make(Op.AND, (make(Op.AND, (inside, make(Op.IS_FINITE, (own,)))), ranked))


# ------------------------------------------------- dropout, embedding, attention
def dropout(x: Node, p: float, key: Node) -> tuple[Node, Node]:
    """(x * keep / (1 - p), keep): each element kept with probability 1 - p,
    drawn from ``key`` (a core RNG key)."""
    u = make(Op.RNG_UNIFORM, (key,), x.shape, dt.float32)
    keep = make(Op.GE, (u, ew.as_node(p, dt.float32, x.shape)))
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    kept = _bin(Op.MUL, x, _p(scale, x))
    return make(Op.SELECT, (keep, kept, _c(0, x))), keep


def dropout_shared(scaled: Node, rate: Node, key: Node, noise_shape: Sequence[int]) -> Node:
    """``scaled`` (x already divided by 1 - rate) where a uniform draw of
    ``noise_shape`` in scaled's dtype is >= the 0-d ``rate``, else 0; the
    draw broadcasts against ``scaled`` (size-1 noise dims share one draw).

    Shape rule: broadcast(noise_shape, scaled.shape)."""
    u = make(Op.RNG_UNIFORM, (key,), tuple(noise_shape), scaled.dtype)
    keep = make(Op.GE, (u, ew.broadcast_to(rate, u.shape)))
    shape = ew.broadcast_shapes(u.shape, scaled.shape)
    return make(Op.SELECT, (ew.broadcast_to(keep, shape), ew.broadcast_to(scaled, shape),
                            const(0, scaled.dtype, shape)))


def dilated_avg_pool(x: Node, kernel: Sequence[int], dilation: Sequence[int],
                     channels_last: bool = False) -> Node:
    """Mean over unpadded windows of the trailing spatial dims with
    ``dilation`` (stride 1, every window full: prod(kernel) elements)."""
    n = len(kernel)
    axes = _spatial_axes(x, n, channels_last)
    window = _window(x, axes, kernel, (1,) * n, ((0, 0),) * n, dilation)
    total = make(Op.REDUCE_WINDOW_SUM, (x, const(0, x.dtype)), *window)
    return make(Op.DIV, (total, _c(math.prod(kernel), total)))


def embedding(table: Node, indices: Node, mode: str = "clip") -> Node:
    """Rows of ``table`` picked by integer ``indices``: shape indices.shape +
    table.shape[1:]. Out-of-range indices cannot raise lazily: ``mode``
    "clip" clamps them, "fill" reads the gather's fill value (NaN for
    floating tables: an out-of-range row never passes for data).

    >>> table = const(1.0, np.dtype("float32"), (5, 2, 3))
    >>> embedding(table, const(0, np.dtype("int32"), (4,)), "fill").shape
    (4, 2, 3)
    """
    flat = reshape(ew.convert(indices, dt.int64), (-1, 1))
    row = table.shape[1:]
    rows = make(Op.GATHER, (table, flat), tuple(range(1, table.ndim)), (0,), (0,), (), (),
                (1, *row), mode)
    return reshape(rows, (*indices.shape, *row))


def embedding_backward(grad: Node, indices: Node, num_rows: int,
                       padding_idx: int | None = None) -> Node:
    """Scatter-add of ``grad`` rows into a (num_rows, D) zero table; the
    ``padding_idx`` row gets no gradient."""
    dim = grad.shape[-1]
    flat_idx = reshape(ew.convert(indices, dt.int64), (-1,))
    rows = reshape(grad, (-1, dim))
    if padding_idx is not None:
        keep = make(Op.NE, (flat_idx, const(padding_idx, dt.int64, flat_idx.shape)))
        rows = make(Op.SELECT, (ew.broadcast_to(reshape(keep, (-1, 1)), rows.shape), rows,
                                _c(0, rows)))
    return segment_reduce(rows, flat_idx, num_rows)


def segment_reduce(x: Node, ids: Node, n: int, kind: str = "add", empty=None) -> Node:
    """The ``kind`` ('add', 'mul', 'max', 'min', 'mean', 'sqrt_n': the sum
    over the square root of the count) of x's rows grouped by ``ids``
    (x.shape = ids.shape + a row's shape) into ``n`` segments; ids out of
    range are dropped; an empty segment holds ``empty`` when given, else the
    identity (max / min: the lowest / highest finite value; mean, sqrt_n:
    0). TensorFlow's (unsorted_)segment_*, jax.ops.segment_*, embedding
    gradients.

    Shape rule: (n,) + x.shape[ids.ndim:].

    >>> segment_reduce(const(1.0, dt.float32, (4, 3)), const(0, dt.int32, (4,)), 2).shape
    (2, 3)
    """
    if kind in ("mean", "sqrt_n") or empty is not None:
        count = segment_reduce(ew.full(x.shape, 1, x.dtype), ids, n)
        if kind in ("mean", "sqrt_n"):
            total = segment_reduce(x, ids, n)
            count = make(Op.MAX, (count, _p(1, count)))
            return make(Op.DIV, (total, make(Op.SQRT, (count,)) if kind == "sqrt_n" else count))
        out = segment_reduce(x, ids, n, kind)
        return make(Op.SELECT, (make(Op.GT, (count, _p(0, count))), out, _p(empty, out)))
    if kind in ("add", "mul"):
        fill = 0 if kind == "add" else 1
    else:
        info = dt.finfo(x.dtype) if dt.is_float(x.dtype) else dt.iinfo(x.dtype)
        fill = info.min if kind == "max" else info.max
    out = ew.full((n,) + x.shape[ids.ndim:], fill, x.dtype)
    coords = reshape(ew.convert(ids, dt.int64), ids.shape + (1,))
    return make(Op.SCATTER, (out, coords, x), tuple(range(ids.ndim, x.ndim)), (0,), (0,), (), (),
                kind, "fill")


def scaled_dot_product_attention(q: Node, k: Node, v: Node, mask: Node | None = None,
                                 is_causal: bool = False, scale: float | None = None,
                                 dropout_p: float = 0.0, key: Node | None = None) -> Node:
    """softmax(q @ k^T * scale + mask) @ v over (..., L, E) x (..., S, E) x
    (..., S, Ev). A bool ``mask`` keeps where True; a float mask is added;
    ``is_causal`` keeps the lower triangle. Fully masked rows give 0."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    kt = make(Op.TRANSPOSE, (k,), (*range(k.ndim - 2), k.ndim - 1, k.ndim - 2))
    scores = matmul(_bin(Op.MUL, q, _p(scale, q)), kt)
    length, source = scores.shape[-2], scores.shape[-1]
    if is_causal:
        causal = make(Op.GE, (iota((length, source), 0), iota((length, source), 1)))
        mask = causal if mask is None else make(Op.AND, (ew.broadcast_to(mask, causal.shape),
                                                          causal))
    if mask is not None:
        if dt.is_bool(mask.dtype):
            scores = make(Op.SELECT, (ew.broadcast_to(mask, scores.shape), scores,
                                      _c(-math.inf, scores)))
        else:
            scores = _bin(Op.ADD, scores, ew.broadcast_to(ew.convert(mask, scores.dtype),
                                                          scores.shape))
    weights = safe_softmax(scores, -1)
    if dropout_p > 0.0 and key is not None:
        weights, _ = dropout(weights, dropout_p, key)
    return matmul(weights, v)
