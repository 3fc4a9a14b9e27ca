"""numpy-style functions whose semantics numpy and tf.experimental.numpy
share and that no other composite module holds: gcd, lcm, cross.

Operands already share one dtype (the frontend's promotion has run).

>>> import numpy as np
>>> from lazytensor.core.runtime import constant
>>> a = constant(np.array([12, -18]), np.dtype("int32"))
>>> b = constant(np.array([8, 12]), np.dtype("int32"))
>>> gcd(a, b).shape, cross(constant(np.eye(3), np.dtype("float32")),
...                         constant(np.ones((3, 3)), np.dtype("float32"))).shape
((2,), (3, 3))
"""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite.reduction import normalize_axis
from lazytensor.core.composite.shape import moveaxis, slice_axis, squeeze, stack
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make


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
    zero = ew.full(x.shape, 0, x.dtype)
    one = ew.full(x.shape, 1, x.dtype)
    for _ in range(_euclid_steps(a.dtype)):
        done = make(Op.EQ, (y, zero))
        safe = make(Op.SELECT, (done, one, y))
        rest = make(Op.REM, (x, safe))
        x, y = make(Op.SELECT, (done, x, y)), make(Op.SELECT, (done, zero, rest))
    return x


def lcm(a: Node, b: Node) -> Node:
    """Least common multiple |a * b| / gcd(a, b) (0 when either is 0)."""
    g = gcd(a, b)
    zero = ew.full(g.shape, 0, g.dtype)
    is_zero = make(Op.EQ, (g, zero))
    safe = make(Op.SELECT, (is_zero, ew.full(g.shape, 1, g.dtype), g))
    out = make(Op.MUL, (_abs(a), make(Op.DIV, (_abs(b), safe))))
    return make(Op.SELECT, (is_zero, zero, out))


def _abs(x: Node) -> Node:
    return x if dt.is_unsigned(x.dtype) else make(Op.ABS, (x,))


def _component(x: Node, axis: int, i: int) -> Node:
    return squeeze(slice_axis(x, axis, i, i + 1), axis)


def cross(a: Node, b: Node, axisa: int = -1, axisb: int = -1, axisc: int = -1) -> Node:
    """Cross product of 2- or 3-vectors along ``axisa``/``axisb`` (2-vectors
    have a zero z; two 2-vectors give the scalar z component), the other
    axes broadcast, the vector axis of the result at ``axisc``."""
    axisa, axisb = normalize_axis(axisa, a.ndim), normalize_axis(axisb, b.ndim)
    na, nb = a.shape[axisa], b.shape[axisb]
    if na not in (2, 3) or nb not in (2, 3):
        raise ShapeError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    parts = _broadcast_all([*(_component(a, axisa, i) for i in range(na)),
                            *(_component(b, axisb, i) for i in range(nb))])
    ua, ub = parts[:na], parts[na:]

    def mul(p: Node, q: Node) -> Node:
        return make(Op.MUL, (p, q))

    def sub(p: Node, q: Node) -> Node:
        return make(Op.SUB, (p, q))

    z = sub(mul(ua[0], ub[1]), mul(ua[1], ub[0]))
    if na == nb == 2:
        return z
    zero = ew.full(z.shape, 0, z.dtype)
    a3 = ua + [zero] * (3 - na)
    b3 = ub + [zero] * (3 - nb)
    out = stack([sub(mul(a3[1], b3[2]), mul(a3[2], b3[1])),
                 sub(mul(a3[2], b3[0]), mul(a3[0], b3[2])), z], -1)
    return moveaxis(out, -1, normalize_axis(axisc, out.ndim))


def _broadcast_all(xs: list[Node]) -> list[Node]:
    shape = ew.broadcast_shapes(*(x.shape for x in xs))
    return [ew.broadcast_to(x, shape) for x in xs]
