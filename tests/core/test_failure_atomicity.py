"""A sync that fails changes no value (``lazytensor.core.failures``): for
each failure kind (a compile error, an exception in a lowering rule, out
of memory, Ctrl-C during a compile or just before dispatch), every pending
value stays pending, device data stays valid and nothing is donated; the
next sync computes every surviving pending value. Ctrl-C during an
execution is held until the handles are re-pointed: the graph's values are
all there when it is raised."""

from __future__ import annotations

import signal
import weakref

import numpy as np
import pytest
from lazytensor.core import Handle, Op, compiler, failures, make, scalar, use_runtime
from lazytensor.core.lowering import LOWERINGS

F32 = np.dtype("float32")


def _plus(handle: Handle, value: float) -> Handle:
    filled = make(Op.BROADCAST_IN_DIM, (scalar(value, handle.dtype),), handle.shape, ())
    return Handle(make(Op.ADD, (handle.node, filled)))


class Program:
    """A parameter ``w`` with a pending in-place update (its old buffer
    donatable), a pending value ``y`` over it, and a computed value ``c``."""

    def __init__(self, rt) -> None:
        self.rt = rt
        self.c = rt.from_host(np.full(3, 7.0, F32))
        self.w = rt.from_host(np.zeros(4, F32))
        # the buffer a successful sync donates (held weakly: a reference keeps it)
        self.old = weakref.ref(self.w.node.data)
        self.w.assign(_plus(self.w, -1.0).node)  # w -= 1
        self.y = _plus(self.w, 10.0)

    def check_unchanged(self) -> None:
        assert self.w.node.op is Op.ADD and self.y.node.op is Op.ADD  # still pending
        assert {id(h) for h in self.rt.pending_handles()} >= {id(self.w), id(self.y)}
        old = self.old()
        assert old is not None and not old.is_deleted()  # nothing donated
        del old
        assert self.rt.metrics.counters["donated_buffers"] == 0
        np.testing.assert_array_equal(np.asarray(self.c.value()), np.full(3, 7.0))

    def check_computed(self) -> None:
        assert self.w.node.op is Op.DATA and self.y.node.op is Op.DATA
        np.testing.assert_array_equal(self.w.numpy(), np.full(4, -1.0))
        np.testing.assert_array_equal(self.y.numpy(), np.full(4, 9.0))


def _raising(error: BaseException):
    def replacement(*args, **kwargs):
        raise error
    return replacement


@pytest.mark.parametrize("error", [RuntimeError("INTERNAL: XLA compilation failed"),
                                   KeyboardInterrupt()], ids=["compile-error", "ctrl-c"])
def test_a_failed_compile_changes_nothing(monkeypatch, error):
    with use_runtime() as rt:
        program = Program(rt)
        with monkeypatch.context() as patch:
            patch.setattr(compiler, "build", _raising(error))
            with pytest.raises(type(error)):
                rt.sync()
        program.check_unchanged()
        rt.sync()
        program.check_computed()


def test_an_exception_in_a_lowering_rule_changes_nothing(monkeypatch):
    with use_runtime() as rt:
        program = Program(rt)
        negated = Handle(make(Op.NEG, (program.c.node,)))
        with monkeypatch.context() as patch:
            patch.setitem(LOWERINGS, Op.NEG, _raising(ValueError("a lowering rule failed")))
            with pytest.raises(ValueError, match="lowering rule failed"):
                rt.sync()
        program.check_unchanged()
        assert negated.node.op is Op.NEG
        rt.sync()  # every pending value, the one that failed included
        program.check_computed()
        np.testing.assert_array_equal(negated.numpy(), np.full(3, -7.0))


def test_running_out_of_memory_changes_nothing():
    with use_runtime() as rt:
        program = Program(rt)
        huge = _plus(Handle(make(Op.BROADCAST_IN_DIM, (scalar(0.0, F32),), (10**6, 10**6), ())),
                     1.0)  # 4 TB
        with pytest.raises(Exception, match="RESOURCE_EXHAUSTED|[Oo]ut of memory"):
            rt.sync()
        program.check_unchanged()
        del huge
        rt.sync()
        program.check_computed()


def test_a_graph_predicted_not_to_fit_in_memory_runs_without_donations(monkeypatch):
    """XLA consumes a call's donated inputs even when the call then fails to
    allocate its outputs: a graph larger than the free memory donates nothing."""
    monkeypatch.setattr(failures, "CHECK_SHARE", 0.0)
    monkeypatch.setattr(failures, "_host_free", lambda: 0)
    with use_runtime() as rt:
        program = Program(rt)
        rt.sync()
        program.check_computed()
        assert rt.metrics.counters["undonated_for_memory"] == 1
        assert rt.metrics.counters["donated_buffers"] == 0


def test_ctrl_c_just_before_dispatch_changes_nothing(monkeypatch):
    with use_runtime() as rt:
        program = Program(rt)
        with monkeypatch.context() as patch:
            patch.setattr(compiler, "run", _raising(KeyboardInterrupt()))
            with pytest.raises(KeyboardInterrupt):
                rt.sync()
        program.check_unchanged()
        rt.sync()
        program.check_computed()


def test_ctrl_c_during_an_execution_is_raised_once_the_values_are_there(monkeypatch):
    run = compiler.run

    def interrupted(*args):
        outputs = run(*args)
        signal.raise_signal(signal.SIGINT)  # Ctrl-C as the call returns
        return outputs

    # Python's own Ctrl-C handler, as an interactive run has it (a process
    # started in the background by a shell without job control ignores SIGINT)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupted_sync_keeps_the_values(monkeypatch, interrupted)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupted_sync_keeps_the_values(monkeypatch, interrupted):
    with use_runtime() as rt:
        program = Program(rt)
        with monkeypatch.context() as patch:
            patch.setattr(compiler, "run", interrupted)
            with pytest.raises(KeyboardInterrupt):
                rt.sync()
        program.check_computed()
        assert rt.metrics.counters["donated_buffers"] == 1  # to w's new value, which is there
