"""``x[m] = f(x[m])`` and ``x[m].sum()`` without a data-dependent shape in the
graph (``lazytensor.core.masked``): a read through a boolean mask of the
array's shape (or of its leading axes: whole rows) is tagged with its
source, elementwise ufuncs of tagged reads (and of scalars) are tagged with
the ufunc of the sources, a write through the same mask of a tagged value
selects the full-shape value, and a whole reduction of a tagged value
reduces the source under the mask.

A mask is recognized again by its node when it is lazy (it was read to the
host, so it holds a leaf until it changes) and by its identity and contents
when it is a host array.
"""

from __future__ import annotations

from lazytensor.core import masked
from lazytensor.core.composite.elementwise.apply import as_node
from lazytensor.core.ir import Node
from lazytensor.core.registry import CoreError
from lazytensor.numpy._base import WEAK_TYPES, ndarray

import numpy as np


def leading_mask(index, shape: tuple) -> bool:
    """Whether ``index`` is one boolean array of ``shape``'s leading shape
    (all of it: elements; fewer axes: whole rows)."""
    return isinstance(index, (ndarray, np.ndarray)) and index.dtype == np.bool_ \
        and 0 < index.ndim <= len(shape) and index.shape == shape[:index.ndim]


def mask_node(index) -> Node:
    from lazytensor.numpy._base import lift

    return lift(index)


def mask_key(index) -> object:
    """What identifies a full-shape mask between a read and a write."""
    if isinstance(index, ndarray):
        return index._h.node
    return id(index), index.tobytes()


def tag_read(result: ndarray, source: Node, index, mask: Node) -> None:
    """``result`` is ``source`` read through the full-shape mask ``index``
    (as a node: ``mask``)."""
    masked.tag(result._h, source, mask, mask_key(index))


def _handle(v):
    return v._h if isinstance(v, ndarray) else None


def _ndim(v) -> int | None:
    if type(v) in WEAK_TYPES or isinstance(v, np.generic):
        return 0
    return v.ndim if isinstance(v, (ndarray, np.ndarray)) else None


def operands(values: tuple) -> tuple | None:
    """The full-shape operands, mask and key of an elementwise op on masked
    reads (``masked.full_operands``); None at once when nothing is tagged
    (the operator path's cost)."""
    return masked.full_operands(values, _handle, _ndim) if masked.TAGS else None


def tag_result(found: tuple[list, object] | None, compute, result: ndarray) -> None:
    """Tag ``result`` with ``compute(full operands)`` (converted to its dtype)
    when ``found`` (from ``operands``) says its operands were masked reads."""
    if found is None:
        return
    full, mask, key = found
    try:
        node = compute(tuple(full))
        node = as_node(node, result.dtype, node.shape)
    except (CoreError, TypeError, ValueError):
        return
    masked.tag(result._h, node, mask, key)


def written(a: ndarray, index, value) -> Node | None:
    """The full-shape value of ``a[index] = value`` when ``index`` is a
    leading mask of ``a`` and ``value`` was read (and computed elementwise)
    through that same mask; None otherwise."""
    if not masked.TAGS or not isinstance(value, ndarray) or not leading_mask(index, a.shape):
        return None
    return masked.written(value._h, mask_key(index), a.shape)


def whole(a, axis, keepdims: bool) -> tuple[Node, Node, tuple] | None:
    """``(full-shape source, mask, axes)`` when ``a`` is a non-empty masked
    read reduced over axis 0 or all its axes without keepdims: that
    reduction is the source's over ``axes`` where the mask holds
    (``masked.reduced``). None otherwise."""
    if not masked.TAGS or not isinstance(a, ndarray) or keepdims:
        return None
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    elif axis is not None and not (isinstance(axis, tuple)
                                   and all(isinstance(x, (int, np.integer)) for x in axis)):
        return None
    return masked.reduced(a._h, axis)
