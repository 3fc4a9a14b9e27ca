"""numpy's products of arrays on DOT_GENERAL and broadcast multiplies: the
contraction family (tensordot with numpy's ``axes``, dot, inner, outer,
vdot, kron) and cross products of 2- and 3-vectors.

Operands already share one dtype (the frontend's promotion has run); bools
contract in int32 and give ``result != 0``, as numpy's logical dot.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> cross(constant(np.eye(3), np.dtype("float32")),
...       constant(np.ones((3, 3)), np.dtype("float32"))).shape
(3, 3)
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.arithmetic import mul_and
from lazytensor.core.composite.linalg.matmul import tensordot as _dot_general
from lazytensor.core.composite.movement.shape import (
    as_axes,
    moveaxis,
    ravel,
    reshape,
    slice_axis,
    squeeze,
    stack,
)
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


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
    parts = ew.broadcast_all([*(_component(a, axisa, i) for i in range(na)),
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


def multiply(a: Node, b: Node) -> Node:
    """a * b broadcast (bools: logical and)."""
    return mul_and(*ew.broadcast_all([a, b]))


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
