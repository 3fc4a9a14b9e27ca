"""Reductions with numpy-style axis arguments and keepdims, and the
statistics composites (mean, var, std, logsumexp, softmax, log_softmax).

Axes are normalized here once (``normalize_axes``) for every frontend. The
result dtype of sum/prod/mean is the caller's choice (frameworks differ:
numpy sums int32 as int64, torch as int64, mean of ints is an error in
torch): callers pass ``dtype``.
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import arithmetic, ordering, predicates
from lazytensor.core.composite.elementwise.apply import (
    as_node,
    broadcast_shapes,
    broadcast_to,
    convert,
    full,
)
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.composite.reduce import folds
from lazytensor.core.composite.reduce.axes import (
    keep_dims,
    normalize_axes,
    normalize_axis,
)
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make

_REDUCERS = {
    "sum": Op.REDUCE_SUM, "prod": Op.REDUCE_PROD, "max": Op.REDUCE_MAX,
    "min": Op.REDUCE_MIN, "all": Op.REDUCE_AND, "any": Op.REDUCE_OR,
}
# reductions of ops without a reduce primitive (``folds``: a tree of the op)
FOLDS = frozenset(folds.COMBINE)


def reduce(kind: str, x: Node, axis=None, keepdims: bool = False,
           dtype: np.dtype | None = None) -> Node:
    """sum/prod/max/min/all/any/logsumexp over ``axis`` (numpy argument
    conventions; logsumexp is numpy's logaddexp.reduce), or one of ``FOLDS``
    (bitwise_and/or/xor, logical_xor).

    ``dtype`` is the accumulation and result dtype (default: x's dtype;
    all/any always give bool). max/min of an empty axis raise ValueError.
    """
    axes = normalize_axes(axis, x.ndim)
    if kind == "logsumexp":
        return logsumexp(x if dtype is None else convert(x, dtype), axes, keepdims)
    if kind in FOLDS:
        return folds.fold(kind, x if dtype is None else convert(x, dtype), axes, keepdims)
    if kind in ("all", "any"):
        x = convert(x, dt.bool_) if x.dtype != dt.bool_ else x
    elif dtype is not None:
        x = convert(x, dtype)
    if kind in ("max", "min") and any(x.shape[a] == 0 for a in axes):
        raise ValueError(
            f"zero-size array to reduction operation {'maximum' if kind == 'max' else 'minimum'}"
            " which has no identity"
        )
    out = make(_REDUCERS[kind], (x,), axes)
    return keep_dims(out, x.shape, axes) if keepdims else out


def reduce_or_identity(kind: str, x: Node, axis=None, keepdims: bool = False) -> Node:
    """max/min that give the reduction's identity over an empty axis (the
    dtype's lowest value for max, its highest for min: -inf/+inf for floats,
    False/True for bools), as TensorFlow's reduce_max/reduce_min do, where
    :func:`reduce` raises as numpy does.

    >>> from lazytensor.core.leaves import constant
    >>> reduce_or_identity("max", constant(np.zeros((2, 0)), dt.float32), 1).shape
    (2,)
    """
    axes = normalize_axes(axis, x.ndim)
    out = make(_REDUCERS[kind], (x,), axes)
    return keep_dims(out, x.shape, axes) if keepdims else out


_COMBINE = {
    "sum": arithmetic.add_or, "prod": arithmetic.mul_and, "max": ordering.maximum,
    "min": ordering.minimum, "all": predicates.logical(Op.AND),
    "any": predicates.logical(Op.OR), "logsumexp": arithmetic.logaddexp,
}


def reduce_where(kind: str, x: Node, axis=None, keepdims: bool = False,
                 where: Node | None = None, initial=None) -> Node:
    """``reduce`` with numpy's ufunc.reduce ``where=`` and ``initial=``:
    elements where the bool ``where`` (broadcast to x) is False count as
    the identity of ``kind``; ``initial`` (a scalar) joins every reduction
    and is the answer of an empty max/min (which then does not raise).
    max/min with ``where`` need ``initial`` (they have no identity).

    Shape rule: x reduced over ``axis`` (kept as size 1 with keepdims),
    x's dtype (bool for all/any).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.zeros((0, 3)), np.dtype("float32"))
    >>> reduce_where("max", x, 0, initial=-1.0).shape
    (3,)
    """
    axes = normalize_axes(axis, x.ndim)
    extremum = kind in ("max", "min")
    if where is not None:
        if initial is None and extremum:
            name = "maximum" if kind == "max" else "minimum"
            raise ShapeError(f"reduction operation '{name}' does not have an identity, so to "
                             "use a where mask one has to specify 'initial'")
        fill = as_node(folds.identity_of(x.dtype, kind), x.dtype, x.shape)
        x = make(Op.SELECT, (as_node(where, dt.bool_, x.shape), x, fill))
    if initial is not None and extremum and any(x.shape[a] == 0 for a in axes):
        kept = tuple(1 if a in axes else s for a, s in enumerate(x.shape))
        out = as_node(initial, x.dtype, kept)
        return out if keepdims else make(Op.RESHAPE, (out,), tuple(
            s for a, s in enumerate(x.shape) if a not in axes))
    out = reduce(kind, x, axes, keepdims)
    if initial is None:
        return out
    if kind in FOLDS:
        combine = folds.COMBINE
    else:
        combine = _COMBINE
    return combine[kind](out, as_node(initial, out.dtype, out.shape))


def array_equal(a: Node, b: Node, equal_nan: bool = False) -> Node:
    """Whether ``a`` and ``b`` (one dtype) have one shape and equal elements
    (numpy's and tnp's array_equal, torch.equal): a 0-d bool, False for
    different shapes; ``equal_nan`` counts NaN as equal to NaN.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([1.0, np.nan]), np.dtype("float64"))
    >>> array_equal(x, x, equal_nan=True).shape
    ()
    """
    if a.shape != b.shape:
        return as_node(False, dt.bool_, ())
    same = make(Op.EQ, (a, b))
    if equal_nan:
        same = make(Op.OR, (same, make(Op.AND, (predicates.isnan(a), predicates.isnan(b)))))
    return reduce("all", same)


def array_equiv(a: Node, b: Node) -> Node:
    """Whether ``a`` and ``b`` (one dtype) broadcast together and are equal
    where they do (numpy.array_equiv): a 0-d bool.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.ones((2, 3)), np.dtype("float64"))
    >>> array_equiv(x, constant(np.ones(3), np.dtype("float64"))).shape
    ()
    """
    try:
        shape = broadcast_shapes(a.shape, b.shape)
    except ShapeError:
        return as_node(False, dt.bool_, ())
    return reduce("all", make(Op.EQ, (broadcast_to(a, shape), broadcast_to(b, shape))))


def count(x: Node, axes: tuple[int, ...]) -> int:
    n = 1
    for a in axes:
        n *= x.shape[a]
    return n


def mean(x: Node, axis=None, keepdims: bool = False, dtype: np.dtype | None = None) -> Node:
    """sum / count in ``dtype`` (default: x's dtype, which must be inexact)."""
    dtype = dtype or x.dtype
    axes = normalize_axes(axis, x.ndim)
    total = reduce("sum", convert(x, dtype), axes, keepdims)
    return make(Op.DIV, (total, as_node(float(count(x, axes)) if dt.is_inexact(dtype)
                                         else count(x, axes), dtype, total.shape)))


def var(x: Node, axis=None, keepdims: bool = False, ddof: int | float = 0,
        dtype: np.dtype | None = None, center: Node | None = None) -> Node:
    """Variance: mean(|x - mean(x)|^2) * n / (n - ddof). ``center``, when the
    caller has it (numpy's ``mean=``), is the mean to subtract, in the shape
    of a keepdims reduction."""
    dtype = dtype or x.dtype
    axes = normalize_axes(axis, x.ndim)
    x = convert(x, dtype)
    mu = mean(x, axes, keepdims=True) if center is None else convert(center, dtype)
    centered = make(Op.SUB, (x, broadcast_to(mu, x.shape)))
    if dt.is_complex(dtype):
        real = make(Op.REAL, (centered,))
        imag = make(Op.IMAG, (centered,))
        squared = make(Op.ADD, (make(Op.MUL, (real, real)), make(Op.MUL, (imag, imag))))
    else:
        squared = make(Op.MUL, (centered, centered))
    total = reduce("sum", squared, axes, keepdims)
    divisor = max(count(x, axes) - ddof, 0)
    return make(Op.DIV, (total, as_node(float(divisor), total.dtype, total.shape)))


def std(x: Node, axis=None, keepdims: bool = False, ddof: int | float = 0,
        dtype: np.dtype | None = None) -> Node:
    return make(Op.SQRT, (var(x, axis, keepdims, ddof, dtype),))


def logsumexp(x: Node, axis=None, keepdims: bool = False) -> Node:
    """log(sum(exp(x))) computed stably (max-shifted; -inf rows stay -inf);
    over an empty axis log(0) = -inf, as torch and tf give. Complex x
    (torch's): shifted by the largest real part (0 where infinite)."""
    axes = normalize_axes(axis, x.ndim)
    if any(x.shape[a] == 0 for a in axes):
        kept = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
        out_shape = kept if keepdims else tuple(
            s for i, s in enumerate(x.shape) if i not in axes)
        return as_node(-np.inf, x.dtype, out_shape)
    if dt.is_complex(x.dtype):
        return _complex_logsumexp(x, axes, keepdims)
    peak = reduce("max", x, axes, keepdims=True)
    finite = make(Op.IS_FINITE, (peak,))
    peak = make(Op.SELECT, (finite, peak, as_node(0.0, x.dtype, peak.shape)))
    shifted = make(Op.EXP, (make(Op.SUB, (x, broadcast_to(peak, x.shape))),))
    total = make(Op.LOG, (reduce("sum", shifted, axes, keepdims=True),))
    out = make(Op.ADD, (total, peak))
    return out if keepdims else make(Op.RESHAPE, (out,), tuple(
        s for i, s in enumerate(x.shape) if i not in axes))


def _complex_logsumexp(x: Node, axes: tuple[int, ...], keepdims: bool) -> Node:
    m = reduce("max", make(Op.REAL, (x,)), axes, True)
    inf = make(Op.EQ, (make(Op.ABS, (m,)), as_node(np.inf, m.dtype, m.shape)))
    m = convert(make(Op.SELECT, (inf, as_node(0.0, m.dtype, m.shape), m)), x.dtype)
    total = reduce("sum", make(Op.EXP, (make(Op.SUB, (x, broadcast_to(m, x.shape))),)), axes, True)
    out = make(Op.ADD, (make(Op.LOG, (total,)), m))
    return out if keepdims else reduce("sum", out, axes, False)  # (drops the size-1 axes)


def log_softmax(x: Node, axis: int) -> Node:
    """(x - max) - log(sum(exp(x - max))): subtracting the max first keeps
    rows of huge magnitude (logits masked with -1e9) exact, where
    x - logsumexp(x) would round the log-sum away."""
    axis = normalize_axis(axis, x.ndim)
    peak = reduce("max", x, (axis,), keepdims=True)
    finite = make(Op.IS_FINITE, (peak,))
    peak = make(Op.SELECT, (finite, peak, as_node(0.0, x.dtype, peak.shape)))
    shifted = make(Op.SUB, (x, broadcast_to(peak, x.shape)))
    total = make(Op.LOG, (reduce("sum", make(Op.EXP, (shifted,)), (axis,), keepdims=True),))
    return make(Op.SUB, (shifted, broadcast_to(total, x.shape)))


def softmax(x: Node, axis: int) -> Node:
    axis = normalize_axis(axis, x.ndim)
    peak = reduce("max", x, axis, keepdims=True)
    e = make(Op.EXP, (make(Op.SUB, (x, broadcast_to(peak, x.shape))),))
    return make(Op.DIV, (e, broadcast_to(reduce("sum", e, axis, keepdims=True), x.shape)))


def argreduce(kind: str, x: Node, axis: int | None, keepdims: bool = False,
              index_dtype: np.dtype = dt.int64) -> Node:
    """argmax/argmin; ``axis=None`` searches the flattened array."""
    if axis is None:
        flat = make(Op.RESHAPE, (x,), (int(np.prod(x.shape)),))
        out = make(Op.ARGMAX if kind == "argmax" else Op.ARGMIN, (flat,), 0, index_dtype)
        return make(Op.RESHAPE, (out,), (1,) * x.ndim) if keepdims else out
    axis = normalize_axis(axis, x.ndim)
    out = make(Op.ARGMAX if kind == "argmax" else Op.ARGMIN, (x,), axis, index_dtype)
    return keep_dims(out, x.shape, (axis,)) if keepdims else out


def masked_mean(x: Node, mask: Node, axis=None, keepdims: bool = False) -> Node:
    """The mean of the elements of ``x`` where the bool ``mask`` (x's shape)
    holds (numpy's ``mean(where=)``, ``nanmean``; torch's masked mean): a
    sum of the selected values over their count, in x's (inexact) dtype.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.ones((2, 3)), np.dtype("float32"))
    >>> masked_mean(x, constant(np.eye(2, 3, dtype=bool), dt.bool_), 1).shape
    (2,)
    """
    axes = normalize_axes(axis, x.ndim)
    total = reduce("sum", make(Op.SELECT, (mask, x, as_node(0, x.dtype, x.shape))), axes,
                   keepdims)
    return make(Op.DIV, (total, reduce("sum", convert(mask, x.dtype), axes, keepdims)))


def masked_var(x: Node, mask: Node, axis=None, keepdims: bool = False,
               ddof: int | float = 0, center: Node | None = None,
               no_dof: float | None = None) -> Node:
    """The variance of the elements of ``x`` where ``mask`` holds: the masked
    sum of |x - masked mean|^2 over max(count - ddof, 0), as numpy's var (a
    slice of count <= ddof gives inf, or NaN for 0 / 0), or ``no_dof`` there
    where given (nanvar's NaN); real for complex x. ``center``, as ``var``'s,
    is a mean the caller already has."""
    axes = normalize_axes(axis, x.ndim)
    mu = masked_mean(x, mask, axes, True) if center is None else convert(center, x.dtype)
    diff = make(Op.SUB, (x, broadcast_to(mu, x.shape)))
    sq = make(Op.MUL, (diff, make(Op.CONJ, (diff,)) if dt.is_complex(x.dtype) else diff))
    sq = convert(sq, dt.real_dtype(x.dtype))
    total = reduce("sum", make(Op.SELECT, (mask, sq, as_node(0, sq.dtype, sq.shape))), axes,
                   keepdims)
    count = reduce("sum", convert(mask, total.dtype), axes, keepdims)
    dof = make(Op.MAX, (make(Op.SUB, (count, as_node(ddof, count.dtype, count.shape))),
                        as_node(0, count.dtype, count.shape)))
    variance = make(Op.DIV, (total, dof))
    if no_dof is None:
        return variance
    none_left = make(Op.LE, (dof, as_node(0, dof.dtype, dof.shape)))
    return make(Op.SELECT, (none_left, as_node(no_dof, variance.dtype, variance.shape), variance))


# ------------------------------------------- NaN-ignoring and weighted

def nan_to(x: Node, value) -> Node:
    """x with its NaNs replaced by ``value`` (non-floats unchanged)."""
    if not dt.is_inexact(x.dtype):
        return x
    return make(Op.SELECT, (predicates.isnan(x), full(x.shape, value, x.dtype), x))


def ptp(x: Node, axis=None, keepdims: bool = False, identity_if_empty: bool = False) -> Node:
    """max - min over ``axis``; an empty axis raises (numpy), or, with
    ``identity_if_empty``, subtracts the identities (TensorFlow: -inf)."""
    extreme = reduce_or_identity if identity_if_empty else reduce
    return make(Op.SUB, (extreme("max", x, axis, keepdims), extreme("min", x, axis, keepdims)))


def count_nonzero(x: Node, axis=None, keepdims: bool = False) -> Node:
    """Number of nonzero (truthy) elements, int64."""
    return reduce("sum", convert(predicates.truthy(x), dt.int64), axis, keepdims)


def average(x: Node, axis: int | None = None, weights: Node | None = None,
            keepdims: bool = False) -> tuple[Node, Node]:
    """numpy.average as ``(average, sum of weights)``; x and weights share a
    floating dtype; 1-d weights pair with ``axis`` of x, as in numpy."""
    if weights is None:
        summed = reduce("sum", x, axis, keepdims)
        total = full(summed.shape, float(count(x, normalize_axes(axis, x.ndim))), x.dtype)
        return make(Op.DIV, (summed, total)), total
    if weights.shape != x.shape:
        if axis is None or weights.ndim != 1:
            raise ShapeError("Axis must be specified when shapes of a and weights differ.")
        n = normalize_axis(axis, x.ndim)
        weights = broadcast_to(reshape(weights, tuple(
            weights.shape[0] if d == n else 1 for d in range(x.ndim))), x.shape)
    total = reduce("sum", weights, axis, keepdims)
    avg = make(Op.DIV, (reduce("sum", make(Op.MUL, (x, weights)), axis, keepdims), total))
    return avg, total
