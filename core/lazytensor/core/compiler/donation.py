"""Donation: which input buffers a graph may give to its outputs, judged by
reference counts (nothing outside the graph may reach a donated buffer),
and the pool of recent large outputs recycled as output memory."""

from __future__ import annotations

import sys
from operator import gt

from lazytensor.core.ir import Node


def candidates(order: list[Node], data_leaves: list, root_pos: tuple) -> tuple:
    """The positions (in ``data_leaves``: parameter positions) of the DATA
    leaves that have the shape and dtype of some output: the only ones a
    donation could serve. Structure only: a plan cache keeps it."""
    wanted = {(order[p].shape, order[p].dtype) for p in root_pos}
    return tuple(k for k, i in enumerate(data_leaves)
                 if (order[i].shape, order[i].dtype) in wanted)


def choose_donations(order: list[Node], uses: list, data_leaves: list, root_pos: tuple,
                     donatable, among: tuple | None = None, limits: list | None = None,
                     params: list | None = None) -> tuple:
    """The parameter positions whose buffers the outputs may take: a DATA
    leaf (``data_leaves[k]``: its position in ``order``; ``uses``: operand
    references per position) that ``donatable`` allows, of an output's shape
    and dtype (each output takes one), and under no operation held outside
    the graph (``_kept_leaves``). ``among`` (the ``candidates``) and
    ``limits`` (``held_limits``) when a plan cache knows them; ``params``:
    each data leaf's parameter position, where leaves standing in for
    computed nodes (never donated) are parameters too. The caller
    holds the graph's nodes in ``order`` only (the reference counts are
    calibrated so: ``planning.calibrate``)."""
    wanted: dict[tuple, int] = {}
    for p in root_pos:
        aval = (order[p].shape, order[p].dtype)
        wanted[aval] = wanted.get(aval, 0) + 1
    donate, kept = [], None
    for position in range(len(data_leaves)) if among is None else among:
        i = data_leaves[position]
        leaf = order[i]
        aval = (leaf.shape, leaf.dtype)
        if wanted.get(aval, 0) and donatable(leaf, uses[i]):
            if kept is None:
                kept = _kept_leaves(order, uses, root_pos, limits)
            if i in kept:
                continue
            wanted[aval] -= 1
            donate.append(position if params is None else params[position])
    return tuple(donate)


_NEVER = 1 << 62  # the limit of a position that is never held (a leaf, an output)


def held_limits(order: list[Node], uses: list, root_pos: tuple) -> list:
    """Per position, the reference count above which an operation is held
    outside the graph (``_kept_leaves``); structure only, once calibrated."""
    baseline, roots = _INTERIOR_BASELINE[0], set(root_pos)
    return [u + baseline if node.operands and i not in roots else _NEVER
            for i, (node, u) in enumerate(zip(order, uses, strict=True))]


def _kept_leaves(order: list[Node], uses: list, root_pos: tuple, limits: list | None) -> set:
    """Positions of the leaves below an operation that something outside
    the graph holds: a frontend may keep a raw node across a barrier and
    build on it later, replaying it from these leaves, so their buffers must
    outlive this graph. The walk stops at roots: a root's node stands for
    its computed value while that lives (``ir.toposort``), and a view's
    cache (``runtime.ViewHandle``) is always above a root or a held leaf.
    One pass in C finds whether any operation is held (usually none)."""
    refs = list(map(sys.getrefcount, order))  # (counted as calibrated)
    if _INTERIOR_BASELINE[0] is None:  # measuring (``planning.calibrate``)
        _INTERIOR_BASELINE.extend(refs[i] - uses[i] for i, node in enumerate(order)
                                  if node.operands and i not in root_pos)
        return set()
    if limits is None:
        limits = held_limits(order, uses, root_pos)
    if not any(map(gt, refs, limits)):
        return set()
    index = {node: i for i, node in enumerate(order)}
    below = [False] * len(order)
    kept = set()
    for i in range(len(order) - 1, -1, -1):
        node = order[i]
        if not node.operands:
            if below[i]:
                kept.add(i)
        elif limits[i] != _NEVER and (below[i] or refs[i] > limits[i]):
            for operand in node.operands:
                j = index.get(operand)
                if j is not None:  # (else a computed node: its leaf, never donated, stands in)
                    below[j] = True
    return kept


# The reference counts that mean "only the graph being planned holds it",
# measured once through a real plan's call path (``planning.calibrate``:
# planning, which imports this module, runs the measuring plans).
_INTERIOR_BASELINE: list = []  # references to an operation that only the graph holds
_BASELINE: list = []  # reference counts of a leaf that only the graph holds


def calibrated() -> bool:
    return bool(_BASELINE) and bool(_INTERIOR_BASELINE) and _INTERIOR_BASELINE[0] is not None


def reference_counts(leaf: Node, uses: int) -> tuple[int, int]:
    return sys.getrefcount(leaf) - uses, sys.getrefcount(leaf.data)


def is_unreferenced(leaf: Node, uses: int) -> bool:
    """True when no live handle, view, user array or other graph holds
    ``leaf`` or its buffer: its memory may be donated to the outputs."""
    return reference_counts(leaf, uses) == _baseline(0)


def _baseline(pooled: int) -> tuple[int, int]:
    """The counts of an unreferenced leaf whose buffer ``pooled`` more
    references (the recycle pool's) hold."""
    nodes, buffers = _BASELINE[0]
    return nodes, buffers + pooled


class RecyclePool:
    """Recent large outputs, kept so that once the program drops them their
    memory can be donated to the next graph's outputs of the same shape and
    dtype (a fresh multi-MB output costs more in page faults than a fused
    elementwise chain costs in arithmetic)."""

    def __init__(self, min_bytes: int = 1 << 18, keep: int = 16) -> None:
        self.min_bytes, self.keep = min_bytes, keep
        self.arrays: list = []

    def take(self, avals: list[tuple]) -> list:
        """Dead pooled buffers matching ``avals`` (each used at most once)."""
        taken = []
        for aval in avals:
            # index, never bind, the pooled arrays: a local name is a reference
            for i in range(len(self.arrays)):
                if aval_at(self.arrays, i) == aval and _pool_only(self.arrays, i):
                    taken.append(self.arrays.pop(i))
                    break
        return taken

    def give(self, outputs: list) -> None:
        """Pool the large ``outputs``; forget the buffers donated meanwhile."""
        self.arrays = [a for a in self.arrays if not a.is_deleted()]
        # (only arrays on one device: a sharded one is laid out for its graph)
        self.arrays += [o for o in outputs if o.nbytes >= self.min_bytes and not o.committed]
        del self.arrays[:-self.keep]

    def holds(self, array) -> int:
        """1 when ``array`` is pooled (the pool's own reference to it), else 0."""
        return int(any(a is array for a in self.arrays))

    def donatable(self, leaf: Node, uses: int) -> bool:
        """``is_unreferenced``, not counting the pool's own reference (same
        call depth as ``is_unreferenced``: frames hold references)."""
        return reference_counts(leaf, uses) == _baseline(self.holds(leaf.data))


def aval_at(arrays: list, i: int) -> tuple:
    return arrays[i].shape, arrays[i].dtype


def _references(arrays: list, i: int) -> int:
    return sys.getrefcount(arrays[i])


def _pool_only(arrays: list, i: int) -> bool:
    """True when nothing but the pool's list references ``arrays[i]``."""
    return _references(arrays, i) == _POOL_BASELINE


_POOL_BASELINE = _references([object()], 0)  # measured through the same path

