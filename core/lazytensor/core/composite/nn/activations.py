"""Activation functions and their gradients, written only in core ops,
shared by every frontend (torch.nn.functional, tf.nn, jax.nn-style APIs).

Each function takes a floating Node and returns one of the same shape and
dtype; user-chosen numbers (slopes, thresholds) become scalar parameters,
the math's own constants are compile-time constants.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.linspace(-2, 2, 5), np.dtype("float32"))
>>> gelu(x).shape, gelu(x, approximate="tanh").dtype
((5,), dtype('float32'))
"""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement.shape import concatenate
from lazytensor.core.composite.reduce import reduction as red
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

_SQRT_HALF = 1.0 / math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _c(value, like: Node) -> Node:
    return const(value, like.dtype, like.shape)


def _p(value, like: Node) -> Node:
    return ew.as_node(value, like.dtype, like.shape)


def _mul(*xs: Node) -> Node:
    out = xs[0]
    for x in xs[1:]:
        out = make(Op.MUL, (out, x))
    return out


def _add(a: Node, b: Node) -> Node:
    return make(Op.ADD, (a, b))


def _sub(a: Node, b: Node) -> Node:
    return make(Op.SUB, (a, b))


def _sel(pred: Node, a: Node, b: Node) -> Node:
    return make(Op.SELECT, (pred, a, b))


def relu(x: Node) -> Node:
    """max(x, 0); shape and dtype of x. The zero is a filled scalar
    parameter, not a constant: one node where a constant takes two (a
    scalar and its broadcast), on a training step's hot path.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> relu(constant(np.array([-1.0, 2.0]), np.dtype("float32"))).shape
    (2,)
    """
    return make(Op.MAX, (x, _p(0, x)))


def kinked_relu(x: Node, cap=None) -> Node:
    """max(x, 0), capped at ``cap`` when given (relu6), written as selects
    so that NaN passes through and the derivative at a kink (x == 0,
    x == cap) is 0, as TensorFlow's Relu/Relu6 gradients and torch's
    threshold/hardtanh backward define it (``relu``'s single MAX node
    gives a tie half the gradient, which autodiff would carry).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> kinked_relu(constant(np.array([-1.0, 7.0]), np.dtype("float32")), 6).shape
    (2,)
    """
    if cap is not None:
        x = _sel(make(Op.GE, (x, _p(cap, x))), _p(cap, x), x)
    return _sel(make(Op.LE, (x, _c(0, x))), _c(0, x), x)


def threshold_backward(grad: Node, x: Node, threshold: float) -> Node:
    """grad where x > threshold, else 0 (the gradient of relu/threshold)."""
    return _sel(make(Op.LE, (x, _p(threshold, x))), _c(0, grad), grad)


def shrink_backward(grad: Node, x: Node, lambd: float) -> Node:
    """grad outside [-lambd, lambd] (NaN x included), else 0: the gradient
    of hard and soft shrinkage."""
    inside = make(Op.AND, (make(Op.GE, (x, _p(-lambd, x))), make(Op.LE, (x, _p(lambd, x)))))
    return _sel(inside, _c(0, grad), grad)


def gelu(x: Node, approximate: str = "none") -> Node:
    """x * Phi(x); ``approximate="tanh"`` uses the tanh formula."""
    half = _mul(_c(0.5, x), x)
    if approximate == "tanh":
        inner = _mul(_c(_SQRT_2_OVER_PI, x), _add(x, _mul(_c(0.044715, x), x, x, x)))
        return _mul(half, _add(_c(1.0, x), make(Op.TANH, (inner,))))
    return _mul(half, _add(_c(1.0, x), make(Op.ERF, (_mul(x, _c(_SQRT_HALF, x)),))))


def gelu_backward(grad: Node, x: Node, approximate: str = "none") -> Node:
    if approximate == "tanh":
        x3 = _mul(_c(0.044715, x), x, x, x)
        inner = _mul(_c(_SQRT_2_OVER_PI, x), _add(x, x3))
        t = make(Op.TANH, (inner,))
        d_inner = _mul(_c(_SQRT_2_OVER_PI, x), _add(_c(1.0, x), _mul(_c(3.0 * 0.044715, x), x, x)))
        left = _mul(_c(0.5, x), _add(_c(1.0, x), t))
        right = _mul(_c(0.5, x), x, _sub(_c(1.0, x), _mul(t, t)), d_inner)
        return _mul(grad, _add(left, right))
    cdf = _mul(_c(0.5, x), _add(_c(1.0, x), make(Op.ERF, (_mul(x, _c(_SQRT_HALF, x)),))))
    pdf = _mul(_c(_INV_SQRT_2PI, x), make(Op.EXP, (_mul(_c(-0.5, x), x, x),)))
    return _mul(grad, _add(cdf, _mul(x, pdf)))


def silu(x: Node, beta: Node | float = 1.0) -> Node:
    """x * sigmoid(beta * x) (swish; beta 1 is torch's silu). ``beta`` is a
    number (a scalar parameter) or a node broadcastable to x.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> silu(constant(np.zeros(3), np.dtype("float32")), beta=2.0).shape
    (3,)
    """
    if isinstance(beta, (int, float)) and beta == 1.0:
        return _mul(x, make(Op.LOGISTIC, (x,)))
    return _mul(x, make(Op.LOGISTIC, (_mul(x, _p(beta, x)),)))


def silu_backward(grad: Node, x: Node) -> Node:
    s = make(Op.LOGISTIC, (x,))
    return _mul(grad, s, _add(_c(1.0, x), _mul(x, _sub(_c(1.0, x), s))))


def sigmoid_backward(grad: Node, y: Node) -> Node:
    """From the output y = sigmoid(x): g * y * (1 - y)."""
    return _mul(grad, y, _sub(_c(1.0, y), y))


def tanh_backward(grad: Node, y: Node) -> Node:
    """From the output y = tanh(x): g * (1 - y^2)."""
    return _mul(grad, _sub(_c(1.0, y), _mul(y, y)))


def softplus(x: Node, beta: float = 1.0, threshold: float = 20.0) -> Node:
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold."""
    bx = _mul(x, _p(beta, x))
    soft = make(Op.DIV, (make(Op.LOG1P, (make(Op.EXP, (bx,)),)), _p(beta, x)))
    return _sel(make(Op.GT, (bx, _p(threshold, x))), x, soft)


def mish(x: Node) -> Node:
    return _mul(x, make(Op.TANH, (softplus(x),)))


def crelu(x: Node, axis: int) -> Node:
    """Concatenated relu (Shang et al., 2016): relu of [x, -x] joined along
    ``axis``, which doubles in size."""
    return kinked_relu(concatenate([x, make(Op.NEG, (x,))], axis))


def elu(x: Node, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> Node:
    """scale * (x if x >= 0 else alpha * (exp(x * input_scale) - 1)); the
    derivative at 0 is the linear branch's (TensorFlow's Elu/Selu gradients)."""
    neg = _mul(_p(alpha, x), make(Op.EXPM1, (_mul(x, _p(input_scale, x)),)))
    return _mul(_p(scale, x), _sel(make(Op.LT, (x, _c(0, x))), neg, x))


# SELU's fixed point constants (Klambauer et al., 2017)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(x: Node) -> Node:
    """scale * elu(x, alpha) with SELU's constants (derivative at 0: scale)."""
    neg = _mul(_c(SELU_ALPHA, x), make(Op.EXPM1, (x,)))
    return _mul(_c(SELU_SCALE, x), _sel(make(Op.LT, (x, _c(0, x))), neg, x))


def softsign(x: Node) -> Node:
    """x / (1 + |x|)."""
    return make(Op.DIV, (x, _add(_c(1.0, x), make(Op.ABS, (x,)))))


def leaky_relu(x: Node, negative_slope: float = 0.01) -> Node:
    return _sel(make(Op.GT, (x, _c(0, x))), x, _mul(x, _p(negative_slope, x)))


def rrelu(x: Node, lower: float, upper: float, key: Node) -> tuple[Node, Node]:
    """Randomized leaky relu in training (Xu et al., 2015): each element <= 0
    scaled by its own slope drawn from U(lower, upper) (float32 draws from
    ``key``, cast to x's dtype). Returns (output, noise), noise the slope
    applied to each element (1 where x > 0), as torch's kernel stores it."""
    u = ew.convert(make(Op.RNG_UNIFORM, (key,), x.shape, dt.float32), x.dtype)
    slope = _add(_p(lower, x), _mul(u, _p(upper - lower, x)))
    negative = make(Op.LE, (x, _c(0, x)))
    return _sel(negative, _mul(x, slope), x), _sel(negative, slope, _c(1, x))


def hardtanh(x: Node, lo: float = -1.0, hi: float = 1.0) -> Node:
    return make(Op.MIN, (make(Op.MAX, (x, _p(lo, x))), _p(hi, x)))


def hardsigmoid(x: Node) -> Node:
    return _mul(hardtanh(_add(x, _c(3.0, x)), 0.0, 6.0), _c(1.0 / 6.0, x))


def hardswish(x: Node) -> Node:
    return _mul(x, hardsigmoid(x))


def log_sigmoid(x: Node) -> Node:
    """-softplus(-x), stable for large |x|."""
    neg = make(Op.MIN, (x, _c(0, x)))
    return _sub(neg, make(Op.LOG1P, (make(Op.EXP, (make(Op.NEG, (make(Op.ABS, (x,)),)),)),)))


def softmax(x: Node, axis: int, log: bool = False) -> Node:
    """softmax (``log``: log_softmax) along ``axis``, as torch and
    TensorFlow define the edge cases: a 0-d x is a single class (1, log 0),
    an empty x stays empty. Shape and dtype of x.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> softmax(constant(np.zeros((2, 0)), np.dtype("float32")), 1).shape
    (2, 0)
    """
    if x.ndim == 0:
        return _c(0.0 if log else 1.0, x)
    if 0 in x.shape:
        return x
    return red.log_softmax(x, axis) if log else red.softmax(x, axis)
