"""Capture and replay of a whole step: the one mechanism behind each
frontend's ``capture`` decorator.

A captured function is traced lazily, as any code, until two consecutive
calls with the same guard (``guard``) run one graph of the same structure
with inputs and scalars of the same sources (``record``); from then on a
call whose guard matches does not run the Python body: its arrays are bound
to the graph's parameters, the cached executable runs, every value the
traced call wrote (parameters, optimizer state, running statistics, step
counters) is re-pointed at its new value, and the result is built again
over the new outputs (``replay``); host counters that the body advanced
outside the graph (torch's default Adam step counts) are advanced the same
way, and the Python floats derived from them read again (``host``). A
call is first checked by the identity of what it reaches (``guard.Reached``),
then, if that fails, by the full guard. A body that reads a value, or whose
traces keep differing, is never replayed; the metrics report says where
and why, as it names each guard that failed.

>>> from lazytensor.core.capture import Adapter, capture
>>> callable(capture(lambda x: x, Adapter()))
True
"""

from lazytensor.core.capture.replay import GuardMiss
from lazytensor.core.capture.step import Adapter, Step


def note_scalar(node, reader) -> None:
    """Tell a step being traced that the scalar parameter ``node`` is drawn
    afresh at each call: a replay calls ``reader()`` for its value (a
    frontend's random draws)."""
    from lazytensor.core.runtime import get_runtime

    listener = get_runtime().listener
    if listener is not None:
        listener.note_scalar(node, reader)


def capture(fn, adapter: Adapter) -> Step:
    """``fn`` as a captured step for a frontend's ``adapter``."""
    return Step(fn, adapter)


__all__ = ["Adapter", "GuardMiss", "Step", "capture", "note_scalar"]
