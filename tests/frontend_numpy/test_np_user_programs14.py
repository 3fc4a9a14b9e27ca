"""A fourteenth round of ordinary numpy programs, checked as in
test_np_user_programs9.py. This round: hidden Markov models in log space,
connected components by label propagation, image rotation by bilinear
sampling, an Ising model on a checkerboard, k-fold ridge regression with
np.array_split, random-walk first passages, quantile binning, a bit-packed
cellular automaton, and loops whose Python scalars change every step."""

from __future__ import annotations

import math

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core.runtime import get_runtime
from np_compare import check

pytestmark = pytest.mark.usefixtures("own_runtime")


def hmm_viterbi(np, log_A, log_B, log_pi, obs):
    """A hidden Markov model in log space: the forward algorithm with
    np.logaddexp.reduce over the previous state, the sequence likelihood,
    Viterbi decoding with a back-pointer table and a backtrack loop, and
    posterior state probabilities by forward-backward."""
    T, S = len(obs), len(log_pi)
    alpha = np.empty((T, S))
    alpha[0] = log_pi + log_B[:, obs[0]]
    delta = alpha[0].copy()
    back = np.zeros((T, S), dtype=np.int64)
    for t in range(1, T):
        alpha[t] = np.logaddexp.reduce(alpha[t - 1][:, None] + log_A, axis=0) + log_B[:, obs[t]]
        cand = delta[:, None] + log_A
        back[t] = cand.argmax(axis=0)
        delta = cand.max(axis=0) + log_B[:, obs[t]]
    beta = np.zeros((T, S))
    for t in range(T - 2, -1, -1):
        beta[t] = np.logaddexp.reduce(log_A + log_B[:, obs[t + 1]] + beta[t + 1], axis=1)
    loglik = np.logaddexp.reduce(alpha[-1])
    post = np.exp(alpha + beta - loglik)
    path = [int(delta.argmax())]
    for t in range(T - 1, 0, -1):
        path.append(int(back[t, path[-1]]))
    return loglik, post, path[::-1], float(delta.max()), post.argmax(axis=1)


@pytest.mark.slow  # an unrolled forward-backward graph: ~3 s of XLA compile on one core
def test_hmm_forward_backward_and_viterbi():
    rng = np.random.default_rng(141)
    A = rng.dirichlet(np.ones(3) * 2, size=3) + np.eye(3)
    A /= A.sum(axis=1, keepdims=True)
    B = rng.dirichlet(np.ones(4), size=3)
    check(hmm_viterbi, np.log(A), np.log(B), np.log(np.array([0.5, 0.3, 0.2])),
          rng.integers(0, 4, 8), rtol=1e-9)


def connected_components(np, img):
    """Connected components of a binary image by label propagation: every
    foreground pixel starts with its own label and takes the minimum of its
    4-neighbours (np.pad with a large value) until nothing changes; then
    labels are made consecutive with np.unique and sizes counted."""
    big = img.size + 1
    labels = np.where(img, np.arange(img.size).reshape(img.shape), big)
    steps = 0
    while True:
        p = np.pad(labels, 1, constant_values=big)
        nb = np.minimum.reduce([p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:], labels])
        new = np.where(img, nb, big)
        steps += 1
        if np.array_equal(new, labels):
            break
        labels = new
    uniq, comp = np.unique(labels, return_inverse=True)
    comp = np.where(img, comp + 1, 0)
    sizes = np.bincount(comp.ravel())[1:]
    return comp, sizes, steps, int(sizes.argmax()) + 1, len(uniq) - (~img).any()


def test_connected_components_by_label_propagation():
    rng = np.random.default_rng(142)
    check(connected_components, rng.random((12, 14)) < 0.45)


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


def test_image_rotation_by_bilinear_sampling():
    yy, xx = np.mgrid[0:20, 0:24]
    img = np.exp(-((yy - 6.0) ** 2 + (xx - 15.0) ** 2) / 8) + (xx > 20)
    check(rotate_bilinear, img, 0.4)
    check(rotate_bilinear, img, np.float64(-1.1))


def ising_checkerboard(np, spins, uniforms, temps):
    """A 2-d Ising model by Metropolis sweeps on checkerboard colours: the
    neighbour sum by np.roll, the energy change, acceptance against given
    uniforms with a temperature that changes every sweep (a Python float),
    and the magnetisation and energy per sweep."""
    h, w = spins.shape
    ii, jj = np.indices((h, w))
    colours = [(ii + jj) % 2 == 0, (ii + jj) % 2 == 1]
    mags, energies = [], []
    for k, T in enumerate(temps):
        for c, mask in enumerate(colours):
            nb = (np.roll(spins, 1, 0) + np.roll(spins, -1, 0) + np.roll(spins, 1, 1)
                  + np.roll(spins, -1, 1))
            dE = 2 * spins * nb
            flip = mask & ((dE <= 0) | (uniforms[k, c] < np.exp(-dE / T)))
            spins = np.where(flip, -spins, spins)
        mags.append(spins.mean())
        energies.append(-(spins * (np.roll(spins, 1, 0) + np.roll(spins, 1, 1))).sum())
    return spins, np.array(mags), np.array(energies), np.abs(spins.sum())


def test_ising_model_with_checkerboard_sweeps():
    rng = np.random.default_rng(143)
    spins = rng.choice(np.array([-1, 1]), (16, 16))
    # one sweep: XLA's CPU compile time grows fast with each np.roll stencil in one graph
    check(ising_checkerboard, spins, rng.random((1, 2, 16, 16)), [2.3])


def test_a_loop_with_a_changing_python_temperature_compiles_once():
    """The Ising sweep body is one graph whatever the temperature: sweeps
    with a new Python float compile nothing after the second."""
    rng = np.random.default_rng(144)
    spins = lnp.asarray(rng.choice(np.array([-1, 1]), (16, 16)))
    uniforms = rng.random((4, 2, 16, 16))
    for k, T in enumerate([2.0, 1.7, 1.3, 0.9]):
        spins, *_ = ising_checkerboard(lnp, spins, uniforms[k:k + 1], [T])
        lnp.asarray(spins).tolist()
        if k == 1:
            misses = get_runtime().metrics.counters["cache_misses"]
    assert get_runtime().metrics.counters["cache_misses"] == misses


def logaddexp_reductions(np, a):
    """np.logaddexp.reduce over an axis, all axes, with where= and initial=,
    over an empty axis, of integers, and as reduceat."""
    return (np.logaddexp.reduce(a, axis=1), np.logaddexp.reduce(a, axis=None),
            np.logaddexp.reduce(a, axis=(0, 1), keepdims=True),
            np.logaddexp.reduce(a, axis=1, where=a > 0, initial=-2.0),
            np.logaddexp.reduce(a[:, :0], axis=1), np.logaddexp.reduce(np.arange(5)),
            np.logaddexp.reduce(a.astype(np.float32), axis=0),
            np.logaddexp.reduceat(a, [0, 2], axis=1))


def test_logaddexp_reduce_records_lazily():
    check(logaddexp_reductions, np.random.default_rng(145).normal(size=(3, 5)) * 4)


def kfold_ridge(np, X, y, lambdas):
    """k-fold cross-validation of ridge regression: folds by np.array_split
    of a permutation, the closed form by np.linalg.solve on standardised
    features, the validation error per lambda, and the refit at the best."""
    folds = np.array_split(np.arange(len(X)), 4)
    errs = np.zeros((len(lambdas), len(folds)))
    for j, val in enumerate(folds):
        train = np.setdiff1d(np.arange(len(X)), val)
        mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
        Xt, Xv = (X[train] - mu) / sd, (X[val] - mu) / sd
        ym = y[train].mean()
        for i, lam in enumerate(lambdas):
            w = np.linalg.solve(Xt.T @ Xt + lam * np.eye(X.shape[1]), Xt.T @ (y[train] - ym))
            errs[i, j] = np.mean((Xv @ w + ym - y[val]) ** 2)
    best = lambdas[int(np.argmin(errs.mean(axis=1)))]
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    w = np.linalg.solve(Z.T @ Z + best * np.eye(X.shape[1]), Z.T @ (y - y.mean()))
    return errs, best, w, [len(f) for f in folds]


@pytest.mark.slow  # six graphs with LU solves: ~5 s of XLA compile on one core
def test_kfold_ridge_with_array_split_and_solve():
    rng = np.random.default_rng(146)
    X = rng.normal(size=(32, 4))  # equal folds: every fold's graph is the first one's
    y = X @ np.array([1.5, 0.0, -2.0, 0.3]) + 0.5 * rng.normal(size=32)
    check(kfold_ridge, X, y, [0.1, 10.0], rtol=1e-8)


def random_walks(np, steps):
    """Random walks from ±1 steps: positions by np.cumsum, first passage of a
    barrier by argmax of a boolean with a never-hit sentinel, the walks'
    extremes, time spent positive, and returns to the origin."""
    pos = np.cumsum(steps, axis=1)
    hit = np.abs(pos) >= 6
    ever = hit.any(axis=1)
    first = np.where(ever, hit.argmax(axis=1), -1)
    ret = (pos == 0).sum(axis=1)
    frac_pos = (pos > 0).mean(axis=1)
    lo, hi = pos.min(axis=1), pos.max(axis=1)
    surv = 1 - np.cumsum(np.bincount(first[ever], minlength=steps.shape[1])) / len(steps)
    return pos[:, -1], first, ret, frac_pos, hi - lo, surv, np.median(first[ever])


def test_random_walk_first_passage():
    rng = np.random.default_rng(147)
    check(random_walks, rng.choice(np.array([-1, 1], dtype=np.int8), (40, 60)))


def quantile_bins(np, x, y):
    """Equal-count binning of x at its quantiles with np.searchsorted, the
    mean and spread of y per bin by np.bincount weights, the same counts by
    np.histogram on the edges, and a lift table of y by decile."""
    edges = np.quantile(x, np.linspace(0, 1, 6))
    b = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, 4)
    n = np.bincount(b, minlength=5)
    mean = np.bincount(b, weights=y, minlength=5) / n
    sq = np.bincount(b, weights=y * y, minlength=5) / n
    counts, hedges = np.histogram(x, bins=edges)
    dec = np.digitize(x, np.percentile(x, np.arange(10, 100, 10)))
    lift = np.array([y[dec == d].mean() for d in range(10)]) / y.mean()
    return edges, b, n, mean, np.sqrt(sq - mean ** 2), counts, hedges, dec, lift


@pytest.mark.slow  # seven graphs with sorts: ~3.5 s of XLA compile on one core
def test_quantile_binning_with_searchsorted_and_histogram():
    rng = np.random.default_rng(148)
    x = rng.gamma(2.0, 1.5, 200)
    check(quantile_bins, x, 0.5 * x + rng.normal(size=200))


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


def test_uint8_image_pipeline_with_lut_and_packbits():
    rng = np.random.default_rng(149)
    img = np.clip(rng.normal(100, 40, (24, 32)), 0, 255).astype(np.uint8)
    check(uint8_image_pipeline, img, np.packbits(rng.random((24, 32)) < 0.35, axis=1))


def float32_state_updates(np, A, x, idx):
    """float32 code that writes through views: in-place updates of strided
    and reversed slices, a row swap by fancy assignment, np.add with out= a
    slice, np.argwhere / np.nonzero of a threshold, np.linalg.matrix_power,
    np.einsum with an ellipsis, and Python and np.float64 scalars mixed in."""
    A = A.copy()
    A[::2] *= 0.5
    A[:, ::-1][:, :2] += 1.0
    A[[0, 2]] = A[[2, 0]]
    y = np.zeros_like(x)
    np.add(x[:-1], x[1:], out=y[1:])
    y[idx] -= 2.5
    hits = np.argwhere(np.abs(A) > 1.0)
    rows, cols = np.nonzero(A > 0.8)
    P = np.linalg.matrix_power(A / np.abs(A).sum(axis=1, keepdims=True), 3)
    quad = np.einsum("...i,ij,...j->...", np.stack([x, y]), A, np.stack([y, x]))
    scaled = A * np.float64(0.5), A * 0.5, A.mean(), A.sum(dtype=np.float64), x @ A
    return A, y, hits, rows, cols, P, quad, scaled, np.round(A, 2), np.float32(2) ** A[0]


def test_float32_view_writes_and_scalar_mixing():
    rng = np.random.default_rng(150)
    check(float32_state_updates, rng.normal(size=(5, 5)).astype(np.float32),
          rng.normal(size=5).astype(np.float32), np.array([1, 3, 3]))


def bit_packing(np, b, i, u):
    """np.packbits / np.unpackbits over axes, bit orders, counts, ints, 0-d."""
    return (np.packbits(b), np.packbits(b, axis=1), np.packbits(b, axis=0, bitorder="little"),
            np.packbits(i, axis=-1), np.packbits(i[0, 0, 0], axis=0), np.unpackbits(u),
            np.unpackbits(u, axis=0), np.unpackbits(u, axis=1, count=5),
            np.unpackbits(u, axis=1, count=40, bitorder="little"),
            np.unpackbits(u, axis=1, count=-9))


def test_packbits_and_unpackbits_record_lazily():
    rng = np.random.default_rng(151)
    u = rng.integers(0, 256, (3, 4)).astype(np.uint8)
    i = rng.integers(-3, 3, (2, 5, 9)).astype(np.int16)
    check(bit_packing, rng.random((3, 13)) < 0.5, i, u)
    for mod in (np, lnp):
        with pytest.raises(TypeError, match="integer or boolean"):
            mod.packbits(mod.ones(3))
        with pytest.raises(TypeError, match="unsigned byte"):
            mod.unpackbits(mod.asarray(u).astype(np.int8))
        with pytest.raises(ValueError, match="-count larger"):
            mod.unpackbits(mod.asarray(u), count=-97)
        with pytest.raises(ValueError, match="'order' must be either"):
            mod.packbits(mod.asarray(u), bitorder="x")


def mesh_geometry(np, verts, faces, t, f):
    """Triangle mesh geometry: edge vectors by fancy indexing, areas and unit
    normals by np.cross and np.linalg.norm, vertex normals by np.add.at,
    unique undirected edges by np.sort and np.unique(axis=0), boundary edges
    by counts, and a curve's length and curvature by np.diff (n=2) and
    np.trapezoid."""
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    n = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(n, axis=1)
    unit = n / np.linalg.norm(n, axis=1, keepdims=True)
    vn = np.zeros_like(verts)
    for k in range(3):
        np.add.at(vn, faces[:, k], n)
    vn /= np.linalg.norm(vn, axis=1, keepdims=True)
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    uniq, counts = np.unique(edges, axis=0, return_counts=True)
    boundary = uniq[counts == 1]
    euler = len(verts) - len(uniq) + len(faces)
    d1 = np.gradient(f, t)
    d2 = np.diff(f, n=2) / np.diff(t)[:-1] ** 2
    length = np.trapezoid(np.sqrt(1 + d1 ** 2), t)
    return area, area.sum(), unit, vn, uniq, boundary, euler, d2, length, np.cumsum(area)


@pytest.mark.slow  # np.unique(axis=0) and add.at graphs: ~3 s of XLA compile on one core
def test_mesh_geometry_with_cross_and_unique_rows():
    rng = np.random.default_rng(152)
    g = np.stack(np.meshgrid(np.arange(5.0), np.arange(4.0)), -1).reshape(-1, 2)
    verts = np.column_stack([g, 0.3 * rng.normal(size=len(g))])
    idx = np.arange(20).reshape(4, 5)
    corners = (idx[:-1, :-1], idx[:-1, 1:], idx[1:, 1:], idx[1:, :-1])
    q = np.stack([c.ravel() for c in corners], 1)
    faces = np.concatenate([q[:, [0, 1, 2]], q[:, [0, 2, 3]]])
    t = np.linspace(0, 3, 40)
    check(mesh_geometry, verts, faces, t, np.sin(t) * t)


def python_glue(np, x, keys):
    """Python around lazy values: sum/max/min/sorted/dict over elements,
    tolist, round/abs/divmod/math.sqrt/format of lazy scalars, in-place
    sort and fill, array methods, and np.array of lazy scalars."""
    s = sum(v for v in x[:5])
    tl = x[:3].tolist()
    mx, mn = max(x[:4]), min(list(x[:4]))
    srt = sorted(x[:6])
    d = dict(zip(keys.tolist(), x[:3], strict=True))
    w = np.where(x > 0.5)
    arr = np.array([x.sum(), x.max(), 1.0])
    r = round(float(x[0]), 2), abs(x[1]), divmod(x[2], 0.3), x ** 0.5, -x, ~(x > 0.2)
    m = math.sqrt(x[3]), f"{x[4]:.3f}", f"{x.mean():.4f}", bool(np.isclose(x, x).all())
    y, y2 = x.copy(), x.copy()
    y.sort()
    y2.fill(0.25)
    meth = (x.clip(min=0.3), x.round(decimals=1), x.nonzero(), x.cumsum(), x.repeat(2),
            x.argsort()[::-1], x.reshape(2, -1).T.copy().ravel(), x.var(ddof=1))
    vs = np.vstack([row for row in x.reshape(2, -1)])
    return (s, tl, mx, mn, srt, d, w, arr, r, m, y, y2, meth, vs, x[x > 0.4].sum(),
            np.float64(x[0]) * 2)


@pytest.mark.slow  # a small graph per observed scalar (~20): ~6 s of XLA compile
def test_python_glue_around_lazy_scalars():
    rng = np.random.default_rng(153)
    check(python_glue, rng.random(10), np.array([3, 1, 2]))


def simplex(np, A, b, c):
    """Maximise c x subject to A x <= b, x >= 0 by the tableau simplex
    method: slack columns by np.hstack with np.eye, the entering column by
    argmin of the objective row, the ratio test with np.where and np.inf,
    and pivoting by in-place row operations; then Gauss-Jordan inversion."""
    m, n = A.shape
    T = np.zeros((m + 1, n + m + 1))
    T[:m, :n] = A
    T[:m, n:n + m] = np.eye(m)
    T[:m, -1] = b
    T[-1, :n] = -c
    basis = list(range(n, n + m))
    pivots = 0
    while T[-1, :-1].min() < -1e-12 and pivots < 20:
        col = int(np.argmin(T[-1, :-1]))
        up = T[:m, col] > 1e-12
        ratios = np.where(up, T[:m, -1] / np.where(up, T[:m, col], 1), np.inf)
        row = int(np.argmin(ratios))
        T[row] /= T[row, col]
        for i in range(m + 1):
            if i != row:
                T[i] -= T[i, col] * T[row]
        basis[row] = col
        pivots += 1
    x = np.zeros(n + m)
    x[basis] = T[:m, -1]
    S = A @ A.T + np.eye(m)
    M = np.hstack([S, np.eye(m)])
    for k in range(m):
        p = k + int(np.argmax(np.abs(M[k:, k])))
        M[[k, p]] = M[[p, k]]
        M[k] /= M[k, k]
        M[np.arange(m) != k] -= np.outer(M[np.arange(m) != k, k], M[k])
    return x[:n], T[-1, -1], pivots, basis, M[:, m:]


@pytest.mark.slow  # a graph per pivot and per shrinking slice: ~10 s of compile
def test_simplex_tableau_and_gauss_jordan_pivots():
    rng = np.random.default_rng(154)
    check(simplex, rng.uniform(1, 5, (4, 3)), rng.uniform(5, 10, 4), rng.uniform(1, 3, 3))
