"""Signal and image processing programs (filters, spectra, resampling, edges,
thresholds). Each test writes an ordinary numpy program once, runs it with
numpy and with ``lazytensor.numpy`` on the same data and compares
(``np_compare.check``: values with a dtype-fitting tolerance, dtype, shape,
Python types; a third run compiles nothing; no eager fallback but the ones a
program names)."""


from __future__ import annotations

import numpy as np
import pytest
from np_compare import check


def histogram_equalization(np, img):
    """Histogram equalization of an 8-bit image: np.histogram over 256 bins,
    the normalized cumulative distribution, np.interp as the lookup table,
    and the result back in uint8."""
    hist, edges = np.histogram(img.ravel(), bins=256, range=(0, 256))
    cdf = hist.cumsum()
    cdf_min = cdf[np.nonzero(cdf)[0][0]]
    lut = np.round((cdf - cdf_min) / (cdf[-1] - cdf_min) * 255)
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    out = lut[img]
    out2 = np.interp(img.ravel(), edges[:-1], cdf / cdf[-1] * 255).reshape(img.shape)
    return out, out2.astype(np.uint8), hist.max(), np.unique(out).size


def fft_lowpass(np, signal, fs):
    """Low-pass filtering with the real FFT: np.fft.rfftfreq, a smooth
    cutoff mask, np.fft.irfft back to the signal's length, the dominant
    frequency from the power spectrum, and the filter's SNR gain in dB."""
    n = len(signal)
    spec = np.fft.rfft(signal - signal.mean())
    freqs = np.fft.rfftfreq(n, d=1 / fs)
    power = np.abs(spec) ** 2 / n
    peak = freqs[np.argmax(power)]
    mask = 1 / (1 + (freqs / 12.0) ** 8)
    smooth = np.fft.irfft(spec * mask, n=n) + signal.mean()
    noise_before = np.var(signal - np.sin(2 * np.pi * 5 * np.arange(n) / fs))
    noise_after = np.var(smooth - np.sin(2 * np.pi * 5 * np.arange(n) / fs))
    return smooth, float(peak), 10 * np.log10(noise_before / noise_after), power[:8]


def resize_and_augment(np, img):
    """Image augmentation as in a data loader: a bilinear resize with
    fancy indexing on floor/ceil coordinates, a horizontal flip and np.rot90,
    a gamma curve, and conversion back to uint8 with clipping."""
    h, w = img.shape[:2]
    H, W = 24, 30
    ys = np.linspace(0, h - 1, H)
    xs = np.linspace(0, w - 1, W)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    wy, wx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    f = img.astype(np.float32) / 255
    top = f[y0][:, x0] * (1 - wx) + f[y0][:, x1] * wx
    bottom = f[y1][:, x0] * (1 - wx) + f[y1][:, x1] * wx
    out = top * (1 - wy) + bottom * wy
    out = out[:, ::-1] ** np.float32(0.8)
    out = np.rot90(out, k=1, axes=(0, 1))
    u8 = np.clip(np.round(out * 255), 0, 255).astype(np.uint8)
    gray = (u8 @ np.array([0.299, 0.587, 0.114])).astype(np.uint8)
    return out, u8, gray, u8.mean(axis=(0, 1))


def welch_psd(np, x, fs):
    """Welch's power spectral density: Hann-windowed half-overlapping
    segments (np.hanning, fancy indexing with an index grid), the averaged
    one-sided periodogram, the peak and the band power with np.trapezoid."""
    nper = 64
    step = nper // 2
    starts = np.arange(0, len(x) - nper + 1, step)
    segs = x[starts[:, None] + np.arange(nper)]
    segs = segs - segs.mean(axis=1, keepdims=True)
    win = np.hanning(nper)
    scale = 1.0 / (fs * (win ** 2).sum())
    spec = np.abs(np.fft.rfft(segs * win, axis=1)) ** 2 * scale
    spec[:, 1:-1] *= 2
    psd = spec.mean(axis=0)
    f = np.fft.rfftfreq(nper, 1 / fs)
    band = (f >= 8) & (f <= 12)
    return f, psd, float(f[np.argmax(psd)]), float(np.trapezoid(psd[band], f[band])), \
        np.blackman(8), np.hamming(5)


def spectrogram(np, x, fs):
    """A short-time Fourier transform: frames cut with sliding_window_view
    every hop samples, a Hann window from np.hanning, np.fft.rfft along the
    last axis, power in dB with a floor, the strongest frequency per frame,
    and the signal rebuilt by overlap-add of np.fft.irfft frames."""
    nfft, hop = 64, 16
    win = np.hanning(nfft)
    frames = np.lib.stride_tricks.sliding_window_view(x, nfft)[::hop]
    spec = np.fft.rfft(frames * win, axis=-1)
    freqs = np.fft.rfftfreq(nfft, 1 / fs)
    db = 10 * np.log10(np.maximum(np.abs(spec) ** 2, 1e-12))
    peak = freqs[np.argmax(db, axis=1)]
    back = np.fft.irfft(spec, n=nfft, axis=-1)
    out = np.zeros(len(x))
    norm = np.zeros(len(x))
    for i, frame in enumerate(back):
        out[i * hop:i * hop + nfft] += frame * win
        norm[i * hop:i * hop + nfft] += win ** 2
    ok = norm > 1e-3
    rebuilt = np.where(ok, out / np.where(ok, norm, 1), 0.0)
    err = np.max(np.abs(rebuilt - x)[ok])
    return db, peak, rebuilt, float(err), frames.shape


def fir_filter_design(np, x):
    """A windowed-sinc low-pass FIR filter (np.sinc, np.blackman), applied
    with np.convolve in 'same' mode and by FFT with zero padding; its
    frequency response from np.fft.rfft of the taps, and the group delay."""
    taps = 31
    fc = 0.1
    n = np.arange(taps) - (taps - 1) / 2
    h = 2 * fc * np.sinc(2 * fc * n) * np.blackman(taps)
    h /= h.sum()
    y_conv = np.convolve(x, h, mode="same")
    size = len(x) + taps - 1
    y_fft = np.fft.irfft(np.fft.rfft(x, size) * np.fft.rfft(h, size), size)
    y_fft = y_fft[(taps - 1) // 2:(taps - 1) // 2 + len(x)]
    H = np.fft.rfft(h, 256)
    gain_db = 20 * np.log10(np.abs(H) + 1e-15)
    stop = np.argmax(gain_db < -40)
    phase = np.unwrap(np.angle(H))
    delay = -np.diff(phase[:20]) / (2 * np.pi / 256)
    return h, y_conv, np.abs(y_conv - y_fft).max(), gain_db[::16], int(stop), delay


def gradient_histograms(np, img):
    """HOG-like features: image gradients with np.gradient, magnitude and
    unsigned orientation with np.hypot/np.arctan2, orientation bins by
    np.digitize, per-cell histograms by a flat cell*bins index into
    np.bincount with magnitude weights, and L2-Hys block normalization."""
    gy, gx = np.gradient(img.astype(np.float64))
    mag = np.hypot(gx, gy)
    ang = np.rad2deg(np.arctan2(gy, gx)) % 180
    nb, cell = 9, 4
    b = np.minimum(np.digitize(ang, np.linspace(0, 180, nb + 1)[1:-1]), nb - 1)
    h, w = img.shape
    rows, cols = np.indices((h, w))
    cell_id = (rows // cell) * (w // cell) + cols // cell
    hist = np.bincount((cell_id * nb + b).ravel(), weights=mag.ravel(),
                       minlength=(h // cell) * (w // cell) * nb).reshape(h // cell, w // cell, nb)
    blocks = np.concatenate([hist[:-1, :-1], hist[1:, :-1], hist[:-1, 1:], hist[1:, 1:]], axis=-1)
    v = blocks / np.sqrt((blocks ** 2).sum(axis=-1, keepdims=True) + 1e-6)
    v = np.minimum(v, 0.2)
    v /= np.sqrt((v ** 2).sum(axis=-1, keepdims=True) + 1e-6)
    return hist, v.ravel()[:50], np.argmax(hist.sum(axis=(0, 1)))


def detrend_and_smooth(np, t, x):
    """Detrend a series with np.polyfit/np.polyval, smooth it by np.convolve
    with a normalised Hann window, find its period from the autocorrelation
    by np.correlate, and fit a quadratic with its covariance."""
    coef = np.polyfit(t, x, 1)
    resid = x - np.polyval(coef, t)
    win = np.hanning(9)
    win /= win.sum()
    smooth = np.convolve(resid, win, mode="same")
    valid = np.convolve(resid, win, mode="valid")
    ac = np.correlate(resid, resid, mode="full")[len(resid) - 1:]
    ac = ac / ac[0]
    lag = int(np.argmax(ac[5:] * (np.diff(ac, prepend=ac[0])[5:] <= 0))) + 5
    q, cov = np.polyfit(t, x, 2, cov=True)
    vertex = -q[1] / (2 * q[0])
    slope = np.polyval(np.polyder(q), vertex)
    return coef, smooth, valid, ac[:40], lag, q, np.sqrt(np.diag(cov)), vertex, slope


def rotate_bilinear(np, img, angle):
    """Rotating an image about its centre by inverse mapping: a meshgrid of
    output pixels, rotated source coordinates, np.floor corners clipped into
    the image, bilinear weights, fancy-index gathers of four corners, and a
    validity mask for samples from outside."""
    h, w = img.shape
    yy, xx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    cy, cx = (h - 1) / 2, (w - 1) / 2
    c, s = np.cos(angle), np.sin(angle)
    sx = c * (xx - cx) + s * (yy - cy) + cx
    sy = -s * (xx - cx) + c * (yy - cy) + cy
    x0, y0 = np.floor(sx).astype(int), np.floor(sy).astype(int)
    fx, fy = sx - x0, sy - y0
    valid = (sx >= 0) & (sx <= w - 1) & (sy >= 0) & (sy <= h - 1)
    x0c, y0c = np.clip(x0, 0, w - 1), np.clip(y0, 0, h - 1)
    x1c, y1c = np.clip(x0 + 1, 0, w - 1), np.clip(y0 + 1, 0, h - 1)
    top = img[y0c, x0c] * (1 - fx) + img[y0c, x1c] * fx
    bottom = img[y1c, x0c] * (1 - fx) + img[y1c, x1c] * fx
    out = np.where(valid, top * (1 - fy) + bottom * fy, 0.0)
    return out, valid.sum(), out.sum() / img.sum(), np.unravel_index(out.argmax(), out.shape)


def uint8_image_pipeline(np, img, bits):
    """uint8 image code: brightness with an int16 detour and np.clip, a gamma
    lookup table indexed by the image, a 256-bin histogram by np.bincount,
    Otsu's threshold from cumulative sums, a bit-plane by shifts, and a
    Game-of-Life step on a mask packed and unpacked with np.packbits."""
    bright = np.clip(img.astype(np.int16) + 40, 0, 255).astype(np.uint8)
    lut = (255 * (np.arange(256) / 255.0) ** 0.5).round().astype(np.uint8)
    gamma = lut[img]
    hist = np.bincount(img.ravel(), minlength=256)
    p = hist / hist.sum()
    w0 = np.cumsum(p)
    mu = np.cumsum(p * np.arange(256))
    between = (mu[-1] * w0 - mu) ** 2 / np.where((w0 > 0) & (w0 < 1), w0 * (1 - w0), np.inf)
    thresh = int(np.argmax(between))
    plane = (img >> 7) & 1
    alive = np.unpackbits(bits, axis=1)[:, :img.shape[1]].astype(bool)
    n = sum(np.roll(np.roll(alive, dy, 0), dx, 1).astype(np.uint8)
            for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
    alive = (n == 3) | (alive & (n == 2))
    packed = np.packbits(alive, axis=1)
    return (bright, gamma, hist, thresh, img > thresh, plane, packed, alive.sum(), img.mean(),
            img // 3)


def sobel_edges(np, img):
    """Sobel gradients of a uint8 image by slicing (promoted to int16), the
    magnitude with np.hypot, an edge mask by a threshold, and the gradient
    image back in uint8 with clipping."""
    f = img.astype(np.int16)
    gx = (f[:-2, 2:] + 2 * f[1:-1, 2:] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[1:-1, :-2] + f[2:, :-2])
    gy = (f[2:, :-2] + 2 * f[2:, 1:-1] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[:-2, 1:-1] + f[:-2, 2:])
    mag = np.hypot(gx, gy)
    edges = mag > 0.5 * mag.max()
    out = np.clip(mag, 0, 255).astype(np.uint8)
    angle = np.degrees(np.arctan2(gy, gx)) % 180
    rows_with_edges = np.nonzero(edges.any(axis=1))[0]
    return out, edges, angle.astype(np.float32), rows_with_edges, int(edges.sum())


def box_blur(np, img, r):
    """A box blur of a float32 image from its integral image (cumsum along
    both axes after an edge pad), the local variance from a second integral
    image, and a sharpened image by unsharp masking."""
    k = 2 * r + 1
    p = np.pad(img, r + 1, mode="edge")
    s = p.cumsum(axis=0).cumsum(axis=1)
    s2 = (p * p).cumsum(axis=0).cumsum(axis=1)
    h, w = img.shape

    def window(t):
        return t[k:k + h, k:k + w] - t[:h, k:k + w] - t[k:k + h, :w] + t[:h, :w]

    mean = window(s) / np.float32(k * k)
    var = window(s2) / np.float32(k * k) - mean * mean
    sharp = np.clip(img + 1.5 * (img - mean), 0.0, 1.0)
    return mean, np.maximum(var, 0), sharp, sharp.dtype.name


def gamma_lut_and_otsu(np, img, gamma):
    """A gamma look-up table of 256 uint8 entries applied by fancy indexing
    (lut[img]), the histogram by bincount(minlength=256), Otsu's threshold
    from cumulative sums of the histogram, and the binarized image."""
    lut = np.round(255 * (np.arange(256) / 255.0) ** gamma).astype(np.uint8)
    out = lut[img]
    hist = np.bincount(out.ravel(), minlength=256).astype(np.float64)
    p = hist / hist.sum()
    omega = np.cumsum(p)
    mu = np.cumsum(p * np.arange(256))
    between = (mu[-1] * omega - mu) ** 2 / (omega * (1 - omega) + 1e-12)
    t = int(np.argmax(between))
    binary = np.where(out > t, np.uint8(255), np.uint8(0))
    return out, t, binary, float(binary.mean()), np.count_nonzero(binary, axis=0)


def stft_peaks(np, x, n, hop):
    """Short-time Fourier transform: frames from
    np.lib.stride_tricks.sliding_window_view taken every hop samples, a Hann
    window, rfft magnitudes in decibels, the peak frequency of each frame and
    the spectral centroid."""
    frames = np.lib.stride_tricks.sliding_window_view(x, n)[::hop]
    spec = np.abs(np.fft.rfft(frames * np.hanning(n), axis=1))
    db = 20 * np.log10(spec + 1e-9)
    freqs = np.fft.rfftfreq(n, d=1 / 1000.0)
    peaks = freqs[np.argmax(spec, axis=1)]
    centroid = (spec * freqs).sum(axis=1) / spec.sum(axis=1)
    return frames.shape, db, peaks, centroid, float(db.max())


def pitch_by_autocorrelation(np, x, fs):
    """Pitch estimation: the mean-removed signal's autocorrelation by
    np.correlate(mode="full"), the positive lags normalized by lag 0, the
    first lag past the first zero crossing with the highest peak, and the
    pitch in Hz; also the energy of each 100-sample block."""
    x = x - x.mean()
    ac = np.correlate(x, x, mode="full")[len(x) - 1:]
    ac = ac / ac[0]
    first_neg = int(np.argmax(ac < 0))
    lag = first_neg + int(np.argmax(ac[first_neg:]))
    blocks = x[: len(x) // 100 * 100].reshape(-1, 100)
    energy = np.einsum("ij,ij->i", blocks, blocks)
    return ac[:40], lag, fs / lag, energy, np.argsort(energy, kind="stable")


def window_filters(np, sig, img):
    """Filters by sliding_window_view: a running median and a moving max of
    a signal, a Hampel outlier filter (median absolute deviation), a 3x3
    local mean and variance of an image, a max-pool via windows with a step,
    and a 2-D median filter."""
    from numpy.lib.stride_tricks import sliding_window_view as windows

    w = windows(sig, 5)
    med = np.median(w, axis=-1)
    mx = w.max(axis=-1)
    mad = np.median(np.abs(w - med[:, None]), axis=-1)
    centre = sig[2:-2]
    outlier = np.abs(centre - med) > 3 * 1.4826 * mad
    hampel = np.where(outlier, med, centre)
    p = windows(img, (3, 3))
    local_mean = p.mean(axis=(-2, -1))
    local_var = p.var(axis=(-2, -1))
    pooled = windows(img, (2, 2))[::2, ::2].max(axis=(-2, -1))
    med2 = np.median(p.reshape(*p.shape[:2], -1), axis=-1)
    return med, mx, hampel, int(outlier.sum()), local_mean, local_var, pooled, med2


@pytest.mark.usefixtures('runtime')
def test_histogram_equalization():
    rng = np.random.default_rng(4)
    img = np.clip(rng.normal(90, 12, size=(32, 40)), 0, 255).astype(np.uint8)
    check(histogram_equalization, img)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_fft_lowpass_filter():
    rng = np.random.default_rng(22)
    fs, n = 200.0, 256
    t = np.arange(n) / fs
    check(fft_lowpass, np.sin(2 * np.pi * 5 * t) + 0.4 * rng.normal(size=n), fs, rtol=1e-8)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_image_resize_and_augment():
    rng = np.random.default_rng(25)
    check(resize_and_augment, rng.integers(0, 256, size=(16, 20, 3), dtype=np.uint8))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_welch_power_spectral_density():
    rng = np.random.default_rng(30)
    t = np.arange(512) / 128.0
    check(welch_psd, np.sin(2 * np.pi * 10 * t) + rng.normal(0, 1, 512), 128.0)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_spectrogram_with_hanning_and_overlap_add():
    fs = 400.0
    t = np.arange(320) / fs
    chirp = np.sin(2 * np.pi * (20 + 60 * t) * t)
    check(spectrogram, chirp, fs, rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_windowed_sinc_fir_filter():
    rng = np.random.default_rng(114)
    t = np.arange(200)
    check(fir_filter_design, np.sin(0.05 * t) + 0.5 * rng.normal(size=200), rtol=1e-6)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_gradient_orientation_histograms():
    rng = np.random.default_rng(116)
    y, x = np.mgrid[0:16, 0:20]
    img = 128 + 60 * np.sin(x / 3.0) * np.cos(y / 4.0) + rng.normal(0, 5, (16, 20))
    img = img.astype(np.uint8)
    check(gradient_histograms, img, rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.slow  # three graphs with SVDs: ~4 s of XLA compile on one core
def test_polyfit_detrend_convolve_and_autocorrelation():
    rng = np.random.default_rng(136)
    t = np.arange(120.0)
    x = 0.05 * t + 2 + np.sin(2 * np.pi * t / 17) + 0.2 * rng.normal(size=120)
    check(detrend_and_smooth, t, x, rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
def test_image_rotation_by_bilinear_sampling():
    yy, xx = np.mgrid[0:20, 0:24]
    img = np.exp(-((yy - 6.0) ** 2 + (xx - 15.0) ** 2) / 8) + (xx > 20)
    check(rotate_bilinear, img, 0.4)
    check(rotate_bilinear, img, np.float64(-1.1))


@pytest.mark.usefixtures('own_runtime')
def test_uint8_image_pipeline_with_lut_and_packbits():
    rng = np.random.default_rng(149)
    img = np.clip(rng.normal(100, 40, (24, 32)), 0, 255).astype(np.uint8)
    check(uint8_image_pipeline, img, np.packbits(rng.random((24, 32)) < 0.35, axis=1))


@pytest.mark.usefixtures('own_runtime')
def test_sobel_edges_of_a_uint8_image():
    rng = np.random.default_rng(150)
    img = np.zeros((24, 32), np.uint8)
    img[6:18, 8:24] = 200
    img += rng.integers(0, 20, img.shape, dtype=np.uint8)
    check(sobel_edges, img)


@pytest.mark.usefixtures('own_runtime')
def test_box_blur_from_an_integral_image():
    rng = np.random.default_rng(151)
    img = rng.random((20, 28), dtype=np.float32)
    check(box_blur, img, 2, rtol=2e-4)


@pytest.mark.usefixtures('own_runtime')
def test_gamma_lut_and_otsu_threshold():
    rng = np.random.default_rng(152)
    img = np.concatenate([rng.normal(60, 10, (16, 20)), rng.normal(180, 15, (16, 20))])
    check(gamma_lut_and_otsu, np.clip(img, 0, 255).astype(np.uint8), 0.8)


@pytest.mark.usefixtures('own_runtime')
def test_stft_with_sliding_window_view_and_hanning():
    t = np.arange(1200) / 1000.0
    noise = np.random.default_rng(153).normal(size=t.size)
    x = np.sin(2 * np.pi * (50 + 100 * t) * t) + 0.1 * noise
    check(stft_peaks, x, 128, 64)


@pytest.mark.usefixtures('own_runtime')
def test_pitch_by_autocorrelation():
    fs = 2000.0
    t = np.arange(600) / fs
    x = np.sin(2 * np.pi * 125 * t) + 0.5 * np.sin(2 * np.pi * 250 * t)
    check(pitch_by_autocorrelation, x + 0.05 * np.random.default_rng(154).normal(size=600), fs)


@pytest.mark.usefixtures('own_runtime')
def test_sliding_window_filters():
    rng = np.random.default_rng(183)
    sig = np.sin(np.linspace(0, 6, 40)) + rng.normal(scale=0.1, size=40)
    sig[[7, 23]] += 3.0
    check(window_filters, sig, rng.random((8, 10)))
