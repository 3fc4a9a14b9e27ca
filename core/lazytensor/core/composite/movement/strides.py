"""Strided layouts: which views of a strided memory layout exist, and their
element strides and offsets. Frontends whose arrays expose strides (torch's
``stride()``/``storage_offset()``, numpy's ``strides``) ask the same
questions: can a reshape be a view, what are a slice's, a diagonal's or a
sliding window's strides, and how to read an arbitrary ``as_strided``
layout out of a buffer. All strides here count elements, not bytes.

The reshape rule here is torch's (``computeStride``); numpy's
(``_attempt_nocopy_reshape``) is ``lazytensor.core.layout``'s. They agree
on whether a view exists but give size-1 dims different strides (a (3, 1)
layout with strides (1, 3) viewed as (1, 3, 1): torch (3, 1, 3), numpy
(3, 1, 1)), and each frontend reports its framework's exact strides, so
both rules stay. Dense strides come from ``layout`` (``c_strides``,
``permuted_strides``), shared by both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from lazytensor.core.composite.indexing import subscript as ix
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.ir import Node
from lazytensor.core.layout import c_strides

Strides = tuple[int, ...]


def view_strides(old: Sequence[int], stride: Sequence[int], new: Sequence[int]) -> Strides | None:
    """Strides of shape ``new`` viewing memory laid out as (``old``,
    ``stride``), or None when no view exists (a reshape must copy).

    >>> view_strides((2, 3), (3, 1), (6,)), view_strides((2, 3), (1, 2), (6,))
    ((1,), None)
    """
    if not old:
        return (1,) * len(new)
    if math.prod(old) == 0:
        return tuple(stride) if tuple(old) == tuple(new) else c_strides(new)
    out = [0] * len(new)
    view_d = len(new) - 1
    chunk = stride[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and stride[d - 1] != tensor_numel * chunk):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * chunk
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk, tensor_numel, view_numel = stride[d - 1], 1, 1
    return tuple(out) if view_d == -1 else None


def expand_strides(shape: Sequence[int], stride: Sequence[int], size: Sequence[int]) -> Strides:
    """Element strides of the layout (``shape``, ``stride``) broadcast to
    ``size`` (-1 entries resolved, sizes already checked compatible): a
    kept dim keeps its stride, a stretched size-1 dim gets 0, and a new
    leading dim gets 0 unless it has size 1, which gets the stride that
    would step over the dims after it (torch's ``inferExpandGeometry``;
    numpy's ``broadcast_to``, ``layout.broadcast``, gives every new dim 0).

    >>> expand_strides((3,), (1,), (2, 1, 3)), expand_strides((3, 1), (1, 3), (1, 3, 4))
    ((0, 3, 1), (3, 1, 0))
    """
    out = [0] * len(size)
    if not shape:
        return tuple(out)
    lead = len(size) - len(shape)
    for i in range(len(size) - 1, -1, -1):
        j = i - lead
        if j >= 0:
            out[i] = stride[j] if shape[j] == size[i] else 0
        elif size[i] == 1:
            out[i] = size[i + 1] * out[i + 1]
    return tuple(out)


def slice_layout(stride: Sequence[int], offset: int, axis: int, start: int, count: int,
                 step: int) -> tuple[Strides, int]:
    """Strides and offset of ``count`` entries from ``start`` by ``step``
    along ``axis``.

    >>> slice_layout((4, 1), 0, 1, 1, 2, 2)
    ((4, 2), 1)
    """
    out = list(stride)
    offset += start * out[axis] if count else 0
    out[axis] *= step
    return tuple(out), offset


def select_layout(stride: Sequence[int], offset: int, axis: int,
                  index: int) -> tuple[Strides, int]:
    """Strides and offset of entry ``index`` (non-negative) along ``axis``.

    >>> select_layout((4, 1), 2, 0, 1)
    ((1,), 6)
    """
    out = list(stride)
    offset += index * out[axis]
    del out[axis]
    return tuple(out), offset


def diagonal_layout(stride: Sequence[int], offset: int, axis1: int, axis2: int, diagonal: int,
                    length: int) -> tuple[Strides, int]:
    """Strides and offset of the ``diagonal``-th diagonal (``length``
    entries) of axes ``axis1``, ``axis2``, which becomes the last axis.

    >>> diagonal_layout((3, 1), 0, 0, 1, 1, 2)
    ((4,), 1)
    """
    if length:
        offset += diagonal * stride[axis2] if diagonal >= 0 else -diagonal * stride[axis1]
    rest = tuple(s for i, s in enumerate(stride) if i not in (axis1, axis2))
    return rest + (stride[axis1] + stride[axis2],), offset


def unfold_layout(shape: Sequence[int], stride: Sequence[int], axis: int, size: int,
                  step: int) -> tuple[Strides, Strides]:
    """Shape and strides of the windows of ``size`` every ``step`` along
    ``axis`` (a new last axis walks each window); a 0-d input counts as one
    element.

    >>> unfold_layout((5,), (1,), 0, 2, 2)
    ((2, 2), (2, 1))
    """
    if not shape:
        return (size,), (1,)
    count = (shape[axis] - size) // step + 1
    out_size = (*shape[:axis], count, *shape[axis + 1:], size)
    out_stride = (*stride[:axis], stride[axis] * step, *stride[axis + 1:], stride[axis])
    return out_size, out_stride


def strided_positions(size: Sequence[int], stride: Sequence[int], offset: int) -> np.ndarray:
    """Flat buffer positions offset + sum(i_k * stride_k) of every element.

    >>> strided_positions((2, 2), (1, 2), 1).tolist()
    [[1, 3], [2, 4]]
    """
    pos = np.full(tuple(size), offset, dtype=np.int64)
    for d, (s, st) in enumerate(zip(size, stride, strict=False)):
        axis_shape = [1] * len(size)
        axis_shape[d] = s
        pos = pos + (np.arange(s, dtype=np.int64) * st).reshape(axis_shape)
    return pos


def scatter_at_positions(base: Node, held: np.ndarray, src: Node,
                         positions: np.ndarray) -> Node:
    """``base`` whose elements sit at buffer positions ``held`` (flat, C
    order; distinct), with ``src``'s elements written where their positions
    (``positions``, flat, distinct) meet one of them; a position between
    base's elements is not seen. The positions are matched on the host, the
    write is one scatter.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> base = constant(np.zeros(3), np.dtype("float64"))
    >>> src = constant(np.ones(2), np.dtype("float64"))
    >>> scatter_at_positions(base, np.array([0, 2, 4]), src, np.array([1, 2])).shape
    (3,)
    """
    order = np.argsort(held, kind="stable")
    at = np.clip(np.searchsorted(held, positions, sorter=order), 0, max(held.size - 1, 0))
    lands = held[order[at]] == positions if held.size else np.zeros(positions.shape, bool)
    flat = ix.setitem(cs.ravel(base), (order[at][lands],),
                      ix.getitem(cs.ravel(src), (np.flatnonzero(lands),)), unique_indices=True)
    return cs.reshape(flat, base.shape)


def strided_pair(positions: np.ndarray) -> tuple[Callable[[Node], Node],
                                                 Callable[[Node, Node], Node] | None]:
    """(forward, backward) of a view reading a buffer, seen as contiguous
    memory, at ``positions`` (from ``strided_positions``); backward is None
    (a read-only view) when positions repeat."""
    size = positions.shape
    flat_index = (positions.reshape(-1),)

    def forward(b: Node) -> Node:
        return cs.reshape(ix.getitem(cs.ravel(b), flat_index), size)

    def backward(b: Node, v: Node) -> Node:
        flat = ix.setitem(cs.ravel(b), flat_index, cs.ravel(v), unique_indices=True)
        return cs.reshape(flat, b.shape)

    unique = np.unique(positions).size == positions.size
    return forward, backward if unique else None
