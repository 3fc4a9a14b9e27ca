"""Deferred checks (lazytensor.core.deferred): an error that depends on a
computed value is raised by the barrier that computes it, once, with the
frontend's exception and the line that recorded the op."""

import threading

import lazytensor.core as lc
import numpy as np
import pytest
from lazytensor.core import Handle, Op, make
from lazytensor.core.composite.elementwise.apply import as_node
from lazytensor.core.deferred import recording_site
from lazytensor.core.runtime import use_runtime

F32 = np.dtype("float32")


class ValueProblem(Exception):
    pass


@pytest.fixture
def rt():
    with use_runtime() as runtime:
        yield runtime


def _negative_sqrt(rt, values):
    """sqrt of ``values``, with a check that none is negative."""
    x = rt.from_host(np.asarray(values, np.float32))
    flag = make(Op.LT, (x.node, as_node(0.0, F32, x.shape)))
    seen = {}

    def error(flags, detail, site):
        seen.update(flags=flags, detail=detail, site=site)
        return ValueProblem(f"negative at {np.flatnonzero(flags).tolist()}: {detail} ({site})")

    rt.defer(flag, error, x.node, recording_site("sqrt"))
    return Handle(make(Op.SQRT, (x.node,))), seen


def test_barrier_that_computes_the_flag_raises_with_the_recording_line(rt):
    y, seen = _negative_sqrt(rt, [4.0, -1.0, 9.0])
    line = _negative_sqrt.__code__.co_firstlineno
    with pytest.raises(ValueProblem, match=r"negative at \[1\]: \[ 4. -1.  9.\]"):
        lc.sync()
    assert seen["site"].startswith("sqrt recorded at ") and __file__ in seen["site"]
    assert int(seen["site"].split(":")[-1].split()[0]) > line  # inside _negative_sqrt
    assert y.node.op is Op.DATA  # the value is computed all the same (NaN)
    assert np.isnan(y.numpy()[1]) and y.numpy()[0] == 2.0
    lc.sync()  # raised once


def test_a_read_raises_and_valid_values_raise_nothing(rt):
    y, _ = _negative_sqrt(rt, [-4.0])
    with pytest.raises(ValueProblem):
        y.numpy()
    ok, seen = _negative_sqrt(rt, [1.0, 4.0])
    np.testing.assert_array_equal(ok.numpy(), [1.0, 2.0])
    assert not seen and not len(rt.checks)


def test_detail_is_computed_only_when_the_check_fails(rt):
    _negative_sqrt(rt, [1.0])
    lc.sync()
    executed = rt.metrics.counters["graphs_executed"]
    assert executed == 1  # flag and value in one graph, no detail graph


def test_a_known_flag_raises_at_once(rt):
    with pytest.raises(ValueProblem):
        rt.defer(as_node(True, np.dtype(bool), ()), lambda f, d, s: ValueProblem(s),
                 None, recording_site("op"))
    assert not len(rt.checks)


def test_an_automatic_cut_computes_flags_and_the_next_barrier_raises(rt):
    y, _ = _negative_sqrt(rt, [-1.0])
    with rt.checks.held():  # as a cut in the middle of recording an op
        lc.sync()
    assert y.node.op is Op.DATA and len(rt.checks) == 1
    with pytest.raises(ValueProblem):
        lc.sync()
    assert not len(rt.checks)


def test_checks_belong_to_the_thread_that_recorded_them(rt):
    _negative_sqrt(rt, [-1.0])
    errors = []

    def other():
        with use_runtime(rt):
            try:
                lc.sync()
            except ValueProblem as exc:  # pragma: no cover - the failure mode
                errors.append(exc)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert not errors and len(rt.checks) == 1
    with pytest.raises(ValueProblem):
        lc.sync()
