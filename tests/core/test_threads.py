"""The core's threading contract (``lazytensor.core.threads``): each thread
records into its own pending set, a barrier runs its own thread's work plus
the values it reads that another thread left pending, and a buffer that
another thread's pending graph reads is never donated."""

from __future__ import annotations

import queue
import threading

import numpy as np
from lazytensor.core import Handle, Op, make, use_runtime


def _in_thread(fn):
    out: list = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


class Worker:
    """A thread that runs the functions it is given, one at a time."""

    def __init__(self) -> None:
        self.jobs: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while (job := self.jobs.get()) is not None:
            fn, out = job
            out.put(fn())

    def __call__(self, fn):
        out: queue.Queue = queue.Queue()
        self.jobs.put((fn, out))
        return out.get()

    def stop(self) -> None:
        self.jobs.put(None)
        self.thread.join()


def _plus_one(handle: Handle) -> Handle:
    one = make(Op.BROADCAST_IN_DIM, (_one(handle),), handle.shape, ())
    return Handle(make(Op.ADD, (handle.node, one)))


def _one(handle: Handle):
    from lazytensor.core import scalar

    return scalar(1.0, handle.dtype)


def test_a_barrier_runs_only_its_own_threads_pending_values():
    with use_runtime() as rt:
        x = rt.from_host(np.arange(4.0, dtype=np.float32))
        other = Worker()
        theirs = other(lambda: _plus_one(x))  # left pending by the other thread
        mine = _plus_one(x)
        rt.sync()
        assert mine.node.op is Op.DATA
        assert theirs.node.op is Op.ADD  # still pending: not this thread's work
        other(rt.sync)  # the other thread's barrier runs it
        other.stop()
        assert theirs.node.op is Op.DATA
        np.testing.assert_array_equal(theirs.numpy(), [1, 2, 3, 4])


def test_reading_another_threads_pending_value_computes_it():
    with use_runtime() as rt:
        x = rt.from_host(np.ones(3, dtype=np.float32))
        theirs = _in_thread(lambda: _plus_one(x))
        np.testing.assert_array_equal(theirs.numpy(), [2, 2, 2])
        assert rt.metrics.counters["graphs_executed"] == 1


def test_a_buffer_that_another_threads_pending_graph_reads_is_not_donated():
    with use_runtime() as rt:
        w = rt.from_host(np.zeros(8, dtype=np.float32))
        other = Worker()
        theirs = other(lambda: _plus_one(w))  # reads w's current buffer
        w.assign(_plus_one(w).node)  # an in-place update: w's old buffer is donatable alone
        rt.sync()
        assert rt.metrics.counters["donated_buffers"] == 0
        other(rt.sync)
        other.stop()
        np.testing.assert_array_equal(theirs.numpy(), np.ones(8))
        np.testing.assert_array_equal(w.numpy(), np.ones(8))


def test_automatic_cuts_count_each_threads_own_operations():
    with use_runtime() as rt:
        rt.node_limit = 200  # each thread records 122 nodes, both together more
        x = rt.from_host(np.ones(2, dtype=np.float32))
        kept = [x]
        for _ in range(60):  # below the limit in this thread
            kept.append(_plus_one(kept[-1]))

        def record_many():
            chain = [x]
            for _ in range(60):
                chain.append(_plus_one(chain[-1]))
            return chain[-1]

        _in_thread(record_many)
        kept.append(_plus_one(kept[-1]))
        assert rt.metrics.counters["auto_cuts"] == 0
