"""Compile once: re-running a program on new data of the same shapes, or with a
different Python scalar, compiles nothing new; graph cuts, barriers and host
reads."""


from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core.runtime import get_runtime
from np_compare import same


def _misses(rt) -> int:
    return rt.metrics.counters["cache_misses"]


def _step(w, x, y, lr):
    """One logistic-regression step written the way numpy users write it."""
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    grad = x.T @ (p - y) / x.shape[0]
    w -= lr * grad
    return w, float(np.mean((p > 0.5) == (y > 0.5)))


def overlap_add(np, x, h):
    """Block convolution by overlap-add: each block's full convolution
    added into a slice of the output with ``out[a:b] += ...``."""
    out = np.zeros(len(x) + len(h) - 1)
    for i in range(0, len(x), 8):
        block = x[i:i + 8]
        out[i:i + len(block) + len(h) - 1] += np.convolve(block, h)
    return out


def test_barrier_inside_a_function_keeps_its_operands():
    """``np.bincount(x % 3)`` reads max(x) (a barrier) after taking x's
    pending node; the barrier donated the input's buffer ('Array has been
    deleted'). Likewise a lazy int argument read inside np.tril/np.roll."""
    host = np.array([1, 5, 2, 2, 7, 1])
    k = lnp.argmax(lnp.asarray(host))
    for got, want in (
        (np.bincount(lnp.asarray(host) % 3), np.bincount(host % 3)),
        (np.bincount(lnp.asarray(host) * 2, weights=lnp.asarray(host) * 0.5),
         np.bincount(host * 2, weights=host * 0.5)),
        (np.roll(lnp.asarray(host) * 2, k), np.roll(host * 2, 4)),
        (np.tril(lnp.asarray(np.ones((3, 3))) * 2, k=k - 5), np.tril(np.ones((3, 3)) * 2, -1)),
    ):
        same(got, want, rtol=1e-7)


def test_new_host_index_values_reuse_the_graph():
    x = lnp.asarray(np.arange(12.0).reshape(3, 4))
    first = np.asarray(x[[0, 2], 1])
    misses = get_runtime().metrics.counters["cache_misses"]
    np.testing.assert_array_equal(np.asarray(x[[2, -1], 1]), [9.0, 9.0])
    np.testing.assert_array_equal(first, [1.0, 9.0])
    assert get_runtime().metrics.counters["cache_misses"] == misses


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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_bincount_over_fixed_labels_in_a_loop_reads_them_once():
    """csr_matvec's Jacobi loop ran two graphs per np.bincount call (max and
    min of the labels, each a barrier): 20 in 10 iterations. The bounds are
    now read in one run and kept for a materialized vector, so the loop
    records one graph; a write to the labels is seen."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    labels_host = np.array([0, 2, 2, 1, 4, 0])
    labels = lnp.asarray(labels_host)
    metrics = get_runtime().metrics
    acc, acc_host = lnp.zeros(5), np.zeros(5)
    lnp.bincount(labels)
    runs = metrics.counters.get("graphs_executed", 0)
    for k in range(4):
        w = np.linspace(0, 1, 6) + k
        acc = acc + lnp.bincount(labels, weights=lnp.asarray(w) * 2)
        acc_host = acc_host + np.bincount(labels_host, weights=w * 2)
    assert metrics.counters.get("graphs_executed", 0) == runs
    np.testing.assert_allclose(np.asarray(acc), acc_host)
    labels[1] = 7
    labels_host[1] = 7
    np.testing.assert_array_equal(np.asarray(lnp.bincount(labels)), np.bincount(labels_host))
    with pytest.raises(ValueError, match="negative"):
        lnp.bincount(labels - 1)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_slice_writes_across_automatic_cuts():
    """``out[a:b] += v`` cut by an automatic graph cut inside the write: the
    view kept its new value over the old base, whose buffer the cut had
    donated ("Array has been deleted" in the next graph; the spectrogram's
    overlap-add at 16,000 samples). A small node limit cuts often here."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import Runtime, use_runtime

    rng = np.random.default_rng(115)
    x, h = rng.normal(size=96), np.hanning(5)
    want = overlap_add(np, x, h)
    with use_runtime(Runtime(node_limit=20, interpret_nodes=10**9)) as rt:
        for _ in range(3):
            got = overlap_add(lnp, lnp.asarray(x), lnp.asarray(h))
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
        assert rt.metrics.counters["auto_cuts"] > 3 and rt.metrics.counters["donated_buffers"]


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_a_loop_of_writes_alone_is_still_cut():
    """The cut held back during a write is checked after it: a loop that
    only writes (x[i] = v, y[i] += w) still gets automatic cuts."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import Runtime, use_runtime

    with use_runtime(Runtime(node_limit=50, interpret_nodes=10**9)) as rt:
        x, y, w = lnp.zeros(300), lnp.zeros((300, 4)), lnp.ones(4)
        for i in range(300):
            x[i] = float(i)
            y[i] += w
        assert rt.metrics.counters["auto_cuts"] >= 10
        np.testing.assert_array_equal(np.asarray(x), np.arange(300.0))
        np.testing.assert_array_equal(np.asarray(y), np.ones((300, 4)))
