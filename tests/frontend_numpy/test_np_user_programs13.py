"""A thirteenth round of ordinary numpy programs, checked as in
test_np_user_programs9.py. This round: a classifier trained by manual
backprop, PCA two ways, ray casting with masks, edit distance by rows,
group-bys with np.unique and ufunc.at, drawdowns, polynomial detrending,
Kronecker products, NaN-aware statistics and integer calendar arithmetic."""

from __future__ import annotations

import numpy as np
import pytest
from np_compare import check

pytestmark = pytest.mark.usefixtures("own_runtime")


def softmax_classifier(np, X, y, W1, W2, perms):
    """A two-layer classifier trained from scratch: tanh hidden layer,
    softmax cross-entropy, manual backprop, SGD with momentum over
    mini-batches drawn by a given permutation per epoch."""
    k = W2.shape[1]
    vel1, vel2 = np.zeros_like(W1), np.zeros_like(W2)
    losses = []
    for perm in perms:
        for start in range(0, len(X), 32):
            idx = perm[start:start + 32]
            xb, yb = X[idx], y[idx]
            h = np.tanh(xb @ W1)
            logits = h @ W2
            logits = logits - logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            onehot = np.eye(k)[yb]
            loss = -np.mean(np.sum(onehot * np.log(p + 1e-12), axis=1))
            d_logits = (p - onehot) / len(xb)
            gW2 = h.T @ d_logits
            gW1 = xb.T @ ((d_logits @ W2.T) * (1 - h ** 2))
            vel1 = 0.9 * vel1 - 0.5 * gW1
            vel2 = 0.9 * vel2 - 0.5 * gW2
            W1 = W1 + vel1
            W2 = W2 + vel2
        losses.append(float(loss))
    pred = np.argmax(np.tanh(X @ W1) @ W2, axis=1)
    return W1, W2, losses, (pred == y).mean(), np.bincount(pred, minlength=k)


@pytest.mark.slow  # three epoch graphs of ~250 nodes: ~4 s of XLA compile on one core
def test_softmax_classifier_with_momentum_and_minibatches():
    rng = np.random.default_rng(131)
    centres = rng.normal(scale=3, size=(3, 4))
    y = rng.integers(0, 3, 64)
    X = centres[y] + rng.normal(size=(64, 4))
    perms = [rng.permutation(64) for _ in range(3)]
    W1, W2 = 0.3 * rng.normal(size=(4, 8)), 0.3 * rng.normal(size=(8, 3))
    check(softmax_classifier, X, y, W1, W2, perms,
          rtol=1e-7)


def pca_two_ways(np, X):
    """PCA by np.linalg.svd of the centred data and by np.linalg.eigh of the
    covariance; sign-free comparisons: explained variance ratios, the
    absolute cosine between the two first axes, and reconstructions."""
    Xc = X - X.mean(axis=0)
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    var_svd = s ** 2 / (len(X) - 1)
    evals, evecs = np.linalg.eigh(np.cov(Xc, rowvar=False))
    evals, evecs = evals[::-1], evecs[:, ::-1]
    ratio = evals / evals.sum()
    cos = np.abs(Vt[0] @ evecs[:, 0])
    k = int(np.searchsorted(np.cumsum(ratio), 0.9)) + 1
    Z = Xc @ Vt[:k].T
    recon = Z @ Vt[:k] + X.mean(axis=0)
    err = np.linalg.norm(X - recon, axis=1)
    return var_svd, evals, ratio, cos, k, recon, err, np.abs(Z).max(axis=0)


def test_pca_by_svd_and_eigh():
    rng = np.random.default_rng(132)
    base = rng.normal(size=(50, 2)) @ rng.normal(size=(2, 5))
    check(pca_two_ways, base + 0.05 * rng.normal(size=(50, 5)), rtol=1e-7)


def ray_spheres(np, origins, dirs, centres, radii):
    """Ray-sphere intersection for every ray and sphere by broadcasting with
    np.newaxis: the discriminant as a mask, the nearest positive hit with
    np.where and np.inf, the hit sphere's id, normals and Lambert shading."""
    dirs = dirs / np.linalg.norm(dirs, axis=-1, keepdims=True)
    oc = origins[:, np.newaxis, :] - centres[np.newaxis, :, :]
    b = np.sum(oc * dirs[:, np.newaxis, :], axis=-1)
    c = np.sum(oc * oc, axis=-1) - radii ** 2
    disc = b * b - c
    hit = disc > 0
    sq = np.sqrt(np.where(hit, disc, 0.0))
    t0, t1 = -b - sq, -b + sq
    t = np.where(t0 > 1e-6, t0, t1)
    t = np.where(hit & (t > 1e-6), t, np.inf)
    nearest = t.argmin(axis=1)
    tmin = t[np.arange(len(t)), nearest]
    any_hit = np.isfinite(tmin)
    points = origins + dirs * np.where(any_hit, tmin, 0)[:, None]
    normals = (points - centres[nearest]) / radii[nearest][:, None]
    light = np.array([0.3, 0.9, -0.3])
    shade = np.where(any_hit, np.clip(normals @ (light / np.linalg.norm(light)), 0, 1), 0.0)
    return np.where(any_hit, nearest, -1), tmin, shade, hit.sum(axis=0), any_hit.mean()


def test_ray_sphere_intersection_with_masks():
    rng = np.random.default_rng(133)
    n = 200
    dirs = np.stack([rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n), np.ones(n)], axis=1)
    check(ray_spheres, np.zeros((n, 3)), dirs, rng.uniform([-2, -2, 4], [2, 2, 8], (5, 3)),
          rng.uniform(0.5, 1.5, 5))


def edit_distances(np, a, b):
    """Levenshtein distance by dynamic programming, one vectorised row at a
    time: substitutions and deletions from the previous row, insertions by
    np.minimum.accumulate of (row - j) + j; then the distance of every
    prefix pair and a normalised similarity."""
    prev = np.arange(len(b) + 1)
    j = np.arange(len(b) + 1)
    rows = [prev]
    for ch in a:
        cost = (b != ch).astype(prev.dtype)
        cur = np.empty_like(prev)
        cur[0] = prev[0] + 1
        cur[1:] = np.minimum(prev[1:] + 1, prev[:-1] + cost)
        cur = np.minimum.accumulate(cur - j) + j
        rows.append(cur)
        prev = cur
    table = np.stack(rows)
    dist = int(table[-1, -1])
    return table, dist, 1 - dist / max(len(a), len(b)), table.diagonal().copy()


def test_edit_distance_with_vectorised_rows():
    a = np.frombuffer(b"intention-execution", dtype=np.uint8)
    b = np.frombuffer(b"execution-intentions", dtype=np.uint8)
    check(edit_distances, a.copy(), b.copy())


def sales_group_by(np, store, product, qty, price):
    """Group-bys on int32 keys: np.unique with return_inverse and
    return_counts, totals by np.add.at, the largest sale per group by
    np.maximum.at, the smallest by np.minimum.at, a pivot table by a
    combined key, and each store's best product."""
    keys, inv, counts = np.unique(store, return_inverse=True, return_counts=True)
    revenue = qty * price
    total = np.zeros(len(keys))
    np.add.at(total, inv, revenue)
    biggest = np.full(len(keys), -np.inf)
    np.maximum.at(biggest, inv, revenue)
    fewest = np.full(len(keys), np.iinfo(np.int32).max, dtype=np.int32)
    np.minimum.at(fewest, inv, qty)
    n_prod = int(product.max()) + 1
    pivot = np.zeros((len(keys), n_prod))
    np.add.at(pivot, (inv, product), revenue)
    combo, combo_counts = np.unique(inv * n_prod + product, return_counts=True)
    best = pivot.argmax(axis=1)
    share = pivot / pivot.sum(axis=1, keepdims=True)
    return (keys, counts, total, total / counts, biggest, fewest, pivot, combo, combo_counts,
            best, share)


def test_group_by_with_unique_and_ufunc_at():
    rng = np.random.default_rng(134)
    n = 300
    store = rng.choice(np.array([3, 7, 11, 42], dtype=np.int32), n)
    product = rng.integers(0, 5, n).astype(np.int32)
    qty = rng.integers(1, 20, n).astype(np.int32)
    check(sales_group_by, store, product, qty, rng.uniform(1, 9, n).round(2))


def drawdown_report(np, prices, bench):
    """Simple and log returns, wealth by np.cumprod, running peaks by
    np.maximum.accumulate, the maximum drawdown and where it starts and
    ends, rolling volatility by cumulative sums, beta by np.cov, and
    monthly returns by reshape."""
    r = np.diff(prices) / prices[:-1]
    lr = np.diff(np.log(prices))
    wealth = np.cumprod(1 + r)
    peak = np.maximum.accumulate(wealth)
    dd = wealth / peak - 1
    trough = int(np.argmin(dd))
    start = int(np.argmax(wealth[:trough + 1]))
    w = 20
    c1 = np.concatenate([[0.0], np.cumsum(r)])
    c2 = np.concatenate([[0.0], np.cumsum(r * r)])
    m = (c1[w:] - c1[:-w]) / w
    vol = np.sqrt(np.maximum((c2[w:] - c2[:-w]) / w - m * m, 0) * 252)
    rb = np.diff(bench) / bench[:-1]
    cov = np.cov(r, rb)
    beta = cov[0, 1] / cov[1, 1]
    monthly = np.prod(1 + r[: len(r) // 21 * 21].reshape(-1, 21), axis=1) - 1
    sharpe = r.mean() / r.std(ddof=1) * np.sqrt(252)
    return (wealth, dd, dd[trough], (start, trough), vol, beta, monthly, sharpe, lr.sum(),
            np.exp(lr.sum()))


def test_cumprod_returns_and_drawdown():
    rng = np.random.default_rng(135)
    bench = 100 * np.exp(np.cumsum(rng.normal(0.0003, 0.01, 253)))
    steps = 0.8 * np.diff(np.log(bench), prepend=np.log(100)) + rng.normal(0, 0.005, 253)
    prices = 50 * np.exp(np.cumsum(steps))
    check(drawdown_report, prices, bench, rtol=1e-8)


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


@pytest.mark.slow  # three graphs with SVDs: ~4 s of XLA compile on one core
def test_polyfit_detrend_convolve_and_autocorrelation():
    rng = np.random.default_rng(136)
    t = np.arange(120.0)
    x = 0.05 * t + 2 + np.sin(2 * np.pi * t / 17) + 0.2 * rng.normal(size=120)
    check(detrend_and_smooth, t, x, rtol=1e-7)


def quantum_circuit(np, theta):
    """A three-qubit state vector simulator: gates expanded to the full space
    by np.kron, a CNOT from np.eye rows, measurement probabilities, partial
    traces by reshape and np.tensordot, and the expectation of Z on each
    qubit by np.outer weights."""
    I = np.eye(2)
    H = np.array([[1, 1], [1, -1]]) / np.sqrt(2)
    Z = np.diag([1.0, -1.0])
    ry = np.array([[np.cos(theta / 2), -np.sin(theta / 2)], [np.sin(theta / 2), np.cos(theta / 2)]])
    cnot = np.eye(4)[[0, 1, 3, 2]]
    state = np.zeros(8)
    state[0] = 1
    state = np.kron(np.kron(H, I), ry) @ state
    state = np.kron(cnot, I) @ state
    state = np.kron(I, cnot) @ state
    probs = state ** 2
    psi = state.reshape(2, 2, 2)
    rho01 = np.tensordot(psi, psi, axes=([2], [2])).reshape(4, 4)
    ez = [float(np.kron(np.kron(*ops[:2]), ops[2]) @ state @ state)
          for ops in ([Z, I, I], [I, Z, I], [I, I, Z])]
    w = np.outer([1, -1], [1, -1]).ravel()
    corr = (probs.reshape(4, 2).sum(axis=1) * w).sum()
    return state, probs, rho01, np.trace(rho01), ez, corr, np.linalg.eigvalsh(rho01)


def test_quantum_circuit_with_kron_and_tensordot():
    check(quantum_circuit, np.float64(0.7), rtol=1e-9)
    check(quantum_circuit, 1.3, rtol=1e-9)


def weather_station(np, temps, hum):
    """A station table with NaN gaps: per-day nanmean/nanstd/nanmedian,
    nanargmax of the hottest hour, gap counts, nancumsum degree-hours,
    gaps filled by np.interp over the valid samples, and np.nan_to_num."""
    days = temps.reshape(-1, 24)
    mean = np.nanmean(days, axis=1)
    spread = np.nanmax(days, axis=1) - np.nanmin(days, axis=1)
    hottest = np.nanargmax(days, axis=1)
    gaps = np.isnan(days).sum(axis=1)
    deg_hours = np.nancumsum(np.clip(temps - 18, 0, None))
    ok = ~np.isnan(temps)
    idx = np.arange(len(temps))
    filled = np.interp(idx, idx[ok], temps[ok])
    dew = filled - (100 - np.nan_to_num(hum, nan=np.nanmean(hum))) / 5
    return (mean, np.nanstd(days, axis=1), np.nanmedian(days, axis=1), spread, hottest, gaps,
            deg_hours, filled, dew, np.nanpercentile(temps, [5, 95]), np.nansum(hum) / ok.sum())


@pytest.mark.slow  # one ~450-node graph of nan-reductions: ~3.5 s of XLA compile on one core
def test_nan_aware_station_statistics():
    rng = np.random.default_rng(137)
    hours = np.arange(96)
    temps = 15 + 8 * np.sin(2 * np.pi * (hours - 9) / 24) + rng.normal(size=96)
    temps[rng.choice(96, 10, replace=False)] = np.nan
    hum = rng.uniform(40, 90, 96)
    hum[rng.choice(96, 6, replace=False)] = np.nan
    check(weather_station, temps, hum)


def polyfit_covariances(np, x, y, Y, w):
    """np.polyfit's cov=True and cov="unscaled", with weights and a 2-d y."""
    return np.polyfit(x, y, 2, cov=True), np.polyfit(x, Y, 1, w=w, cov="unscaled")

def test_polyfit_covariance_records_lazily():
    rng = np.random.default_rng(138)
    check(polyfit_covariances, rng.normal(size=12), rng.normal(size=12), rng.normal(size=(12, 3)),
          rng.uniform(1, 2, 12), rtol=1e-8)
    import lazytensor.numpy as lnp
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="number of data points must exceed order"):
            mod.polyfit(mod.arange(3.0), mod.arange(3.0), 2, cov=True)


def calendar_arithmetic(np, stamps, offsets):
    """Integer calendar arithmetic on int32 seconds (negative ones before the
    epoch): days and seconds of day by np.floor_divide/np.mod and divmod,
    hours/minutes, weekdays, offsets clipped to a day, rounding to the
    quarter hour, and a histogram of hours by np.bincount."""
    day, sec = np.floor_divide(stamps, 86400), np.mod(stamps, 86400)
    d2, s2 = divmod(stamps, 86400)
    hours, rest = divmod(sec, 3600)
    minutes = rest // 60
    weekday = (day + 3) % 7
    shifted = stamps + np.clip(offsets, -43200, 43200)
    quarter = np.round(stamps / 900).astype(np.int32) * 900
    trunc = (stamps // 900) * 900
    ceil = -(-stamps // 900) * 900
    per_hour = np.bincount(hours, minlength=24)
    late = np.count_nonzero((hours >= 22) | (hours < 6))
    frac = np.float32(1 / 24) * hours
    return (day, sec, d2, s2, hours, minutes, weekday, shifted, quarter, trunc, ceil, per_hour,
            late,
            frac, np.fmod(stamps, 86400), np.remainder(-stamps, 7), np.abs(stamps) % np.int32(60))


def test_int32_calendar_arithmetic_with_negative_stamps():
    rng = np.random.default_rng(139)
    stamps = rng.integers(-5 * 86400, 20 * 86400, 200).astype(np.int32)
    check(calendar_arithmetic, stamps, rng.integers(-90000, 90000, 200).astype(np.int32))


def rank_transforms(np, X):
    """Rank transforms: average-free ranks by a double np.argsort, ranks by
    scattering np.arange through the sort order, quantile normalisation of
    columns to the mean sorted column, np.partition top-k thresholds, a
    winsorised copy by np.clip at partitioned quantiles, and an argpartition
    pick of the k largest rows."""
    n, m = X.shape
    ranks = X.argsort(axis=0).argsort(axis=0)
    order = np.argsort(X[:, 0], kind="stable")
    r2 = np.empty(n, dtype=np.intp)
    r2[order] = np.arange(n)
    target = np.sort(X, axis=0).mean(axis=1)
    qnorm = target[ranks]
    k = 5
    kth = np.partition(X, n - k, axis=0)[n - k]
    top = X >= kth
    lo, hi = np.partition(X.ravel(), [n, n * m - n - 1])[[n, n * m - n - 1]]
    wins = np.clip(X, lo, hi)
    score = X.sum(axis=1)
    best = np.argpartition(-score, k)[:k]
    return ranks, r2, qnorm, kth, top.sum(axis=0), wins, np.sort(best), np.sort(score[best])


def test_rank_transforms_and_partition():
    rng = np.random.default_rng(140)
    check(rank_transforms, rng.normal(size=(40, 4)))


def python_protocols(np, a, b):
    """Code that leans on Python: len, iteration over rows, .T, reshape(-1),
    .ravel(), .flat, .item(), float() and int(), np.float32 scalars mixed
    with float64 and int32 arrays, and a dict keyed by row maxima."""
    out = []
    for i, row in enumerate(a):
        out.append(float(row @ b[:, i % b.shape[1]]))
    table = {}
    for row in a.T:
        table[int(row.argmax())] = row.max().item()
    s = np.float32(0.5)
    mixed = a.astype(np.float32) * s + 1
    ints = np.arange(len(a), dtype=np.int32)
    promo = [(ints * s).dtype.name, (ints + 2.5).dtype.name, (ints * 2).dtype.name,
             (a.astype(np.float32) + ints[:, None]).dtype.name]
    flat = a.reshape(-1)
    first = [x for x in a.flat][:5]
    return (out, table, mixed, promo, flat[::3], a.ravel()[-4:], first, a.T.shape, len(a.T),
            a[1, 2].item(), float(a.sum()), int(ints.sum()), ints[-1] * s)


def test_python_protocols_and_scalar_promotion():
    rng = np.random.default_rng(141)
    check(python_protocols, rng.normal(size=(6, 5)), rng.normal(size=(5, 3)))
