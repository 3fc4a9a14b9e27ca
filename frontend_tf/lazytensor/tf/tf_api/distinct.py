"""Distinct values and index grids on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``): ``tf.unique``, ``tf.unique_with_counts``,
``tf.unravel_index`` and ``tf.meshgrid``.

``tf.unique`` lists x's distinct values in the order they first occur
(not sorted): the core groups equal values (``composite.sets.distinct``), one
barrier reads how many groups there are (the result length), and the
values, the index of each element's value (``out_idx``, int32 or int64)
and the counts are computed on the device, reordered by first occurrence.
NaN never equals NaN (each is a value of its own), -0.0 equals 0.0 (the
first one seen is kept), as TensorFlow's kernel compares.

``tf.unravel_index(indices, dims)``: coordinates stacked along a new first
axis, (len(dims), *indices.shape), the indices' dtype (int32/int64), with
the kernel's truncating division (a negative index gives its values).
Lazy indices are not checked against prod(dims) (a recorded op cannot
raise; an index past the end wraps, as lazy tf.gather's indices go
unchecked). ``dims`` must be known on the host (lazy dims run eagerly,
counted).
"""

from __future__ import annotations

import collections

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import full, meshgrid
from lazytensor.core.composite.elementwise.apply import convert
from lazytensor.core.composite.elementwise.promotion import TNP, result_type
from lazytensor.core.composite.indexing.take import take
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce.numerics import unravel_index
from lazytensor.core.composite.sets import distinct as D
from lazytensor.core.ir import Node
from lazytensor.tf import _tf
from lazytensor.tf._array import ndarray, wrap
from lazytensor.tf.tf_api import array_ops
from lazytensor.tf.tf_api._dispatch import dtype_arg, tensor

_INDEX = (dt.int32, dt.int64)
Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _invalid(message: str):
    return _tf.tf().errors.InvalidArgumentError(None, None, message)


def _grouped(x: Node) -> tuple[D.Groups, int]:
    """x's groups (sorted, so equal values are one group) and their number:
    one read. The parts are held as live arrays across the barrier."""
    g = D.groups(x, sort=True)
    held = [wrap(p) for p in (g.rows, g.starts, g.ids, g.order)]
    k = int(wrap(D.group_count(g)).numpy())
    rows, starts, ids, order = (h._node() for h in held)
    return D.Groups(rows, order, starts, ids), k


def _unique(x, out_idx, with_counts: bool) -> tuple[Node, ...]:
    """(y, idx[, count]): x's values by first occurrence, each element's
    value index, and how often each value occurs (all out_idx)."""
    n = tensor(x)
    index = dtype_arg(out_idx) or dt.int32
    if n.ndim != 1:
        raise _invalid(f"unique expects a 1D vector. [Op:Unique{'WithCounts' * with_counts}]")
    if index not in _INDEX or dt.is_complex(n.dtype):
        raise NotImplementedError("unique of this dtype")  # TensorFlow's result or error
    if not n.shape[0]:
        empty = full((0,), 0, index)
        return UniqueWithCounts(n, empty, empty) if with_counts else Unique(n, empty)
    g, k = _grouped(n)
    order = D.first_seen(g, k)
    y = take(D.firsts(g, k), order, axis=0)
    idx = convert(D.renumber(order, D.inverse(g)), index)
    if not with_counts:
        return Unique(y, idx)
    return UniqueWithCounts(y, idx, convert(take(D.counts(g, k), order, axis=0), index))


def _unique_api(x, out_idx=None, name=None):
    return _unique(x, out_idx, False)


def _unique_with_counts_api(x, out_idx=None, name=None):
    return _unique(x, out_idx, True)


def _host_dims(dims) -> np.ndarray:
    """``dims`` known on the host (lazy ones go to TensorFlow)."""
    host = None if isinstance(dims, ndarray) else array_ops.host_indices(dims)
    if host is None:
        raise NotImplementedError("unravel_index with lazy or non-integer dims")
    return host


def _unravel_index(indices, dims, name=None):
    """(len(dims), *indices.shape), indices' dtype; see the module doc."""
    x, shape = tensor(indices), _host_dims(dims)
    d = tensor(dims, x.dtype)
    if x.dtype not in _INDEX or x.dtype != d.dtype:
        raise NotImplementedError("unravel_index of these dtypes")  # TensorFlow's error
    if x.ndim > 1 or shape.ndim != 1:
        what = ("indices can only be scalar or vector", x.shape) if x.ndim > 1 else \
            ("dims can only be 1-D", shape.shape)
        raise _invalid(f'The {what[0]}, got "[{",".join(map(str, what[1]))}]" '
                       "[Op:UnravelIndex]")
    if (shape == 0).any():
        raise _invalid("Input dims cannot contain a dim of zero, but dims contains zero at "
                       f"index {int(np.argmax(shape == 0))} [Op:UnravelIndex]")
    coords = unravel_index(convert(x, dt.int64), [int(s) for s in shape])
    return convert(cs.stack(coords, 0), x.dtype)


def _meshgrid(*args, **kwargs):
    """TensorFlow's meshgrid: each input flattened, grid i is x_i times ones
    of the first input's dtype (TensorFlow's Mul: differing dtypes are an
    error, or promote with numpy behaviour)."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this "
                        "function")
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    nodes = [tensor(x) for x in args]
    if not nodes:
        return []
    first = nodes[0].dtype
    if any(n.dtype != first for n in nodes):
        if not _tf.numpy_behavior():
            raise NotImplementedError("meshgrid of mixed dtypes")  # TensorFlow's error
        nodes = [convert(n, result_type(TNP, n.dtype, first)) for n in nodes]
    return meshgrid(*(cs.reshape(n, (-1,)) for n in nodes), indexing=indexing)


APIS = {
    "unique": _unique_api,
    "unique_with_counts": _unique_with_counts_api,
    "unravel_index": _unravel_index,
    "meshgrid": _meshgrid,
}

__all__ = ["APIS"]
