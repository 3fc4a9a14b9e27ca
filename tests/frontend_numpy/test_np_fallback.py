"""The eager fallback (numpy functions without a lazy mapping) and the
data-dependent shapes (materialize what they need, stay correct)."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core import metrics


@pytest.fixture
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(metrics, "_WARNED", set())


def test_unmapped_function_runs_eagerly_warns_once_and_counts(plain_runtime, fresh_warnings):
    host = np.array([0.0, 3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 0.0])
    x = lnp.asarray(host)
    with pytest.warns(lnp.LazyFallbackWarning, match="numpy.trim_zeros"):
        m = np.trim_zeros(x)
    assert isinstance(m, lnp.ndarray)
    np.testing.assert_array_equal(np.asarray(m), np.trim_zeros(host))
    with warnings.catch_warnings():
        warnings.simplefilter("error", lnp.LazyFallbackWarning)  # warned once already
        np.trim_zeros(x + 1)
    assert plain_runtime.metrics.fallbacks["numpy.trim_zeros"] == 2
    assert plain_runtime.metrics.counters["eager_fallbacks"] == 2


def test_fallback_results_are_lazy_again_and_compose(plain_runtime, fresh_warnings):
    host = np.linspace(0.0, 1.0, 9)
    x = lnp.asarray(host)
    with pytest.warns(lnp.LazyFallbackWarning):
        q = np.trim_zeros(x, "f")
    y = q * 2 + 1
    np.testing.assert_allclose(np.asarray(y), np.trim_zeros(host, "f") * 2 + 1)


def test_namespace_fallback_and_ufunc_fallback(plain_runtime, fresh_warnings):
    with pytest.warns(lnp.LazyFallbackWarning, match="numpy.spacing"):
        s = np.spacing(lnp.ones(3))
    np.testing.assert_array_equal(np.asarray(s), np.spacing(np.ones(3)))
    with pytest.warns(lnp.LazyFallbackWarning, match="numpy.trim_zeros"):
        g = lnp.trim_zeros(lnp.asarray([0.0, 4.0, 9.0, 0.0]))
    assert isinstance(g, lnp.ndarray)
    np.testing.assert_allclose(np.asarray(g), [4.0, 9.0])
    assert set(plain_runtime.metrics.fallbacks) == {"numpy.spacing", "numpy.trim_zeros"}


def test_fallback_writes_lazy_out(plain_runtime, fresh_warnings):
    out = lnp.zeros(3)
    with pytest.warns(lnp.LazyFallbackWarning):
        np.spacing(lnp.ones(3), out=out)
    np.testing.assert_array_equal(np.asarray(out), np.spacing(np.ones(3)))


def test_mapped_functions_do_not_fall_back(plain_runtime):
    x = lnp.arange(12.0).reshape(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", lnp.LazyFallbackWarning)
        np.sum(np.sin(x) @ x.T, axis=0)
        np.concatenate([x, x]).mean()
        lnp.linalg.norm(x)
    assert plain_runtime.metrics.counters["eager_fallbacks"] == 0


def test_host_only_namespace_calls_are_not_fallbacks(plain_runtime):
    rows, cols = lnp.tril_indices(3)
    assert isinstance(rows, lnp.ndarray)
    assert np.asarray(lnp.broadcast_shapes((2, 1), (3,))).tolist() == [2, 3]
    assert plain_runtime.metrics.counters["eager_fallbacks"] == 0


def test_data_dependent_shapes(plain_runtime):
    host = np.array([[0.0, 2.0, -1.0], [3.0, 0.0, 5.0]])
    x = lnp.asarray(host)
    np.testing.assert_array_equal(np.asarray(x[x > 0]), host[host > 0])
    for got, want in zip(np.nonzero(x), np.nonzero(host), strict=False):
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(np.argwhere(x)), np.argwhere(host))
    np.testing.assert_array_equal(np.asarray(np.flatnonzero(x)), np.flatnonzero(host))
    values, counts = np.unique(x, return_counts=True)
    want_v, want_c = np.unique(host, return_counts=True)
    np.testing.assert_array_equal(np.asarray(values), want_v)
    np.testing.assert_array_equal(np.asarray(counts), want_c)
    np.testing.assert_array_equal(np.asarray(np.compress([True, False, True], x, axis=1)),
                                  np.compress([True, False, True], host, axis=1))
    assert plain_runtime.metrics.counters["eager_fallbacks"] == 0


def test_mask_assignment_with_scalar_stays_lazy(plain_runtime):
    x = lnp.arange(6.0)
    before = plain_runtime.metrics.counters["transfers_to_host"]
    x[x > 2] = 0.0
    assert plain_runtime.metrics.counters["transfers_to_host"] == before  # no materialization
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0, 0.0, 0.0, 0.0])
