"""Operators and the numpy protocols of ``ndarray``, attached from tables:
``a + b`` is ``np.add(a, b)``, ``b + a`` reflected, ``a += b`` is
``np.add(a, b, out=a)`` with numpy's same_kind casting check.
"""

from __future__ import annotations

from lazytensor.core.composite.elementwise.apply import full
from lazytensor.core.composite.elementwise.ufuncs import COMPARISONS as CORE_COMPARISONS
from lazytensor.core.composite.elementwise.ufuncs import OPERATORS
from lazytensor.numpy import _dispatch, _ufunc_methods, _ufuncs
from lazytensor.numpy._base import WEAK_TYPES, _is_explicit, ndarray, wrap
from lazytensor.numpy._dispatch import host_subclass
from lazytensor.numpy._errors import UnsupportedDtype, call_guarded

import numpy as np

BINARY_OPERATORS = {op: getattr(np, name) for op, name in {
    **OPERATORS, "lshift": "left_shift", "rshift": "right_shift", "divmod": "divmod"}.items()}
COMPARISONS = {op: getattr(np, name) for op, name in CORE_COMPARISONS.items()}
UNARY_OPERATORS = {"neg": np.negative, "pos": np.positive, "abs": np.absolute,
                   "invert": np.invert}
_BINARY, _UNARY, _INPLACE, _CALL = _ufuncs.binary, _ufuncs.unary, _ufuncs.inplace, _ufuncs.call
# ufuncs whose plain call (no keywords) is ``_ufuncs.unary`` or ``binary``, as
# ``_lazy_ufunc`` decides: one output, not a gufunc
_PLAIN = frozenset(u for u, impl in _ufuncs.UFUNCS.items()
                   if u.nout == 1 and u.nin <= 2 and not impl.gufunc)


def _plain(ufunc, inputs: tuple) -> bool:
    """A call of a ``_PLAIN`` ufunc on lazy arrays and Python scalars, one of
    them lazy (no masked array or matrix: they take over)."""
    if ufunc not in _PLAIN or len(inputs) != ufunc.nin:
        return False
    if len(inputs) == 1:
        return type(inputs[0]) is ndarray
    a, b = inputs
    return (type(a) is ndarray or type(a) in WEAK_TYPES) and \
        (type(b) is ndarray or type(b) in WEAK_TYPES) and (type(a) is ndarray or type(b) is ndarray)


def _operand_ok(other) -> bool:
    """Operands an operator takes on (others get NotImplemented)."""
    return type(other) in WEAK_TYPES or isinstance(other, (ndarray, np.ndarray, np.generic,
                                                           list, tuple))


def _forward(ufunc):
    if ufunc.nout > 1:
        def op(self, other):
            if not _operand_ok(other) or host_subclass(other):
                return NotImplemented
            return _CALL(ufunc, (self, other), {})
    else:
        def op(self, other):
            if type(other) is ndarray or type(other) in WEAK_TYPES:
                return _BINARY(ufunc, self, other)
            return _host_operand(ufunc, other, (self, other))
    return op


def _reflected(ufunc):
    if ufunc.nout > 1:
        def op(self, other):
            if not _operand_ok(other) or host_subclass(other):
                return NotImplemented
            return _CALL(ufunc, (other, self), {})
    else:
        def op(self, other):
            return _host_operand(ufunc, other, (other, self))
    return op


def _host_operand(ufunc, other, operands: tuple):
    """An operator with ``other`` not lazy: numpy's own (eagerly, counted)
    where it holds data lazy arrays cannot (longdouble, dates, objects);
    a masked array or matrix takes over (``HOST_SUBCLASSES``)."""
    if not _operand_ok(other) or host_subclass(other):
        return NotImplemented
    try:
        return _BINARY(ufunc, *operands)
    except UnsupportedDtype:
        return _eager_ufunc(ufunc, "__call__", operands, {})


def _sequence_repeat(op):
    """``[0] * n`` with ``n`` a 0-d result that stands for a numpy scalar
    (``a.max()``, ``a[i]``) repeats the list, as numpy's scalar does (its
    multiply leaves sequences to Python); a 0-d array made as an array
    multiplies elementwise, as numpy's 0-d ndarray."""
    def repeat_or_op(self, other):
        if isinstance(other, (list, tuple)) and not self._h.node.shape and not _is_explicit(self):
            return NotImplemented
        return op(self, other)
    return repeat_or_op


def _three_argument_pow(op):
    """``pow(a, b, mod)``: numpy's arrays take no modulus (TypeError from
    Python). ``a ** 2`` of a float array is ``np.square(a)``, as numpy's
    operator does (its fast scalar power): a multiply, where a power whose
    exponent is a graph parameter costs XLA exp(2 log a) (14x a multiply on
    the CPU: 3.1 against 0.23 ms on 256x512 float32)."""
    def power(self, other, mod=None):
        if mod is not None:
            return NotImplemented
        if type(other) in (int, float) and other == 2 and self._h.node.dtype.kind == "f":
            return np.square(self)
        return op(self, other)
    return power


def _inplace(ufunc):
    def op(self, other):
        return _INPLACE(ufunc, self, other) if _operand_ok(other) else NotImplemented
    return op


def _unary(ufunc):
    def op(self):
        return _UNARY(ufunc, self)
    return op


def _comparison(ufunc):
    def op(self, other):
        if other is None and ufunc in (np.equal, np.not_equal):  # numpy: elementwise answer
            return wrap(full(self.shape, ufunc is np.not_equal, np.dtype(bool)))
        if not _operand_ok(other) or host_subclass(other):
            return NotImplemented
        return _BINARY(ufunc, self, other)
    return op


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """numpy's ufunc protocol: lazy when the table has the ufunc and method;
    numpy's own (eagerly, counted) for data lazy arrays cannot hold; with
    a masked array or matrix operand, numpy's on the host copies (that
    subclass's result, as numpy gives for an ndarray operand)."""
    if not kwargs and method == "__call__" and _plain(ufunc, inputs):
        try:  # (the hot path: what _lazy_ufunc does for these)
            return _UNARY(ufunc, inputs[0]) if len(inputs) == 1 else _BINARY(ufunc, *inputs)
        except UnsupportedDtype:
            return _eager_ufunc(ufunc, method, inputs, kwargs)
    if any(host_subclass(x) for x in inputs) and not _dispatch.has_lazy(kwargs.get("out")):
        return getattr(ufunc, method)(*_dispatch.to_host(inputs), **kwargs)
    if not _ufunc_methods.has_method(ufunc, method):
        return _eager_ufunc(ufunc, method, inputs, kwargs)
    try:  # (a copy: the lazy path pops the keywords it reads)
        return _lazy_ufunc(ufunc, method, inputs, dict(kwargs))
    except UnsupportedDtype:  # dates, strings, objects, longdouble
        return _eager_ufunc(ufunc, method, inputs, kwargs)


def _eager_ufunc(ufunc, method, inputs, kwargs):
    return _dispatch.eager(f"numpy.{ufunc.__name__}" + (
        "" if method == "__call__" else f".{method}"), getattr(ufunc, method), inputs, kwargs)


def _lazy_ufunc(ufunc, method, inputs, kwargs):
    if method == "__call__":
        if not kwargs and ufunc.nout == 1:
            if len(inputs) == 2 and not _ufuncs.UFUNCS[ufunc].gufunc:
                return _BINARY(ufunc, *inputs)
            if len(inputs) == 1:
                return _UNARY(ufunc, inputs[0])
        return _CALL(ufunc, inputs, kwargs)
    return call_guarded(_ufunc_methods.METHODS[method], ufunc, *inputs, **kwargs)


def array_namespace(self, /, *, api_version=None):
    """The Array API namespace; a version past the one it implements (or
    not a version) raises numpy's ValueError."""
    from lazytensor.numpy import array_api

    if api_version is not None and api_version not in array_api.SUPPORTED_VERSIONS:
        raise ValueError(f'Version "{api_version}" of the Array API Standard is not supported.')
    return array_api


def _install() -> None:
    for name, ufunc in BINARY_OPERATORS.items():
        setattr(ndarray, f"__{name}__", _forward(ufunc))
        setattr(ndarray, f"__r{name}__", _reflected(ufunc))
        if ufunc is np.power:
            ndarray.__pow__ = _three_argument_pow(ndarray.__pow__)
        if ufunc is np.multiply:
            ndarray.__mul__ = _sequence_repeat(ndarray.__mul__)
            ndarray.__rmul__ = _sequence_repeat(ndarray.__rmul__)
        if ufunc.nout == 1:
            setattr(ndarray, f"__i{name}__", _inplace(ufunc))
    for name, ufunc in COMPARISONS.items():
        setattr(ndarray, f"__{name}__", _comparison(ufunc))
    for name, ufunc in UNARY_OPERATORS.items():
        setattr(ndarray, f"__{name}__", _unary(ufunc))
    ndarray.__array_ufunc__ = array_ufunc
    ndarray.__array_function__ = _dispatch.array_function
    ndarray.__array_namespace__ = array_namespace


_install()
