"""Runtime semantics: barriers, caching, scalar parameters, donation safety,
automatic graph cuts, views, RNG determinism, metrics."""

import gc

import lazytensor.core as lc
import numpy as np
import pytest
from lazytensor.core import Handle, Op, ViewHandle, make
from lazytensor.core.composite.elementwise.apply import as_node
from lazytensor.core.runtime import Runtime, use_runtime

F32 = np.dtype("float32")


@pytest.fixture
def rt():
    with use_runtime() as runtime:
        yield runtime


def _scaled_exp(x: Handle, s: float) -> Handle:
    return Handle(make(Op.EXP, (make(Op.MUL, (x.node, as_node(s, F32, x.shape))),)))


def test_observation_materializes(rt):
    x = rt.from_host(np.arange(6, dtype=np.float32))
    y = _scaled_exp(x, 0.5)
    assert y.node.op is Op.EXP
    np.testing.assert_allclose(y.numpy(), np.exp(np.arange(6, dtype=np.float32) * 0.5), 1e-6)
    assert y.node.op is Op.DATA


def test_sync_materializes_all_live_pending_in_one_graph(rt):
    x = rt.from_host(np.ones(4, np.float32))
    a, b = _scaled_exp(x, 1.0), _scaled_exp(x, 2.0)
    lc.sync()
    assert a.node.op is Op.DATA and b.node.op is Op.DATA
    assert rt.metrics.counters["graphs_executed"] == 1


def test_new_data_and_new_scalars_reuse_the_executable(rt):
    for step in range(4):
        x = rt.from_host(np.random.rand(3, 5).astype(np.float32))
        y = _scaled_exp(x, 0.1 * step)
        np.testing.assert_allclose(y.numpy(), np.exp(x.numpy() * np.float32(0.1 * step)),
                                   rtol=1e-6)
    assert rt.metrics.counters["cache_misses"] == 1
    assert rt.metrics.counters["cache_hits"] == 3


def test_cache_miss_says_why(rt):
    _scaled_exp(rt.from_host(np.ones((2, 3), np.float32)), 1.0).numpy()
    _scaled_exp(rt.from_host(np.ones((2, 4), np.float32)), 1.0).numpy()
    reason = rt.metrics.miss_reasons[-1]
    assert "parameter" in reason and "[2, 4]" in reason and "[2, 3]" in reason


def test_rebinding_donates_but_held_values_survive(rt):
    x = rt.from_host(np.ones((8,), np.float32))
    for _ in range(3):
        x = Handle(make(Op.ADD, (x.node, x.node)))
        lc.sync()
    assert rt.metrics.counters["donated_buffers"] >= 2
    np.testing.assert_array_equal(x.numpy(), np.full(8, 8.0, np.float32))
    held = rt.from_host(np.ones((8,), np.float32))
    alias = held
    y = Handle(make(Op.ADD, (held.node, held.node)))
    del held
    lc.sync()
    np.testing.assert_array_equal(alias.numpy(), np.ones(8, np.float32))
    np.testing.assert_array_equal(y.numpy(), np.full(8, 2.0, np.float32))


def test_value_held_by_another_pending_graph_is_not_donated(rt):
    x = rt.from_host(np.ones((4,), np.float32))
    other = x.node  # e.g. a frontend keeping the node for later
    y = Handle(make(Op.NEG, (x.node,)))
    del x
    y.numpy()
    later = Handle(make(Op.ADD, (other, other)))
    np.testing.assert_array_equal(later.numpy(), np.full(4, 2.0, np.float32))



def test_a_node_held_across_a_barrier_uses_its_computed_value(rt):
    """A frontend takes an array's pending node, reads a value back (the
    barrier donates the buffer below that node to the node's own output),
    then builds on the node: the graph reads the node's computed value
    instead of recomputing it from the donated buffer."""
    x = rt.from_host(np.ones((4,), np.float32))
    y = Handle(make(Op.NEG, (x.node,)))
    del x
    held = y.node
    above = make(Op.EXP, (held,))  # built before the barrier, outside any handle
    Handle(make(Op.ADD, (held, held))).numpy()
    assert rt.metrics.counters["donated_buffers"] == 1
    later = Handle(make(Op.MUL, (held, above)))
    np.testing.assert_allclose(later.numpy(), np.full(4, -np.exp(-1.0), np.float32), 1e-6)
    assert later.node.op is Op.DATA
    del y  # the memo is weak: it never keeps a buffer from being donated
    gc.collect()
    assert held.memo() is None

def test_a_computed_value_standing_in_for_its_node_is_never_donated(rt):
    """The leaf that stands for an already computed node comes before a
    donatable input in the graph's parameters: the donation must name the
    input's parameter, not the stand-in's (the held value was deleted)."""
    x = rt.from_host(np.ones(4, np.float32))
    y = Handle(make(Op.NEG, (x.node,)))
    held = y.node
    y.numpy()  # computed: ``held`` stands for y's value from now on
    fresh = rt.from_host(np.full(4, 5.0, np.float32)).node
    out = Handle(make(Op.ADD, (held, fresh)))
    del fresh  # only the graph holds it: its buffer is donated
    np.testing.assert_array_equal(out.numpy(), np.full(4, 4.0, np.float32))
    assert rt.metrics.counters["donated_buffers"] == 1
    np.testing.assert_array_equal(y.numpy(), np.full(4, -1.0, np.float32))


def test_graph_is_cut_automatically():
    with use_runtime(Runtime(node_limit=50)) as rt:
        x = rt.from_host(np.zeros(3, np.float32))
        one = as_node(1.0, F32, (3,))
        for _ in range(200):
            x = Handle(make(Op.ADD, (x.node, one)))
        assert rt.metrics.counters["auto_cuts"] >= 3
        np.testing.assert_array_equal(x.numpy(), np.full(3, 200.0, np.float32))


def test_recording_dropped_before_the_barrier_does_not_cut_the_graph():
    """Only what live values hold counts toward a cut: dropped values (a
    masked read's unused full-shape side) once cut a step at a point that
    depended on them, giving it a graph -- and a compile -- of its own."""
    with use_runtime(Runtime(node_limit=50)) as rt:
        x = rt.from_host(np.zeros(3, np.float32))
        one = as_node(1.0, F32, (3,))
        kept = Handle(make(Op.ADD, (x.node, one)))
        for _ in range(200):
            Handle(make(Op.MUL, (kept.node, one)))  # dropped at once
        assert rt.metrics.counters["auto_cuts"] == 0
        for _ in range(60):  # a live chain past the limit is still cut
            kept = Handle(make(Op.ADD, (kept.node, one)))
        assert rt.metrics.counters["auto_cuts"] == 1
        np.testing.assert_array_equal(kept.numpy(), np.full(3, 61.0, np.float32))


def test_a_view_write_that_cuts_the_graph_keeps_its_value():
    """An automatic cut inside a view's write (its base takes the write and
    the base's graph is cut) must not leave the view caching a value over the
    old base: when the cut donated the old base's buffers, the next graph
    raised 'Array has been deleted' (automatic cuts no longer donate, see
    the next test; the view reads the new base either way)."""
    def forward(b):
        return make(Op.SLICE, (b,), (2,), (4,), (1,))

    def backward(b, v):
        return make(Op.DYNAMIC_UPDATE_SLICE, (b, v, as_node(2, np.dtype("int32"))))

    with use_runtime(Runtime(node_limit=6)) as rt:
        base = rt.from_host(np.zeros(6, np.float32))
        view = ViewHandle(base, forward, backward)
        one = as_node(1.0, F32, (2,))
        for _ in range(40):
            view.assign(make(Op.ADD, (view.node, one)))
        assert rt.metrics.counters["auto_cuts"] > 0
        np.testing.assert_array_equal(view.numpy(), np.full(2, 40.0, np.float32))
        np.testing.assert_array_equal(base.numpy(), [0, 0, 40, 40, 0, 0])


def test_an_automatic_cut_between_the_outputs_of_one_op_keeps_their_inputs():
    """An op that builds several outputs over shared nodes wraps them one by
    one; a cut at the first must not donate the buffers the others still
    read (torch's batch-norm backward: 'Array has been deleted' at the
    next graph)."""
    with use_runtime(Runtime(node_limit=4)) as rt:
        x = rt.from_host(np.ones(3, np.float32))
        leaf = x.node
        del x  # only the op's nodes hold the input now
        ballast = [Handle(make(Op.NEG, (leaf,))) for _ in range(3)]
        shared = make(Op.NEG, (leaf,))
        first = make(Op.ADD, (shared, as_node(1.0, F32, (3,))))
        second = make(Op.MUL, (shared, as_node(2.0, F32, (3,))))
        del leaf, shared
        outputs = [Handle(first), Handle(second)]  # the first one cuts
        assert rt.metrics.counters["auto_cuts"] == 1
        np.testing.assert_array_equal(outputs[1].numpy(), np.full(3, -2.0, np.float32))
        np.testing.assert_array_equal(outputs[0].numpy(), np.zeros(3, np.float32))
        del ballast


def test_a_raw_node_held_across_a_barrier_keeps_its_inputs(rt):
    """A frontend may keep a raw interior node (not a handle) across a
    barrier and build on it later: the barrier must not donate the buffers
    that node is replayed from ('Array has been deleted' before)."""
    data = np.arange(4, dtype=np.float32)
    leaf = rt.from_host(data).node
    inner = make(Op.EXP, (leaf,))
    out = Handle(make(Op.NEG, (inner,)))  # same shape as the leaf: a donation candidate
    del leaf
    rt.sync()
    np.testing.assert_allclose(out.numpy(), -np.exp(data), rtol=1e-6)
    np.testing.assert_allclose(Handle(make(Op.SIN, (inner,))).numpy(), np.sin(np.exp(data)),
                               rtol=1e-5)
    assert rt.metrics.counters.get("donated_buffers", 0) == 0


def test_a_cached_view_does_not_stop_donations(rt):
    """A view caches its node over its base's (torch's ``grad.t()``); the
    base is a root of the graph, whose node stands for its computed value,
    so the cache does not keep the leaves below the base from donation."""
    x = rt.from_host(np.ones((2, 3), np.float32))
    leaf = x.node
    del x
    g = Handle(make(Op.NEG, (leaf,)))
    view = ViewHandle(g, lambda n: make(Op.TRANSPOSE, (n,), (1, 0)), None)
    out = Handle(make(Op.TRANSPOSE, (make(Op.EXP, (view.node,)),), (1, 0)))
    del leaf
    rt.sync()
    assert rt.metrics.counters["donated_buffers"] == 1
    np.testing.assert_array_equal(g.numpy(), np.full((2, 3), -1.0, np.float32))
    np.testing.assert_allclose(out.numpy(), np.full((2, 3), np.exp(-1.0), np.float32), rtol=1e-6)
    np.testing.assert_array_equal(view.numpy(), np.full((3, 2), -1.0, np.float32))


def test_deep_graph_does_not_hit_recursion_limit(rt):
    x = rt.from_host(np.zeros(2, np.float32))
    one = as_node(1.0, F32, (2,))
    for _ in range(5000):
        x = Handle(make(Op.ADD, (x.node, one)))
    np.testing.assert_array_equal(x.numpy(), np.full(2, 5000.0, np.float32))


def _row(index: int):
    def forward(base):
        row = make(Op.SLICE, (base,), (index, 0), (index + 1, base.shape[1]), (1, 1))
        return make(Op.RESHAPE, (row,), (base.shape[1],))

    def backward(base, value):
        row = make(Op.RESHAPE, (value,), (1, base.shape[1]))
        start = [lc.scalar(index, np.dtype("int32")), lc.scalar(0, np.dtype("int32"))]
        return make(Op.DYNAMIC_UPDATE_SLICE, (base, row, *start))

    return forward, backward


def test_view_reads_and_writes_reach_the_base(rt):
    base = rt.from_host(np.zeros((3, 4), np.float32))
    view = ViewHandle(base, *_row(1))
    view.assign(as_node(5.0, F32, (4,)))
    expected = np.zeros((3, 4), np.float32)
    expected[1] = 5.0
    np.testing.assert_array_equal(base.numpy(), expected)
    base.assign(make(Op.ADD, (base.node, as_node(1.0, F32, (3, 4)))))
    np.testing.assert_array_equal(view.numpy(), np.full(4, 6.0, np.float32))
    sub = ViewHandle(view, lambda n: make(Op.SLICE, (n,), (0,), (2,), (1,)), None)
    np.testing.assert_array_equal(sub.numpy(), np.full(2, 6.0, np.float32))
    with pytest.raises(ValueError, match="cannot be written"):
        sub.assign(as_node(0.0, F32, (2,)))


def test_rng_is_deterministic_under_a_seed(rt):
    def draw():
        return Handle(make(Op.RNG_UNIFORM, (rt.rng.next_key(),), (1000,), F32)).numpy()

    rt.rng.manual_seed(7)
    a1, a2 = draw(), draw()
    rt.rng.manual_seed(7)
    b1 = draw()
    np.testing.assert_array_equal(a1, b1)
    assert not np.array_equal(a1, a2)
    assert 0.0 <= a1.min() and a1.max() < 1.0 and abs(a1.mean() - 0.5) < 0.05
    assert rt.metrics.counters["cache_misses"] == 1


def test_metrics_report_and_dict(rt):
    _scaled_exp(rt.from_host(np.ones(2, np.float32)), 1.0).numpy()
    text = lc.metrics.report()
    d = lc.metrics.as_dict()
    assert "cache_misses" in text and "compile" in text
    assert d["counters"]["graphs_executed"] == 1
    assert d["timers"]["compile"]["calls"] == 1


def test_dead_handles_are_not_computed(rt):
    x = rt.from_host(np.ones(2, np.float32))
    y = _scaled_exp(x, 1.0)
    del y
    gc.collect()
    lc.sync()
    assert rt.metrics.counters["graphs_executed"] == 0


def test_recycled_output_buffers_never_alias_held_values(rt):
    n = 1 << 17  # 512 KiB of float32: large enough for the recycle pool
    x = rt.from_host(np.ones(n, np.float32))
    kept = []
    for step in range(4):
        y = Handle(make(Op.ADD, (x.node, as_node(float(step), F32, (n,)))))
        y.value()
        if step % 2 == 0:
            kept.append((step, y))
    assert rt.metrics.counters["recycled_buffers"] >= 1
    for step, held in kept:
        np.testing.assert_array_equal(held.numpy()[:3], np.full(3, 1.0 + step, np.float32))
    np.testing.assert_array_equal(x.numpy()[:3], np.ones(3, np.float32))


def test_a_graph_with_a_large_output_compiles_once_before_and_after_the_pool_fills(rt):
    """The first step has no dead buffer to recycle for the output; it gets a
    fresh one, so its signature (and executable) is the later steps'."""
    n = 1 << 17
    x = rt.from_host(np.ones(n, np.float32))
    for step in range(4):
        y = Handle(make(Op.ADD, (x.node, as_node(float(step), F32, (n,)))))
        np.testing.assert_array_equal(y.numpy()[:2], np.full(2, 1.0 + step, np.float32))
        del y
    assert rt.metrics.counters["cache_misses"] == 1, rt.metrics.miss_reasons
    assert rt.metrics.counters["recycled_buffers"] >= 2


def test_debug_dump_dot_stablehlo_and_graph_key(rt):
    from lazytensor.core import debug

    x = rt.from_host(np.ones((2, 3), np.float32))
    y = _scaled_exp(x, 2.0)
    text = debug.dump(y)
    assert "EXP" in text and "MUL" in text and "scalar parameter = 2.0" in text
    assert "->" in debug.to_dot(y)
    assert "stablehlo.exponential" in debug.stablehlo(y)
    other = _scaled_exp(rt.from_host(np.zeros((2, 3), np.float32)), 5.0)
    assert debug.graph_key(y) == debug.graph_key(other)
    assert debug.graph_key(y) != debug.graph_key(_scaled_exp(x, 2.0), y)
    assert y.node.op is Op.EXP  # inspecting never executes


def test_leaf_handles_materialize_to_arrays_of_their_shape(rt):
    filled = Handle(lc.scalar(2.5, F32, (2, 3)))
    np.testing.assert_array_equal(filled.numpy(), np.full((2, 3), 2.5, np.float32))
    const = Handle(lc.constant([1, 2], np.dtype("int32")))
    out = const.numpy()
    assert out.dtype == np.int32 and out.tolist() == [1, 2]


@pytest.mark.parametrize("setting, frozen", [("1", True), ("0", False)])
def test_first_graph_freezes_startup_objects_unless_turned_off(setting, frozen):
    """Full collections skip the startup heap after the first graph runs
    (LAZYTENSOR_GC_FREEZE=0 keeps Python's default)."""
    import os
    import subprocess
    import sys

    script = ("import gc, numpy as np, lazytensor.core as lc\n"
              "from lazytensor.core import Handle, Op, make\n"
              "before = gc.get_freeze_count()\n"
              "h = Handle(make(Op.NEG, (lc.get_runtime().from_host(np.ones(3)).node,)))\n"
              "lc.sync()\n"
              "print(before, gc.get_freeze_count())\n")
    env = {**os.environ, "LAZYTENSOR_GC_FREEZE": setting}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    before, after = int(out[0]), int(out[1])
    assert before == 0 and (after > 1000) is frozen
