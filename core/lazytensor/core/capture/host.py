"""Host state that a step advances outside the graph, and the Python
scalars a body computes from it.

A framework may keep part of a step's state on the host: torch's default
Adam and AdamW keep each parameter's step count in a CPU tensor, add one to
it in ``optimizer.step()`` and compute the bias corrections from it as
Python floats, which the graph takes as scalar parameters. A replay does
not run the body, so the capture does its part: the adapter names the
counters of the objects the guard sees (``Adapter.counters``), a traced
call records how much each one moved, and a replay moves them the same
way (putting them back if the replay fails). The adapter also names the
floats that a body may derive from those counters
(``Adapter.derived_scalars``); a scalar parameter that changes between
traced calls and equals one of them at both calls is read again at each
replay, after the counters moved, as a learning rate passed as an
argument is bound at each call.
"""

from __future__ import annotations


class HostState:
    """The counters and derived floats of one traced call."""

    def __init__(self, adapter, reached, values: list) -> None:
        self.adapter = adapter
        handle_of = adapter.handle_of
        self.objects = [v for v in (*reached.objects(), *values) if handle_of(v) is None]
        seen, self.cells = set(), []
        for value in self.objects:
            for cell in adapter.counters(value):
                if id(cell) not in seen:
                    seen.add(id(cell))
                    self.cells.append(cell)
        self.before = [adapter.read_counter(cell) for cell in self.cells]
        self.deltas: list = []
        self.derived: list = []  # (label, reader, value after the call)

    def after(self) -> None:
        """Note how far the counters moved and the derived floats' values."""
        adapter = self.adapter
        self.deltas = [adapter.read_counter(c) - b for c, b in zip(self.cells, self.before,
                                                                    strict=True)]
        for value in self.objects:
            for label, reader in adapter.derived_scalars(value):
                self.derived.append((label, reader, reader()))

    def counters(self) -> tuple:
        """``(cells, deltas)`` of the counters that moved, or ``()``."""
        moved = [(c, d) for c, d in zip(self.cells, self.deltas, strict=True) if d]
        if not moved:
            return ()
        return [c for c, _ in moved], [d for _, d in moved]

    def derived_values(self) -> dict:
        return {label: value for label, _, value in self.derived}


def derived_reader(before, now, derived: list, previous_values: dict, used: set):
    """The reader of a derived float that had ``before`` at the previous
    traced call and ``now`` at this one (one not yet used first), or None."""
    found = None
    for label, reader, value in derived:
        then = previous_values.get(label)
        if then is None or not (_same(then, before) and _same(value, now)):
            continue
        if label not in used:
            used.add(label)
            return reader
        found = found or reader
    return found


def _same(a, b) -> bool:
    try:
        return type(a) is not bool and type(b) is not bool and bool(a == b)
    except (TypeError, ValueError):
        return False
