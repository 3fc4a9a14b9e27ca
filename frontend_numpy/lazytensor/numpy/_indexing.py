"""``x[index]`` and ``x[index] = value`` with numpy's semantics.

Basic indices (ints, slices, None, Ellipsis) give views whose writes reach
the base; a full integer index gives a copy (numpy returns a scalar there).
Advanced indices give copies. Host integer arrays are bounds-checked here
(numpy's IndexError) and become device data, so new index values never
recompile; boolean masks have data-dependent shapes: they are materialized
and replaced by their ``nonzero()`` arrays -- except ``x[mask] = scalar``
with a full-shape mask, which stays lazy as a select.
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core import layout as _layout
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite import indexing as ci
from lazytensor.core.composite import views as cv
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import CoreError, make
from lazytensor.core.runtime import get_runtime
from lazytensor.numpy import _errors
from lazytensor.numpy._base import lift, ndarray, wrap
from lazytensor.numpy._ufuncs import INT_BOUNDS, assign
from lazytensor.numpy._views import is_read_only, view

import numpy as np

_BASIC_TYPES = (int, slice, type(None), type(Ellipsis))


class Index:
    """An index prepared for the core: ``entries`` (ints, slices, None,
    Ellipsis, int Nodes), whether it is basic, and whether its advanced
    indices are known to be unique (masks, unique host arrays)."""

    __slots__ = ("entries", "basic", "unique", "items")

    def __init__(self, entries, basic: bool, unique: bool, items=None) -> None:
        self.entries, self.basic, self.unique, self.items = entries, basic, unique, items


def _consumed(entry) -> int:
    if entry is None or entry is Ellipsis:
        return 0
    if isinstance(entry, (ndarray, np.ndarray)) and entry.dtype == np.bool_:
        return entry.ndim
    return 1


def prepare(index, shape: tuple[int, ...]) -> Index:
    """Classify ``index`` and turn host/lazy arrays into what the core takes."""
    entries = index if type(index) is tuple else (index,)
    if all(type(e) in _BASIC_TYPES for e in entries):
        return Index(entries, True, True, _expand_basic(entries, len(shape)))
    entries = [e if type(e) in _BASIC_TYPES or isinstance(e, (ndarray, np.ndarray))
               else _normalize_entry(e) for e in entries]
    if all(type(e) in _BASIC_TYPES for e in entries):
        return Index(tuple(entries), True, True, _expand_basic(entries, len(shape)))
    used = sum(_consumed(e) for e in entries)
    out, dim, sources = [], 0, []
    for e in entries:
        if e is Ellipsis:
            dim += max(len(shape) - used, 0)
            out.append(e)
            continue
        converted, kind = _convert(e, shape, dim)
        out.extend(converted)
        sources.append(kind)
        dim += _consumed(e)
    arrays = [k for k in sources if k in ("mask", "host", "lazy")]
    unique = arrays == ["mask"] or arrays == ["unique"]
    return Index(tuple(out), False, unique)


def _normalize_entry(entry):
    if isinstance(entry, np.integer):
        return int(entry)
    if isinstance(entry, (list, tuple, range)) or hasattr(entry, "__array__"):
        host = np.asarray(entry)
        return host.astype(np.int64) if host.size == 0 else host
    if isinstance(entry, (bool, np.bool_)):
        return np.asarray(entry)
    if hasattr(entry, "__index__"):
        return entry.__index__()
    raise IndexError(ci._VALID)


def _convert(e, shape, dim) -> tuple[list, str]:
    """One entry as core entries, and where its values come from."""
    if type(e) in _BASIC_TYPES:
        return [e], "basic"
    if isinstance(e, ndarray):
        if e.dtype == np.bool_:
            return _mask(e.__array__(), shape, dim), "mask"
        if not dt.is_int(e.dtype):
            raise IndexError(ci._NOT_INT)
        return [e._h.node], "lazy"
    if e.dtype == np.bool_:
        return _mask(e, shape, dim), "mask"
    if e.dtype.kind not in "iu":
        raise IndexError(ci._NOT_INT)
    if e.ndim == 0:
        return [int(e)], "basic"
    return [_upload(_checked(e, shape[dim] if dim < len(shape) else 0, dim))], (
        "unique" if len(np.unique(e)) == e.size else "host")


def _mask(mask: np.ndarray, shape, dim) -> list:
    if mask.ndim == 0:
        return [np.asarray(bool(mask))]
    for i, (want, got) in enumerate(zip(shape[dim:dim + mask.ndim], mask.shape, strict=False)):
        if want != got:
            raise IndexError(
                f"boolean index did not match indexed array along axis {dim + i}; size of "
                f"axis is {want} but size of corresponding boolean axis is {got}")
    return [_upload(nz) for nz in np.nonzero(mask)]


def _checked(index: np.ndarray, n: int, axis: int) -> np.ndarray:
    bad = (index < -n) | (index >= n)
    if bad.any():
        raise IndexError(f"index {index[bad].flat[0]} is out of bounds for axis {axis} "
                         f"with size {n}")
    return np.where(index < 0, index + n, index)


def _upload(host: np.ndarray) -> Node:
    return get_runtime().from_host(np.asarray(host, dtype=np.int64)).node


def _expand_basic(entries, ndim: int) -> list:
    used = sum(1 for e in entries if e is not None and e is not Ellipsis)
    out = []
    for e in entries:
        if e is Ellipsis:
            out += [slice(None)] * (ndim - used)
        else:
            out.append(e)
    if Ellipsis not in entries:
        out += [slice(None)] * (ndim - used)
    return out


# -------------------------------------------------------------------- reads

def getitem(a: ndarray, index):
    """``a[index]``: a view for basic indices, else a copy."""
    try:
        node = a._h.node
        prepared = prepare(index, node.shape)
        if not prepared.basic:
            return wrap(ci.getitem(node, prepared.entries))
        items = prepared.items
        if len(items) == node.ndim and all(type(e) is int for e in items):
            return wrap(ci.getitem(node, prepared.entries))  # numpy gives a scalar: a copy
        strides = _layout.index_strides(node.shape, a._st, node.dtype.itemsize, items)
        return view(a, *cv.view_of(node, prepared.entries), strides)
    except CoreError as exc:
        raise _errors.translate(exc) from None


# ------------------------------------------------------------------- writes

def _value(value, dtype: np.dtype):
    lifted = lift(value)
    if type(lifted) is int and dtype.kind in "iu":
        lo, hi = INT_BOUNDS[dtype]
        if not lo <= lifted <= hi:
            raise OverflowError(f"Python integer {lifted} out of bounds for {dtype}")
    return lifted


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
    try:
        node = a._h.node
        v = _value(value, node.dtype)
        mask = _full_mask(index, node.shape)
        if mask is not None and (not isinstance(v, Node) or v.ndim == 0 or v.shape == (1,)):
            fill = ew.as_node(v if not isinstance(v, Node) else
                              make(Op.RESHAPE, (v,), ()), node.dtype, node.shape)
            assign(a, make(Op.SELECT, (mask, fill, node)))
            return
        prepared = prepare(index, node.shape)
        assign(a, ci.setitem(node, prepared.entries, v, unique_indices=prepared.unique))
    except CoreError as exc:
        raise _errors.translate(exc) from None


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

        return getitem(wrap(ravel(self.base)._h.node), index)

    def __setitem__(self, index, value) -> None:
        base = self.base
        if base._st is None:
            from lazytensor.numpy._views import reshape

            setitem(reshape(base, (base.size,)), index, value)
            return
        positions = np.arange(base.size)[index]
        setitem(base, np.unravel_index(positions, base.shape), value)

    def copy(self) -> ndarray:
        from lazytensor.numpy._shape import flatten

        return flatten(self.base)
