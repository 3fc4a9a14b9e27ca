"""numpy-style functions whose semantics numpy and tf.experimental.numpy
share and that no other composite module holds: gcd, lcm, cross, the
contraction family (tensordot with numpy's ``axes``, dot, inner, outer,
vdot, kron), sinc, the NaN-ignoring and weighted
statistics (nan_to, ptp, count_nonzero, average), select and ix.

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
from collections.abc import Sequence

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite.linalg import tensordot as _dot_general
from lazytensor.core.composite.npextra import isnan, mul_and, truthy
from lazytensor.core.composite.reduction import (
    count,
    normalize_axes,
    normalize_axis,
    reduce,
    reduce_or_identity,
)
from lazytensor.core.composite.shape import (
    as_axes,
    moveaxis,
    ravel,
    reshape,
    slice_axis,
    squeeze,
    stack,
)
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


# ------------------------------------------------------------ contractions
# Operands share one dtype (the frontend promoted them); bools contract in
# int32 and give ``result != 0``, as numpy's logical dot.


def multiply(a: Node, b: Node) -> Node:
    """a * b broadcast (bools: logical and)."""
    return mul_and(*_broadcast_all([a, b]))


def contract(x: Node, y: Node, axes_x: tuple[int, ...], axes_y: tuple[int, ...]) -> Node:
    """Sum over ``axes_x`` of x paired with ``axes_y`` of y; the free axes of
    x, then of y. ShapeError (numpy's words) when paired sizes differ."""
    for i, j in zip(axes_x, axes_y, strict=True):
        if x.shape[i] != y.shape[j]:
            raise ShapeError(f"shapes {x.shape} and {y.shape} not aligned: {x.shape[i]} (dim "
                             f"{i}) != {y.shape[j]} (dim {j})")
    if dt.is_bool(x.dtype):
        out = _dot_general(ew.convert(x, dt.int32), ew.convert(y, dt.int32), axes_x, axes_y)
        return make(Op.NE, (out, ew.full(out.shape, 0, out.dtype)))
    return _dot_general(x, y, tuple(axes_x), tuple(axes_y))


def tensordot(x: Node, y: Node, axes=2) -> Node:
    """numpy.tensordot: ``axes`` an int (last n of x with first n of y) or a
    pair of axis sequences."""
    if isinstance(axes, int):
        axes_x, axes_y = tuple(range(x.ndim - axes, x.ndim)), tuple(range(axes))
    else:
        axes_x, axes_y = (as_axes(a) for a in axes)
        if len(axes_x) != len(axes_y):
            raise ShapeError("shape-mismatch for sum")
    return contract(x, y, tuple(normalize_axis(i, x.ndim) for i in axes_x),
                    tuple(normalize_axis(i, y.ndim) for i in axes_y))


def dot(x: Node, y: Node) -> Node:
    """numpy.dot: scalars multiply; else the last axis of x with the last
    (1-d y) or second-to-last axis of y."""
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    return contract(x, y, (x.ndim - 1,), (0 if y.ndim == 1 else y.ndim - 2,))


def inner(x: Node, y: Node) -> Node:
    """numpy.inner: scalars multiply; else over the last axes of both."""
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    return contract(x, y, (x.ndim - 1,), (y.ndim - 1,))


def outer(x: Node, y: Node) -> Node:
    """numpy.outer of the ravels: shape (x.size, y.size)."""
    return multiply(reshape(ravel(x), (-1, 1)), reshape(ravel(y), (1, -1)))


def vdot(x: Node, y: Node) -> Node:
    """numpy.vdot: conj(ravel(x)) . ravel(y)."""
    x = make(Op.CONJ, (x,)) if dt.is_complex(x.dtype) else x
    return contract(ravel(x), ravel(y), (0,), (0,))


def kron(x: Node, y: Node) -> Node:
    """numpy.kron: the block product; ranks aligned by leading 1s."""
    nd = max(x.ndim, y.ndim)
    x = reshape(x, (1,) * (nd - x.ndim) + x.shape)
    y = reshape(y, (1,) * (nd - y.ndim) + y.shape)
    spread = multiply(reshape(x, tuple(v for s in x.shape for v in (s, 1))),
                      reshape(y, tuple(v for s in y.shape for v in (1, s))))
    return reshape(spread, tuple(p * q for p, q in zip(x.shape, y.shape, strict=True)))


def sinc(x: Node) -> Node:
    """sin(pi x) / (pi x), 1 at 0 (x floating)."""
    pix = make(Op.MUL, (x, ew.full(x.shape, math.pi, x.dtype)))
    ratio = make(Op.DIV, (make(Op.SIN, (pix,)), pix))
    zero = make(Op.EQ, (x, ew.full(x.shape, 0, x.dtype)))
    return make(Op.SELECT, (zero, ew.full(x.shape, 1, x.dtype), ratio))


# --------------------------------------------------------------- statistics


def nan_to(x: Node, value) -> Node:
    """x with its NaNs replaced by ``value`` (non-floats unchanged)."""
    if not dt.is_inexact(x.dtype):
        return x
    return make(Op.SELECT, (isnan(x), ew.full(x.shape, value, x.dtype), x))


def ptp(x: Node, axis=None, keepdims: bool = False, identity_if_empty: bool = False) -> Node:
    """max - min over ``axis``; an empty axis raises (numpy), or, with
    ``identity_if_empty``, subtracts the identities (TensorFlow: -inf)."""
    extreme = reduce_or_identity if identity_if_empty else reduce
    return make(Op.SUB, (extreme("max", x, axis, keepdims), extreme("min", x, axis, keepdims)))


def count_nonzero(x: Node, axis=None, keepdims: bool = False) -> Node:
    """Number of nonzero (truthy) elements, int64."""
    return reduce("sum", ew.convert(truthy(x), dt.int64), axis, keepdims)


def average(x: Node, axis: int | None = None, weights: Node | None = None,
            keepdims: bool = False) -> tuple[Node, Node]:
    """numpy.average as ``(average, sum of weights)``; x and weights share a
    floating dtype; 1-d weights pair with ``axis`` of x, as in numpy."""
    if weights is None:
        summed = reduce("sum", x, axis, keepdims)
        total = ew.full(summed.shape, float(count(x, normalize_axes(axis, x.ndim))), x.dtype)
        return make(Op.DIV, (summed, total)), total
    if weights.shape != x.shape:
        if axis is None or weights.ndim != 1:
            raise ShapeError("Axis must be specified when shapes of a and weights differ.")
        n = normalize_axis(axis, x.ndim)
        weights = ew.broadcast_to(reshape(weights, tuple(
            weights.shape[0] if d == n else 1 for d in range(x.ndim))), x.shape)
    total = reduce("sum", weights, axis, keepdims)
    avg = make(Op.DIV, (reduce("sum", make(Op.MUL, (x, weights)), axis, keepdims), total))
    return avg, total


def select(conditions: Sequence[Node], choices: Sequence[Node], default: Node) -> Node:
    """numpy.select: the first choice whose condition holds, else default
    (all broadcast together; choices and default share a dtype)."""
    if len(conditions) != len(choices):
        raise ShapeError("list of cases must be same length as list of conditions")
    out = default
    for cond, choice in zip(conditions[::-1], choices[::-1], strict=True):
        cond, choice, out = _broadcast_all([ew.convert(cond, dt.bool_), choice, out])
        out = make(Op.SELECT, (cond, choice, out))
    return out


def ix(*indices: Node) -> list[Node]:
    """numpy.ix_ for 1-d integer index arrays: each reshaped to broadcast
    along its own axis of an open mesh."""
    out = []
    for i, x in enumerate(indices):
        if x.ndim != 1:
            raise ShapeError("Cross index must be 1 dimensional")
        out.append(reshape(x, tuple(-1 if j == i else 1 for j in range(len(indices)))))
    return out
