"""The active runtime's counters and timers (``lazytensor.core.counters``),
as a text report and a dict form; ``note_fallback``, the one way a frontend
reports an eager fallback (counted, warned once per op at the user's line).

>>> sorted(as_dict())
['cache_miss_reasons', 'capture_notes', 'counters', 'fallbacks', 'timers']
"""

from __future__ import annotations

import os
import sys
import warnings

from lazytensor.core.counters import Metrics
from lazytensor.core.runtime import get_runtime


def _active() -> Metrics:
    return get_runtime().metrics


def report() -> str:
    """The active runtime's metrics as readable text."""
    return _active().report()


def as_dict() -> dict:
    """The active runtime's metrics as a dict, for programs."""
    return _active().as_dict()


def reset() -> None:
    _active().reset()


_WARNED: set[str] = set()  # ops already warned about, once per process
_CORE_DIR = os.path.dirname(os.path.abspath(__file__))


def note_fallback(name: str, message: str, category: type[Warning] = UserWarning,
                  skip: tuple[str, ...] = ()) -> None:
    """Count an eager fallback of ``name`` in the active runtime's metrics and
    warn (``message``) the first time ``name`` falls back in this process,
    pointing at the user's line (``user_stacklevel(skip)``)."""
    _active().fallback(name)
    if name not in _WARNED:
        _WARNED.add(name)
        warnings.warn(message, category, stacklevel=user_stacklevel(skip))


def user_stacklevel(skip: tuple[str, ...] = ()) -> int:
    """The ``stacklevel`` (for a ``warnings.warn`` in the caller) of the first
    frame outside the core and the ``skip`` directories (the frontend's
    package, the framework that dispatched to it): the user's line."""
    library = (_CORE_DIR, *skip)
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(library):
        frame, level = frame.f_back, level + 1
    return level
