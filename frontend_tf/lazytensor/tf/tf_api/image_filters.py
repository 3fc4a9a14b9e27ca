"""More of ``tf.image`` on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``): the HSV colour adjustments (``adjust_saturation``,
``adjust_hue``), ``sobel_edges``, ``extract_patches`` and
``crop_and_resize``, as TensorFlow's CPU kernels compute them.

Arguments these do not lower (tensor-valued factors of another dtype,
images of a dtype TensorFlow's kernels refuse) run eagerly in TensorFlow,
counted, so TensorFlow raises its own errors.
"""

from __future__ import annotations

import math
import numbers

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import along, rearrange
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite import shape as cs
from lazytensor.core.composite.elementwise import convert
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.tf import _tf
from lazytensor.tf.tf_api._dispatch import host_int, tensor
from lazytensor.tf.tf_api.image import (
    _as_float,
    _channels,
    _rgb_image,
    _where,
    convert_dtype,
    hsv_to_rgb,
    rgb_to_hsv,
)


def _f32(op: Op, *xs) -> Node:
    return ew.apply(op, *xs, dtype=dt.float32)


def _scalar_f32(value, what: str) -> Node:
    """A float32 scalar argument (a Python number, or a float32 0-d tensor)."""
    node = tensor(value, dt.float32)
    if node.dtype != dt.float32 or node.ndim:
        raise NotImplementedError(f"{what} not a float32 scalar")  # TensorFlow's error
    return node


def _hsv_adjusted(image, what: str, adjust) -> Node:
    """TensorFlow's AdjustSaturation / AdjustHue wrapper: images other than
    float32 in float32 (integers scaled to [0, 1]; float16 has no CPU
    kernel), the kernel on the RGB channels, then back to the image's dtype."""
    x = tensor(image)
    if not (dt.is_float(x.dtype) or dt.is_int(x.dtype)):
        raise NotImplementedError(f"{what} of {x.dtype.name}")
    flt = _as_float(x)
    if flt.dtype == dt.float16:
        raise NotImplementedError(f"{what} of float16")  # no CPU kernel: NotFoundError
    rgb = _rgb_image(flt, what)
    return convert_dtype(adjust(rgb), x.dtype)


def adjust_saturation(image, saturation_factor, name=None):
    """The AdjustSaturation kernel: s * factor, clipped to [0, 1], in HSV."""
    factor = _scalar_f32(saturation_factor, "saturation_factor")

    def adjust(rgb: Node) -> Node:
        h, s, v = _channels(rgb_to_hsv(rgb))
        s = make(Op.CLAMP, (ew.zeros_like(s), _f32(Op.MUL, s, factor), ew.full(s.shape, 1,
                                                                                 s.dtype)))
        return hsv_to_rgb(cs.stack([h, s, v], -1))

    return _hsv_adjusted(image, "AdjustSaturation", adjust)


# AdjustHue's hue sextants: (the channel that is largest, middle, smallest)
# per sextant, and whether the middle one rises with the hue in it
_SEXTANTS = ((0, 1, 2), (1, 0, 2), (1, 2, 0), (2, 1, 0), (2, 0, 1), (0, 2, 1))


def _hue_and_range(r: Node, g: Node, b: Node) -> tuple[Node, Node, Node]:
    """The AdjustHue kernel's rgb_to_hv_range: hue in [0, 6) from the order of
    the channels (ties as the kernel's comparisons break them), vmin, vmax."""
    def k(value: int) -> Node:
        return ew.full(r.shape, value, dt.int32)

    sextant = _where(make(Op.LT, (r, g)),
                     _where(make(Op.LT, (b, r)), k(1), _where(make(Op.GT, (b, g)), k(3), k(2))),
                     _where(make(Op.LT, (b, g)), k(0), _where(make(Op.GT, (b, r)), k(4), k(5))))
    channels = (r, g, b)
    picks = [_pick(sextant, [channels[order[k]] for order in _SEXTANTS]) for k in range(3)]
    vmax, vmid, vmin = picks
    span = _f32(Op.SUB, vmax, vmin)
    ratio = _f32(Op.DIV, _f32(Op.SUB, vmid, vmin), span)
    hue = _f32(Op.ADD, convert(sextant, dt.float32), _rising(sextant, ratio))
    return _where(make(Op.EQ, (vmax, vmin)), ew.zeros_like(hue), hue), vmin, vmax


def _rising(sextant: Node, ratio: Node) -> Node:
    """ratio in even sextants (the middle channel rises with the hue), 1 -
    ratio in odd ones."""
    even = ew.apply(Op.EQ, ew.apply(Op.REM, sextant, 2, dtype=dt.int32), 0, dtype=dt.int32)
    return _where(even, ratio, _f32(Op.SUB, 1, ratio))


def _pick(sextant: Node, parts: list[Node]) -> Node:
    """parts[sextant] elementwise (the last for sextants outside 0..5)."""
    out = parts[-1]
    for k, part in enumerate(parts[:-1]):
        out = _where(ew.apply(Op.EQ, sextant, k, dtype=dt.int32), part, out)
    return out


def adjust_hue(image, delta, name=None):
    """The AdjustHue kernel: the hue (in sextants) moved by 6 delta and
    wrapped into [0, 6), the channels rebuilt from it and the value range."""
    shift = _scalar_f32(delta, "delta")

    def adjust(rgb: Node) -> Node:
        r, g, b = _channels(rgb)
        hue, vmin, vmax = _hue_and_range(r, g, b)
        hue = _f32(Op.ADD, hue, _f32(Op.MUL, shift, 6))
        hue = _f32(Op.SUB, hue, _f32(Op.MUL, make(Op.FLOOR, (_f32(Op.DIV, hue, 6),)), 6))
        hue = _where(make(Op.GE, (hue, ew.full(hue.shape, 6, dt.float32))),
                     _f32(Op.SUB, hue, 6), hue)
        sextant = convert(make(Op.FLOOR, (hue,)), dt.int32)
        ratio = _rising(sextant, _f32(Op.SUB, hue, convert(sextant, dt.float32)))
        vmid = _f32(Op.ADD, vmin, _f32(Op.MUL, ratio, _f32(Op.SUB, vmax, vmin)))
        by_rank = (vmax, vmid, vmin)
        out = []
        for channel in range(3):  # the channel's rank in each sextant
            ranks = [order.index(channel) for order in _SEXTANTS]
            out.append(_pick(sextant, [by_rank[k] for k in ranks]))
        return cs.stack(out, -1)

    return _hsv_adjusted(image, "AdjustHue", adjust)


# -------------------------------------------------------------- filters

_SOBEL = (((0, 0, -1), (0, 1, -2), (0, 2, -1), (2, 0, 1), (2, 1, 2), (2, 2, 1)),  # d/dy
          ((0, 0, -1), (0, 2, 1), (1, 0, -2), (1, 2, 2), (2, 0, -1), (2, 2, 1)))  # d/dx


def sobel_edges(image):
    """TensorFlow's: the two 3x3 Sobel filters (d/dy, d/dx) of each channel
    of the reflect-padded image: shape image.shape + (2,)."""
    x = tensor(image)
    if x.ndim != 4 or not dt.is_inexact(x.dtype) or min(x.shape[1:3]) < 2:
        raise NotImplementedError("sobel_edges of this image")  # TensorFlow's errors
    padded = rearrange.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), "reflect")
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


def _window_args(value, name: str) -> tuple[int, int]:
    values = host_int(value)
    if isinstance(values, int) or len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise NotImplementedError(f"extract_patches {name}")  # TensorFlow's error
    if min(values) < 1:
        raise NotImplementedError(f"extract_patches {name}")
    return values[1], values[2]


def _padded_extent(size: int, kernel: int, stride: int, padding: str) -> tuple[int, int]:
    """(output length, padding before) of one axis (TensorFlow's VALID / SAME)."""
    if padding == "VALID":
        return max(math.ceil((size - kernel + 1) / stride), 0), 0
    out = math.ceil(size / stride)
    return out, max((out - 1) * stride + kernel - size, 0) // 2


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """TensorFlow's ExtractImagePatches: every (rows x cols) patch, dilated by
    ``rates``, at ``strides``, flattened in (row, col, depth) order into the
    last axis; SAME pads with zeros."""
    x = tensor(images)
    padding = str(padding).upper()
    if x.ndim != 4 or padding not in ("VALID", "SAME"):
        raise NotImplementedError("extract_patches arguments")  # TensorFlow's errors
    (kr, kc), (sr, sc), (rr, rc) = (_window_args(v, n) for v, n in (
        (sizes, "sizes"), (strides, "strides"), (rates, "rates")))
    ker = (kr + (kr - 1) * (rr - 1), kc + (kc - 1) * (rc - 1))
    (out_r, top), (out_c, left) = (_padded_extent(n, k, s, padding) for n, k, s in zip(
        x.shape[1:3], ker, (sr, sc), strict=True))
    bottom = max((out_r - 1) * sr + ker[0] - x.shape[1] - top, 0)
    right = max((out_c - 1) * sc + ker[1] - x.shape[2] - left, 0)
    padded = rearrange.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    if not out_r or not out_c:
        return ew.full((x.shape[0], out_r, out_c, kr * kc * x.shape[3]), 0, x.dtype)
    parts = []
    for i in range(kr):
        rows = cs.slice_axis(padded, 1, i * rr, i * rr + (out_r - 1) * sr + 1, sr)
        for j in range(kc):
            parts.append(cs.slice_axis(rows, 2, j * rc, j * rc + (out_c - 1) * sc + 1, sc))
    return cs.concatenate(parts, -1)


# ------------------------------------------------------------ crop_and_resize

def _box_coordinates(y1: Node, y2: Node, size: int, crop: int) -> Node:
    """The sample positions of one axis per box, (boxes, crop): TensorFlow's
    y1 (size - 1) + i (y2 - y1) (size - 1) / (crop - 1), or the centre for a
    crop of 1."""
    scale = float(size - 1)
    if crop == 1:
        centre = _f32(Op.MUL, _f32(Op.ADD, y1, y2), 0.5 * scale)
        return cs.expand_dims(centre, -1)
    steps = make(Op.IOTA, (), dt.float32, (crop,), 0)
    height = _f32(Op.DIV, _f32(Op.MUL, _f32(Op.SUB, y2, y1), scale), float(crop - 1))
    return _f32(Op.ADD, cs.expand_dims(_f32(Op.MUL, y1, scale), -1),
                _f32(Op.MUL, cs.expand_dims(height, -1), steps))


def _gather_pixels(x: Node, box_index: Node, ys: Node, xs: Node) -> Node:
    """x[box_index[n], ys[n, i], xs[n, j], :] as (boxes, crop_h, crop_w, depth)."""
    n, ch, cw = ys.shape[0], ys.shape[1], xs.shape[1]
    shape = (n, ch, cw)
    b = ew.broadcast_to(cs.reshape(box_index, (n, 1, 1)), shape)
    yy = ew.broadcast_to(cs.expand_dims(ys, 2), shape)
    xx = ew.broadcast_to(cs.expand_dims(xs, 1), shape)
    index = cs.stack([b, yy, xx], -1)
    return along.gather_nd(x, index, 0)


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
    """TensorFlow's CropAndResize (CPU): per box, crop_size samples between
    its normalized corners, bilinear (or nearest: rounded half away from
    zero) from the image, ``extrapolation_value`` outside it; float32."""
    rows = _tf.host_value(box_indices)  # first: a barrier (it may donate buffers read before)
    x, box, index = tensor(image), tensor(boxes, dt.float32), tensor(box_indices, dt.int32)
    crop = host_int(crop_size)
    if (x.ndim != 4 or box.dtype != dt.float32 or box.shape[1:] != (4,)
            or index.shape != box.shape[:1] or index.dtype != dt.int32
            or isinstance(crop, int) or len(crop) != 2 or min(crop) <= 0
            or method not in ("bilinear", "nearest") or x.dtype == dt.bool_
            or not isinstance(extrapolation_value, numbers.Real)):
        raise NotImplementedError("crop_and_resize arguments")  # TensorFlow's checks
    # an index out of range is TensorFlow's error, not a clamp
    if rows.size and (rows.min() < 0 or rows.max() >= x.shape[0]):
        raise NotImplementedError("box index out of range")
    flt = convert(x, dt.float32)
    height, width = x.shape[1:3]
    corners = [cs.squeeze(cs.slice_axis(box, 1, k, k + 1), 1) for k in range(4)]
    ys = _box_coordinates(corners[0], corners[2], height, crop[0])
    xs = _box_coordinates(corners[1], corners[3], width, crop[1])
    grid = (box.shape[0], *crop)
    outside = make(Op.OR, (ew.broadcast_to(cs.expand_dims(_outside(ys, height), 2), grid),
                           ew.broadcast_to(cs.expand_dims(_outside(xs, width), 1), grid)))
    if method == "nearest":
        out = _gather_pixels(flt, index, _nearest(ys, height), _nearest(xs, width))
    else:
        out = _bilinear(flt, index, ys, xs)
    fill = ew.full(out.shape, float(extrapolation_value), dt.float32)
    outside = ew.broadcast_to(cs.expand_dims(outside, -1), out.shape)
    return _where(outside, fill, out)


def _outside(coords: Node, size: int) -> Node:
    return make(Op.OR, (ew.apply(Op.LT, coords, 0.0, dtype=dt.float32),
                        ew.apply(Op.GT, coords, float(size - 1), dtype=dt.float32)))


def _clamped_int(coords: Node, size: int) -> Node:
    """Sample rows as int32 indices, clamped (samples outside are masked)."""
    inside = make(Op.CLAMP, (ew.zeros_like(coords), coords, ew.full(coords.shape, size - 1,
                                                                     dt.float32)))
    return convert(inside, dt.int32)


def _nearest(coords: Node, size: int) -> Node:
    return _clamped_int(make(Op.ROUND_AWAY, (coords,)), size)


def _bilinear(flt: Node, index: Node, ys: Node, xs: Node) -> Node:
    top_f, left_f = make(Op.FLOOR, (ys,)), make(Op.FLOOR, (xs,))
    height, width = flt.shape[1:3]
    top, bottom = _clamped_int(top_f, height), _clamped_int(make(Op.CEIL, (ys,)), height)
    left, right = _clamped_int(left_f, width), _clamped_int(make(Op.CEIL, (xs,)), width)
    y_lerp = _f32(Op.SUB, ys, top_f)
    x_lerp = cs.expand_dims(_f32(Op.SUB, xs, left_f), (1, 3))
    y_lerp = cs.expand_dims(y_lerp, (2, 3))

    def row(r: Node) -> Node:
        a, b = _gather_pixels(flt, index, r, left), _gather_pixels(flt, index, r, right)
        return _f32(Op.ADD, a, _f32(Op.MUL, _f32(Op.SUB, b, a), x_lerp))

    upper, lower = row(top), row(bottom)
    return _f32(Op.ADD, upper, _f32(Op.MUL, _f32(Op.SUB, lower, upper), y_lerp))


APIS = {
    "image.adjust_saturation": adjust_saturation, "image.adjust_hue": adjust_hue,
    "image.sobel_edges": sobel_edges, "image.extract_patches": extract_patches,
    "image.crop_and_resize": crop_and_resize,
}

__all__ = ["APIS"]
