"""Reductions and running scans of associative, commutative binary ops that
have no reduce primitive: bitwise and / or / xor and logical xor (numpy's
``np.bitwise_xor.reduce``, ``np.bitwise_or.accumulate``,
``np.logical_xor.reduce``...). A reduction is a tree of the elementwise op
over halves of the reduced axis (log2(n) levels); a scan doubles its reach
each step (Hillis-Steele: log2(n) steps), both exact for integers and bools.

Shape/dtype rule: a reduction drops (or keeps as size 1) the reduced axes, a
scan keeps x's shape; both keep x's dtype (bool for logical_xor).

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.arange(12).reshape(3, 4), np.dtype("int64"))
>>> fold("bitwise_xor", x, (1,)).shape, scan("bitwise_or", x, 0).shape
((3,), (3, 4))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.predicates import logical
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def _prim(op: Op) -> Callable[[Node, Node], Node]:
    return lambda a, b: make(op, (a, b))


# kind -> the elementwise op combining two partial results
COMBINE: dict[str, Callable[[Node, Node], Node]] = {
    "bitwise_and": _prim(Op.AND), "bitwise_or": _prim(Op.OR), "bitwise_xor": _prim(Op.XOR),
    "logical_xor": logical(Op.XOR),
}


def identity_of(dtype: np.dtype, kind: str):
    """The identity of a reduction ``kind`` ('max', 'min', ...) in ``dtype``."""
    if kind in ("sum", "any"):
        return 0 if not dt.is_bool(dtype) else False
    if kind in ("prod", "all"):
        return 1 if not dt.is_bool(dtype) else True
    if kind == "logsumexp":  # log(0)
        return -math.inf
    if kind in ("bitwise_or", "bitwise_xor", "logical_xor"):
        return 0 if not dt.is_bool(dtype) else False
    if kind == "bitwise_and":  # every bit set
        return True if dt.is_bool(dtype) else int(dt.iinfo(dtype).max) if dt.is_unsigned(
            dtype) else -1
    if dt.is_bool(dtype):
        return kind == "min"
    if dt.is_int(dtype):
        info = dt.iinfo(dtype)
        return int(info.min) if kind == "max" else int(info.max)
    return -math.inf if kind == "max" else math.inf


def fold(kind: str, x: Node, axes: Sequence[int], keepdims: bool = False) -> Node:
    """The ``kind`` reduction of x over the (normalized) ``axes``; an empty
    axis gives the identity."""
    axes = tuple(sorted(axes))
    rest = [a for a in range(x.ndim) if a not in axes]
    kept = tuple(x.shape[a] for a in rest)
    n = math.prod(x.shape[a] for a in axes)
    flat = cs.reshape(cs.transpose(x, (*rest, *axes)), (math.prod(kept), n))
    if n == 0:
        flat = ew.full((flat.shape[0], 1), identity_of(x.dtype, kind), x.dtype)
    while flat.shape[1] > 1:
        half = flat.shape[1] // 2
        paired = COMBINE[kind](cs.slice_axis(flat, 1, 0, half),
                               cs.slice_axis(flat, 1, half, 2 * half))
        odd = flat.shape[1] % 2
        flat = cs.concatenate([paired, cs.slice_axis(flat, 1, 2 * half, None)], 1) if odd \
            else paired
    out_shape = tuple(1 if a in axes else s for a, s in enumerate(x.shape)) if keepdims else kept
    return cs.reshape(flat, out_shape)


def scan(kind: str, x: Node, axis: int) -> Node:
    """The running ``kind`` reduction along (non-negative) ``axis``: element
    i combines elements 0..i."""
    n = x.shape[axis]
    step = 1
    while step < n:
        pad_shape = tuple(step if d == axis else s for d, s in enumerate(x.shape))
        shifted = cs.concatenate([ew.full(pad_shape, identity_of(x.dtype, kind), x.dtype),
                                  cs.slice_axis(x, axis, 0, n - step)], axis)
        x = COMBINE[kind](x, shifted)
        step *= 2
    return x
