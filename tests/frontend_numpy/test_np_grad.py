"""lazytensor.numpy.autodiff (grad / value_and_grad) against jax.grad, the
same functions written once for numpy and jax.numpy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from lazytensor.core import metrics
from lazytensor.numpy.autodiff import grad, value_and_grad

RNG = np.random.default_rng(0)


def mlp(np_, params, x, y):
    w1, b1, w2 = params["w1"], params["b1"], params["w2"]
    h = np_.tanh(x @ w1 + b1)
    logits = h @ w2
    peak = np_.max(logits, axis=1, keepdims=True)
    lse = np_.log(np_.sum(np_.exp(logits - peak), axis=1, keepdims=True)) + peak
    return -np_.mean(np_.sum(y * (logits - lse), axis=1))


def test_pytree_gradients_match_jax():
    params = {"w1": RNG.standard_normal((4, 5)), "b1": np.zeros(5),
              "w2": RNG.standard_normal((5, 3))}
    x, y = RNG.standard_normal((6, 4)), np.eye(3)[RNG.integers(0, 3, 6)]
    value, got = value_and_grad(lambda p: mlp(np, p, x, y))(params)
    want = jax.grad(lambda p: mlp(jnp, p, x, y))(params)
    assert set(got) == set(want)
    for key in want:
        assert got[key].shape == want[key].shape and got[key].dtype == np.float64
        np.testing.assert_allclose(np.asarray(got[key]), want[key], rtol=1e-10, atol=1e-12)
    assert float(value) == pytest.approx(float(mlp(jnp, params, x, y)), rel=1e-12)


def test_argnums_has_aux_and_closure_constants():
    w = np.array([0.5, -1.0, 2.0], np.float32)

    def f(a, b):
        return np.sum(np.sin(a * w) * b), a * 2

    ga, gb = grad(lambda a, b: f(a, b)[0], argnums=(0, 1))(w, w)
    np.testing.assert_allclose(np.asarray(ga), np.cos(w * w) * w * w, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gb), np.sin(w * w), rtol=1e-6)
    g, aux = grad(f, has_aux=True)(w, 1.0)
    np.testing.assert_allclose(np.asarray(aux), w * 2)
    np.testing.assert_allclose(np.asarray(g), np.cos(w * w) * w, rtol=1e-6)


def test_errors():
    with pytest.raises(TypeError, match="inexact"):
        grad(lambda x: np.sum(x * 1.0))(np.arange(3))
    with pytest.raises(TypeError, match="scalar-output"):
        grad(lambda x: x * 2)(np.ones(3))

    def observes(x):
        y = np.sum(x * x)
        float(y)  # a barrier inside the differentiated function
        return y

    with pytest.raises(RuntimeError, match="observed"):
        grad(observes)(np.ones(3))


def test_training_loop_compiles_once():
    import lazytensor.numpy as lnp

    w = lnp.asarray(RNG.standard_normal((3,)))  # a host w would be two leaves in step 1
    x, t = RNG.standard_normal((8, 3)), RNG.standard_normal(8)
    step = grad(lambda w: np.mean((x @ w - t) ** 2))
    metrics.reset()
    for _ in range(4):
        w = w - 0.1 * step(w)
        np.asarray(w)
    assert metrics.as_dict()["counters"]["cache_misses"] == 1
