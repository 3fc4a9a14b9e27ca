"""The lazy ``ndarray``: a core ``Handle`` (a ``ViewHandle`` for views) plus
numpy's layout, and the conversions between it and everything numpy accepts.

Methods that map onto numpy functions are attached from one table in
``_methods``; operators and ``__array_ufunc__`` live in ``_ufuncs``;
``__array_function__`` in ``_dispatch``. This module holds only what every
other module needs: the class, ``wrap`` (node -> array) and ``lift``
(anything numpy accepts -> node or weak Python scalar).
"""

from __future__ import annotations

import weakref

from lazytensor.core import dtypes as dt
from lazytensor.core import layout as _layout
from lazytensor.core.arrays import HandleArray
from lazytensor.core.composite.movement.shape import stack_nested
from lazytensor.core.ir import Node
from lazytensor.core.leaves import scalar
from lazytensor.core.runtime import Handle, get_runtime
from lazytensor.numpy._errors import UnsupportedDtype

import numpy as np

WEAK_TYPES = (bool, int, float, complex)
# 0-d arrays made as arrays (np.asarray(5.0), np.zeros(())) print as arrays;
# other 0-d results stand for numpy scalars and print like them (by id: the
# arrays' own __eq__/__hash__ are numpy's, not identity)
_EXPLICIT_0D: dict[int, weakref.ref] = {}


def mark_explicit(a: ndarray) -> ndarray:
    """Remember that 0-d ``a`` was made as an array (it prints as one)."""
    if not a._h.node.shape:
        key = id(a)
        _EXPLICIT_0D[key] = weakref.ref(a, lambda _, key=key: _EXPLICIT_0D.pop(key, None))
    return a


def _is_explicit(a) -> bool:
    ref = _EXPLICIT_0D.get(id(a))
    return ref is not None and ref() is a


class ndarray(HandleArray):  # noqa: N801  (numpy's name)
    """A lazy numpy array. Operations record core nodes; observing a value
    (``np.asarray``, ``repr``, ``float``, ``item``, ``tolist``...) runs them.

    ``_h`` is the storage handle, ``_st`` numpy's byte strides when the array
    is not C-contiguous (None when it is), ``_b`` a view's base array."""

    __slots__ = ("_h", "_st", "_b", "__weakref__")
    __array_priority__ = 100.0

    def __init__(self, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
        host = np.ndarray(shape, dtype, buffer, offset, strides, order)
        if buffer is None:
            host[...] = 0
        self._h = get_runtime().from_host(host)
        self._st = None

    # ------------------------------------------------------------ properties
    @property
    def shape(self) -> tuple[int, ...]:
        return self._h.node.shape

    @shape.setter
    def shape(self, value) -> None:
        from lazytensor.numpy._shape import reshape_in_place

        reshape_in_place(self, value)

    @property
    def dtype(self) -> np.dtype:
        return self._h.node.dtype

    @property
    def itemsize(self) -> int:
        return self._h.node.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def base(self) -> ndarray | None:
        """The array that owns a view's data (numpy's ``base``), else None."""
        return getattr(self, "_b", None)

    @property
    def strides(self) -> tuple[int, ...]:
        return _layout.full(self.shape, self._st, self.itemsize)

    # ---------------------------------------------------------- observation
    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        if copy is False:
            raise ValueError("a lazy array lives on the device: converting it to numpy "
                             "always copies (copy=False is impossible)")
        host = self._h.numpy()
        if self._st is not None and host.size:
            host = _laid_out(host, self._st)
        return host if dtype is None else host.astype(dtype, copy=False)

    def __repr__(self) -> str:
        host = self.__array__()  # 0-d results stand where numpy hands back scalars
        scalar_like = host.ndim == 0 and not _is_explicit(self)
        return repr(host[()] if scalar_like else host)

    def __hash__(self) -> int:
        """0-d arrays hash like the numpy scalars they stand for; others are unhashable."""
        if self._h.node.shape:
            raise TypeError("unhashable type: 'lazytensor.numpy.ndarray'")
        return hash(self.__array__()[()])

    def __round__(self, ndigits=None):
        if self._h.node.shape:
            from lazytensor.numpy._math import round_

            return round_(self, ndigits or 0)
        return round(self.__array__()[()], ndigits)

    def __contains__(self, value) -> bool:
        return bool((self == value).any())

    @property
    def flat(self):
        from lazytensor.numpy._indexing import FlatIter

        return FlatIter(self)

    @flat.setter
    def flat(self, value) -> None:
        """``x.flat = value``: every element, value repeated in C order (numpy's)."""
        self.flat[...] = value

    def __str__(self) -> str:
        return str(self.__array__())

    def __bool__(self) -> bool:
        if self.size != 1:  # numpy's own message, without reading the data
            return bool(np.empty((0,) if self.size == 0 else (2,)))
        return bool(self.__array__())

    def __bytes__(self) -> bytes:
        """``bytes(x)``: the elements in C order, as numpy's buffer gives them."""
        return self.__array__().tobytes()

    def __complex__(self) -> complex:
        return complex(self.__array__())

    def __index__(self) -> int:
        return self.__array__().__index__()

    def __len__(self) -> int:
        shape = self._h.node.shape
        if not shape:
            raise TypeError("len() of unsized object")
        return shape[0]

    def __iter__(self):
        if not self._h.node.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._h.node.shape[0]))

    def __reduce__(self):
        return (_from_pickle, (self.__array__(),))

    def __copy__(self) -> ndarray:
        return self.copy()

    def __deepcopy__(self, memo) -> ndarray:
        return self.copy()


# A strided view's host copy keeps its strides when the bytes they span are at
# most this many times its own, or at most this many bytes; a sparser view (a
# column of a matrix over 64 MiB) comes back compact.
_SPAN_RATIO, _SPAN_FREE = 16, 64 << 20


def _laid_out(host: np.ndarray, strides: tuple[int, ...]) -> np.ndarray:
    """``host`` copied into a buffer laid out with the view's numpy ``strides``.

    numpy code pairs ``a.strides`` with ``np.asarray(a)``: ``as_strided(a,
    strides=(a.strides[0],) * 2)`` builds sliding windows on the buffer it got
    back, which must then be laid out as ``a.strides`` says (F order, a
    transpose, a step slice). Bytes between the view's elements are zeros, not
    its base's (the base is not read). Past the bounds above, the copy is
    compact: there ``np.asarray(a).strides != a.strides``."""
    start, span = _layout.extent(host.shape, strides, host.itemsize)
    if span > max(_SPAN_RATIO * host.nbytes, _SPAN_FREE):
        return host
    out = np.ndarray(host.shape, host.dtype, np.zeros(span, np.uint8), start, strides)
    out[...] = host
    if any(not st and n > 1 for n, st in zip(host.shape, strides, strict=True)):
        out.flags.writeable = False  # elements share bytes: numpy's broadcast views are read-only
    return out


def _from_pickle(host: np.ndarray) -> ndarray:
    return from_host(host)


_new = object.__new__


def wrap(node: Node, strides=None) -> ndarray:
    """A fresh lazy array holding ``node`` (C-contiguous unless ``strides``)."""
    out = _new(ndarray)
    out._h = Handle(node)
    out._st = strides
    return out


def wrap_handle(handle: Handle, strides=None) -> ndarray:
    out = _new(ndarray)
    out._h = handle
    out._st = strides
    return out


def from_host(value, dtype=None) -> ndarray:
    """Device data copied from a host value (a Fortran-ordered one stays so)."""
    host = np.asarray(value, dtype=dtype)
    fortran = host.ndim > 1 and host.flags.f_contiguous and not host.flags.c_contiguous
    strides = _layout.normalize(host.shape, host.strides, host.itemsize) if fortran else None
    return wrap_handle(get_runtime().from_host(host), strides)


def lift(value):
    """What numpy would make of ``value``, as a core operand: a Node (strong:
    arrays, numpy scalars, lists) or a Python scalar (weak, NEP 50)."""
    if type(value) is ndarray:
        return value._h.node
    if type(value) in WEAK_TYPES or type(value) is Node:
        return value
    if isinstance(value, ndarray):
        return value._h.node
    if isinstance(value, np.generic):
        return generic_node(value)
    for weak in WEAK_TYPES:  # subclasses of Python scalars (bool before int)
        if isinstance(value, weak):
            return weak(value)
    return host_node(value)


def as_index(value):
    """A 0-d lazy integer as a Python int (numpy takes any __index__ object
    for counts and sizes); everything else unchanged."""
    if isinstance(value, ndarray) and not value._h.node.shape and value.dtype.kind in "iub":
        return value.__index__()
    return value


def numpy_only(dtype: np.dtype) -> bool:
    """Dates, strings, objects, structured and extended-precision (longdouble)
    data, which lazy arrays cannot hold: functions on them run numpy's."""
    return dtype.kind not in "biufc" or dtype.itemsize > (16 if dtype.kind == "c" else 8)


def generic_node(value: np.generic) -> Node:
    """A numpy scalar as a strong, recompile-free scalar parameter."""
    dtype = value.dtype
    if numpy_only(dtype):
        raise UnsupportedDtype(f"lazytensor.numpy does not support dtype {dtype}")
    return scalar(value.item(), dt.canonical(dtype))


def host_node(value) -> Node:
    """Host data (numpy array, nested lists, objects with __array__) as a leaf;
    a (nested) list holding lazy arrays as their stack (recorded, not read)."""
    node = nested_node(value)
    if node is not None:
        return node
    array = np.asarray(value)
    if numpy_only(array.dtype):
        raise UnsupportedDtype(f"lazytensor.numpy does not support dtype {array.dtype}")
    return get_runtime().from_host(array).node


STACK_LIMIT = 256  # items past which one read beats a stack (XLA compiles wide joins slowly)


def nested_node(value) -> Node | None:
    """A (nested) list or tuple holding lazy arrays as the stack of its items
    (numpy's dtype discovery), recorded without reading them; None for other
    values, for ragged or non-numeric lists and past ``STACK_LIMIT`` items."""
    if isinstance(value, (list, tuple)) and _holds_lazy(value) \
            and _items(value) <= STACK_LIMIT:
        return stack_nested(value, _item_node)
    return None


def _items(value) -> int:
    return sum(_items(v) if isinstance(v, (list, tuple)) else 1 for v in value)


def _holds_lazy(items) -> bool:
    return any(isinstance(v, ndarray) or isinstance(v, (list, tuple)) and _holds_lazy(v)
               for v in items)


def _item_node(item) -> Node | None:
    """An item of a list that ``np.array`` reads, as a node: lazy and host
    arrays, numpy and Python scalars (strong: numpy's default dtypes) of
    numeric dtypes; None for anything else (numpy's conversion decides)."""
    if isinstance(item, ndarray):
        return item._h.node
    if type(item) in WEAK_TYPES or isinstance(item, (np.ndarray, np.generic)):
        host = np.asarray(item)
        if host.dtype.kind in "biufc" and host.dtype != np.longdouble:
            return node_of(item)
    return None


def node_of(value) -> Node:
    """Like ``lift`` but Python scalars become strong arrays too (their numpy
    default dtype: bool, int64, float64, complex128), as ``np.asarray`` does."""
    lifted = lift(value)
    if isinstance(lifted, Node):
        return lifted
    return scalar(lifted, np.asarray(lifted).dtype)

