"""lazytensor.numpy: numpy's API, recorded lazily and compiled with XLA.

>>> import lazytensor.numpy as lnp
>>> x = lnp.arange(6.0).reshape(2, 3)
>>> y = (x * 2 + 1).sum(axis=0)      # recorded, not run
>>> y                                 # observing runs the graph
array([ 8., 12., 16.])

Arrays implement numpy's protocols, so ``np.sin(x)`` and ``np.mean(x)``
record too and ``np.asarray(x)`` materializes. A numpy function without a
lazy mapping runs eagerly on materialized inputs (``LazyFallbackWarning``)
and returns lazy arrays again.
"""

# ruff: noqa: F401  (re-exports: __all__ is computed below)
from __future__ import annotations

import types as _types

from lazytensor.core.runtime import sync
from lazytensor.numpy import (  # each module registers its functions (``@implements``)
    _apply,
    _creation,
    _extra,
    _host_io,
    _math,
    _methods,
    _misc,
    _numerics,
    _operators,
    _poly,
    _reductions,
    _shape,
    _stats,
)
from lazytensor.numpy._apply import c_, r_, vectorize
from lazytensor.numpy._base import ndarray
from lazytensor.numpy._capture import capture
from lazytensor.numpy._dispatch import FUNCTIONS, eager, has_lazy, to_lazy
from lazytensor.numpy._errors import LazyFallbackWarning
from lazytensor.numpy._nditer import nditer
from lazytensor.numpy._sharding import Mesh, shard
from lazytensor.numpy._ufunc_objects import all_ufuncs as _all_ufuncs
from lazytensor.numpy._ufunc_objects import ufunc

import numpy as _np


def _registered() -> dict:
    """numpy's name -> lazy implementation, for every function in the
    function table (``FUNCTIONS``, filled by the modules' ``@implements``):
    the namespace is built from that one table, as lazytensor.tf.numpy's is."""
    names = {}
    for name, target in vars(_np).items():
        if callable(target) and not name.startswith("_"):
            impl = FUNCTIONS.get(target)
            if impl is not None:
                names[name] = impl
    return names


globals().update(_registered())
# numpy's C builtins (array, zeros, arange...) do not bind as class attributes
# (``class T: array = np.array`` then ``self.array(x)``); their lazy versions
# must not either: staticmethod objects are callable and keep name and doc
for _name, _impl in _registered().items():
    if isinstance(getattr(_np, _name), _types.BuiltinFunctionType):
        globals()[_name] = staticmethod(_impl)
globals().update(_all_ufuncs())
for _alias, _name in {"amax": "max", "amin": "min", "around": "round", "concat": "concatenate",
                      "permute_dims": "transpose", "row_stack": "vstack"}.items():
    globals().setdefault(_alias, globals()[_name])

from lazytensor.numpy import fft, linalg, random, testing  # noqa: E402

# numpy's dtypes, scalar types and constants are numpy's own objects
for _name in (
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp", "byte", "ubyte",
    "short", "ushort", "intc", "uintc", "int_", "uint", "longlong", "ulonglong", "half",
    "single", "double", "longdouble", "csingle", "cdouble", "clongdouble", "generic", "number",
    "integer", "signedinteger", "unsignedinteger", "inexact", "floating", "complexfloating",
    "dtype", "finfo", "iinfo", "pi", "e", "inf", "nan", "newaxis", "euler_gamma",
    "promote_types", "issubdtype", "isdtype", "isscalar", "errstate", "printoptions",
    "set_printoptions", "get_printoptions", "exceptions",
):
    globals()[_name] = getattr(_np, _name)
del _name


def __getattr__(name: str):
    """numpy names without a lazy version run eagerly (warned, counted)."""
    target = getattr(_np, name, None)
    if target is None or name.startswith("_"):
        raise AttributeError(f"module 'lazytensor.numpy' has no attribute {name!r}")
    if callable(target) and not isinstance(target, type):
        def fallback(*args, **kwargs):
            if has_lazy((args, kwargs)):
                return eager(f"numpy.{name}", target, args, kwargs)
            return to_lazy(target(*args, **kwargs))  # host-only inputs: nothing to fall back

        fallback.__name__ = name
        fallback.__doc__ = target.__doc__
        return fallback
    return target


__all__ = sorted(
    [n for n in globals() if not n.startswith("_") and n not in (
        "annotations", "FUNCTIONS", "eager", "has_lazy", "to_lazy")]
)
