"""Division and modulo with numpy 2's rules, written only in core ops: floor
division and remainder take the sign of the divisor, integer division by zero
gives 0, float modulo snaps as numpy's ``npy_divmod``; C's fmod; truncating
integer quotients; reciprocals.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> a = constant(np.array([-7, 7]), np.dtype("int32"))
>>> b = constant(np.array([2, -2]), np.dtype("int32"))
>>> floor_divide(a, b).dtype, floor_divide(a, b).shape
(dtype('int32'), (2,))
"""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import const, convert, full
from lazytensor.core.composite.elementwise.predicates import _and, _sel, copysign
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, make


def _int_divmod(a: Node, b: Node) -> tuple[Node, Node]:
    zero = make(Op.EQ, (b, const(0, b)))
    safe = _sel(zero, const(1, b), b)
    q = make(Op.DIV, (a, safe))
    r = make(Op.REM, (a, safe))
    if a.dtype.kind == "i":  # C truncation -> floor: step down when signs differ
        fix = _and(make(Op.NE, (r, const(0, r))),
                   make(Op.NE, (make(Op.LT, (r, const(0, r))), make(Op.LT, (b, const(0, b))))))
        q = _sel(fix, make(Op.SUB, (q, const(1, q))), q)
        r = _sel(fix, make(Op.ADD, (r, b)), r)
    return _sel(zero, const(0, q), q), _sel(zero, const(0, r), r)


def _float_divmod(a: Node, b: Node) -> tuple[Node, Node]:
    """numpy's npy_divmod: fmod, then Python's sign convention, then snap."""
    mod = make(Op.REM, (a, b))
    div = make(Op.DIV, (make(Op.SUB, (a, mod)), b))
    zero, one = const(0.0, a), const(1.0, a)
    fix = _and(make(Op.NE, (mod, zero)),
               make(Op.NE, (make(Op.LT, (b, zero)), make(Op.LT, (mod, zero)))))
    mod = _sel(fix, make(Op.ADD, (mod, b)), _sel(make(Op.EQ, (mod, zero)),
                                                    copysign(zero, b), mod))
    div = _sel(fix, make(Op.SUB, (div, one)), div)
    floored = make(Op.FLOOR, (div,))
    up = make(Op.GT, (make(Op.SUB, (div, floored)), const(0.5, a)))
    floored = _sel(up, make(Op.ADD, (floored, one)), floored)
    quotient = make(Op.DIV, (a, b))
    floored = _sel(make(Op.EQ, (div, zero)), copysign(zero, quotient), floored)
    b_zero = make(Op.EQ, (b, zero))
    return _sel(b_zero, quotient, floored), _sel(b_zero, make(Op.REM, (a, b)), mod)


def divmod_(a: Node, b: Node) -> tuple[Node, Node]:
    """(floor_divide, remainder) with numpy's signs (remainder has b's sign)."""
    if dt.is_inexact(a.dtype):
        return _float_divmod(a, b)
    if dt.is_bool(a.dtype):
        a, b = convert(a, dt.int8), convert(b, dt.int8)
    return _int_divmod(a, b)


def floor_divide(a: Node, b: Node) -> Node:
    """a // b rounded toward -inf; integer x // 0 is 0, float x // 0 is x / 0."""
    return divmod_(a, b)[0]


def remainder(a: Node, b: Node) -> Node:
    """a % b with the sign of b; integer x % 0 is 0, float x % 0 is NaN."""
    return divmod_(a, b)[1]


def fmod(a: Node, b: Node) -> Node:
    """C fmod: the sign of a; integer x fmod 0 is 0."""
    if dt.is_inexact(a.dtype):
        return make(Op.REM, (a, b))
    zero = make(Op.EQ, (b, const(0, b)))
    r = make(Op.REM, (a, _sel(zero, const(1, b), b)))
    return _sel(zero, const(0, r), r)


def true_divide(a: Node, b: Node) -> Node:
    return make(Op.DIV, (a, b))


def reciprocal(x: Node) -> Node:
    """1 / x (integers: truncating, 1 / 0 gives 0)."""
    if dt.is_inexact(x.dtype):
        return make(Op.DIV, (const(1, x), x))
    return fmod_quotient(const(1, x), x)


def fmod_quotient(a: Node, b: Node) -> Node:
    """Truncating integer division with x / 0 = 0."""
    zero = make(Op.EQ, (b, const(0, b)))
    q = make(Op.DIV, (a, _sel(zero, const(1, b), b)))
    return _sel(zero, const(0, q), q)


# ------------------------------------------------------- integer divisors

def _euclid_steps(dtype) -> int:
    """Euclid's algorithm needs at most log_phi(2**bits) steps (Lamé)."""
    bits = 8 * dtype.itemsize
    return int(math.ceil(bits * math.log(2) / math.log((1 + 5 ** 0.5) / 2))) + 2


def gcd(a: Node, b: Node) -> Node:
    """Greatest common divisor of |a| and |b| (0 when both are 0), integers
    only; Euclid's algorithm unrolled to its worst-case length for the dtype.

    Shape/dtype rule: a and b share shape and dtype; the result has them."""
    if not dt.is_int(a.dtype):
        raise DTypeError(f"gcd: expected integer operands, got {a.dtype}")
    x, y = _abs(a), _abs(b)
    zero = full(x.shape, 0, x.dtype)
    one = full(x.shape, 1, x.dtype)
    for _ in range(_euclid_steps(a.dtype)):
        done = make(Op.EQ, (y, zero))
        safe = make(Op.SELECT, (done, one, y))
        rest = make(Op.REM, (x, safe))
        x, y = make(Op.SELECT, (done, x, y)), make(Op.SELECT, (done, zero, rest))
    return x


def lcm(a: Node, b: Node) -> Node:
    """Least common multiple |a * b| / gcd(a, b) (0 when either is 0)."""
    g = gcd(a, b)
    zero = full(g.shape, 0, g.dtype)
    is_zero = make(Op.EQ, (g, zero))
    safe = make(Op.SELECT, (is_zero, full(g.shape, 1, g.dtype), g))
    out = make(Op.MUL, (_abs(a), make(Op.DIV, (_abs(b), safe))))
    return make(Op.SELECT, (is_zero, zero, out))


def _abs(x: Node) -> Node:
    return x if dt.is_unsigned(x.dtype) else make(Op.ABS, (x,))
