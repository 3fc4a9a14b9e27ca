"""Cost-ordered enumeration of a statement's programs.

Terms are enumerated bottom-up in order of total cost (the sum of their
productions' costs in bits, ``-log2 p``), so the first term that matches
every example is a cheapest one, as an A* search with this grammar would
find it. Each new term is evaluated with numpy on the examples from its
operands' values (never re-evaluated), and pruned when:

- it equals, on every example, a term already kept (observational
  equivalence: this removes the commutative duplicates ``b + a`` of
  ``a + b`` and every other identity), or it has no finite value;
- a commutative operation's operands come in the other order (not built);
- an operation has two identical operands where that is pointless
  (``a - a``, ``max(a, a)``, ``where(c, a, a)``; not built).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from lazytensor.lift import terms as T
from lazytensor.lift.evaluate import Invalid, Space, evaluate, np_apply
from lazytensor.lift.grammar import Grammar

_SAME_USELESS = {"sub", "truediv", "floordiv", "mod", "maximum", "minimum"}


@dataclass(slots=True)
class Stats:
    candidates: int = 0  # terms built and evaluated
    kept: int = 0  # distinct terms (after observational equivalence)
    cost: int = 0  # the highest cost level completed
    seconds: float = 0.0  # CPU seconds of this process (a loaded machine's waits excluded)
    found_cost: int | None = None


class Timeout(Exception):
    pass


def matches(value: np.ndarray, goal: np.ndarray, kind: str) -> bool:
    """Integers exactly (a float result truncates, as numpy's store does),
    floats within 1e-9 relative (plus 1e-12 of the output's magnitude)."""
    try:
        v = np.broadcast_to(value, goal.shape)
    except ValueError:
        return False
    if v.dtype.kind == "b":
        return False
    if kind == "i":
        if v.dtype.kind == "f":
            with np.errstate(all="ignore"):
                v = np.trunc(v)
        return bool(np.array_equal(v, goal))
    with np.errstate(all="ignore"):
        scale = float(np.max(np.abs(goal))) if goal.size else 0.0
        diff = np.abs(v - goal)
        ok = (diff <= 1e-9 * np.abs(goal) + 1e-12 * scale) | (np.isnan(v) & np.isnan(goal))
        ok |= v == goal
    return bool(ok.all())


@dataclass(slots=True)
class _Entry:
    term: T.Term
    vals: list


@dataclass
class Search:
    grammar: Grammar
    spaces: list[Space]
    goals: list[np.ndarray]
    kind: str  # 'i' or 'f'
    lhs: frozenset[str]
    deadline: float
    max_cost: int = 60
    stats: Stats = field(default_factory=Stats)

    def __post_init__(self) -> None:
        self.num: dict[int, list[_Entry]] = defaultdict(list)
        self.cond: dict[int, list[_Entry]] = defaultdict(list)
        self.seen: set[int] = set()
        self.found: T.Term | None = None

    def run(self) -> T.Term | None:
        start = time.process_time()
        try:
            for level in range(1, self.max_cost + 1):
                self._level(level)
                if self.found is not None:
                    self.stats.found_cost = level
                    break
                self.stats.cost = level
        except Timeout:
            pass
        finally:
            self.stats.seconds = time.process_time() - start
        return self.found

    # -- one cost level ---------------------------------------------------
    def _level(self, level: int) -> None:
        g = self.grammar
        for t, c in g.leaves:
            if c == level:
                self._leaf(t, level)
        for t, c in g.conds:
            if c == level:
                self._leaf(t, level)
        for op, c in g.unary:
            for a in self.num.get(level - c, ()):
                self._add(T.unary(op, a.term), [a], level)
        for op, v, c in g.reduce:
            for a in self.num.get(level - c, ()):
                if v in a.term.vars:
                    self._add(T.reduce_(op, v, a.term), [a], level)
        for op, c in g.binary:
            self._pairs(level - c, level, lambda a, b, op=op: T.binary(op, a, b),
                        T.BINARY[op].commutative, op in _SAME_USELESS, self.num)
        for op, c in g.compare:
            self._pairs(level - c, level, lambda a, b, op=op: T.compare(op, a, b),
                        op in ("eq", "ne"), True, self.num)
        if g.where:
            self._wheres(level - g.where, level)

    def _pairs(self, rest, level, build, commutative, skip_same, bank) -> None:
        for c1 in range(1, rest):
            c2 = rest - c1
            if commutative and c1 > c2:
                break
            left, right = bank.get(c1, ()), bank.get(c2, ())
            for ia, a in enumerate(left):
                start = ia if commutative and c1 == c2 else 0
                for ib in range(start, len(right)):
                    b = right[ib]
                    if skip_same and a is b:
                        continue
                    if self.found is not None:
                        return
                    self._add(build(a.term, b.term), [a, b], level)

    def _wheres(self, rest, level) -> None:
        for cc in range(1, rest - 1):
            for c1 in range(1, rest - cc):
                c2 = rest - cc - c1
                for c in self.cond.get(cc, ()):
                    for a in self.num.get(c1, ()):
                        for b in self.num.get(c2, ()):
                            if a is b:
                                continue
                            if self.found is not None:
                                return
                            self._add(T.where(c.term, a.term, b.term), [c, a, b], level)

    # -- adding one term ---------------------------------------------------
    def _leaf(self, term: T.Term, level: int) -> None:
        try:
            vals = [evaluate(term, sp) for sp in self.spaces]
        except (Invalid, ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError):
            self.stats.candidates += 1
            return
        self._keep(term, vals, level)

    def _add(self, term: T.Term, operands: list[_Entry], level: int) -> None:
        try:
            with np.errstate(all="ignore"):
                vals = [np_apply(term, [o.vals[e] for o in operands], sp)
                        for e, sp in enumerate(self.spaces)]
        except (Invalid, ValueError, TypeError, ZeroDivisionError, OverflowError):
            self.stats.candidates += 1
            return
        self._keep(term, vals, level)

    def _keep(self, term: T.Term, vals: list, level: int) -> None:
        stats = self.stats
        stats.candidates += 1
        if not stats.candidates & 511 and time.monotonic() > self.deadline:
            raise Timeout
        for v in vals:
            if v.dtype.kind == "f" and not np.isfinite(v).all():
                return
        key = hash((term.vars, term.is_bool, *[v.tobytes() for v in vals],
                    *[v.shape for v in vals]))
        if key in self.seen:
            return
        self.seen.add(key)
        stats.kept += 1
        entry = _Entry(term, vals)
        (self.cond if term.is_bool else self.num)[level].append(entry)
        if not term.is_bool and term.vars <= self.lhs and all(
                matches(v, g, self.kind) for v, g in zip(vals, self.goals, strict=True)):
            self.found = term
