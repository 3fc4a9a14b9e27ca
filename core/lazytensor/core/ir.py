"""Immutable IR nodes with an abstract value and a structural key.

A node is ``(op, operands, attrs, shape, dtype)``. Its shape and dtype are
inferred by the op's rule when the node is made (``lazytensor.core.registry``),
so a shape error is raised at the user's line. ``key`` is a structural hash
computed once from op, attrs, abstract value and the operands' keys; leaves
of device data hash by shape, dtype and sharding, never by value.

>>> import numpy as np
>>> a = Node(Op.SCALAR, (), (), (), np.dtype("float32"), data=1.5)
>>> b = Node(Op.SCALAR, (), (), (), np.dtype("float32"), data=2.5)
>>> a.key == b.key  # scalars are parameters: same structure, same key
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from lazytensor.core.ops import LEAVES, Op

_DATA, _SCALAR, _CONST = Op.DATA, Op.SCALAR, Op.CONST  # (enum class lookups are slow)


class Node:
    """One recorded operation (or leaf). Never mutated after construction,
    but for ``memo``: once a graph computed this node as one of its outputs,
    a weak reference to the DATA leaf holding that value (see ``toposort``)."""

    __slots__ = ("op", "operands", "attrs", "shape", "dtype", "key", "data", "memo",
                 "__weakref__")

    def __init__(
        self,
        op: Op,
        operands: tuple[Node, ...],
        attrs: tuple,
        shape: tuple[int, ...],
        dtype: np.dtype,
        data: Any = None,
    ) -> None:
        self.op = op
        self.operands = operands
        self.attrs = attrs
        self.shape = shape
        self.dtype = dtype
        self.data = data
        self.memo = None
        if operands:  # (the common case first: a recorded op; no list built for 1-2 operands)
            n = len(operands)
            if n == 2:
                key = hash((op, attrs, shape, dtype, operands[0].key, operands[1].key))
            elif n == 1:
                key = hash((op, attrs, shape, dtype, operands[0].key))
            else:
                key = hash((op, attrs, shape, dtype, *[o.key for o in operands]))
        elif op is _DATA:
            key = hash((op, shape, dtype, attrs))  # attrs: its layout, if sharded
        elif op is _SCALAR:
            key = hash((op, shape, dtype))
        elif op is _CONST:
            key = hash((op, shape, dtype, _const_bytes(data)))
        else:  # an operand-less op (iota, rng)
            key = hash((op, attrs, shape, dtype))
        self.key = key

    @property
    def is_leaf(self) -> bool:
        return self.op in LEAVES

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        shape = "x".join(map(str, self.shape)) if isinstance(self.shape, tuple) else self.shape
        return f"<{self.op.name} {self.dtype}[{shape}] #{self.key & 0xFFFF:04x}>"


def _const_bytes(value: Any) -> bytes:
    return np.asarray(value).tobytes()


def toposort(roots: list[Node], computed: dict | None = None) -> list[Node]:
    """Nodes reachable from ``roots``, operands before users (iterative: graphs
    can be deeper than Python's recursion limit).

    With ``computed`` (a dict), a node whose value an earlier graph computed
    and whose DATA leaf is still alive (its ``memo``) stands for that leaf:
    the leaf takes its place in the order, its operands are not visited, and
    ``computed`` maps the leaf to the nodes it stands for. A frontend may hold
    a node across a barrier (take an array's node, read a value back, build
    on the node): the barrier may have donated the buffers below it.

    >>> import numpy as np
    >>> s = Node(Op.SCALAR, (), (), (), np.dtype("float32"), data=1.0)
    >>> n = Node(Op.NEG, (s,), (), (), np.dtype("float32"))
    >>> [x.op.name for x in toposort([n])]
    ['SCALAR', 'NEG']
    """
    order: list[Node] = []
    seen: set[Node] = set()  # nodes hash by identity
    add, append = seen.add, order.append
    for root in roots:
        if root in seen:
            continue
        add(root)
        if computed is not None and root.memo is not None \
                and _stand_in(root, computed, seen, order):
            continue
        stack = [(root, iter(root.operands))]  # a node and its operands still to visit
        while stack:
            node, pending = stack[-1]
            for operand in pending:
                if operand not in seen:
                    add(operand)
                    if operand.operands:
                        if computed is not None and operand.memo is not None \
                                and _stand_in(operand, computed, seen, order):
                            continue
                        stack.append((operand, iter(operand.operands)))
                        break
                    append(operand)  # a leaf: done at once
            else:
                append(node)
                stack.pop()
    return order


def _stand_in(node: Node, computed: dict, seen: set, order: list) -> bool:
    """Put ``node``'s computed leaf in the order in its place, if alive."""
    leaf = node.memo()
    if leaf is None:
        node.memo = None
        return False
    if leaf not in seen:
        seen.add(leaf)
        order.append(leaf)
    computed.setdefault(leaf, []).append(node)
    return True
