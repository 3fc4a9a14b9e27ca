"""Values read through a boolean mask and written back through the same
mask: ``x[m] = f(x[m])``, ``x[m] += v``, ``y[m] = x[m] * 2``, and whole
reductions of such reads (``x[m].sum()``, ``X[labels == k].mean(axis=0)``).

On its own, ``x[m]`` has a data-dependent shape (the mask's count), so every
graph that uses it compiles once per count: a loop that updates the points
still alive (Mandelbrot, Julia sets, clipping, masked Newton steps) compiled
a new graph on every iteration. But an elementwise ``f`` of a masked read,
written back through the same mask, is ``where(m, f(x), y)``: a graph of the
full shape, the same whatever the count.

The frontend tags the handle of a masked read with its full-shape source and
its mask (``tag``); an elementwise op whose array operands are all tagged
with one mask tags its result with the op applied to the full-shape sources;
a write through that mask of a tagged value selects the full-shape value
(``write``), and a reduction of a whole tagged value reduces the source
where the mask holds (the reductions' ``where=``). A tag holds only while
its handle still holds the node it was made for (``source``): an in-place
change of the value, or a barrier that materializes it, drops the tag, and
the frontend's general path runs -- which is also what every other use of a
masked read takes. The full-shape nodes of an unused tag are never computed:
the runtime computes what live handles hold.

>>> import numpy as np
>>> from lazytensor.core.runtime import Handle
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.array([1.0, -2.0, 3.0]), np.dtype("float64"))
>>> m = constant(np.array([True, False, True]), np.dtype("bool"))
>>> read = Handle(constant(np.array([1.0, 3.0]), np.dtype("float64")))
>>> tag(read, x, m)
>>> source(read)[1] is m and source(read)[2] is m
True
>>> write(x, m, x).op.name
'SELECT'
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

from lazytensor.core.composite.elementwise.apply import as_node
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

# id(handle) -> (weak reference to the handle, the node it held when tagged,
# the full-shape value, the mask, what identifies the mask)
TAGS: dict[int, tuple] = {}


def tag(handle, full: Node, mask: Node, key: object = None) -> None:
    """Remember that ``handle`` (now) holds ``full`` read through the bool
    ``mask``; ``key`` identifies the mask for the frontend (default: the
    mask node itself)."""
    ident = id(handle)
    TAGS[ident] = (weakref.ref(handle, lambda _, ident=ident: TAGS.pop(ident, None)),
                   handle.node, full, mask, mask if key is None else key)


def source(handle) -> tuple[Node, Node, object] | None:
    """``(full-shape value, mask, key)`` of a tagged handle that still holds
    the node it was tagged with; None otherwise."""
    entry = TAGS.get(id(handle))
    if entry is None or entry[0]() is not handle or handle.node is not entry[1]:
        return None
    return entry[2], entry[3], entry[4]


def same_key(a: object, b: object) -> bool:
    """Whether two mask keys name one mask (nodes by identity, tuples by value)."""
    return a is b or (type(a) is tuple and a == b)


def full_operands(values: Sequence, handle_of: Callable, ndim_of: Callable) -> tuple | None:
    """The operands of an elementwise op with each tagged one replaced by its
    full-shape source (a Node), and the mask and key, when the tagged ones
    share one mask and one source shape and every other operand has fewer
    axes than they do (it broadcasts over the trailing axes that the reads
    share with their sources). ``handle_of(v)``: v's handle or None;
    ``ndim_of(v)``: its number of axes (0 for a scalar), None for a value
    the frontend cannot vouch for. None when the result is no masked read.

    >>> import numpy as np
    >>> from lazytensor.core.runtime import Handle
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([1.0, -2.0]), np.dtype("float64"))
    >>> m = constant(np.array([True, False]), np.dtype("bool"))
    >>> read = Handle(constant(np.array([1.0]), np.dtype("float64")))
    >>> tag(read, x, m)
    >>> full, mask, key = full_operands([read, 2.0], lambda v: v if isinstance(v, Handle)
    ...                                 else None, lambda v: 1 if isinstance(v, Handle) else 0)
    >>> full[0] is x and full[1] == 2.0 and mask is m
    True
    """
    found, full, others = None, [], 0
    for v in values:
        handle = handle_of(v)
        tagged = source(handle) if handle is not None else None
        ndim = ndim_of(v)
        if ndim is None:
            return None
        if tagged is None:
            others = max(others, ndim)
            full.append(v)
            continue
        if found is not None and (not same_key(tagged[2], found[2])
                                  or tagged[0].shape != found[0].shape):
            return None
        found = (*tagged, ndim)
        full.append(tagged[0])
    if found is None or others >= found[3]:
        return None
    return full, found[1], found[2]


def written(handle, key: object, shape: tuple) -> Node | None:
    """The full-shape value to write through the mask ``key`` into an array
    of ``shape`` when ``handle`` holds a read of that mask from a source of
    that shape (or an elementwise result of such reads); None otherwise."""
    found = source(handle)
    if found is None or not same_key(found[2], key) or found[0].shape != shape:
        return None
    return found[0]


def reduced(handle, axes: tuple | None) -> tuple[Node, Node, tuple] | None:
    """``(source, mask, source axes)`` when reducing the non-empty read that
    ``handle`` holds over ``axes`` (None: all) is reducing its source over
    the returned axes where the mask holds: over all the read's axes, or
    over its first (the mask's axes of the source). None otherwise."""
    found = source(handle)
    shape = handle.node.shape
    if found is None or not shape[0]:
        return None
    full, mask = found[0], found[1]
    n = len(shape)
    if axes is not None:
        if any(not -n <= a < n for a in axes):
            return None  # (the general path raises the framework's error)
        axes = {a % n for a in axes}
    if axes is None or axes == set(range(n)):
        return full, mask, tuple(range(full.ndim))
    if axes == {0}:
        return full, mask, tuple(range(mask.ndim))
    return None


def spread(mask: Node, shape: tuple) -> Node:
    """``mask`` over the leading axes of ``shape`` (``x[m]`` with m of x's
    leading shape reads whole rows), broadcast to ``shape``."""
    if mask.shape == shape:
        return mask
    return make(Op.BROADCAST_IN_DIM, (mask,), shape, tuple(range(mask.ndim)))


def write(target: Node, mask: Node, full: Node) -> Node:
    """``target`` with ``full``'s elements where ``mask`` (of target's
    leading shape) holds; ``full`` has target's shape and dtype."""
    return make(Op.SELECT, (spread(mask, target.shape), full, target))


def select(mask: Node, full: Node, identity) -> Node:
    """``full`` where ``mask`` holds, else ``identity`` (a reduction's): its
    reduction over the mask's axes is that of the masked read over axis 0."""
    fill = as_node(identity, full.dtype, full.shape)
    return make(Op.SELECT, (spread(mask, full.shape), full, fill))
