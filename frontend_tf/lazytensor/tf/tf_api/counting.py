"""Counting ops on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``): ``tf.math.bincount``, ``tf.math.confusion_matrix``,
``tf.histogram_fixed_width`` (and ``_bins``) and ``tf.sequence_mask``; the bins are the
core's (``composite.sets.counting``).

An output size that depends on the data (bincount's largest value + 1
without a bounding ``minlength`` >= ``maxlength``, a confusion matrix
without ``num_classes``, a sequence mask without ``maxlen``) is read back
first (a barrier), as ``tf.where(cond)`` is; bincount checks for negative
values in the same read, as TensorFlow's kernel does. Values a lazy graph
cannot reject (a negative bincount value with a known size, lazy labels
outside ``num_classes``) are dropped, as TensorFlow's GPU kernels drop them;
labels the host knows are checked as the CPU kernels check them.
"""

from __future__ import annotations

import math

import numpy as np
from lazytensor.core import data_lengths
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import convert, full
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce import reduction
from lazytensor.core.composite.sets import counting
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, make
from lazytensor.tf import _tf
from lazytensor.tf._array import ndarray
from lazytensor.tf.tf_api import array_ops
from lazytensor.tf.tf_api._dispatch import dtype_arg, host_int, natural_dtype, tensor

_COUNTED = (dt.int32, dt.int64, dt.float32, dt.float64)  # the kernels' type lists


def _invalid(message: str):
    return _tf.tf().errors.InvalidArgumentError(None, None, message)


def _checked(node: Node, op: str) -> Node:
    if node.dtype not in _COUNTED:
        raise DTypeError(f"Value for attr 'T' of {node.dtype.name} is not in the list of "
                         f"allowed values: int32, int64, float, double [Op:{op}]")
    return node


def _bincount(arr, weights=None, minlength=None, maxlength=None, dtype=None, name=None,
              axis=None, binary_output=False):
    x = tensor(arr)
    w = None if weights is None else tensor(weights)
    if w is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    x = x if dt.is_int(x.dtype) else convert(x, dt.int32)
    axis = 0 if axis is None else host_int(axis)
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    if axis == -1 and x.ndim > 2:
        raise _invalid(f"Shape must be at most rank 2 but is rank {x.ndim}")
    lo, hi = host_int(minlength), host_int(maxlength)
    size, low = data_lengths.bincount_length(x, lo or 0, hi)
    if low < 0:
        raise _invalid("Input arr must be non-negative!")
    x = tensor(arr)  # after a barrier (see ``data_lengths``)
    x = x if dt.is_int(x.dtype) else convert(x, dt.int32)
    w = None if weights is None else tensor(weights)
    if w is not None and w.shape != x.shape:
        raise _invalid("`weights` must be the same shape as `arr` or a length-0 `Tensor`, in "
                       "which case it acts as though all weights are equal to 1.")
    out = _checked(w, "DenseBincount").dtype if w is not None else (dtype_arg(dtype) or dt.int32)
    counts = counting.bincount(x, max(size, 0), w, axis == -1 and x.ndim == 2,
                                        bool(binary_output))
    return convert(counts, out)


def _squeezed(labels: Node, predictions: Node) -> tuple[Node, Node]:
    """TensorFlow's ``remove_squeezable_dimensions``: a trailing 1 that one
    has over the other goes."""
    if predictions.ndim == labels.ndim + 1 and predictions.shape[-1] == 1:
        predictions = cs.squeeze(predictions, (predictions.ndim - 1,))
    elif labels.ndim == predictions.ndim + 1 and labels.shape[-1] == 1:
        labels = cs.squeeze(labels, (labels.ndim - 1,))
    return labels, predictions


def _confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=None,
                      name=None):
    a, b = _squeezed(tensor(labels), tensor(predictions))
    if a.ndim != 1 or a.shape != b.shape:
        raise NotImplementedError("confusion_matrix of these shapes")  # TF's own error
    out = dtype_arg(dtype) or dt.int32
    if num_classes is None:
        if not math.prod(a.shape):
            raise NotImplementedError("an empty confusion matrix")
        tops = data_lengths.read_ints(reduction.reduce("max", convert(a, dt.int64)),
                     reduction.reduce("max", convert(b, dt.int64)))
        num_classes = int(tops.max()) + 1
        a, b = _squeezed(tensor(labels), tensor(predictions))  # after the barrier (data_lengths)
    n = host_int(num_classes)
    for arg, given in (("labels", labels), ("predictions", predictions)):
        host = array_ops.host_indices(given)  # known on the host: checked as TensorFlow's
        if host is not None and host.size and host.min() < 0:
            raise _invalid(f"`{arg}` contains negative values")
        if host is not None and host.size and host.max() >= n:
            raise _invalid(f"`{arg}` out of bound")
    w = None if weights is None else convert(tensor(weights), out)
    return convert(counting.confusion_matrix(a, b, n, w), out)


def _histogram_fixed_width(values, value_range, nbins=100, dtype=None, name=None):
    v = _checked(tensor(values), "HistogramFixedWidth")
    r = tensor(value_range, v.dtype)
    if r.dtype != v.dtype or r.shape != (2,):
        raise DTypeError(f"value_range must be a {v.dtype.name} vector of 2 values, got "
                         f"{r.dtype.name} {r.shape}")
    n = host_int(nbins)
    if n <= 0:
        raise _invalid(f"nbins should be a positive number, but got '{n}'")
    if not isinstance(value_range, ndarray):  # known on the host: checked as TensorFlow's
        first, last = np.asarray(_tf.host_value(value_range))
        if not first < last:
            raise _invalid(f"value_range should satisfy value_range[0] < value_range[1], "
                           f"but got '[{first} {last}]'")
    lo, hi = (cs.reshape(cs.slice_axis(r, 0, i, i + 1), ()) for i in (0, 1))
    bins = counting.fixed_width_bins(cs.reshape(v, (-1,)), lo, hi, n)
    return convert(counting.bincount(bins, n), dtype_arg(dtype) or dt.int32)


def _histogram_fixed_width_bins(values, value_range, nbins=100, dtype=None, name=None):
    """TensorFlow's Python composition, op for op: floor(nbins * (x - lo) /
    (hi - lo)) clipped to [0, nbins - 1], int32 whatever ``dtype`` says (as
    TensorFlow's), x's shape. Values that are not float, or a range of
    another dtype, go to TensorFlow (its promotion or error)."""
    v = tensor(values)
    r = tensor(value_range, v.dtype)
    n = host_int(nbins)
    if not dt.is_float(v.dtype) or r.dtype != v.dtype or r.shape != (2,) or n <= 0:
        raise NotImplementedError("histogram_fixed_width_bins of these arguments")
    lo, hi = (cs.broadcast_to(cs.reshape(cs.slice_axis(r, 0, i, i + 1), ()), v.shape)
              for i in (0, 1))
    scaled = make(Op.DIV, (make(Op.SUB, (v, lo)), make(Op.SUB, (hi, lo))))
    index = make(Op.FLOOR, (make(Op.MUL, (full(v.shape, n, v.dtype), scaled)),))
    clipped = make(Op.MAX, (make(Op.MIN, (index, full(v.shape, n - 1, v.dtype))),
                            full(v.shape, 0, v.dtype)))  # clip_by_value's order
    return convert(clipped, dt.int32)


def _sequence_mask(lengths, maxlen=None, dtype=None, name=None):
    n = tensor(lengths)
    if maxlen is None:
        if not dt.is_int(n.dtype) or not math.prod(n.shape):
            raise NotImplementedError("sequence_mask's float or empty lengths")
        m, kind = int(data_lengths.read_ints(reduction.reduce("max", n))[0]), n.dtype
        n = tensor(lengths)  # after the barrier (see data_lengths)
    else:
        m, kind = host_int(maxlen), natural_dtype(maxlen)
        if not isinstance(m, int):
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received "
                             f"`maxlen` = {maxlen} with shape '{(len(m),)}' instead")
    if m < 0:
        raise _invalid(f"Requires start <= limit when delta > 0: 0/{m}")
    mask = counting.sequence_mask(convert(n, kind), m)
    out = dtype_arg(dtype) or dt.bool_
    return mask if out == dt.bool_ else convert(mask, out)


APIS = {
    "math.bincount": _bincount,
    "math.confusion_matrix": _confusion_matrix,
    "histogram_fixed_width": _histogram_fixed_width,
    "histogram_fixed_width_bins": _histogram_fixed_width_bins,
    "sequence_mask": _sequence_mask,
}

__all__ = ["APIS"]
