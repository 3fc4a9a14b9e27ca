"""Errors that depend on computed values, raised by the barrier that
computes them (as torch_xla reports asynchronous errors).

A frontend cannot raise while it records ``cholesky(a)`` of a matrix that is
not positive definite, or a sample from negative probabilities: the values
are not known yet. It records a *check* beside the op's result instead
(``defer``): a boolean node that is set where the input was invalid (one
element per matrix of a batch, say), optionally a detail node that is read
only when the check fails (to word the message: LAPACK's ``info``, the
probabilities), and a function that makes the frontend's exception from
those host values and the place that recorded the op.

The flag is a pending value like any other, so the next barrier (a step
marker, or a read that runs a graph) computes it in the same graph as the
result; right after that graph has run, a set flag raises the frontend's
exception. The results stay computed (the framework's NaNs), and each check
raises at most once. An automatic graph cut, which happens in the middle of
recording, computes flags but leaves the raising to the next barrier. Checks
belong to the thread that recorded them.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from lazytensor.core.ir import Node
from lazytensor.core.ops import LEAVES

# (flag values, detail values or None, "op recorded at file:line in function")
MakeError = Callable[[np.ndarray, "np.ndarray | None", str], BaseException]


@dataclass(slots=True)
class Check:
    flag: object  # a runtime Handle of a boolean node
    detail: Node | None
    make_error: MakeError
    site: str

    @property
    def computed(self) -> bool:
        return self.flag.node.op in LEAVES


class Checks:
    """A runtime's checks not raised yet, one list per thread."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _state(self):
        local = self._local
        if not hasattr(local, "checks"):
            local.checks, local.held = [], 0
        return local

    def add(self, check: Check) -> None:
        self._state().checks.append(check)

    def __len__(self) -> int:
        return len(self._state().checks)

    @contextmanager
    def held(self):
        """Inside, a barrier computes flags but raises nothing (a cut made
        while an op is being recorded)."""
        state = self._state()
        state.held += 1
        try:
            yield
        finally:
            state.held -= 1

    def raise_failed(self, read: Callable[[object], np.ndarray],
                     compute: Callable[[Node], np.ndarray]) -> None:
        """After a graph ran: drop the checks whose flags are computed and
        raise the first that is set (``read`` gives a handle's host value,
        ``compute`` a node's)."""
        state = self._state()
        if state.held or not state.checks:
            return
        done = [check for check in state.checks if check.computed]
        if not done:
            return
        state.checks = [check for check in state.checks if not check.computed]
        for check in done:
            flag = read(check.flag)
            if flag.any():
                detail = None if check.detail is None else compute(check.detail)
                raise check.make_error(flag, detail, check.site)


def recording_site(op: str, skip: tuple[str, ...] = ()) -> str:
    """``op`` and the first caller outside lazytensor and the modules named
    by ``skip`` (the framework's own Python layers): the user's line.

    >>> recording_site("linalg.inv").startswith("linalg.inv recorded at ")
    True
    """
    prefixes = ("lazytensor.",) + tuple(f"{name}." for name in skip)
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not name.startswith(prefixes) and name not in skip:
            break
        frame = frame.f_back
    if frame is None:
        return f"{op} recorded at an unknown place"
    code = frame.f_code
    return f"{op} recorded at {code.co_filename}:{frame.f_lineno} in {code.co_name}"
