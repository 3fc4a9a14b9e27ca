"""numpy's take family on nodes: take, take_along_axis, put_along_axis,
compress. Written on GATHER/SCATTER and the indexing composites.

Static (host) indices are bounds-checked at once with numpy's IndexError;
dynamic out-of-bounds indices clip on reads and are dropped on writes.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((3, 4)), np.dtype("float32"))
>>> idx = constant(np.zeros((3, 2)), np.dtype("int64"))
>>> take(x, [[0, 1]], axis=1).shape, take_along_axis(x, idx, 1).shape
((3, 1, 2), (3, 2))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const, iota
from lazytensor.core.composite.elementwise import apply, division
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing.subscript import (
    INDEX,
    IndexingError,
    getitem,
    setitem,
    wrap_negative,
)
from lazytensor.core.composite.movement.shape import ravel, reshape, stack
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.ir import Node
from lazytensor.core.leaves import constant
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


def _host(indices: Any) -> np.ndarray | None:
    """The host value of a static index (Python int/list, ndarray, CONST)."""
    if isinstance(indices, Node):
        return np.asarray(indices.data) if indices.op is Op.CONST else None
    return np.asarray(indices)


def _take_mode(indices: Any, n: int, mode: str) -> Any:
    """Indices remapped by numpy's take modes: 'raise' (checked, negative
    wrap), 'wrap' (modulo n) or 'clip' (clamped to [0, n-1], no wrap)."""
    if mode == "raise":
        return indices
    if mode not in ("wrap", "clip"):
        raise ShapeError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if n == 0:
        raise IndexingError("cannot do a non-empty take from an empty axes.")
    host = _host(indices)
    if host is not None:
        host = host.astype(np.int64)
        return constant(host % n if mode == "wrap" else np.clip(host, 0, n - 1), INDEX)
    idx = ew.convert(indices, INDEX)
    if mode == "clip":
        return make(Op.CLAMP, (const(0, INDEX, idx.shape), idx, const(n - 1, INDEX, idx.shape)))
    rem = make(Op.REM, (idx, const(n, INDEX, idx.shape)))
    return wrap_negative(rem, n)


def take(x: Node, indices: Any, axis: int | None = None, mode: str = "raise") -> Node:
    """numpy.take: elements of x along ``axis`` (of its ravel when None).

    Shape rule: x.shape[:axis] + indices.shape + x.shape[axis + 1:]."""
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(axis, x.ndim)
    indices = _take_mode(indices, x.shape[axis], mode)
    return getitem(x, (slice(None),) * axis + (indices,))


def _along_axis(arr: Node, indices: Node, axis: int | None) -> tuple[Node, Node, int]:
    if axis is None:
        if indices.ndim != 1:
            raise ShapeError("when axis=None, `indices` must have a single dimension.")
        return ravel(arr), indices, 0
    if indices.ndim != arr.ndim:
        raise ShapeError("`indices` and `arr` must have the same number of dimensions")
    if not dt.is_int(indices.dtype):
        raise IndexingError("`indices` must be an integer array")
    return arr, indices, normalize_axis(axis, arr.ndim)


def take_along_axis(arr: Node, indices: Node, axis: int | None) -> Node:
    """numpy.take_along_axis: ``out[..., i, ...] = arr[..., indices[..., i,
    ...], ...]`` along ``axis``; the other axes of arr and indices broadcast.
    A GATHER whose other axes are batching dimensions."""
    arr, indices, axis = _along_axis(arr, indices, axis)
    n = arr.shape[axis]
    host = _host(indices)
    idx = getitem_index(indices, host, n, axis)
    others = tuple(d for d in range(arr.ndim) if d != axis)
    shape = ew.broadcast_shapes(
        tuple(1 if d == axis else s for d, s in enumerate(arr.shape)),
        tuple(1 if d == axis else s for d, s in enumerate(idx.shape)))
    arr = ew.broadcast_to(arr, tuple(n if d == axis else s for d, s in enumerate(shape)))
    k = idx.shape[axis]
    idx = ew.broadcast_to(idx, tuple(k if d == axis else s for d, s in enumerate(shape)))
    if n == 0 and k:
        raise IndexingError(f"index 0 is out of bounds for axis {axis} with size 0")
    if n == 0 or 0 in idx.shape:
        return ew.full(idx.shape, 0, arr.dtype)
    column = reshape(idx, (*idx.shape, 1))
    return make(Op.GATHER, (arr, column), (), (axis,), (axis,), others, others,
                (1,) * arr.ndim, "clip")


def getitem_index(indices: Node, host: np.ndarray | None, n: int, axis: int) -> Node:
    """An int64 index along an axis of size n: checked and wrapped on the host
    when static, wrapped with a select otherwise."""
    if host is None:
        return wrap_negative(ew.convert(indices, INDEX), n)
    host = host.astype(np.int64)
    bad = (host < -n) | (host >= n)
    if bad.any():
        raise IndexingError(f"index {host[bad].flat[0]} is out of bounds for axis {axis} "
                            f"with size {n}")
    return constant(np.where(host < 0, host + n, host), INDEX)


def put_along_axis(arr: Node, indices: Node, values: Any, axis: int | None,
                   unique_indices: bool = False) -> Node:
    """The functional numpy.put_along_axis: arr with ``values`` written at
    ``indices`` along ``axis`` (numpy's rule: the last duplicate wins). For
    ``axis=None`` the result is arr's ravel written and reshaped back."""
    flat_shape = arr.shape
    arr, indices, axis = _along_axis(arr, indices, axis)
    index = []
    for d in range(arr.ndim):
        if d == axis:
            index.append(indices)
        else:
            grid = tuple(arr.shape[d] if j == d else 1 for j in range(arr.ndim))
            index.append(iota(grid, d, INDEX))
    out = setitem(arr, tuple(index), values, unique_indices=unique_indices)
    return reshape(out, flat_shape)


def compress(condition: Any, x: Node, axis: int | None = None) -> Node:
    """numpy.compress with a static (host) condition: the slices of x along
    ``axis`` where condition is True. A Node condition has a data-dependent
    result shape: the frontend materializes it first."""
    if isinstance(condition, Node) and condition.op is not Op.CONST:
        raise IndexingError("compress: a Node condition has a data-dependent result shape; "
                            "materialize it and pass the host array")
    cond = _host(condition)
    if cond.ndim != 1:
        raise ShapeError("condition must be a 1-d array")
    return take(x, np.nonzero(cond)[0], axis)


def choose(index: Node, choices: Sequence[Node], mode: str = "raise") -> Node:
    """numpy.choose: ``choices[index[i]][i]``, a gather over the stacked
    choices (one dtype; broadcast with ``index`` to one shape). ``mode``
    'wrap' takes indices modulo the count; 'raise' and 'clip' clamp (a lazy
    index cannot raise: the caller checks host indices).

    >>> from lazytensor.core.leaves import constant
    >>> i = constant(np.array([0, 1, 1]), INDEX)
    >>> choose(i, [constant(np.zeros(3), dt.float64), constant(np.ones(3), dt.float64)]).shape
    (3,)
    """
    shape = ew.broadcast_shapes(index.shape, *(c.shape for c in choices))
    stacked = stack([ew.broadcast_to(c, shape) for c in choices], 0)
    n = len(choices)
    idx = ew.broadcast_to(ew.convert(index, dt.int64), shape)
    if mode == "wrap":
        idx = division.remainder(idx, apply.const(n, idx))
    idx = make(Op.CLAMP, (apply.const(0, idx), idx, apply.const(n - 1, idx)))
    picked = take_along_axis(stacked, reshape(idx, (1,) + shape), 0)
    return reshape(picked, shape)


def masked_scatter(x: Node, mask: Node, source: Node) -> Node:
    """torch.masked_scatter: x with its positions where ``mask`` holds (x
    and mask broadcast together) replaced, in row-major order, by the first
    elements of ``source``'s ravel. A source shorter than the mask's count
    clips (the last element repeats: a lazy count cannot raise).

    Shape rule: broadcast(x.shape, mask.shape); dtype x's (source must have
    it).

    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.zeros((2, 3)), dt.float32)
    >>> m = constant(np.array([True, False, True]), dt.bool_)
    >>> masked_scatter(x, m, constant(np.arange(4.0), dt.float32)).shape
    (2, 3)
    """
    shape = ew.broadcast_shapes(x.shape, mask.shape)
    flat_mask = ravel(ew.broadcast_to(mask, shape))
    n_source = int(np.prod(source.shape))
    if flat_mask.shape[0] == 0 or n_source == 0:
        return ew.broadcast_to(x, shape)
    count = make(Op.CUMSUM, (ew.convert(flat_mask, INDEX),), 0, False)  # position + 1
    pos = make(Op.CLAMP, (const(0, INDEX, count.shape),
                          make(Op.SUB, (count, const(1, INDEX, count.shape))),
                          const(n_source - 1, INDEX, count.shape)))
    values = reshape(getitem(ravel(source), (pos,)), shape)
    return make(Op.SELECT, (ew.broadcast_to(mask, shape), values, ew.broadcast_to(x, shape)))


def select(conditions: Sequence[Node], choices: Sequence[Node], default: Node) -> Node:
    """numpy.select: the first choice whose condition holds, else default
    (all broadcast together; choices and default share a dtype)."""
    if len(conditions) != len(choices):
        raise ShapeError("list of cases must be same length as list of conditions")
    out = default
    for cond, choice in zip(conditions[::-1], choices[::-1], strict=True):
        cond, choice, out = ew.broadcast_all([ew.convert(cond, dt.bool_), choice, out])
        out = make(Op.SELECT, (cond, choice, out))
    return out


def ix(*indices: Node) -> list[Node]:
    """numpy.ix_ for 1-d integer index arrays: each reshaped to broadcast
    along its own axis of an open mesh."""
    out = []
    for i, x in enumerate(indices):
        if x.ndim != 1:
            raise ShapeError("Cross index must be 1 dimensional")
        out.append(reshape(x, tuple(-1 if j == i else 1 for j in range(len(indices)))))
    return out
