"""Indexing with 0-d *dynamic* index Nodes (``for t, p in zip(y, yhat):
cm[t, p] += 1``): reads become DYNAMIC_SLICE and writes
DYNAMIC_UPDATE_SLICE instead of GATHER/SCATTER (XLA compiles a loop of
those about twice as fast), with numpy's values and the documented
out-of-bounds rule (reads clip, writes are dropped)."""

import numpy as np
import pytest
from lazytensor.core import Handle, Op, make
from lazytensor.core.composite.indexing import subscript as ix
from lazytensor.core.runtime import get_runtime

X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)


def dev(a):
    return get_runtime().from_host(np.asarray(a)).node


def dynamic(i: int):
    """A 0-d int64 Node whose value is only known at run time."""
    return make(Op.RESHAPE, (make(Op.DYNAMIC_SLICE, (dev(np.array([i], np.int64)),
                                                     ix.index_constant(0)), (1,)),), ())


def ops_of(node) -> set:
    """Every op in the graph under ``node``."""
    ops, stack, seen = set(), [node], set()
    while stack:
        n = stack.pop()
        if id(n) not in seen:
            seen.add(id(n))
            ops.add(n.op)
            stack.extend(n.operands)
    return ops


POINTS = [(1, 2), (-1, -3), (0, 3)]


@pytest.mark.parametrize(("i", "j"), POINTS)
def test_point_reads_and_writes_match_numpy(i, j):
    x = dev(X)
    index = (dynamic(i), slice(None), dynamic(j))  # non-adjacent advanced axes
    read = ix.getitem(x, index)
    put = ix.setitem(x, index, 7.0)
    add = ix.setitem(x, (dynamic(i), dynamic(j)), dev(np.ones(5, np.float32)), kind="add")
    want_put, want_add = X.copy(), X.copy()
    want_put[i, :, j] = 7.0
    want_add[i, j] += 1
    for node, want in ((read, X[i, :, j]), (put, want_put), (add, want_add)):
        got = Handle(node).numpy()
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert Op.SCATTER not in ops_of(put) | ops_of(add)
    assert Op.GATHER not in ops_of(read)
    assert Op.DYNAMIC_UPDATE_SLICE in ops_of(put)


def test_point_write_out_of_bounds_is_dropped():
    x = dev(X)
    for bad in (3, -4, 100):  # beyond the axis (after negative wrapping)
        got = Handle(ix.setitem(x, (dynamic(bad), 0), -1.0)).numpy()
        np.testing.assert_array_equal(got, X)
        got = Handle(ix.setitem(x, (dynamic(bad), 0), 5.0, kind="add")).numpy()
        np.testing.assert_array_equal(got, X)


def test_point_read_out_of_bounds_clips():
    got = Handle(ix.getitem(dev(X), (dynamic(7), dynamic(-9)))).numpy()
    np.testing.assert_array_equal(got, X[2, 0])


def test_known_point_write_needs_no_bounds_select():
    """Host 0-d indices are checked when the plan is made."""
    node = ix.setitem(dev(X), (np.array(1), np.array(2)), 0.0)
    assert Op.SELECT not in ops_of(node) and Op.SCATTER not in ops_of(node)
    want = X.copy()
    want[1, 2] = 0
    np.testing.assert_array_equal(Handle(node).numpy(), want)


def test_loop_of_point_updates_counts_like_numpy():
    """The confusion-matrix loop: duplicates accumulate one update at a time."""
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 3, 12), rng.integers(0, 3, 12)
    td, pd = dev(t), dev(p)
    cm = dev(np.zeros((3, 3), np.int64))
    for k in range(len(t)):
        ti = make(Op.RESHAPE, (make(Op.DYNAMIC_SLICE, (td, ix.index_constant(k)), (1,)),), ())
        pk = make(Op.RESHAPE, (make(Op.DYNAMIC_SLICE, (pd, ix.index_constant(k)), (1,)),), ())
        one_more = make(Op.ADD, (ix.getitem(cm, (ti, pk)), ix.index_constant(1)))
        cm = ix.setitem(cm, (ti, pk), one_more)
    want = np.zeros((3, 3), np.int64)
    np.add.at(want, (t, p), 1)
    np.testing.assert_array_equal(Handle(cm).numpy(), want)
