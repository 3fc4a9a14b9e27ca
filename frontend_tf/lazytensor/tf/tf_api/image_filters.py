"""More of ``tf.image`` on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``): the HSV colour adjustments (``adjust_saturation``,
``adjust_hue``), ``sobel_edges``, ``extract_patches``, ``crop_and_resize``,
``image_gradients`` and ``ssim``, as TensorFlow's CPU kernels compute them. The math is
the core's (``lazytensor.core.composite.image.transforms``); what stays here is
TensorFlow's argument checking and dtype handling.

Arguments these do not lower (tensor-valued factors of another dtype,
images of a dtype TensorFlow's kernels refuse) run eagerly in TensorFlow,
counted, so TensorFlow raises its own errors.
"""

from __future__ import annotations

import numbers

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.apply import convert
from lazytensor.core.composite.image import transforms as cimage
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.tf import _tf
from lazytensor.tf._array import wrap
from lazytensor.tf.tf_api._dispatch import host_int, tensor
from lazytensor.tf.tf_api.image import _as_float, _rgb_image, convert_dtype


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
    return _hsv_adjusted(image, "AdjustSaturation",
                         lambda rgb: cimage.adjust_saturation(rgb, factor))


def adjust_hue(image, delta, name=None):
    """The AdjustHue kernel: the hue (in sextants) moved by 6 delta and
    wrapped into [0, 6), the channels rebuilt from it and the value range."""
    shift = _scalar_f32(delta, "delta")
    return _hsv_adjusted(image, "AdjustHue", lambda rgb: cimage.adjust_hue(rgb, shift))


# -------------------------------------------------------------- filters

def sobel_edges(image):
    """TensorFlow's: the two 3x3 Sobel filters (d/dy, d/dx) of each channel
    of the reflect-padded image: shape image.shape + (2,)."""
    x = tensor(image)
    if x.ndim != 4 or not dt.is_inexact(x.dtype) or min(x.shape[1:3]) < 2:
        raise NotImplementedError("sobel_edges of this image")  # TensorFlow's errors
    return cimage.sobel_edges(x)


def _window_args(value, name: str) -> tuple[int, int]:
    values = host_int(value)
    if isinstance(values, int) or len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise NotImplementedError(f"extract_patches {name}")  # TensorFlow's error
    if min(values) < 1:
        raise NotImplementedError(f"extract_patches {name}")
    return values[1], values[2]


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
    return cimage.extract_patches(x, (kr, kc), (sr, sc), (rr, rc), padding)


# ------------------------------------------------------------ crop_and_resize

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
    return cimage.crop_and_resize(convert(x, dt.float32), box, index, crop, method,
                                  float(extrapolation_value))


def image_gradients(image):
    """(dy, dx): one-step forward differences down the rows and across the
    columns of a [batch, h, w, d] image, a zero last row / column (the
    image's dtype and shape)."""
    x = tensor(image)
    if x.ndim != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{_tf.tf().TensorShape(x.shape)}.")
    out = []
    for axis in (1, 2):
        n = x.shape[axis]
        step = make(Op.SUB, (cs.slice_axis(x, axis, 1, n), cs.slice_axis(x, axis, 0, n - 1)))
        edge = ew.full(x.shape[:axis] + (1,) + x.shape[axis + 1:], 0, x.dtype)
        out.append(cs.concatenate([step, edge], axis))
    return tuple(out)


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """TensorFlow's ssim with the images kept lazy: its top converted them
    (``convert_to_tensor``); its shape checks and per-channel SSIM (private
    helpers of TensorFlow's image module: Gaussian window, depthwise
    convolutions, means) are TensorFlow's own Python, whose ops all record
    lazily. Float32 results, the mean over channels."""
    from tensorflow.python.ops import image_ops_impl as tf_image  # TensorFlow's helpers

    tf = _tf.tf()
    a, b = (wrap(tensor(x)) for x in (img1, img2))
    tf_image._verify_compatible_image_shapes(a, b)  # noqa: SLF001
    top = tf.image.convert_image_dtype(tf.cast(max_val, a.dtype), tf.float32)
    a, b = (tf.image.convert_image_dtype(x, tf.float32) for x in (a, b))
    per_channel, _ = tf_image._ssim_per_channel(  # noqa: SLF001
        a, b, top, filter_size, filter_sigma, k1, k2, return_index_map)
    return tf.reduce_mean(per_channel, [-1])


APIS = {
    "image.adjust_saturation": adjust_saturation, "image.adjust_hue": adjust_hue,
    "image.sobel_edges": sobel_edges, "image.extract_patches": extract_patches,
    "image.crop_and_resize": crop_and_resize, "image.image_gradients": image_gradients,
    "image.ssim": ssim,
}

__all__ = ["APIS"]
