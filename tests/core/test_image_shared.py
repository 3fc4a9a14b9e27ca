"""The core's image math and DCTs (``composite.image.transforms``, ``signal.fft.dct2`` /
``dct3``), moved out of lazytensor.tf and shared by any frontend, checked
against numpy reference formulas alone (no framework): values, dtype and
shape, and the core's errors on bad input."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest
from core_nodes import check, dev
from lazytensor.core.composite.image import transforms as ci
from lazytensor.core.composite.signal import fft as fourier
from lazytensor.core.registry import DTypeError, ShapeError

RNG = np.random.default_rng(0)
TOL = {"float32": 1e-5, "float64": 1e-10}


def _rgb(shape=(2, 4, 5, 3), dtype="float64") -> np.ndarray:
    return RNG.random(shape).astype(dtype)


def _per_pixel(fn, x: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1, 3).astype(np.float64)
    return np.array([fn(*p) for p in flat]).reshape(x.shape).astype(x.dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rgb_hsv_conversions_match_colorsys(dtype):
    x = _rgb(dtype=dtype)
    x[0, 0, 0] = 0.5  # grey: hue and saturation 0
    x[0, 0, 1] = 0.0  # black
    hsv = _per_pixel(colorsys.rgb_to_hsv, x)
    check(ci.rgb_to_hsv(dev(x)), hsv, rtol=TOL[dtype])
    check(ci.hsv_to_rgb(dev(hsv)), _per_pixel(colorsys.hsv_to_rgb, hsv), rtol=TOL[dtype])


def _through_hsv(x: np.ndarray, change) -> np.ndarray:
    def one(r, g, b):
        return colorsys.hsv_to_rgb(*change(*colorsys.rgb_to_hsv(r, g, b)))

    return _per_pixel(one, x)


@pytest.mark.parametrize("factor", [0.0, 0.4, 2.5])
def test_adjust_saturation_scales_and_clips_s(factor):
    x = _rgb()
    want = _through_hsv(x, lambda h, s, v: (h, min(max(s * factor, 0.0), 1.0), v))
    check(ci.adjust_saturation(dev(x), dev(factor)), want, rtol=1e-10)


@pytest.mark.parametrize("delta", [0.0, 0.3, -0.45, 0.99])
def test_adjust_hue_turns_the_hue(delta):
    x = _rgb()
    want = _through_hsv(x, lambda h, s, v: ((h + delta) % 1.0, s, v))
    check(ci.adjust_hue(dev(x), dev(delta)), want, rtol=1e-9, atol=1e-9)


def test_adjust_contrast_and_standardization():
    x = _rgb((2, 4, 5, 3), "float32")
    mean = x.mean(axis=(1, 2), keepdims=True)
    check(ci.adjust_contrast(dev(x), dev(np.float32(1.7))), (x - mean) * np.float32(1.7) + mean,
          rtol=1e-5)
    m = x.mean(axis=(1, 2, 3), keepdims=True)
    std = np.maximum(x.std(axis=(1, 2, 3), keepdims=True), 1 / np.sqrt(np.float32(60)))
    check(ci.per_image_standardization(dev(x)), (x - m) / std, rtol=1e-5)
    flat = np.full((4, 5, 3), 0.25, np.float32)  # std 0: divided by the floor
    check(ci.per_image_standardization(dev(flat)), np.zeros_like(flat))


def test_rgb_to_grayscale_keeps_a_channel_axis():
    x = _rgb((4, 5, 3), "float32")
    weights = np.array([0.2989, 0.5870, 0.1140], np.float32)
    check(ci.rgb_to_grayscale(dev(x), weights), (x @ weights)[..., None], rtol=1e-5)


def test_sobel_edges_match_the_two_filters():
    x = _rgb((2, 5, 6, 2))
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
    dy = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    want = np.zeros(x.shape + (2,))
    for k, kernel in enumerate((dy, dy.T)):
        for a in range(3):
            for b in range(3):
                want[..., k] += kernel[a, b] * p[:, a:a + 5, b:b + 6, :]
    check(ci.sobel_edges(dev(x)), want, rtol=1e-12)


def _patches(x, sizes, strides, rates, padding):
    n, h, w, c = x.shape
    ker = [(k - 1) * r + 1 for k, r in zip(sizes, rates, strict=True)]
    if padding == "SAME":
        outs = [-(-d // s) for d, s in zip((h, w), strides, strict=True)]
        tot = [max((o - 1) * s + k - d, 0) for o, s, k, d in zip(outs, strides, ker, (h, w),
                                                                 strict=True)]
        x = np.pad(x, ((0, 0), (tot[0] // 2, tot[0] - tot[0] // 2),
                       (tot[1] // 2, tot[1] - tot[1] // 2), (0, 0)))
    else:
        outs = [max((d - k) // s + 1, 0) for d, k, s in zip((h, w), ker, strides, strict=True)]
    out = np.zeros((n, *outs, sizes[0] * sizes[1] * c), x.dtype)
    for i in range(outs[0]):
        for j in range(outs[1]):
            r0, c0 = i * strides[0], j * strides[1]
            win = x[:, r0:r0 + ker[0]:rates[0], c0:c0 + ker[1]:rates[1], :]
            out[:, i, j] = win.reshape(n, -1)
    return out


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize(("sizes", "strides", "rates"), [
    ((2, 2), (1, 1), (1, 1)), ((3, 2), (2, 3), (2, 1)), ((5, 7), (1, 1), (2, 2))])
def test_extract_patches(padding, sizes, strides, rates):
    x = _rgb((2, 5, 6, 2))
    check(ci.extract_patches(dev(x), sizes, strides, rates, padding),
          _patches(x, sizes, strides, rates, padding))


def _crop_reference(x, boxes, index, crop, method, fill):
    _, h, w, c = x.shape
    out = np.zeros((len(boxes), *crop, c), x.dtype)

    def coords(lo, hi, size, n):
        if n == 1:
            return np.array([0.5 * (lo + hi) * (size - 1)])
        return lo * (size - 1) + np.arange(n) * (hi - lo) * (size - 1) / (n - 1)

    for b, ((y1, x1, y2, x2), img) in enumerate(zip(boxes, index, strict=True)):
        for i, y in enumerate(coords(y1, y2, h, crop[0])):
            for j, xx in enumerate(coords(x1, x2, w, crop[1])):
                if not (0 <= y <= h - 1 and 0 <= xx <= w - 1):
                    out[b, i, j] = fill
                elif method == "nearest":
                    out[b, i, j] = x[img, int(np.floor(y + 0.5)), int(np.floor(xx + 0.5))]
                else:
                    t, lft = int(np.floor(y)), int(np.floor(xx))
                    bt, rt = int(np.ceil(y)), int(np.ceil(xx))
                    top = x[img, t, lft] + (x[img, t, rt] - x[img, t, lft]) * (xx - lft)
                    bot = x[img, bt, lft] + (x[img, bt, rt] - x[img, bt, lft]) * (xx - lft)
                    out[b, i, j] = top + (bot - top) * (y - t)
    return out


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("crop", [(3, 4), (1, 1)])
def test_crop_and_resize(method, crop):
    x = _rgb((2, 5, 6, 3))
    boxes = np.array([[0.1, 0.2, 0.9, 0.7], [-0.2, 0.0, 0.5, 1.3], [0.3, 0.6, 0.3, 0.6]])
    index = np.array([0, 1, 1], np.int32)
    got = ci.crop_and_resize(dev(x), dev(boxes), dev(index), crop, method, -1.0)
    check(got, _crop_reference(x, boxes, index, crop, method, -1.0), rtol=1e-10)


def _dct2_reference(x, ortho):
    n = x.shape[-1]
    basis = np.cos(np.pi * np.outer(2 * np.arange(n) + 1, np.arange(n)) / (2 * n))
    y = 2 * x @ basis
    if ortho:
        y *= np.where(np.arange(n) == 0, np.sqrt(1 / (4 * n)), np.sqrt(1 / (2 * n)))
    return y


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ortho", [False, True])
def test_dct2_and_dct3(dtype, ortho):
    x = RNG.standard_normal((3, 7)).astype(dtype)
    want = _dct2_reference(x.astype(np.float64), ortho).astype(dtype)
    check(fourier.dct2(dev(x), ortho), want, rtol=TOL[dtype], atol=TOL[dtype] * 10)
    n = x.shape[-1]
    roundtrip = x if ortho else (2 * n * x).astype(dtype)  # DCT-III inverts DCT-II
    check(fourier.dct3(fourier.dct2(dev(x), ortho), ortho), roundtrip, rtol=TOL[dtype] * 10,
          atol=TOL[dtype] * 100)


def test_errors_are_the_cores():
    with pytest.raises(ShapeError):
        ci.rgb_to_hsv(dev(_rgb((4, 5, 2))))
    with pytest.raises(DTypeError):
        ci.hsv_to_rgb(dev(np.zeros((4, 5, 3), np.int32)))
    with pytest.raises(ShapeError):
        ci.sobel_edges(dev(_rgb((4, 5, 3))))
    with pytest.raises(ShapeError):
        ci.extract_patches(dev(_rgb()), (2, 2), (1, 1), (1, 1), "FULL")
    with pytest.raises(DTypeError):
        ci.crop_and_resize(dev(_rgb()), dev(np.zeros((1, 4), np.float32)),
                           dev(np.zeros(1, np.int32)), (2, 2))
    with pytest.raises(DTypeError):
        fourier.dct2(dev(np.zeros(4, np.int32)))
