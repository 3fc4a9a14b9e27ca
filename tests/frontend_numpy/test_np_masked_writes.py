"""``x[m] = f(x[m])``: a read through a full-shape boolean mask, computed on
elementwise and written back through the same mask, records a select of the
full-shape computation (``lazytensor.core.masked``), so a loop whose mask
count changes every iteration compiles its graphs once instead of once per
count. Every case is compared with numpy (values, dtype, shape); the cases
where the tag must not apply (another mask, a mask or value changed in
between, an operand of the compact shape) take the general path and still
match numpy."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core.runtime import get_runtime

pytestmark = pytest.mark.usefixtures("runtime")


def _same(got, want) -> None:
    host = np.asarray(got)
    assert host.dtype == want.dtype and host.shape == want.shape
    np.testing.assert_allclose(host, want, rtol=1e-12)


def julia(np, zr, zi, steps):
    """Escape times, iterating only the points still bounded."""
    z = zr[None, :] + 1j * zi[:, None]
    counts = np.zeros(z.shape, dtype=np.int32)
    alive = np.ones(z.shape, dtype=bool)
    for i in range(steps):
        z[alive] = z[alive] ** 2 + (-0.8 + 0.156j)
        escaped = alive & (np.abs(z) > 2)
        counts[escaped] = i
        alive &= ~escaped
    return z, counts


def test_a_masked_update_loop_compiles_once_whatever_the_counts():
    zr, zi = np.linspace(-1.5, 1.5, 24), np.linspace(-1, 1, 16)
    want_z, want_counts = julia(np, zr, zi, 12)
    z, counts = julia(lnp, lnp.asarray(zr), lnp.asarray(zi), 12)
    _same(z, want_z)
    _same(counts, want_counts)
    metrics = get_runtime().metrics
    misses = metrics.counters["cache_misses"]
    z, counts = julia(lnp, lnp.asarray(zr * 0.9), lnp.asarray(zi * 1.1), 12)  # other counts
    assert metrics.counters["cache_misses"] == misses, metrics.miss_reasons[-3:]
    _same(z, julia(np, zr * 0.9, zi * 1.1, 12)[0])


def _programs():
    def augmented(np, x, m):
        x[m] += 1.5
        x[m] *= 2
        return x

    def other_array(np, x, m):
        y = x * 10
        x[m] = np.sqrt(y[m]) - x[m] / 3
        return x

    def into_ints(np, x, m):
        counts = (x * 0).astype(np.int64)
        counts[m] = x[m] * 3.7  # numpy's unsafe cast on assignment
        return counts

    def lazy_scalar(np, x, m):
        scale = x.max()
        x[m] = -x[m] * scale
        return x

    def unary_chain(np, x, m):
        x[m] = np.exp(-np.abs(x[m]))
        return x

    return [augmented, other_array, into_ints, lazy_scalar, unary_chain]


@pytest.mark.parametrize("program", _programs(), ids=lambda p: p.__name__)
@pytest.mark.parametrize("host_mask", [False, True], ids=["lazy mask", "host mask"])
def test_masked_writes_match_numpy_and_compile_once(program, host_mask):
    metrics = get_runtime().metrics
    for seed in range(3):  # three mask counts; the graphs compile on the first
        x = np.random.default_rng(seed).standard_normal((6, 5))
        want = program(np, x.copy(), x > 0)
        lazy = lnp.asarray(x)
        mask = x > 0 if host_mask else lazy > 0
        _same(program(lnp, lazy, mask), want)
        if seed == 0:
            misses = metrics.counters["cache_misses"]
    assert metrics.counters["cache_misses"] == misses, metrics.miss_reasons[-3:]


def _general_cases():
    def other_mask(np, x, m):
        m2 = np.roll(m, 1)  # same count, other positions: numpy's compact assignment
        x[m2] = x[m] * 2
        return x

    def mask_changed(np, x, m):
        t = x[m] * 2
        m &= x < 1  # a new mask value under the same name
        x[m] = t[: int(m.sum())]
        return x

    def value_changed(np, x, m):
        t = x[m]
        t[0] = 100.0  # no longer the masked read
        x[m] = t
        return x

    def compact_operand(np, x, m):
        w = np.arange(int(m.sum()), dtype=np.float64)  # already of the compact shape
        x[m] = x[m] * w
        return x

    return [other_mask, mask_changed, value_changed, compact_operand]


@pytest.mark.parametrize("program", _general_cases(), ids=lambda p: p.__name__)
def test_writes_the_tag_does_not_cover_take_the_general_path(program):
    x = np.random.default_rng(1).standard_normal(12)
    want = program(np, x.copy(), x > 0)
    lazy = lnp.asarray(x)
    _same(program(lnp, lazy, lazy > 0), want)


def test_a_host_mask_changed_in_place_is_not_mistaken_for_the_read_mask():
    x = np.random.default_rng(2).standard_normal(10)
    m = x > 0

    def program(np, x, m):
        t = x[m] + 1
        m[:] = np.roll(m, 1)  # same array object, other contents, same count
        x[m] = t
        return x

    want = program(np, x.copy(), m.copy())
    _same(program(lnp, lnp.asarray(x), m.copy()), want)


def _reductions():
    return {
        "sum": lambda np, x, m: x[m].sum(),
        "max": lambda np, x, m: np.max(x[m]),
        "min of a product": lambda np, x, m: (x[m] * 3).min(axis=0),
        "prod": lambda np, x, m: np.prod(x[m] / 2 + 1),
        "any": lambda np, x, m: (x[m] > 1.5).any(),
        "mean": lambda np, x, m: x[m].mean(),
        "std": lambda np, x, m: np.std(x[m] ** 2),
        "var ddof": lambda np, x, m: x[m].var(ddof=1),
        "add.reduce": lambda np, x, m: np.add.reduce(np.abs(x[m]) + 1),
    }


@pytest.mark.parametrize("name", list(_reductions()))
def test_whole_reductions_of_masked_reads_match_numpy_and_compile_once(name):
    program = _reductions()[name]
    metrics = get_runtime().metrics
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal((5, 7))
        lazy = lnp.asarray(x)
        got, want = program(lnp, lazy, lazy > 0), program(np, x, x > 0)
        host = np.asarray(got)
        assert host.dtype == np.asarray(want).dtype and host.shape == np.shape(want)
        np.testing.assert_allclose(host, want, rtol=1e-12)
        if seed == 0:
            misses = metrics.counters["cache_misses"]
    assert metrics.counters["cache_misses"] == misses, metrics.miss_reasons[-3:]


def test_reductions_the_tag_does_not_cover_keep_numpy_semantics():
    x = np.array([[-1.0, 2.0], [3.0, -4.0]])
    lazy = lnp.asarray(x)
    assert np.asarray(lazy[lazy > 0].sum(keepdims=True)).shape == (1,)
    with pytest.raises(ValueError, match="zero-size array"):
        lazy[lazy > 10].max()  # empty: numpy's error, not the identity
    with pytest.warns(RuntimeWarning):
        assert np.isnan(float(lazy[lazy > 10].mean()))


def kmeans(np, X, k, steps):
    """Lloyd's iterations: each centre is the mean of its cluster's rows."""
    centres = X[:k].copy()
    for _ in range(steps):
        labels = np.argmin(((X[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
        for j in range(k):
            members = labels == j
            if members.any():
                centres[j] = X[members].mean(axis=0)
    return centres


def test_row_masks_kmeans_matches_numpy_and_compiles_once():
    metrics = get_runtime().metrics
    for seed in range(3):
        X = np.random.default_rng(seed).standard_normal((40, 3))
        _same(kmeans(lnp, lnp.asarray(X), 3, 3), kmeans(np, X, 3, 3))
        if seed == 0:
            misses = metrics.counters["cache_misses"]
    assert metrics.counters["cache_misses"] == misses, metrics.miss_reasons[-3:]


def _row_programs():
    def centred(np, X, m):
        X[m] = X[m] - X[m].mean(axis=0)
        return X

    def scaled(np, X, m):
        X[m] *= np.array([1.0, 2.0, 3.0])  # a row vector broadcasts over the rows
        return X

    def row_stats(np, X, m):
        return [X[m].sum(), np.max(X[m] ** 2, axis=0), X[m].std(axis=0), X[m].min(axis=-2),
                X[m].mean(axis=(1, 0))]

    return [centred, scaled, row_stats]


@pytest.mark.parametrize("program", _row_programs(), ids=lambda p: p.__name__)
@pytest.mark.parametrize("host_mask", [False, True], ids=["lazy mask", "host mask"])
def test_row_masks_match_numpy_and_compile_once(program, host_mask):
    metrics = get_runtime().metrics
    for seed in range(3):
        X = np.random.default_rng(seed).standard_normal((8, 3))
        want = program(np, X.copy(), X[:, 0] > 0)
        lazy = lnp.asarray(X)
        mask = X[:, 0] > 0 if host_mask else lazy[:, 0] > 0
        got = program(lnp, lazy, mask)
        for g, w in zip(got if isinstance(got, list) else [got],
                        want if isinstance(want, list) else [want], strict=True):
            _same(g, np.asarray(w))
        if seed == 0:
            misses = metrics.counters["cache_misses"]
    assert metrics.counters["cache_misses"] == misses, metrics.miss_reasons[-3:]


def test_row_reads_with_operands_of_their_own_shape_take_the_general_path():
    X = np.random.default_rng(4).standard_normal((6, 3))
    m = X[:, 0] > 0
    lazy = lnp.asarray(X)
    k = int(m.sum())
    w = np.arange(3 * k, dtype=np.float64).reshape(k, 3)  # the compact shape itself
    want = X.copy()
    want[m] = X[m] * w
    lazy[lnp.asarray(m)] = lazy[lnp.asarray(m)] * w
    _same(lazy, want)
    y = np.random.default_rng(5).standard_normal((3, 3))
    m = np.array([True, False, True])  # two rows: (2, 3) * (2,) is numpy's broadcast error
    with pytest.raises(ValueError):
        _ = y[m] * y[:, 1][m]
    with pytest.raises(ValueError):
        _ = lnp.asarray(y)[m] * lnp.asarray(y[:, 1])[m]
