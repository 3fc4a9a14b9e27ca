"""Layer-level NN helpers on top of ``functional``, shared by every frontend:
per-dimension arguments given as one value or a list (torch's ``int[2]``,
Keras' ``int or tuple``), one entry point for plain and transposed
convolution, running batch-norm statistics (momentum update with the
unbiased variance, inference-mode inverse std), dropout's gradient, and
matrix products with alpha/beta scaling (BLAS's gemm: ``beta * c + alpha *
a @ b``), one-hot encoding.

>>> expand_per_dim([3], 2), expand_per_dim((1, 2), 2), symmetric_pads([1], 2)
((3, 3), (1, 2), ((1, 1), (1, 1)))
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import numpy as np
from lazytensor.core.composite.creation.arrays import const, iota
from lazytensor.core.composite.elementwise.apply import (
    as_node,
    broadcast_shapes,
    broadcast_to,
    convert,
)
from lazytensor.core.composite.linalg.einsum import einsum
from lazytensor.core.composite.movement.shape import moveaxis, reshape
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.core.composite.reduce import reduction as red
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make
from lazytensor.core.rules.contract import window_output


def expand_per_dim(values, n: int) -> tuple[int, ...]:
    """One value per spatial dim: a single value (or 1-list) repeated ``n`` times."""
    if not isinstance(values, (list, tuple)):
        values = (values,)
    values = tuple(values)
    return values * n if len(values) == 1 else values


def symmetric_pads(padding, n: int) -> tuple[tuple[int, int], ...]:
    """(low, high) padding pairs from one padding value per dim."""
    return tuple((p, p) for p in expand_per_dim(padding, n))


def convolution(x: Node, w: Node, stride, padding, dilation, transposed: bool = False,
                output_padding=0, groups: int = 1) -> Node:
    """Channels-first convolution (or its transpose) of ``x`` by ``w``, each
    per-dim argument one value or one per spatial dim."""
    n = w.ndim - 2
    if transposed:
        return cnn.conv_transpose(x, w, expand_per_dim(stride, n), symmetric_pads(padding, n),
                                  expand_per_dim(output_padding, n),
                                  expand_per_dim(dilation, n), groups)
    return cnn.conv(x, w, expand_per_dim(stride, n), symmetric_pads(padding, n),
                    expand_per_dim(dilation, n), groups)


def conv_hwio(x: Node, w: Node, stride: Sequence[int], padding, dilation: Sequence[int],
              channels_first: bool = False) -> Node:
    """Convolution by filters in (*K, C / groups, out) layout (TensorFlow's
    and JAX's HWIO) of ``x`` with any number of leading batch dims, channels
    last or (``channels_first``) before the spatial dims; the group count is
    x's channels over the filters' input depth. ``padding``: 'SAME',
    'VALID' or (low, high) pairs, as ``nn.conv``.

    Shape rule: x's layout, with the spatial dims convolved and w.shape[-1]
    channels."""
    n = w.ndim - 2
    if channels_first:
        x = moveaxis(x, x.ndim - n - 1, -1)
    groups = x.shape[-1] // w.shape[-2]

    def conv(a: Node) -> Node:
        return cnn.conv(a, w, stride, padding, dilation, groups, channels_last=True)

    y = batched(conv, x, n + 2)
    return moveaxis(y, -1, y.ndim - n - 1) if channels_first else y


def pool_args(n: int, kernel, stride, padding, dilation=1):
    """(kernel, stride, pads, dilation) per dim; an empty or None stride
    means the kernel size."""
    kernel = expand_per_dim(kernel, n)
    stride = expand_per_dim(stride, n) if stride not in (None, [], ()) else kernel
    pads = symmetric_pads(padding, n)
    return kernel, stride, pads, expand_per_dim(dilation, n)


def _scaled(x: Node, factor) -> Node:
    return make(Op.MUL, (x, as_node(factor, x.dtype, x.shape)))


def update_running(old: Node, new: Node, momentum: float) -> Node:
    """(1 - momentum) * old + momentum * new, in ``old``'s dtype."""
    return make(Op.ADD, (_scaled(old, 1.0 - momentum),
                         _scaled(convert(new, old.dtype), momentum)))


def unbiased(var: Node, x_shape: Sequence[int], channel_axis: int = 1) -> Node:
    """A biased per-channel variance rescaled by count / (count - 1)."""
    count = math.prod(x_shape) // x_shape[channel_axis]
    return _scaled(var, count / max(count - 1, 1))


def inverse_std(var: Node, eps: float) -> Node:
    """1 / sqrt(var + eps)."""
    return make(Op.RSQRT, (make(Op.ADD, (var, as_node(eps, var.dtype, var.shape))),))


def dropout_backward(grad: Node, mask: Node, scale: float) -> Node:
    """grad where the mask kept an element, times ``scale``, else 0."""
    kept = make(Op.SELECT, (mask, grad, as_node(0, grad.dtype, grad.shape)))
    return _scaled(kept, scale)


def scaled_sum(bias: Node, product: Node, beta, alpha) -> Node:
    """beta * bias + alpha * product (bias broadcast and cast to the
    product's; beta == 0 ignores bias, even NaNs in it, as BLAS does)."""
    if alpha != 1:
        product = _scaled(product, alpha)
    if beta == 0:
        return product
    b = broadcast_to(convert(bias, product.dtype), product.shape)
    if beta != 1:
        b = _scaled(b, beta)
    return make(Op.ADD, (b, product))


def batch_sum_product(b1: Node, b2: Node) -> Node:
    """sum_i b1[i] @ b2[i] for two stacks of matrices (torch's ``addbmm``)."""
    return make(Op.DOT_GENERAL, (b1, b2), (((0, 2), (0, 1)), ((), ())), None)


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def trilinear(i1: Node, i2: Node, i3: Node, expand1: Sequence[int], expand2: Sequence[int],
              expand3: Sequence[int], sumdim: Sequence[int]) -> Node:
    """The sum over ``sumdim`` of i1 * i2 * i3, each unsqueezed at its
    ``expand`` dims (all three then of one rank): one einsum. A bilinear
    layer's x1^T W x2 per output (torch's ``_trilinear``).

    >>> from lazytensor.core.composite.creation.arrays import const
    >>> f = np.dtype("float32")
    >>> x1, w, x2 = const(1.0, f, (4, 2)), const(1.0, f, (5, 2, 3)), const(1.0, f, (4, 3))
    >>> trilinear(x1, w, x2, (1, 3), (0,), (1, 2), (2, 3)).shape
    (4, 5)
    """
    letters = _LETTERS[:i1.ndim + len(expand1)]

    def term(skip) -> str:
        return "".join(c for d, c in enumerate(letters) if d not in set(skip))

    spec = f"{term(expand1)},{term(expand2)},{term(expand3)}->{term(sumdim)}"
    return einsum(spec, i1, i2, i3)


def batched(fn: Callable[[Node], Node], x: Node, ndim: int) -> Node:
    """``fn`` (which takes exactly one leading batch dim: ``ndim`` dims in
    all) applied to ``x`` with any number of leading batch dims: none
    (torch's unbatched input) or several (TensorFlow's extra batch dims)
    are folded into one and restored on the result.

    >>> from lazytensor.core.composite.creation.arrays import const, iota
    >>> x = const(0.0, np.dtype("float32"), (2, 5, 7, 3))
    >>> batched(lambda a: a, x, 3).shape, batched(lambda a: a, x, 5).shape
    ((2, 5, 7, 3), (2, 5, 7, 3))
    """
    lead = x.shape[:x.ndim - ndim + 1]
    if len(lead) == 1:
        return fn(x)
    out = fn(reshape(x, (math.prod(lead), *x.shape[len(lead):])))
    return reshape(out, (*lead, *out.shape[1:]))


def running_stats(mean: Node, var: Node, eps, dtype: np.dtype) -> tuple[Node, Node]:
    """(mean, 1 / sqrt(var + eps)) of stored statistics, in float32 for any
    ``dtype`` but float64 (the precision batch norm computes in)."""
    compute = dtype if dtype == np.float64 else np.dtype("float32")
    mean = convert(mean, compute)
    return mean, inverse_std(convert(var, compute), eps)


def normalize(x: Node, mean: Node, variance: Node, offset: Node | None, scale: Node | None,
              eps) -> Node:
    """Batch normalization with given statistics, every operand broadcast
    (numpy rules) against x, in TensorFlow's arrangement:
    x * inv + (offset - mean * inv) with inv = scale / sqrt(variance + eps).

    Shape rule: the broadcast shape of the operands; x's dtype.

    >>> from lazytensor.core.composite.creation.arrays import const, iota
    >>> x = const(2.0, np.dtype("float32"), (4, 3))
    >>> m = const(1.0, np.dtype("float32"), (3,))
    >>> normalize(x, m, m, None, m, 1e-3).shape
    (4, 3)
    """
    inv = make(Op.RSQRT, (make(Op.ADD, (variance, as_node(eps, variance.dtype,
                                                               variance.shape))),))
    if scale is not None:
        inv = _bin(Op.MUL, inv, scale)
    centre = _bin(Op.MUL, mean, inv)
    shift = make(Op.NEG, (centre,)) if offset is None else _bin(Op.SUB, offset, centre)
    return _bin(Op.ADD, _bin(Op.MUL, x, convert(inv, x.dtype)), convert(shift, x.dtype))


def _bin(op: Op, a: Node, b: Node) -> Node:
    """``op(a, b)`` broadcast (numpy rules)."""
    shape = broadcast_shapes(a.shape, b.shape)
    return make(op, (broadcast_to(a, shape), broadcast_to(b, shape)))


def l2_normalize(x: Node, axes: Sequence[int], eps) -> Node:
    """x / sqrt(max(sum(x^2 over axes), eps)) (TensorFlow's l2_normalize).

    >>> from lazytensor.core.composite.creation.arrays import const, iota
    >>> l2_normalize(const(3.0, np.dtype("float32"), (2, 3)), (1,), 1e-12).shape
    (2, 3)
    """
    square_sum = red.reduce("sum", make(Op.MUL, (x, x)), tuple(axes), keepdims=True)
    floor = make(Op.MAX, (square_sum, as_node(eps, x.dtype, square_sum.shape)))
    return _bin(Op.MUL, x, make(Op.RSQRT, (floor,)))


def clip_by_norm(x: Node, clip, axes: Sequence[int]) -> Node:
    """x * clip / max(||x||, clip), the L2 norm taken over ``axes``
    (TensorFlow's clip_by_norm; all-zero slices stay zero).

    >>> from lazytensor.core.composite.creation.arrays import const, iota
    >>> clip_by_norm(const(3.0, np.dtype("float32"), (2, 3)), 1.0, (1,)).shape
    (2, 3)
    """
    square_sum = red.reduce("sum", make(Op.MUL, (x, x)), tuple(axes), keepdims=True)
    norm = make(Op.SQRT, (square_sum,))
    bound = as_node(clip, x.dtype, norm.shape)
    return _bin(Op.DIV, _scaled(x, clip), make(Op.MAX, (norm, bound)))


def global_norm(xs: Sequence[Node]) -> Node:
    """The L2 norm of all of ``xs`` together, a scalar of the first's dtype
    (TensorFlow's tf.linalg.global_norm).

    >>> from lazytensor.core.composite.creation.arrays import const
    >>> f32 = np.dtype("float32")
    >>> global_norm([const(3.0, f32, (2,)), const(4.0, f32, (1,))]).shape
    ()
    """
    squares = [convert(red.reduce("sum", make(Op.MUL, (x, x))), xs[0].dtype) for x in xs]
    return make(Op.SQRT, (functools.reduce(lambda a, b: make(Op.ADD, (a, b)), squares),))


def clip_by_global_norm(xs: Sequence[Node], clip: Node, norm: Node | None = None,
                        ) -> tuple[list[Node], Node]:
    """Each x times clip * min(1 / norm, 1 / clip), NaN when the norm is not
    finite; ``norm`` (given, or the L2 norm of all of ``xs`` together in the
    first's dtype) has clip's shape (TensorFlow's clip_by_global_norm).
    Returns (the clipped xs, norm).

    >>> from lazytensor.core.composite.creation.arrays import const, iota
    >>> f32 = np.dtype("float32")
    >>> out, norm = clip_by_global_norm([const(3.0, f32, (2,)), const(4.0, f32, (1,))],
    ...                                 const(1.0, f32))
    >>> [x.shape for x in out], norm.shape
    ([(2,), (1,)], ())
    """
    if norm is None:
        norm = global_norm(xs)
    one = as_node(1, norm.dtype, norm.shape)
    scale = make(Op.MUL, (clip, make(Op.MIN, (make(Op.DIV, (one, norm)),
                                              make(Op.DIV, (one, clip))))))
    scale = make(Op.ADD, (scale, make(Op.SUB, (norm, norm))))  # NaN for an infinite norm
    return [make(Op.MUL, (x, broadcast_to(convert(scale, x.dtype), x.shape))) for x in xs], norm


def transpose_padding(in_sizes, out_sizes, kernel, strides, padding, dilation,
                      ) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """(pads, output_padding) for a transposed convolution that maps spatial
    ``in_sizes`` to ``out_sizes``: the pads of the forward convolution of an
    ``out_sizes`` input ('SAME', 'VALID' or (low, high) pairs), and what the
    transpose adds on the high side to reach ``out_sizes``. Raises
    ShapeError when that forward convolution would not give ``in_sizes``.

    >>> transpose_padding((4,), (8,), (3,), (2,), "SAME", (1,))
    (((0, 1),), (0,))
    """
    pads = cnn.explicit_padding(padding, out_sizes, kernel, strides, dilation)
    extra = []
    for n, m, k, s, (lo, hi), d in zip(in_sizes, out_sizes, kernel, strides, pads, dilation,
                                       strict=True):
        if window_output(m, k, s, lo, hi, 1, d) != n:
            raise ShapeError(f"a transposed convolution of size {n} cannot give size {m} "
                             f"(kernel {k}, stride {s}, padding {(lo, hi)})")
        extra.append(m + lo + hi - ((n - 1) * s + d * (k - 1) + 1))
    return pads, tuple(extra)


def space_to_depth(x: Node, block: int) -> Node:
    """(N, H, W, C) -> (N, H/b, W/b, b*b*C): each b x b block of pixels
    becomes channels, ordered (block row, block column, channel), as
    TensorFlow's channels-last ``space_to_depth``.

    >>> from lazytensor.core.composite.creation.arrays import const, iota
    >>> space_to_depth(const(0.0, np.dtype("float32"), (2, 4, 6, 3)), 2).shape
    (2, 2, 3, 12)
    """
    n, h, w, c = x.shape
    if h % block or w % block:
        raise ShapeError(f"height {h} and width {w} must be divisible by block size {block}")
    blocks = reshape(x, (n, h // block, block, w // block, block, c))
    moved = make(Op.TRANSPOSE, (blocks,), (0, 1, 3, 2, 4, 5))
    return reshape(moved, (n, h // block, w // block, block * block * c))


def depth_to_space(x: Node, block: int) -> Node:
    """The inverse of ``space_to_depth``: (N, H, W, b*b*C) -> (N, H*b, W*b, C).

    >>> from lazytensor.core.composite.creation.arrays import const, iota
    >>> depth_to_space(const(0.0, np.dtype("float32"), (1, 2, 3, 8)), 2).shape
    (1, 4, 6, 2)
    """
    n, h, w, c = x.shape
    if c % (block * block):
        raise ShapeError(f"depth {c} must be divisible by block size squared {block * block}")
    blocks = reshape(x, (n, h, w, block, block, c // (block * block)))
    moved = make(Op.TRANSPOSE, (blocks,), (0, 1, 3, 2, 4, 5))
    return reshape(moved, (n, h * block, w * block, c // (block * block)))


def local_response_norm(x: Node, radius: int, bias, alpha, beta) -> Node:
    """x / (bias + alpha * s) ** beta, s the sum of squares over the
    2 * radius + 1 neighbouring entries of the last axis (TensorFlow's LRN;
    torch's divides alpha by the window size).

    >>> from lazytensor.core.composite.creation.arrays import const, iota
    >>> local_response_norm(const(1.0, np.dtype("float32"), (1, 2, 2, 7)), 2, 1, 1, 0.5).shape
    (1, 2, 2, 7)
    """
    n = x.ndim
    squares = make(Op.MUL, (x, x))
    window = (1,) * (n - 1) + (2 * radius + 1,)
    pads = ((0, 0),) * (n - 1) + ((radius, radius),)
    total = make(Op.REDUCE_WINDOW_SUM, (squares, const(0, x.dtype)), window, (1,) * n, pads,
                 (1,) * n, (1,) * n)
    base = make(Op.ADD, (as_node(bias, x.dtype, x.shape), _scaled(total, alpha)))
    return make(Op.DIV, (x, make(Op.POW, (base, as_node(beta, x.dtype, x.shape)))))


def one_hot(index: Node, depth: int, axis: int, on: Node, off: Node) -> Node:
    """``on`` where a new ``axis`` (of size ``depth``) equals the integer
    ``index``, else ``off`` (0-d or broadcastable values of the result's
    dtype); indices outside [0, depth) give a row of ``off``.

    Shape rule: index.shape with depth inserted at axis.

    >>> one_hot(const(1, np.dtype("int32"), (3,)), 4, 1, const(1.0, np.dtype("float32")),
    ...         const(0.0, np.dtype("float32"))).shape
    (3, 4)
    """
    shape = index.shape[:axis] + (depth,) + index.shape[axis:]
    dims = tuple(d for d in range(len(shape)) if d != axis)
    spread = make(Op.BROADCAST_IN_DIM, (convert(index, np.dtype("int64")),), shape, dims)
    hot = make(Op.EQ, (spread, iota(shape, axis, np.dtype("int64"))))
    return make(Op.SELECT, (hot, broadcast_to(on, shape), broadcast_to(off, shape)))
