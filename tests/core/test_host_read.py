"""Reading elements and rows of computed data on the host (core.host_read):
the same values as running the graph, and no graph run."""

from __future__ import annotations

import numpy as np
import pytest
from lazytensor.core import compiler, host_read
from lazytensor.core.leaves import data_leaf, scalar
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import Handle, use_runtime

I64 = np.dtype("int64")
BASE = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


def _dyn(x, starts, sizes):
    return make(Op.DYNAMIC_SLICE, (x, *(scalar(s, I64) for s in starts)), tuple(sizes))


MOVES = {
    "element": lambda x: make(Op.RESHAPE, (_dyn(x, (1, 2, 3), (1, 1, 1)),), ()),
    "row": lambda x: make(Op.RESHAPE, (_dyn(x, (0, 1, 0), (1, 1, 4)),), (4,)),
    "clamped_start": lambda x: _dyn(x, (5, -3, 2), (1, 2, 2)),  # XLA clamps into range
    "strided_slice": lambda x: make(Op.SLICE, (x,), (0, 1, 0), (2, 3, 4), (1, 1, 3)),
    "unit_slice": lambda x: make(Op.SLICE, (x,), (1, 0, 1), (2, 2, 3), (1, 1, 1)),
    "transpose_then_row": lambda x: _dyn(make(Op.TRANSPOSE, (x,), (2, 0, 1)), (3, 0, 0),
                                         (1, 2, 3)),
    "reversed": lambda x: make(Op.REV, (x,), (0, 2)),
    "broadcast": lambda x: make(Op.BROADCAST_IN_DIM, (_dyn(x, (0, 0, 1), (1, 3, 1)),),
                                (5, 1, 3, 2), (1, 2, 3)),
}


@pytest.fixture
def fresh():
    with use_runtime() as runtime:
        yield runtime


@pytest.mark.parametrize("move", MOVES.values(), ids=MOVES.keys())
def test_a_move_of_computed_data_reads_on_the_host_as_the_graph_computes(move, fresh):
    node = move(data_leaf(compiler.to_device(BASE)))
    got = Handle(node).numpy()
    assert fresh.metrics.counters["graphs_executed"] == 0
    assert fresh.metrics.counters["host_reads"] == 1
    want = Handle(move(data_leaf(compiler.to_device(BASE)))).value()  # runs the graph
    assert fresh.metrics.counters["graphs_executed"] == 1
    want = compiler.to_host(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)
    assert got.flags.writeable and got.flags.owndata  # a fresh copy, not the buffer


def test_a_host_read_keeps_the_value_out_of_the_next_graph(fresh):
    """A value read on the host is kept (an element as a scalar parameter, a
    row uploaded): a program holding many read elements does not make its
    next barrier compute them all again as outputs of one large graph."""
    leaf = data_leaf(compiler.to_device(BASE))
    element, row = Handle(MOVES["element"](leaf)), Handle(MOVES["row"](leaf))
    got = element.numpy(), row.numpy()
    assert (element.node.op, row.node.op) == (Op.SCALAR, Op.DATA)
    assert fresh.pending_handles() == []
    np.testing.assert_array_equal(got[0], BASE[1, 2, 3])
    np.testing.assert_array_equal(compiler.to_host(row.value()), BASE[0, 1])
    later = Handle(make(Op.ADD, (element.node, element.node)))  # the kept value computes on
    assert later.numpy() == 2 * BASE[1, 2, 3]


def test_a_view_of_a_computed_node_reads_its_computed_value(fresh):
    doubled = make(Op.MUL, (data_leaf(compiler.to_device(BASE)),
                            data_leaf(compiler.to_device(np.full_like(BASE, 2)))))
    total = Handle(doubled)
    view = Handle(MOVES["element"](doubled))  # built on the node before it ran
    fresh.sync(extra=(total,))
    executed = fresh.metrics.counters["graphs_executed"]
    assert view.numpy() == 2 * BASE[1, 2, 3]
    assert fresh.metrics.counters["graphs_executed"] == executed


@pytest.mark.parametrize("case", ["arithmetic", "too_many_nodes", "deleted_buffer"])
def test_other_values_run_their_graph(case, fresh):
    leaf = data_leaf(compiler.to_device(BASE))
    if case == "arithmetic":
        node = make(Op.NEG, (MOVES["row"](leaf),))
    elif case == "too_many_nodes":
        node = leaf
        for _ in range(host_read.MAX_NODES):
            node = make(Op.TRANSPOSE, (node,), (1, 0, 2))
    else:
        node = MOVES["row"](leaf)
        leaf.data.delete()
    assert host_read.read(node) is None
