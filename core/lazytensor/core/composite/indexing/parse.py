"""Parsing numpy index objects for ``indexing``: each entry becomes a
token (kind, payload) -- new, ellipsis, bool0, int, slice, array (a Node or a
host int array), mask (a host bool array) -- the Ellipsis expands to full
slices, and host masks become their ``nonzero()`` integer arrays. Host-only
(no nodes are built); errors are numpy's IndexError texts.

>>> [kind for kind, _ in expand((0, ..., None), 3)]
['int', 'slice', 'slice', 'new']
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.ir import Node
from lazytensor.core.registry import CoreError


class IndexingError(CoreError, IndexError):
    """A bad index (numpy raises IndexError)."""


VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
          "integer or boolean arrays are valid indices")
NOT_INT = "arrays used as indices must be of integer (or boolean) type"


def _token(entry: Any) -> tuple[str, Any]:
    """One index entry as (kind, payload); kinds: new, ellipsis, bool0, int,
    slice, array (a Node or a host int array), mask (a host bool array)."""
    if entry is None:
        return ("new", None)
    if entry is Ellipsis:
        return ("ellipsis", None)
    if isinstance(entry, (bool, np.bool_)):
        return ("bool0", bool(entry))
    if isinstance(entry, (int, np.integer)):
        return ("int", int(entry))
    if isinstance(entry, slice):
        return ("slice", _int_slice(entry))
    if isinstance(entry, Node):
        if dt.is_bool(entry.dtype):
            raise IndexingError(
                "a boolean Node index has a data-dependent result shape: materialize the "
                "mask and index with the host array (or bool_indices(mask))")
        if not dt.is_int(entry.dtype):
            raise IndexingError(NOT_INT)
        return ("array", entry)
    if isinstance(entry, (list, tuple, np.ndarray)):
        return _host_token(np.asarray(entry))
    raise IndexingError(VALID)


def _int_slice(entry: slice) -> slice:
    """The slice with int bounds (objects with ``__index__``, such as 0-d
    integer arrays, are read: a slice's bounds decide the result shape)."""
    parts = (entry.start, entry.stop, entry.step)
    if all(p is None or type(p) is int for p in parts):
        return entry
    try:
        return slice(*(None if p is None else operator.index(p) for p in parts))
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ "
                        "method") from None


def _host_token(arr: np.ndarray) -> tuple[str, Any]:
    if arr.dtype == np.bool_:
        return ("bool0", bool(arr)) if arr.ndim == 0 else ("mask", arr)
    if arr.dtype.kind in "iu":
        return ("int", int(arr)) if arr.ndim == 0 else ("array", arr.astype(np.int64))
    if arr.size == 0:  # [] is an empty integer index
        return ("array", arr.astype(np.int64))
    raise IndexingError(NOT_INT)


_CONSUMES = {"new": 0, "bool0": 0, "int": 1, "slice": 1, "array": 1}


def expand(index: Any, ndim: int) -> list[tuple[str, Any]]:
    """Tokens with the ellipsis replaced by full slices (appended when absent)."""
    tokens = [_token(e) for e in (index if isinstance(index, tuple) else (index,))]
    if sum(kind == "ellipsis" for kind, _ in tokens) > 1:
        raise IndexingError("an index can only have a single ellipsis ('...')")
    used = sum(p.ndim if kind == "mask" else _CONSUMES.get(kind, 0) for kind, p in tokens)
    if used > ndim:
        raise IndexingError(f"too many indices for array: array is {ndim}-dimensional, but "
                            f"{used} were indexed")
    fill = [("slice", slice(None))] * (ndim - used)
    at = next((i for i, (kind, _) in enumerate(tokens) if kind == "ellipsis"), len(tokens))
    return tokens[:at] + fill + tokens[at + 1:]


def expand_basic(index: Any, ndim: int) -> list:
    """A basic index (ints, slices, None, at most one Ellipsis) as one entry
    per consumed or new axis: the Ellipsis becomes the full slices it stands
    for, which are appended when it is absent (what strided layouts read).

    >>> expand_basic((0, ..., None), 3)
    [0, slice(None, None, None), slice(None, None, None), None]
    """
    entries = index if type(index) is tuple else (index,)
    used = sum(1 for e in entries if e is not None and e is not Ellipsis)
    fill = [slice(None)] * (ndim - used)
    at = next((i for i, e in enumerate(entries) if e is Ellipsis), len(entries))
    return [*entries[:at], *fill, *entries[at + 1:]]


def unmask(tokens: list, shape: tuple[int, ...],
           empty_mask_axes: bool = False) -> tuple[list, tuple[int, ...]]:
    """Masks become their nonzero() int arrays; 0-d bools a new size-1 axis
    indexed by [0] (True) or [] (False). Returns tokens and the shape of x
    with those axes inserted. ``empty_mask_axes``: a mask axis of length 0
    selects nothing whatever the length of the axis it indexes (numpy's rule;
    torch raises)."""
    out, pre_shape, dim = [], [], 0
    for kind, p in tokens:
        if kind == "mask":
            for i, (want, got) in enumerate(zip(shape[dim:dim + p.ndim], p.shape, strict=False)):
                if want != got and not (empty_mask_axes and got == 0):
                    raise IndexingError(
                        f"boolean index did not match indexed array along axis {dim + i}; "
                        f"size of axis is {want} but size of corresponding boolean axis is "
                        f"{got}")
            out += [("array", nz.astype(np.int64)) for nz in np.nonzero(p)]
            pre_shape += shape[dim:dim + p.ndim]
            dim += p.ndim
        elif kind == "bool0":  # an advanced index of a new axis (not one of x's)
            out.append(("bool0", np.zeros(int(p), np.int64)))
            pre_shape.append(1)
        else:
            out.append((kind, p))
            if kind != "new":
                pre_shape.append(shape[dim])
                dim += 1
    return out, tuple(pre_shape)
