"""Axis arguments with numpy's rules: a possibly negative axis or a set of
axes checked against a rank (``AxisError``, numpy's IndexError and
ValueError, with numpy's words), and reduced axes put back as size 1. Every
family that takes an ``axis`` argument uses these.

>>> normalize_axes(-1, 3), normalize_axis(-2, 2)
((2,), 0)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


class AxisError(ShapeError, IndexError):
    """An axis out of range (numpy's AxisError is a ValueError and IndexError)."""


def normalize_axis(axis: int, ndim: int) -> int:
    """A possibly negative axis as an index in ``range(ndim)``; a float
    axis is a TypeError (as numpy and torch), never truncated."""
    axis = operator.index(axis)
    if not -ndim <= axis < max(ndim, 1) or (ndim == 0 and axis not in (0, -1)):
        raise AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else 0


def normalize_axes(axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """``None`` -> all axes; an int or a sequence -> sorted non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Sequence) or getattr(axis, "ndim", 0):
        axes = tuple(axis)
    else:  # an int, or anything with __index__ (a 0-d integer array), as numpy
        axes = (operator.index(axis),)
    out = tuple(sorted(normalize_axis(a, ndim) for a in axes))
    if len(set(out)) != len(out):
        raise ShapeError("repeated axis")
    return out


def keep_dims(reduced: Node, shape: tuple[int, ...], axes: tuple[int, ...]) -> Node:
    """Re-insert reduced axes as size 1."""
    kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
    return make(Op.RESHAPE, (reduced,), kept)
