"""``tf.image`` on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``): flips and ``tf.image.resize``.

Images are 3-d (H, W, C) or 4-d (N, H, W, C), TensorFlow's layout.
``resize`` lowers TensorFlow 2's bilinear (float32 result, any input
dtype) and nearest-neighbour (the input's dtype) kernels without
antialiasing: half-pixel centers, the core's ``composite.resize``. Other
methods, ``antialias=True`` and ``preserve_aspect_ratio=True`` run
eagerly in TensorFlow (counted).
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import rearrange
from lazytensor.core.composite import resize as cresize
from lazytensor.core.composite.elementwise import convert
from lazytensor.core.ir import Node
from lazytensor.tf import _tf
from lazytensor.tf.tf_api._dispatch import host_int, tensor

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


APIS = {
    "image.flip_left_right": _flip(2),
    "image.flip_up_down": _flip(3),
    "image.resize": _resize,
}

__all__ = ["APIS"]
