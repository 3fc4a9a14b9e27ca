"""Reading a pending value on the host when it only moves data that is
already there: an element or a row of computed arrays (``for v in a:
float(v)``, ``a[i].item()``, ``bool(mask[i])`` in a Python loop).

Such a read would otherwise run a graph of its own, about 0.3 ms a call
whatever its size; here its few movement ops (``MOVES``) are replayed with
numpy on host views of the device buffers, which on the CPU backend share
their memory, so the read costs microseconds and runs nothing. Nothing is
materialized: the value stays pending and a later barrier computes it as
usual. Anything else (another op, a buffer on an accelerator, a graph of
more than ``MAX_NODES`` nodes) returns None and the caller runs the graph.

Movement is exact, so the values are the graph's to the bit; dynamic slice
starts are clamped into range as XLA's are.

>>> import numpy as np
>>> from lazytensor.core.registry import make
>>> from lazytensor.core.ops import Op
>>> from lazytensor.core.leaves import data_leaf, scalar
>>> from lazytensor.core import compiler
>>> x = data_leaf(compiler.to_device(np.arange(12.0).reshape(3, 4)))
>>> row = make(Op.DYNAMIC_SLICE, (x, scalar(2, np.dtype("int64")),
...                                scalar(0, np.dtype("int64"))), (1, 4))
>>> read(make(Op.RESHAPE, (row,), (4,)))
array([ 8.,  9., 10., 11.])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op

MAX_NODES = 16  # a read touching more nodes than this runs as a graph


def _dynamic_slice(node: Node, x: np.ndarray, *starts: np.ndarray) -> np.ndarray:
    (sizes,) = node.attrs
    index = []
    for start, size, dim in zip(starts, sizes, x.shape, strict=True):
        begin = min(max(int(start), 0), dim - size)  # XLA clamps the window into x
        index.append(slice(begin, begin + size))
    return x[tuple(index)]


def _slice(node: Node, x: np.ndarray) -> np.ndarray:
    starts, limits, strides = node.attrs
    return x[tuple(slice(a, b, s) for a, b, s in zip(starts, limits, strides, strict=True))]


def _broadcast_in_dim(node: Node, x: np.ndarray) -> np.ndarray:
    shape, dims = node.attrs[0], node.attrs[1]
    kept = [1] * len(shape)
    for axis, dim in zip(dims, x.shape, strict=True):
        kept[axis] = dim
    return np.broadcast_to(x.reshape(kept), shape)


# op -> its value from its operands' host values (views where numpy makes them)
MOVES: dict[Op, Callable[..., np.ndarray]] = {
    Op.RESHAPE: lambda node, x: x.reshape(node.shape),
    Op.TRANSPOSE: lambda node, x: x.transpose(node.attrs[0]),
    Op.REV: lambda node, x: np.flip(x, node.attrs[0]),
    Op.SLICE: _slice,
    Op.DYNAMIC_SLICE: _dynamic_slice,
    Op.BROADCAST_IN_DIM: _broadcast_in_dim,
}


def _leaf_value(node: Node) -> np.ndarray | None:
    """A leaf's host value, or None where reading it would copy a device buffer."""
    if node.op is Op.DATA:
        array = node.data
        if array.is_deleted():
            return None
        devices = array.devices()
        if len(devices) != 1 or next(iter(devices)).platform != "cpu":
            return None
        return np.asarray(array)  # the CPU buffer itself (read-only), once it is ready
    if node.op in (Op.SCALAR, Op.CONST):
        value = np.asarray(node.data, dtype=node.dtype)
        return value if value.shape == node.shape else np.broadcast_to(value, node.shape)
    return None


def _computed(node: Node) -> Node | None:
    """The DATA leaf an earlier graph computed for ``node``, if still alive."""
    return node.memo() if node.memo is not None else None


def read(node: Node) -> np.ndarray | None:
    """``node``'s value as a fresh host array, or None when it is not only
    movement of host-readable leaves (see the module docstring)."""
    values: dict[Node, np.ndarray] = {}
    stack = [node]
    while stack:
        if len(values) + len(stack) > MAX_NODES:
            return None
        current = stack[-1]
        if current in values:
            stack.pop()
            continue
        leaf = current if not current.operands else _computed(current)
        if leaf is not None:
            value = _leaf_value(leaf)
            if value is None:
                return None
            values[current] = value
            stack.pop()
            continue
        move = MOVES.get(current.op)
        if move is None:
            return None
        waiting = [o for o in current.operands if o not in values]
        if waiting:
            stack.extend(waiting)
            continue
        values[current] = move(current, *(values[o] for o in current.operands))
        stack.pop()
    return np.array(values[node], copy=True)
