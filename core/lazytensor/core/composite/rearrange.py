"""Rearranging composites with numpy's conventions: flip, roll, rot90, tile,
repeat, resize and pad (constant, edge, reflect, symmetric, wrap, empty).

Static index patterns (pad's reflections, rolls) are taken as runs of
slices, reversed slices and broadcasts joined by one concatenate, never as
a gather: XLA fuses those into copies.

>>> import numpy as np
>>> from lazytensor.core.runtime import constant
>>> x = constant(np.zeros((2, 3)), np.dtype("int32"))
>>> pad(x, 2, "reflect").shape, tile(x, (2, 1, 2)).shape, repeat(x, 3, 1).shape
((6, 7), (2, 2, 6), (2, 9))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite import npextra as npx
from lazytensor.core.composite.reduction import mean, normalize_axes, normalize_axis, reduce
from lazytensor.core.composite.shape import (
    as_axes,
    ravel,
    reshape,
    slice_axis,
    transpose,
)
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
    >>> from lazytensor.core.runtime import constant
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


# ------------------------------------------------------------------------ pad

def pad_widths(pad_width, ndim: int) -> tuple[tuple[int, int], ...]:
    """numpy's pad_width forms (n, (n,), (a, b), ((a, b),), per axis) as
    one (before, after) pair per axis; a dict {axis: width} pads only those axes."""
    if isinstance(pad_width, dict):
        pairs = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            pairs[normalize_axis(axis, ndim)] = np.broadcast_to(width, 2)
        pad_width = pairs
    widths = np.asarray(pad_width)
    if widths.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    try:
        pairs = np.broadcast_to(widths, (ndim, 2))
    except ValueError:
        if widths.ndim > 2:
            raise ShapeError("input operand has more dimensions than allowed by the axis "
                             "remapping") from None
        raise ShapeError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {widths.shape} and requested shape "
                         f"({ndim},2)") from None
    if (pairs < 0).any():
        raise ShapeError("index can't contain negative values")
    return tuple((int(a), int(b)) for a, b in pairs)


def _reflect(n: int, lo: int, hi: int) -> list[int]:
    period = 2 * (n - 1)
    out = []
    for p in range(-lo, n + hi):
        i = p % period if period else 0
        out.append(period - i if i >= n else i)
    return out


def _symmetric(n: int, lo: int, hi: int) -> list[int]:
    out = []
    for p in range(-lo, n + hi):
        i = p % (2 * n)
        out.append(2 * n - 1 - i if i >= n else i)
    return out


# non-constant modes: the source index of each output position along one axis
_PAD_INDEX = {
    "edge": lambda n, lo, hi: [min(max(p, 0), n - 1) for p in range(-lo, n + hi)],
    "reflect": _reflect,
    "symmetric": _symmetric,
    "wrap": lambda n, lo, hi: [p % n for p in range(-lo, n + hi)],
}


def pad(x: Node, pad_width, mode: str = "constant", constant_values=0, end_values=0,
        stat_length=None) -> Node:
    """numpy.pad for modes constant (scalar or per-axis (before, after)
    values; later axes win at the corners, as in numpy), edge, reflect
    (reflect_type 'even'), symmetric, wrap, empty (zeros), linear_ramp
    (``end_values``) and maximum, minimum, mean, median (``stat_length``
    elements nearest each edge; None: the whole axis). As numpy, the axes
    are padded one after another, each from the array the earlier axes made.

    Shape rule: each axis grows by its before + after widths; dtype kept."""
    widths = pad_widths(pad_width, x.ndim)
    if mode in ("constant", "empty"):
        return _pad_constant(x, widths, 0 if mode == "empty" else constant_values)
    if mode not in _PAD_INDEX and mode != "linear_ramp" and mode not in _PAD_STATS:
        raise NotImplementedError(f"pad mode {mode!r} is not supported by the core")
    ends = np.broadcast_to(np.asarray(end_values, dtype=object), (x.ndim, 2))
    lengths = (((None, None),) * x.ndim if stat_length is None
               else pad_widths(np.round(np.asarray(stat_length)).astype(np.intp), x.ndim))
    for axis, (lo, hi) in enumerate(widths):
        if not lo and not hi:
            continue
        if x.shape[axis] == 0:
            raise ShapeError(f"can't extend empty axis {axis} using modes other than "
                             f"'constant' or 'empty'")
        if mode == "linear_ramp":
            x = _concat_axis([_ramp(x, axis, lo, ends[axis][0], 0), x,
                              _ramp(x, axis, hi, ends[axis][1], x.shape[axis] - 1)], axis)
        elif mode in _PAD_STATS:
            x = _concat_axis(_stat_pads(x, axis, lo, hi, lengths[axis], mode), axis)
        else:
            x = take_static(x, axis, _PAD_INDEX[mode](x.shape[axis], lo, hi))
    return x


def _concat_axis(parts: list[Node], axis: int) -> Node:
    parts = [p for p in parts if p.shape[axis]]
    return parts[0] if len(parts) == 1 else make(Op.CONCATENATE, tuple(parts), axis)


def _ramp(x: Node, axis: int, width: int, end, edge_at: int) -> Node:
    """numpy.linspace(end, edge, width, endpoint=False) along ``axis`` (the
    padding before x; reversed after it when ``edge_at`` is the last
    index), computed in x's inexact type and floored for integers."""
    edge = slice_axis(x, axis, edge_at, edge_at + 1)
    shape = x.shape[:axis] + (width,) + x.shape[axis + 1:]
    if not width:
        return ew.broadcast_to(edge, shape)
    if not dt.is_inexact(x.dtype) and float(end).is_integer():
        # exactly floor(end + k (edge - end) / width): in floats XLA's fused
        # multiply-adds can land an ulp under an integer that numpy reaches
        it = np.dtype(np.int64)
        k = make(Op.IOTA, (), it, shape, axis)
        if edge_at:
            k = make(Op.SUB, (ew.as_node(width - 1, it, shape), k))
        delta = make(Op.SUB, (ew.convert(edge, it), ew.as_node(int(end), it, edge.shape)))
        num = make(Op.ADD, (make(Op.MUL, (k, ew.broadcast_to(delta, shape))),
                            ew.as_node(int(end) * width, it, shape)))
        return ew.convert(npx.floor_divide(num, ew.as_node(width, it, shape)), x.dtype)
    ct = x.dtype if dt.is_inexact(x.dtype) else np.dtype(np.float64)
    start = ew.as_node(end, ct)
    delta = make(Op.SUB, (ew.convert(edge, ct), ew.broadcast_to(start, edge.shape)))
    div = ew.as_node(width, ct, edge.shape)
    step = make(Op.DIV, (delta, div))
    k = make(Op.IOTA, (), ct, shape, axis)
    if edge_at:  # the padding after x: the ramp runs from the edge outwards
        k = make(Op.SUB, (ew.as_node(width - 1, ct, shape), k))
    zero = make(Op.EQ, (step, ew.as_node(0, ct, step.shape)))
    any_zero = ew.broadcast_to(make(Op.REDUCE_OR, (zero,), tuple(range(x.ndim))), shape)
    by_step = make(Op.MUL, (k, ew.broadcast_to(step, shape)))  # numpy's two orders
    by_delta = make(Op.MUL, (make(Op.DIV, (k, ew.as_node(width, ct, shape))),
                             ew.broadcast_to(delta, shape)))
    y = make(Op.ADD, (make(Op.SELECT, (any_zero, by_delta, by_step)),
                      ew.broadcast_to(start, shape)))
    if not dt.is_inexact(x.dtype):
        y = make(Op.FLOOR, (y,))
    return ew.convert(y, x.dtype)


def _stat_pads(x: Node, axis: int, lo: int, hi: int, lengths, mode: str) -> list[Node]:
    """The statistic of the ``lengths`` elements nearest each edge (all of
    the axis for None or more), broadcast over the before and after widths;
    rounded (half to even) into integer arrays as numpy."""
    from lazytensor.core.composite.statistics import median

    n = x.shape[axis]
    parts = [x]
    for width, length, at_end in ((lo, lengths[0], False), (hi, lengths[1], True)):
        length = n if length is None or length > n else length
        if not length and mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
        chunk = slice_axis(x, axis, n - length, n) if at_end else slice_axis(x, axis, 0, length)
        if mode == "median":
            stat = median(chunk, axis, keepdims=True)
        elif mode == "mean":  # numpy's accumulator: float64 for integers, float32 for float16
            acc = (np.dtype(np.float32) if x.dtype == np.float16 else
                   None if dt.is_inexact(x.dtype) else np.dtype(np.float64))
            stat = mean(chunk, axis, keepdims=True, dtype=acc)
        else:
            stat = reduce("max" if mode == "maximum" else "min", chunk, axis, keepdims=True)
        if stat.dtype != x.dtype:
            if not dt.is_inexact(x.dtype):
                stat = make(Op.ROUND_EVEN, (stat,))
            stat = ew.convert(stat, x.dtype)
        shape = x.shape[:axis] + (width,) + x.shape[axis + 1:]
        part = ew.broadcast_to(stat, shape)
        parts.insert(len(parts) if at_end else 0, part)
    return parts


_PAD_STATS = ("maximum", "minimum", "mean", "median")


def _pad_constant(x: Node, widths, values) -> Node:
    if isinstance(values, Node) or np.ndim(values) == 0:
        cfg = tuple((lo, hi, 0) for lo, hi in widths)
        if all(c == (0, 0, 0) for c in cfg):
            return x
        return make(Op.PAD, (x, ew.as_node(values, x.dtype)), cfg)
    pairs = np.broadcast_to(np.asarray(values, dtype=object), (x.ndim, 2))
    for axis, ((lo, hi), (before, after)) in enumerate(zip(widths, pairs, strict=False)):
        for width, value, at_end in ((lo, before, False), (hi, after, True)):
            if width:
                cfg = tuple((0, width, 0) if d == axis and at_end else
                            (width, 0, 0) if d == axis else (0, 0, 0) for d in range(x.ndim))
                x = make(Op.PAD, (x, ew.as_node(value, x.dtype)), cfg)
    return x



# ------------------------------------------------------------------ bit packing

def _bit_shifts(shape: tuple[int, ...], axis: int, little: bool) -> Node:
    """Each byte's bit positions along ``axis`` (of length 8), as uint8:
    7..0 (most significant first) or 0..7 (``little``)."""
    shifts = make(Op.IOTA, (), np.dtype(np.uint8), shape, axis)
    return shifts if little else make(Op.SUB, (ew.as_node(7, shifts.dtype, shape), shifts))


def packbits(x: Node, axis: int, little: bool = False) -> Node:
    """numpy.packbits along ``axis``: each run of 8 elements (the last one
    padded with zeros) becomes one byte whose bits are their truth values,
    most significant first (``little``: least significant first).

    Shape rule: ``axis`` becomes ceil(n / 8) long; uint8.

    >>> from lazytensor.core.runtime import constant
    >>> packbits(constant(np.ones((2, 11)), np.dtype("bool")), 1).shape
    (2, 2)
    """
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    truth = x if x.dtype == np.bool_ else make(Op.NE, (x, ew.as_node(0, x.dtype, x.shape)))
    bits = ew.convert(truth, np.dtype(np.uint8))
    bits = pad(bits, [(0, -n % 8 if d == axis else 0) for d in range(x.ndim)])
    runs = reshape(bits, x.shape[:axis] + (-(-n // 8), 8) + x.shape[axis + 1:])
    shifted = make(Op.SHIFT_LEFT, (runs, _bit_shifts(runs.shape, axis + 1, little)))
    return make(Op.REDUCE_SUM, (shifted,), (axis + 1,))  # distinct bits: a sum is an OR


def unpackbits(x: Node, axis: int, count: int | None = None, little: bool = False) -> Node:
    """numpy.unpackbits of a uint8 array along ``axis``: each byte becomes its
    8 bits (most significant first, or least with ``little``), as uint8 0/1;
    ``count`` keeps that many (zero-padded past the end; negative: drops
    -count from the end; the caller checks that -count <= 8 n).

    >>> from lazytensor.core.runtime import constant
    >>> unpackbits(constant(np.ones((2, 3)), np.dtype("uint8")), 1, 20).shape
    (2, 20)
    """
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    wide = x.shape[:axis + 1] + (8,) + x.shape[axis + 1:]
    bytes_ = ew.broadcast_to(reshape(x, x.shape[:axis + 1] + (1,) + x.shape[axis + 1:]), wide)
    bits = make(Op.SHIFT_RIGHT_LOGICAL, (bytes_, _bit_shifts(wide, axis + 1, little)))
    bits = make(Op.AND, (bits, ew.as_node(1, bits.dtype, wide)))
    out = reshape(bits, x.shape[:axis] + (8 * n,) + x.shape[axis + 1:])
    if count is None:
        return out
    keep = count if count >= 0 else 8 * n + count
    if keep <= 8 * n:
        return slice_axis(out, axis, 0, keep)
    return pad(out, [(0, keep - 8 * n if d == axis else 0) for d in range(x.ndim)])
