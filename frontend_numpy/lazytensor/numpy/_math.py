"""numpy functions beyond ufuncs and reductions: where, clip, round, complex
parts, closeness tests, products (dot, inner, outer, tensordot, kron),
differences, sorting, take, and the data-dependent ones (nonzero, argwhere,
unique...), which materialize what decides their shape.
"""

from __future__ import annotations

import operator

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise import arithmetic, predicates, rounding
from lazytensor.core.composite.elementwise.promotion import NUMPY
from lazytensor.core.composite.indexing import take as ctake
from lazytensor.core.composite.linalg import products as shared
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce import reduction as cred
from lazytensor.core.composite.sorting import sort as csort
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.numpy import _ufuncs, _views
from lazytensor.numpy._base import lift, ndarray, node_of, wrap
from lazytensor.numpy._dispatch import eager, implements, to_lazy
from lazytensor.numpy._ufuncs import finish as _finish

import numpy as np


def _promote(*values) -> np.dtype:
    return ew.promote(NUMPY, *values)


# ---------------------------------------------------------------- selection

@implements("where")
def where(condition, x=np._NoValue, y=np._NoValue, /):
    """Elements of x where condition, else of y (NEP 50 promotion of x, y);
    with one argument, ``nonzero(condition)``. A None x or y is numpy's
    object array (run eagerly)."""
    if x is np._NoValue and y is np._NoValue:
        return nonzero(condition)
    if x is np._NoValue or y is np._NoValue:
        raise ValueError("either both or neither of x and y should be given")
    if x is None or y is None:
        return eager("numpy.where (None operands)", np.where, (condition, x, y), {})
    cond = predicates.truthy(node_of(condition))
    a, b = lift(x), lift(y)
    return wrap(ew.where(cond, a, b, NUMPY))


@implements("clip")
def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue,
         max=np._NoValue, **kwargs):
    """minimum(maximum(a, a_min), a_max) with numpy's promotion (None: no
    bound). As numpy's: a Python int bound beyond an integer dtype's range
    on that side is no bound, and with no bound at all the result is a copy
    (numpy 2.0 raised instead; the installed numpy decides)."""
    lo, hi = _bounds(a_min, a_max, min, max)
    if lo is None and hi is None and a_min is np._NoValue and min is np._NoValue:
        np.clip(np.zeros(0))  # numpy's own ValueError where it needs a bound
    lo, hi = _inside_range(node_of(a).dtype, lo, hi)
    result = a
    if lo is not None:
        result = _ufuncs.call(np.maximum, (result, lo), {})
    if hi is not None:
        result = _ufuncs.call(np.minimum, (result, hi), {})
    if lo is None and hi is None:  # numpy's copy: positive(a) (bool has no loop)
        result = _ufuncs.call(np.positive, (a,), {})
    return _ufuncs.finish_broadcast(result._h.node, out) if out is not None else result


def _bounds(a_min, a_max, low, high) -> tuple:
    """clip's bounds: both positional ones, or the ``min=``/``max=`` keywords
    (numpy's TypeError for one positional bound, ValueError for both kinds)."""
    unset = np._NoValue
    if a_min is unset and a_max is unset:
        return (None if low is unset else low), (None if high is unset else high)
    if a_min is unset or a_max is unset:
        missing = "a_min" if a_min is unset else "a_max"
        raise TypeError(f"clip() missing 1 required positional argument: '{missing}'")
    if low is not unset or high is not unset:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` "
                         "are provided is forbidden.")
    return a_min, a_max


def _inside_range(dtype: np.dtype, lo, hi) -> tuple:
    """numpy's clip drops a Python int bound that its integer dtype's range
    already satisfies (NEP 50: the bound is not converted, so cannot overflow)."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo = None if type(lo) is int and lo <= info.min else lo
        hi = None if type(hi) is int and hi >= info.max else hi
    return lo, hi


@implements("round", "around")
def round_(a, decimals=0, out=None):
    """Round half to even at ``decimals`` (numpy scales by 10**decimals).
    Booleans go through numpy's float16 rint loop; at other ``decimals`` its
    scaling cannot cast back to bool (TypeError)."""
    x = node_of(a)
    if dt.is_bool(x.dtype):
        if decimals != 0:
            op = "multiply" if decimals > 0 else "divide"
            raise TypeError(f"Cannot cast ufunc '{op}' output from dtype('float64') to "
                            "dtype('bool') with casting rule 'same_kind'")
        x = ew.convert(x, dt.float16)
    return _finish(rounding.round_decimals(x, decimals), out)


# ---------------------------------------------------------------- complex parts

@implements("real")
def real(val):
    """A view of the real part (the array itself for real dtypes)."""
    a = val if isinstance(val, ndarray) else wrap(node_of(val))
    if not dt.is_complex(a.dtype):
        return a
    return _views.view(a, lambda n: make(Op.REAL, (n,)),
                       lambda b, v: make(Op.COMPLEX, (ew.convert(v, dt.real_dtype(b.dtype)),
                                                      make(Op.IMAG, (b,)))), a.strides)


@implements("imag")
def imag(val):
    """A view of the imaginary part (read-only zeros for real dtypes)."""
    a = val if isinstance(val, ndarray) else wrap(node_of(val))
    if not dt.is_complex(a.dtype):
        return _views.read_only(a, lambda n: ew.full(n.shape, 0, n.dtype))
    return _views.view(a, lambda n: make(Op.IMAG, (n,)),
                       lambda b, v: make(Op.COMPLEX, (make(Op.REAL, (b,)),
                                                      ew.convert(v, dt.real_dtype(b.dtype)))),
                       a.strides)


@implements("angle")
def angle(z, deg=False):
    return wrap(arithmetic.angle(ew.float_or_float64(node_of(z)), bool(deg)))


@implements("iscomplexobj")
def iscomplexobj(x):
    return dt.is_complex(node_of(x).dtype)


@implements("isrealobj")
def isrealobj(x):
    return not dt.is_complex(node_of(x).dtype)


# -------------------------------------------------------------------- closeness

@implements("nan_to_num")
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """numpy's: with copy=False a lazy array is replaced in place and returned."""
    node = predicates.nan_to_num(node_of(x), nan, posinf, neginf)
    if copy or not isinstance(x, ndarray):
        return wrap(node)
    _ufuncs.assign(x, node)
    return x


def _close_operands(a, b):
    x, y = lift(a), lift(b)
    dtype = _promote(x, y, 1.0)
    return ew.coerce([x, y], dtype)


@implements("isclose")
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Python-number tolerances take the core's isclose; array or numpy
    scalar ones (strong dtypes under NEP 50) numpy's formula, elementwise."""
    if all(type(t) in (int, float) for t in (rtol, atol)):
        x, y = _close_operands(a, b)
        return wrap(predicates.isclose(x, y, float(rtol), float(atol), bool(equal_nan)))
    x, y = (v if type(v) in (int, float, complex) else _lazy(v) for v in (a, b))
    atol, rtol = (t if type(t) in (int, float) else _lazy(t) for t in (atol, rtol))
    y = y.astype(np.result_type(y.dtype, 1.0)) if isinstance(y, ndarray) else y
    y = float(y) if type(y) is int else y
    result = (np.less_equal(abs(x - y), atol + rtol * abs(y)) & np.isfinite(y)) | (x == y)
    if equal_nan:
        result = result | (np.isnan(x) & np.isnan(y))
    return result if isinstance(result, ndarray) else wrap(node_of(result))


def _lazy(value) -> ndarray:
    return value if isinstance(value, ndarray) else wrap(node_of(value))


@implements("allclose")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """A Python bool (materializes the answer, as numpy returns one)."""
    close = isclose(a, b, rtol, atol, equal_nan)._h.node
    return bool(wrap(make(Op.REDUCE_AND, (close,), tuple(range(close.ndim)))))


@implements("array_equal")
def array_equal(a1, a2, equal_nan=False):
    return bool(wrap(cred.array_equal(*_same(a1, a2), bool(equal_nan))))


@implements("array_equiv")
def array_equiv(a1, a2):
    return bool(wrap(cred.array_equiv(*_same(a1, a2))))


# -------------------------------------------------------------------- products

def _same(a, b) -> tuple[Node, Node]:
    x, y = node_of(a), node_of(b)
    dtype = _promote(x, y)
    return ew.convert(x, dtype), ew.convert(y, dtype)


@implements("dot")
def dot(a, b, out=None):
    """numpy.dot on the shared contraction (core ``linalg.products.dot``); an
    ``out`` must be numpy's exact one: the result's dtype and shape, C order."""
    node = shared.dot(*_same(a, b))
    if out is not None and isinstance(out, (ndarray, np.ndarray)) and (
            out.dtype != node.dtype or out.shape != node.shape or not out.flags.c_contiguous):
        raise ValueError("output array is not acceptable (must have the right datatype, "
                         "number of dimensions, and be a C-Array)")
    return _finish(node, out)


@implements("vdot")
def vdot(a, b, /):
    return wrap(shared.vdot(*_same(a, b)))


@implements("inner")
def inner(a, b, /):
    return wrap(shared.inner(*_same(a, b)))


@implements("outer")
def outer(a, b, out=None):
    return _ufuncs.finish_broadcast(shared.outer(*_same(a, b)), out)


@implements("tensordot")
def tensordot(a, b, axes=2):
    if isinstance(axes, (list, tuple)) and len(axes) == 2:
        for side, ndim in zip(axes, (np.ndim(a), np.ndim(b)), strict=True):
            named = [side] if np.ndim(side) == 0 else list(side)
            if len({operator.index(i) % max(ndim, 1) for i in named}) != len(named):
                raise ValueError("duplicate axes are not allowed in tensordot")
    return wrap(shared.tensordot(*_same(a, b), int(axes) if isinstance(axes, np.integer)
                                 else axes))


@implements("kron")
def kron(a, b):
    return wrap(shared.kron(*_same(a, b)))


@implements("cross")
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = _same(a, b)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError("At least one array has zero dimension")
    return wrap(shared.cross(x, y, axisa, axisb, axisc))


# ----------------------------------------------------------------- differences

@implements("diff")
def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    x = node_of(a)
    edges = [None if e is np._NoValue else lift(e) for e in (prepend, append)]
    dtype = _promote(x, *(e for e in edges if e is not None))
    edges = [e if e is None or not isinstance(e, Node) else ew.convert(e, dtype) for e in edges]
    return wrap(csort.diff(ew.convert(x, dtype), int(n), axis, *edges))


@implements("ediff1d")
def ediff1d(ary, to_end=None, to_begin=None):
    x = cs.ravel(node_of(ary))
    out = diff(wrap(x))._h.node
    for name, v in (("to_begin", to_begin), ("to_end", to_end)):
        if v is not None and not np.can_cast(node_of(v).dtype, x.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the "
                            "`same_kind` rule.")
    parts = [cs.ravel(ew.convert(node_of(v), x.dtype)) for v in (to_begin,) if v is not None]
    parts += [out] + [cs.ravel(ew.convert(node_of(v), x.dtype)) for v in (to_end,)
                      if v is not None]
    return wrap(cs.concatenate(parts) if len(parts) > 1 else out)


# ---------------------------------------------------------------------- sorting

def check_sort_kind(kind, stable) -> None:
    """numpy's checks of ``kind=`` (its first letter names the algorithm;
    every one gives the stable order here) and ``stable=`` beside it."""
    if kind is None:
        return
    if stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")
    if not isinstance(kind, str):
        raise TypeError(f"sort kind must be str, not {type(kind).__name__}")
    if not kind or kind[0].lower() not in "qmhs":
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")


def complex_order(x: Node, axis: int) -> Node:
    """numpy's argsort of complex values: by real part, then imaginary part,
    with ``R + Rj < R + nanj < nan + Rj < nan + nanj`` (a NaN part puts a
    value after every value without one there); stable."""
    re, im = make(Op.REAL, (x,)), make(Op.IMAG, (x,))
    re_nan, im_nan = make(Op.NE, (re, re)), make(Op.NE, (im, im))
    zero = ew.full(x.shape, 0, re.dtype)
    re_bit = ew.convert(re_nan, dt.int8)
    nan_class = make(Op.ADD, (make(Op.ADD, (re_bit, re_bit)), ew.convert(im_nan, dt.int8)))
    keys = [make(Op.SELECT, (im_nan, zero, im)), make(Op.SELECT, (re_nan, zero, re)),
            nan_class]
    return csort.lexsort(keys, axis)


def _sorted(x: Node, axis) -> Node:
    if not dt.is_complex(x.dtype):
        return csort.sort(x, axis)
    if axis is None:
        x, axis = cs.ravel(x), 0
    return ctake.take_along_axis(x, complex_order(x, axis), axis)


@implements("sort")
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """A sorted copy (stable; NaNs last, as numpy)."""
    check_sort_kind(kind, stable)
    x = node_of(a)
    return wrap(_sorted(x, axis) if x.ndim else x)


@implements("argsort")
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """Indices that sort ``a`` (a stable sort: numpy's answer for ties)."""
    check_sort_kind(kind, stable)
    x = node_of(a)
    if dt.is_complex(x.dtype) and x.ndim:
        if axis is None:
            x, axis = cs.ravel(x), 0
        return wrap(complex_order(x, axis))
    return wrap(csort.argsort(x, axis))


@implements("lexsort")
def lexsort(keys, axis=-1):
    """Indices sorting by the last key, ties broken by the ones before: one
    stable argsort per key, from the first (least significant) key on."""
    if isinstance(keys, (ndarray, np.ndarray)) and keys.ndim == 0 or not len(keys):
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    return wrap(csort.lexsort([node_of(k) for k in keys], operator.index(axis)))


def sort_in_place(a: ndarray, axis=-1, kind=None, order=None, *, stable=None) -> None:
    """``ndarray.sort``: sorts ``a`` itself."""
    from lazytensor.numpy._ufuncs import assign

    assign(a, sort(a, axis, kind, stable=stable)._h.node)


# ------------------------------------------------------------------------ take

@implements("take")
def take(a, indices, axis=None, out=None, mode="raise"):
    """Elements at ``indices`` along ``axis`` (of the ravel when None); host
    indices are bounds-checked, lazy ones clip."""
    idx = indices._h.node if isinstance(indices, ndarray) else (
        int(indices) if isinstance(indices, (int, np.integer)) else np.asarray(indices))
    return _finish(ctake.take(node_of(a), idx, axis, mode), out)


# ------------------------------------------------------- data-dependent shapes

def _host(a) -> np.ndarray:
    return a.__array__() if isinstance(a, ndarray) else np.asarray(a)


@implements("nonzero")
def nonzero(a):
    """Indices of the nonzero elements (materializes ``a``: the count decides
    the shape)."""
    return to_lazy(np.nonzero(_host(a)))


@implements("argwhere")
def argwhere(a):
    return to_lazy(np.argwhere(_host(a)))


@implements("flatnonzero")
def flatnonzero(a):
    return to_lazy(np.flatnonzero(_host(a)))


@implements("unique")
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):
    return to_lazy(np.unique(_host(ar), return_index, return_inverse, return_counts, axis,
                             equal_nan=equal_nan))


def _host_unique(name: str):
    """The Array API's ``numpy.unique_*`` functions and the set operations
    (``setdiff1d``...): like ``unique``, their shapes depend on the data, so
    numpy runs them on the materialized arrays (its own NaN, sorting and
    result-tuple rules) and the results are lazy again."""
    def unique_function(*args, **kwargs):
        return to_lazy(getattr(np, name)(*(_host(a) if isinstance(a, ndarray) else a
                                           for a in args), **kwargs))

    unique_function.__name__ = unique_function.__qualname__ = name
    return unique_function


for _name in ("unique_values", "unique_counts", "unique_inverse", "unique_all",
              "intersect1d", "union1d", "setdiff1d", "setxor1d"):
    implements(_name)(_host_unique(_name))


@implements("compress")
def compress(condition, a, axis=None, out=None):
    """Slices where the (materialized) condition holds."""
    return _finish(ctake.compress(_host(condition).astype(bool), node_of(a), axis), out)


@implements("extract")
def extract(condition, arr):
    return take(arr, np.flatnonzero(_host(condition)))
