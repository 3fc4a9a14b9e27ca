"""``lazytensor.numpy.add`` & co: numpy's ufunc objects, lazy. Calling one
(or its ``reduce``/``accumulate``/``outer``) records core ops even when no
argument is a lazy array yet; ufuncs the core cannot express run eagerly.
"""

from __future__ import annotations

from lazytensor.numpy import _ufuncs
from lazytensor.numpy._base import WEAK_TYPES, ndarray
from lazytensor.numpy._dispatch import eager, host_subclass
from lazytensor.numpy._errors import UnsupportedDtype
from lazytensor.numpy._operators import array_ufunc

import numpy as np


class _UfuncType(type):
    """``isinstance(numpy.add, lazytensor.numpy.ufunc)`` holds, as a lazy
    ufunc stands for numpy's own (numpy's tests collect ufuncs that way)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, np.ufunc) or type.__instancecheck__(cls, obj)


class ufunc(metaclass=_UfuncType):  # noqa: N801  (numpy's name)
    """A lazy wrapper of one ``numpy.ufunc``; other attributes are numpy's.
    It equals (and hashes as) the numpy ufunc that it wraps."""

    __slots__ = ("_np", "__name__", "_plain")

    def __init__(self, np_ufunc: np.ufunc) -> None:
        self._np = np_ufunc
        self.__name__ = np_ufunc.__name__
        impl = _ufuncs.UFUNCS.get(np_ufunc)
        # the number of inputs of a plain call that takes the operator paths
        # (``_ufuncs.unary``/``binary``); 0: never
        self._plain = np_ufunc.nin if impl is not None and np_ufunc.nout == 1 \
            and not impl.gufunc and np_ufunc.nin <= 2 else 0

    def __call__(self, *args, **kwargs):
        try:
            return self._call(args, kwargs)
        except UnsupportedDtype:  # dates, strings: numpy's own ufunc, as numpy itself
            return eager(f"numpy.{self.__name__}", self._np, args, kwargs)

    def _call(self, args: tuple, kwargs: dict):
        np_ufunc = self._np
        if len(args) == self._plain and not kwargs:  # the hot path: lazy arrays and scalars
            a = args[0]
            if len(args) == 1:
                if type(a) is ndarray:
                    return _ufuncs.unary(np_ufunc, a)
            elif type(a) is ndarray or type(args[1]) is ndarray:
                b = args[1]
                if (type(a) is ndarray or type(a) in WEAK_TYPES) and \
                        (type(b) is ndarray or type(b) in WEAK_TYPES):
                    return _ufuncs.binary(np_ufunc, a, b)
        if len(args) > np_ufunc.nin:  # numpy's positional outputs: out=
            args, kwargs = _positional_out(np_ufunc, args, kwargs)
        if args and type(args[0]) is not ndarray and not kwargs and all(
                type(a) in WEAK_TYPES or isinstance(a, np.generic) for a in args):
            # only host scalars: numpy's own answer, a numpy scalar (bit for bit
            # numpy's, e.g. exp(1.0), where XLA's exp differs in the last ulp)
            return np_ufunc(*args)
        if any(host_subclass(a) for a in args):  # a masked array or matrix takes over
            return array_ufunc(None, np_ufunc, "__call__", *args, **kwargs)
        if not kwargs and len(args) == 2 and np_ufunc in _ufuncs.UFUNCS and \
                np_ufunc.nout == 1 and not _ufuncs.UFUNCS[np_ufunc].gufunc:
            return _ufuncs.binary(np_ufunc, *args)
        return array_ufunc(None, np_ufunc, "__call__", *args, **kwargs)

    def _method(self, method: str, args: tuple, kwargs: dict):
        try:
            return array_ufunc(None, self._np, method, *args, **kwargs)
        except UnsupportedDtype:
            return eager(f"numpy.{self.__name__}.{method}", getattr(self._np, method), args,
                         kwargs)

    def reduce(self, *args, **kwargs):
        if len(args) > 3 and args[3] is Ellipsis:  # (array, axis, dtype, out)
            raise TypeError("out=... is only allowed as a keyword argument.")
        return self._method("reduce", args, kwargs)

    def accumulate(self, *args, **kwargs):
        return self._method("accumulate", args, kwargs)

    def outer(self, *args, **kwargs):
        return self._method("outer", args, kwargs)

    def at(self, *args, **kwargs):
        return self._method("at", args, kwargs)

    def reduceat(self, *args, **kwargs):
        return self._method("reduceat", args, kwargs)

    def __getattr__(self, name: str):
        return getattr(self._np, name)

    def __eq__(self, other) -> bool:
        if isinstance(other, ufunc):
            return self._np is getattr(other, "_np", other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._np)

    def __repr__(self) -> str:
        return f"<lazy ufunc '{self.__name__}'>"


def _positional_out(np_ufunc: np.ufunc, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``f(a, b, out0, ...)`` as ``f(a, b, out=(out0, ...))``, numpy's rules."""
    outs = args[np_ufunc.nin:]
    if len(outs) > np_ufunc.nout:
        raise TypeError(f"{np_ufunc.__name__}() takes from {np_ufunc.nin} to "
                        f"{np_ufunc.nargs} positional arguments but {len(args)} were given")
    if "out" in kwargs:
        raise TypeError("cannot specify 'out' as both a positional and keyword argument")
    if any(o is Ellipsis for o in outs):
        raise TypeError("out=... is only allowed as a keyword argument.")
    if np_ufunc.nout == 1:
        return args[:np_ufunc.nin], {**kwargs, "out": outs[0]}
    outs += (None,) * (np_ufunc.nout - len(outs))
    return args[:np_ufunc.nin], {**kwargs, "out": outs}


def all_ufuncs() -> dict[str, ufunc]:
    """Every ufunc in numpy's namespace, by its numpy name (aliases included)."""
    return {name: ufunc(obj) for name, obj in vars(np).items() if isinstance(obj, np.ufunc)}
