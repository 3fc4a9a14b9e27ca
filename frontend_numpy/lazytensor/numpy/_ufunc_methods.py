"""The methods of numpy ufuncs, lazily: ``reduce`` (with ``where=`` and
``initial=``), ``reduceat``, ``accumulate``, ``outer`` and ``at``, and which
of them a ufunc has (``has_method``). The element-wise call itself is
``_ufuncs``."""

from __future__ import annotations

import operator

from lazytensor.core import dtypes as dt
from lazytensor.core import masked
from lazytensor.core.composite.elementwise import predicates
from lazytensor.core.composite.elementwise.apply import as_node, convert
from lazytensor.core.composite.indexing import subscript as ci
from lazytensor.core.composite.reduce import folds
from lazytensor.core.composite.reduce.axes import normalize_axes, normalize_axis
from lazytensor.core.composite.reduce.numerics import reduce_runs
from lazytensor.core.composite.reduce.reduction import reduce_where
from lazytensor.core.composite.sorting import sort as csort
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import get_runtime
from lazytensor.numpy import _masked_writes
from lazytensor.numpy._base import lift, ndarray, numpy_only, wrap
from lazytensor.numpy._errors import UnsupportedDtype
from lazytensor.numpy._ufunc_table import UFUNCS
from lazytensor.numpy._ufuncs import (
    _NO_VALUE,
    _exact_out,
    _key,
    _normalize_out,
    assign,
    call,
    loop_dtypes,
    store,
)

import numpy as np


def scalar_axis(x: Node, axis):
    """numpy reduces a 0-d array over axis 0 or -1 (its only element)."""
    if x.ndim == 0 and not isinstance(axis, (bool, np.bool_, tuple)) and axis in (0, -1):
        return None
    return axis


def reduce(ufunc, a, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE,
           where=True):
    """``ufunc.reduce``: numpy's reduction dtype (add/multiply widen small ints)."""
    found = _masked_writes.whole(a, axis, keepdims) if where is True else None
    kind, loop, x = _reduction_operand(ufunc, _strong(a) if found is None else found[0], dtype)
    if found is not None and kind in _IDENTITIES:  # x[m].sum(): no data-dependent shape
        x, axis = masked.select(found[1], x, folds.identity_of(x.dtype, kind)), found[2]
    elif found is not None:
        kind, loop, x = _reduction_operand(ufunc, _strong(a), dtype)
    axis = scalar_axis(x, axis)
    if initial is None and 0 in x.shape and any(  # initial=None: no identity, as max's
            x.shape[i] == 0 for i in normalize_axes(axis, x.ndim)):
        raise ValueError(f"zero-size array to reduction operation {ufunc.__name__} which "
                         "has no identity")
    if kind == "sum" and x.dtype == dt.float16:  # numpy's half sums accumulate in float32
        x = convert(x, dt.float32)
    mask = None if where is True else lift(where)
    node = reduce_where(kind, x, axis, keepdims, mask, None if initial is _NO_VALUE else initial)
    node = convert(node, loop) if kind not in ("all", "any") else node
    return finish_unsafe(ufunc, node, out)


_IDENTITIES = frozenset({"sum", "prod", "max", "min", "all", "any"})


def reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """``ufunc.reduceat``: the reduction of each run ``indices[i]:indices[i+1]``
    along ``axis`` (to the end for the last index; the element itself where
    the run is empty). The indices decide the slices, so they are read on
    the host; each run is one reduction, joined by a concatenate."""
    from lazytensor.numpy._dispatch import to_host

    x = _strong(array)
    axis = normalize_axis(axis, x.ndim)
    starts = np.asarray(to_host(indices))
    if starts.ndim != 1 or (starts.size and starts.dtype.kind not in "iu"):
        raise TypeError("reduceat indices must be a 1-d array of integers")
    n = x.shape[axis]
    bad = (starts < 0) | (starts >= n)
    if bad.any():
        raise IndexError(f"index {starts[bad][0]} out-of-bounds in "
                         f"{ufunc.__name__}.reduceat [0, {n})")
    kind, loop, x = _reduction_operand(ufunc, x, dtype)
    node = reduce_runs(kind, x, starts.tolist(), axis)
    return finish_unsafe(ufunc, convert(node, loop) if kind not in ("all", "any") else node, out)


def _reduction_operand(ufunc, x: Node, dtype) -> tuple[str, np.dtype, Node]:
    """The core reduction of ``ufunc``, numpy's reduction loop dtype (add and
    multiply widen small ints) and x converted to it (all/any: its truth)."""
    kind = UFUNCS[ufunc].reduce
    loop = _reduction_loop(ufunc, x, dtype)
    return kind, loop, predicates.truthy(x) if kind in ("all", "any") else convert(x, loop)


def _reduction_loop(ufunc, x: Node, dtype) -> np.dtype:
    if dtype is not None:
        if numpy_only(np.dtype(dtype)):  # dtype=object: numpy's own loop (eagerly)
            raise UnsupportedDtype(f"lazytensor.numpy does not support dtype {dtype}")
        return dt.canonical(dtype)
    return ufunc.resolve_dtypes((None, x.dtype, None), reduction=True)[0]


def _strong(a) -> Node:
    from lazytensor.numpy._base import node_of

    return node_of(a)


def finish_unsafe(ufunc, node: Node, out):
    """reduce/accumulate's result: a new array, or cast unsafely into ``out`` (numpy's rule)."""
    if out is None or out is Ellipsis or (isinstance(out, tuple) and out[0] is None):
        return wrap(node)
    (target,) = _normalize_out(out, 1)
    _exact_out(target, node)
    store(ufunc, target, node, casting="unsafe")
    return target


def accumulate(ufunc, a, axis=0, dtype=None, out=None):
    """``ufunc.accumulate`` along one axis (add -> cumsum, maximum -> cummax...):
    an integer, or a tuple of one (numpy's TypeError for a float or a list)."""
    if axis is None or (isinstance(axis, tuple) and len(axis) != 1):
        raise ValueError("accumulate does not allow multiple axes")
    return scan(ufunc, a, operator.index(axis[0] if isinstance(axis, tuple) else axis), dtype,
                out)


def scan(ufunc, a, axis, dtype, out, include_initial=False):
    """``accumulate``; ``include_initial`` (cumulative_sum/prod) prepends the identity."""
    x = _strong(a)
    loop = _reduction_loop(ufunc, x, dtype)
    how = UFUNCS[ufunc].accumulate
    if isinstance(how, str):  # bitwise and/or/xor, logical_xor (no include_initial users)
        node = folds.scan(how, convert(x, loop), normalize_axis(axis, x.ndim))
    else:
        node = csort.scan(how, convert(x, loop), axis, include_initial, ufunc.identity)
    return finish_unsafe(ufunc, node, out)


def outer(ufunc, a, b, **kwargs):
    """``ufunc.outer``: every pair, result shape a.shape + b.shape."""
    x, y = _strong(a), _strong(b)
    x = make(Op.RESHAPE, (x,), x.shape + (1,) * y.ndim)
    return call(ufunc, (wrap(x), wrap(y)), kwargs)


_AT_KINDS = {np.add: "add", np.subtract: "add", np.multiply: "mul", np.maximum: "max",
             np.minimum: "min"}


def at(ufunc, a, indices, b=None):
    """``ufunc.at``: unbuffered in place, repeated indices accumulate. Lazy
    for add/subtract/multiply/maximum/minimum; other ufuncs run eagerly on a
    host copy that is written back."""
    from lazytensor.numpy._indexing import core_index

    if ufunc not in _AT_KINDS or b is None or not isinstance(a, ndarray):
        return _eager_at(ufunc, a, indices, b)
    entries = core_index(indices)  # first: reading a lazy mask runs the graph
    node, value = a._h.node, lift(b)
    loop = loop_dtypes(ufunc, (node.dtype, _key(value)))
    if loop[2] != node.dtype and not np.can_cast(loop[2], node.dtype, "same_kind"):
        # numpy casts each step's result back unsafely (int 10 - 0.6 twice
        # -> 9 -> 8): a scatter of one converted value cannot do that
        return _eager_at(ufunc, a, indices, b)
    if ufunc is np.subtract:  # a - b == a + (-b), wrapping around as numpy's for integers
        value = make(Op.NEG, (as_node(value, node.dtype, getattr(value, "shape", ())),))
    assign(a, ci.setitem(node, entries, value, kind=_AT_KINDS[ufunc], upload=True))


def _eager_at(ufunc, a, indices, b):
    from lazytensor.numpy._dispatch import note_fallback, to_host

    if not isinstance(a, ndarray):  # a host target: numpy updates it itself
        ufunc.at(a, to_host(indices), *(() if b is None else (to_host(b),)))
        return
    note_fallback(f"numpy.{ufunc.__name__}.at")
    host = a.__array__()
    args = (host, to_host(indices)) + (() if b is None else (to_host(b),))
    ufunc.at(*args)
    assign(a, get_runtime().from_host(host).node)


METHODS = {"reduce": reduce, "reduceat": reduceat, "accumulate": accumulate, "outer": outer,
           "at": at}


def has_method(ufunc, method: str) -> bool:
    impl = UFUNCS.get(ufunc)
    if impl is None:
        return False
    if method == "__call__":
        return True
    if method in ("reduce", "reduceat"):
        return impl.reduce is not None
    if method == "accumulate":
        return impl.accumulate is not None
    return method in ("outer", "at") and not impl.gufunc
