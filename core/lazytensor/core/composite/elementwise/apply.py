"""Node-level helpers every frontend uses: broadcasting, conversion, and
elementwise application with explicit convert/broadcast nodes (the core's
primitives are strict; these helpers make the implicit explicit).

Operands are Nodes or Python scalars; Python scalars become SCALAR
parameters (never recompiled when they change).

>>> import numpy as np
>>> broadcast_shapes((3, 1), (4,))
(3, 4)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.promotion import Policy, result_type
from lazytensor.core.ir import Node
from lazytensor.core.leaves import scalar
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make

Operand = Node | bool | int | float | complex


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """numpy's broadcasting of shapes; ShapeError (a ValueError) when they clash."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape, ndim - len(shape)):
            if size == out[i] or size == 1:
                continue
            if out[i] == 1:
                out[i] = size
            else:
                raise ShapeError(
                    "operands could not be broadcast together with shapes "
                    + " ".join(str(tuple(s)).replace(" ", "") for s in shapes)
                )
    return tuple(out)


def broadcast_to(x: Node, shape: tuple[int, ...]) -> Node:
    """``x`` broadcast (numpy rules, trailing alignment) to ``shape``."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ShapeError(f"cannot broadcast shape {x.shape} to {shape}")
    squeezed = [i for i, s in enumerate(x.shape) if s == 1 and shape[lead + i] != 1]
    if squeezed:  # size-1 dims that grow are dropped, then re-broadcast
        keep = tuple(s for i, s in enumerate(x.shape) if i not in squeezed)
        dims = tuple(lead + i for i in range(x.ndim) if i not in squeezed)
        x = make(Op.RESHAPE, (x,), keep)
    else:
        dims = tuple(range(lead, len(shape)))
    return make(Op.BROADCAST_IN_DIM, (x,), shape, dims)


def broadcast_all(xs: Sequence[Node]) -> list[Node]:
    """Nodes broadcast to their common shape (dtypes kept)."""
    shape = broadcast_shapes(*(x.shape for x in xs))
    return [broadcast_to(x, shape) for x in xs]


def convert(x: Node, dtype: np.dtype) -> Node:
    """``x`` as ``dtype`` (no node when it already is)."""
    return x if x.dtype == dtype else make(Op.CONVERT, (x,), dtype)


def float_or_float64(x: Node) -> Node:
    """``x`` itself when inexact, else converted to float64 (numpy's and
    tnp's float results of integer and bool input)."""
    return x if dt.is_inexact(x.dtype) else convert(x, dt.float64)


def as_node(value: Operand, dtype: np.dtype, shape: tuple[int, ...] = ()) -> Node:
    """A Node of ``dtype`` broadcast to ``shape`` from a Node or a Python scalar."""
    if isinstance(value, Node):
        return broadcast_to(convert(value, dtype), shape)
    return scalar(_cast_scalar(value, dtype), dtype, shape)


def const(value, like: Node) -> Node:
    """A scalar parameter of ``like``'s dtype broadcast to its shape."""
    return as_node(value, like.dtype, like.shape)


def _cast_scalar(value, dtype: np.dtype):
    if dt.is_bool(dtype):
        return bool(value)
    if dt.is_int(dtype):
        return int(value)
    if dt.is_complex(dtype):
        return complex(value)
    return float(value)


def weak_type(value: Operand):
    """The promotion operand for ``value``: its dtype, or its Python type."""
    if isinstance(value, Node):
        return value.dtype
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    if isinstance(value, complex):
        return complex
    raise TypeError(f"unsupported operand type {type(value).__name__}")


def operand_shape(value: Operand) -> tuple[int, ...]:
    return value.shape if isinstance(value, Node) else ()


def coerce(values: Sequence[Operand], dtype: np.dtype) -> list[Node]:
    """Operands converted to ``dtype`` and broadcast to their common shape."""
    shapes = {v.shape for v in values if isinstance(v, Node)}
    shape = shapes.pop() if len(shapes) == 1 else broadcast_shapes(*shapes)
    return [as_node(v, dtype, shape) for v in values]


def apply(op: Op, *values: Operand, dtype: np.dtype) -> Node:
    """``op`` over operands coerced to ``dtype`` and their broadcast shape."""
    return make(op, tuple(coerce(values, dtype)))


def promote(policy: Policy, *values: Operand) -> np.dtype:
    """The result dtype of an elementwise op over ``values`` under ``policy``."""
    return result_type(policy, *[v.dtype if isinstance(v, Node) else weak_type(v)
                                 for v in values])


def binary(op: Op, a: Operand, b: Operand, policy: Policy) -> Node:
    """``op(a, b)`` with ``policy``'s promotion and numpy broadcasting."""
    if isinstance(a, Node):
        if isinstance(b, Node):
            if a.shape == b.shape and a.dtype == b.dtype:  # hot path: nothing to insert
                return make(op, (a, b))
        else:  # hot path: array op Python scalar
            dtype = promote(policy, a, b)
            return make(op, (convert(a, dtype), scalar(_cast_scalar(b, dtype), dtype, a.shape)))
    return apply(op, a, b, dtype=promote(policy, a, b))


def where(cond: Node, a: Operand, b: Operand, policy: Policy) -> Node:
    """select(cond, a, b), broadcasting all three, promoting a and b."""
    dtype = promote(policy, a, b)
    shape = broadcast_shapes(cond.shape, operand_shape(a), operand_shape(b))
    return make(Op.SELECT, (
        as_node(cond, dt.bool_, shape), as_node(a, dtype, shape), as_node(b, dtype, shape),
    ))


def full(shape: Sequence[int], value: Operand, dtype: np.dtype) -> Node:
    """An array of ``shape`` filled with ``value`` (a parameter, not a constant)."""
    return as_node(value, dtype, tuple(shape))


def zeros_like(x: Node) -> Node:
    return full(x.shape, 0, x.dtype)
