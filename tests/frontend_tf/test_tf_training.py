"""The digits MLP written in tnp with the GradientTape API, trained N steps
eagerly (tf.GradientTape, tf.Variable) and lazily (lazytensor.tf): the same
losses and weights, and nothing compiles after the second step."""

from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import lnp, tf, tnp

STEPS = 12
LR = 0.5


def loss_fn(np_, params, x, y):
    w1, b1, w2, b2 = params
    h = np_.tanh(np_.matmul(x, w1) + b1)
    logits = np_.matmul(h, w2) + b2
    peak = np_.max(logits, axis=1, keepdims=True)
    lse = np_.log(np_.sum(np_.exp(logits - peak), axis=1, keepdims=True)) + peak
    return -np_.mean(np_.sum(y * (logits - lse), axis=1))


def train(np_, t, sync, x, y, init, steps=STEPS):
    """The training loop, identical for both frameworks."""
    params = [t.Variable(p) for p in init]
    x, y = np_.asarray(x), np_.asarray(y)
    losses, compiles = [], []
    for _ in range(steps):
        with t.GradientTape() as tape:
            loss = loss_fn(np_, params, x, y)
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads, strict=False):
            p.assign_sub(LR * g)
        sync()
        losses.append(float(loss))
        compiles.append(metrics.as_dict()["counters"]["cache_misses"])
    return losses, [p.numpy() for p in params], compiles


@pytest.fixture(scope="module")
def digits():
    from sklearn.datasets import load_digits

    data = load_digits()
    x = (data.data[:512] / 16.0).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[data.target[:512]]
    rng = np.random.default_rng(0)
    init = [(rng.standard_normal((64, 32)) * 0.1).astype(np.float32),
            np.zeros(32, np.float32),
            (rng.standard_normal((32, 10)) * 0.1).astype(np.float32),
            np.zeros(10, np.float32)]
    return x, y, init


def test_digits_mlp_matches_eager_and_compiles_once(digits):
    x, y, init = digits
    eager_losses, eager_params, _ = train(tnp, tf, lambda: None, x, y, init)
    metrics.reset()
    lazy_losses, lazy_params, compiles = train(lnp, ltf, ltf.sync, x, y, init)
    np.testing.assert_allclose(lazy_losses, eager_losses, rtol=1e-5, atol=1e-6)
    for got, want in zip(lazy_params, eager_params, strict=False):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert eager_losses[-1] < eager_losses[0] * 0.8  # it trains
    assert compiles[1] == compiles[-1], f"compilations after step 2: {compiles}"
    counters = metrics.as_dict()["counters"]
    assert counters["eager_fallbacks"] == 0
    assert counters["graphs_executed"] == STEPS


def test_new_batches_and_learning_rates_do_not_recompile(digits):
    x, y, init = digits
    params = [ltf.Variable(p) for p in init]
    metrics.reset()
    for step in range(4):
        batch = slice(64 * step, 64 * (step + 1))
        xb, yb = lnp.asarray(x[batch]), lnp.asarray(y[batch])
        with ltf.GradientTape() as tape:
            loss = loss_fn(lnp, params, xb, yb)
        for p, g in zip(params, tape.gradient(loss, params), strict=False):
            p.assign_sub((0.5 / (step + 1)) * g)
        ltf.sync()
    assert metrics.as_dict()["counters"]["cache_misses"] == 1
