"""``tf.image`` on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``): flips, rotations, crops and pads, dtype
conversion, colour adjustments and ``tf.image.resize``.

Images are 3-d (H, W, C) or 4-d (N, H, W, C), TensorFlow's layout.
``resize`` lowers TensorFlow 2's bilinear (float32 result, any input
dtype) and nearest-neighbour (the input's dtype) kernels without
antialiasing: half-pixel centers, the core's ``composite.image.resize``. Other
methods, ``antialias=True`` and ``preserve_aspect_ratio=True`` run
eagerly in TensorFlow (counted).

``convert_image_dtype`` follows TensorFlow's Python implementation (integer
images scale by the dtype's maximum, floats are taken in [0, 1]); the
colour adjustments (brightness, contrast, gamma, grayscale) compute in
float32 (float16 and float32 images as they are) and convert back with
saturation, as TensorFlow's do.
"""

from __future__ import annotations

import numbers

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise import formulas as formulas
from lazytensor.core.composite.elementwise.apply import const, convert
from lazytensor.core.composite.image import resize as cresize
from lazytensor.core.composite.image import transforms as cimage
from lazytensor.core.composite.movement import padding, rearrange
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.tf import _tf
from lazytensor.tf.numpy._math import _floor_divide
from lazytensor.tf.tf_api._dispatch import dtype_arg, host_int, tensor

_METHODS = {"bilinear": "linear", "nearest": "nearest"}
_EAGER_METHODS = ("bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")


def _image(value, what: str = "image") -> Node:
    x = tensor(value)
    if x.ndim < 3:
        raise ValueError(f"'{what}' (shape {x.shape}) must be at least three-dimensional.")
    if x.ndim > 4:
        raise ValueError(f"'{what}' (shape {x.shape})must have either 3 or 4 dimensions.")
    return x


def _flip(from_end: int):
    """Reverse the axis ``from_end`` places from the last (2: width, 3: height)."""
    def impl(image):
        x = _image(image)
        return rearrange.flip(x, (x.ndim - from_end,))

    return impl


def _resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False,
            name=None):
    x = tensor(images)
    if x.ndim not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    sizes = host_int(size)
    if isinstance(sizes, int) or len(sizes) != 2:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    method = str(method)
    if method not in _METHODS and method not in _EAGER_METHODS:
        raise ValueError(f"Resize method is not implemented: {method}")
    if method in _EAGER_METHODS or antialias or preserve_aspect_ratio:
        raise NotImplementedError(f"resize {method}")  # -> eager TensorFlow, counted
    if min(sizes) <= 0:
        raise _tf.tf().errors.InvalidArgumentError(None, None,
                                                   "output dimensions must be positive")
    if method == "bilinear":
        x = convert(x, dt.float32)
    return cresize.resize(x, (x.ndim - 3, x.ndim - 2), sizes, _METHODS[method])


# ------------------------------------------------------------ geometry

def _rank34(value) -> Node:
    x = tensor(value)
    if x.ndim not in (3, 4):
        raise ValueError(f"'image' (shape {_tf.tf().TensorShape(x.shape)}) must have either 3 "
                         f"or 4 dimensions.")
    return x


def _check(ok: bool, message: str) -> None:
    """TensorFlow's ``_assert`` on values known on the host."""
    if not ok:
        raise ValueError(message)


def _hw(x: Node) -> tuple[int, int]:
    """The height and width axes of a 3-d or 4-d image."""
    return x.ndim - 3, x.ndim - 2


def _ints(*values) -> tuple[int, ...]:
    ints = tuple(host_int(v) for v in values)
    if not all(isinstance(v, int) for v in ints):
        raise NotImplementedError("non-scalar box arguments")  # TensorFlow's own error
    return ints


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    x = _rank34(image)
    oh, ow, th, tw = _ints(offset_height, offset_width, target_height, target_width)
    h, w = _hw(x)
    _check(ow >= 0, "offset_width must be >= 0.")
    _check(oh >= 0, "offset_height must be >= 0.")
    _check(tw > 0, "target_width must be > 0.")
    _check(th > 0, "target_height must be > 0.")
    _check(x.shape[w] >= tw + ow, "width must be >= target + offset.")
    _check(x.shape[h] >= th + oh, "height must be >= target + offset.")
    return cs.slice_axis(cs.slice_axis(x, h, oh, oh + th), w, ow, ow + tw)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    x = _rank34(image)
    oh, ow, th, tw = _ints(offset_height, offset_width, target_height, target_width)
    h, w = _hw(x)
    after_w, after_h = tw - ow - x.shape[w], th - oh - x.shape[h]
    _check(oh >= 0, "offset_height must be >= 0")
    _check(ow >= 0, "offset_width must be >= 0")
    _check(after_w >= 0, "width must be <= target - offset")
    _check(after_h >= 0, "height must be <= target - offset")
    widths = [(0, 0)] * x.ndim
    widths[h], widths[w] = (oh, after_h), (ow, after_w)
    return padding.pad(x, tuple(widths))


def resize_with_crop_or_pad(image, target_height, target_width):
    x = _rank34(image)
    th, tw = _ints(target_height, target_width)
    _check(tw > 0, "target_width must be > 0.")
    _check(th > 0, "target_height must be > 0.")
    h, w = (x.shape[a] for a in _hw(x))
    cropped = crop_to_bounding_box(x, max(-(th - h) // 2, 0), max(-(tw - w) // 2, 0),
                                   min(th, h), min(tw, w))
    return pad_to_bounding_box(cropped, max((th - h) // 2, 0), max((tw - w) // 2, 0), th, tw)


def central_crop(image, central_fraction):
    x = tensor(image)
    fraction = float(_tf.host_value(central_fraction))
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if fraction == 1.0:
        return x
    x = _image(x)
    if x.ndim not in (3, 4):
        raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had "
                         f"rank = {x.ndim}.")
    out = x
    for axis in _hw(x):
        size = x.shape[axis]
        start = int((float(size) - float(size) * fraction) / 2)
        out = cs.slice_axis(out, axis, start, size - start)
    return out


def rot90(image, k=1, name=None):
    x = _rank34(_image(image))
    turns = host_int(k)
    if not isinstance(turns, int):
        raise ValueError(f"Shape {np.shape(_tf.host_value(k))} must have rank 0")
    return rearrange.rot90(x, turns % 4, _hw(x))


def transpose(image, name=None):
    x = _rank34(_image(image))
    return cs.swapaxes(x, *_hw(x))


# ------------------------------------------------------------ dtypes, colour

def _image_kind(dtype: np.dtype, what: str) -> str:
    kind = "f" if dt.is_float(dtype) else "i" if dt.is_int(dtype) else ""
    if not kind:
        raise AttributeError(f"{what} must be either floating point or integer")
    return kind


def convert_dtype(x: Node, target: np.dtype, saturate: bool = False) -> Node:
    """TensorFlow's ``convert_image_dtype`` of a node."""
    kinds = _image_kind(target, "dtype") + _image_kind(x.dtype, "image dtype")
    if target == x.dtype:
        return x
    cast = formulas.saturate_cast if saturate else convert
    if kinds == "ii":
        scale_in, scale_out = int(np.iinfo(x.dtype).max), int(np.iinfo(target).max)
        if scale_in > scale_out:  # scale down, then cast
            return cast(_floor_divide(x, const((scale_in + 1) // (scale_out + 1), x)), target)
        out = cast(x, target)  # cast, then scale up
        return ew.apply(Op.MUL, out, (scale_out + 1) // (scale_in + 1), dtype=target)
    if kinds == "ff":
        return convert(x, target)
    if kinds == "fi":  # integers to [0, 1]
        out = convert(x, target)
        return ew.apply(Op.MUL, out, 1.0 / int(np.iinfo(x.dtype).max), dtype=target)
    scaled = ew.apply(Op.MUL, x, float(np.iinfo(target).max) + 0.5, dtype=x.dtype)
    return cast(scaled, target)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    return convert_dtype(tensor(image), dtype_arg(dtype), bool(saturate))


def _as_float(x: Node) -> Node:
    """float16 and float32 images as they are, others in float32."""
    return x if x.dtype in (dt.float16, dt.float32) else convert_dtype(x, dt.float32)


def _number(value, what: str) -> float:
    if isinstance(value, numbers.Real):
        return value
    raise NotImplementedError(f"{what} as a tensor")  # TensorFlow's own promotion


def adjust_brightness(image, delta):
    x = tensor(image)
    flt = _as_float(x)
    adjusted = ew.apply(Op.ADD, flt, convert(tensor(delta, flt.dtype), flt.dtype),
                        dtype=flt.dtype)
    return convert_dtype(adjusted, x.dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    x = tensor(images)
    if x.ndim < 3:
        raise _tf.tf().errors.InvalidArgumentError(
            None, None, f"input must be at least 3-D, got shape{list(x.shape)}")
    factor = tensor(contrast_factor, dt.float32)
    if factor.dtype != dt.float32 or factor.ndim:
        raise NotImplementedError("contrast_factor not a float32 scalar")  # TF's error
    flt = _as_float(x)
    if flt.dtype != dt.float32:  # no float16 CPU kernel: TensorFlow's NotFoundError
        raise NotImplementedError("adjust_contrast of float16")
    return convert_dtype(cimage.adjust_contrast(flt, factor), x.dtype, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    x = tensor(image)
    gamma, gain = _number(gamma, "gamma"), _number(gain, "gain")
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    flt = _as_float(x)
    adjusted = ew.apply(Op.MUL, gain, ew.apply(Op.POW, flt, gamma, dtype=flt.dtype),
                        dtype=flt.dtype)
    return convert_dtype(adjusted, x.dtype, saturate=True)


_LUMA = np.array([0.2989, 0.5870, 0.1140], np.float32)  # TensorFlow's RGB weights


def rgb_to_grayscale(images, name=None):
    x = tensor(images)
    flt = convert_dtype(x, dt.float32)
    if not flt.ndim or flt.shape[-1] != 3:
        raise NotImplementedError("not an RGB image")  # TensorFlow's own error
    return convert_dtype(cimage.rgb_to_grayscale(flt, _LUMA), x.dtype)


def grayscale_to_rgb(images, name=None):
    x = tensor(images)
    if x.ndim < 2:
        raise ValueError(f"'image' (shape {_tf.tf().TensorShape(x.shape)}) must have at least "
                         f"two dimensions.")
    if x.shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return rearrange.tile(x, (1,) * (x.ndim - 1) + (3,))


def per_image_standardization(image):
    return cimage.per_image_standardization(convert(_image(image), dt.float32))


# ------------------------------------------------------------ HSV

def _rgb_image(value, op: str) -> Node:
    x = tensor(value)
    if not dt.is_float(x.dtype):
        raise NotImplementedError(f"{op} of {x.dtype.name}")  # TensorFlow's own error
    if not x.ndim or x.shape[-1] != 3:
        raise _tf.tf().errors.InvalidArgumentError(
            None, None, f"input must have 3 channels but input only has "
            f"{x.shape[-1] if x.ndim else 0} channels. [Op:{op}]")
    return x


def rgb_to_hsv(images, name=None):
    """TensorFlow's RGBToHSV kernel (the core's ``image.rgb_to_hsv``)."""
    return cimage.rgb_to_hsv(_rgb_image(images, "RGBToHSV"))


def hsv_to_rgb(images, name=None):
    """TensorFlow's HSVToRGB kernel (the core's ``image.hsv_to_rgb``;
    sextants outside [0, 6) are TensorFlow's default case, red c)."""
    return cimage.hsv_to_rgb(_rgb_image(images, "HSVToRGB"))


APIS = {
    "image.flip_left_right": _flip(2),
    "image.flip_up_down": _flip(3),
    "image.resize": _resize,
    "image.crop_to_bounding_box": crop_to_bounding_box,
    "image.pad_to_bounding_box": pad_to_bounding_box,
    "image.resize_with_crop_or_pad": resize_with_crop_or_pad,
    "image.central_crop": central_crop, "image.rot90": rot90, "image.transpose": transpose,
    "image.convert_image_dtype": convert_image_dtype,
    "image.adjust_brightness": adjust_brightness, "image.adjust_contrast": adjust_contrast,
    "image.adjust_gamma": adjust_gamma, "image.rgb_to_grayscale": rgb_to_grayscale,
    "image.grayscale_to_rgb": grayscale_to_rgb,
    "image.per_image_standardization": per_image_standardization,
    "image.rgb_to_hsv": rgb_to_hsv, "image.hsv_to_rgb": hsv_to_rgb,
}

__all__ = ["APIS"]
