"""(forward, backward) pairs for the operations that return views in numpy
(and torch): basic indexing, transpose/permute, reshape, squeeze,
expand_dims and diagonal. They plug into ``runtime.ViewHandle``:
``forward(base) -> view`` and ``backward(base, new_view) -> new base``, so
that a write through the view reaches its base.

The index or axes are parsed once against the base's shape (errors are
raised when the view is made); the pair then holds only static data.

>>> import numpy as np
>>> from lazytensor.core.runtime import constant
>>> base = constant(np.zeros((3, 4)), np.dtype("float32"))
>>> forward, backward = view_of(base, (slice(None), 1))
>>> forward(base).shape, backward(base, forward(base)).shape
((3,), (3, 4))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lazytensor.core.composite import matrix, shape
from lazytensor.core.composite.indexing import apply_plan, plan_index, update_plan
from lazytensor.core.ir import Node
from lazytensor.core.registry import CoreError

Forward = Callable[[Node], Node]
Backward = Callable[[Node, Node], Node]
ViewPair = tuple[Forward, Backward]


class NotAViewError(CoreError, ValueError):
    """The index makes a copy in numpy (advanced indexing), not a view."""


def view_of(x: Node, index: Any) -> ViewPair:
    """The view ``x[index]`` for a basic index (ints, slices, None,
    Ellipsis); advanced indices raise ``NotAViewError`` (numpy copies)."""
    plan = plan_index(x.shape, index)
    if not plan.is_basic:
        raise NotAViewError("advanced (array) indexing returns a copy, not a view")
    return (lambda base: apply_plan(base, plan),
            lambda base, view: update_plan(base, plan, view))


def transpose_view(x: Node, axes: Sequence[int] | None = None) -> ViewPair:
    """The view ``x.transpose(axes)``; writes are transposed back."""
    perm = tuple(range(x.ndim))[::-1] if axes is None else \
        shape.normalize_axis_tuple(axes, x.ndim, "axis in transpose")
    shape.transpose(x, perm)  # validate now
    inverse = shape.inverse_permutation(perm)
    return (lambda base: shape.transpose(base, perm),
            lambda base, view: shape.transpose(view, inverse))


def moveaxis_view(x: Node, source: Any, destination: Any) -> ViewPair:
    """The view ``np.moveaxis(x, source, destination)``."""
    moved = shape.moveaxis(x, source, destination)
    perm = moved.attrs[0] if moved is not x else tuple(range(x.ndim))
    return transpose_view(x, perm)


def swapaxes_view(x: Node, axis1: int, axis2: int) -> ViewPair:
    """The view ``x.swapaxes(axis1, axis2)``."""
    perm = list(range(x.ndim))
    a, b = (shape.normalize_axis(a, x.ndim) for a in (axis1, axis2))
    perm[a], perm[b] = b, a
    return transpose_view(x, perm)


def _reshaping(new_shape: tuple[int, ...]) -> ViewPair:
    return (lambda base: shape.reshape(base, new_shape),
            lambda base, view: shape.reshape(view, base.shape))


def reshape_view(x: Node, new_shape: Any) -> ViewPair:
    """The view ``x.reshape(new_shape)`` (always a view for C-contiguous data)."""
    return _reshaping(shape.resolve_shape(shape.size(x), new_shape))


def squeeze_view(x: Node, axis: Any = None) -> ViewPair:
    """The view ``x.squeeze(axis)``."""
    return _reshaping(shape.squeeze(x, axis).shape)


def expand_dims_view(x: Node, axis: Any) -> ViewPair:
    """The view ``np.expand_dims(x, axis)``."""
    return _reshaping(shape.expand_dims(x, axis).shape)


def diagonal_view(x: Node, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ViewPair:
    """The view ``x.diagonal(offset, axis1, axis2)`` (read-only in numpy,
    writable in torch); writes replace the diagonal of the base."""
    matrix.diagonal(x, offset, axis1, axis2)  # validate now
    return (lambda base: matrix.diagonal(base, offset, axis1, axis2),
            lambda base, view: matrix.set_diagonal(base, view, offset, axis1, axis2))
