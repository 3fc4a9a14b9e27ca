"""Rearranging composites with numpy's conventions: flip, roll, rot90, tile,
repeat and resize (numpy.resize's cyclic fill). Padding lives in
``movement.padding``, bit packing in ``movement.bitpack``.

Static index patterns (rolls, reflections) are taken as runs of slices,
reversed slices and broadcasts joined by one concatenate, never as a
gather: XLA fuses those into copies.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((2, 3)), np.dtype("int32"))
>>> tile(x, (2, 1, 2)).shape, repeat(x, 3, 1).shape
((2, 2, 6), (2, 9))
"""

from __future__ import annotations

from collections.abc import Sequence

from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement.shape import (
    as_axes,
    ravel,
    reshape,
    slice_axis,
    transpose,
)
from lazytensor.core.composite.reduce.axes import normalize_axes, normalize_axis
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


def flip(x: Node, axis: int | Sequence[int] | None = None) -> Node:
    """x reversed along ``axis`` (all axes when None)."""
    axes = normalize_axes(axis, x.ndim)
    axes = tuple(a for a in axes if x.shape[a] > 1)
    return make(Op.REV, (x,), axes) if axes else x


def take_static(x: Node, axis: int, index: Sequence[int]) -> Node:
    """``x`` indexed along ``axis`` by a static list of in-range indices,
    built from runs of step +1, -1 or 0 (slices, reversed slices,
    broadcasts) joined by one concatenate."""
    pieces = [_run(x, axis, start, step, length) for start, step, length in _runs(index)]
    if not pieces:
        return slice_axis(x, axis, 0, 0)
    return pieces[0] if len(pieces) == 1 else make(Op.CONCATENATE, tuple(pieces), axis)


def _runs(index: Sequence[int]) -> list[tuple[int, int, int]]:
    """Maximal (start, step, length) runs with step in (1, -1, 0)."""
    runs: list[list[int]] = []
    for i in index:
        if runs:
            start, step, length = runs[-1]
            if length == 1 and i - start in (1, -1, 0):
                runs[-1] = [start, i - start, 2]
                continue
            if length > 1 and i == start + step * length:
                runs[-1][2] += 1
                continue
        runs.append([i, 1, 1])
    return [tuple(r) for r in runs]


def _run(x: Node, axis: int, start: int, step: int, length: int) -> Node:
    if step == 0:
        one = slice_axis(x, axis, start, start + 1)
        shape = tuple(length if d == axis else s for d, s in enumerate(x.shape))
        return ew.broadcast_to(one, shape)
    lo = start if step > 0 else start - length + 1
    piece = slice_axis(x, axis, lo, lo + length)
    return flip(piece, axis) if step < 0 else piece


def roll(x: Node, shift: int | Sequence[int], axis: int | Sequence[int] | None = None) -> Node:
    """Elements shifted along ``axis`` with wrap-around (the ravel when None)."""
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), x.shape)
    shifts, axes = as_axes(shift), as_axes(axis)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ShapeError("'shift' and 'axis' should be scalars or 1D sequences")
    total: dict[int, int] = {}
    for s, a in zip(shifts, axes, strict=False):
        a = normalize_axis(a, x.ndim)
        total[a] = total.get(a, 0) + s
    for a, s in total.items():
        n = x.shape[a]
        if n and s % n:
            s %= n
            x = make(Op.CONCATENATE, (slice_axis(x, a, n - s, n), slice_axis(x, a, 0, n - s)), a)
    return x


def rot90_steps(ndim: int, k: int = 1, axes: Sequence[int] = (0, 1),
                ) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """numpy.rot90 as the steps that make it, in order: ``("flip", axes)``
    and ``("transpose", perm)`` (a frontend with views applies them as
    views). Raises numpy's errors for bad ``axes``.

    >>> rot90_steps(3, 1, (0, 2))
    (('flip', (2,)), ('transpose', (2, 1, 0)))
    """
    axes = tuple(axes)
    if len(axes) != 2:
        raise ShapeError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == ndim:
        raise ShapeError("Axes must be different.")
    if not all(-ndim <= a < ndim for a in axes):
        raise ShapeError(f"Axes={axes} out of range for array of ndim={ndim}.")
    a, b = (normalize_axis(a, ndim) for a in axes)
    k %= 4
    if k == 0:
        return ()
    if k == 2:
        return (("flip", (a, b)),)
    perm = list(range(ndim))
    perm[a], perm[b] = b, a
    swap = ("transpose", tuple(perm))
    return (("flip", (b,)), swap) if k == 1 else (swap, ("flip", (b,)))


def rot90(x: Node, k: int = 1, axes: Sequence[int] = (0, 1)) -> Node:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``, from the
    first axis towards the second."""
    for step, arg in rot90_steps(x.ndim, k, axes):
        x = flip(x, arg) if step == "flip" else transpose(x, arg)
    return x


def resized(x: Node, count: int, repeat: bool = True) -> Node:
    """x's ravel brought to ``count`` elements: cut, or extended by
    repeating it cyclically (``repeat``: numpy.resize's rule, by which
    numpy's put, place and putmask reuse their values; an empty x gives
    zeros) or by zeros (``ndarray.resize``). Shape ``(count,)``, dtype x's.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> resized(constant(np.arange(3), np.dtype("int64")), 7).shape
    (7,)
    """
    flat = ravel(x)
    n = flat.shape[0]
    if count <= n:
        return flat if n == count else slice_axis(flat, 0, 0, count)
    if repeat and n:
        return slice_axis(tile(flat, -(-count // n)), 0, 0, count)
    return make(Op.PAD, (flat, ew.full((), 0, x.dtype)), ((0, count - n, 0),))


def tile(x: Node, reps: int | Sequence[int]) -> Node:
    """numpy.tile: x repeated ``reps`` times per axis (ranks aligned right)."""
    reps = as_axes(reps)
    if any(r < 0 for r in reps):
        raise ShapeError("negative dimensions are not allowed")
    ndim = max(len(reps), x.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    shape = (1,) * (ndim - x.ndim) + x.shape
    x = reshape(x, shape)
    if all(r == 1 for r in reps):
        return x
    grown = tuple(v for pair in zip(reps, shape, strict=False) for v in pair)
    spread = make(Op.BROADCAST_IN_DIM, (x,), grown, tuple(range(1, 2 * ndim, 2)))
    return reshape(spread, tuple(r * s for r, s in zip(reps, shape, strict=False)))


def repeat(x: Node, repeats: int | Sequence[int], axis: int | None = None) -> Node:
    """numpy.repeat with static repeats: each element ``repeats`` times (or
    ``repeats[i]`` times for element i) along ``axis`` (the ravel when None)."""
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    counts = as_axes(repeats)
    if any(c < 0 for c in counts):
        raise ShapeError("repeats may not contain negative values.")
    if len(counts) == 1:
        r = counts[0]
        spread = (*x.shape[:axis + 1], r, *x.shape[axis + 1:])
        dims = tuple(d if d <= axis else d + 1 for d in range(x.ndim))
        out = make(Op.BROADCAST_IN_DIM, (x,), spread, dims)
        return reshape(out, (*x.shape[:axis], n * r, *x.shape[axis + 1:]))
    if len(counts) != n:
        raise ShapeError(f"operands could not be broadcast together with shape ({n},) "
                         f"({len(counts)},)")
    return take_static(x, axis, [i for i, c in enumerate(counts) for _ in range(c)])
