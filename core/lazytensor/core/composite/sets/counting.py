"""Counting into bins of a known size: bincount that drops values outside
[0, length) (optionally per row), confusion matrices, fixed-width
histograms that clamp into the end bins, and sequence masks. The caller
knows each output size (a size that depends on the data is the frontend's
to read back); values a lazy graph cannot reject (negative counts, labels
out of range) are dropped, never counted into another bin. ``index_bound``
tells a frontend when a lazy vector of positions (an argmin, top-k
indices) cannot reach a length it was asked for, so that bincount's
data-dependent length is known without reading the data.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.array([0, 2, 2, 7]), np.dtype("int64"))
>>> bincount(x, 3).shape
(3,)
>>> sequence_mask(x, 4).shape
(4, 4)
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import iota
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing import subscript as ci
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.ir import Node
from lazytensor.core.ops import ARG_REDUCE, Op
from lazytensor.core.registry import make


def _full(value, like: Node) -> Node:
    return ew.full(like.shape, value, like.dtype)


_SAME_VALUES = frozenset({Op.RESHAPE, Op.TRANSPOSE, Op.SLICE, Op.BROADCAST_IN_DIM, Op.REV})


def index_bound(x: Node) -> int | None:
    """n when every value of the integer node ``x`` is a position along an
    axis of size n, so lies in [0, n): argmax/argmin, argsort and top-k
    indices, iota, and reshapes, transposes, slices, broadcasts and integer
    casts of them; None when nothing is known.

    >>> import numpy as np
    >>> from lazytensor.core.composite.reduce.reduction import argreduce
    >>> from lazytensor.core.leaves import constant
    >>> d = constant(np.zeros((6, 5)), np.dtype("float32"))
    >>> index_bound(argreduce("argmin", d, 1)), index_bound(d)
    (5, None)
    """
    op = x.op
    if op in ARG_REDUCE:
        return x.operands[0].shape[x.attrs[0]]
    if op is Op.ARGSORT:
        return x.shape[x.attrs[0]]
    if op is Op.IOTA:
        return x.shape[x.attrs[2]]
    if op is Op.TUPLE_GET and x.attrs[0] == 1 and x.operands[0].op is Op.TOP_K:
        return x.operands[0].operands[0].shape[-1]
    if op in _SAME_VALUES:
        return index_bound(x.operands[0])
    if op is Op.CONVERT and dt.is_int(x.dtype) and dt.is_int(x.operands[0].dtype):
        bound = index_bound(x.operands[0])
        return bound if bound is not None and bound - 1 <= np.iinfo(x.dtype).max else None
    return None


def bincount(x: Node, length: int, weights: Node | None = None,
             per_row: bool = False, binary: bool = False) -> Node:
    """Counts (int64), or summed ``weights`` (x's shape), of the integer
    values of ``x`` in [0, length); other values are dropped. ``per_row``:
    ``x`` is 2-d and each row is counted apart, shape (rows, length);
    else x is flattened, shape (length,). ``binary``: 1 where a value
    occurs (in the counts' dtype).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([[0, 3], [1, 1]]), np.dtype("int32"))
    >>> bincount(x, 2, per_row=True).shape
    (2, 2)
    """
    v = ew.convert(x, dt.int64)
    inside = make(Op.AND, (make(Op.GE, (v, _full(0, v))), make(Op.LT, (v, _full(length, v)))))
    spare = length + 1  # out-of-range values land in a last bin, cut off below
    idx = make(Op.SELECT, (inside, v, _full(length, v)))
    rows = v.shape[0] if per_row else 1
    if per_row:
        idx = make(Op.ADD, (idx, make(Op.MUL, (iota(v.shape, 0, dt.int64), _full(spare, v)))))
    w = None if weights is None else cs.reshape(weights, (-1,))
    counts = cs.reshape(_scatter_add(cs.reshape(idx, (-1,)), rows * spare, w), (rows, spare))
    counts = cs.slice_axis(counts, 1, 0, length)
    if binary:
        counts = ew.convert(make(Op.NE, (counts, _full(0, counts))), counts.dtype)
    return counts if per_row else cs.reshape(counts, (length,))


def _scatter_add(x: Node, length: int, weights: Node | None) -> Node:
    """Counts (int64), or summed ``weights``, of each value of the 1-d
    ``x`` (in [0, length)) in a ``length`` vector."""
    w = ew.full(x.shape, 1, dt.int64) if weights is None else weights
    zeros = ew.full((length,), 0, w.dtype)
    return ci.setitem(zeros, (ew.convert(x, dt.int64),), w, kind="add")


def confusion_matrix(labels: Node, predictions: Node, n: int,
                     weights: Node | None = None) -> Node:
    """The (n, n) matrix whose [i, j] counts (int64) or sums ``weights`` of
    the pairs with label i and prediction j (1-d, one length); pairs with
    a value outside [0, n) are dropped.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> y = constant(np.array([0, 2, 1]), np.dtype("int64"))
    >>> confusion_matrix(y, y, 3).shape
    (3, 3)
    """
    a, b = ew.convert(labels, dt.int64), ew.convert(predictions, dt.int64)
    ok = [make(Op.AND, (make(Op.GE, (v, _full(0, v))), make(Op.LT, (v, _full(n, v)))))
          for v in (a, b)]
    pair = make(Op.ADD, (make(Op.MUL, (a, _full(n, a))), b))
    pair = make(Op.SELECT, (make(Op.AND, tuple(ok)), pair, _full(-1, pair)))
    return cs.reshape(bincount(pair, n * n, weights), (n, n))


def fixed_width_bins(values: Node, lo: Node, hi: Node, nbins: int) -> Node:
    """The bin (int64) of each value among ``nbins`` equal bins over the
    0-d range [lo, hi] (values' dtype), as TensorFlow's
    HistogramFixedWidth: (max(x, lo) - lo) / ((hi - lo) / nbins) in
    float64, capped at the last bin and truncated; values below the range
    fall in the first bin, above it in the last.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([-1.0, 0.5, 9.0]), np.dtype("float32"))
    >>> r = constant(np.float32(0), np.dtype("float32"))
    >>> fixed_width_bins(x, r, constant(np.float32(1), np.dtype("float32")), 4).dtype
    dtype('int64')
    """
    f64 = dt.float64
    step = make(Op.DIV, (ew.convert(make(Op.SUB, (hi, lo)), f64), ew.full((), nbins, f64)))
    low = ew.broadcast_to(lo, values.shape)
    offset = ew.convert(make(Op.SUB, (make(Op.MAX, (values, low)), low)), f64)
    pos = make(Op.MIN, (make(Op.DIV, (offset, ew.broadcast_to(step, values.shape))),
                        ew.full(values.shape, nbins - 1, f64)))
    return ew.convert(pos, dt.int64)


def sequence_mask(lengths: Node, maxlen: int) -> Node:
    """lengths.shape + (maxlen,) bools: position j of a row is True where
    j < that row's length (compared in the lengths' dtype).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> sequence_mask(constant(np.array([1, 3]), np.dtype("int32")), 2).dtype
    dtype('bool')
    """
    shape = lengths.shape + (maxlen,)
    row = iota(shape, lengths.ndim, lengths.dtype)
    return make(Op.LT, (row, ew.broadcast_to(cs.expand_dims(lengths, -1), shape)))


__all__ = ["bincount", "index_bound", "confusion_matrix", "fixed_width_bins", "sequence_mask"]
