"""Contractions written on DOT_GENERAL: matmul with numpy/torch broadcasting
of batch dimensions, and tensordot; triangular and Cholesky solves with
broadcast batch dims; band and diagonal matrices of batched stacks."""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import eye
from lazytensor.core.composite.elementwise.apply import (
    Operand,
    as_node,
    broadcast_shapes,
    broadcast_to,
)
from lazytensor.core.composite.linalg.matrix import tril
from lazytensor.core.composite.movement.shape import slice_axis
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


def broadcast_batch(a: Node, b: Node) -> tuple[Node, Node]:
    """Two stacks of matrices with their leading (batch) dims broadcast together."""
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return broadcast_to(a, batch + a.shape[-2:]), broadcast_to(b, batch + b.shape[-2:])


_MATRIX_DIMS = (((1,), (0,)), ((), ()))  # what the general path gives two matrices


def matmul(a: Node, b: Node) -> Node:
    """``a @ b`` with numpy semantics: 1-D operands are promoted to matrices
    and the added axis removed; leading (batch) dims broadcast. Operands
    must already share a dtype.

    Shape rule: (..., n, k) @ (..., k, m) -> (..., n, m).
    """
    if len(a.shape) == 2 and len(b.shape) == 2 and a.shape[1] == b.shape[0]:
        return make(Op.DOT_GENERAL, (a, b), _MATRIX_DIMS, None)  # (the hot case: matrices)
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
                     transpose: bool = False, unit: bool = False,
                     conjugate: bool = False) -> Node:
    """x with op(a) @ x = b (``left``) or x @ op(a) = b, for triangular
    (..., n, n) stacks a (the ``lower`` or upper triangle is read; ``unit``
    takes its diagonal as ones; op(a) is a's transpose with ``transpose``,
    conjugated with ``conjugate``: the adjoint with both).
    The batch dims of a and b broadcast; they share a floating dtype.

    Shape rule: (..., n, n), (..., n, k) -> (..., n, k) (left side).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> a = constant(np.eye(3), np.dtype("float64"))
    >>> triangular_solve(a, constant(np.ones((2, 3, 1)), a.dtype)).shape
    (2, 3, 1)
    """
    a, b = broadcast_batch(a, b)
    if conjugate and dt.is_complex(a.dtype):
        a = make(Op.CONJ, (a,))
    return make(Op.TRIANGULAR_SOLVE, (a, b), left, lower, transpose, unit)


def cholesky_solve(factor: Node, b: Node, upper: bool = False) -> Node:
    """x with A @ x = b, given A's Cholesky ``factor``: L with A = L L^H, or
    U with A = U^H U (``upper``); two triangular solves (the second, or the
    first, with the adjoint).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> f = constant(np.eye(2) * 2.0, np.dtype("float32"))
    >>> cholesky_solve(f, constant(np.ones((2, 3)), f.dtype)).shape
    (2, 3)
    """
    lower = not upper
    y = triangular_solve(factor, b, lower=lower, transpose=upper, conjugate=upper)
    return triangular_solve(factor, y, lower=lower, transpose=lower, conjugate=lower)


def cholesky_inverse(factor: Node, upper: bool = False) -> Node:
    """A^-1 from A's Cholesky ``factor`` (see ``cholesky_solve``): the
    factor's stack solved against identity matrices; shape of ``factor``."""
    eye = make(Op.CONVERT, (_offsets(factor.shape, 0),), factor.dtype)
    return cholesky_solve(factor, eye, upper)


def _offsets(shape: tuple[int, ...], k: int | None = None) -> Node:
    """col - row over the last two axes of ``shape`` (int64), or, with
    ``k``, whether col - row == k (bool)."""
    rows = make(Op.IOTA, (), dt.int64, shape, len(shape) - 2)
    cols = make(Op.IOTA, (), dt.int64, shape, len(shape) - 1)
    offset = make(Op.SUB, (cols, rows))
    return offset if k is None else make(Op.EQ, (offset, as_node(k, dt.int64, shape)))


def band_part(x: Node, lower: int, upper: int) -> Node:
    """x with the entries outside the band zeroed: ``lower`` diagonals below
    the main one and ``upper`` above it are kept (a negative count keeps the
    whole triangle). Shape and dtype of x (..., m, n).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> band_part(constant(np.ones((2, 3, 3)), np.dtype("float32")), 0, -1).shape
    (2, 3, 3)
    """
    offset = _offsets(x.shape)
    keep = []
    if lower >= 0:
        keep.append(make(Op.GE, (offset, as_node(-lower, dt.int64, x.shape))))
    if upper >= 0:
        keep.append(make(Op.LE, (offset, as_node(upper, dt.int64, x.shape))))
    if not keep:
        return x
    mask = keep[0] if len(keep) == 1 else make(Op.AND, tuple(keep))
    return make(Op.SELECT, (mask, x, as_node(0, x.dtype, x.shape)))


def diag_embed(v: Node, k: int = 0, rows: int | None = None, cols: int | None = None,
               padding: Operand = 0) -> Node:
    """Matrices (..., rows, cols) with the last axis of ``v`` on their k-th
    diagonal and ``padding`` elsewhere: square (n + |k|) by default, else the
    missing size is the smallest that holds the diagonal (torch.diag_embed,
    tf.linalg.diag).

    >>> from lazytensor.core.leaves import constant
    >>> import numpy as np
    >>> v = constant(np.ones((2, 3)), np.dtype("float32"))
    >>> diag_embed(v).shape, diag_embed(v, 1).shape, diag_embed(v, -1, 5, 3).shape
    ((2, 3, 3), (2, 4, 4), (2, 5, 3))
    """
    n = v.shape[-1]
    square = rows is None and cols is None
    rows = n + (abs(k) if square else max(-k, 0)) if rows is None else rows
    cols = n + (abs(k) if square else max(k, 0)) if cols is None else cols
    if min(rows - max(-k, 0), cols - max(k, 0)) != n:
        raise ShapeError(f"diagonal of length {n} does not fit {rows}x{cols} matrices at k={k}")
    shape = v.shape[:-1] + (rows, cols)
    along = rows if k >= 0 else cols  # v[i] sits in row i (k >= 0), else in column i
    if along > n:
        pad = ((0, 0, 0),) * (v.ndim - 1) + ((0, along - n, 0),)
        v = make(Op.PAD, (v, as_node(0, v.dtype)), pad)
    v = make(Op.RESHAPE, (v,), v.shape[:-1] + ((along, 1) if k >= 0 else (1, along)))
    return make(Op.SELECT, (_offsets(shape, k), broadcast_to(v, shape),
                            as_node(padding, v.dtype, shape)))


def householder_product(a: Node, tau: Node) -> Node:
    """The first n columns of H_1 ... H_k (LAPACK's orgqr), where
    H_i = I - tau_i v_i v_i^H and v_i is column i of ``a`` below the diagonal
    with a unit diagonal entry.

    Shape rule: (..., m, n), (..., k) -> (..., m, n), k <= n <= m; one dtype.
    """
    m, n = a.shape[-2:]
    v = make(Op.ADD, (tril(a, -1), broadcast_to(eye(m, n, dtype=a.dtype), a.shape)))
    q = broadcast_to(eye(m, n, dtype=a.dtype), a.shape)
    for i in reversed(range(tau.shape[-1])):  # q <- H_i q, from H_k outwards
        vi = slice_axis(v, v.ndim - 1, i, i + 1)
        vh = make(Op.RESHAPE, (vi,), vi.shape[:-2] + (1, m))
        if dt.is_complex(a.dtype):
            vh = make(Op.CONJ, (vh,))
        ti = make(Op.RESHAPE, (slice_axis(tau, tau.ndim - 1, i, i + 1),), a.shape[:-2] + (1, 1))
        update = matmul(vi, matmul(vh, q))
        q = make(Op.SUB, (q, make(Op.MUL, (broadcast_to(ti, a.shape), update))))
    return q
