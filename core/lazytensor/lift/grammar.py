"""The weighted grammar of one statement: productions and their costs.

Two nonterminals: ``E`` (a number over the index space) and ``C`` (a
condition). ``E`` derives a leaf (an access, a constant, a size, an index
variable's value, or a larger fragment read from the source), a unary or
binary operation, a ``where`` or a reduction over one index variable; ``C``
derives a comparison or a condition read from the source.

The guide weighs each production by what the source shows (as C2TACO's
analyses do): operators, constants, accesses and whole sub-expressions of
the loop bodies, conditions of its branches, and the reductions its
accumulators perform (``acc += ...`` inside a loop over ``j`` that the
target's index lacks: a sum over ``j``). A production the source does not
show keeps weight 1, so the grammar still derives every program. A
production costs ``-log2 p`` bits, ``p`` its weight over its
nonterminal's total, rounded to whole bits (at least 1). The uniform
grammar (the ablation) gives every production the same weight.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field

from lazytensor.lift import terms as T

W_FRAGMENT = 6.0  # a sub-expression of the source, per occurrence
W_OPERATOR = 12.0  # an operator (or comparison) the source uses
W_REDUCTION = 24.0  # a reduction an accumulator performs
W_PROPOSED = 40.0  # a term of a proposer's candidate, per occurrence
GENERIC_CONSTS = (0, 1, 2, -1, 0.5)


@dataclass(slots=True)
class Grammar:
    leaves: list[tuple[T.Term, int]] = field(default_factory=list)
    conds: list[tuple[T.Term, int]] = field(default_factory=list)
    unary: list[tuple[str, int]] = field(default_factory=list)
    binary: list[tuple[str, int]] = field(default_factory=list)
    compare: list[tuple[str, int]] = field(default_factory=list)
    where: int = 0
    reduce: list[tuple[str, str, int]] = field(default_factory=list)

    def size(self) -> int:
        return (len(self.leaves) + len(self.conds) + len(self.unary) + len(self.binary)
                + len(self.compare) + 1 + len(self.reduce))


@dataclass(slots=True)
class Evidence:
    """What the guide read: sub-expressions (by text) and their counts."""

    fragments: dict[str, T.Term] = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    weights: dict[str, float] = field(default_factory=dict)  # fragment text -> weight
    reductions: set[tuple[str, str]] = field(default_factory=set)

    def add(self, term: T.Term, weight: float = W_FRAGMENT) -> None:
        key = str(term)
        self.fragments.setdefault(key, term)
        self.weights[key] = self.weights.get(key, 0.0) + weight
        for sub in term.walk():
            self.counts[_feature(sub)] += 1


def _feature(t: T.Term) -> str:
    if t.kind in (T.UN, T.BIN, T.CMP, T.RED, T.SCAN):
        return f"{t.kind}:{t.op}"
    return t.kind


def generic_leaves(order: tuple[str, ...], ranks: dict[str, int], sizes: list[str]) -> list:
    """Every access of every input by distinct index variables, the small
    constants, the sizes and the index variables' values."""
    out: list[T.Term] = []
    for name, rank in ranks.items():
        if rank == 0:
            out.append(T.access(name, None))
            continue
        for perm in itertools.islice(itertools.permutations(order, rank), 24):
            out.append(T.access(name, perm, index_vars=tuple(frozenset({v}) for v in perm)))
    out += [T.const(c) for c in GENERIC_CONSTS]
    out += [T.size(s) for s in sizes]
    out += [T.var(v) for v in order]
    return out


def build(evidence: Evidence, order: tuple[str, ...], ranks: dict[str, int],
          sizes: list[str], uniform: bool = False, fragments: bool = True) -> Grammar:
    """The statement's grammar with costs (``uniform``: all weights equal;
    ``fragments=False``: only one-level productions, no larger sub-expression
    of the source as a production of its own)."""
    def weight(w: float) -> float:
        return 1.0 if uniform else 1.0 + w

    numeric: dict[str, tuple[T.Term, float]] = {}
    conds: dict[str, tuple[T.Term, float]] = {}
    for t in generic_leaves(order, ranks, sizes):
        numeric.setdefault(str(t), (t, weight(0)))
    for key, t in evidence.fragments.items():
        if t.vars - set(order) or (not fragments and t.size > 1):
            continue
        (conds if t.is_bool else numeric)[key] = (t, weight(evidence.weights[key]))
    c = evidence.counts
    ops_e = {("un", op): weight(W_OPERATOR if c[f"un:{op}"] else 0) for op in T.UNARY}
    ops_e |= {("bin", op): weight(W_OPERATOR if c[f"bin:{op}"] else 0) for op in T.BINARY}
    ops_e[("where", "")] = weight(W_OPERATOR if c["where"] or c["cmp:" + "lt"] + c["cmp:le"]
                                  + c["cmp:gt"] + c["cmp:ge"] + c["cmp:eq"] + c["cmp:ne"] else 0)
    for op, v in itertools.product(T.REDUCE, order):
        ops_e[("red", op, v)] = weight(W_REDUCTION if (op, v) in evidence.reductions else 0)
    ops_c = {op: weight(W_OPERATOR if c[f"cmp:{op}"] else 0) for op in T.COMPARE}
    total_e = sum(w for _, w in numeric.values()) + sum(ops_e.values())
    total_c = sum(w for _, w in conds.values()) + sum(ops_c.values())
    g = Grammar()
    g.leaves = [(t, _cost(w, total_e)) for t, w in numeric.values()]
    g.conds = [(t, _cost(w, total_c)) for t, w in conds.values()]
    for key, w in ops_e.items():
        cost = _cost(w, total_e)
        if key[0] == "un":
            g.unary.append((key[1], cost))
        elif key[0] == "bin":
            g.binary.append((key[1], cost))
        elif key[0] == "where":
            g.where = cost
        else:
            g.reduce.append((key[1], key[2], cost))
    g.compare = [(op, _cost(w, total_c)) for op, w in ops_c.items()]
    return g


def _cost(weight: float, total: float) -> int:
    return max(1, round(-math.log2(weight / total)))
