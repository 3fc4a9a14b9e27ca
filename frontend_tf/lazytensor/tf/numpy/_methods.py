"""The ndarray's operators and numpy-behaviour methods, attached from tables.

Operators follow tf.Tensor's: with tnp's numpy behaviour on they promote as
the tnp functions do; with it off they are TensorFlow's strict operators
(operands must share a dtype; a Python or numpy scalar takes the array's
dtype when it fits), so dtype errors surface as TensorFlow raises them.
``__eq__``/``__ne__`` are elementwise and arrays are unhashable, as
tf.Tensor is with tensor equality enabled (TF2's default).
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.ufuncs import COMPARISONS, OPERATORS
from lazytensor.core.composite.indexing import subscript as indexing
from lazytensor.core.ir import Node
from lazytensor.tf import _tf
from lazytensor.tf._array import lift, ndarray, wrap
from lazytensor.tf.numpy import _masked_reads

# Python scalar type -> the array dtype kinds TensorFlow converts it to
_CONVERTS = {bool: "b", int: "iuf", float: "f", complex: "c"}


def _strict(a: ndarray, other, op: str, reflected: bool):
    """TensorFlow's operand rule without numpy behaviour: an array must
    already have ``a``'s dtype; a Python scalar converts to it only when its
    kind fits (1.5 into an int tensor fails: a TypeError, but ``x + 1.5`` and
    ``x @ 1.5`` try the kernel: InvalidArgumentError); numpy values are cast."""
    dtype = a._h.node.dtype
    if isinstance(other, ndarray):
        if other._h.node.dtype == dtype:
            return other
        found = other._h.node.dtype.name
    elif type(other) in _CONVERTS:
        if dt.category(dtype) in _CONVERTS[type(other)]:
            return other  # a weak scalar of a fitting kind takes the array's dtype
        if reflected or op not in ("add", "matmul"):
            raise TypeError(f"Cannot convert {other!r} to EagerTensor of dtype {dtype.name}")
        found = type(other).__name__
    else:
        return lift(np.asarray(other).astype(dtype))
    raise _tf.tf().errors.InvalidArgumentError(
        None, None, f"cannot compute the operator: expected a {dtype.name} tensor but got "
                    f"a {found} operand")


# operators whose TensorFlow kernels take no bool tensors (AddV2, Less, ...),
# though the tnp function of the same name may (tnp.add ORs bools):
# operator -> the error TensorFlow raises ("matmul" in numpy mode: ValueError)
_BOOL_REFUSED = {
    **dict.fromkeys(("add", "sub", "floordiv", "mod", "pow", "lt", "le", "gt", "ge",
                     "matmul"), _tf.INVALID_ARGUMENT),
    "truediv": TypeError,
}


def _is_bool(value) -> bool:
    if isinstance(value, ndarray):
        return dt.is_bool(value._h.node.dtype)
    return isinstance(value, (bool, np.bool_)) or (
        isinstance(value, np.ndarray) and value.dtype == np.bool_)


def _refuse_bools(op: str, a: ndarray, other) -> None:
    error = _BOOL_REFUSED.get(op)
    if error is None or not (dt.is_bool(a._h.node.dtype) and _is_bool(other)):
        return
    message = f"cannot compute the operator `__{op}__` of bool tensors (TensorFlow's kernel " \
              f"takes no bool)"
    if op == "matmul" and _tf.numpy_behavior():
        error = ValueError
    if isinstance(error, str):
        raise getattr(_tf.tf().errors, error)(None, None, message)
    raise error(message)


def _operator(fn, op: str, reflected: bool = False):
    def method(self, other):
        if not _tf.numpy_behavior():
            other = _strict(self, other, op, reflected)
        _refuse_bools(op, self, other)
        return fn(other, self) if reflected else fn(self, other)

    return method


# operator -> tnp function (both directions; the core's table of numpy's operators)
BINARY_OPERATORS = OPERATORS


UNARY_OPERATORS = {
    "__neg__": "negative", "__pos__": "positive", "__abs__": "abs", "__invert__": "bitwise_not",
    "__round__": "around",
}


def _index_entry(entry):
    """A lazy array inside an index becomes a node (bool arrays: their host
    mask, whose size decides the result's shape)."""
    if isinstance(entry, ndarray):
        node = entry._node()
        return entry.numpy() if dt.is_bool(node.dtype) else node
    if isinstance(entry, list) and any(isinstance(e, ndarray) for e in entry):
        return lift(entry)
    if _tf.is_tf_value(entry):
        return _tf.eager_value(entry)
    return entry


_INDEX_TYPES = (int, np.integer, slice, type(None), type(Ellipsis), list, np.ndarray, Node,
                bool, np.bool_)
# tnp raises InvalidArgumentError for out-of-range indices (TensorFlow's kernels)
_INDEX_ERRORS = {indexing.IndexingError: _tf.INVALID_ARGUMENT}


def _as_tuple_index(key):
    """tnp reads a list index as a tuple index (numpy's legacy rule) when it
    holds None, Ellipsis, a slice, a list/tuple or a non-scalar array:
    ``x[[rows, cols]]`` and ``x[lnp.ix_(rows, cols)]`` (a list) pick elements;
    a list of scalars stays one integer-array index."""
    if type(key) is not list:
        return key
    for entry in key:
        if entry is None or entry is Ellipsis or isinstance(entry, (list, tuple, slice)):
            return tuple(key)
        if isinstance(entry, (ndarray, np.ndarray)) or _tf.is_tf_value(entry):
            if len(entry.shape) != 0:
                return tuple(key)
    return key


def _getitem(self: ndarray, key):
    from lazytensor.tf.numpy._lower import lowered

    key = _as_tuple_index(key)
    entries = [_index_entry(k) for k in (key if isinstance(key, tuple) else (key,))]
    node = self._node()
    for entry in entries:
        bad = _non_integer(entry)
        if not isinstance(entry, _INDEX_TYPES) or bad is not None:
            _invalid_index(entry if bad is None else bad)
        if isinstance(entry, np.ndarray) and entry.dtype == bool and \
                entry.shape != node.shape[:entry.ndim]:
            raise ValueError(f"boolean index of shape {entry.shape} does not match the indexed "
                             f"dimensions {node.shape[:entry.ndim]}")
    if isinstance(key, tuple):
        return lowered("__getitem__", lambda: _tnp_getitem(node, entries), _INDEX_ERRORS)()
    out = lowered("__getitem__", lambda: indexing.getitem(node, entries[0], upload=True),
                  _INDEX_ERRORS)()
    _masked_reads.tag_read(out, node, key)
    return out


def _non_integer(entry):
    """The float part of an index entry that tnp refuses (a float slice bound,
    float list or array), or None."""
    if isinstance(entry, slice):
        return next((b for b in (entry.start, entry.stop, entry.step)
                     if isinstance(b, (float, np.floating))), None)
    if isinstance(entry, list) and any(isinstance(v, (float, np.floating)) for v in entry):
        return entry
    if isinstance(entry, np.ndarray) and entry.dtype.kind in "fc":
        return entry
    return None


def _invalid_index(entry):
    """tnp's error: numpy's IndexError under numpy behaviour, else tf.Tensor's TypeError."""
    if _tf.numpy_behavior():
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                         f"and integer or boolean arrays are valid indices, got {entry!r}")
    raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                    f"scalar tf.int32/tf.int64 tensors are valid indices, got {entry!r}")


def _is_array_index(entry) -> bool:
    return isinstance(entry, list) or (isinstance(entry, (np.ndarray, Node)) and entry.ndim > 0)


def _tnp_getitem(node: Node, entries: list) -> Node:
    """tnp applies the scalar indices first (a strided slice) and the array
    indices to what is left, so ``x[1, :, [0, 4]]`` is (4, 2) where numpy
    gives (2, 4): scalars never join the array indices."""
    scalars = [not _is_array_index(e) and isinstance(e, (int, np.integer, np.ndarray, Node))
               and not isinstance(e, (bool, np.bool_)) for e in entries]
    if not any(scalars) or not any(map(_is_array_index, entries)):
        return indexing.getitem(node, tuple(entries), upload=True)
    basic = tuple(slice(None) if _is_array_index(e) else e for e in entries)
    rest = tuple(e if _is_array_index(e) or e is Ellipsis else slice(None)
                 for e, s in zip(entries, scalars, strict=True) if not s)
    return indexing.getitem(indexing.getitem(node, basic, upload=True), rest, upload=True)


def _method(fn):
    """``fn`` as a method (whatever callable ``fn`` is: no binding rules)."""
    return lambda self, *args, **kwargs: fn(self, *args, **kwargs)


def _reshape(namespace: dict):
    def reshape(self, *newshape, **kwargs):
        shape = newshape[0] if len(newshape) == 1 and not isinstance(newshape[0], int) \
            else newshape
        return namespace["reshape"](self, shape, **kwargs)

    return reshape


def _astype(self, dtype, name=None):
    from lazytensor.tf.numpy import _lower
    from lazytensor.tf.numpy._lower import lowered

    try:
        target = _tf.as_np_dtype(dtype)
    except _tf.NonNumeric:  # tf.Tensor.astype's (numpy behaviour) result or error
        tensor = self.__tf_tensor__()
        if not hasattr(tensor, "astype"):
            raise
        _lower.note_fallback("tnp.ndarray.astype", "to a non-numeric dtype runs eagerly")
        return tensor.astype(dtype)
    return lowered("astype", lambda: lift(self, target))()


# method -> tnp function (tf.Tensor's numpy-behaviour methods)
METHODS = {
    "transpose": "transpose", "flatten": "flatten", "ravel": "ravel", "clip": "clip",
    "max": "amax", "min": "amin", "mean": "mean",
}


def install(namespace: dict) -> None:
    """Attach the operator and method tables to ``ndarray``; ``namespace``
    holds the lazy tnp functions by name."""
    for op, name in BINARY_OPERATORS.items():
        setattr(ndarray, f"__{op}__", _operator(namespace[name], op))
        setattr(ndarray, f"__r{op}__", _operator(namespace[name], op, reflected=True))
    for op, name in COMPARISONS.items():
        setattr(ndarray, f"__{op}__", _operator(namespace[name], op))
    for dunder, name in UNARY_OPERATORS.items():
        setattr(ndarray, dunder, _method(namespace[name]))
    for method, name in METHODS.items():
        setattr(ndarray, method, _method(namespace[name]))
    ndarray.reshape = _reshape(namespace)
    ndarray.astype = _astype
    ndarray.__getitem__ = _getitem
    ndarray.T = property(namespace["transpose"])


__all__ = ["Node", "install", "wrap"]
