"""The plan cache: what planning learnt about a graph's structure, kept so
that a barrier whose graph repeats an earlier one's structure costs one
cheap walk instead of a topological sort, a signature and a donation walk.

A structure is looked up by its roots' structural keys (``Node.key``), then
checked exactly: a 64-bit key can collide (and does: ``hash(-1) ==
hash(-2)``), and it says nothing of which leaves are the same object
(``x + x`` and ``x + y`` over two leaves of one shape have one key). The
walk (``visit``) records, per node it pops, whether it is new (and how many
operands it has) or the position of a node seen before; that record and
every new node's op, attrs, shape and dtype (constants by value) determine
the graph exactly, so two walks that agree are the same graph up to the
data in its leaves. Nothing here holds a node or a buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op

_FIELDS = tuple(attrgetter(name) for name in ("op", "attrs", "shape", "dtype"))
_CONST = Op.CONST


def visit(roots: list[Node]) -> tuple[list, list] | None:
    """The graph's nodes in the walk's order (each once) and its record:
    per pop, ``~operands`` (negative) for a new node, else the position of
    the node seen before. None when a node an earlier graph computed is in
    the graph (``ir.toposort`` puts its leaf in its place: never cached)."""
    seen: dict = {}  # node -> walk position (and, in insertion order, the nodes)
    record: list = []
    stack = roots[::-1]
    pop, push, note = stack.pop, stack.extend, record.append
    count = 0
    while stack:
        node = pop()
        known = seen.get(node)
        if known is not None:
            note(known)
            continue
        seen[node] = count
        count += 1
        operands = node.operands
        if operands:
            memo = node.memo
            if memo is not None and memo() is not None:
                return None
            note(~len(operands))
            push(operands)
        else:
            note(-1)
    return list(seen), record


@dataclass(slots=True)
class Structure:
    """One graph structure: how the walk saw it (to check a new graph) and
    what planning found (parameters, banks, outputs, donation candidates),
    by position in the topological order (``order``) that planning uses."""

    record: list
    described: tuple  # per field (op, attrs, shape, dtype): its list over the walked nodes
    constants: list  # (walk position, bytes) of each CONST leaf
    to_order: list  # topological position -> walk position
    entries: tuple  # the signature's node entries
    roots: tuple  # the outputs' positions
    data: list  # positions of the DATA leaves, in parameter order
    data_leaves: list  # positions of the donatable DATA leaves (all of them: nothing stood in)
    banks: dict  # scalar dtype -> positions, in bank order
    uses: list  # operand references per position
    candidates: tuple  # parameter positions that could be donated (``donation.candidates``)
    limits: list  # reference counts of an operation held outside (``donation.held_limits``)
    executables: dict = field(default_factory=dict)  # (donate, scratch) -> Executable
    hits: int = 0


class PlanCache:
    """Structures by their roots' keys (a few per key: the keys collide for
    graphs that differ only in which leaves are shared); at most ``limit``
    structures and ``node_limit`` nodes in all (a cached node costs about
    150 bytes), the least recently stored dropped first."""

    def __init__(self, limit: int = 512, node_limit: int = 500_000) -> None:
        self.limit, self.node_limit = limit, node_limit
        self.by_key: dict = {}
        self.size = self.nodes = 0

    def find(self, roots: list[Node], walked: tuple) -> Structure | None:
        """The cached structure that the walked graph has exactly, or None."""
        found = self.by_key.get(tuple([r.key for r in roots]))
        if found is None:
            return None
        nodes, record = walked
        for structure in found:
            if structure.record == record and _same_nodes(structure, nodes):
                structure.hits += 1
                return structure
        return None

    def store(self, roots: list[Node], structure: Structure) -> None:
        key = tuple([r.key for r in roots])
        self.by_key.setdefault(key, []).insert(0, structure)
        self.size += 1
        self.nodes += len(structure.to_order)
        while self.size > self.limit or (self.nodes > self.node_limit and self.size > 1):
            oldest = next(iter(self.by_key))
            dropped = self.by_key[oldest].pop()
            self.size -= 1
            self.nodes -= len(dropped.to_order)
            if not self.by_key[oldest]:
                del self.by_key[oldest]
            dropped.executables.clear()

    def __len__(self) -> int:
        return self.size


def _same_nodes(structure: Structure, nodes: list) -> bool:
    """Every walked node's op, attrs, shape and dtype (one C pass each, no
    tuple made per node), and every constant's value, as cached."""
    for field_of, cached in zip(_FIELDS, structure.described, strict=True):
        if list(map(field_of, nodes)) != cached:
            return False
    return all(_const_bytes(nodes[i]) == value for i, value in structure.constants)


def _const_bytes(node: Node) -> bytes:
    return np.asarray(node.data).tobytes()


def describe(nodes: list) -> tuple[tuple, list]:
    """The walked nodes' descriptions and constants, for a ``Structure``."""
    constants = [(i, _const_bytes(n)) for i, n in enumerate(nodes) if n.op is _CONST]
    return tuple(list(map(field_of, nodes)) for field_of in _FIELDS), constants
