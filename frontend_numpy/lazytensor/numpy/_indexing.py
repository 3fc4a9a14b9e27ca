"""``x[index]`` and ``x[index] = value`` with numpy's semantics.

Basic indices (ints, slices, None, Ellipsis) give views whose writes reach
the base; a full integer index gives a copy (numpy returns a scalar there).
Advanced indices give copies. The core's indexing bounds-checks host
integer arrays (numpy's IndexError) and uploads them as device data, so new
index values never recompile; boolean masks have data-dependent shapes:
lazy ones are materialized and the core takes their ``nonzero()`` arrays --
except ``x[mask] = scalar`` with a full-shape mask, which stays lazy as a
select, and ``x[mask] = f(x[mask])`` (``_masked_writes``), a select of ``f(x)``.
This module keeps numpy's conversions of index objects, views and its
read-only and overflow rules.
"""

from __future__ import annotations

import math
import warnings

from lazytensor.core import layout as _layout
from lazytensor.core import masked
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing import subscript as ci
from lazytensor.core.composite.indexing.parse import NOT_INT, VALID
from lazytensor.core.composite.movement import views as cv
from lazytensor.core.composite.movement.rearrange import resized
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import CoreError, make
from lazytensor.core.runtime import ViewHandle
from lazytensor.numpy import _errors, _masked_writes
from lazytensor.numpy._base import lift, ndarray, node_of, wrap
from lazytensor.numpy._ufuncs import assign, stored
from lazytensor.numpy._views import is_read_only, view

import numpy as np

_BASIC_TYPES = (int, slice, type(None), type(Ellipsis))


def core_index(index) -> tuple:
    """``index`` as a tuple of what the core's indexing takes (ints, slices,
    None, Ellipsis, host arrays, int Nodes): numpy's conversions of index
    objects (``__index__``, ``__array__``, lists), and lazy boolean masks
    read to the host (their count decides the result's shape)."""
    entries = tuple(index) if isinstance(index, tuple) else (index,)  # subclasses too
    if all(type(e) in _BASIC_TYPES and not _lazy_slice(e) for e in entries):
        return entries
    return tuple(_entry(e) for e in entries)


_MAXDIMS = 64  # numpy's NPY_MAXDIMS, also its bound on advanced indices


def _check_limits(entries: tuple, shape: tuple[int, ...]) -> None:
    """numpy's IndexErrors for indices past its limits (the core has none):
    64 advanced indices (arrays, bools) or more, results of over 64 axes."""
    if len(entries) + len(shape) < _MAXDIMS:
        return
    final = ci.plan_index(shape, entries).final_shape  # first: numpy's too-many-indices error
    advanced = sum(type(e) not in _BASIC_TYPES for e in entries)
    if advanced > _MAXDIMS:
        raise IndexError("too many advanced (array) indices. This probably means you are "
                         f"indexing with too many booleans. (more than {_MAXDIMS} found)")
    if advanced == _MAXDIMS:
        raise IndexError(f"when no subspace is given, the number of index arrays cannot be "
                         f"above {_MAXDIMS - 1}, but {_MAXDIMS} index arrays found")
    if len(final) > _MAXDIMS:
        raise IndexError(f"number of dimensions must be within [0, {_MAXDIMS}], indexing "
                         f"result would have {len(final)}")


def _lazy_slice(e) -> bool:
    return type(e) is slice and any(isinstance(p, ndarray) for p in (e.start, e.stop, e.step))


def _is_basic(entries: tuple) -> bool:
    return all(type(e) in _BASIC_TYPES for e in entries)


def _entry(entry):
    if _lazy_slice(entry):  # read its bounds now, before the array's node is taken
        return slice(*(None if p is None else p.__index__()
                       for p in (entry.start, entry.stop, entry.step)))
    if type(entry) in _BASIC_TYPES:
        return entry
    if isinstance(entry, ndarray):
        return entry.__array__() if entry.dtype == np.bool_ else entry._h.node
    if isinstance(entry, np.ndarray):
        if entry.dtype.kind not in "iub":  # even when empty (an empty list is ints)
            raise IndexError(NOT_INT)
        return entry
    if isinstance(entry, np.integer):
        return int(entry)
    if isinstance(entry, (list, tuple, range)) or hasattr(entry, "__array__"):
        host = np.asarray(entry)
        return host.astype(np.int64) if host.size == 0 else host
    if isinstance(entry, (bool, np.bool_)):
        return np.asarray(entry)
    if hasattr(entry, "__index__"):
        return entry.__index__()
    raise IndexError(VALID)


# -------------------------------------------------------------------- reads

def getitem(a: ndarray, index):
    """``a[index]``: a view for basic indices, else a copy. Host index arrays
    are uploaded as device data: new index values never recompile."""
    try:
        entries = core_index(index)  # first: reading a lazy mask runs the graph
        node = a._h.node
        _check_limits(entries, node.shape)
        if not _is_basic(entries):
            out = wrap(ci.getitem(node, entries, upload=True, empty_mask_axes=True))
            if _masked_writes.leading_mask(index, node.shape):
                _masked_writes.tag_read(out, node, index, _masked_writes.mask_node(index))
            return out
        items = ci.expand_basic(entries, node.ndim)
        if len(items) == node.ndim and all(type(e) is int for e in items):
            return wrap(ci.getitem(node, entries))  # numpy gives a scalar: a copy
        pair = cv.view_of(node, entries)  # numpy's index errors first
        strides = _layout.index_strides(node.shape, a._st, node.dtype.itemsize, items)
        return view(a, *pair, strides)
    except CoreError as exc:
        raise _errors.translate(exc) from None


# ------------------------------------------------------------------- writes

_value = stored


def _full_mask(index, shape) -> Node | None:
    """The mask node of ``x[mask] = v`` when the mask covers x exactly."""
    if isinstance(index, ndarray) and index.dtype == np.bool_ and index.shape == shape:
        return index._h.node
    if isinstance(index, np.ndarray) and index.dtype == np.bool_ and index.shape == shape:
        return lift(index)
    return None


def setitem(a: ndarray, index, value) -> None:
    """``a[index] = value`` (through to the base when ``a`` is a view)."""
    if is_read_only(a):
        raise _errors.read_only_error()
    if _writes_itself(a, index, value):
        return
    try:
        full = _masked_writes.written(a, index, value)
        if full is not None:  # x[m] = f(x[m]): where(m, f(x), x), no data-dependent shape
            node = a._h.node
            value = ew.as_node(_value(full, a.dtype), node.dtype, node.shape)
            assign(a, masked.write(node, _masked_writes.mask_node(index), value))
            return
        mask = _full_mask(index, a.shape)
        if mask is None or np.ndim(value) > 0 and np.shape(value) != (1,):
            mask, index = None, core_index(index)  # first: reading a lazy mask runs the graph
            _check_limits(index, a.shape)
        v, node = _value(value, a.dtype), a._h.node
        if mask is not None:
            fill = ew.as_node(v if not isinstance(v, Node) else
                              make(Op.RESHAPE, (v,), ()), node.dtype, node.shape)
            assign(a, make(Op.SELECT, (mask, fill, node)))
            return
        assign(a, ci.setitem(node, index, v, upload=True, empty_mask_axes=True))
    except CoreError as exc:
        raise _errors.translate(exc) from None


def _writes_itself(a: ndarray, index, value) -> bool:
    """``a[index] = v`` where ``v`` is the view ``a[index]`` (Python stores
    ``a[i:j]`` back after ``a[i:j] += w`` wrote through it): nothing to do."""
    handle = getattr(value, "_h", None)
    if not isinstance(handle, ViewHandle) or handle.base is not a._h:
        return False
    entries = index if type(index) is tuple else (index,)
    return all(type(e) in _BASIC_TYPES and not _lazy_slice(e) for e in entries) \
        and cv.reads(handle.forward, a.shape, index)


def _cycled(value, shape: tuple[int, ...]) -> ndarray | None:
    """A non-scalar value written through ``x.flat``: numpy repeats its
    elements in C order over the written positions (or uses the first
    ones); None for an empty value."""
    node = node_of(value)
    if not math.prod(node.shape):
        return None
    return wrap(reshape(resized(node, math.prod(shape)), shape))


_FLAT_VALID = ("only integers, slices (`:`), ellipsis (`...`) and integer or boolean arrays "
               "are valid indices")
_FLAT_BOOLS = ("boolean indices for iterators are not supported because of previous behavior "
               "that was confusing (valid boolean indices are expected to work in the future)")

_FLAT_FLOATS = ("Invalid non-array indices for iterator objects are deprecated and will be "
                "removed in a future version. (Deprecated NumPy 2.4)")


def _flat_index(index, size: int, write: bool):
    """numpy 2.4's rules for ``x.flat[index]``: one index at most (no
    None), a 0-d bool is position 0 or nothing (deprecated), a float (or a list of
    floats) is truncated (deprecated), a list of bools refused, another flatiter is
    its elements, and a mask must have ``size`` entries."""
    if isinstance(index, tuple):
        if len(index) > 1:
            raise IndexError("too many indices for flat iterator: flat iterator is "
                             f"1-dimensional, but {len(index)} were indexed")
        if not index and write:
            raise IndexError("Assigning to a flat iterator with a 0-D index is not supported")
        index = index[0] if index else Ellipsis
    if index is None:
        raise IndexError(_FLAT_VALID)
    if isinstance(index, FlatIter):
        return index.copy()
    if isinstance(index, (bool, np.bool_)):
        warnings.warn("Indexing flat iterators with a 0-dimensional boolean index is deprecated "
                      "and may be removed in a future version. (Deprecated NumPy 2.4)",
                      DeprecationWarning, stacklevel=3)
        return 0 if index else slice(0, 0)
    if isinstance(index, (float, np.floating)):
        warnings.warn(_FLAT_FLOATS, DeprecationWarning, stacklevel=3)
        return int(index)
    if isinstance(index, list) and index and all(isinstance(v, (bool, np.bool_)) for v in index):
        raise IndexError(_FLAT_BOOLS)
    if isinstance(index, list) and index and np.asarray(index).dtype.kind == "f":
        warnings.warn(_FLAT_FLOATS, DeprecationWarning, stacklevel=3)
        return np.asarray(index).astype(np.intp)
    if getattr(index, "dtype", None) == np.bool_ and np.ndim(index) == 1 and len(index) != size:
        raise IndexError("boolean index did not match indexed flat iterator along axis 0; "
                         f"size of axis is {size} but size of corresponding boolean axis is "
                         f"{len(index)}")
    return index


class FlatIter:
    """``x.flat``: reads index the C-order ravel (copies, as numpy's); writes
    reach ``x`` through a flat view or unravelled indices."""

    __slots__ = ("base",)

    def __init__(self, base: ndarray) -> None:
        self.base = base

    def __len__(self) -> int:
        return self.base.size

    def __iter__(self):
        return iter(self.base.__array__().flat)  # numpy yields scalars: one observation

    def __getitem__(self, index):
        from lazytensor.numpy._shape import ravel

        index = _flat_index(index, self.base.size, write=False)
        return getitem(wrap(ravel(self.base)._h.node), index)

    def __setitem__(self, index, value) -> None:
        base = self.base
        index = _flat_index(index, base.size, write=True)
        if np.ndim(value) > 0:
            value = _cycled(value, np.arange(base.size)[index].shape)
            if value is None:
                return  # numpy: an empty value writes nothing
        if base._st is None:
            from lazytensor.numpy._views import reshape

            setitem(reshape(base, (base.size,)), index, value)
            return
        positions = np.arange(base.size)[index]
        setitem(base, np.unravel_index(positions, base.shape), value)

    def copy(self) -> ndarray:
        from lazytensor.numpy._shape import flatten

        return flatten(self.base)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """The C-order ravel on the host, in one read (numpy would otherwise
        read the iterator element by element, as a sequence)."""
        host = np.ravel(self.base.__array__())
        return host if dtype is None else host.astype(dtype, copy=False)
