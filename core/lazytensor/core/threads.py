"""The threading contract: what each thread owns and what threads share.

- Each thread records into its own pending set (``ThreadState``, one per
  runtime and thread). A thread's barrier (``sync``, ``mark_step``) runs
  what that thread recorded, plus the values it reads that another thread
  left pending (they join the reader's graph); it never runs another
  thread's half-recorded work.
- The recorded-op counter that decides automatic cuts is per thread
  (``registry.RECORDED``), so a thread's graphs are cut where the same
  code run alone would cut them.
- The executable cache, the recycle pool, the metrics and donation are
  shared and used under one lock per runtime (``Runtime.lock``): planning,
  compiling, dispatching and re-pointing the handles of one graph happen
  under it; recording does not take it. A buffer is donated only when
  nothing outside the graph references it (``compiler.is_unreferenced``):
  another thread's pending nodes and live values are references, and
  while one graph is planned and dispatched no other graph is planned,
  so no other thread can pick up a reference to a buffer in between.
- A step traced for capture (``lazytensor.core.capture``) listens to its
  own thread only; a replay binds, runs and writes back under the lock.
- The active runtime (``use_runtime``) and the random streams are the
  process's, shared by all threads, as torch's and numpy's global
  generators are.

Data-parallel code (one model per thread) so gives each thread the graphs,
executables and values it gets when the threads run one after another.

>>> import threading
>>> threads = PerThread()
>>> threads.state.pending.append(1)
>>> seen = []
>>> t = threading.Thread(target=lambda: seen.append(list(threads.state.pending)))
>>> t.start(); t.join()
>>> seen
[[]]
"""

from __future__ import annotations

import threading

from lazytensor.core.registry import RECORDED


class ThreadState:
    """One thread's recording state in a runtime: its pending handles (weak
    references), the recorded-op marks of its last barrier and cut check,
    how many ``holding_cuts`` blocks it is in, and the step it is tracing
    for capture (``listener``)."""

    __slots__ = ("pending", "recorded_mark", "cut_mark", "cuts_held", "listener")

    def __init__(self) -> None:
        self.pending: list = []
        self.recorded_mark = RECORDED.recorded  # this thread's counter
        self.cut_mark = self.recorded_mark
        self.cuts_held = 0
        self.listener = None


class PerThread(threading.local):
    """A runtime's ``ThreadState`` for the calling thread (``state``), made
    on first use and dropped with its thread. One thread-local read per
    access (about 0.3 us): callers read ``state`` once and keep it."""

    def __init__(self) -> None:
        self.state = ThreadState()
