"""numpy's functions that call user code on pieces of an array:
``piecewise``, ``apply_along_axis`` and ``apply_over_axes``, recorded by
calling that code on lazy arrays.

``piecewise`` is a select over the conditions. numpy calls each function
on ``x[cond]`` (a data-dependent shape); here it is called once on the
whole of ``x`` raveled and its result kept where ``cond`` holds. That is
numpy's answer exactly when the function is pointwise, which the recorded
graph shows: every node between ``x`` and the result is elementwise and of
``x``'s shape. A function that is not (a reduction, a sort, a host read of
its argument) or a piece whose size depends on the data sends the call to
numpy's own piecewise, eagerly and counted.

``apply_along_axis`` calls ``func1d`` on each lazy 1-d slice and stacks the
results when there are at most ``MAX_SLICES`` of them (the graph grows with
each call); beyond that it runs eagerly in numpy, counted.

``vectorize`` is numpy's class: its Python function runs once per element
on host values (lazy inputs are materialized, counted as a fallback) and
its results are lazy arrays again. The ``r_`` and ``c_`` index tricks
concatenate lazily.
"""

from __future__ import annotations

import math

from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.ir import Node
from lazytensor.core.ops import ELEMENTWISE
from lazytensor.core.runtime import get_runtime
from lazytensor.numpy._base import ndarray, wrap
from lazytensor.numpy._dispatch import eager, has_lazy, implements, to_lazy

import numpy as np

MAX_SLICES = 128
# counters that move when user code reads a lazy array to the host
_OBSERVED = ("graphs_executed", "transfers_to_host", "auto_cuts")


def _lnp():
    import lazytensor.numpy as lnp  # (the namespace, complete by the time of a call)

    return lnp


def _observations() -> tuple[int, ...]:
    counters = get_runtime().metrics.counters
    return tuple(counters[name] for name in _OBSERVED)


def _pointwise_in(result: Node, ref: Node) -> bool | None:
    """Whether ``result`` is computed from ``ref`` element by element (True),
    does not depend on it (None), or depends on it otherwise (False). A walk
    with a stack: a recursive inner function would be a reference cycle that
    keeps ``ref``'s data alive (and undonatable) until the next gc."""
    hit = {id(ref): True}
    pointwise = True
    stack = [(result, False)]
    while stack:
        node, operands_done = stack.pop()
        if operands_done:
            hit[id(node)] = any(hit[id(o)] for o in node.operands)
            if hit[id(node)] and (node.op not in ELEMENTWISE or node.shape != ref.shape):
                pointwise = False
        elif id(node) not in hit:
            hit[id(node)] = False
            stack.append((node, True))
            stack.extend((o, False) for o in node.operands)
    return pointwise if hit[id(result)] else None


# --------------------------------------------------------------- piecewise

def _condition_list(condlist, x: ndarray) -> list:
    """numpy's promotion of one condition to a list of one."""
    if np.isscalar(condlist) or isinstance(condlist, (bool, np.bool_)):
        return [condlist]
    if isinstance(condlist, (ndarray, np.ndarray)):
        if condlist.ndim == 0 or (condlist.ndim == 1 and x.ndim != 0):
            return [condlist]
        return list(condlist)
    condlist = list(condlist)
    first = condlist[0]
    if not isinstance(first, (list, ndarray, np.ndarray)) and x.ndim != 0:
        return [condlist]
    return condlist


@implements("piecewise")
def piecewise(x, condlist, funclist, *args, **kw):
    """numpy.piecewise as a select (see the module docstring)."""
    lnp = _lnp()
    x = lnp.asarray(x)
    if not isinstance(x, ndarray):  # a dtype lazy arrays do not hold (objects, strings)
        return _eager_piecewise(x, condlist, funclist, args, kw)
    conds = lnp.asarray(_condition_list(condlist, x)).astype(bool)
    funclist = list(funclist)
    n, n2 = len(conds), len(funclist)
    if n == n2 - 1:  # the "otherwise" condition
        conds = lnp.concatenate([conds, ~lnp.any(conds, axis=0, keepdims=True)], axis=0)
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    if conds.shape[1:] != x.shape:
        return _eager_piecewise(x, condlist, funclist, args, kw)
    flat = wrap(cs.reshape(x._h.node, (x.size,)))
    ref = flat._h.node
    y = lnp.zeros_like(x)
    for cond, func in zip(conds, funclist, strict=True):
        if callable(func):
            before = _observations()
            piece = lnp.asarray(func(flat, *args, **kw))
            kind = _pointwise_in(piece._h.node, ref)
            if _observations() != before or kind is False or (
                    kind is None and piece.size != 1):
                return _eager_piecewise(x, condlist, funclist, args, kw)
            piece = piece.reshape(x.shape if kind else ())
        elif np.ndim(func) == 0 or np.size(func) == 1:
            piece = lnp.asarray(func).reshape(())
        else:
            return _eager_piecewise(x, condlist, funclist, args, kw)
        y = lnp.where(cond, piece.astype(x.dtype), y)
    return y


def _eager_piecewise(x, condlist, funclist, args, kw):
    return eager("numpy.piecewise", np.piecewise, (x, condlist, funclist, *args), kw)


# -------------------------------------------------------- along the axes

@implements("apply_along_axis")
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` on every 1-d slice along ``axis``, results stacked where
    the axis was (numpy's layout; the first result's dtype)."""
    lnp = _lnp()
    arr = lnp.asarray(arr)
    axis = normalize_axis(axis, arr.ndim)
    rest = arr.shape[:axis] + arr.shape[axis + 1:]
    if not math.prod(rest):
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    if math.prod(rest) > MAX_SLICES or not isinstance(arr, ndarray):  # (or objects, strings)
        return eager("numpy.apply_along_axis", np.apply_along_axis,
                     (func1d, axis, arr, *args), kwargs)
    moved = lnp.moveaxis(arr, axis, -1)
    results = [lnp.asarray(func1d(moved[ind], *args, **kwargs)) for ind in np.ndindex(*rest)]
    first = results[0]
    for r in results[1:]:
        if r.shape != first.shape:
            raise ValueError(f"could not broadcast input array from shape {r.shape} into "
                             f"shape {first.shape}")
    out = lnp.stack([r.astype(first.dtype) for r in results]).reshape(rest + first.shape)
    nres = first.ndim
    perm = (*range(axis), *range(out.ndim - nres, out.ndim), *range(axis, out.ndim - nres))
    return lnp.transpose(out, perm)


@implements("apply_over_axes")
def apply_over_axes(func, a, axes):
    """``func(a, axis)`` for each axis in turn, each result kept at ``a``'s rank."""
    lnp = _lnp()
    val = lnp.asarray(a)
    n = val.ndim
    if np.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        axis = int(axis)
        if axis < 0:
            axis = n + axis
        res = lnp.asarray(func(val, axis))
        if res.ndim != val.ndim:
            res = lnp.expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


# -------------------------------------------------------- per element

class vectorize(np.vectorize):  # noqa: N801  (numpy's name)
    """numpy's ``vectorize``; with lazy inputs it runs eagerly (counted) and
    returns lazy arrays, as every numpy function without a lazy mapping."""

    def __call__(self, *args, **kwargs):
        if has_lazy((args, kwargs)):
            return eager("numpy.vectorize", super().__call__, args, kwargs)
        return to_lazy(super().__call__(*args, **kwargs))


class _Concatenator:
    """numpy's ``r_``/``c_`` (``np.r_[True, d != 0]``): items are made arrays
    of at least ``ndmin`` axes (slices and host items by numpy itself), cast
    to numpy's result type (Python scalars weak) and concatenated lazily. A
    matrix directive ('r', 'c') or one numpy refuses runs numpy's, counted."""

    def __init__(self, name: str, axis: int, ndmin: int, trans1d: int) -> None:
        self._name, self._np = name, getattr(np, name)
        self._layout = (axis, ndmin, trans1d)

    def __getitem__(self, key):
        if not has_lazy(key):
            return to_lazy(self._np[key])
        items = list(key) if isinstance(key, tuple) else [key]
        layout = self._layout
        if isinstance(items[0], str):
            layout = _directive(items.pop(0), layout)
        if layout is None or any(isinstance(item, str) for item in items):
            return eager(f"numpy.{self._name}", self._np.__getitem__, (key,), {})
        axis, ndmin, trans1d = layout
        objs = [item if type(item) in np.ScalarType
                else _at_least(item, ndmin, trans1d) if isinstance(item, ndarray)
                else np.r_[f"0,{ndmin},{trans1d}", item] for item in items]
        dtype = np.result_type(*(o if type(o) in np.ScalarType else o.dtype for o in objs))
        lnp = _lnp()
        objs = [lnp.array(o, copy=None, ndmin=ndmin, dtype=dtype) for o in objs]
        return lnp.concatenate(objs, axis=axis)

    def __len__(self) -> int:
        return 0


def _directive(text: str, default: tuple[int, int, int]) -> tuple[int, int, int] | None:
    """``(axis, ndmin, trans1d)`` of an 'axis[,ndmin[,trans1d]]' directive,
    the parts it leaves out from ``default``; None for a matrix directive or
    text numpy would refuse."""
    try:
        parts = tuple(int(p) for p in text.split(","))
    except ValueError:
        return None
    return parts + default[len(parts):] if len(parts) <= 3 else None


def _at_least(item: ndarray, ndmin: int, trans1d: int) -> ndarray:
    """A lazy item with ``ndmin`` axes, its own axes placed as numpy's
    ``trans1d`` places them."""
    new = _lnp().array(item, copy=None, ndmin=ndmin)
    if trans1d == -1 or item.ndim >= ndmin:
        return new
    k2, k1 = ndmin - item.ndim, trans1d + (ndmin - item.ndim + 1 if trans1d < 0 else 0)
    axes = list(range(ndmin))
    return new.transpose(axes[:k1] + axes[k2:] + axes[k1:k2])


r_, c_ = _Concatenator("r_", 0, 1, -1), _Concatenator("c_", -1, 2, 0)
