"""Resizing along given axes with half-pixel centers (TensorFlow 2's
``tf.image.resize``, OpenCV's and torch's ``align_corners=False`` linear
modes): output pixel i samples the input at (i + 0.5) * in / out - 0.5.
The source indices and weights depend on the sizes only, so they are
computed on the host in float32 (the kernels' precision) and compiled in
as constants; the data moves by gathers and one lerp per axis.

>>> import numpy as np
>>> from lazytensor.core.runtime import constant
>>> x = constant(np.zeros((1, 4, 6, 3), np.float32), np.dtype("float32"))
>>> resize(x, (1, 2), (8, 3), "linear").shape
(1, 8, 3, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite.take import take
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make
from lazytensor.core.runtime import constant

METHODS = ("linear", "nearest")


def _centers(size: int, out: int) -> np.ndarray:
    """(i + 0.5) * scale for each output index, in float32."""
    scale = np.float32(size) / np.float32(out)
    return (np.arange(out, dtype=np.float32) + np.float32(0.5)) * scale


def _pick(x: Node, axis: int, index: np.ndarray) -> Node:
    return take(x, constant(index.astype(np.int64), dt.int64), axis, "clip")


def nearest_axis(x: Node, axis: int, out: int) -> Node:
    """The input sample whose cell holds each output center (floor, capped)."""
    size = x.shape[axis]
    index = np.clip(np.floor(_centers(size, out)), 0, size - 1)
    return _pick(x, axis, index)


def linear_axis(x: Node, axis: int, out: int) -> Node:
    """lo + (hi - lo) * t between the two neighbouring samples (clamped at
    the edges), t the center's fractional part; x is floating."""
    size = x.shape[axis]
    src = _centers(size, out) - np.float32(0.5)
    floor = np.floor(src)
    lo, hi = _pick(x, axis, np.maximum(floor, 0)), _pick(x, axis, np.minimum(np.ceil(src),
                                                                              size - 1))
    shape = [1] * x.ndim
    shape[axis] = out
    t = ew.broadcast_to(constant((src - floor).astype(x.dtype).reshape(shape), x.dtype),
                        lo.shape)
    return make(Op.ADD, (lo, make(Op.MUL, (make(Op.SUB, (hi, lo)), t))))


def resize(x: Node, axes: Sequence[int], sizes: Sequence[int], method: str) -> Node:
    """``x`` resized to ``sizes`` along ``axes`` (one pass per axis, the
    last axis first: a bilinear kernel's order). ``linear`` needs a
    floating ``x``; ``nearest`` keeps any dtype.

    Shape rule: x.shape with sizes[k] at axes[k]."""
    if method not in METHODS:
        raise ShapeError(f"resize: method {method!r} is not one of {METHODS}")
    if any(s <= 0 for s in sizes):
        raise ShapeError(f"resize: output sizes must be positive, got {tuple(sizes)}")
    one = nearest_axis if method == "nearest" else linear_axis
    for axis, out in sorted(zip(axes, sizes, strict=True), reverse=True):
        x = one(x, axis, out)
    return x


__all__ = ["METHODS", "linear_axis", "nearest_axis", "resize"]
