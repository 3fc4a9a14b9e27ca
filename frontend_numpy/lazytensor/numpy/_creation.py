"""Array creation with numpy's signatures and dtype defaults (float64 for
``zeros``/``eye``/float ranges, int64 for integer ranges), on the core's
creation composites. Fill values become scalar parameters (no recompiles).
"""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core import layout as _layout
from lazytensor.core.composite.creation import arrays as cc
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.promotion import NUMPY, result_type
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.ir import Node
from lazytensor.core.runtime import Handle
from lazytensor.numpy._base import (
    WEAK_TYPES,
    from_host,
    lift,
    mark_explicit,
    ndarray,
    nested_node,
    node_of,
    numpy_only,
    wrap,
    wrap_handle,
)
from lazytensor.numpy._dispatch import eager, implements, note_fallback, to_host, to_lazy
from lazytensor.numpy._errors import UnsupportedDtype
from lazytensor.numpy._ufuncs import stored

import numpy as np


def canonical(dtype) -> np.dtype:
    """``dtype`` canonical (None: float64, as numpy's); dates, strings and
    objects, structured and user-defined (void) dtypes are numpy's alone."""
    try:
        out = dt.canonical(dtype)
    except TypeError:
        if numpy_only(np.dtype(dtype)):  # longdouble: numpy's own arrays, as dates
            raise UnsupportedDtype(f"lazytensor.numpy does not support dtype {dtype}") from None
        raise
    if out.kind in "mMUSOV":
        raise UnsupportedDtype(f"lazytensor.numpy does not support dtype {out}")
    return out


def as_dtype(dtype) -> np.dtype | None:
    return None if dtype is None else canonical(dtype)


def _fill_dtype(value) -> np.dtype:
    """The dtype numpy gives ``np.full(shape, value)``."""
    lifted = lift(value)
    return lifted.dtype if isinstance(lifted, Node) else np.asarray(lifted).dtype


def _like_strides(a, node: Node, order: str):
    if order not in ("K", "A") or type(a) is not ndarray or a._st is None or node.ndim < 2:
        return None
    return _layout.fresh(node.shape, [(a.shape, a._st, a.itemsize)], node.dtype.itemsize)


def _order(node: Node, order: str):
    """numpy's strides of a new array in ``order`` ("F": column-major)."""
    if order != "F" or node.ndim < 2:
        return None
    size = node.dtype.itemsize
    return _layout.normalize(node.shape, _layout.permuted_strides(
        node.shape, range(node.ndim)[::-1], size), size)


# ------------------------------------------------------------- from data

@implements("array")
def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, ndmax=None,
          like=None):
    """A new lazy array from host data or another lazy array (a copy unless
    ``copy=False`` and nothing needs changing); ``ndmax`` (numpy 2.4: how
    deep nested sequences are read) is numpy's own on host data."""
    if ndmax is not None:
        limits = {"ndmax": ndmax}
        if isinstance(object, ndarray):  # numpy's checks of ndmax on the array itself
            np.array(np.broadcast_to(np.zeros((), object.dtype), object.shape), ndmin=ndmin,
                     ndmax=ndmax, dtype=dtype)
        else:
            host = np.array(object, dtype=dtype, ndmin=ndmin, order=order, **limits)
            return host if numpy_only(host.dtype) else array(host)
    dtype = as_dtype(dtype)
    if isinstance(object, ndarray):
        node = object._h.node
        if node.ndim < ndmin:
            node = reshape(node, (1,) * (ndmin - node.ndim) + node.shape)
        node = ew.convert(node, dtype) if dtype is not None else node
        if copy is False and node is object._h.node:
            return object
        order = order.upper() if isinstance(order, str) else order
        fortran = object.flags.f_contiguous and not object.flags.c_contiguous
        if order == "F" or order == "A" and fortran:
            return wrap(node, _order(node, "F"))
        return wrap(node, _like_strides(object, node, "K") if order == "K" else None)
    if copy is False:
        raise ValueError("Unable to avoid copy while creating a lazy array from host data.")
    stacked = nested_node(object)  # a list of lazy arrays: their stack, not read
    if stacked is not None:
        return array(wrap(stacked), dtype, copy=None, order=order, ndmin=ndmin)
    if isinstance(object, (list, tuple)):  # numpy reads a 0-d lazy item as a sequence
        object = to_host(object)
    host = np.array(object, dtype=dtype, ndmin=ndmin, order=order)
    if numpy_only(host.dtype):  # strings, objects, longdouble: numpy's own (eager) array
        note_fallback(f"numpy.array (dtype {host.dtype})")
        return host
    return mark_explicit(from_host(host))


@implements("asarray")
def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``a`` itself when it already is a lazy array of ``dtype``."""
    dtype = as_dtype(dtype)
    order = order.upper() if isinstance(order, str) else order
    if order not in (None, "C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if isinstance(a, ndarray) and (dtype is None or dtype == a.dtype) and not copy and (
            order in (None, "K", "A") or a.flags[f"{order}_CONTIGUOUS"]):
        return a
    return array(a, dtype, copy=True if copy is None else copy, order=order or "K")


@implements("asanyarray")
def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    return asarray(a, dtype, copy=copy)


@implements("ascontiguousarray")
def ascontiguousarray(a, dtype=None, *, like=None):
    return _laid_out_as(a, dtype, "C")


@implements("asfortranarray")
def asfortranarray(a, dtype=None, *, like=None):
    return _laid_out_as(a, dtype, "F")


def _laid_out_as(a, dtype, order: str):
    """``a`` itself when already contiguous in ``order``, else a copy so; at least 1-d."""
    if np.ndim(a) == 0:
        return array(a, dtype, order=order, ndmin=1)
    return asarray(a, dtype, order=order)


@implements("copy")
def copy(a, order="K", subok=False):
    """A fresh array with ``a``'s values (numpy's K order keeps its layout)."""
    node = node_of(a)
    return wrap(node, _like_strides(a, node, order))


def array_copy(a: ndarray, order="C") -> ndarray:
    """``ndarray.copy``: C order by default."""
    node = a._h.node
    return wrap_handle(Handle(node), _like_strides(a, node, order))


# ------------------------------------------------------------- filled

@implements("zeros")
def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    node = cc.zeros(shape, canonical(float if dtype is None else dtype))
    return mark_explicit(wrap(node, _order(node, order)))


@implements("ones")
def ones(shape, dtype=None, order="C", *, device=None, like=None):
    node = cc.ones(shape, canonical(dtype or float))
    return mark_explicit(wrap(node, _order(node, order)))


@implements("empty")
def empty(shape, dtype=None, order="C", *, device=None, like=None):
    """Like numpy's ``empty``, uninitialized in spirit; zeros in fact."""
    return zeros(shape, dtype, order)


@implements("full")
def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    dtype = as_dtype(dtype) or _fill_dtype(fill_value)
    node = cc.full(shape, stored(fill_value, dtype), dtype)
    return mark_explicit(wrap(node, _order(node, order)))


def _like(a, dtype, shape, value, order):
    proto = node_of(a)
    dtype = as_dtype(dtype) or proto.dtype
    shape = proto.shape if shape is None else shape
    node = cc.full(shape, value, dtype)
    return wrap(node, _like_strides(a, node, order) if shape == proto.shape else None)


@implements("zeros_like")
def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(a, dtype, shape, 0, order)


@implements("ones_like")
def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(a, dtype, shape, 1, order)


@implements("empty_like")
def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(prototype, dtype, shape, 0, order)


@implements("full_like")
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(a, dtype, shape, stored(fill_value, as_dtype(dtype) or node_of(a).dtype), order)


# ------------------------------------------------------------- ranges

def _number(value):
    if isinstance(value, ndarray):
        return value.item()
    return value.item() if isinstance(value, np.generic) else value


@implements("arange")
def arange(start_or_stop=None, /, stop=None, step=None, dtype=None, *, start=None,
           device=None, like=None):
    """numpy.arange: int64 for integer arguments, float64 otherwise; start and
    stop may be keywords, as numpy's."""
    if start is not None and (start_or_stop is not None or stop is None):
        raise TypeError("arange() requires stop to be specified." if stop is None else
                        "arange() got multiple values for argument 'start'")
    start, stop, step = (_number(v) for v in (start_or_stop if start is None else start,
                                              stop, step))
    if stop is None:
        if start is None:
            raise TypeError("arange() requires stop to be specified.")
        start, stop = 0, start
    start = 0 if start is None else start
    step = 1 if step is None else step
    dtype = as_dtype(dtype)
    _check_length(start, stop, step)
    if dtype == dt.bool_:  # numpy: False, True at most
        if cc.arange_length(start, stop, step) > 2:
            raise TypeError("arange() is only supported for booleans when the result has at "
                            "most length 2.")
        return wrap(ew.convert(cc.arange(start, stop, step, dt.int64), dtype))
    if dtype is not None and dtype.kind == "c" and not any(
            isinstance(v, complex) for v in (start, stop, step)):  # real values, complex type
        return wrap(ew.convert(cc.arange(start, stop, step, dt.real_dtype(dtype)), dtype))
    return wrap(cc.arange(start, stop, step, dtype))


def _check_length(start, stop, step) -> None:
    """numpy's errors for a length that is NaN or infinite."""
    if not all(isinstance(v, (int, float)) for v in (start, stop, step)) or step == 0:
        return  # (complex, dates: numpy's own rules)
    length = (stop - start) / step
    if math.isnan(length):
        raise ValueError("arange: cannot compute length")
    if math.isinf(length):
        raise ValueError("Maximum allowed size exceeded")


def _range_dtype(*values) -> np.dtype:
    """numpy's ``result_type(start, stop, float)`` for linspace and friends."""
    keys = [v.dtype if isinstance(v, Node) else type(v) for v in values]
    return result_type(NUMPY, *keys, float)


def _range_operand(value):
    lifted = lift(value)
    return lifted if isinstance(lifted, Node) or type(lifted) in WEAK_TYPES else node_of(value)


@implements("linspace")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    lo, hi = _range_operand(start), _range_operand(stop)
    compute = _range_dtype(lo, hi)
    out = cc.linspace(lo, hi, int(num), endpoint, retstep, as_dtype(dtype), axis, compute)
    if retstep:
        samples, step = out
        return wrap(samples), wrap(step)
    return wrap(out)


@implements("logspace")
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    lo, hi = _range_operand(start), _range_operand(stop)
    compute = _range_dtype(lo, hi)
    return wrap(cc.logspace(lo, hi, int(num), endpoint, base, as_dtype(dtype), axis, compute))


@implements("geomspace")
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Lazy for real scalar end points; array or complex end points or a
    complex dtype (the logarithmic spiral) and axis= run eagerly in numpy (warned, counted)."""
    spiral = dtype is not None and np.dtype(dtype).kind == "c"
    if spiral or np.ndim(start) or np.ndim(stop) or axis or not all(
            type(v) in (int, float) for v in (_number(start), _number(stop))):
        return eager("numpy.geomspace", np.geomspace, (start, stop, num, endpoint, dtype, axis),
                     {})
    return wrap(cc.geomspace(_number(start), _number(stop), int(num), endpoint, as_dtype(dtype)))


@implements("eye")
def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    return wrap(cc.eye(int(N), None if M is None else int(M), int(k), canonical(dtype)))


@implements("identity")
def identity(n, dtype=None, *, like=None):
    return wrap(cc.identity(int(n), canonical(dtype or float)))


@implements("tri")
def tri(N, M=None, k=0, dtype=float, *, like=None):
    return wrap(cc.tri(int(N), None if M is None else int(M), int(k), canonical(dtype)))


@implements("meshgrid")
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    nodes = [reshape(node_of(x), (-1,)) for x in xi]
    return tuple(wrap(n) for n in cc.meshgrid(*nodes, indexing=indexing, sparse=sparse))


@implements("ix_")
def ix_(*args):
    """numpy's open mesh of index vectors: lazy 1-d integer vectors are
    reshaped, not read (the sparse "ij" meshgrid); anything else (booleans,
    whose nonzero indices decide the shape, lists) is numpy's own on host."""
    if args and all(isinstance(a, ndarray) and a.ndim == 1 and a.dtype.kind in "iu"
                    for a in args):
        return tuple(wrap(n) for n in cc.meshgrid(*(a._h.node for a in args), indexing="ij",
                                                  sparse=True))
    return to_lazy(np.ix_(*to_host(args)))


@implements("indices")
def indices(dimensions, dtype=int, sparse=False):
    out = cc.indices(tuple(dimensions), canonical(dtype), sparse)
    return tuple(wrap(n) for n in out) if sparse else wrap(out)
