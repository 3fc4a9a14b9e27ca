"""``x[mask]`` in tnp: elementwise functions of masked reads and whole
reductions of them record graphs of x's shape
(``lazytensor.tf.numpy._masked_reads``), so a loop whose mask count changes
every iteration compiles once. Every case is compared with tnp itself
(values, dtype, shape); the cases the tags do not cover (keepdims, dtype=,
another mask, an empty read) take the general path and still match."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow.experimental.numpy as tnp
from lazytensor.core import masked
from lazytensor.core.runtime import use_runtime
from tf_helpers import assert_same, lnp

RNG = np.random.default_rng(7)
X = RNG.standard_normal((6, 5)).astype(np.float32)
I = RNG.integers(-9, 9, (6, 5)).astype(np.int32)


def both(fn, *arrays):
    """fn on tnp arrays and on lazy arrays of the same data."""
    return fn(tnp, *(tnp.asarray(a) for a in arrays)), fn(lnp, *(lnp.asarray(a) for a in arrays))


CASES = {
    "sum": lambda np_, x: np_.sum(x[x > 0]),
    "mean of a square": lambda np_, x: np_.mean(x[x > 0] ** 2),
    "max": lambda np_, x: np_.max(np_.abs(x[x < 0.5]) * 2.0 - 1.0),
    "amin": lambda np_, x: np_.amin(np_.exp(x[x > -1])),
    "prod": lambda np_, x: np_.prod(x[x > 0.5] + 1),
    "any": lambda np_, x: np_.any(x[x > 0] > 1.0),
    "all": lambda np_, x: np_.all(x[x > 0] > 0.1),
    "axis 0": lambda np_, x: np_.sum(x[x > 0], axis=0),
    "rows, axis 0": lambda np_, x: np_.mean(x[x[:, 0] > 0] * 3.0, axis=0),
    "rows, whole": lambda np_, x: np_.max(x[x[:, 1] > -0.5] - x[0]),
    "two reads of one mask": lambda np_, x: np_.sum(x[x > 0] * x[x > 0]),
    "keepdims: general path": lambda np_, x: np_.sum(x[x > 0], keepdims=True),
    "dtype=: general path": lambda np_, x: np_.sum(x[x > 0], dtype=np_.float64),
    "empty read: general path": lambda np_, x: np_.sum(x[x > 100]),
    "another mask: general path": lambda np_, x: np_.sum(x[x > 0] + x[x < 0][:1]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_masked_reads_match_tnp(name):
    want, got = both(CASES[name], X)
    assert_same(got, want, name)


INT_CASES = {
    "sum": lambda np_, x: np_.sum(x[x > 0]),
    "mean": lambda np_, x: np_.mean(x[x != 0] * 2),
    "max": lambda np_, x: np_.max(x[x < 3]),
    "min": lambda np_, x: np_.min(x[x > -3] - 1),
    "bool any": lambda np_, x: np_.any(x[x > 0] > 7),
}


@pytest.mark.parametrize("name", list(INT_CASES))
def test_integer_masked_reads_match_tnp(name):
    want, got = both(INT_CASES[name], I)
    assert_same(got, want, name)


def test_a_masked_reduction_loop_compiles_once_whatever_the_counts():
    """tnp.sum(x[x > 0]) and a mean of squares over new data: 3 graphs (the
    mask, its copy for the second read's own mask, the reductions), each
    compiled once, whatever the count; the general path compiled one graph
    per count."""
    with use_runtime() as rt:
        got, want = [], []
        for seed in range(6):
            data = np.random.default_rng(seed).standard_normal(50).astype(np.float32)
            x = lnp.asarray(data)
            got.append(float(lnp.sum(x[x > 0]) + lnp.mean(x[x > 0] ** 2)))
            t = tnp.asarray(data)
            want.append(float(tnp.sum(t[t > 0]) + tnp.mean(t[t > 0] ** 2)))
        np.testing.assert_allclose(got, want, rtol=1e-5)
        assert rt.metrics.counters["cache_misses"] <= 3
        assert rt.metrics.counters["eager_fallbacks"] == 0


def test_a_read_is_tagged_only_through_a_lazy_mask_of_its_leading_shape():
    x = lnp.asarray(X)
    assert masked.source(x[x > 0]._h) is not None
    assert masked.source(x[x[:, 0] > 0]._h) is not None
    assert masked.source(x[np.asarray(X) > 0]._h) is None  # a host mask: general path
    assert masked.source(x[1:][x[1:] > 0]._h) is not None


def test_the_general_path_compiles_per_count_not_per_mask():
    """A masked read that the tags do not cover (a matmul) compiles once per
    count: the mask's positions are uploaded as device data, not hashed into
    the graph as a constant (three masks of one count: one compile)."""
    data, weights = np.arange(12.0).reshape(6, 2), np.ones((2, 3))
    with use_runtime() as rt:
        x, w = lnp.asarray(data), lnp.asarray(weights)
        for rows in ([0, 1, 0, 1, 0, 0], [1, 0, 0, 0, 1, 0], [0, 0, 1, 1, 0, 0]):
            mask = np.array(rows, bool)
            got = x[lnp.asarray(mask)] @ w
            want = tnp.asarray(data)[tnp.asarray(mask)] @ tnp.asarray(weights)
            assert_same(got, want, str(rows))
        assert rt.metrics.counters["cache_misses"] == 1
