"""Resizing along given axes with half-pixel centers (TensorFlow 2's
``tf.image.resize``, OpenCV's and torch's ``align_corners=False`` linear
modes): output pixel i samples the input at (i + 0.5) * in / out - 0.5.
The source indices and weights depend on the sizes only, so they are
computed on the host in float32 (the kernels' precision) and compiled in
as constants; the data moves by gathers and one lerp per axis.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((1, 4, 6, 3), np.float32), np.dtype("float32"))
>>> resize(x, (1, 2), (8, 3), "linear").shape
(1, 8, 3, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing.take import take
from lazytensor.core.composite.linalg.matmul import matmul
from lazytensor.core.ir import Node
from lazytensor.core.leaves import constant
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make

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


# ------------------------------------------------- antialiased resampling
def _aa_filter(kind: str, x: np.ndarray) -> np.ndarray:
    """PIL's antialias kernels: the triangle, or Keys' cubic a=-0.5."""
    x = np.abs(x)
    if kind == "bilinear":
        return np.maximum(0.0, 1.0 - x)
    a = -0.5
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def antialias_weights(kind: str, size: int, out: int, align_corners: bool,
                      scale: float | None) -> np.ndarray:
    """The (out, size) matrix of antialiased interpolation along one axis
    (PIL's, and torch's UpSampleKernel's _compute_weights_aa): each output's
    filter (``kind`` "bilinear" or "bicubic"), stretched by the scale when
    downsampling, normalized to sum 1.

    >>> antialias_weights("bilinear", 4, 2, False, None).sum(axis=1)
    array([1., 1.])
    """
    if align_corners:
        ratio = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale is not None and scale > 0 else size / out
    support = (2.0 if kind == "bilinear" else 4.0) * 0.5 * max(ratio, 1.0)
    invscale = 1.0 / ratio if ratio >= 1.0 else 1.0
    weights = np.zeros((out, size))
    for i in range(out):
        center = ratio * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), size)
        w = _aa_filter(kind, (np.arange(lo, hi) - center + 0.5) * invscale)
        total = w.sum()
        weights[i, lo:hi] = w / total if total != 0 else w
    return weights


def resize_antialiased(x: Node, sizes: Sequence[int], kind: str, align_corners: bool = False,
                       scales: Sequence[float | None] = (None, None)) -> Node:
    """``x``'s last two axes resampled to ``sizes`` with antialiasing: two
    matmuls by the per-axis weight matrices (host constants: they depend
    only on the sizes). ``x`` is floating.

    Shape rule: x.shape[:-2] + sizes."""
    (h, w), (oh, ow) = x.shape[-2:], sizes
    wh = constant(antialias_weights(kind, h, oh, align_corners, scales[0]), x.dtype)
    ww = constant(antialias_weights(kind, w, ow, align_corners, scales[1]).T, x.dtype)
    return matmul(matmul(wh, x), ww)


__all__ = ["METHODS", "antialias_weights", "linear_axis", "nearest_axis", "resize",
           "resize_antialiased"]
