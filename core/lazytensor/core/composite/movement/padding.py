"""numpy.pad on nodes: constant (scalar or per-axis values), edge, reflect,
symmetric, wrap, empty, linear_ramp and the statistic modes (maximum,
minimum, mean, median of the elements nearest each edge).

Non-constant modes take static runs of slices (``rearrange.take_static``),
never a gather.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((2, 3)), np.dtype("int32"))
>>> pad(x, 2, "reflect").shape
(6, 7)
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.division import floor_divide
from lazytensor.core.composite.movement.rearrange import take_static
from lazytensor.core.composite.movement.shape import slice_axis
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.composite.reduce.reduction import mean, reduce
from lazytensor.core.composite.reduce.statistics import median
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


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
        return ew.convert(floor_divide(num, ew.as_node(width, it, shape)), x.dtype)
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
