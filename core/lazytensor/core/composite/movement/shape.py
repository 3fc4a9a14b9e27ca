"""Shape composites with numpy's conventions, written only in core ops:
reshape, ravel, expand_dims, squeeze, transpose/moveaxis/swapaxes,
broadcast_to/broadcast_arrays, concatenate/stack/hstack/vstack/dstack/
column_stack, split/array_split and atleast_1d/2d/3d.

Every function takes and returns ``Node``s; axes, shapes and sections are
static Python values. Errors use numpy's exception types (``ShapeError`` is a
ValueError, ``AxisError`` an IndexError and ValueError) and numpy's words.
No node is made when the result would be the input itself.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((2, 3)), np.dtype("float32"))
>>> reshape(x, (3, -1)).shape, moveaxis(x, 0, -1).shape, stack([x, x], 1).shape
((3, 2), (3, 2), (2, 2, 3))
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np
from lazytensor.core.composite.elementwise.apply import broadcast_shapes, convert
from lazytensor.core.composite.elementwise.apply import broadcast_to as _broadcast_to
from lazytensor.core.composite.elementwise.promotion import NUMPY, Policy, result_type
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make

Axes = int | Sequence[int]


def size(x: Node) -> int:
    """Number of elements of ``x``."""
    return math.prod(x.shape)


def as_axes(axis: Axes) -> tuple[int, ...]:
    """An int (anything with ``__index__``, as numpy: a 0-d integer array
    too) or a sequence of ints as a tuple of ints."""
    if isinstance(axis, (int, np.integer)):
        return (int(axis),)
    if type(axis) is tuple and all(type(a) is int for a in axis):
        return axis
    try:
        return (operator.index(axis),)
    except TypeError:
        return tuple(int(a) for a in axis)


def normalize_axis_tuple(axis: Axes, ndim: int, what: str = "axis") -> tuple[int, ...]:
    """Axes as non-negative ints in the caller's order; repeated axes raise."""
    axes = tuple(normalize_axis(a, ndim) for a in as_axes(axis))
    if len(set(axes)) != len(axes):
        raise ShapeError(f"repeated {what}")
    return axes


# ----------------------------------------------------------------- reshaping

def resolve_shape(total: int, shape: int | Sequence[int]) -> tuple[int, ...]:
    """``shape`` with one ``-1`` resolved so that it holds ``total`` elements."""
    shape = as_axes(shape)
    if math.prod(shape) == total and all(s >= 0 for s in shape):
        return shape
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise ShapeError("can only specify one unknown dimension")
    if any(s < -1 for s in shape):
        raise ShapeError("negative dimensions not allowed")
    known = math.prod(s for s in shape if s != -1)
    resolved = shape
    if unknown and known and total % known == 0:
        resolved = shape[:unknown[0]] + (total // known,) + shape[unknown[0] + 1:]
    if -1 in resolved or math.prod(resolved) != total:
        words = ",".join("newaxis" if s == -1 else str(s) for s in shape)
        raise ShapeError(f"cannot reshape array of size {total} into shape "
                         f"({words}{',' if len(shape) == 1 else ''})")
    return resolved


def _shape_str(shape: tuple[int, ...]) -> str:
    return f"({shape[0]},)" if len(shape) == 1 else str(tuple(shape))


def reshape(x: Node, shape: int | Sequence[int]) -> Node:
    """x with a new shape of the same size (one entry may be -1).

    Shape rule: prod(shape) == prod(x.shape); dtype unchanged."""
    if shape == x.shape:
        return x
    shape = resolve_shape(size(x), shape)
    return x if shape == x.shape else make(Op.RESHAPE, (x,), shape)


def ravel(x: Node) -> Node:
    """x flattened in C order: shape (x.size,)."""
    return reshape(x, (size(x),))


def expand_dims(x: Node, axis: Axes) -> Node:
    """x with size-1 axes inserted at ``axis`` (positions in the result)."""
    axes = normalize_axis_tuple(axis, x.ndim + len(as_axes(axis)))
    dims = iter(x.shape)
    return reshape(x, tuple(1 if i in axes else next(dims) for i in range(x.ndim + len(axes))))


def squeeze(x: Node, axis: Axes | None = None) -> Node:
    """x without its size-1 axes (all of them, or those named in ``axis``)."""
    if axis is None:
        axes = tuple(i for i, s in enumerate(x.shape) if s == 1)
    else:
        axes = normalize_axis_tuple(axis, x.ndim)
        if any(x.shape[a] != 1 for a in axes):
            raise ShapeError("cannot select an axis to squeeze out which has size not equal to one")
    return reshape(x, tuple(s for i, s in enumerate(x.shape) if i not in axes))


def atleast_nd(x: Node, ndim: int) -> Node:
    """numpy's atleast_1d/2d/3d: 0-d -> (1,)*ndim, 1-d (n,) -> (1, n) or
    (1, n, 1), 2-d (m, n) -> (m, n, 1); higher ranks unchanged."""
    if x.ndim >= ndim:
        return x
    shapes = {1: (1,), 2: (1, 1) if x.ndim == 0 else (1, *x.shape),
              3: ((1, 1, 1), (1, *x.shape, 1), (*x.shape, 1))[x.ndim]}
    return reshape(x, shapes[ndim])


def atleast_1d(x: Node) -> Node:
    return atleast_nd(x, 1)


def atleast_2d(x: Node) -> Node:
    return atleast_nd(x, 2)


def atleast_3d(x: Node) -> Node:
    return atleast_nd(x, 3)


# ------------------------------------------------------------- permutations

def transpose(x: Node, axes: Sequence[int] | None = None) -> Node:
    """x with its axes permuted (reversed when ``axes`` is None)."""
    if axes is None:
        perm = tuple(range(x.ndim))[::-1]
    else:
        if len(as_axes(axes)) != x.ndim:
            raise ShapeError("axes don't match array")
        perm = normalize_axis_tuple(axes, x.ndim, "axis in transpose")
    return x if perm == tuple(range(x.ndim)) else make(Op.TRANSPOSE, (x,), perm)


def moveaxis(x: Node, source: Axes, destination: Axes) -> Node:
    """x with axes ``source`` moved to positions ``destination``."""
    src = normalize_axis_tuple(source, x.ndim, "axis in `source` argument")
    dst = normalize_axis_tuple(destination, x.ndim, "axis in `destination` argument")
    if len(src) != len(dst):
        raise ShapeError("`source` and `destination` arguments must have the same number of "
                         "elements")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=False)):
        order.insert(d, s)
    return transpose(x, order)


def swapaxes(x: Node, axis1: int, axis2: int) -> Node:
    """x with two axes exchanged."""
    a, b = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    perm = list(range(x.ndim))
    perm[a], perm[b] = b, a
    return transpose(x, perm)


def inverse_permutation(perm: Sequence[int]) -> tuple[int, ...]:
    """The permutation that undoes ``perm``."""
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return tuple(inverse)


# ---------------------------------------------------------------- broadcast

def broadcast_to(x: Node, shape: int | Sequence[int]) -> Node:
    """x broadcast to ``shape`` with numpy's rules (a read-only view in numpy)."""
    shape = as_axes(shape)
    if any(s < 0 for s in shape):
        raise ShapeError("all elements of broadcast shape must be non-negative")
    ok = x.ndim <= len(shape) and all(
        a in (1, b) for a, b in zip(x.shape[::-1], shape[::-1], strict=False))
    if not ok:
        raise ShapeError(
            f"operands could not be broadcast together with remapped shapes "
            f"[original->remapped]: {_shape_str(x.shape) if x.shape else '()'} and requested "
            f"shape {_shape_str(shape) if shape else '()'}")
    return _broadcast_to(x, shape)


def broadcast_arrays(*xs: Node) -> list[Node]:
    """Every operand broadcast to their common shape."""
    shape = broadcast_shapes(*(x.shape for x in xs))
    return [_broadcast_to(x, shape) for x in xs]


# --------------------------------------------------------------------- joins

def common_dtype(xs: Sequence[Node], dtype: np.dtype | None, policy: Policy) -> list[Node]:
    """``xs`` converted to ``dtype``, or to their promoted type under ``policy``."""
    if dtype is None:
        dtype = result_type(policy, *(x.dtype for x in xs))
    return [convert(x, dtype) for x in xs]


def concatenate(xs: Sequence[Node], axis: int | None = 0, dtype: np.dtype | None = None,
                policy: Policy = NUMPY) -> Node:
    """Join arrays along an existing axis (``axis=None``: their ravels).

    Shape rule: equal shapes except along ``axis``; dtype: ``dtype`` or the
    operands' promoted type under ``policy``."""
    xs = list(xs)
    if not xs:
        raise ShapeError("need at least one array to concatenate")
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    if xs[0].ndim == 0:
        raise ShapeError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis(axis, xs[0].ndim)
    _check_join(xs, axis)
    xs = common_dtype(xs, dtype, policy)
    return xs[0] if len(xs) == 1 else make(Op.CONCATENATE, tuple(xs), axis)


def _check_join(xs: Sequence[Node], axis: int) -> None:
    first = xs[0]
    for i, x in enumerate(xs[1:], 1):
        if x.ndim != first.ndim:
            raise ShapeError(
                f"all the input arrays must have same number of dimensions, but the array at "
                f"index 0 has {first.ndim} dimension(s) and the array at index {i} has "
                f"{x.ndim} dimension(s)")
        for d, (a, b) in enumerate(zip(first.shape, x.shape, strict=False)):
            if d != axis and a != b:
                raise ShapeError(
                    f"all the input array dimensions except for the concatenation axis must "
                    f"match exactly, but along dimension {d}, the array at index 0 has size "
                    f"{a} and the array at index {i} has size {b}")


def stack(xs: Sequence[Node], axis: int = 0, dtype: np.dtype | None = None,
          policy: Policy = NUMPY) -> Node:
    """Join equal-shaped arrays along a new axis."""
    xs = list(xs)
    if not xs:
        raise ShapeError("need at least one array to stack")
    if any(x.shape != xs[0].shape for x in xs):
        raise ShapeError("all input arrays must have the same shape")
    axis = normalize_axis(axis, xs[0].ndim + 1)
    return concatenate([expand_dims(x, axis) for x in xs], axis, dtype, policy)


def stack_nested(items: Sequence, leaf, policy: Policy = NUMPY) -> Node | None:
    """A nested list/tuple of arrays and scalars as one array, read as
    ``np.array(items)`` reads it: ``leaf(item)`` makes each item that is no
    list a node (None: it cannot); None too for an empty or ragged level,
    where the frontend's own conversion decides (and raises).

    Shape rule: ``(len(items), *item shape)``; dtype: the items' promoted
    dtype under ``policy``."""
    nodes = []
    for item in items:
        node = stack_nested(item, leaf, policy) if isinstance(item, (list, tuple)) \
            else leaf(item)
        if node is None:
            return None
        nodes.append(node)
    if not nodes or any(n.shape != nodes[0].shape for n in nodes):
        return None
    return stack(nodes, 0, None, policy)


def hstack(xs: Sequence[Node], dtype: np.dtype | None = None, policy: Policy = NUMPY) -> Node:
    """Concatenate along axis 1 (axis 0 when every input is 1-d or 0-d)."""
    xs = [atleast_1d(x) for x in xs]
    axis = 0 if xs and xs[0].ndim == 1 else 1
    return concatenate(xs, axis, dtype, policy)


def vstack(xs: Sequence[Node], dtype: np.dtype | None = None, policy: Policy = NUMPY) -> Node:
    """Concatenate the inputs (made at least 2-d) along axis 0."""
    return concatenate([atleast_2d(x) for x in xs], 0, dtype, policy)


def dstack(xs: Sequence[Node], dtype: np.dtype | None = None, policy: Policy = NUMPY) -> Node:
    """Concatenate the inputs (made at least 3-d) along axis 2."""
    return concatenate([atleast_3d(x) for x in xs], 2, dtype, policy)


def column_stack(xs: Sequence[Node], dtype: np.dtype | None = None,
                 policy: Policy = NUMPY) -> Node:
    """1-d inputs become columns; others are made 2-d; joined along axis 1."""
    cols = [reshape(x, (-1, 1)) if x.ndim < 2 and x.ndim else atleast_2d(x) for x in xs]
    return concatenate(cols, 1, dtype, policy)


# -------------------------------------------------------------------- splits

def slice_axis(x: Node, axis: int, start: int | None, stop: int | None,
               step: int = 1) -> Node:
    """``x[..., start:stop:step, ...]`` along one (normalized) axis, step > 0."""
    lo, hi, st = slice(start, stop, step).indices(x.shape[axis])
    count = len(range(lo, hi, st))
    # canonical attrs (as indexing's windows, so equal slices hash equal):
    # the limit just past the last element read, stride 1 for one element
    lo, st = (lo if count else 0), (st if count > 1 else 1)
    hi = lo + (count - 1) * st + 1 if count else 0
    if (lo, hi, st) == (0, x.shape[axis], 1):
        return x
    starts = tuple(lo if d == axis else 0 for d in range(x.ndim))
    limits = tuple(hi if d == axis else s for d, s in enumerate(x.shape))
    strides = tuple(st if d == axis else 1 for d in range(x.ndim))
    return make(Op.SLICE, (x,), starts, limits, strides)


def split_points(n: int, indices_or_sections: int | Sequence[int], equal: bool = False,
                 ) -> list[int]:
    """The boundaries of numpy.array_split's pieces of an axis of size ``n``:
    ``k`` near-equal sections (the first ``n % k`` one longer; with ``equal``,
    numpy.split's rule that they divide evenly) or the given split points."""
    if not isinstance(indices_or_sections, (int, np.integer)):
        return [0, *(int(p) for p in indices_or_sections), n]
    sections = int(indices_or_sections)
    if equal and (sections <= 0 or n % sections):
        raise ShapeError("array split does not result in an equal division")
    if sections <= 0:
        raise ShapeError("number sections must be larger than 0.")
    each, extra = divmod(n, sections)
    sizes = [each + 1] * extra + [each] * (sections - extra)
    return [0] + [sum(sizes[:i + 1]) for i in range(sections)]


def array_split(x: Node, indices_or_sections: int | Sequence[int], axis: int = 0,
                equal: bool = False) -> list[Node]:
    """numpy.array_split (numpy.split with ``equal``): slices of x between
    ``split_points`` along ``axis``."""
    axis = normalize_axis(axis, x.ndim)
    points = split_points(x.shape[axis], indices_or_sections, equal)
    return [slice_axis(x, axis, a, b) for a, b in zip(points[:-1], points[1:], strict=False)]


def split(x: Node, indices_or_sections: int | Sequence[int], axis: int = 0) -> list[Node]:
    """numpy.split: like array_split, but ``n`` sections must divide evenly."""
    return array_split(x, indices_or_sections, axis, equal=True)
