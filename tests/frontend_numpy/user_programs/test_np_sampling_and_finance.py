"""Random sampling, Monte Carlo and finance programs (simulated prices,
bootstrap, permutation tests, returns, taxes, particle deposits). Each test
writes an ordinary numpy program once, runs it with numpy and with
``lazytensor.numpy`` on the same data and compares (``np_compare.check``:
values with a dtype-fitting tolerance, dtype, shape, Python types; a third
run compiles nothing; no eager fallback but the ones a program names)."""


from __future__ import annotations

import numpy as np
import pytest
from np_compare import check


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


def distributions(np, seed):
    """Draws from a seeded Generator (normal, exponential, poisson,
    binomial, gamma, uniform, choice with p) and their sample moments
    against the theoretical ones, a Box-Muller pair from uniforms, and a
    permutation test of two samples' means."""
    rng = np.random.default_rng(seed)
    n = 400
    z = rng.normal(2.0, 3.0, n)
    e = rng.exponential(0.5, n)
    k = rng.poisson(4.0, n)
    b = rng.binomial(10, 0.3, n)
    g = rng.gamma(2.0, 1.5, n)
    u1, u2 = rng.uniform(size=(2, n))
    bm = np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * u2)
    c = rng.choice(4, size=n, p=[0.1, 0.2, 0.3, 0.4])
    moments = np.array([z.mean(), z.std(), e.mean(), k.var(), b.mean(), g.mean(), bm.std()])
    a, bb = z[:50], z[50:100] + 0.5
    obs = bb.mean() - a.mean()
    pooled = np.concatenate([a, bb])
    hits = 0
    for _ in range(30):
        p = rng.permutation(pooled)
        hits += int(p[50:].mean() - p[:50].mean() >= obs)
    return moments, np.bincount(c, minlength=4), k.dtype, k[:10], b.max(), hits / 30


def tax_and_tariffs(np, income, kwh):
    """Progressive tax brackets three ways (np.select on conditions,
    np.piecewise with lambdas, and a chain of np.where), a tiered
    electricity tariff from np.minimum/np.maximum slices, and the effective
    rates."""
    edges = [10_000, 40_000, 90_000]
    rates = [0.0, 0.2, 0.35, 0.45]
    base = [0.0, 0.0, 6_000.0, 23_500.0]
    conds = [income <= edges[0], income <= edges[1], income <= edges[2], income > edges[2]]
    lower = [0, edges[0], edges[1], edges[2]]
    pieces = [b + r * (income - lo) for b, r, lo in zip(base, rates, lower, strict=True)]
    tax_sel = np.select(conds, pieces)
    tax_pw = np.piecewise(income, [
        (income > edges[0]) & (income <= edges[1]),
        (income > edges[1]) & (income <= edges[2]),
        income > edges[2]],
        [lambda v: 0.2 * (v - 10_000), lambda v: 6_000 + 0.35 * (v - 40_000),
         lambda v: 23_500 + 0.45 * (v - 90_000), 0.0])
    tax_wh = np.where(income > 90_000, 23_500 + 0.45 * (income - 90_000),
                      np.where(income > 40_000, 6_000 + 0.35 * (income - 40_000),
                               np.where(income > 10_000, 0.2 * (income - 10_000), 0.0)))
    tiers = np.array([0, 100, 300, np.inf])
    price = np.array([0.10, 0.15, 0.25])
    used = np.clip(kwh[:, None] - tiers[None, :-1], 0, np.diff(tiers)[None, :])
    bill = used @ price
    eff = np.divide(tax_sel, income, out=np.zeros_like(income), where=income > 0)
    return tax_sel, tax_pw, tax_wh, used, bill, eff, np.argmax(eff)


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


def resampling(np, logits, values, seed):
    """Sampling with lazily computed probabilities: Generator.choice with a
    softmax p (indices and values, with and without replacement), a
    bootstrap of the mean with choice over a lazy array, a categorical draw
    by searchsorted on the cumulative p, and rng.permutation of lazy rows."""
    rng = np.random.default_rng(seed)
    p = np.exp(logits - logits.max())
    p = p / p.sum()
    idx = rng.choice(len(p), size=12, p=p)
    picks = rng.choice(values, size=5, replace=False, p=p)
    boot = np.array([rng.choice(values, size=len(values)).mean() for _ in range(20)])
    u = rng.random(8)
    cat = np.searchsorted(np.cumsum(p), u)
    perm = rng.permutation(np.stack([values, values * 2], axis=1))
    return idx, picks, boot.mean(), np.percentile(boot, [5, 95]), cat, perm


@pytest.mark.usefixtures('runtime')
def test_monte_carlo_asian_option():
    check(asian_option, 7, rtol=1e-7)


@pytest.mark.usefixtures('runtime')
def test_moving_averages_and_crossovers():
    rng = np.random.default_rng(5)
    check(moving_averages, 50 * np.exp(np.cumsum(0.02 * rng.normal(size=40))))


@pytest.mark.usefixtures('runtime')
def test_particle_deposit_with_add_at_and_bincount():
    rng = np.random.default_rng(9)
    check(particle_deposit, rng.random((300, 2)), rng.uniform(0.5, 1.5, 300), rtol=1e-9)


@pytest.mark.usefixtures('runtime')
def test_gaussian_density_on_a_meshgrid():
    check(gaussian_on_a_grid, np.array([0.5, -0.25]), np.array([[1.0, 0.3], [0.3, 0.5]]))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_bootstrap_confidence_interval():
    rng = np.random.default_rng(23)
    check(bootstrap_ci, rng.exponential(2.0, 50), 24)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_portfolio_report_with_lexsort_select_piecewise():
    rng = np.random.default_rng(34)
    prices = 100 * np.exp(np.cumsum(rng.normal(0.001, 0.02, (60, 6)), axis=0))
    check(portfolio_report, prices, np.array([2, 0, 1, 0, 2, 1]))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_generator_distributions_and_permutation_test():
    check(distributions, 125)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_tax_brackets_with_select_piecewise_and_where():
    income = np.array([0.0, 5_000, 10_000, 25_000, 40_000, 65_000, 90_000, 150_000])
    check(tax_and_tariffs, income, np.array([50.0, 100, 250, 400, 1000]))


@pytest.mark.usefixtures('own_runtime')
def test_cumprod_returns_and_drawdown():
    rng = np.random.default_rng(135)
    bench = 100 * np.exp(np.cumsum(rng.normal(0.0003, 0.01, 253)))
    steps = 0.8 * np.diff(np.log(bench), prepend=np.log(100)) + rng.normal(0, 0.005, 253)
    prices = 50 * np.exp(np.cumsum(steps))
    check(drawdown_report, prices, bench, rtol=1e-8)


@pytest.mark.usefixtures('own_runtime')
def test_sample_statistics_with_percentile_methods():
    rng = np.random.default_rng(155)
    X = rng.multivariate_normal([0, 1, 2], [[1, 0.5, 0.2], [0.5, 2, 0.3], [0.2, 0.3, 1]], 50)
    check(sample_statistics, X, rng.random(50))


@pytest.mark.usefixtures('own_runtime')
def test_generator_choice_with_a_lazy_p():
    rng = np.random.default_rng(180)
    check(resampling, rng.normal(size=8), rng.normal(size=8) * 10, 42)
