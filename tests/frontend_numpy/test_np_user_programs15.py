"""A fifteenth round of ordinary numpy programs, checked as in
test_np_user_programs9.py. This round: image processing on uint8 and
float32 images (Sobel by slicing, a box blur from an integral image, a gamma
look-up table with Otsu's threshold), signal processing (STFT frames from a
sliding window view, pitch by autocorrelation), statistics (percentile
methods, correlation and covariance, weighted averages with digitize), and
numerical methods (conjugate gradient, Gauss-Seidel over rows, RK4 with
trapezoid energy, polynomials and linalg identities)."""

from __future__ import annotations

import numpy as np
import pytest
from np_compare import check

pytestmark = pytest.mark.usefixtures("own_runtime")


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


def test_sobel_edges_of_a_uint8_image():
    rng = np.random.default_rng(150)
    img = np.zeros((24, 32), np.uint8)
    img[6:18, 8:24] = 200
    img += rng.integers(0, 20, img.shape, dtype=np.uint8)
    check(sobel_edges, img)


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


def test_box_blur_from_an_integral_image():
    rng = np.random.default_rng(151)
    img = rng.random((20, 28), dtype=np.float32)
    check(box_blur, img, 2, rtol=2e-4)


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


def test_gamma_lut_and_otsu_threshold():
    rng = np.random.default_rng(152)
    img = np.concatenate([rng.normal(60, 10, (16, 20)), rng.normal(180, 15, (16, 20))])
    check(gamma_lut_and_otsu, np.clip(img, 0, 255).astype(np.uint8), 0.8)


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


def test_stft_with_sliding_window_view_and_hanning():
    t = np.arange(1200) / 1000.0
    noise = np.random.default_rng(153).normal(size=t.size)
    x = np.sin(2 * np.pi * (50 + 100 * t) * t) + 0.1 * noise
    check(stft_peaks, x, 128, 64)


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


def test_pitch_by_autocorrelation():
    fs = 2000.0
    t = np.arange(600) / fs
    x = np.sin(2 * np.pi * 125 * t) + 0.5 * np.sin(2 * np.pi * 250 * t)
    check(pitch_by_autocorrelation, x + 0.05 * np.random.default_rng(154).normal(size=600), fs)


def sample_statistics(np, X, w):
    """Column statistics of a sample: percentiles by several methods,
    np.quantile of each column, corrcoef and cov(rowvar=False), a weighted
    average with returned=True, and weighted counts in digitized bins."""
    pct = [np.percentile(X[:, 0], [5, 50, 95], method=m)
           for m in ("linear", "nearest", "midpoint", "lower")]
    q = np.quantile(X, [0.25, 0.75], axis=0)
    iqr = q[1] - q[0]
    corr = np.corrcoef(X, rowvar=False)
    cov = np.cov(X, rowvar=False, ddof=1)
    avg, wsum = np.average(X, axis=0, weights=w, returned=True)
    bins = np.linspace(X[:, 1].min(), X[:, 1].max(), 6)
    idx = np.digitize(X[:, 1], bins[1:-1])
    wcounts = np.bincount(idx, weights=w, minlength=5)
    return pct, iqr, corr, cov, avg, wsum, idx, wcounts


def test_sample_statistics_with_percentile_methods():
    rng = np.random.default_rng(155)
    X = rng.multivariate_normal([0, 1, 2], [[1, 0.5, 0.2], [0.5, 2, 0.3], [0.2, 0.3, 1]], 50)
    check(sample_statistics, X, rng.random(50))


def conjugate_gradient(np, A, b, tol):
    """Conjugate gradient for a symmetric positive definite system with a
    Python loop that stops when the residual norm falls below tol (read from
    the lazy value), returning the solution, the residual history and the
    error against np.linalg.solve."""
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    history = []
    for _ in range(len(b)):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        history.append(float(np.sqrt(rs_new)))
        if np.sqrt(rs_new) < tol:
            break
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x, len(history), np.linalg.norm(x - np.linalg.solve(A, b)) < 1e-6


def test_conjugate_gradient_until_converged():
    rng = np.random.default_rng(156)
    M = rng.normal(size=(12, 12))
    check(conjugate_gradient, M @ M.T + 12 * np.eye(12), rng.normal(size=12), 1e-10)


def gauss_seidel_rows(np, A, b, sweeps):
    """Gauss-Seidel with a Python loop over the rows, each row updated in
    place from the newest values (x[i] = ...), and the residual norm after
    each sweep."""
    n = len(b)
    x = np.zeros(n)
    res = []
    for _ in range(sweeps):
        for i in range(n):
            s = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
            x[i] = (b[i] - s) / A[i, i]
        res.append(np.linalg.norm(A @ x - b))
    return x, np.array(res)


def test_gauss_seidel_over_rows_in_place():
    rng = np.random.default_rng(157)
    A = rng.uniform(-1, 1, (6, 6)) + 8 * np.eye(6)
    check(gauss_seidel_rows, A, rng.normal(size=6), 4)


def pendulum_rk4(np, theta0, omega0, dt, steps):
    """A damped pendulum integrated by classical Runge-Kutta over a state
    vector, the trajectory kept in a preallocated array, the energy and its
    time integral by np.trapezoid, and the angular acceleration by
    np.gradient."""
    def f(y):
        return np.array([y[1], -9.81 * np.sin(y[0]) - 0.1 * y[1]])

    y = np.array([theta0, omega0])
    traj = np.empty((steps + 1, 2))
    traj[0] = y
    for k in range(steps):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[k + 1] = y
    energy = 0.5 * traj[:, 1] ** 2 + 9.81 * (1 - np.cos(traj[:, 0]))
    t = np.arange(steps + 1) * dt
    return traj, np.trapezoid(energy, t), np.gradient(traj[:, 1], dt), energy[-1] < energy[0]


def test_pendulum_rk4_with_trapezoid_and_gradient():
    check(pendulum_rk4, 1.0, 0.0, 0.05, 8)


def polynomials_and_linalg(np, coeffs, M):
    """Horner evaluation by np.polyval against a hand-written Horner loop,
    the roots' product against the constant term, and linalg identities:
    det of a product, inv, matrix_power, QR reconstruction and lstsq."""
    xs = np.linspace(-2, 2, 9)
    horner = np.zeros_like(xs)
    for c in coeffs:
        horner = horner * xs + c
    pv = np.polyval(coeffs, xs)
    det_prod = np.linalg.det(M @ M.T)
    inv = np.linalg.inv(M)
    p3 = np.linalg.matrix_power(M, 3)
    q, r = np.linalg.qr(M)
    sol, resid, rank, sv = np.linalg.lstsq(M[:, :3], xs[:5], rcond=None)
    return (horner, pv, det_prod, np.linalg.det(M) ** 2, inv @ M, p3, q @ r,
            np.allclose(q.T @ q, np.eye(5)), sol, resid, int(rank), sv)


def test_polyval_horner_and_linalg_identities():
    rng = np.random.default_rng(158)
    check(polynomials_and_linalg, rng.normal(size=5), rng.normal(size=(5, 5)) + 2 * np.eye(5))
