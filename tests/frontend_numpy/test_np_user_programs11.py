"""An eleventh round of ordinary numpy programs, checked as in
test_np_user_programs9.py: numpy's result against the lazy one through the
namespace (the third run compiles nothing) and through numpy's protocols,
with no eager fallback but the one a program names. This round: signal
processing, finite differences, ODE loops with ``out=`` and in-place
updates, iterative solvers and np.linalg factorizations."""

from __future__ import annotations

import numpy as np
import pytest
from np_compare import check

pytestmark = [pytest.mark.usefixtures("own_runtime"),
              pytest.mark.filterwarnings("ignore::lazytensor.numpy.LazyFallbackWarning")]


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


def test_spectrogram_with_hanning_and_overlap_add():
    fs = 400.0
    t = np.arange(320) / fs
    chirp = np.sin(2 * np.pi * (20 + 60 * t) * t)
    check(spectrogram, chirp, fs, rtol=1e-7)


def finite_differences(np, f, dx, dy):
    """The gradient of a sampled surface with np.gradient (second-order edges
    too), divergence and a five-point Laplacian by slicing, np.diff of a
    profile, and the trapezoid integral of the gradient's magnitude."""
    gy, gx = np.gradient(f, dy, dx)
    gy2, gx2 = np.gradient(f, dy, dx, edge_order=2)
    div = np.gradient(gx, dx, axis=1) + np.gradient(gy, dy, axis=0)
    lap = np.zeros_like(f)
    lap[1:-1, 1:-1] = ((f[1:-1, 2:] - 2 * f[1:-1, 1:-1] + f[1:-1, :-2]) / dx ** 2
                       + (f[2:, 1:-1] - 2 * f[1:-1, 1:-1] + f[:-2, 1:-1]) / dy ** 2)
    profile = f[f.shape[0] // 2]
    d1 = np.diff(profile) / dx
    d2 = np.diff(profile, n=2) / dx ** 2
    mag = np.hypot(gx2, gy2)
    area = np.trapezoid(np.trapezoid(mag, dx=dx, axis=1), dx=dy)
    return gx, gy, gx2 - gx, div, lap, d1, d2, float(area)


def test_gradient_divergence_and_laplacian():
    y, x = np.mgrid[-1:1:21j, -1.5:1.5:31j]
    f = np.exp(-(x ** 2 + 2 * y ** 2)) * np.cos(3 * x)
    check(finite_differences, f, 0.1, 0.1, rtol=1e-9)


def damped_oscillators(np, x0, v0, k, c):
    """Many damped oscillators stepped with semi-implicit Euler, updating the
    state in place (v += dt * a; x += dt * v) and through ufunc out=
    arguments, the energy traced per step into a preallocated array."""
    dt, steps = 0.01, 80
    x, v = x0.copy(), v0.copy()
    a = np.empty_like(x)
    energy = np.empty(steps)
    for i in range(steps):
        np.multiply(-k, x, out=a)
        a -= c * v
        v += dt * a
        np.add(x, dt * v, out=x)
        energy[i] = 0.5 * np.sum(v * v + k * x * x)
    settled = np.flatnonzero(np.abs(x) < 0.05 * np.abs(x0))
    return x, v, energy, settled, bool(np.all(np.diff(energy) <= 1e-12))


def test_damped_oscillators_in_place_with_out():
    rng = np.random.default_rng(111)
    n = 12
    check(damped_oscillators, rng.normal(size=n), np.zeros(n),
          rng.uniform(1, 20, n), rng.uniform(0.1, 2, n), rtol=1e-9)


def jacobi_and_gauss_seidel(np, A, b):
    """A diagonally dominant system solved three ways: Jacobi with the
    diagonal split off (np.diag, np.diagflat), Gauss-Seidel row by row with
    a Python loop over rows, and np.linalg.solve; iteration counts stop on a
    residual norm read as a float."""
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for it_j in range(200):  # noqa: B007  (returned)
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x, ord=np.inf) < 1e-10:
            break
        x = x_new
    xg = np.zeros_like(b)
    n = len(b)
    for it_g in range(200):  # noqa: B007  (returned)
        for i in range(n):
            xg[i] = (b[i] - A[i, :i] @ xg[:i] - A[i, i + 1:] @ xg[i + 1:]) / A[i, i]
        if np.linalg.norm(A @ xg - b) < 1e-10:
            break
    exact = np.linalg.solve(A, b)
    return x_new, xg, exact, it_j, it_g, bool(np.allclose(xg, exact))


def test_jacobi_and_gauss_seidel_solvers():
    rng = np.random.default_rng(112)
    n = 6
    A = rng.normal(size=(n, n))
    A += np.diag(np.abs(A).sum(axis=1) + 1)
    check(jacobi_and_gauss_seidel, A, rng.normal(size=n), rtol=1e-8)


def sor_poisson(np, rhs, omega):
    """Successive over-relaxation for the Poisson equation on a grid, row
    by row with slice writes (each row uses the row above it as already
    updated), stopping on the max change; the residual of the final grid."""
    n = rhs.shape[0]
    h2 = (1.0 / (n - 1)) ** 2
    u = np.zeros_like(rhs)
    for sweep in range(60):  # noqa: B007  (returned)
        old = u.copy()
        for i in range(1, n - 1):
            gs = 0.25 * (u[i - 1, 1:-1] + u[i + 1, 1:-1] + u[i, :-2] + u[i, 2:] - h2 * rhs[i, 1:-1])
            u[i, 1:-1] = (1 - omega) * u[i, 1:-1] + omega * gs
        change = np.abs(u - old).max()
        if change < 1e-6:
            break
    res = np.zeros_like(u)
    res[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                       - 4 * u[1:-1, 1:-1]) / h2 - rhs[1:-1, 1:-1]
    return u, sweep, float(change), float(np.sqrt(np.mean(res ** 2)))


def test_sor_with_row_slice_writes():
    n = 10
    y, x = np.mgrid[0:1:n * 1j, 0:1:n * 1j]
    check(sor_poisson, np.sin(np.pi * x) * np.sin(np.pi * y), 1.5, rtol=1e-8)


def factorizations(np, A, b):
    """Least squares by QR (np.linalg.qr, then a triangular solve done with
    np.linalg.solve), normal equations by Cholesky, determinant two ways
    (np.linalg.det and slogdet), the inverse checked with np.allclose, the
    condition number and the matrix rank."""
    Q, R = np.linalg.qr(A)
    x_qr = np.linalg.solve(R, Q.T @ b)
    G = A.T @ A
    L = np.linalg.cholesky(G)
    z = np.linalg.solve(L, A.T @ b)
    x_ch = np.linalg.solve(L.T, z)
    sign, logdet = np.linalg.slogdet(G)
    det = np.linalg.det(G)
    inv_ok = np.allclose(np.linalg.inv(G) @ G, np.eye(G.shape[0]))
    cond = np.linalg.cond(A)
    rank = np.linalg.matrix_rank(A)
    resid = b - A @ x_qr
    return (x_qr, x_ch, float(sign * np.exp(logdet)), float(det), inv_ok,
            float(cond), int(rank), np.abs(Q.T @ resid).max() < 1e-10)


def test_qr_cholesky_least_squares_and_determinants():
    rng = np.random.default_rng(113)
    A = rng.normal(size=(12, 4))
    check(factorizations, A, A @ np.arange(1.0, 5.0) + 0.01 * rng.normal(size=12), rtol=1e-8)


def rk45_adaptive(np, y0):
    """An adaptive Runge-Kutta-Fehlberg integrator for a predator-prey system:
    the step size grows and shrinks with the embedded error estimate (a
    Python float from np.max), accepted steps appended to lists."""
    a, b, c, d = 1.0, 0.1, 1.5, 0.075

    def f(y):
        return np.array([a * y[0] - b * y[0] * y[1], -c * y[1] + d * y[0] * y[1]])

    t, h, y = 0.0, 0.1, y0.astype(float)
    ts, ys = [t], [y]
    while t < 4.0:
        h = min(h, 4.0 - t)
        k1 = f(y)
        k2 = f(y + h * k1 / 4)
        k3 = f(y + h * (3 * k1 + 9 * k2) / 32)
        k4 = f(y + h * (1932 * k1 - 7200 * k2 + 7296 * k3) / 2197)
        k5 = f(y + h * (439 * k1 / 216 - 8 * k2 + 3680 * k3 / 513 - 845 * k4 / 4104))
        k6 = f(y + h * (-8 * k1 / 27 + 2 * k2 - 3544 * k3 / 2565 + 1859 * k4 / 4104 - 11 * k5 / 40))
        y4 = y + h * (25 * k1 / 216 + 1408 * k3 / 2565 + 2197 * k4 / 4104 - k5 / 5)
        y5 = y + h * (16 * k1 / 135 + 6656 * k3 / 12825 + 28561 * k4 / 56430
                      - 9 * k5 / 50 + 2 * k6 / 55)
        err = float(np.max(np.abs(y5 - y4)))
        if err < 1e-6:
            t, y = t + h, y5
            ts.append(t)
            ys.append(y)
        h = 0.9 * h * (1e-6 / max(err, 1e-14)) ** 0.2
    return np.array(ts), np.stack(ys), len(ts)


def test_adaptive_rkf45_predator_prey():
    check(rk45_adaptive, np.array([10, 5]), rtol=1e-7)


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


def test_windowed_sinc_fir_filter():
    rng = np.random.default_rng(114)
    t = np.arange(200)
    check(fir_filter_design, np.sin(0.05 * t) + 0.5 * rng.normal(size=200), rtol=1e-6)


def heat_implicit_crank_nicolson(np, u0):
    """The 1-D heat equation with Crank-Nicolson steps: tridiagonal matrices
    built with np.diag of offsets, the step matrix from np.linalg.solve once,
    then repeated matrix-vector products; compared with np.linalg.eigh's
    spectral solution."""
    n = len(u0)
    r = 0.5
    off = np.ones(n - 1)
    T = np.diag(-2 * np.ones(n)) + np.diag(off, 1) + np.diag(off, -1)
    A = np.eye(n) - r / 2 * T
    B = np.eye(n) + r / 2 * T
    M = np.linalg.solve(A, B)
    u = u0.copy()
    history = [u]
    for _ in range(25):
        u = M @ u
        history.append(u)
    w, V = np.linalg.eigh(T)
    lam = (1 + r / 2 * w) / (1 - r / 2 * w)
    spectral = V @ (lam ** 25 * (V.T @ u0))
    return np.array(history)[::5], spectral, float(np.abs(u - spectral).max()), float(u.sum())


def test_crank_nicolson_heat_equation():
    x = np.linspace(0, 1, 16)
    check(heat_implicit_crank_nicolson, np.exp(-60 * (x - 0.4) ** 2), rtol=1e-8)


def overlap_add(np, x, h):
    """Block convolution by overlap-add: each block's full convolution
    added into a slice of the output with ``out[a:b] += ...``."""
    out = np.zeros(len(x) + len(h) - 1)
    for i in range(0, len(x), 8):
        block = x[i:i + 8]
        out[i:i + len(block) + len(h) - 1] += np.convolve(block, h)
    return out


def test_slice_writes_across_automatic_cuts():
    """``out[a:b] += v`` cut by an automatic graph cut inside the write: the
    view kept its new value over the old base, whose buffer the cut had
    donated ("Array has been deleted" in the next graph; the spectrogram's
    overlap-add at 16,000 samples). A small node limit cuts often here."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import Runtime, use_runtime

    rng = np.random.default_rng(115)
    x, h = rng.normal(size=96), np.hanning(5)
    want = overlap_add(np, x, h)
    with use_runtime(Runtime(node_limit=20, interpret_nodes=10**9)) as rt:
        for _ in range(3):
            got = overlap_add(lnp, lnp.asarray(x), lnp.asarray(h))
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
        assert rt.metrics.counters["auto_cuts"] > 3 and rt.metrics.counters["donated_buffers"]


def newton_system(np, x0):
    """Newton's method for a nonlinear system with a forward-difference
    Jacobian built column by column (np.eye columns as steps), damped by a
    backtracking line search on the residual norm read as a float."""
    def F(v):
        x, y, z = v
        return np.array([x ** 2 + y ** 2 + z ** 2 - 3.0, x * y * z - 1.0, np.exp(x - 1) - y])

    v = x0.astype(float)
    history = []
    for it in range(30):  # noqa: B007  (returned)
        f = F(v)
        norm = float(np.linalg.norm(f))
        history.append(norm)
        if norm < 1e-12:
            break
        J = np.empty((3, 3))
        for j, e in enumerate(np.eye(3)):
            J[:, j] = (F(v + 1e-7 * e) - f) / 1e-7
        step = np.linalg.solve(J, -f)
        t = 1.0
        while np.linalg.norm(F(v + t * step)) > (1 - 1e-4 * t) * norm and t > 1e-3:
            t *= 0.5
        v = v + t * step
    return v, it, np.array(history)


def test_newton_for_a_nonlinear_system():
    check(newton_system, np.array([2, 0.5, 1.5]), rtol=1e-6)


def chebyshev_interpolation(np, f_samples, x_eval):
    """Barycentric interpolation on Chebyshev points: the weights with
    alternating signs, the formula with np.subtract.outer, exact hits
    patched with np.isclose and np.where, and the max error against the
    function on a fine grid compared with equispaced nodes."""
    n = len(f_samples) - 1
    k = np.arange(n + 1)
    nodes = np.cos(np.pi * k / n)
    w = (-1.0) ** k
    w[[0, -1]] *= 0.5
    d = np.subtract.outer(x_eval, nodes)
    hit = np.isclose(d, 0, atol=1e-14)
    d = np.where(hit, 1.0, d)
    c = w / d
    p = (c @ f_samples) / c.sum(axis=1)
    exact_idx = np.argmax(hit, axis=1)
    p = np.where(hit.any(axis=1), f_samples[exact_idx], p)
    runge = 1 / (1 + 25 * x_eval ** 2)
    equi = np.linspace(-1, 1, n + 1)
    V = np.vander(equi, increasing=True)
    coef = np.linalg.solve(V, 1 / (1 + 25 * equi ** 2))
    p_equi = np.vander(x_eval, n + 1, increasing=True) @ coef
    return p, float(np.max(np.abs(p - runge))), float(np.max(np.abs(p_equi - runge))), nodes


def test_chebyshev_barycentric_interpolation():
    n = 16
    nodes = np.cos(np.pi * np.arange(n + 1) / n)
    check(chebyshev_interpolation, 1 / (1 + 25 * nodes ** 2),
          np.concatenate([np.linspace(-1, 1, 41), nodes[:3]]), rtol=1e-7)


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


def test_gradient_orientation_histograms():
    rng = np.random.default_rng(116)
    y, x = np.mgrid[0:16, 0:20]
    img = 128 + 60 * np.sin(x / 3.0) * np.cos(y / 4.0) + rng.normal(0, 5, (16, 20))
    img = img.astype(np.uint8)
    check(gradient_histograms, img, rtol=1e-7)


def test_a_loop_of_writes_alone_is_still_cut():
    """The cut held back during a write is checked after it: a loop that
    only writes (x[i] = v, y[i] += w) still gets automatic cuts."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import Runtime, use_runtime

    with use_runtime(Runtime(node_limit=50, interpret_nodes=10**9)) as rt:
        x, y, w = lnp.zeros(300), lnp.zeros((300, 4)), lnp.ones(4)
        for i in range(300):
            x[i] = float(i)
            y[i] += w
        assert rt.metrics.counters["auto_cuts"] >= 10
        np.testing.assert_array_equal(np.asarray(x), np.arange(300.0))
        np.testing.assert_array_equal(np.asarray(y), np.ones((300, 4)))
