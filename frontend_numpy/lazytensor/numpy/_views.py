"""Views: arrays whose storage is a ``ViewHandle`` onto a base, so that writes
through them reach the base and writes to the base show through them, as in
numpy. Each view op gives the core a forward function (base -> view) and a
backward one (base, new view value -> new base), or None for read-only views
(broadcasts, diagonals), and computes numpy's strides for the result.
"""

from __future__ import annotations

from typing import Callable

from lazytensor.core import layout as _layout
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.movement import views as cv
from lazytensor.core.ir import Node
from lazytensor.core.runtime import ViewHandle
from lazytensor.numpy._base import ndarray, wrap

_new = object.__new__


def view(a: ndarray, forward: Callable[[Node], Node],
         backward: Callable[[Node, Node], Node] | None, strides) -> ndarray:
    """A view of ``a``: ``forward(a's node)``; writes go through ``backward``."""
    out = _new(ndarray)
    out._h = ViewHandle(a._h, forward, backward)
    out._st = strides
    out._b = a if a.base is None else a.base
    return out


def is_read_only(a: ndarray) -> bool:
    return getattr(a._h, "backward", True) is None


class LockedHandle(ViewHandle):
    """The handle of an array made read-only by ``setflags(write=False)``:
    the same node, no writes; ``unlocked`` is the handle it replaced."""

    __slots__ = ("unlocked",)


def set_writeable(a: ndarray, write: bool) -> None:
    """numpy's ``setflags(write=...)``: lock or unlock ``a`` (not views of it)."""
    if not write and not is_read_only(a):
        locked = LockedHandle(a._h, lambda n: n, None)
        locked.unlocked, a._h = a._h, locked
    elif write and isinstance(a._h, LockedHandle):
        a._h = a._h.unlocked
    elif write and is_read_only(a):
        raise ValueError("cannot set WRITEABLE flag to True of this array")


def reshape_view(a: ndarray, shape: tuple[int, ...], strides) -> ndarray:
    """``a`` seen with another shape (numpy found strides that allow it)."""
    return view(a, *cv.reshape_view(a._h.node, shape), strides)


def reshape(a: ndarray, shape: tuple[int, ...], copy: bool | None = None) -> ndarray:
    """numpy's C-order reshape: a view when strides allow it, else a copy."""
    node = a._h.node
    shape = cs.resolve_shape(cs.size(node), shape)
    strides = _layout.reshape_strides(node.shape, a._st, shape, node.dtype.itemsize)
    if strides is _layout.COPY or copy:
        if copy is False:
            raise ValueError("Unable to avoid creating a copy while reshaping.")
        return wrap(cs.reshape(node, shape))
    return reshape_view(a, shape, strides)


def transpose(a: ndarray, perm: tuple[int, ...]) -> ndarray:
    """``a`` with permuted axes (always a view in numpy)."""
    node = a._h.node
    strides = _layout.transpose(node.shape, a._st, node.dtype.itemsize, perm)
    return view(a, *cv.transpose_view(node, perm), strides)


def broadcast(a: ndarray, shape: tuple[int, ...]) -> ndarray:
    """A read-only broadcast view (numpy's broadcast_to)."""
    node = a._h.node
    cs.broadcast_to(node, shape)  # numpy's error for impossible shapes, now
    st = _layout.broadcast(node.shape, a._st, node.dtype.itemsize, shape)
    return view(a, lambda n: cs.broadcast_to(n, shape), None, st)


def read_only(a: ndarray, forward: Callable[[Node], Node], strides=None) -> ndarray:
    return view(a, forward, None, strides)
