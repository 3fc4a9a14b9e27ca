"""More ordinary numpy programs (the ninth round, continued), checked as in
test_np_user_programs9.py: numpy's result against the lazy one through the
namespace (the third run compiles nothing) and through numpy's
protocols, with no eager fallback but the one a program names."""

from __future__ import annotations

import numpy as np
import pytest
from np_compare import check

pytestmark = [pytest.mark.usefixtures("own_runtime"),
              pytest.mark.filterwarnings("ignore::lazytensor.numpy.LazyFallbackWarning")]


def binned_statistics(np, x, y):
    """Binning a scatter with np.digitize on quantile edges, per-bin count,
    mean and standard deviation from np.bincount weights, and the bin of new
    points with np.searchsorted."""
    edges = np.quantile(x, np.linspace(0, 1, 6))
    which = np.clip(np.digitize(x, edges[1:-1]), 0, 4)
    n = np.bincount(which, minlength=5)
    s = np.bincount(which, weights=y, minlength=5)
    s2 = np.bincount(which, weights=y * y, minlength=5)
    mean = s / n
    std = np.sqrt(s2 / n - mean ** 2)
    centres = 0.5 * (edges[1:] + edges[:-1])
    slope, intercept = np.polyfit(centres, mean, 1)
    new_bins = np.searchsorted(edges, np.array([-0.5, 0.1, 0.9, 2.0])) - 1
    return edges, n, mean, std, float(slope), new_bins


def test_binned_statistics_with_digitize_and_bincount():
    rng = np.random.default_rng(20)
    x = rng.random(200)
    check(binned_statistics, x, 3 * x + rng.normal(0, 0.2, 200))


def markov_chain(np, P, seed):
    """A Markov chain's stationary distribution three ways: the eigenvector
    of P^T for eigenvalue 1 (np.linalg.eig, complex results made real),
    np.linalg.matrix_power, and a least-squares solve of (P^T - I) pi = 0
    with sum(pi) = 1; then a simulated path's visit frequencies."""
    P = P / P.sum(axis=1, keepdims=True)
    w, v = np.linalg.eig(P.T)
    k = np.argmin(np.abs(w - 1))
    pi_eig = np.real(v[:, k]) / np.real(v[:, k]).sum()
    pi_pow = np.linalg.matrix_power(P, 64)[0]
    n = P.shape[0]
    A = np.vstack([P.T - np.eye(n), np.ones((1, n))])
    b = np.zeros(n + 1)
    b[-1] = 1
    pi_lsq = np.linalg.lstsq(A, b, rcond=None)[0]
    rng = np.random.default_rng(seed)
    cum = np.cumsum(P, axis=1)
    state, visits = 0, np.zeros(n, dtype=np.int64)
    for u in rng.random(300):
        state = int(np.searchsorted(cum[state], u))
        visits[state] += 1
    return pi_eig, pi_pow, pi_lsq, visits, bool(np.allclose(pi_eig, pi_lsq))


def test_markov_chain_stationary_distribution():
    rng = np.random.default_rng(21)
    # np.linalg.eig (a general eigenproblem) has no core op: it runs numpy's
    check(markov_chain, rng.random((4, 4)) + 0.1, 5, rtol=1e-8,
          fallbacks={"numpy.linalg.eig"})


def vectorized_newton(np, a):
    """Cube roots of many numbers at once by Newton's method, iterating
    while any point has not converged and freezing the converged ones."""
    x = np.where(a > 1, a / 3, 1.0)
    done = np.zeros(a.shape, dtype=bool)
    iters = 0
    while not np.all(done) and iters < 60:
        fx = x ** 3 - a
        step = fx / (3 * x ** 2)
        x = np.where(done, x, x - step)
        done |= np.abs(step) < 1e-12 * np.abs(x)
        iters += 1
    return x, iters, float(np.max(np.abs(x - np.cbrt(a))))


def test_vectorized_newton_cube_roots():
    check(vectorized_newton, np.geomspace(0.01, 1e6, 25), rtol=1e-12)


def lorenz_rk4(np, state0):
    """The Lorenz system integrated with classical RK4 in a fixed-step
    Python loop, the trajectory stacked from a list, a Poincare-style
    crossing count with np.diff of signs."""
    sigma, rho, beta = 10.0, 28.0, 8.0 / 3.0

    def f(s):
        x, y, z = s
        return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])

    h = 0.01
    s = state0.copy()
    traj = [s]
    for _ in range(60):
        k1 = f(s)
        k2 = f(s + h / 2 * k1)
        k3 = f(s + h / 2 * k2)
        k4 = f(s + h * k3)
        s = s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj.append(s)
    traj = np.stack(traj)
    crossings = np.count_nonzero(np.diff(np.sign(traj[:, 0])))
    return traj, crossings, traj.min(axis=0), np.linalg.norm(traj[-1])


def test_lorenz_rk4_loop():
    check(lorenz_rk4, np.array([1.0, 1.0, 1.0]), rtol=1e-9)


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


def test_fft_lowpass_filter():
    rng = np.random.default_rng(22)
    fs, n = 200.0, 256
    t = np.arange(n) / fs
    check(fft_lowpass, np.sin(2 * np.pi * 5 * t) + 0.4 * rng.normal(size=n), fs, rtol=1e-8)


def bootstrap_ci(np, sample, seed):
    """A percentile bootstrap of the mean and the median with resampling
    indices from rng.integers, a bias estimate, and the BCa-free basic
    interval; results as Python floats and a small array."""
    rng = np.random.default_rng(seed)
    B = 400
    idx = rng.integers(0, len(sample), size=(B, len(sample)))
    boots = sample[idx]
    means = boots.mean(axis=1)
    medians = np.median(boots, axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    basic = 2 * sample.mean() - np.array([hi, lo])
    bias = medians.mean() - np.median(sample)
    return (float(lo), float(hi), basic, float(bias), float(medians.std(ddof=1)),
            np.histogram(means, bins=8)[0])


def test_bootstrap_confidence_interval():
    rng = np.random.default_rng(23)
    check(bootstrap_ci, rng.exponential(2.0, 50), 24)


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


def test_image_resize_and_augment():
    rng = np.random.default_rng(25)
    check(resize_and_augment, rng.integers(0, 256, size=(16, 20, 3), dtype=np.uint8))


def csr_matvec(np, dense, x):
    """Sparse matrix times vector in CSR form built by hand: np.nonzero for
    the pattern, row pointers from np.bincount + np.cumsum, products summed
    per row with np.add.reduceat and with np.repeat + np.bincount; a few
    Jacobi iterations on the same matrix."""
    rows, cols = np.nonzero(dense)
    data = dense[rows, cols]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=dense.shape[0]))])
    prod = data * x[cols]
    y1 = np.add.reduceat(prod, indptr[:-1])
    row_of = np.repeat(np.arange(dense.shape[0]), np.diff(indptr))
    y2 = np.bincount(row_of, weights=prod, minlength=dense.shape[0])
    diag = np.diag(dense)
    u = np.zeros_like(x)
    for _ in range(10):
        Au = np.bincount(row_of, weights=data * u[cols], minlength=dense.shape[0])
        u = u + (x - Au) / diag
    return y1, y2, indptr, u, float(np.linalg.norm(dense @ u - x))


def test_csr_matvec_and_jacobi():
    rng = np.random.default_rng(26)
    A = np.where(rng.random((12, 12)) < 0.25, rng.normal(size=(12, 12)), 0.0)
    A += np.diag(np.abs(A).sum(axis=1) + 1.0)
    check(csr_matvec, A, rng.normal(size=12))


def gmm_em(np, x):
    """A two-component 1-D Gaussian mixture fitted by EM: responsibilities
    through a log-sum-exp, weighted means and variances, the log-likelihood
    per iteration until it stops improving."""
    w = np.array([0.5, 0.5])
    mu = np.array([x.min(), x.max()])
    var = np.array([1.0, 1.0])
    history = []
    for _ in range(40):
        logp = np.log(w) - 0.5 * np.log(2 * np.pi * var) - 0.5 * (x[:, None] - mu) ** 2 / var
        m = logp.max(axis=1, keepdims=True)
        lse = m + np.log(np.exp(logp - m).sum(axis=1, keepdims=True))
        resp = np.exp(logp - lse)
        nk = resp.sum(axis=0)
        w = nk / len(x)
        mu = (resp * x[:, None]).sum(axis=0) / nk
        var = (resp * (x[:, None] - mu) ** 2).sum(axis=0) / nk
        history.append(float(lse.sum()))
        if len(history) > 1 and history[-1] - history[-2] < 1e-8:
            break
    return w, mu, var, len(history), resp.argmax(axis=1)


def test_gaussian_mixture_em():
    rng = np.random.default_rng(27)
    check(gmm_em, np.concatenate([rng.normal(-2, 0.7, 60), rng.normal(3, 1.2, 40)]), rtol=1e-7)


def poisson_gauss_seidel(np, f):
    """The 2-D Poisson equation by red-black Gauss-Seidel sweeps on a
    checkerboard mask with slices, until the residual norm drops below a
    tolerance; the Cholesky-based multivariate log-density of the result."""
    n = f.shape[0]
    h2 = (1.0 / (n - 1)) ** 2
    u = np.zeros_like(f)
    ii, jj = np.indices((n - 2, n - 2))
    red = (ii + jj) % 2 == 0
    sweeps = 0
    for sweeps in range(1, 200):  # noqa: B007
        for colour in (red, ~red):
            nb = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
            inner = u[1:-1, 1:-1]
            inner[colour] = ((nb + h2 * f[1:-1, 1:-1]) / 4)[colour]
        r = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
             - 4 * u[1:-1, 1:-1]) / h2 + f[1:-1, 1:-1]
        if np.linalg.norm(r) < 1e-2:
            break
    C = np.cov(u[1:-1, 1:-1]) + 1e-3 * np.eye(n - 2)
    L = np.linalg.cholesky(C)
    sign, logdet = np.linalg.slogdet(C)
    z = np.linalg.solve(L, u[1:-1, n // 2])
    return u, sweeps, float(logdet), float(-0.5 * z @ z), sign


def test_poisson_red_black_gauss_seidel():
    x = np.linspace(0, 1, 10)
    X, Y = np.meshgrid(x, x)
    check(poisson_gauss_seidel, 2 * np.pi ** 2 * np.sin(np.pi * X) * np.sin(np.pi * Y), rtol=1e-7)


# ------------------------------------------------------------ fixed bugs

@pytest.mark.parametrize("build", [
    lambda x, xp: xp.array([x[0] * 2, x[1] - x[0], x[2]]),
    lambda x, xp: xp.array([x, x * 2]),
    lambda x, xp: xp.array([[x[0], 2], [3, x[1]]]),
    lambda x, xp: xp.array((x, np.ones(3, np.int8))),
    lambda x, xp: xp.array([x[0], 1.0, True], dtype=np.int32),
    lambda x, xp: xp.array([x, [1, 2, 3]], ndmin=3),
    lambda x, xp: xp.asarray([x[0], np.float16(2)]),
    lambda x, xp: xp.mean([x[0], x[2]]),
], ids=["0d", "1d", "nested", "tuple-host", "dtype", "ndmin", "asarray", "mean"])
def test_array_of_a_list_of_lazy_arrays_records_without_reading_them(build):
    """np.array([...]) of lazy arrays (lorenz_rk4's ``np.array([sigma * (y -
    x), ...])``) read every item to the host: one graph run per call, 240 in
    60 RK4 steps; now the items' stack is recorded, with numpy's dtype
    discovery (Python scalars strong)."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    host = np.array([1.5, -2.0, 0.25], np.float32)
    x = lnp.asarray(host) * 1
    metrics = get_runtime().metrics
    runs = metrics.counters.get("graphs_executed", 0)
    got = build(x, lnp)
    assert metrics.counters.get("graphs_executed", 0) == runs
    want = build(host, np)
    assert isinstance(got, lnp.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_array_of_a_long_list_of_lazy_arrays_reads_them():
    """Past STACK_LIMIT items the list is read in one barrier, as before:
    XLA took 20 s to compile a 2000-operand join that a read does in 4."""
    import lazytensor.numpy as lnp
    from lazytensor.numpy._base import STACK_LIMIT

    host = np.arange(STACK_LIMIT + 1.0)
    x = lnp.asarray(host) * 2
    got = lnp.array([x[i] for i in range(len(host))])
    assert got.dtype == np.float64 and got.shape == host.shape
    np.testing.assert_array_equal(np.asarray(got), host * 2)


def test_array_of_a_ragged_list_of_lazy_arrays_is_numpys_value_error():
    """A ragged list still gets numpy's error; a list mixing a 0-d lazy
    number and a string raised ValueError ('setting an array element with a
    sequence': numpy read the lazy item as a sequence), now numpy's array."""
    import lazytensor.numpy as lnp

    x = lnp.arange(3.0)
    with pytest.raises(ValueError, match="inhomogeneous"):
        lnp.array([x, x[:2]])
    assert lnp.array([x[1], "a"]).tolist() == ["1.0", "a"]  # numpy's own string array


# ------------------------------------------------------------ more programs

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


def test_welch_power_spectral_density():
    rng = np.random.default_rng(30)
    t = np.arange(512) / 128.0
    check(welch_psd, np.sin(2 * np.pi * 10 * t) + rng.normal(0, 1, 512), 128.0)


def correlation_pairs(np, X):
    """The strongest feature correlations: np.corrcoef, the upper triangle
    with np.triu_indices, pairs ranked by |r|, the sub-matrix of the top
    features with np.ix_, and its eigenvalues."""
    C = np.corrcoef(X, rowvar=False)
    iu, ju = np.triu_indices(C.shape[0], k=1)
    r = C[iu, ju]
    order = np.argsort(-np.abs(r), kind="stable")[:4]
    pairs = [(int(iu[k]), int(ju[k]), round(float(r[k]), 6)) for k in order]
    top = np.unique(np.concatenate([iu[order], ju[order]]))
    sub = C[np.ix_(top, top)]
    il = np.tril_indices(C.shape[0], -1)
    return pairs, sub, np.linalg.eigvalsh(sub), C[il].sum(), C[np.diag_indices(3)]


def test_correlation_pairs_with_triu_indices_and_ix():
    rng = np.random.default_rng(31)
    Z = rng.normal(size=(50, 3))
    X = np.column_stack([Z, Z[:, 0] + 0.1 * rng.normal(size=50), Z[:, 1] - Z[:, 2],
                         rng.normal(size=50)])
    check(correlation_pairs, X)


def svd_compression(np, img):
    """Low-rank approximation of a float32 image with the SVD: the energy
    captured per rank (cumsum of squared singular values), the smallest rank
    keeping 95%, relative Frobenius errors, and the result as uint8."""
    U, s, Vt = np.linalg.svd(img, full_matrices=False)
    energy = np.cumsum(s ** 2) / np.sum(s ** 2)
    k = int(np.searchsorted(energy, 0.95) + 1)
    errors = []
    for r in (1, 2, 4, k):
        approx = (U[:, :r] * s[:r]) @ Vt[:r]
        errors.append(float(np.linalg.norm(img - approx) / np.linalg.norm(img)))
    approx = (U[:, :k] * s[:k]) @ Vt[:k]
    return s, energy, k, np.round(errors, 4), np.clip(approx, 0, 255).astype(np.uint8).dtype.str


def test_svd_image_compression():
    rng = np.random.default_rng(32)
    y, x = np.mgrid[0:24, 0:32]
    img = (100 + 60 * np.sin(x / 5.0) * np.cos(y / 7.0) + rng.normal(0, 5, (24, 32)))
    check(svd_compression, img.astype(np.float32), rtol=2e-4)


def n_body(np, pos, vel, mass):
    """A softened gravitational N-body system with kick-drift-kick leapfrog:
    pairwise separations by broadcasting, np.fill_diagonal, accelerations
    with einsum, energy and angular momentum (np.cross) conservation."""
    G, eps, dt = 1.0, 0.05, 0.01

    def accel(p):
        d = p[None, :, :] - p[:, None, :]
        r2 = (d ** 2).sum(-1) + eps ** 2
        inv3 = r2 ** -1.5
        np.fill_diagonal(inv3, 0.0)
        return G * np.einsum("ij,ijk,j->ik", inv3, d, mass)

    def energy(p, v):
        d = p[None] - p[:, None]
        r = np.sqrt((d ** 2).sum(-1) + eps ** 2)
        i, j = np.triu_indices(len(mass), 1)
        return 0.5 * (mass * (v ** 2).sum(1)).sum() - G * (mass[i] * mass[j] / r[i, j]).sum()

    e0 = energy(pos, vel)
    a = accel(pos)
    for _ in range(25):
        vel = vel + 0.5 * dt * a
        pos = pos + dt * vel
        a = accel(pos)
        vel = vel + 0.5 * dt * a
    L = np.cross(pos, mass[:, None] * vel).sum(axis=0)
    return pos, vel, float(abs(energy(pos, vel) - e0) / abs(e0)), L


def test_n_body_leapfrog():
    rng = np.random.default_rng(33)
    check(n_body, rng.normal(size=(8, 3)), 0.3 * rng.normal(size=(8, 3)),
          rng.uniform(0.5, 1.5, 8), rtol=1e-7)


def portfolio_report(np, prices, sector):
    """Daily returns, cumulative growth with np.cumprod, drawdowns with
    np.maximum.accumulate, a multi-key ranking with np.lexsort (sector, then
    return descending), and fee brackets with np.select and np.piecewise."""
    rets = np.diff(prices, axis=0) / prices[:-1]
    growth = np.cumprod(1 + rets, axis=0)
    peak = np.maximum.accumulate(growth, axis=0)
    drawdown = (growth - peak) / peak
    total = growth[-1] - 1
    order = np.lexsort((-total, sector))
    fee = np.select([total < 0, total < 0.05, total >= 0.05], [0.0, 0.01 * total, 0.02 * total])
    tier = np.piecewise(total, [total < 0, total >= 0.1], [0, 2, 1])
    sharpe = rets.mean(axis=0) / rets.std(axis=0, ddof=1) * np.sqrt(252)
    return growth, drawdown.min(axis=0), order, fee, tier, sharpe


def test_portfolio_report_with_lexsort_select_piecewise():
    rng = np.random.default_rng(34)
    prices = 100 * np.exp(np.cumsum(rng.normal(0.001, 0.02, (60, 6)), axis=0))
    check(portfolio_report, prices, np.array([2, 0, 1, 0, 2, 1]))


def test_ix_of_lazy_index_vectors_is_lazy():
    """np.ix_ of lazy vectors (correlation_pairs' ``C[np.ix_(top, top)]``)
    fell back to numpy (counted); integer vectors are now reshaped lazily,
    boolean ones and lists are numpy's own on host."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    rows, mask = np.array([2, 0]), np.array([True, False, True])
    M = np.arange(12.0).reshape(4, 3)
    metrics = get_runtime().metrics
    runs = metrics.counters.get("graphs_executed", 0)
    r, c = lnp.ix_(lnp.asarray(rows) * 1, lnp.asarray(np.array([1, 2])))
    assert metrics.counters.get("graphs_executed", 0) == runs
    for got, want in ((r, rows[:, None]), (lnp.asarray(M)[r, c], M[np.ix_(rows, [1, 2])])):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)
    got = lnp.ix_(lnp.asarray(rows), lnp.asarray(mask), [1])
    for g, w in zip(got, np.ix_(rows, mask, [1]), strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)
        assert g.shape == w.shape and g.dtype == w.dtype
    with pytest.raises(ValueError, match="1 dimensional"):
        lnp.ix_(lnp.ones((2, 2), dtype=int))
    assert not metrics.fallbacks


def test_bincount_over_fixed_labels_in_a_loop_reads_them_once():
    """csr_matvec's Jacobi loop ran two graphs per np.bincount call (max and
    min of the labels, each a barrier): 20 in 10 iterations. The bounds are
    now read in one run and kept for a materialized vector, so the loop
    records one graph; a write to the labels is seen."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    labels_host = np.array([0, 2, 2, 1, 4, 0])
    labels = lnp.asarray(labels_host)
    metrics = get_runtime().metrics
    acc, acc_host = lnp.zeros(5), np.zeros(5)
    lnp.bincount(labels)
    runs = metrics.counters.get("graphs_executed", 0)
    for k in range(4):
        w = np.linspace(0, 1, 6) + k
        acc = acc + lnp.bincount(labels, weights=lnp.asarray(w) * 2)
        acc_host = acc_host + np.bincount(labels_host, weights=w * 2)
    assert metrics.counters.get("graphs_executed", 0) == runs
    np.testing.assert_allclose(np.asarray(acc), acc_host)
    labels[1] = 7
    labels_host[1] = 7
    np.testing.assert_array_equal(np.asarray(lnp.bincount(labels)), np.bincount(labels_host))
    with pytest.raises(ValueError, match="negative"):
        lnp.bincount(labels - 1)


def test_vectorize_of_lazy_arrays_is_counted_and_lazy():
    """np.vectorize from lazytensor.numpy was numpy's class: on lazy arrays
    it read them silently (no fallback counted) and returned host arrays;
    now the eager run is counted and its results are lazy."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    def step(t, k=1.0):
        return 2 * t if t > 0 else -k * t

    host = np.array([1.0, -2.0, 3.0])
    metrics = get_runtime().metrics
    before = metrics.fallbacks.get("numpy.vectorize", 0)
    got = lnp.vectorize(step)(lnp.asarray(host) * 1, k=3.0)
    want = np.vectorize(step)(host, k=3.0)
    assert isinstance(got, lnp.ndarray) and got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    assert metrics.fallbacks["numpy.vectorize"] == before + 1
    pair = lnp.vectorize(lambda a: (a, a * 2), otypes=[int, int])(lnp.arange(3))
    assert all(isinstance(p, lnp.ndarray) for p in pair)
    np.testing.assert_array_equal(np.asarray(pair[1]), [0, 2, 4])


@pytest.mark.parametrize("kw", [dict(aweights=True), dict(fweights=True), dict(
    fweights=True, aweights=True), dict(aweights=True, ddof=2), dict(fweights=True, bias=True)],
    ids=["a", "f", "fa", "a-ddof2", "f-bias"])
def test_cov_with_weights_is_lazy(kw):
    """np.cov(..., aweights=...) fell back to numpy (counted; gmm_2d in
    test_np_user_programs9); weighted covariances are now recorded."""
    import lazytensor.numpy as lnp

    rng = np.random.default_rng(40)
    X, f, a = rng.normal(size=(3, 9)), rng.integers(0, 4, 9), rng.random(9)
    host = {**kw, **{k: f if k == "fweights" else a for k in kw if k.endswith("weights")}}
    lazy = {k: lnp.asarray(v) if k == "aweights" else v for k, v in host.items()}
    for args, rowvar in (((X,), True), ((X.T,), False), ((X, X[:2] ** 2), True), ((X[0],), True)):
        want = np.cov(*args, rowvar=rowvar, **host)
        got = lnp.cov(*(lnp.asarray(t) for t in args), rowvar=rowvar, **lazy)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


@pytest.mark.parametrize("bad", [dict(fweights=[1.5] * 9), dict(fweights=[-1] * 9),
                                 dict(aweights=[-1.0] * 9), dict(aweights=[1.0] * 3),
                                 dict(aweights=np.ones((9, 1)))])
def test_cov_weight_errors_are_numpys(bad):
    import lazytensor.numpy as lnp

    X = np.arange(27.0).reshape(3, 9) ** 0.5
    with pytest.raises(Exception) as want:
        np.cov(X, **bad)
    with pytest.raises(want.type, match=str(want.value)):
        lnp.cov(lnp.asarray(X), **bad)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_r_and_c_of_lazy_arrays_are_counted_and_lazy():
    """np.r_/np.c_ from lazytensor.numpy were numpy's objects: they read lazy
    items silently and returned host arrays; then counted, results lazy; now
    recorded lazily without a fallback (a matrix directive still runs
    numpy's, counted)."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    host = np.array([1.0, 2.0, 3.0])
    x = lnp.asarray(host)
    metrics = get_runtime().metrics
    before = dict(metrics.fallbacks)
    for got, want in ((lnp.r_[x, 0.0, x[:2]], np.r_[host, 0.0, host[:2]]),
                      (lnp.c_[x, x * 2], np.c_[host, host * 2]),
                      (lnp.r_["0,2", x, x], np.r_["0,2", host, host]),
                      (lnp.r_[0:5:2, -1:1:3j], np.r_[0:5:2, -1:1:3j])):
        assert isinstance(got, lnp.ndarray)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)
    assert metrics.fallbacks == before
    lnp.r_["r", x, x]
    assert metrics.fallbacks["numpy.r_"] == before.get("numpy.r_", 0) + 1
