"""The function table (``np.function -> lazy implementation``) behind
``__array_function__``, and the one shared eager fallback.

Implementations register with ``@implements("name", ...)``: the decorator
guards them (core errors become numpy's) and maps every numpy function of
that name onto them. A numpy function with no entry runs eagerly in numpy on
materialized inputs, warns once per function (``LazyFallbackWarning``), is
counted in ``metrics.fallback`` and returns lazy arrays again.
"""

from __future__ import annotations

import functools
import os
from typing import Callable

from lazytensor.core import metrics
from lazytensor.core.runtime import get_runtime
from lazytensor.core.trees import leaves, tree_map
from lazytensor.numpy._base import from_host, ndarray, numpy_only
from lazytensor.numpy._errors import LazyFallbackWarning, UnsupportedDtype, guard

import numpy as np

FUNCTIONS: dict[Callable, Callable] = {}
_NAMESPACES = (np, np.linalg, np.fft)
# frames skipped to find the user's line: this frontend's and numpy's
NUMPY_DIRS = (os.path.dirname(os.path.abspath(__file__)), os.path.dirname(np.__file__))


def implements(*names: str, namespace=np) -> Callable:
    """Register the decorated function as the lazy version of ``namespace.name``
    for each of ``names`` (numpy names that numpy itself lacks are skipped)."""

    def register(fn: Callable) -> Callable:
        first = next((getattr(namespace, n) for n in names if hasattr(namespace, n)), None)
        guarded = guard(fn) if first is None else _host_dtypes_to_numpy(guard(fn), first)
        for name in names:
            target = getattr(namespace, name, None)
            if target is not None and FUNCTIONS.get(target) is not guarded:  # (numpy aliases)
                if target in FUNCTIONS:
                    raise KeyError(f"numpy.{name} is implemented twice")
                FUNCTIONS[target] = guarded
        return guarded

    return register


# numpy's array subclasses whose operations give their own type (a masked
# array's mask carries through, a matrix multiplies as matrices): numpy
# defers to them, so a lazy array meeting one does too: it is read to the
# host, as np.ma.masked_invalid(x) reads it, and numpy computes (no
# fallback: the result is a host type)
HOST_SUBCLASSES = (np.ma.MaskedArray, np.matrix)


def host_subclass(obj) -> bool:
    return isinstance(obj, HOST_SUBCLASSES)


def _host_dtypes_to_numpy(fn: Callable, target: Callable) -> Callable:
    """``fn``, or numpy's ``target`` (eagerly, counted) where an argument
    holds dates, strings or objects, which lazy arrays cannot: as numpy
    itself, ``lazytensor.numpy.diff`` of datetimes gives timedeltas. With a
    masked array or matrix argument, numpy's ``target`` on host copies
    (``np.mean(masked)`` leaves the masked values out, as numpy's)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if any(isinstance(o, HOST_SUBCLASSES) for o in leaves((args, kwargs))):
            return _numpy_with_subclasses(target, args, kwargs)
        try:
            return fn(*args, **kwargs)
        except UnsupportedDtype:
            return eager(_qualified(target), target, args, kwargs)

    return call


def _numpy_with_subclasses(target: Callable, args: tuple, kwargs: dict):
    """numpy's ``target`` on host copies of the lazy arguments: masked arrays
    and matrices in its result stay numpy's, plain arrays become lazy again
    (``np.asarray(masked)`` is its data, lazy)."""
    result = target(*to_host(args), **to_host(kwargs))
    return tree_map(lambda o: o if isinstance(o, HOST_SUBCLASSES) else _lazy_leaf(o), result)


def array_function(self, func, types, args, kwargs):
    """``ndarray.__array_function__``: the table, else the eager fallback."""
    impl = FUNCTIONS.get(func)
    if impl is not None:
        return impl(*args, **kwargs)
    for t in types:
        if not issubclass(t, (ndarray, np.ndarray)):
            return NotImplemented
    return eager(_qualified(func), func, args, kwargs)


def _qualified(func) -> str:
    module = getattr(func, "__module__", "numpy") or "numpy"
    prefixes = {"linalg": "numpy.linalg.", "fft": "numpy.fft."}
    prefix = next((p for key, p in prefixes.items() if key in module), "numpy.")
    return prefix + getattr(func, "__name__", repr(func))


def to_host(obj):
    """Lazy arrays inside ``obj`` (nested lists/tuples/dicts) as host arrays."""
    return tree_map(lambda o: o.__array__() if isinstance(o, ndarray) else o, obj)


def has_lazy(obj) -> bool:
    """Whether a lazy array occurs in ``obj`` (nested lists/tuples/dicts)."""
    return any(isinstance(o, ndarray) for o in leaves(obj))


def to_lazy(obj):
    """Host results of an eager call as lazy arrays again."""
    return tree_map(_lazy_leaf, obj)


def _lazy_leaf(obj):
    if isinstance(obj, (np.ndarray, np.generic)) and not numpy_only(obj.dtype):
        return from_host(np.asarray(obj))
    return obj


def note_fallback(name: str) -> None:
    """Count an eager fallback and warn the first time ``name`` falls back."""
    metrics.note_fallback(
        name, f"lazytensor.numpy: {name} has no lazy mapping; it runs eagerly in numpy on "
        "materialized inputs (counted in lazytensor.core.metrics)", LazyFallbackWarning,
        NUMPY_DIRS)


def eager(name: str, func: Callable, args: tuple, kwargs: dict):
    """Run ``func`` in numpy on materialized inputs; results become lazy again.
    Lazy ``out=`` arrays receive the result in place."""
    note_fallback(name)
    kwargs = dict(kwargs)
    out = kwargs.get("out")
    outs = () if out is None else _as_tuple(out)
    lazy_out = any(isinstance(o, ndarray) for o in outs)
    if lazy_out:  # numpy checks and writes host copies, which the lazy outs then take
        hosts = tuple(np.array(o) if isinstance(o, ndarray) else o for o in outs)
        kwargs["out"] = hosts if isinstance(out, tuple) else hosts[0]
    result = func(*to_host(args), **to_host(kwargs))
    if not lazy_out:
        return to_lazy(result)
    return _write_out(outs, hosts)


def _as_tuple(out) -> tuple:
    return out if isinstance(out, tuple) else (out,)


def _write_out(outs: tuple, hosts: tuple):
    from lazytensor.numpy._ufuncs import assign

    for target, host in zip(outs, hosts, strict=False):
        if isinstance(target, ndarray):
            assign(target, get_runtime().from_host(host).node)
    return outs[0] if len(outs) == 1 else outs
