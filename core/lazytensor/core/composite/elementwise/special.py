"""Special functions written in core ops for frontends that expose them
(torch.special, tf.math.special): polygamma of any order and orthogonal
polynomials evaluated by their three-term recurrences.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.array([-2.5, 0.5, 3.0]), np.dtype("float32"))
>>> polygamma(2, x).dtype, polygamma(1, x).shape
(dtype('float32'), (3,))
"""

from __future__ import annotations

import math
from functools import cache

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import predicates
from lazytensor.core.composite.elementwise import rounding as rounding
from lazytensor.core.composite.elementwise.apply import as_node, convert
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
    nonpositive_int = predicates._and(make(Op.LE, (work, _c(0.0, work))),
                                   make(Op.EQ, (make(Op.FLOOR, (work,)), work)))
    pole = _c((-1) ** (n + 1) * math.inf, work)
    out = make(Op.SELECT, (nonpositive_int, pole, out))
    out = make(Op.SELECT, (pos_inf, _c(math.nan, work), out))
    return convert(out, x.dtype)


def _two(x: Node) -> Node:
    return make(Op.ADD, (x, x))


def _chebyshev(first):
    """Chebyshev kinds: P_0 = 1, P_1 = first(x), P_k = 2x P_{k-1} - P_{k-2}."""
    def step(k: int, x: Node, older: Node, old: Node) -> Node:
        return make(Op.SUB, (make(Op.MUL, (_two(x), old)), older))

    return first, step


def _weighted(first, a, b, c):
    """P_1 = first(x), P_k = ((a(k) x + b(k)) P_{k-1} - c(k) P_{k-2}) / d(k)
    with a, b, c, d given as ``(k) -> number`` (d folded into a, b, c)."""
    def step(k: int, x: Node, older: Node, old: Node) -> Node:
        lin = make(Op.MUL, (x, _c(float(a(k)), x)))
        if b(k):
            lin = make(Op.ADD, (lin, _c(float(b(k)), x)))
        lin = make(Op.MUL, (lin, old))
        return make(Op.SUB, (lin, make(Op.MUL, (_c(float(c(k)), x), older))))

    return first, step


_ORTHOGONAL = {
    "chebyshev_t": _chebyshev(lambda x: x),
    "chebyshev_u": _chebyshev(_two),
    "chebyshev_v": _chebyshev(lambda x: make(Op.SUB, (_two(x), _c(1.0, x)))),
    "chebyshev_w": _chebyshev(lambda x: make(Op.ADD, (_two(x), _c(1.0, x)))),
    "hermite_h": _weighted(_two, lambda k: 2, lambda k: 0, lambda k: 2 * (k - 1)),
    "hermite_he": _weighted(lambda x: x, lambda k: 1, lambda k: 0, lambda k: k - 1),
    "laguerre_l": _weighted(lambda x: make(Op.SUB, (_c(1.0, x), x)), lambda k: -1 / k,
                            lambda k: (2 * k - 1) / k, lambda k: (k - 1) / k),
    "legendre_p": _weighted(lambda x: x, lambda k: (2 * k - 1) / k, lambda k: 0,
                            lambda k: (k - 1) / k),
}
ORTHOGONAL_KINDS = frozenset(_ORTHOGONAL) | {f"shifted_{k}" for k in _ORTHOGONAL
                                             if k.startswith("chebyshev")}


def orthogonal_polynomial(kind: str, x: Node, n: Node, n_max: int) -> Node:
    """The orthogonal polynomial ``kind`` (chebyshev_t/u/v/w and their
    ``shifted_`` forms at 2x - 1, hermite_h, hermite_he, laguerre_l,
    legendre_p) of degree trunc(n) at x, by its three-term recurrence
    unrolled to the static bound ``n_max`` (the largest degree in n); 0
    where trunc(n) < 0 (torch's value); x and n share dtype and shape.
    Narrower floats step in float64 (the recurrence amplifies rounding near
    |x| = 1), except where the recurrence in their own dtype overflows: its
    inf or NaN is kept, as torch's kernel gives it.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([0.5, 2.0]), np.dtype("float32"))
    >>> n = constant(np.array([3.0, 2.0]), np.dtype("float32"))
    >>> orthogonal_polynomial("legendre_p", x, n, 3).shape
    (2,)
    """
    own = _unrolled(kind, x, n, n_max)
    if x.dtype == dt.float64:
        return own
    wide = _unrolled(kind, convert(x, dt.float64), convert(n, dt.float64), n_max)
    return make(Op.SELECT, (predicates.isfinite(own), convert(wide, x.dtype), own))


def _unrolled(kind: str, x: Node, n: Node, n_max: int) -> Node:
    if kind.startswith("shifted_"):
        kind, x = kind[len("shifted_"):], make(Op.SUB, (_two(x), _c(1.0, x)))
    first, step = _ORTHOGONAL[kind]
    degree = rounding.trunc(n)

    def at(k: int, value: Node, out: Node) -> Node:
        return make(Op.SELECT, (make(Op.EQ, (degree, _c(float(k), n))), value, out))

    older, old = _c(1.0, x), first(x)
    out = at(0, older, _c(0.0, x))
    if n_max >= 1:
        out = at(1, old, out)
    for k in range(2, n_max + 1):
        older, old = old, step(k, x, older, old)
        out = at(k, old, out)
    return out


__all__ = ["ORTHOGONAL_KINDS", "orthogonal_polynomial", "polygamma"]


def digamma(x: Node) -> Node:
    """digamma with its poles signed at zero, -inf at +0 and +inf at -0 (as
    torch and scipy give; XLA's DIGAMMA gives NaN there). x's shape, dtype."""
    inf = as_node(math.inf, x.dtype, x.shape)
    pole = make(Op.SELECT, (predicates.signbit(x), inf, make(Op.NEG, (inf,))))
    zero = make(Op.EQ, (x, as_node(0, x.dtype, x.shape)))
    return make(Op.SELECT, (zero, pole, make(Op.DIGAMMA, (x,))))


def zeta(x: Node, q: Node) -> Node:
    """Hurwitz zeta(x, q) with the edge values of torch's (and scipy's)
    kernel: NaN for x < 1 (XLA's zeta(0, 0) is inf), inf at the poles
    q = 0, -1, -2... (XLA: NaN). x and q share shape and dtype."""
    pole = make(Op.AND, (make(Op.LE, (q, as_node(0, q.dtype, q.shape))),
                         make(Op.EQ, (q, make(Op.FLOOR, (q,))))))
    out = make(Op.SELECT, (pole, as_node(math.inf, x.dtype, x.shape), make(Op.ZETA, (x, q))))
    below = make(Op.LT, (x, as_node(1, x.dtype, x.shape)))
    return make(Op.SELECT, (below, as_node(math.nan, x.dtype, x.shape), out))
