"""Tiered execution: a large graph structure seen for the first time runs op
by op (``compiler.interpret``), and again until that has cost what compiling
it is expected to cost; then it is compiled."""

import jax
import numpy as np
import pytest
from lazytensor.core import Handle, Op, make
from lazytensor.core.composite.elementwise.apply import as_node
from lazytensor.core.leaves import constant
from lazytensor.core.runtime import DEFAULT_INTERPRET_NODES, INTERPRET_REPEATS, Runtime, use_runtime

F32 = np.dtype("float32")
# rounds of a chain that repeats its (at most 5) distinct operations often
# enough to run op by op on first sight
LONG = 2 * INTERPRET_REPEATS


def _chain(x: Handle, steps: int, scale: float) -> Handle:
    """``steps`` rounds of ``tanh(x * scale) + x``: 3 nodes (and a scalar) each."""
    node = x.node
    for _ in range(steps):
        mul = make(Op.MUL, (node, as_node(scale, F32, node.shape)))
        node = make(Op.ADD, (make(Op.TANH, (mul,)), node))
    return Handle(node)


def _expected(host: np.ndarray, steps: int, scale: float) -> np.ndarray:
    x = host.astype(np.float32)
    for _ in range(steps):
        x = np.tanh(x * np.float32(scale)) + x
    return x


def test_a_large_new_graph_runs_uncompiled_then_compiles_once_it_repeats():
    with use_runtime(Runtime(interpret_nodes=50, compile_seconds_per_node=0.0)) as rt:
        for step in range(4):
            host = np.random.default_rng(step).standard_normal(6).astype(np.float32)
            out = _chain(rt.from_host(host), LONG, 0.5 + 0.1 * step).numpy()
            np.testing.assert_allclose(out, _expected(host, LONG, 0.5 + 0.1 * step), rtol=1e-5)
            counters = rt.metrics.counters
            assert counters["graphs_interpreted"] == 1  # the first sight only
            assert counters["cache_misses"] == (step > 0)  # compiled on the second sight
            assert counters["cache_hits"] == max(step - 1, 0)
        assert rt.metrics.timers["interpret"][0] == 1 and rt.metrics.timers["compile"][0] == 1


def test_a_graph_runs_op_by_op_until_that_costs_what_compiling_it_would():
    """Ski rental: while the seconds spent running a structure op by op stay
    below its expected compile time (nodes x seconds a node), it is not
    compiled (a numpy minibatch loop cut every 5,000 nodes: 27 s on its
    first run with each cut compiled on its second sight, 6 s so); then it
    is, and that compile's rate becomes the estimate."""
    with use_runtime(Runtime(interpret_nodes=50, compile_seconds_per_node=10.0)) as rt:
        def run(step: int) -> None:
            host = np.full(6, 0.1 * step, np.float32)
            out = _chain(rt.from_host(host), LONG, 0.5).numpy()
            np.testing.assert_allclose(out, _expected(host, LONG, 0.5), rtol=1e-5)

        for step in range(3):
            run(step)
        assert rt.metrics.counters["graphs_interpreted"] == 3
        assert rt.metrics.counters["cache_misses"] == 0
        rt.compile_seconds_per_node = 1e-9  # now compiling is the cheaper choice
        run(3)
        assert rt.metrics.counters["graphs_interpreted"] == 3
        assert rt.metrics.counters["cache_misses"] == 1
        compile_seconds = rt.metrics.timers["compile"][1]
        nodes = 4 * LONG + 1  # 3 nodes and a scalar a round, and the input
        assert rt.compile_seconds_per_node == pytest.approx(compile_seconds / nodes)


def test_small_graphs_compile_at_once():
    with use_runtime(Runtime(interpret_nodes=1_000)) as rt:
        _chain(rt.from_host(np.ones(3, np.float32)), 5, 0.5).numpy()
        assert rt.metrics.counters["graphs_interpreted"] == 0
        assert rt.metrics.counters["cache_misses"] == 1


def test_interpreted_and_compiled_results_agree():
    host = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    results = []
    for limit in (0, 10**9):  # interpret everything new / never interpret
        with use_runtime(Runtime(interpret_nodes=limit)) as rt:
            x = rt.from_host(host)
            total = Handle(make(Op.REDUCE_SUM, (_chain(x, LONG, 0.3).node,), (1,)))
            results.append(total.numpy())
            assert rt.metrics.counters["graphs_interpreted"] == (limit == 0)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6, atol=1e-4)  # a row sums to ~0
    assert results[0].dtype == results[1].dtype == F32 and results[0].shape == (3,)


def test_interpreted_outputs_are_fresh_device_buffers():
    """A root that is an input or a constant still comes back as a new
    jax.Array, so donating it later can never free what the user holds."""
    with use_runtime(Runtime(interpret_nodes=0)) as rt:
        x = rt.from_host(np.arange(4, dtype=np.float32))
        held = x.node.data
        same = Handle(make(Op.RESHAPE, (x.node,), (4,)))  # jax returns its operand
        const = Handle(constant(np.array([1, 2], np.int32), np.dtype("int32")))
        repeats = _chain(x, LONG, 0.1)  # (a graph that repeats its operations)
        rt.sync(extra=(same, const, repeats))
        assert rt.metrics.counters["graphs_interpreted"] == 1
        assert isinstance(const.node.data, jax.Array)
        np.testing.assert_array_equal(const.numpy(), [1, 2])
        assert same.node.data is not held
        np.testing.assert_array_equal(same.numpy(), np.arange(4, dtype=np.float32))


def test_a_graph_of_distinct_operations_compiles_at_once():
    """Op by op, JAX compiles every distinct operation on its own: a graph
    that does not repeat its operations is cheaper compiled whole."""
    with use_runtime(Runtime(interpret_nodes=0)) as rt:
        node = rt.from_host(np.linspace(0.1, 1, 6, dtype=np.float32)).node
        for op in (Op.EXP, Op.TANH, Op.NEG, Op.ABS, Op.SIN, Op.COS, Op.SQRT, Op.LOG):
            node = make(op, (node,))
        Handle(node).numpy()
        assert rt.metrics.counters["graphs_interpreted"] == 0
        assert rt.metrics.counters["cache_misses"] == 1


def test_the_threshold_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("LAZYTENSOR_INTERPRET_NODES", "7")
    assert Runtime().interpret_nodes == 7
    monkeypatch.delenv("LAZYTENSOR_INTERPRET_NODES")
    assert Runtime().interpret_nodes == DEFAULT_INTERPRET_NODES


@pytest.mark.parametrize("donate", [True, False])
def test_an_interpreted_step_then_compiled_steps_update_in_place(donate):
    """A parameter rebound every step (the training-loop pattern): the
    interpreted first step, then compiled ones with donation, all correct."""
    with use_runtime(Runtime(interpret_nodes=20, donate=donate,
                             compile_seconds_per_node=0.0)) as rt:
        w = rt.from_host(np.ones(5, np.float32))
        expected = np.ones(5, np.float32)
        for _ in range(4):
            w = _chain(w, LONG, 0.1)
            w.numpy()
            expected = _expected(expected, LONG, 0.1)
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5)
        assert rt.metrics.counters["graphs_interpreted"] == 1


def test_a_graph_that_repeats_its_operations_a_few_times_compiles_at_once():
    """Op by op, every distinct operation costs JAX a compile of 5-80 ms: a
    graph of a few dozen distinct operations repeated some twenty times (an
    RNN unrolled with an orthogonal parametrization's matrix_exp: 2,533
    nodes, 134 distinct) took 13.4 s interpreted, 6.3 s compiled whole."""
    with use_runtime(Runtime(interpret_nodes=0)) as rt:
        node = rt.from_host(np.linspace(0.1, 1, 6, dtype=np.float32)).node
        for _ in range(20):  # 160 nodes, 8 distinct operations
            for op in (Op.EXP, Op.TANH, Op.NEG, Op.ABS, Op.SIN, Op.COS, Op.SQRT, Op.LOG1P):
                node = make(op, (node,))
        Handle(node).numpy()
        assert rt.metrics.counters["graphs_interpreted"] == 0
        assert rt.metrics.counters["cache_misses"] == 1
