"""The plan cache (``compiler.structures``): a barrier whose graph repeats an
earlier structure is planned from one walk, and a hit is exact -- never a
program for other shared leaves, other attributes, other constants or
another layout, never a donation of a buffer still held, whatever the
structural keys say."""

import lazytensor.core as lc
import numpy as np
import pytest
from lazytensor.core import Handle, Op, compiler, make
from lazytensor.core.composite.elementwise.apply import as_node
from lazytensor.core.ir import Node
from lazytensor.core.leaves import constant
from lazytensor.core.runtime import use_runtime

F32 = np.dtype("float32")


@pytest.fixture
def rt():
    with use_runtime() as runtime:
        yield runtime


def _ones(rt, value=1.0, n=4):
    return rt.from_host(np.full(n, value, np.float32))


def _value(node):
    return Handle(node).numpy()


def test_a_repeated_structure_is_planned_from_the_cache(rt):
    x = _ones(rt)
    for _ in range(4):
        x = Handle(make(Op.MUL, (make(Op.ADD, (x.node, x.node)), as_node(0.5, F32, (4,)))))
        lc.sync()
    counters = rt.metrics.counters
    assert counters["plans_walked"] == 1 and counters["plans_cached"] == 3
    assert counters["cache_misses"] == 1
    np.testing.assert_array_equal(x.numpy(), np.ones(4, np.float32))


def test_shared_and_distinct_leaves_of_one_key_are_different_plans(rt):
    """``x + x`` and ``x + y`` (leaves of one shape) have one structural key."""
    for _ in range(2):
        x, y = _ones(rt, 1.0), _ones(rt, 2.0)
        same = make(Op.ADD, (x.node, x.node))
        other = make(Op.ADD, (x.node, y.node))
        assert same.key == other.key
        np.testing.assert_array_equal(_value(same), np.full(4, 2.0, np.float32))
        np.testing.assert_array_equal(_value(other), np.full(4, 3.0, np.float32))
    assert rt.metrics.counters["plans_cached"] == 2


def test_which_leaf_an_operation_reuses_is_part_of_the_structure(rt):
    """``(x + y) * x`` and ``(x + y) * y``: same key, same nodes in the same
    walk order, only the wiring differs."""
    for _ in range(2):
        for pick, want in ((0, 3.0), (1, 6.0)):
            x, y = _ones(rt, 1.0), _ones(rt, 2.0)
            s = make(Op.ADD, (x.node, y.node))
            out = make(Op.MUL, (s, (x.node, y.node)[pick]))
            np.testing.assert_array_equal(_value(out), np.full(4, want, np.float32))
    assert rt.metrics.counters["plans_cached"] == 2


def test_a_forced_key_collision_is_caught(rt):
    """Two different graphs whose roots' keys collide (forced here;
    ``hash(-1) == hash(-2)`` makes real ones) never share a plan."""
    for op, want in ((Op.NEG, -1.0), (Op.EXP, np.e), (Op.NEG, -1.0), (Op.EXP, np.e)):
        node = make(op, (_ones(rt).node,))
        node.key = 12345  # every root collides
        np.testing.assert_allclose(_value(node), np.full(4, want, np.float32), rtol=1e-6)
    assert rt.metrics.counters["plans_cached"] == 2  # each hit its own structure
    assert rt.metrics.counters["cache_misses"] == 2


def test_attributes_that_hash_alike_are_told_apart():
    """``hash(-1) == hash(-2)``: attributes differing only so collide."""
    cache = compiler.PlanCache()
    leaf = Node(Op.DATA, (), (), (3, 3), F32, data=np.zeros((3, 3), F32))
    a = Node(Op.NEG, (leaf,), (-1,), (3, 3), F32)
    b = Node(Op.NEG, (leaf,), (-2,), (3, 3), F32)
    assert a.key == b.key
    plan = compiler.plan([a], lambda leaf, uses: False, cache=cache)
    again = compiler.plan([b], lambda leaf, uses: False, cache=cache)
    assert again.structure is not plan.structure
    assert again.signature[0][-1][1] == (-2,)
    assert compiler.plan([a], lambda leaf, uses: False, cache=cache).structure is plan.structure


def test_a_changed_layout_or_constant_is_another_structure():
    cache = compiler.PlanCache()

    def planned(layout=(), value=1.0):
        leaf = Node(Op.DATA, (), layout, (4,), F32, data=np.zeros(4, F32))
        out = Node(Op.ADD, (leaf, constant(np.full(4, value), F32)), (), (4,), F32)
        return compiler.plan([out], lambda leaf, uses: False, cache=cache)

    first = planned()
    assert planned().structure is first.structure
    assert planned(layout=("sharded",)).structure is not first.structure
    assert planned(value=2.0).structure is not first.structure
    assert planned().structure is first.structure


def test_a_held_leaf_is_not_donated_on_a_cache_hit(rt):
    """The hit's structure donated its input last step; this step the user
    still holds the input: it must survive."""
    x = _ones(rt)
    for _ in range(3):
        x = Handle(make(Op.ADD, (x.node, x.node)))
        lc.sync()
    donated = rt.metrics.counters["donated_buffers"]
    held = x
    x = Handle(make(Op.ADD, (x.node, x.node)))
    lc.sync()
    assert rt.metrics.counters["plans_cached"] == 3
    assert rt.metrics.counters["donated_buffers"] == donated
    np.testing.assert_array_equal(held.numpy(), np.full(4, 8.0, np.float32))
    np.testing.assert_array_equal(x.numpy(), np.full(4, 16.0, np.float32))


def test_a_raw_node_held_keeps_its_inputs_on_a_cache_hit(rt):
    """As ``test_runtime``'s raw-node case, at the second sight of the
    structure (planned from the cache)."""
    data = np.arange(4, dtype=np.float32)
    for step in range(3):
        leaf = rt.from_host(data).node
        inner = make(Op.EXP, (leaf,))
        out = Handle(make(Op.NEG, (inner,)))
        del leaf
        if step < 2:
            del inner  # nothing outside holds the graph: the leaf is donated
        rt.sync()
        np.testing.assert_allclose(out.numpy(), -np.exp(data), rtol=1e-6)
    assert rt.metrics.counters["plans_cached"] == 2
    assert rt.metrics.counters["donated_buffers"] == 2
    np.testing.assert_allclose(_value(make(Op.SIN, (inner,))), np.sin(np.exp(data)), rtol=1e-5)


def test_a_node_computed_before_stands_for_its_value_and_is_not_cached(rt):
    x = _ones(rt)
    y = Handle(make(Op.NEG, (x.node,)))
    held = y.node
    y.numpy()
    for _ in range(2):
        np.testing.assert_array_equal(_value(make(Op.ADD, (held, held))),
                                      np.full(4, -2.0, np.float32))
    assert rt.metrics.counters.get("plans_cached", 0) == 0


def test_a_held_operation_over_a_computed_node_keeps_its_inputs(rt):
    """An operation held outside the graph whose operand an earlier graph
    computed (its leaf stands in for it): the walk for the held operation's
    inputs passes the stand-in (a KeyError in donation once; numpy's ridge
    regression with lstsq over a concatenation met it)."""
    x = _ones(rt)
    y = Handle(make(Op.NEG, (x.node,)))
    computed = y.node
    y.numpy()  # from now on y's leaf stands for ``computed``
    leaf = rt.from_host(np.full(4, 3.0, np.float32)).node  # donatable, the output's shape
    inner = make(Op.ADD, (computed, leaf))  # held outside the graph
    out = Handle(make(Op.EXP, (inner,)))
    del leaf
    rt.sync()
    np.testing.assert_allclose(out.numpy(), np.full(4, np.exp(2.0), np.float32), rtol=1e-6)
    np.testing.assert_allclose(_value(make(Op.SIN, (inner,))), np.full(4, np.sin(2.0)),
                               rtol=1e-6)


def test_the_cache_holds_no_node_or_buffer(rt):
    import gc
    import weakref

    x = _ones(rt)
    watch = weakref.ref(x.node)
    Handle(make(Op.NEG, (x.node,))).numpy()
    del x
    gc.collect()
    assert watch() is None
    assert len(rt.plans) == 1


@pytest.mark.parametrize("limits, kept", [({"limit": 3}, 3), ({"node_limit": 5}, 2)])
def test_the_cache_is_bounded(limits, kept):
    """At most ``limit`` structures and ``node_limit`` nodes (2 a graph here)."""
    cache = compiler.PlanCache(**limits)
    for n in range(1, 6):
        leaf = Node(Op.DATA, (), (), (n,), F32, data=np.zeros(n, F32))
        compiler.plan([Node(Op.NEG, (leaf,), (), (n,), F32)], lambda leaf, uses: False,
                      cache=cache)
    assert len(cache) == kept
    assert cache.nodes == 2 * kept
