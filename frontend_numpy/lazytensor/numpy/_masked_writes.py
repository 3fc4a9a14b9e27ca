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
from lazytensor.core.composite.elementwise import as_node
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


def _same(a: object, b: object) -> bool:
    return a is b or (type(a) is tuple and a == b)


def tag_read(result: ndarray, source: Node, index, mask: Node) -> None:
    """``result`` is ``source`` read through the full-shape mask ``index``
    (as a node: ``mask``)."""
    masked.tag(result._h, source, mask, mask_key(index))


def _full_operands(values: tuple) -> tuple[list, object] | None:
    """The full-shape operands of an elementwise op whose arrays are masked
    reads of one mask from sources of one shape, and the mask. Scalars and
    arrays of fewer axes than the reads broadcast over the trailing axes,
    which the reads and their sources share."""
    found, full, others = None, [], 0
    for v in values:
        tagged = masked.source(v._h) if isinstance(v, ndarray) else None
        if tagged is None:
            if type(v) in WEAK_TYPES or isinstance(v, np.generic):
                full.append(v)
                continue
            if not isinstance(v, (ndarray, np.ndarray)):
                return None
            full.append(v._h.node if isinstance(v, ndarray) else v)
            others = max(others, v.ndim)
            continue
        if found is not None and (not _same(tagged[2], found[2])
                                  or tagged[0].shape != found[0].shape):
            return None
        found = (*tagged, v.ndim)
        full.append(tagged[0])
    if found is None or others >= found[3]:
        return None
    return full, found[1:3]


def operands(values: tuple) -> tuple[list, object] | None:
    """``_full_operands``, or None at once when nothing is tagged (the
    operator path's cost)."""
    return _full_operands(values) if masked.TAGS else None


def tag_result(found: tuple[list, object] | None, compute, result: ndarray) -> None:
    """Tag ``result`` with ``compute(full operands)`` (converted to its dtype)
    when ``found`` (from ``operands``) says its operands were masked reads."""
    if found is None:
        return
    full, (mask, key) = found
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
    found = masked.source(value._h)
    if found is None or not _same(found[2], mask_key(index)) or found[0].shape != a.shape:
        return None
    return found[0]


def whole(a, axis, keepdims: bool) -> tuple[Node, Node, tuple | None] | None:
    """``(full-shape source, mask, axes)`` when ``a`` is a non-empty masked
    read reduced over axis 0 (or all axes) without keepdims: that reduction
    is the source's over ``axes`` (None: all) where the mask holds. None
    otherwise."""
    if not masked.TAGS or not isinstance(a, ndarray) or keepdims or not (
            axis is None or isinstance(axis, (int, np.integer, tuple))):
        return None
    found = masked.source(a._h)
    shape = a._h.node.shape
    if found is None or not shape[0]:
        return None
    first = (0, -len(shape), (0,), (-len(shape),))
    if axis is None or (len(shape) == 1 and axis in first):
        return found[0], found[1], None
    if axis in first:
        return found[0], found[1], tuple(range(found[1].ndim))
    return None
