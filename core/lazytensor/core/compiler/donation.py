"""Donation: which input buffers a graph may give to its outputs, judged by
reference counts (nothing outside the graph may reach a donated buffer),
and the pool of recent large outputs recycled as output memory."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import jax
import numpy as np
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op

if TYPE_CHECKING:
    from lazytensor.core.compiler.planning import _Walk


def choose_donations(order: list[Node], walk: _Walk, root_pos: tuple, donatable) -> tuple:
    wanted: dict[tuple, int] = {}
    for p in root_pos:
        aval = (order[p].shape, order[p].dtype)
        wanted[aval] = wanted.get(aval, 0) + 1
    donate, kept = [], None
    for position, i in enumerate(walk.data_leaves):
        leaf = order[i]
        aval = (leaf.shape, leaf.dtype)
        if wanted.get(aval, 0) and donatable(leaf, walk.uses[i]):
            if kept is None:
                kept = _kept_leaves(order, walk, set(root_pos))
            if i in kept:
                continue
            wanted[aval] -= 1
            donate.append(position)
    return tuple(donate)


def _kept_leaves(order: list[Node], walk: _Walk, roots: set) -> set[int]:
    """Positions of the leaves below an operation that something outside
    the graph holds: a frontend may keep a raw node across a barrier and
    build on it later, replaying it from these leaves, so their buffers must
    outlive this graph. The walk stops at roots: a root's node stands for
    its computed value while that lives (``ir.toposort``), and a view's
    cache (``runtime.ViewHandle``) is always above a root or a held leaf."""
    uses, index = walk.uses, walk.index
    baseline = _interior_baseline()
    measuring = baseline is None
    below = [False] * len(order)
    kept = set()
    for i in range(len(order) - 1, -1, -1):
        node = order[i]
        if not node.operands:
            if below[i]:
                kept.add(i)
            continue
        if i in roots:
            continue
        outside = _outside_references(node, uses[i])
        if measuring:
            _INTERIOR_BASELINE.append(outside)
        elif below[i] or outside > baseline:
            for operand in node.operands:
                below[index[operand]] = True
    return kept


def _outside_references(node: Node, uses: int) -> int:
    return sys.getrefcount(node) - uses


_INTERIOR_BASELINE: list = []  # references to an operation that only the graph holds


def _interior_baseline() -> int:
    """``_outside_references`` of an operation that nothing but the graph
    being planned holds, measured once through a real plan's call path."""
    if not _INTERIOR_BASELINE:
        _INTERIOR_BASELINE.append(None)  # measuring: the plan below keeps every leaf
        leaf = Node(Op.DATA, (), (), (1,), np.dtype("float32"), data=jax.numpy.zeros(1))
        inner = Node(Op.NEG, (leaf,), (), (1,), np.dtype("float32"))
        user = Node(Op.NEG, (inner,), (), (1,), np.dtype("float32"))
        del leaf, inner
        from lazytensor.core.compiler.planning import plan  # (planning imports this module)

        plan([user], lambda leaf, uses: True)
        _INTERIOR_BASELINE[:] = _INTERIOR_BASELINE[1:]  # what the measuring plan found
    return _INTERIOR_BASELINE[0]


def _reference_counts(leaf: Node, uses: int) -> tuple[int, int]:
    return sys.getrefcount(leaf) - uses, sys.getrefcount(leaf.data)


_BASELINE: list = []  # reference counts of a leaf that only the graph holds


def _calibrate() -> tuple[int, int]:
    """Measure, through the same call path as a real plan, the reference
    counts of a DATA leaf that nothing but the graph being planned holds."""
    seen: list = []
    leaf = Node(Op.DATA, (), (), (1,), np.dtype("float32"), data=jax.numpy.zeros(1))
    user = Node(Op.NEG, (leaf,), (), (1,), np.dtype("float32"))
    del leaf
    from lazytensor.core.compiler.planning import plan  # (planning imports this module)

    plan([user], lambda leaf, uses: seen.append(_reference_counts(leaf, uses)) or False)
    return seen[0]


def is_unreferenced(leaf: Node, uses: int) -> bool:
    """True when no live handle, view, user array or other graph holds
    ``leaf`` or its buffer: its memory may be donated to the outputs."""
    return _reference_counts(leaf, uses) == _baseline(0)


def _baseline(pooled: int) -> tuple[int, int]:
    """The counts of an unreferenced leaf whose buffer ``pooled`` more
    references (the recycle pool's) hold."""
    if not _BASELINE:
        _BASELINE.append(_calibrate())
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
        return _reference_counts(leaf, uses) == _baseline(self.holds(leaf.data))


def aval_at(arrays: list, i: int) -> tuple:
    return arrays[i].shape, arrays[i].dtype


def _references(arrays: list, i: int) -> int:
    return sys.getrefcount(arrays[i])


def _pool_only(arrays: list, i: int) -> bool:
    """True when nothing but the pool's list references ``arrays[i]``."""
    return _references(arrays, i) == _POOL_BASELINE


_POOL_BASELINE = _references([object()], 0)  # measured through the same path

