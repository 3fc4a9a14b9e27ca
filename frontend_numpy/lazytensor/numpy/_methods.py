"""``ndarray`` methods and properties, attached from tables: most methods are
the numpy function of the same name with the array as first argument; the
few whose signatures differ from the function's (reshape, transpose, astype,
sort, fill, view...) are written here.
"""

from __future__ import annotations

import warnings

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.numpy import (
    _creation,
    _extra,
    _indexing,
    _math,
    _misc,
    _reductions,
    _shape,
    _ufuncs,
    _views,
)
from lazytensor.numpy._base import ndarray, wrap
from lazytensor.numpy._dispatch import note_fallback
from lazytensor.numpy._errors import guard

import numpy as np

# method name -> the function it is (first argument: the array)
FUNCTION_METHODS = {
    "all": _reductions.all_, "any": _reductions.any_, "argmax": _reductions.argmax,
    "argmin": _reductions.argmin, "argsort": _math.argsort, "choose": _extra.choose,
    "clip": _math.clip,
    "compress": lambda a, condition, axis=None, out=None: _math.compress(condition, a, axis, out),
    "cumprod": _reductions.cumprod, "cumsum": _reductions.cumsum,
    "diagonal": _shape.diagonal, "dot": _math.dot, "max": _reductions.max_,
    "mean": _reductions.mean, "min": _reductions.min_, "nonzero": _math.nonzero,
    "prod": _reductions.prod, "ravel": _shape.ravel, "repeat": _shape.repeat,
    "round": _math.round_, "squeeze": _shape.squeeze, "std": _reductions.std,
    "sum": _reductions.sum_, "swapaxes": _shape.swapaxes, "take": _math.take,
    "trace": _shape.trace, "var": _reductions.var, "flatten": _shape.flatten,
    "copy": _shape.copy_method,
    "searchsorted": _misc.searchsorted, "argpartition": _misc.argpartition,
}


def _shape_args(args) -> tuple:
    if len(args) == 1 and (args[0] is None or not isinstance(args[0], (int, np.integer))):
        return args[0]
    return args


def reshape(self, *shape, order="C", copy=None):
    return _shape.reshape(self, _shape_args(shape), order=order, copy=copy)


def transpose(self, *axes):
    axes = _shape_args(axes) if axes else None
    return _shape.transpose(self, axes)


def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """A copy converted to ``dtype`` (``self`` when copy=False and nothing changes)."""
    dtype = dt.canonical(dtype)
    if not copy and dtype == self.dtype:
        return self
    if dtype.kind not in "biufc":  # strings, objects: numpy's own (eager) array
        note_fallback(f"numpy.ndarray.astype ({dtype})")
        return self.__array__().astype(dtype, order, casting)
    if casting != "unsafe" and not np.can_cast(self.dtype, dtype, casting):
        raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dtype!r} according "
                        f"to the rule {casting!r}")
    node = self._h.node
    if dt.is_complex(node.dtype) and not dt.is_complex(dtype):
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=2)
        node = make(Op.REAL, (node,))
    node = ew.convert(node, dtype)
    return wrap(node, _creation._like_strides(self, node, order))


def fill(self, value) -> None:
    node = self._h.node
    _ufuncs.assign(self, ew.as_node(_indexing._value(value, node.dtype), node.dtype, node.shape))


def sort(self, axis=-1, kind=None, order=None, *, stable=None) -> None:
    _math.sort_in_place(self, axis, kind, order, stable=stable)


def view(self, dtype=None, type=None):
    """A view of the same data, reinterpreted as ``dtype`` of the same size."""
    if dtype is None or dt.canonical(dtype) == self.dtype:
        return _views.view(self, lambda n: n, lambda b, v: v, self._st)
    target = dt.canonical(dtype)
    if target.itemsize != self.itemsize:
        raise NotImplementedError("lazytensor.numpy: views changing the item size")
    source = self.dtype
    return _views.view(self, lambda n: make(Op.BITCAST_CONVERT, (n,), target),
                       lambda b, v: make(Op.BITCAST_CONVERT, (v,), source), self._st)


def partition(self, kth, axis=-1, kind="introselect", order=None) -> None:
    """In place, as numpy's method (a full sort is one valid partition)."""
    _ufuncs.assign(self, _misc.partition(self, kth, axis)._h.node)


def put(self, indices, values, mode="raise") -> None:
    """In place: the flat positions ``indices`` receive ``values``."""
    flat = _shape.reshape(self, (-1,)) if self._st is None else None
    if flat is None:
        raise NotImplementedError("lazytensor.numpy: put on a non-contiguous view")
    flat[indices] = values


def conj(self):
    return _ufuncs.unary(np.conjugate, self)


def tobytes(self, order="C") -> bytes:
    return self.__array__().tobytes(order)


def getitem(self, index):
    return _indexing.getitem(self, index)


def setitem(self, index, value) -> None:
    _indexing.setitem(self, index, value)


OWN_METHODS = {
    "reshape": reshape, "transpose": transpose, "astype": astype, "fill": fill, "sort": sort,
    "view": view, "conj": conj, "conjugate": conj, "tobytes": tobytes,
    "partition": partition, "put": put,
    "__getitem__": getitem, "__setitem__": setitem,
}


def _set_real(self, value) -> None:
    _indexing.setitem(_math.real(self), Ellipsis, value)


def _set_imag(self, value) -> None:
    if not dt.is_complex(self.dtype):
        raise TypeError("array does not have imaginary part to set")
    _indexing.setitem(_math.imag(self), Ellipsis, value)


PROPERTIES = {
    "T": property(lambda self: _shape.transpose(self)),
    "mT": property(lambda self: _shape.matrix_transpose(self)),
    "real": property(lambda self: _math.real(self), _set_real),
    "imag": property(lambda self: _math.imag(self), _set_imag),
}


def _install() -> None:
    for name, fn in FUNCTION_METHODS.items():
        setattr(ndarray, name, fn)
    for name, fn in OWN_METHODS.items():
        setattr(ndarray, name, guard(fn) if not name.startswith("__") else fn)
    for name, prop in PROPERTIES.items():
        setattr(ndarray, name, prop)


_install()
