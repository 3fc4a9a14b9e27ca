"""A ninth round of ordinary numpy programs, written as a scientist writes
them, each run with numpy and with ``lazytensor.numpy`` on the same data and
compared (values with a dtype-fitting tolerance, dtype, shape, Python
types); no eager fallback may run (the ``runtime`` fixture), a third run on
the same data must find every graph in the compile cache, and the programs
also run through numpy's protocols with lazy arrays passed in."""

from __future__ import annotations

import numpy as np
import pytest
from np_compare import check

pytestmark = pytest.mark.usefixtures("runtime")

# ------------------------------------------------------------ programs

def kmeans_plus_plus(np, X, seed):
    """k-means++ seeding from a seeded generator, Lloyd iterations until the
    labels stop changing, and a centre with no members re-seeded at the point
    farthest from its centre."""
    rng = np.random.default_rng(seed)
    k = 4
    centers = [X[rng.integers(len(X))]]
    for _ in range(k - 1):
        d2 = np.min(((X[:, None, :] - np.array(centers)[None]) ** 2).sum(-1), axis=1)
        centers.append(X[rng.choice(len(X), p=d2 / d2.sum())])
    centers = np.array(centers)
    centers[3] = [100.0, 100.0]  # a centre far from every point: empty cluster
    labels = np.full(len(X), -1)
    for it in range(20):  # noqa: B007  (returned: the iterations run)
        dist = np.linalg.norm(X[:, None, :] - centers[None, :, :], axis=2)
        new = dist.argmin(axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        for j in range(k):
            members = X[labels == j]
            if members.shape[0] == 0:
                centers[j] = X[np.argmax(dist[np.arange(len(X)), labels])]
            else:
                centers[j] = members.mean(axis=0)
    counts = np.bincount(labels, minlength=k)
    return centers, labels, counts, it


def test_kmeans_plus_plus_with_an_empty_cluster():
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.normal(c, 0.5, size=(15, 2)) for c in ((0, 0), (4, 0), (2, 4))])
    check(kmeans_plus_plus, X, 3)


def newton_logistic(np, X, y):
    """Logistic regression by Newton's method (IRLS): the Hessian X^T W X
    plus a small ridge, solved with np.linalg.solve, stopping on the step
    norm; the log-likelihood history as Python floats."""
    X = np.hstack([np.ones((X.shape[0], 1)), X])
    beta = np.zeros(X.shape[1])
    loglik = []
    for _ in range(25):
        eta = X @ beta
        p = 1 / (1 + np.exp(-eta))
        W = p * (1 - p)
        H = X.T @ (X * W[:, None]) + 1e-6 * np.eye(X.shape[1])
        g = X.T @ (y - p)
        step = np.linalg.solve(H, g)
        beta += step
        loglik.append(float(np.sum(y * eta - np.logaddexp(0, eta))))
        if np.linalg.norm(step) < 1e-10:
            break
    se = np.sqrt(np.diag(np.linalg.inv(H)))
    return beta, se, loglik[-3:], len(loglik)


def test_newton_logistic_regression():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 2))
    y = (rng.random(80) < 1 / (1 + np.exp(-(0.5 + X @ [1.5, -1.0])))).astype(float)
    check(newton_logistic, X, y, rtol=1e-7)


def ridge_cross_validation(np, X, y):
    """Ridge regression through lstsq on the augmented system [X; sqrt(a) I],
    five-fold cross-validation with np.array_split, the best alpha by argmin."""
    alphas = np.logspace(-3, 2, 6)
    folds = np.array_split(np.arange(len(y)), 5)
    errors = np.zeros((len(alphas), len(folds)))
    for i, a in enumerate(alphas):
        for f, test in enumerate(folds):
            train = np.setdiff1d(np.arange(len(y)), test)
            A = np.vstack([X[train], np.sqrt(a) * np.eye(X.shape[1])])
            b = np.concatenate([y[train], np.zeros(X.shape[1])])
            w, *_ = np.linalg.lstsq(A, b, rcond=None)
            errors[i, f] = np.mean((X[test] @ w - y[test]) ** 2)
    mean_err = errors.mean(axis=1)
    best = alphas[np.argmin(mean_err)]
    return mean_err, errors.std(axis=1, ddof=1), float(best)


def test_ridge_cross_validation_with_lstsq():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 5))
    y = X @ np.array([1.0, 0.0, -2.0, 0.5, 0.0]) + 0.3 * rng.normal(size=40)
    check(ridge_cross_validation, X, y, rtol=1e-7)


def wave_equation(np, u0):
    """The 2-D wave equation with a leapfrog scheme: a five-point Laplacian
    from slices, fixed (zero) edges, energy as a Python float per step."""
    c, dt, dx = 1.0, 0.1, 0.5
    r2 = (c * dt / dx) ** 2
    prev, cur = u0.copy(), u0.copy()
    energy = []
    for _ in range(15):
        lap = np.zeros_like(cur)
        lap[1:-1, 1:-1] = (cur[2:, 1:-1] + cur[:-2, 1:-1] + cur[1:-1, 2:]
                           + cur[1:-1, :-2] - 4 * cur[1:-1, 1:-1])
        nxt = 2 * cur - prev + r2 * lap
        nxt[0, :] = nxt[-1, :] = 0
        nxt[:, 0] = nxt[:, -1] = 0
        prev, cur = cur, nxt
        energy.append(round(float(np.sum(cur ** 2)), 8))
    return cur, energy, np.unravel_index(np.argmax(np.abs(cur)), cur.shape)


def test_wave_equation_leapfrog():
    x = np.linspace(-1, 1, 24)
    X, Y = np.meshgrid(x, x)
    check(wave_equation, np.exp(-20 * ((X - 0.2) ** 2 + 2 * Y ** 2)) + 0.1 * X * Y ** 2, rtol=1e-7)


def asian_option(np, seed):
    """Monte-Carlo price of an arithmetic Asian call under geometric Brownian
    motion (default_rng normals, cumsum of log increments), with its
    standard error and a geometric-average control variate."""
    rng = np.random.default_rng(seed)
    S0, K, r, sigma, T, steps, paths = 100.0, 100.0, 0.05, 0.2, 1.0, 24, 1000
    dt = T / steps
    z = rng.standard_normal((paths, steps))
    increments = (r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * z
    log_paths = np.log(S0) + np.cumsum(increments, axis=1)
    S = np.exp(log_paths)
    disc = np.exp(-r * T)
    arith = disc * np.maximum(S.mean(axis=1) - K, 0.0)
    geo = disc * np.maximum(np.exp(log_paths.mean(axis=1)) - K, 0.0)
    cov = np.cov(arith, geo)
    b = cov[0, 1] / cov[1, 1]
    controlled = arith - b * (geo - geo.mean())
    return (float(arith.mean()), float(arith.std(ddof=1) / np.sqrt(paths)),
            float(controlled.mean()), np.percentile(S[:, -1], [5, 50, 95]))


def test_monte_carlo_asian_option():
    check(asian_option, 7, rtol=1e-7)


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


def test_histogram_equalization():
    rng = np.random.default_rng(4)
    img = np.clip(rng.normal(90, 12, size=(32, 40)), 0, 255).astype(np.uint8)
    check(histogram_equalization, img)


def moving_averages(np, prices):
    """Simple moving average with np.convolve and with a cumsum, an
    exponential moving average in a Python loop, crossovers as signals."""
    w = 5
    sma = np.convolve(prices, np.ones(w) / w, mode="valid")
    c = np.cumsum(np.insert(prices, 0, 0.0))
    sma2 = (c[w:] - c[:-w]) / w
    alpha = 2 / (w + 1)
    ema = np.empty_like(prices)
    ema[0] = prices[0]
    for t in range(1, len(prices)):
        ema[t] = alpha * prices[t] + (1 - alpha) * ema[t - 1]
    above = ema[w - 1:] > sma
    crossings = np.flatnonzero(np.diff(above.astype(np.int8)) != 0)
    returns = np.diff(np.log(prices))
    vol = returns.std(ddof=1) * np.sqrt(252)
    return sma, sma2, ema, crossings, float(vol)


def test_moving_averages_and_crossovers():
    rng = np.random.default_rng(5)
    check(moving_averages, 50 * np.exp(np.cumsum(0.02 * rng.normal(size=40))))


def julia_set(np, zr, zi):
    """Escape times of a Julia set on a complex grid, iterating only the
    points still bounded (a mask updated in place), smooth colouring."""
    z = zr[None, :] + 1j * zi[:, None]
    c = -0.8 + 0.156j
    counts = np.zeros(z.shape, dtype=np.int32)
    alive = np.ones(z.shape, dtype=bool)
    for i in range(30):
        z[alive] = z[alive] ** 2 + c
        escaped = alive & (np.abs(z) > 2)
        counts[escaped] = i
        alive &= ~escaped
    smooth = counts + 1 - np.log2(np.log(np.maximum(np.abs(z), 2.0)))
    return counts, float(alive.mean()), smooth.astype(np.float32)


def test_julia_set_with_masks():
    check(julia_set, np.linspace(-1.5, 1.5, 30), np.linspace(-1, 1, 20), rtol=1e-6)


def nearest_neighbours(np, A, B):
    """Pairwise Euclidean distances by einsum (the |a|^2 + |b|^2 - 2ab
    identity) and by broadcasting, the three nearest with argpartition,
    a cosine-similarity matrix."""
    aa = np.einsum("ij,ij->i", A, A)
    bb = np.einsum("ij,ij->i", B, B)
    d2 = aa[:, None] + bb[None, :] - 2 * np.einsum("ik,jk->ij", A, B)
    D = np.sqrt(np.maximum(d2, 0))
    D2 = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1))
    idx = np.argpartition(D, 3, axis=1)[:, :3]
    idx = np.take_along_axis(idx, np.argsort(np.take_along_axis(D, idx, 1), axis=1), 1)
    unit_b = B / np.linalg.norm(B, axis=1)[:, None]
    cos = (A / np.linalg.norm(A, axis=1, keepdims=True)) @ unit_b.T
    return D, bool(np.allclose(D, D2)), idx, cos.max(axis=1)


def test_nearest_neighbours_with_einsum():
    rng = np.random.default_rng(6)
    check(nearest_neighbours, rng.normal(size=(12, 4)), rng.normal(size=(9, 4)), rtol=1e-7)


def kalman_filter(np, zs):
    """A constant-velocity Kalman filter over noisy 1-D positions: predict
    and update with 2x2 matrices and np.linalg.inv each step, the filtered
    track and the final covariance."""
    dt = 1.0
    F = np.array([[1, dt], [0, 1]])
    H = np.array([[1.0, 0.0]])
    Q = 0.01 * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    R = np.array([[0.5]])
    x = np.array([zs[0], 0.0])
    P = np.eye(2)
    track = []
    for z in zs:
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        x = x + (K @ (z - H @ x)).ravel()
        P = (np.eye(2) - K @ H) @ P
        track.append(x.copy())
    track = np.array(track)
    return track, P, float(np.sqrt(np.mean((track[:, 0] - zs) ** 2)))


def test_kalman_filter_loop():
    rng = np.random.default_rng(8)
    zs = 0.7 * np.arange(15) + rng.normal(0, 0.7, size=15)
    check(kalman_filter, zs, rtol=1e-7)


def particle_deposit(np, pos, mass):
    """Cloud-in-cell deposit of particles on a periodic 2-D grid with
    np.add.at (repeated cells accumulate), the same mass with np.bincount
    weights on flattened cell indices, and a density contrast."""
    n = 16
    cell = pos * n
    i0 = np.floor(cell).astype(np.int64)
    frac = cell - i0
    rho = np.zeros((n, n))
    for dx in (0, 1):
        for dy in (0, 1):
            w = (frac[:, 0] if dx else 1 - frac[:, 0]) * (frac[:, 1] if dy else 1 - frac[:, 1])
            np.add.at(rho, ((i0[:, 0] + dx) % n, (i0[:, 1] + dy) % n), mass * w)
    flat = np.ravel_multi_index((i0[:, 0], i0[:, 1]), (n, n))
    ngp = np.bincount(flat, weights=mass, minlength=n * n).reshape(n, n)
    delta = rho / rho.mean() - 1
    return rho, ngp, float(rho.sum()), delta.max(), np.count_nonzero(ngp)


def test_particle_deposit_with_add_at_and_bincount():
    rng = np.random.default_rng(9)
    check(particle_deposit, rng.random((300, 2)), rng.uniform(0.5, 1.5, 300), rtol=1e-9)


def gaussian_on_a_grid(np, mu, cov):
    """A bivariate normal density evaluated on an np.meshgrid through the
    inverse covariance (einsum of the quadratic form), integrated with
    np.trapezoid twice, its gradient with np.gradient, and the mode."""
    x = np.linspace(-4, 4, 41)
    y = np.linspace(-3, 3, 31)
    X, Y = np.meshgrid(x, y)
    d = np.stack([X - mu[0], Y - mu[1]], axis=-1)
    inv = np.linalg.inv(cov)
    q = np.einsum("...i,ij,...j->...", d, inv, d)
    pdf = np.exp(-0.5 * q) / (2 * np.pi * np.sqrt(np.linalg.det(cov)))
    total = np.trapezoid(np.trapezoid(pdf, x, axis=1), y)
    gy, gx = np.gradient(pdf, y, x)
    iy, ix = np.unravel_index(np.argmax(pdf), pdf.shape)
    return pdf, float(total), gx, gy, (float(x[ix]), float(y[iy]))


def test_gaussian_density_on_a_meshgrid():
    check(gaussian_on_a_grid, np.array([0.5, -0.25]), np.array([[1.0, 0.3], [0.3, 0.5]]))


def tiny_regression_net(np, X, y, seed):
    """A one-hidden-layer tanh network for regression trained with
    mini-batch SGD with momentum, batches from a seeded permutation, the
    backward pass by hand; per-epoch losses as Python floats."""
    rng = np.random.default_rng(seed)
    W1 = rng.normal(0, 0.5, (X.shape[1], 16))
    b1 = np.zeros(16)
    W2 = rng.normal(0, 0.5, (16, 1))
    b2 = np.zeros(1)
    params = [W1, b1, W2, b2]
    velocity = [np.zeros_like(p) for p in params]
    losses = []
    for _ in range(3):
        perm = rng.permutation(len(X))
        for start in range(0, len(X), 16):
            idx = perm[start:start + 16]
            xb, yb = X[idx], y[idx, None]
            h = np.tanh(xb @ W1 + b1)
            pred = h @ W2 + b2
            err = pred - yb
            dW2 = h.T @ err / len(xb)
            db2 = err.mean(axis=0)
            dh = err @ W2.T * (1 - h ** 2)
            dW1 = xb.T @ dh / len(xb)
            db1 = dh.mean(axis=0)
            for p, v, g in zip(params, velocity, (dW1, db1, dW2, db2), strict=True):
                v *= 0.9
                v -= 0.05 * g
                p += v
        losses.append(round(float(np.mean((np.tanh(X @ W1 + b1) @ W2 + b2 - y[:, None]) ** 2)), 9))
    return W1, b2, losses


def test_tiny_regression_net_with_momentum():
    rng = np.random.default_rng(10)
    X = rng.uniform(-2, 2, size=(64, 2))
    check(tiny_regression_net, X, np.sin(X[:, 0]) * X[:, 1], 11, rtol=1e-7)


def clean_sensor_table(np, table):
    """Cleaning a table of sensor readings: NaNs imputed with the column
    np.nanmean, outliers beyond 3 robust z-scores (median/MAD) clipped,
    station codes counted with np.unique(return_counts=True)."""
    station = table[:, 0].astype(np.int64)
    values = table[:, 1:].copy()
    missing = np.isnan(values)
    col_mean = np.nanmean(values, axis=0)
    values[missing] = np.take(col_mean, np.nonzero(missing)[1])
    med = np.median(values, axis=0)
    mad = np.median(np.abs(values - med), axis=0) * 1.4826
    z = (values - med) / mad
    outliers = np.abs(z) > 3
    values = np.where(outliers, med + np.sign(z) * 3 * mad, values)
    codes, counts = np.unique(station, return_counts=True)
    per_station = np.array([values[station == c].mean(axis=0) for c in codes])
    return (values, missing.sum(axis=0), outliers.sum(), codes, counts, per_station,
            np.nanstd(table[:, 1:], axis=0))


def test_clean_a_sensor_table():
    rng = np.random.default_rng(12)
    table = np.column_stack([rng.integers(0, 4, 60), rng.normal(20, 2, (60, 3))])
    table[rng.random((60, 4)) < 0.1] = np.nan
    table[:, 0] = np.nan_to_num(table[:, 0], nan=1.0)
    table[[3, 17], 2] = [60.0, -40.0]
    check(clean_sensor_table, table)


def spearman_and_ranks(np, a, b):
    """Spearman's rank correlation from double argsorts (average ranks for
    ties through np.unique's inverse), np.corrcoef of the ranks, and
    percentile ranks of new values with np.searchsorted."""
    def ranks(v):
        order = np.argsort(v, kind="stable")
        r = np.empty(len(v))
        r[order] = np.arange(1, len(v) + 1)
        vals, inv = np.unique(v, return_inverse=True)
        sums = np.bincount(inv, weights=r)
        return (sums / np.bincount(inv))[inv]

    ra, rb = ranks(a), ranks(b)
    rho = np.corrcoef(ra, rb)[0, 1]
    sorted_a = np.sort(a)
    new = np.array([-1.0, 0.0, 0.5, 3.0])
    pct = 100.0 * np.searchsorted(sorted_a, new, side="right") / len(a)
    top = np.argsort(-a, kind="stable")[:5]
    return ra, float(rho), pct, top


def test_spearman_correlation_and_ranks():
    rng = np.random.default_rng(13)
    a = np.round(rng.normal(size=40), 1)  # ties
    check(spearman_and_ranks, a, a + rng.normal(0, 0.5, 40))


def gmm_2d(np, X):
    """A two-component 2-D Gaussian mixture by EM: densities through
    np.linalg.slogdet and solve, responsibilities, and each component's
    covariance with np.cov(aweights=responsibilities); the log-likelihood
    history; then a frequency-weighted covariance of rounded data."""
    k = 2
    mu = X[[0, -1]].copy()
    covs = np.array([np.eye(2), np.eye(2)])
    pis = np.full(k, 1 / k)
    history = []
    for _ in range(8):
        logp = np.empty((len(X), k))
        for j in range(k):
            d = X - mu[j]
            sign, logdet = np.linalg.slogdet(covs[j])
            maha = np.sum(d * np.linalg.solve(covs[j], d.T).T, axis=1)
            logp[:, j] = np.log(pis[j]) - 0.5 * (maha + logdet + 2 * np.log(2 * np.pi))
        top = logp.max(axis=1, keepdims=True)
        lse = top[:, 0] + np.log(np.exp(logp - top).sum(axis=1))
        resp = np.exp(logp - lse[:, None])
        history.append(round(float(lse.sum()), 8))
        for j in range(k):
            pis[j] = resp[:, j].mean()
            mu[j] = np.average(X, axis=0, weights=resp[:, j])
            covs[j] = np.cov(X, rowvar=False, aweights=resp[:, j], ddof=0) + 1e-6 * np.eye(2)
    values, counts = np.unique(np.round(X[:, 0]), return_counts=True)
    fcov = np.cov(values, fweights=counts)
    return mu, covs, pis, history[-3:], float(fcov), resp.argmax(axis=1)


def test_gaussian_mixture_2d_with_weighted_cov():
    rng = np.random.default_rng(14)
    X = np.concatenate([rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], 40),
                        rng.multivariate_normal([4, 3], [[0.6, -0.2], [-0.2, 0.4]], 30)])
    check(gmm_2d, X, rtol=1e-7)
