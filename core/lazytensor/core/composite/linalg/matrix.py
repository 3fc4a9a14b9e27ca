"""Matrix-structure composites with numpy's conventions: tril/triu,
diagonal (and its inverse, writing a diagonal back), fill_diagonal, diag,
diagflat, trace.

The diagonal is read with slices and a reshape, never a gather: the (L, L)
corner that holds it is flattened and sliced with stride L + 1.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((2, 3, 4)), np.dtype("float32"))
>>> v = diagonal(diagonal(x, 0, 1, 2))  # (2, 3) -> (2,)
>>> diagonal(x, 1, 1, 2).shape, tril(x, -1).shape, diag(v, 1).shape
((2, 3), (2, 3, 4), (3, 3))
"""

from __future__ import annotations

import math

import numpy as np
from lazytensor.core.composite.creation.arrays import tri_mask
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement.rearrange import resized
from lazytensor.core.composite.movement.shape import (
    concatenate,
    moveaxis,
    ravel,
    reshape,
    slice_axis,
)
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.composite.reduce.reduction import reduce
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


def _triangle(x: Node, k: int, lower: bool) -> Node:
    if x.ndim == 0:
        raise ShapeError("tril/triu: input must be at least 1-d")
    n, m = x.shape[-2:] if x.ndim >= 2 else (x.shape[0], x.shape[0])
    mask = tri_mask(n, m, k if lower else k - 1)
    if not lower:
        mask = make(Op.NOT, (mask,))
    shape = ew.broadcast_shapes(x.shape, (n, m))
    mask = ew.broadcast_to(mask, shape)
    return make(Op.SELECT, (mask, ew.broadcast_to(x, shape), ew.full(shape, 0, x.dtype)))


def tril(x: Node, k: int = 0) -> Node:
    """Zero the elements above the k-th diagonal of the last two axes (a 1-d
    input is broadcast to a square matrix first, as numpy does)."""
    return _triangle(x, k, lower=True)


def triu(x: Node, k: int = 0) -> Node:
    """Zero the elements below the k-th diagonal of the last two axes."""
    return _triangle(x, k, lower=False)


def diagonal_length(n: int, m: int, offset: int) -> int:
    """How many elements the ``offset`` diagonal of an (n, m) matrix has."""
    return max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))


def _last_two(x: Node, axis1: int, axis2: int) -> tuple[Node, int, int]:
    if x.ndim < 2:
        raise ShapeError("diag requires an array of at least two dimensions")
    a, b = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    if a == b:
        raise ShapeError("axis1 and axis2 cannot be the same")
    return moveaxis(x, (a, b), (-2, -1)), a, b


def diagonal(x: Node, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Node:
    """numpy.diagonal: the other axes in order, then the diagonal's axis.

    Shape rule: x.shape without axis1/axis2, plus (L,), L the diagonal length."""
    y, _, _ = _last_two(x, axis1, axis2)
    *batch, n, m = y.shape
    length = diagonal_length(n, m, offset)
    row0, col0 = ((0, offset) if offset >= 0 else (-offset, 0)) if length else (0, 0)
    nb = len(batch)
    corner = make(Op.SLICE, (y,), (0,) * nb + (row0, col0),
                  (*batch, row0 + length, col0 + length), (1,) * (nb + 2))
    flat = reshape(corner, (*batch, length * length))
    if length <= 1:
        return reshape(flat, (*batch, length))
    return make(Op.SLICE, (flat,), (0,) * (nb + 1), (*batch, length * length),
                (1,) * nb + (length + 1,))


def set_diagonal(x: Node, values: Node, offset: int = 0, axis1: int = 0,
                 axis2: int = 1) -> Node:
    """x with its ``offset`` diagonal (over axis1, axis2) replaced by
    ``values``, which broadcast to ``diagonal(x, offset, axis1, axis2).shape``.
    The inverse of ``diagonal`` for writes through a diagonal view."""
    y, a, b = _last_two(x, axis1, axis2)
    *batch, n, m = y.shape
    length = diagonal_length(n, m, offset)
    values = ew.broadcast_to(ew.convert(values, x.dtype), (*batch, length))
    along_rows = offset >= 0  # the diagonal's i-th element sits in row i (else column i)
    full_len = n if along_rows else m
    pad_cfg = ((0, 0, 0),) * len(batch) + ((0, full_len - length, 0),)
    values = make(Op.PAD, (values, ew.full((), 0, x.dtype)), pad_cfg)
    dims = tuple(range(len(batch))) + ((len(batch),) if along_rows else (len(batch) + 1,))
    spread = make(Op.BROADCAST_IN_DIM, (values,), y.shape, dims)
    mask = ew.broadcast_to(_diagonal_mask(n, m, offset), y.shape)
    out = make(Op.SELECT, (mask, spread, y))
    return moveaxis(out, (-2, -1), (a, b))


def fill_diagonal(x: Node, value: ew.Operand, wrap: bool = False) -> Node:
    """numpy.fill_diagonal (torch's ``fill_diagonal_``) as a new node: x with
    its main diagonal set to ``value`` (a scalar, or a Node whose ravel
    repeats along the diagonal). A 2-d x: the diagonal of its first
    min(shape) rows, or with ``wrap`` of a tall matrix every ``ncols + 1``-th
    flat element (restarting below the square); more dims: all sides equal.

    >>> from lazytensor.core.leaves import constant
    >>> fill_diagonal(constant(np.zeros((5, 2)), np.dtype("float32")), 1.0, True).shape
    (5, 2)
    """
    shape = x.shape
    if x.ndim < 2:
        raise ShapeError("array must be at least 2-d")
    if x.ndim > 2 and len(set(shape)) > 1:
        raise ShapeError("All dimensions of input must be of equal length")
    plain = x.ndim == 2 and not wrap
    # numpy's flat positions: every step-th element (up to ncols rows unless wrapping)
    step = shape[1] + 1 if x.ndim == 2 else 1 + sum(math.prod(shape[:i])
                                                     for i in range(1, x.ndim))
    size = math.prod(shape)
    length = min(shape) if plain else len(range(0, size, step))
    if isinstance(value, Node) and value.ndim:
        values = resized(ew.convert(value, x.dtype), length)
    else:
        values = ew.as_node(value, x.dtype, ())
    if plain:
        return set_diagonal(x, values)
    # the flat positions 0, step, 2 step...: column 0 of the ravel padded to (length, step)
    flat = make(Op.PAD, (ravel(x), ew.full((), 0, x.dtype)), ((0, length * step - size, 0),))
    rows = reshape(flat, (length, step))
    column = ew.broadcast_to(reshape(values, (-1, 1)) if values.ndim else values, (length, 1))
    rows = concatenate([column, slice_axis(rows, 1, 1, step)], 1)
    return reshape(slice_axis(ravel(rows), 0, 0, size), shape)


def _diagonal_mask(n: int, m: int, offset: int) -> Node:
    upper = tri_mask(n, m, offset)
    below = tri_mask(n, m, offset - 1)
    return make(Op.AND, (upper, make(Op.NOT, (below,))))


def diag(v: Node, k: int = 0) -> Node:
    """numpy.diag: a 1-d input becomes a square matrix with it on the k-th
    diagonal; a 2-d input gives its k-th diagonal."""
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ShapeError("Input must be 1- or 2-d.")
    n = v.shape[0] + abs(k)
    return set_diagonal(ew.full((n, n), 0, v.dtype), v, k)


def diagflat(v: Node, k: int = 0) -> Node:
    """numpy.diagflat: the flattened input on the k-th diagonal."""
    return diag(ravel(v), k)


def trace(x: Node, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: np.dtype | None = None) -> Node:
    """Sum along a diagonal; ``dtype`` is the accumulation dtype (numpy sums
    small integers as int64: the caller passes it)."""
    return reduce("sum", diagonal(x, offset, axis1, axis2), -1, dtype=dtype)
