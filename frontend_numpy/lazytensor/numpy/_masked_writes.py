"""``x[m] = f(x[m])`` and ``x[m].sum()`` without a data-dependent shape in
the graph (``lazytensor.core.masked``): a read through a full-shape boolean
mask is tagged with its source, elementwise ufuncs of tagged reads (and of
scalars) are tagged with the ufunc of the sources, a write through the same
mask of a tagged value selects the full-shape value, and a whole reduction
of a tagged value reduces the source under the mask.

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


def full_shape_mask(index, shape: tuple) -> bool:
    """Whether ``index`` is one boolean array of exactly ``shape``."""
    return isinstance(index, (ndarray, np.ndarray)) and index.dtype == np.bool_ \
        and index.shape == shape


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
    reads of one mask (0-d arrays and scalars broadcast), and the mask."""
    mask, full = None, []
    for v in values:
        if isinstance(v, ndarray):
            found = masked.source(v._h)
            if found is None:
                if v._h.node.shape:
                    return None
                full.append(v._h.node)
                continue
            if mask is not None and not _same(found[2], mask[1]):
                return None
            mask = found[1:]
            full.append(found[0])
        elif type(v) in WEAK_TYPES or isinstance(v, np.generic):
            full.append(v)
        else:
            return None
    return None if mask is None else (full, mask)


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
    full-shape mask and ``value`` was read (and computed elementwise)
    through that same mask; None otherwise."""
    if not masked.TAGS or not isinstance(value, ndarray) or not full_shape_mask(index, a.shape):
        return None
    found = masked.source(value._h)
    if found is None or not _same(found[2], mask_key(index)) or found[0].shape != a.shape:
        return None
    return found[0]


_WHOLE = (None, 0, -1, (0,), (-1,))


def whole(a, axis, keepdims: bool) -> tuple[Node, Node] | None:
    """``(full-shape source, mask)`` when ``a`` is a non-empty masked read
    reduced over its one axis without keepdims: that reduction is the
    source's reduction where the mask holds. None otherwise."""
    if not masked.TAGS or not isinstance(a, ndarray) or keepdims or not (
            axis is None or isinstance(axis, (int, np.integer, tuple))) or axis not in _WHOLE:
        return None
    found = masked.source(a._h)
    if found is None or not a._h.node.shape[0]:
        return None
    return found[0], found[1]
