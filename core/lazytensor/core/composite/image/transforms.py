"""Image math over nodes, shared by every frontend that offers image ops
(``tf.image`` today): colour-space conversions (RGB <-> HSV, grayscale),
the hue / saturation / contrast adjustments, per-image standardization,
Sobel edges, patch extraction and box crop-and-resize sampling.

Images have their channels last: (..., H, W, C), 3 channels where a
function says RGB; sobel, patches and crop-and-resize take a batch
(N, H, W, C). Inputs are floating (the frontend converts integer images
with its own dtype convention and back); results keep the input's dtype
unless a function says otherwise. The frontend checks its arguments with
its own errors; the checks here guard the core's contract.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((2, 5, 6, 3), np.float32), np.dtype("float32"))
>>> rgb_to_hsv(x).shape, sobel_edges(x).shape, extract_patches(x, (2, 2), (1, 1), (1, 1),
...                                                             "VALID").shape
((2, 5, 6, 3), (2, 5, 6, 3, 2), (2, 4, 5, 12))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.apply import convert
from lazytensor.core.composite.indexing import along
from lazytensor.core.composite.linalg.matmul import tensordot
from lazytensor.core.composite.movement import padding as cpadding
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.nn.functional import explicit_padding
from lazytensor.core.composite.reduce import reduction
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make
from lazytensor.core.runtime import get_runtime


def _floating(x: Node, what: str) -> None:
    if not dt.is_float(x.dtype):
        raise DTypeError(f"{what}: a floating image is needed, got {x.dtype.name}")


def _rgb(x: Node, what: str) -> None:
    _floating(x, what)
    if not x.ndim or x.shape[-1] != 3:
        raise ShapeError(f"{what}: the last axis must have 3 channels, got shape {x.shape}")


def _batch(x: Node, what: str) -> None:
    _floating(x, what)
    if x.ndim != 4:
        raise ShapeError(f"{what}: a 4-d (N, H, W, C) image is needed, got shape {x.shape}")


def _where(test: Node, a: Node, b: Node) -> Node:
    return make(Op.SELECT, (test, a, b))


def _math(dtype: np.dtype):
    """An elementwise op over operands coerced to ``dtype``."""
    def f(op: Op, *xs) -> Node:
        return ew.apply(op, *xs, dtype=dtype)

    return f


def channels(x: Node) -> list[Node]:
    """The three channels of ``x`` (..., 3), each of shape x.shape[:-1]."""
    last = x.ndim - 1
    return [cs.squeeze(cs.slice_axis(x, last, i, i + 1), last) for i in range(3)]


# ------------------------------------------------------------------ HSV

def rgb_to_hsv(x: Node) -> Node:
    """RGB (..., 3) to HSV: v the largest channel, s = range / v (0 where
    v is 0), h in [0, 1) from the channel that is largest (0 for grey).
    Shape and dtype are ``x``'s (floating)."""
    _rgb(x, "rgb_to_hsv")
    f = _math(x.dtype)
    r, g, b = channels(x)
    value = f(Op.MAX, f(Op.MAX, r, g), b)
    span = f(Op.SUB, value, f(Op.MIN, f(Op.MIN, r, g), b))
    zero = ew.zeros_like(value)
    saturation = _where(make(Op.GT, (value, zero)), f(Op.DIV, span, value), zero)
    norm = f(Op.MUL, f(Op.DIV, 1, span), 1 / 6)
    hue = _where(make(Op.EQ, (g, value)), f(Op.ADD, f(Op.MUL, norm, f(Op.SUB, b, r)), 2 / 6),
                 f(Op.ADD, f(Op.MUL, norm, f(Op.SUB, r, g)), 4 / 6))
    hue = _where(make(Op.EQ, (r, value)), f(Op.MUL, norm, f(Op.SUB, g, b)), hue)
    hue = _where(make(Op.GT, (span, zero)), hue, zero)
    hue = _where(make(Op.LT, (hue, zero)), f(Op.ADD, hue, 1), hue)
    return cs.stack([hue, saturation, value], -1)


def hsv_to_rgb(x: Node) -> Node:
    """HSV (..., 3) to RGB: chroma c = s * v, the hue's sextant floor(6 h)
    picks where c and x = c (1 - |(6 h mod 2) - 1|) go (sextants outside
    [0, 6): red c), plus m = v - c. Shape and dtype are ``x``'s."""
    _rgb(x, "hsv_to_rgb")
    f = _math(x.dtype)
    h, s, v = channels(x)
    c = f(Op.MUL, s, v)
    m = f(Op.SUB, v, c)
    dh = f(Op.MUL, h, 6)
    sextant = ew.convert(make(Op.FLOOR, (dh,)), dt.int32)
    halves = f(Op.DIV, dh, 2)
    fmodu = f(Op.MUL, f(Op.SUB, halves, make(Op.FLOOR, (halves,))), 2)
    other = f(Op.MUL, c, f(Op.SUB, 1, make(Op.ABS, (f(Op.SUB, fmodu, 1),))))
    zero = ew.zeros_like(c)
    tables = ((c, other, zero, zero, other, c), (other, c, c, other, zero, zero),
              (zero, zero, other, c, c, other))
    out = []
    for table, other_sextants in zip(tables, (c, zero, zero), strict=True):
        channel = other_sextants
        for k, part in enumerate(table):
            channel = _where(ew.apply(Op.EQ, sextant, k, dtype=dt.int32), part, channel)
        out.append(f(Op.ADD, channel, m))
    return cs.stack(out, -1)


def adjust_saturation(x: Node, factor: Node) -> Node:
    """RGB ``x`` with its HSV saturation times ``factor`` (a 0-d node),
    clipped to [0, 1]. Shape and dtype are ``x``'s."""
    _rgb(x, "adjust_saturation")
    h, s, v = channels(rgb_to_hsv(x))
    scaled = ew.apply(Op.MUL, s, factor, dtype=x.dtype)
    s = make(Op.CLAMP, (ew.zeros_like(s), scaled, ew.full(s.shape, 1, s.dtype)))
    return hsv_to_rgb(cs.stack([h, s, v], -1))


# the hue sextants: (the channel that is largest, middle, smallest) in each
_SEXTANTS = ((0, 1, 2), (1, 0, 2), (1, 2, 0), (2, 1, 0), (2, 0, 1), (0, 2, 1))


def _pick(sextant: Node, parts: list[Node]) -> Node:
    """parts[sextant] elementwise (the last for sextants outside 0..5)."""
    out = parts[-1]
    for k, part in enumerate(parts[:-1]):
        out = _where(ew.apply(Op.EQ, sextant, k, dtype=dt.int32), part, out)
    return out


def _rising(sextant: Node, ratio: Node) -> Node:
    """ratio in even sextants (the middle channel rises with the hue), 1 -
    ratio in odd ones."""
    even = ew.apply(Op.EQ, ew.apply(Op.REM, sextant, 2, dtype=dt.int32), 0, dtype=dt.int32)
    return _where(even, ratio, ew.apply(Op.SUB, 1, ratio, dtype=ratio.dtype))


def _hue_and_range(r: Node, g: Node, b: Node) -> tuple[Node, Node, Node]:
    """Hue in [0, 6) from the order of the channels (ties broken as the
    comparisons below break them), and the smallest and largest channel."""
    f = _math(r.dtype)

    def k(value: int) -> Node:
        return ew.full(r.shape, value, dt.int32)

    sextant = _where(make(Op.LT, (r, g)),
                     _where(make(Op.LT, (b, r)), k(1), _where(make(Op.GT, (b, g)), k(3), k(2))),
                     _where(make(Op.LT, (b, g)), k(0), _where(make(Op.GT, (b, r)), k(4), k(5))))
    rgb = (r, g, b)
    vmax, vmid, vmin = (_pick(sextant, [rgb[order[k]] for order in _SEXTANTS])
                        for k in range(3))
    ratio = f(Op.DIV, f(Op.SUB, vmid, vmin), f(Op.SUB, vmax, vmin))
    hue = f(Op.ADD, convert(sextant, r.dtype), _rising(sextant, ratio))
    return _where(make(Op.EQ, (vmax, vmin)), ew.zeros_like(hue), hue), vmin, vmax


def adjust_hue(x: Node, delta: Node) -> Node:
    """RGB ``x`` with its hue moved by ``delta`` (a 0-d node, in turns):
    the hue in sextants moves by 6 delta, wraps into [0, 6), and the
    channels are rebuilt from it and the value range. Shape and dtype are
    ``x``'s."""
    _rgb(x, "adjust_hue")
    f = _math(x.dtype)
    hue, vmin, vmax = _hue_and_range(*channels(x))
    hue = f(Op.ADD, hue, f(Op.MUL, delta, 6))
    hue = f(Op.SUB, hue, f(Op.MUL, make(Op.FLOOR, (f(Op.DIV, hue, 6),)), 6))
    hue = _where(make(Op.GE, (hue, ew.full(hue.shape, 6, x.dtype))), f(Op.SUB, hue, 6), hue)
    sextant = convert(make(Op.FLOOR, (hue,)), dt.int32)
    ratio = _rising(sextant, f(Op.SUB, hue, convert(sextant, x.dtype)))
    by_rank = (vmax, f(Op.ADD, vmin, f(Op.MUL, ratio, f(Op.SUB, vmax, vmin))), vmin)
    out = []
    for channel in range(3):  # the channel's rank in each sextant
        ranks = [order.index(channel) for order in _SEXTANTS]
        out.append(_pick(sextant, [by_rank[k] for k in ranks]))
    return cs.stack(out, -1)


# ----------------------------------------------------- other adjustments

def adjust_contrast(x: Node, factor: Node) -> Node:
    """(x - mean) * factor + mean, the mean over the height and width axes
    (-3, -2) per channel; ``factor`` a 0-d node of x's floating dtype.
    Shape and dtype are ``x``'s."""
    _floating(x, "adjust_contrast")
    f = _math(x.dtype)
    mean = reduction.mean(x, (x.ndim - 3, x.ndim - 2), keepdims=True)
    return f(Op.ADD, f(Op.MUL, f(Op.SUB, x, mean), factor), mean)


def per_image_standardization(x: Node) -> Node:
    """(x - mean) / max(std, 1 / sqrt(pixels)) over each image's last three
    axes (H, W, C); shape and dtype are ``x``'s (floating)."""
    _floating(x, "per_image_standardization")
    f = _math(x.dtype)
    axes = (x.ndim - 3, x.ndim - 2, x.ndim - 1)
    pixels = int(np.prod(x.shape[-3:]))
    mean = reduction.mean(x, axes, keepdims=True)
    std = reduction.std(x, axes, keepdims=True)
    one = x.dtype.type(1.0)
    floor = float(one / np.sqrt(x.dtype.type(pixels)))
    return f(Op.DIV, f(Op.SUB, x, mean), f(Op.MAX, std, floor))


def rgb_to_grayscale(x: Node, weights: np.ndarray) -> Node:
    """The weighted sum of RGB ``x``'s channels (``weights``: 3 numbers of
    x's dtype, the frontend's luma coefficients), keeping a channel axis:
    shape x.shape[:-1] + (1,), x's dtype."""
    _rgb(x, "rgb_to_grayscale")
    luma = get_runtime().from_host(np.asarray(weights, x.dtype)).node
    return cs.expand_dims(tensordot(x, luma, (x.ndim - 1,), (0,)), -1)


# --------------------------------------------------------------- filters

# (row, column, weight) taps of the two 3x3 Sobel filters
_SOBEL = (((0, 0, -1), (0, 1, -2), (0, 2, -1), (2, 0, 1), (2, 1, 2), (2, 2, 1)),  # d/dy
          ((0, 0, -1), (0, 2, 1), (1, 0, -2), (1, 2, 2), (2, 0, -1), (2, 2, 1)))  # d/dx


def sobel_edges(x: Node) -> Node:
    """The two 3x3 Sobel filters (d/dy, d/dx) of each channel of (N, H, W,
    C) ``x``, reflect-padded (H and W at least 2): shape x.shape + (2,),
    x's dtype (floating or complex)."""
    if x.ndim != 4:
        raise ShapeError(f"sobel_edges: a 4-d (N, H, W, C) image is needed, got shape "
                         f"{x.shape}")
    padded = cpadding.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), "reflect")
    height, width = x.shape[1:3]
    out = []
    for taps in _SOBEL:
        total = None
        for a, b, weight in taps:
            window = cs.slice_axis(cs.slice_axis(padded, 1, a, a + height), 2, b, b + width)
            term = ew.apply(Op.MUL, window, weight, dtype=x.dtype)
            total = term if total is None else make(Op.ADD, (total, term))
        out.append(total)
    return cs.stack(out, -1)


def extract_patches(x: Node, sizes: Sequence[int], strides: Sequence[int],
                    rates: Sequence[int], padding: str) -> Node:
    """Every (rows x cols) = ``sizes`` patch of (N, H, W, C) ``x``, dilated
    by ``rates``, at ``strides``, flattened in (row, col, channel) order
    into the last axis; ``padding`` "VALID" or "SAME" (zeros, as a SAME
    convolution pads). Shape (N, out_h, out_w, rows * cols * C), x's dtype."""
    if x.ndim != 4 or padding not in ("VALID", "SAME"):
        raise ShapeError(f"extract_patches: a 4-d (N, H, W, C) image and VALID or SAME "
                         f"padding are needed, got shape {x.shape} and {padding!r}")
    (kr, kc), (sr, sc), (rr, rc) = sizes, strides, rates
    pads = explicit_padding(padding, x.shape[1:3], sizes, strides, rates)
    outs = [max((n + lo + hi - (k - 1) * r - 1) // s + 1, 0) for n, (lo, hi), k, r, s in zip(
        x.shape[1:3], pads, sizes, rates, strides, strict=True)]
    if not all(outs):
        return ew.full((x.shape[0], *outs, kr * kc * x.shape[3]), 0, x.dtype)
    padded = cpadding.pad(x, ((0, 0), *pads, (0, 0)))
    (out_r, out_c) = outs
    parts = []
    for i in range(kr):
        rows = cs.slice_axis(padded, 1, i * rr, i * rr + (out_r - 1) * sr + 1, sr)
        for j in range(kc):
            parts.append(cs.slice_axis(rows, 2, j * rc, j * rc + (out_c - 1) * sc + 1, sc))
    return cs.concatenate(parts, -1)


# ----------------------------------------------------- crop and resize

def _box_coordinates(y1: Node, y2: Node, size: int, crop: int) -> Node:
    """The sample positions of one axis per box, (boxes, crop):
    y1 (size - 1) + i (y2 - y1) (size - 1) / (crop - 1), or the centre for
    a crop of 1."""
    f = _math(y1.dtype)
    scale = float(size - 1)
    if crop == 1:
        return cs.expand_dims(f(Op.MUL, f(Op.ADD, y1, y2), 0.5 * scale), -1)
    steps = make(Op.IOTA, (), y1.dtype, (crop,), 0)
    height = f(Op.DIV, f(Op.MUL, f(Op.SUB, y2, y1), scale), float(crop - 1))
    return f(Op.ADD, cs.expand_dims(f(Op.MUL, y1, scale), -1),
             f(Op.MUL, cs.expand_dims(height, -1), steps))


def _gather_pixels(x: Node, box_index: Node, ys: Node, xs: Node) -> Node:
    """x[box_index[n], ys[n, i], xs[n, j], :] as (boxes, crop_h, crop_w, depth)."""
    shape = (ys.shape[0], ys.shape[1], xs.shape[1])
    b = ew.broadcast_to(cs.reshape(box_index, (shape[0], 1, 1)), shape)
    yy = ew.broadcast_to(cs.expand_dims(ys, 2), shape)
    xx = ew.broadcast_to(cs.expand_dims(xs, 1), shape)
    return along.gather_nd(x, cs.stack([b, yy, xx], -1), 0)


def _outside(coords: Node, size: int) -> Node:
    return make(Op.OR, (ew.apply(Op.LT, coords, 0.0, dtype=coords.dtype),
                        ew.apply(Op.GT, coords, float(size - 1), dtype=coords.dtype)))


def _clamped_int(coords: Node, size: int) -> Node:
    """Sample rows as int32 indices, clamped (samples outside are masked)."""
    inside = make(Op.CLAMP, (ew.zeros_like(coords), coords,
                             ew.full(coords.shape, size - 1, coords.dtype)))
    return convert(inside, dt.int32)


def _bilinear(x: Node, index: Node, ys: Node, xs: Node) -> Node:
    f = _math(x.dtype)
    top_f, left_f = make(Op.FLOOR, (ys,)), make(Op.FLOOR, (xs,))
    height, width = x.shape[1:3]
    top, bottom = _clamped_int(top_f, height), _clamped_int(make(Op.CEIL, (ys,)), height)
    left, right = _clamped_int(left_f, width), _clamped_int(make(Op.CEIL, (xs,)), width)
    y_lerp = f(Op.SUB, ys, top_f)
    x_lerp = cs.expand_dims(f(Op.SUB, xs, left_f), (1, 3))
    y_lerp = cs.expand_dims(y_lerp, (2, 3))

    def row(r: Node) -> Node:
        a, b = _gather_pixels(x, index, r, left), _gather_pixels(x, index, r, right)
        return f(Op.ADD, a, f(Op.MUL, f(Op.SUB, b, a), x_lerp))

    upper, lower = row(top), row(bottom)
    return f(Op.ADD, upper, f(Op.MUL, f(Op.SUB, lower, upper), y_lerp))


def crop_and_resize(x: Node, boxes: Node, box_index: Node, crop: Sequence[int],
                    method: str = "bilinear", extrapolation: float = 0.0) -> Node:
    """Per box, ``crop`` = (rows, cols) samples of (N, H, W, C) ``x``
    between the box's normalized corners (y1, x1, y2, x2; ``boxes`` (B, 4)
    of x's floating dtype), from image ``box_index`` (B,) int32 (in range:
    the frontend checks): bilinear, or "nearest" (rounded half away from
    zero); samples outside the image are ``extrapolation``. Shape
    (B, rows, cols, C), x's dtype."""
    _batch(x, "crop_and_resize")
    if boxes.ndim != 2 or boxes.shape[1] != 4 or box_index.shape != boxes.shape[:1]:
        raise ShapeError(f"crop_and_resize: boxes (B, 4) and box indices (B,) are needed, "
                         f"got {boxes.shape} and {box_index.shape}")
    if boxes.dtype != x.dtype or box_index.dtype != dt.int32:
        raise DTypeError(f"crop_and_resize: boxes of {x.dtype.name} and int32 box indices "
                         f"are needed, got {boxes.dtype.name} and {box_index.dtype.name}")
    height, width = x.shape[1:3]
    corners = [cs.squeeze(cs.slice_axis(boxes, 1, k, k + 1), 1) for k in range(4)]
    ys = _box_coordinates(corners[0], corners[2], height, crop[0])
    xs = _box_coordinates(corners[1], corners[3], width, crop[1])
    grid = (boxes.shape[0], *crop)
    outside = make(Op.OR, (ew.broadcast_to(cs.expand_dims(_outside(ys, height), 2), grid),
                           ew.broadcast_to(cs.expand_dims(_outside(xs, width), 1), grid)))
    if method == "nearest":
        out = _gather_pixels(x, box_index, _clamped_int(make(Op.ROUND_AWAY, (ys,)), height),
                             _clamped_int(make(Op.ROUND_AWAY, (xs,)), width))
    else:
        out = _bilinear(x, box_index, ys, xs)
    fill = ew.full(out.shape, float(extrapolation), x.dtype)
    return _where(ew.broadcast_to(cs.expand_dims(outside, -1), out.shape), fill, out)


__all__ = ["adjust_contrast", "adjust_hue", "adjust_saturation", "channels",
           "crop_and_resize", "extract_patches", "hsv_to_rgb", "per_image_standardization",
           "rgb_to_grayscale", "rgb_to_hsv", "sobel_edges"]
