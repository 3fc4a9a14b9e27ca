"""A twelfth round of ordinary numpy programs, checked as in
test_np_user_programs9.py. This round: graphs on adjacency matrices,
rolling statistics, convolution by sliding windows and einsum, tabular
statistics, random distributions, np.errstate numerics, np.select and
np.piecewise, and code that mixes dtypes."""

from __future__ import annotations

import numpy as np
import pytest
from np_compare import check

pytestmark = [pytest.mark.usefixtures("own_runtime"),
              pytest.mark.filterwarnings("ignore::lazytensor.numpy.LazyFallbackWarning")]


def graph_algorithms(np, adj, weights):
    """PageRank by power iteration with dangling nodes, breadth-first
    distances with boolean frontier masks, and all-pairs shortest paths by
    Floyd-Warshall with np.minimum broadcasting of a row and a column."""
    n = adj.shape[0]
    out_deg = adj.sum(axis=1)
    P = np.where(out_deg[:, None] > 0, adj / np.maximum(out_deg, 1)[:, None], 1.0 / n)
    r = np.full(n, 1.0 / n)
    for it in range(100):  # noqa: B007  (returned)
        r_new = 0.15 / n + 0.85 * (r @ P)
        if np.abs(r_new - r).sum() < 1e-12:
            break
        r = r_new
    dist = np.full(n, -1)
    dist[0] = 0
    frontier = np.zeros(n, dtype=bool)
    frontier[0] = True
    level = 0
    while frontier.any():
        level += 1
        reach = (adj[frontier].sum(axis=0) > 0) & (dist < 0)
        dist[reach] = level
        frontier = reach
    D = np.where(adj > 0, weights, np.inf)
    np.fill_diagonal(D, 0)
    for k in range(n):
        D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])
    return r_new, it, np.argsort(-r_new, kind="stable"), dist, D


def test_pagerank_bfs_and_floyd_warshall():
    rng = np.random.default_rng(121)
    n = 9
    adj = (rng.random((n, n)) < 0.3).astype(float)
    np.fill_diagonal(adj, 0)
    adj[4] = 0  # a dangling node
    check(graph_algorithms, adj, rng.uniform(1, 5, (n, n)), rtol=1e-9)


def rolling_outliers(np, x):
    """Rolling median and median absolute deviation over sliding windows,
    a robust z-score flagging outliers, rolling min/max/std, and the
    flagged points replaced by the rolling median with np.where."""
    w = 7
    win = np.lib.stride_tricks.sliding_window_view(x, w)
    med = np.median(win, axis=1)
    mad = np.median(np.abs(win - med[:, None]), axis=1)
    centre = x[w // 2:len(x) - w // 2]
    z = 0.6745 * (centre - med) / np.where(mad > 0, mad, 1)
    flagged = np.flatnonzero(np.abs(z) > 3.5) + w // 2
    cleaned = x.copy()
    cleaned[flagged] = med[flagged - w // 2]
    lo, hi, sd = win.min(axis=1), win.max(axis=1), win.std(axis=1, ddof=1)
    return med, mad, flagged, cleaned, hi - lo, sd, np.percentile(win, 90, axis=1)


def test_rolling_median_outlier_cleaning():
    rng = np.random.default_rng(122)
    x = np.sin(np.linspace(0, 6, 80)) + 0.1 * rng.normal(size=80)
    x[[10, 33, 60]] += [3.0, -4.0, 5.0]
    check(rolling_outliers, x)


def conv_layer(np, img, kernels):
    """A convolution layer by hand: sliding_window_view patches of an image
    batch contracted with a kernel bank by np.einsum, a bias, ReLU, 2x2 max
    pooling by reshape, and a per-channel normalization."""
    k = kernels.shape[-1]
    patches = np.lib.stride_tricks.sliding_window_view(img, (k, k), axis=(1, 2))
    bias = np.linspace(-0.1, 0.1, len(kernels))[:, None, None]
    out = np.einsum("bhwij,cij->bchw", patches, kernels) + bias
    out = np.maximum(out, 0)
    b, c, h, w = out.shape
    cropped = out[:, :, :h // 2 * 2, :w // 2 * 2]
    pooled = cropped.reshape(b, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    mean = pooled.mean(axis=(0, 2, 3), keepdims=True)
    std = pooled.std(axis=(0, 2, 3), keepdims=True)
    normed = (pooled - mean) / (std + 1e-5)
    active = np.count_nonzero(out, axis=(0, 2, 3))
    return out, pooled, normed, active


def test_conv_layer_with_sliding_windows_and_einsum():
    rng = np.random.default_rng(123)
    check(conv_layer, rng.normal(size=(2, 11, 12)), rng.normal(size=(4, 3, 3)), rtol=1e-9)


def grade_report(np, scores, classes, ids):
    """A class report: per-student trimmed means with np.apply_along_axis,
    percentiles and quantiles, per-class medians, a ranking by class then
    score with np.lexsort, letter grades from np.digitize, and correlations
    of the tests with np.corrcoef."""
    def trimmed(row):
        s = np.sort(row)
        return s[1:-1].mean()

    tmean = np.apply_along_axis(trimmed, 1, scores)
    p = np.percentile(scores, [10, 50, 90], axis=0)
    q = np.quantile(tmean, [0.25, 0.75], method="midpoint")
    per_class = np.array([np.median(tmean[classes == c]) for c in range(3)])
    order = np.lexsort((-tmean, classes))
    letters = np.array(list("FDCBA"))[np.digitize(tmean, [60, 70, 80, 90])]
    corr = np.corrcoef(scores, rowvar=False)
    best = ids[order][np.r_[True, classes[order][1:] != classes[order][:-1]]]
    return tmean, p, q, per_class, order, letters, corr, best


def test_grade_report_with_apply_along_axis_and_lexsort():
    rng = np.random.default_rng(124)
    n = 20
    scores = np.clip(rng.normal(75, 12, (n, 5)), 0, 100).round(1)
    # np.r_[True, lazy] fell back (counted) until r_ concatenated lazily;
    # an array of letters is numpy's alone
    check(grade_report, scores, rng.integers(0, 3, n), np.arange(100, 100 + n),
          fallbacks={"numpy.array (dtype <U1)"})


@pytest.mark.parametrize("build", [
    lambda np, x, b, M: np.r_[True, b, False],
    lambda np, x, b, M: np.r_[0:3, x, 7],
    lambda np, x, b, M: np.r_[np.int32(2), x.astype(np.int32), 1],
    lambda np, x, b, M: np.r_[x[0], x, -1:1:3j],
    lambda np, x, b, M: np.c_[x, np.ones(3), [1, 2, 3]],
    lambda np, x, b, M: np.c_[M.T, x],
    lambda np, x, b, M: np.c_["0", x, x],
    lambda np, x, b, M: np.r_["1", M, M],
    lambda np, x, b, M: np.r_["0,2,0", x, x],
    lambda np, x, b, M: np.r_["-1,3,-2", M, M],
    lambda np, x, b, M: np.r_[M, x[None]]])
def test_r_and_c_record_lazily(build):
    """np.r_/np.c_ with lazy items: numpy's directives, ndmin and trans1d
    rules and weak Python scalars, recorded with no fallback."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    x, M = np.array([1.0, 2.0, 3.0]), np.arange(6.0).reshape(2, 3)
    want = build(np, x, x > 1.5, M)
    fallbacks = get_runtime().metrics.counters["eager_fallbacks"]
    got = build(lnp, lnp.asarray(x), lnp.asarray(x > 1.5), lnp.asarray(M))
    assert get_runtime().metrics.counters["eager_fallbacks"] == fallbacks
    assert isinstance(got, lnp.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("build", [
    lambda np, x: np.r_["a", x], lambda np, x: np.r_[x, "0"], lambda np, x: np.r_["0,", x],
    lambda np, x: np.r_["5", x], lambda np, x: np.r_["0,3,1", x, x.reshape(1, 3)]])
def test_r_errors_are_numpys(build):
    import lazytensor.numpy as lnp

    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(Exception) as want:
        build(np, x)
    with pytest.raises(want.type, match=str(want.value)):
        build(lnp, lnp.asarray(x))


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


def test_generator_distributions_and_permutation_test():
    check(distributions, 125)


def careful_numerics(np, x):
    """Numerics under np.errstate: log of zeros and 0/0 silenced and then
    cleaned with np.nan_to_num and np.isfinite masks, a log-sum-exp that
    stays finite, expm1/log1p for tiny values, and np.isclose/np.allclose
    comparisons with both tolerances."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(x)
        ratio = x / x
        inv = 1.0 / x
    clean = np.nan_to_num(logs, neginf=-50.0)
    finite = np.isfinite(ratio)
    m = np.max(x)
    lse = m + np.log(np.sum(np.exp(x - m)))
    tiny = np.array([1e-12, 1e-8, 1e-4])
    accurate = np.expm1(tiny) - tiny
    roundtrip = np.log1p(np.expm1(tiny))
    close = np.isclose(roundtrip, tiny, rtol=1e-12, atol=0)
    naive = np.log(np.sum(np.exp(x * 200)))
    with np.errstate(over="ignore"):
        overflow = np.exp(x * 800)
    return (clean, finite, inv, float(lse), accurate, close, bool(np.allclose(roundtrip, tiny)),
            float(naive), np.isinf(overflow))


def test_errstate_nan_to_num_and_isclose():
    check(careful_numerics, np.array([0.0, 0.5, 1.0, 2.0, 0.0, 3.5]))


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


def test_tax_brackets_with_select_piecewise_and_where():
    income = np.array([0.0, 5_000, 10_000, 25_000, 40_000, 65_000, 90_000, 150_000])
    check(tax_and_tariffs, income, np.array([50.0, 100, 250, 400, 1000]))


def quantize_weights(np, w, z):
    """Mixed dtypes as in model quantization: float32 weights scaled to int8
    per row with np.float32 scalars, dequantized, the error; int16
    accumulation of int8 products, bool masks summed as ints, complex
    phasors made from float32 angles, and astype round trips."""
    scale = np.abs(w).max(axis=1, keepdims=True) / np.float32(127)
    q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    deq = q.astype(np.float32) * scale
    err = np.abs(deq - w).max()
    acc = (q.astype(np.int16) * q[::-1].astype(np.int16)).sum(axis=1, dtype=np.int32)
    nz = (q != 0).sum(axis=1)
    frac = nz / q.shape[1]
    ang = w[0] * np.float32(np.pi)
    ph = np.exp(1j * ang)
    mixed = ph * z.astype(np.complex64) + np.float32(0.5)
    half = w.astype(np.float16).astype(np.float32) - w
    u = q.astype(np.uint8) >> 4
    return q, deq, err, acc, nz, frac, ph, mixed, half, u, (q > 0).mean(), np.float32(2) * q[0]


def test_int8_quantization_and_mixed_dtypes():
    rng = np.random.default_rng(126)
    check(quantize_weights, rng.normal(size=(4, 10)).astype(np.float32),
          rng.integers(-3, 4, 10), rtol=1e-6)


def sinkhorn_transport(np, a, b, x, y):
    """Entropy-regularized optimal transport by Sinkhorn iterations: a cost
    matrix from np.subtract.outer, the kernel, alternating scalings until
    the marginals match, the plan's cost, and a projected-gradient solve of
    simplex-constrained least squares with the sort-based projection."""
    C = np.subtract.outer(x, y) ** 2
    K = np.exp(-C / 0.05)
    u = np.ones_like(a)
    for it in range(500):  # noqa: B007  (returned)
        v = b / (K.T @ u)
        u_new = a / (K @ v)
        if np.max(np.abs(u_new - u)) < 1e-10:
            break
        u = u_new
    plan = u_new[:, None] * K * v[None, :]
    cost = np.sum(plan * C)

    def project(p):
        s = np.sort(p)[::-1]
        css = np.cumsum(s) - 1
        rho = np.nonzero(s - css / np.arange(1, len(p) + 1) > 0)[0][-1]
        return np.maximum(p - css[rho] / (rho + 1), 0)

    M = K[:, :len(a)]
    w = np.full(len(a), 1 / len(a))
    for _ in range(50):
        w = project(w - 0.5 * M.T @ (M @ w - a))
    return plan, float(cost), it, plan.sum(axis=1), w, float(w.sum())


def test_sinkhorn_and_simplex_projection():
    rng = np.random.default_rng(127)
    a = rng.random(7)
    b = rng.random(9)
    check(sinkhorn_transport, a / a.sum(), b / b.sum(),
          np.sort(rng.random(7)), np.sort(rng.random(9)), rtol=1e-7)


def test_piecewise_leaves_no_reference_cycle():
    """np.piecewise's pointwise check walked the graph with a recursive inner
    function, a reference cycle holding the argument's node: until the next
    gc its buffer could not be donated, so the same program's graph was
    planned with other donations and compiled again (tax_and_tariffs' third
    run missed the cache under pytest)."""
    import gc

    import lazytensor.numpy as lnp

    host = np.arange(5.0)
    x = lnp.asarray(host)
    funcs = [lambda v: v * 2, lambda v: v + 1]
    gc.collect()
    gc.disable()
    try:
        y = lnp.piecewise(x, [x < 2, x >= 2], funcs)
        assert gc.collect() == 0
    finally:
        gc.enable()
    np.testing.assert_array_equal(np.asarray(y), np.piecewise(host, [host < 2, host >= 2], funcs))


@pytest.mark.parametrize("write", [
    lambda np, a, b: a.__setitem__(slice(2, 6), a[2:6]),
    lambda np, a, b: a.__setitem__((1, slice(1, -1)), a[1, 1:-1]),
    lambda np, a, b: a.__setitem__(slice(2, 6), a[1:5]),
    lambda np, a, b: a.__setitem__(slice(None, None, 2), a[::2] * 2),
    lambda np, a, b: a.__setitem__(slice(2, 6), b[2:6]),
    lambda np, a, b: a[1:3].__setitem__(slice(None), a[1:3])])
def test_writing_a_view_back_where_it_reads(write):
    """``a[i:j] = a[i:j]`` changes nothing: Python's augmented assignment
    ``a[i:j] += v`` does it after the in-place add wrote through the view,
    which now records one update, not two; other sources still write."""
    import lazytensor.numpy as lnp

    host = np.arange(48.0).reshape(6, 8)
    a, b = host.copy(), host[::-1].copy()
    write(np, a, b)
    la, lb = lnp.asarray(host), lnp.asarray(host[::-1].copy())
    write(lnp, la, lb)
    np.testing.assert_array_equal(np.asarray(la), a)


def test_augmented_slice_assignment_records_one_update():
    import lazytensor.numpy as lnp
    from lazytensor.core.ir import toposort
    from lazytensor.core.ops import Op

    out, v = lnp.zeros(40), lnp.asarray(np.arange(8.0))
    for i in range(0, 32, 4):
        out[i:i + 8] += v
    ops = [n.op for n in toposort([out._h.node])]
    assert ops.count(Op.DYNAMIC_UPDATE_SLICE) == 8
    want = np.zeros(40)
    for i in range(0, 32, 4):
        want[i:i + 8] += np.arange(8.0)
    np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("shape", [(4, 5, 6), (1, 5, 1), (3, 1, 4), (0, 3, 2)])
def test_strides_of_basic_views_are_numpys(shape):
    """The strides of every view of a C-contiguous array by up to three of
    these index items (a shortcut now answers the contiguous ones)."""
    import itertools

    import lazytensor.numpy as lnp

    items = [0, -1, slice(None), slice(1, 3), slice(None, None, 2), slice(2, 0, -1),
             slice(1, 2), None, Ellipsis]
    host = np.zeros(shape)
    lazy = lnp.asarray(host)
    for k in (1, 2, 3):
        for index in itertools.product(items, repeat=k):
            try:
                want = host[index]
            except IndexError:
                continue
            got = lazy[index]
            assert got.strides == want.strides or (
                want.flags.c_contiguous and got.flags.c_contiguous), index
