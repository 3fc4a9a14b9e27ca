"""``ndarray`` methods and properties, attached from tables: most methods are
the numpy function of the same name with the array as first argument; the
few whose signatures differ from the function's (reshape, transpose, astype,
sort, fill, view...) are written here.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings

from lazytensor.core import dtypes as dt
from lazytensor.core import layout as _layout
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement import rearrange as cr
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.movement import views as cv
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
from lazytensor.numpy._base import ndarray, numpy_only, wrap
from lazytensor.numpy._dispatch import note_fallback
from lazytensor.numpy._errors import guard

import numpy as np

# method name -> the function it is (first argument: the array)
FUNCTION_METHODS = {
    "all": _reductions.all_, "any": _reductions.any_, "argmax": _reductions.argmax,
    "argmin": _reductions.argmin, "argsort": _math.argsort, "choose": _extra.choose,
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
    try:
        dtype = dt.canonical(dtype)
    except TypeError:  # longdouble (numpy's own error for what numpy refuses too)
        dtype = np.dtype(dtype)
    if not copy and dtype == self.dtype:
        return self
    if numpy_only(dtype):  # strings, objects, longdouble: numpy's own (eager) array
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
    """A view of the same bytes read as ``dtype`` (a last axis scaled by the
    ratio of item sizes when they differ, as numpy's)."""
    if dtype is None or isinstance(dtype, builtins.type) and issubclass(dtype, ndarray):
        return _views.view(self, lambda n: n, lambda b, v: v, self._st)
    target, size = dt.canonical(dtype), self.itemsize
    if target.itemsize != size:
        if not self.ndim:
            raise ValueError("Changing the dtype of a 0d array is only supported if the "
                             "itemsize is unchanged")
        if self.shape[-1] != 1 and self.strides[-1] != size:
            raise ValueError("To change to a dtype of a different size, the last axis must "
                             "be contiguous")
        smaller = target.itemsize < size
        if (size if smaller else self.shape[-1] * size) % target.itemsize:
            raise ValueError(f"When changing to a {'smaller' if smaller else 'larger'} dtype, "
                             "its size must be a divisor of the " + ("size of original dtype"
                             if smaller else "total size in bytes of the last axis of the array."))
    strides = self._st if self._st is None or target.itemsize == size else (
        *self.strides[:-1], target.itemsize)
    return _views.view(self, *cv.bitcast_pair(target, self.dtype), strides)


_HOST_FLAGS = type(np.empty(0).flags)


class Flags:
    """``ndarray.flags``: numpy's layout and writeability flags of a lazy array."""

    __slots__ = ("_a",)
    _KEYS = {"C": "c_contiguous", "F": "f_contiguous", "W": "writeable", "O": "owndata",
             "A": "aligned", "X": "writebackifcopy", "CONTIGUOUS": "c_contiguous",
             "FORTRAN": "f_contiguous"}
    aligned, writebackifcopy = True, False

    def __init__(self, a) -> None:
        self._a = a

    c_contiguous = contiguous = property(lambda self: self._a._st is None or (
        _layout.is_f_contiguous(self._a.shape[::-1], self._a.strides[::-1], self._a.itemsize)))
    f_contiguous = fortran = property(lambda self: _layout.is_f_contiguous(
        self._a.shape, self._a.strides, self._a.itemsize))
    owndata = property(lambda self: self._a.base is None)
    writeable = property(lambda self: not _views.is_read_only(self._a),
                         lambda self, value: _views.set_writeable(self._a, bool(value)))
    fnc = property(lambda self: self.f_contiguous and not self.c_contiguous)
    forc = property(lambda self: self.f_contiguous or self.c_contiguous)
    behaved = property(lambda self: self.writeable)
    carray = property(lambda self: self.writeable and self.c_contiguous)
    farray = property(lambda self: self.writeable and self.fnc)

    def __getitem__(self, key: str) -> bool:
        return getattr(self, self._KEYS.get(key, key).lower())

    def __setitem__(self, key: str, value) -> None:
        if self._KEYS.get(key, key).lower() != "writeable":
            raise KeyError(f"lazytensor.numpy: flag {key!r} cannot be set")
        self.writeable = value

    _SHOWN = ("c_contiguous", "f_contiguous", "owndata", "writeable", "aligned",
              "writebackifcopy")

    def __repr__(self) -> str:
        return "\n".join(f"  {n.upper()} : {getattr(self, n)}" for n in self._SHOWN)

    def __eq__(self, other) -> bool:  # as numpy's flags (a host array's too): by value
        if not isinstance(other, (Flags, _HOST_FLAGS)):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._SHOWN)

    __hash__ = None


def setflags(self, write=None, align=None, uic=None) -> None:
    """numpy's ``setflags``: only ``write`` changes anything for a lazy array."""
    if uic:
        raise ValueError("cannot set WRITEBACKIFCOPY flag to True")
    if write is not None:
        _views.set_writeable(self, bool(write))


def clip(self, min=None, max=None, out=None, **kwargs):  # noqa: A002 (numpy's names)
    """numpy's method: either bound may be left out (the function wants both)."""
    return _math.clip(self, min, max, out, **kwargs)


def partition(self, kth, axis=-1, kind="introselect", order=None) -> None:
    """In place, as numpy's method (a full sort is one valid partition); unlike
    the function, the method takes no ``axis=None`` (numpy's TypeError)."""
    _ufuncs.assign(self, _misc.partition(self, kth, operator.index(axis), kind)._h.node)


def put(self, indices, values, mode="raise") -> None:
    """In place: the flat positions ``indices`` receive ``values`` (repeated),
    as ``np.put`` (its ``mode``, position and empty-values rules)."""
    _misc.put(self, indices, values, mode)


def resize(self, *new_shape, refcheck=True) -> None:
    """In place, as numpy's method: the first elements in C order, zeros
    after them. Only an array that owns its data (numpy's ValueError for a
    view); references are not counted (``refcheck`` is ignored), so views
    taken before keep the old values."""
    if not new_shape:  # numpy: no shape given, nothing changes
        return
    if self.base is not None:
        raise ValueError("cannot resize this array: it does not own its data")
    if self._st is not None:
        raise NotImplementedError("lazytensor.numpy: resize of a non-C-ordered array")
    shape = new_shape[0] if len(new_shape) == 1 and not isinstance(new_shape[0], int) \
        else new_shape
    if shape is None:
        return
    shape = tuple(operator.index(d) for d in (shape if np.iterable(shape) else (shape,)))
    if any(d < 0 for d in shape):
        raise ValueError("negative dimensions not allowed")
    self._h = wrap(cs.reshape(cr.resized(self._h.node, math.prod(shape), repeat=False), shape))._h


def conj(self, out=None):
    """numpy's method: the array itself unless it is complex (a bool array
    stays bool, where the ufunc ``np.conjugate`` gives int8)."""
    if out is None and self.dtype.kind != "c":
        return self
    return np.conjugate(self, out=out)


def tobytes(self, order="C") -> bytes:
    return self.__array__().tobytes(order)


def to_device(self, device, /, *, stream=None):
    """numpy's: only "cpu" (numpy's own check and error); the array itself."""
    np.empty(0).to_device(device, stream=stream)
    return self


def dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """DLPack export: the value is computed (a barrier) and exported from a
    fresh host array. ``copy=False`` exports it too: the value lives in a
    device buffer that the runtime may donate to a later graph, so no
    consumer may alias it; nothing else holds the exported memory."""
    host = self.__array__()
    return host.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device,
                           copy=None if copy is False else copy)


def dlpack_device(self) -> tuple:
    return np.empty(0).__dlpack_device__()


def getitem(self, index):
    return _indexing.getitem(self, index)


def setitem(self, index, value) -> None:
    _indexing.setitem(self, index, value)


OWN_METHODS = {
    "reshape": reshape, "transpose": transpose, "astype": astype, "fill": fill, "sort": sort,
    "view": view, "conj": conj, "conjugate": conj, "tobytes": tobytes,
    "clip": clip, "partition": partition, "put": put, "resize": resize, "setflags": setflags,
    "__getitem__": getitem, "__setitem__": setitem, "to_device": to_device,
    "__dlpack__": dlpack, "__dlpack_device__": dlpack_device,
}


def _set_real(self, value) -> None:
    _indexing.setitem(_math.real(self), Ellipsis, value)


def _set_imag(self, value) -> None:
    if not dt.is_complex(self.dtype):
        raise TypeError("array does not have imaginary part to set")
    _indexing.setitem(_math.imag(self), Ellipsis, value)


PROPERTIES = {
    "T": property(lambda self: _shape.transpose(self)),
    "device": property(lambda self: "cpu"),  # numpy's arrays' device
    "flags": property(Flags),
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
