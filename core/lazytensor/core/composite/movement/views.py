"""(forward, backward) pairs for the operations that return views in numpy
(and torch): basic indexing, transpose/permute, reshape, squeeze,
expand_dims and diagonal. They plug into ``runtime.ViewHandle``:
``forward(base) -> view`` and ``backward(base, new_view) -> new base``, so
that a write through the view reaches its base.

The index or axes are parsed once against the base's shape (errors are
raised when the view is made); the pair then holds only static data.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> base = constant(np.zeros((3, 4)), np.dtype("float32"))
>>> forward, backward = view_of(base, (slice(None), 1))
>>> forward(base).shape, backward(base, forward(base)).shape
((3,), (3, 4))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from lazytensor.core.composite.elementwise.apply import as_node
from lazytensor.core.composite.indexing.subscript import apply_plan, plan_index, update_plan
from lazytensor.core.composite.linalg import matrix
from lazytensor.core.composite.movement import shape
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import CoreError, make

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
    return _Read(plan), lambda base, view: update_plan(base, plan, view)


class _Read:
    """The forward function of an indexing view; it keeps its plan, so that
    ``reads`` can tell which elements the view shows."""

    __slots__ = ("plan",)

    def __init__(self, plan) -> None:
        self.plan = plan

    def __call__(self, base: Node) -> Node:
        return apply_plan(base, self.plan)


def reads(forward: Forward, shape: tuple[int, ...], index: Any) -> bool:
    """Whether a view's ``forward`` (from ``view_of``) shows exactly
    ``x[index]`` of its base, whose shape is ``shape``: then writing the view
    back there (``x[i:j] += v`` stores ``x[i:j]`` into itself after the
    in-place add) changes nothing. ``index`` must be basic.

    >>> from lazytensor.core.leaves import constant
    >>> forward, _ = view_of(constant(np.zeros((3, 4)), np.dtype("float32")), (1, slice(2)))
    >>> reads(forward, (3, 4), (1, slice(2))), reads(forward, (3, 4), (1, slice(3)))
    (True, False)
    """
    return type(forward) is _Read and forward.plan == plan_index(shape, index)


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


def complex_as_real(v: Node) -> Node:
    """A complex array's (real, imag) pairs along a new last axis of 2
    (``torch.view_as_real``, numpy's ``view`` of complex as float).

    >>> import numpy as np
    >>> complex_as_real(as_node(1j, np.dtype("complex64"), (3,))).shape
    (3, 2)
    """
    parts = [shape.reshape(make(op, (v,)), (*v.shape, 1)) for op in (Op.REAL, Op.IMAG)]
    return make(Op.CONCATENATE, tuple(parts), v.ndim)


def real_as_complex(v: Node) -> Node:
    """The inverse of ``complex_as_real``: a last axis of (real, imag)
    pairs becomes complex values."""
    last = v.ndim - 1
    re, im = (shape.reshape(shape.slice_axis(v, last, i, i + 1), v.shape[:-1]) for i in (0, 1))
    return make(Op.COMPLEX, (re, im))


def complex_pair() -> ViewPair:
    """(forward, backward) of the real view of complex data."""
    return complex_as_real, lambda base, view: real_as_complex(view)


def real_pair() -> ViewPair:
    """(forward, backward) of the complex view of (real, imag) pairs."""
    return real_as_complex, lambda base, view: complex_as_real(view)


def bitcast(x: Node, dtype: np.dtype) -> Node:
    """``x``'s bytes read as ``dtype`` (numpy's ``view(dtype)``): the last
    axis's length scales by the ratio of the item sizes.

    >>> bitcast(as_node(1j, np.dtype("complex128"), (3,)), np.dtype("int32")).shape
    (12,)
    """
    if x.dtype == dtype:
        return x
    *lead, n = x.shape
    if x.dtype.kind == "c":
        return bitcast(shape.reshape(complex_as_real(x), (*lead, 2 * n)), dtype)
    if dtype.kind == "c":
        parts = bitcast(x, np.dtype(f"f{dtype.itemsize // 2}"))
        return real_as_complex(shape.reshape(parts, (*lead, parts.shape[-1] // 2, 2)))
    byte = np.dtype(np.uint8)
    if x.dtype == np.bool_:  # bools are bytes of 0 or 1
        return bitcast(make(Op.CONVERT, (x,), byte), dtype)
    if dtype == np.bool_:
        bytes_ = bitcast(x, byte)
        return make(Op.NE, (bytes_, as_node(0, byte, bytes_.shape)))
    wide, narrow = x.dtype.itemsize, dtype.itemsize
    if wide < narrow:
        x = shape.reshape(x, (*lead, n * wide // narrow, narrow // wide))
    out = make(Op.BITCAST_CONVERT, (x,), dtype)
    return shape.reshape(out, (*lead, n * wide // narrow)) if wide > narrow else out


def bitcast_pair(dtype: np.dtype, source: np.dtype) -> ViewPair:
    """(forward, backward) of a ``dtype`` view of ``source`` data."""
    return lambda base: bitcast(base, dtype), lambda base, view: bitcast(view, source)


def embed_select(values: Node, sizes: Sequence[int], axis: int, index: int) -> Node:
    """Zeros of ``sizes`` holding ``values`` at ``index`` along ``axis``
    (the gradient of selecting that entry): one PAD.

    >>> import numpy as np
    >>> embed_select(as_node(1.0, np.dtype("float32"), (3,)), (3, 4), 1, 2).shape
    (3, 4)
    """
    sizes = tuple(sizes)
    g = make(Op.RESHAPE, (values,), sizes[:axis] + (1,) + sizes[axis + 1:])
    cfg = tuple((index, sizes[axis] - index - 1, 0) if a == axis else (0, 0, 0)
                for a in range(len(sizes)))
    return make(Op.PAD, (g, as_node(0, g.dtype)), cfg)


def embed_slice(values: Node, sizes: Sequence[int], axis: int, start: int, step: int) -> Node:
    """Zeros of ``sizes`` holding ``values`` at ``start``, ``start + step``,
    ... along ``axis`` (the gradient of a slice): one PAD with interior
    padding for the step.

    >>> import numpy as np
    >>> embed_slice(as_node(1.0, np.dtype("float32"), (2,)), (5,), 0, 1, 2).shape
    (5,)
    """
    sizes = tuple(sizes)
    count = values.shape[axis]
    if count == 0:
        return as_node(0, values.dtype, sizes)
    last = start + (count - 1) * step
    cfg = tuple((start, sizes[axis] - last - 1, step - 1) if a == axis else (0, 0, 0)
                for a in range(len(sizes)))
    return make(Op.PAD, (values, as_node(0, values.dtype)), cfg)
