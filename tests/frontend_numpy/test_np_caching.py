"""Compile once: re-running a program on new data of the same shapes, or
with a different Python scalar, compiles nothing new (asserted on the
runtime's cache_misses)."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np


def _misses(rt) -> int:
    return rt.metrics.counters["cache_misses"]


def _step(w, x, y, lr):
    """One logistic-regression step written the way numpy users write it."""
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    grad = x.T @ (p - y) / x.shape[0]
    w -= lr * grad
    return w, float(np.mean((p > 0.5) == (y > 0.5)))


def test_new_data_same_shapes_compiles_nothing_new(plain_runtime):
    rng = np.random.default_rng(0)
    w = lnp.zeros(5)
    for step in range(6):
        x = lnp.asarray(rng.normal(size=(32, 5)))
        y = lnp.asarray((rng.random(32) > 0.5).astype(np.float64))
        w, _ = _step(w, x, y, 0.1)
        if step == 1:
            settled = _misses(plain_runtime)
    assert _misses(plain_runtime) == settled
    assert plain_runtime.metrics.counters["cache_hits"] > 0


def test_changing_python_scalar_compiles_nothing_new(plain_runtime):
    x = lnp.asarray(np.linspace(0.0, 1.0, 16, dtype=np.float32))
    results = []
    for i, scale in enumerate((0.5, 1.5, 2.5, -3.0, 7.25)):
        y = np.tanh(x * scale + i) - scale
        results.append(np.asarray(y))
        if i == 0:
            settled = _misses(plain_runtime)
    assert _misses(plain_runtime) == settled
    np.testing.assert_allclose(results[3], np.tanh(np.linspace(0, 1, 16) * -3.0 + 3) + 3.0,
                               rtol=1e-6)


def test_numpy_scalars_host_indices_and_random_draws_do_not_recompile(plain_runtime):
    data = lnp.arange(100.0)
    rng = lnp.random.default_rng(1)
    host_rng = np.random.default_rng(2)
    for i in range(4):
        batch = data[host_rng.permutation(100)[:10]] * np.float64(i) + rng.normal(size=10)
        np.asarray(batch)
        if i == 1:
            settled = _misses(plain_runtime)
    assert _misses(plain_runtime) == settled


def test_in_place_training_loop_compiles_once(plain_runtime):
    w = lnp.ones((4, 4))
    x = lnp.ones((8, 4))
    for lr in (0.1, 0.01, 0.001, 0.0001):
        w -= lr * (x.T @ (x @ w))
        lnp.sync()
        if lr == 0.01:
            settled = _misses(plain_runtime)
    assert _misses(plain_runtime) == settled


def test_large_parameters_recycled_and_donated_compile_by_step_two(plain_runtime):
    """Parameters above the recycle pool's size threshold: the pool's own
    reference must not block their donation at step 3 (regression: each of
    the first three steps compiled)."""
    rng = np.random.default_rng(0)
    w = lnp.asarray(rng.standard_normal((256, 512)).astype(np.float32))
    b = lnp.zeros(512, np.float32)
    for step in range(6):
        x = lnp.asarray(rng.standard_normal((64, 256)).astype(np.float32))
        h = np.tanh(x @ w + b)
        w = w - 0.01 * (x.T @ (1 - h * h))
        b = b - 0.01 * h.sum(0)
        lnp.sync()
        if step == 1:
            settled = _misses(plain_runtime)
    assert _misses(plain_runtime) == settled
    assert plain_runtime.metrics.counters["donated_buffers"] >= 2 * 5  # w and b from step 2 on


def test_debug_tools_take_lazy_arrays(plain_runtime):
    """``lazytensor.core.debug`` takes a frontend's lazy values directly."""
    from lazytensor.core import debug

    y = np.tanh(lnp.ones((2, 3), dtype=np.float32) * 2.0).sum(axis=0)
    text = debug.dump(y)
    assert "TANH" in text and "REDUCE_SUM" in text and text.endswith("return %4")
    assert debug.graph_key(y) == debug.graph_key(y._h)
    assert "stablehlo" in debug.stablehlo(y) or "func.func" in debug.stablehlo(y)
    np.testing.assert_allclose(np.asarray(y), np.full(3, 2 * np.tanh(2.0)), rtol=1e-6)
