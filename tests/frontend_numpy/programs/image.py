"""Image-processing programs: blurs with padding and slicing, Sobel edges,
uint8 arithmetic (wraparound, clipping, truncating casts), histograms."""

from __future__ import annotations

import numpy
from program_case import Case


def box_blur(np, img):
    """3x3 box blur of a uint8 image: edge padding, a sum of nine shifted
    slices, rounding back to uint8 -- and a reflect-padded 5-tap blur."""
    f = img.astype(np.float32)
    p = np.pad(f, 1, mode="edge")
    h, w = img.shape
    acc = np.zeros_like(f)
    for dy in range(3):
        for dx in range(3):
            acc += p[dy:dy + h, dx:dx + w]
    blurred = np.clip(np.round(acc / 9), 0, 255).astype(np.uint8)
    kernel = np.array([1, 4, 6, 4, 1], dtype=np.float32) / 16
    q = np.pad(f, ((0, 0), (2, 2)), mode="reflect")
    horiz = sum(kernel[i] * q[:, i:i + w] for i in range(5))
    return blurred, horiz, horiz.dtype.name


def _make_image(rng):
    return (rng.integers(0, 256, size=(12, 10))).astype(numpy.uint8),


def sobel(np, img):
    """Sobel gradients with slicing on a zero-padded float image, magnitude
    with np.hypot, an edge mask, and a count of edge pixels."""
    a = np.pad(img.astype(float), ((1, 1), (1, 1)), mode="constant")
    gx = (a[:-2, 2:] + 2 * a[1:-1, 2:] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[1:-1, :-2] + a[2:, :-2])
    gy = (a[2:, :-2] + 2 * a[2:, 1:-1] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[:-2, 1:-1] + a[:-2, 2:])
    mag = np.hypot(gx, gy)
    edges = mag > mag.mean() + mag.std()
    angle = np.degrees(np.arctan2(gy, gx)) % 180
    return mag, edges, int(np.count_nonzero(edges)), angle


def uint8_arithmetic(np, img):
    """uint8 wraparound, widened differences, brightness via float and a
    truncating cast, inversion, bit tricks and a contrast stretch."""
    wrapped = img + np.uint8(100)
    widened = img.astype(np.int16) - 128
    bright = np.clip(img * 1.3, 0, 255).astype(np.uint8)
    with np.errstate(invalid="ignore"):
        unclipped = (img * 1.3 - 20).astype(np.uint8)  # wraps, as numpy does on x86/arm64
    inverted = 255 - img
    low_bits = img & 0x0F
    halved = img >> 1
    lo, hi = img.min(), img.max()
    stretched = ((img.astype(np.int32) - lo) * 255 // (hi - lo)).astype(np.uint8)
    scaled = (img - lo) / (hi - lo)
    mean = img.mean()
    total = img.sum()
    return (wrapped, widened, bright, unclipped, inverted, low_bits, halved, stretched, scaled,
            mean, total)


def histogram(np, img):
    """Grey-level histograms: np.bincount, comparisons against bin edges,
    np.histogram, a cumulative distribution and histogram equalisation."""
    counts = np.bincount(img.ravel(), minlength=256)
    edges = np.arange(0, 257, 32)
    by_compare = ((img.ravel()[:, None] >= edges[:-1]) & (img.ravel()[:, None] < edges[1:])).sum(0)
    hist, bin_edges = np.histogram(img, bins=8, range=(0, 256))
    cdf = counts.cumsum()
    cdf_norm = (cdf - cdf.min()) * 255 // (cdf.max() - cdf.min())
    equalised = cdf_norm.astype(np.uint8)[img]
    return counts, by_compare, hist, bin_edges, equalised


def thresholding(np, img):
    """Otsu's threshold by brute force over all levels, in a Python loop
    with scalar comparisons, then a binary mask and masked statistics."""
    pixels = img.ravel().astype(np.float64)
    best_t, best_var = 0, -1.0
    for t in range(32, 240, 48):
        fg = pixels[pixels >= t]
        bg = pixels[pixels < t]
        if fg.size == 0 or bg.size == 0:
            continue
        var = fg.size * bg.size * (fg.mean() - bg.mean()) ** 2
        if var > best_var:
            best_t, best_var = t, var
    mask = img >= best_t
    fg_mean = img[mask].mean()
    out = np.where(mask, np.uint8(255), np.uint8(0))
    return best_t, float(best_var), mask, fg_mean, out


CASES = [
    Case("box_blur", box_blur, _make_image),
    Case("sobel", sobel, _make_image, frozenset({"numpy.degrees"})),
    Case("uint8_arithmetic", uint8_arithmetic, _make_image),
    Case("histogram", histogram, _make_image,
         frozenset({"numpy.bincount", "numpy.histogram"})),
    Case("thresholding", thresholding, _make_image),
]
