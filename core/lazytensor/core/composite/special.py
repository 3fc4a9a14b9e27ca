"""Special functions written in core ops for frontends that expose them
(torch.special, tf.math.special): polygamma of any order and orthogonal
polynomials evaluated by their three-term recurrences.

>>> import numpy as np
>>> from lazytensor.core.runtime import constant
>>> x = constant(np.array([-2.5, 0.5, 3.0]), np.dtype("float32"))
>>> polygamma(2, x).dtype, polygamma(1, x).shape
(dtype('float32'), (3,))
"""

from __future__ import annotations

import math
from functools import cache

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import npextra
from lazytensor.core.composite.elementwise import as_node, convert
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def _c(value, like: Node) -> Node:
    return as_node(value, like.dtype, like.shape)


@cache
def _cot_derivative(n: int) -> tuple[int, ...]:
    """Coefficients (lowest power first) of P_n with
    d^n/dz^n cot(z) = P_n(cot z): P_0(c) = c, P_{k+1} = -(1 + c^2) P_k'."""
    poly = (0, 1)
    for _ in range(n):
        deriv = [k * a for k, a in enumerate(poly)][1:] or [0]
        nxt = [0] * (len(deriv) + 2)
        for k, a in enumerate(deriv):  # -(1 + c^2) * deriv
            nxt[k] -= a
            nxt[k + 2] -= a
        poly = tuple(nxt)
    return poly


def _zeta_form(n: int, y: Node) -> Node:
    """psi^(n)(y) = (-1)^(n+1) n! zeta(n+1, y), right for y > 0."""
    z = make(Op.ZETA, (_c(float(n + 1), y), y))
    return make(Op.MUL, (_c((-1) ** (n + 1) * math.factorial(n), y), z))


def _reflected(n: int, x: Node) -> Node:
    """psi^(n)(x) for x < 1/2 by the reflection formula
    psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x))."""
    pix = make(Op.MUL, (x, _c(math.pi, x)))
    cot = make(Op.DIV, (make(Op.COS, (pix,)), make(Op.SIN, (pix,))))
    coeffs = _cot_derivative(n)
    poly = _c(float(coeffs[-1]), x)
    for a in reversed(coeffs[:-1]):
        poly = make(Op.ADD, (_c(float(a), x), make(Op.MUL, (cot, poly))))
    pole = make(Op.MUL, (_c(math.pi ** (n + 1), x), poly))
    mirror = _zeta_form(n, make(Op.SUB, (_c(1.0, x), x)))
    return make(Op.SUB, (make(Op.MUL, (_c(float((-1) ** n), x), mirror)), pole))


def polygamma(n: int, x: Node) -> Node:
    """The n-th derivative of digamma (n >= 1, a static order) of a float x:
    the Hurwitz zeta form for x >= 1/2, the reflection formula below (XLA's
    zeta is wrong for q below about -8). torch's values at the edges: order 1
    is evaluated in x's own dtype (so at a negative integer it is huge but
    finite where sin(pi x) rounds away from 0, as torch's trigamma) and is 0
    at +inf; higher orders are computed in float64, give (-1)^(n+1) inf at
    0, negative integers and -inf, and NaN at +inf."""
    if n < 1:
        raise ValueError(f"polygamma order must be >= 1, got {n}")
    work = x if n == 1 or x.dtype == dt.float64 else convert(x, dt.float64)
    low = make(Op.LT, (work, _c(0.5, work)))
    safe_low = make(Op.SELECT, (low, work, _c(0.0, work)))
    safe_high = make(Op.SELECT, (low, _c(1.0, work), work))
    out = make(Op.SELECT, (low, _reflected(n, safe_low), _zeta_form(n, safe_high)))
    pos_inf = make(Op.EQ, (work, _c(math.inf, work)))
    if n == 1:
        return make(Op.SELECT, (pos_inf, _c(0.0, work), out))
    nonpositive_int = npextra._and(make(Op.LE, (work, _c(0.0, work))),
                                   make(Op.EQ, (make(Op.FLOOR, (work,)), work)))
    pole = _c((-1) ** (n + 1) * math.inf, work)
    out = make(Op.SELECT, (nonpositive_int, pole, out))
    out = make(Op.SELECT, (pos_inf, _c(math.nan, work), out))
    return convert(out, x.dtype)


__all__ = ["polygamma"]
