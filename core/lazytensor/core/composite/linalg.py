"""Contractions written on DOT_GENERAL: matmul with numpy/torch broadcasting
of batch dimensions, and tensordot; triangular and Cholesky solves with
broadcast batch dims."""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import broadcast_shapes, broadcast_to
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


def broadcast_batch(a: Node, b: Node) -> tuple[Node, Node]:
    """Two stacks of matrices with their leading (batch) dims broadcast together."""
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return broadcast_to(a, batch + a.shape[-2:]), broadcast_to(b, batch + b.shape[-2:])


def matmul(a: Node, b: Node) -> Node:
    """``a @ b`` with numpy semantics: 1-D operands are promoted to matrices
    and the added axis removed; leading (batch) dims broadcast. Operands
    must already share a dtype.

    Shape rule: (..., n, k) @ (..., k, m) -> (..., n, m).
    """
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("matmul: input operand does not have enough dimensions")
    a2 = make(Op.RESHAPE, (a,), (1, a.shape[0])) if a.ndim == 1 else a
    b2 = make(Op.RESHAPE, (b,), (b.shape[0], 1)) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise ShapeError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature (n?,k),(k,m?)->(n?,m?) (size {b2.shape[-2]} is different from "
            f"{a2.shape[-1]})"
        )
    a3, b3 = broadcast_batch(a2, b2)
    batch = a3.shape[:-2]
    nb = len(batch)
    dims = (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    out = make(Op.DOT_GENERAL, (a3, b3), dims, None)
    shape = batch + ((a.shape[-2],) if a.ndim > 1 else ()) + ((b.shape[-1],) if b.ndim > 1 else ())
    return out if out.shape == shape else make(Op.RESHAPE, (out,), shape)


def tensordot(a: Node, b: Node, axes_a: tuple[int, ...], axes_b: tuple[int, ...]) -> Node:
    """Contract ``axes_a`` of a with ``axes_b`` of b; free dims of a then b."""
    return make(Op.DOT_GENERAL, (a, b), ((tuple(axes_a), tuple(axes_b)), ((), ())), None)


def triangular_solve(a: Node, b: Node, *, left: bool = True, lower: bool = True,
                     transpose: bool = False, unit: bool = False) -> Node:
    """x with op(a) @ x = b (``left``) or x @ op(a) = b, for triangular
    (..., n, n) stacks a (the ``lower`` or upper triangle is read; ``unit``
    takes its diagonal as ones; op(a) is a's transpose with ``transpose``).
    The batch dims of a and b broadcast; they share a floating dtype.

    Shape rule: (..., n, n), (..., n, k) -> (..., n, k) (left side).

    >>> import numpy as np
    >>> from lazytensor.core.runtime import constant
    >>> a = constant(np.eye(3), np.dtype("float64"))
    >>> triangular_solve(a, constant(np.ones((2, 3, 1)), a.dtype)).shape
    (2, 3, 1)
    """
    a, b = broadcast_batch(a, b)
    return make(Op.TRIANGULAR_SOLVE, (a, b), left, lower, transpose, unit)


def cholesky_solve(factor: Node, b: Node, upper: bool = False) -> Node:
    """x with A @ x = b, given A's Cholesky ``factor``: L with A = L L^T, or
    U with A = U^T U (``upper``); two triangular solves (real dtypes).

    >>> import numpy as np
    >>> from lazytensor.core.runtime import constant
    >>> f = constant(np.eye(2) * 2.0, np.dtype("float32"))
    >>> cholesky_solve(f, constant(np.ones((2, 3)), f.dtype)).shape
    (2, 3)
    """
    lower = not upper
    y = triangular_solve(factor, b, lower=lower, transpose=upper)
    return triangular_solve(factor, y, lower=lower, transpose=lower)


def cholesky_inverse(factor: Node, upper: bool = False) -> Node:
    """A^-1 from A's Cholesky ``factor`` (see ``cholesky_solve``): the
    factor's stack solved against identity matrices; shape of ``factor``."""
    rows = make(Op.IOTA, (), dt.int64, factor.shape, factor.ndim - 2)
    cols = make(Op.IOTA, (), dt.int64, factor.shape, factor.ndim - 1)
    eye = make(Op.CONVERT, (make(Op.EQ, (rows, cols)),), factor.dtype)
    return cholesky_solve(factor, eye, upper)
