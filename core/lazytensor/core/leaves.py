"""Leaf nodes, the graph's inputs: device data (``data_leaf``), Python
scalars passed as parameters (``scalar``: a new value never recompiles) and
small constants compiled in by value (``constant``). Composites and
frontends make their leaves here; the runtime holds no state for them.

>>> constant([1, 2], np.dtype("int32")).shape
(2,)
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import placement
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op


def data_leaf(array) -> Node:
    """A DATA leaf over a device array (its attrs: its layout if sharded)."""
    return Node(Op.DATA, (), placement.attrs_of(array), tuple(array.shape),
                np.dtype(array.dtype), data=array)


def scalar(value, dtype: np.dtype, shape: tuple[int, ...] = ()) -> Node:
    """A Python scalar as a graph parameter (filled to ``shape``): changing
    its value never recompiles. An integer outside an integer ``dtype``'s
    range wraps around, as a C cast (torch, TensorFlow); a frontend that must
    refuse it (numpy's NEP 50 OverflowError) checks before.

    >>> scalar(-1, np.dtype("uint8")).data, scalar(200, np.dtype("int8")).data
    (255, -56)
    """
    if type(value) is int and dtype.kind in "iu":
        value = _wrap_int(value, dtype)
    return Node(Op.SCALAR, (), (), shape, dtype, data=value)


def _wrap_int(value: int, dtype: np.dtype) -> int:
    """``value`` modulo 2**bits, in ``dtype``'s range (two's complement)."""
    bits = 8 * dtype.itemsize
    value &= (1 << bits) - 1
    return value - (1 << bits) if dtype.kind == "i" and value >> (bits - 1) else value


def constant(value, dtype: np.dtype) -> Node:
    """A small constant, hashed and compiled in by value (shape-like data)."""
    array = np.asarray(value, dtype=dtype)
    return Node(Op.CONST, (), (), array.shape, array.dtype, data=array)
