"""``tf.math``, ``tf.bitwise``, ``tf.cast`` / ``tf.clip_by_*`` and (from
``array_ops``) TensorFlow's top-level array ops on lazy arrays: the table
``APIS`` (see ``lazytensor.tf.tf_api``).

Only TensorFlow's own choices live here: which dtypes an op accepts (its
kernel's type list: ``tf.math.sin`` refuses int32 with InvalidArgumentError),
how its operands are converted (``_dispatch.operands``), TensorFlow's
argument conventions (``axis=None`` of argmax is 0, ``exclusive`` and
``reverse`` cumulative sums, integer ``reduce_mean`` dividing in integers)
and its result dtypes (argsort and shape give int32). The arithmetic is the
core's composites, shared with tnp (``lazytensor.tf.numpy``), whose
node-level helpers (TensorFlow's gradients under a tape, true division)
are reused. These APIs follow TensorFlow's rules in both of tnp's modes:
numpy behaviour changes tf.Tensor's operators, not ``tf.math`` (except
``tf.math.divide``, which is the ``/`` operator).
"""

from __future__ import annotations

import collections.abc
import functools
import math

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.autodiff import stop_gradient
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise import arithmetic as arith
from lazytensor.core.composite.elementwise import division as division
from lazytensor.core.composite.elementwise import formulas as formulas
from lazytensor.core.composite.elementwise import predicates
from lazytensor.core.composite.elementwise.ufuncs import UFUNCS, conj
from lazytensor.core.composite.movement import shape as core_shape
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.core.composite.nn import layers
from lazytensor.core.composite.reduce import accumulate as accumulate
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.reduce import numerics, reduction
from lazytensor.core.composite.sorting import sort as sorting
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make
from lazytensor.tf import _tf
from lazytensor.tf._array import wrap
from lazytensor.tf.numpy import _lower as tnp_lower
from lazytensor.tf.numpy import _math as tnp_math
from lazytensor.tf.tf_api import _dispatch, array_ops
from lazytensor.tf.tf_api._dispatch import (
    axes,
    broadcast,
    check,
    dtype_arg,
    host_int,
    is_tensor,
    natural_dtype,
    operands,
    tensor,
)

# kernel type lists, by dtype category (dt.category): what TensorFlow accepts
FLOAT, INEXACT, REAL = "f", "fc", "iuf"
NUMBER, INT, BOOL, ANY = "iufc", "iu", "b", "biufc"
SIGNED = "ifc"  # Neg, Abs, Sign, Pow, SquaredDifference: no unsigned kernels


_const, prim = ew.const, tnp_lower.prim
_select = prim(Op.SELECT)


# -------------------------------------------------------------- elementwise

def _unary(fn, kinds: str):
    def impl(x, name=None):
        return fn(check(tensor(x), kinds, impl.__name__))

    return impl


def _guarded(test: int, safe: float, fn):
    """fn(a, b), 0 where operand ``test`` (0: a, 1: b) is zero; there b is
    replaced by ``safe`` first, so fn stays finite and a tape's gradient is
    TensorFlow's 0 (xlogy, xdivy, div_no_nan: with inf or NaN in the
    unselected branch it was 0 * inf = NaN)."""
    def apply(a: Node, b: Node) -> Node:
        zero = make(Op.EQ, ((a, b)[test], ew.const(0, (a, b)[test])))
        out = fn(a, _select(zero, ew.const(safe, b), b))
        return _select(zero, ew.const(0, out), out)

    return apply


def _multiply_no_nan(a: Node, b: Node) -> Node:
    """a * b, 0 where b is zero (a may be inf or NaN there), with
    TensorFlow's gradient: d/da = g * b (0 where b is 0) and d/db = g * a,
    also where b is 0 (that branch is b * a with a's gradient stopped, so
    its value is b * 0 = 0). Where b is 0 and a is inf or NaN, d/db is 0
    (TensorFlow: inf or NaN): a value of 0 cannot carry that gradient
    without a custom gradient rule."""
    zero = make(Op.EQ, (b, ew.const(0, b)))
    finite = _select(predicates.isfinite(a), a, ew.const(0, a))
    branch = _mul(b, stop_gradient(finite))
    other = _select(zero, ew.const(0, b), b)  # no inf * 0 from the unselected side
    return _select(zero, branch, _mul(a, other))


_recip = tnp_math._reciprocal
UNARY = {  # tf.math name: (node function, kernel dtypes)
    **{name: (prim(op), INEXACT) for name, op in (
        ("exp", Op.EXP), ("expm1", Op.EXPM1),
        ("log", Op.LOG), ("log1p", Op.LOG1P), ("sin", Op.SIN), ("cos", Op.COS),
        ("tan", Op.TAN), ("asin", Op.ASIN), ("acos", Op.ACOS), ("atan", Op.ATAN),
        ("sinh", Op.SINH), ("cosh", Op.COSH), ("tanh", Op.TANH), ("asinh", Op.ASINH),
        ("acosh", Op.ACOSH), ("atanh", Op.ATANH))},
    **{name: (prim(op), FLOAT) for name, op in (
        ("floor", Op.FLOOR), ("ceil", Op.CEIL), ("rint", Op.ROUND_EVEN), ("erf", Op.ERF),
        ("erfc", Op.ERFC), ("erfinv", Op.ERF_INV), ("lgamma", Op.LGAMMA),
        ("digamma", Op.DIGAMMA), ("bessel_i0e", Op.BESSEL_I0E),
        ("bessel_i1e", Op.BESSEL_I1E))},
    "abs": (tnp_math._abs, SIGNED), "negative": (prim(Op.NEG), SIGNED),
    "sign": (arith.sign, SIGNED), "square": (arith.square, NUMBER),
    "reciprocal": (_recip, INEXACT),
    "sqrt": (tnp_math.zero_safe("SQRT"), INEXACT), "rsqrt": (tnp_math.zero_safe("RSQRT"), INEXACT),
    "round": (tnp_math._rounding(Op.ROUND_EVEN), REAL),
    "ndtri": (formulas.ndtri, FLOAT),
    "bessel_i0": (formulas.bessel_i0, FLOAT), "bessel_i1": (formulas.bessel_i1, FLOAT),
    "reciprocal_no_nan": (lambda x: _guarded(1, 1, lambda a, b: _recip(b))(x, x),
                          INEXACT),
    "is_finite": (predicates.isfinite, FLOAT), "is_nan": (predicates.isnan, FLOAT),
    "is_inf": (predicates.isinf, FLOAT), "logical_not": (prim(Op.NOT), BOOL),
    "real": (tnp_math.UNARY_SAME["real"], NUMBER), "imag": (tnp_math.UNARY_SAME["imag"], NUMBER),
    "conj": (conj, NUMBER), "angle": (tnp_math._angle, INEXACT),
}
BITWISE_UNARY = {"invert": (prim(Op.NOT), INT)}


def _binary(fn, kinds: str, strict: bool = True, first: bool = False):
    """A TensorFlow binary op: operands converted and broadcast by TF's
    rules, checked against the kernel's dtypes, then ``fn``."""
    def impl(x, y, name=None):
        a, b = broadcast(x, y, op=impl.__name__, first=first, strict=strict)
        return fn(check(a, kinds, impl.__name__), b)

    return impl


def _squared_difference(a: Node, b: Node) -> Node:
    d = make(Op.SUB, (a, b))
    return make(Op.MUL, (d, conj(d)))


_div, _mul = prim(Op.DIV), prim(Op.MUL)
BINARY = {  # API path: (node function, kernel dtypes); TF's TypeError on a misfit value
    **{path: (prim(op), kinds) for path, op, kinds in (
        ("math.subtract", Op.SUB, NUMBER), ("truncatemod", Op.REM, REAL),
        ("math.equal", Op.EQ, ANY), ("math.not_equal", Op.NE, ANY),
        ("math.less", Op.LT, REAL), ("math.less_equal", Op.LE, REAL),
        ("math.greater", Op.GT, REAL), ("math.greater_equal", Op.GE, REAL),
        ("math.atan2", Op.ATAN2, FLOAT), ("math.igamma", Op.IGAMMA, FLOAT),
        ("math.igammac", Op.IGAMMAC, FLOAT), ("math.zeta", Op.ZETA, FLOAT),
        ("math.nextafter", Op.NEXTAFTER, FLOAT), ("math.logical_and", Op.AND, BOOL),
        ("math.logical_or", Op.OR, BOOL), ("math.logical_xor", Op.XOR, BOOL),
        ("bitwise.bitwise_and", Op.AND, INT), ("bitwise.bitwise_or", Op.OR, INT),
        ("bitwise.bitwise_xor", Op.XOR, INT), ("bitwise.left_shift", Op.SHIFT_LEFT, INT))},
    "math.multiply": (_mul, NUMBER), "math.pow": (UFUNCS["power"].fn, SIGNED),
    "math.maximum": (tnp_math._maximum, REAL), "math.minimum": (tnp_math._minimum, REAL),
    "math.floordiv": (tnp_math._floor_divide, REAL), "math.floormod": (division.remainder, REAL),
    "truncatediv": (formulas.trunc_divide, REAL),
    "math.squared_difference": (_squared_difference, SIGNED),
    "math.xlogy": (_guarded(0, 1, lambda a, b: _mul(a, make(Op.LOG, (b,)))),
                   INEXACT),  # 0 where x is 0, whatever y (NaN too: the core's gives NaN)
    "math.xlog1py": (_guarded(0, 0, lambda a, b: _mul(a, make(Op.LOG1P, (b,)))),
                     INEXACT),
    "math.xdivy": (_guarded(0, 1, _div), INEXACT),
    "math.multiply_no_nan": (_multiply_no_nan, INEXACT),
    "bitwise.right_shift": (arith.right_shift, INT),
}


def _add(x, y, name=None):
    """tf.math.add converts x, then y with x's dtype as a hint only."""
    a, b = broadcast(x, y, op="AddV2", first=True)
    return make(Op.ADD, (check(a, NUMBER, "AddV2"), b))


def _truediv_of(a: Node, b: Node) -> Node:
    if dt.is_bool(a.dtype):
        raise TypeError(f"Invalid dtype {a.dtype.name} in __truediv__")
    return tnp_math._true_divide(a, b)


def _truediv(x, y, name=None):
    """Integers in float32 (8/16 bit) or float64; x and y of one dtype
    (TypeError otherwise, as TensorFlow's Python check)."""
    a = tensor(x)
    b = tensor(y, a.dtype)
    if a.dtype != b.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {a.dtype.name} != "
                        f"{b.dtype.name}.")
    return _truediv_of(*ew.coerce([a, b], a.dtype))


def _divide(x, y, name=None):
    """``x / y``: a non-tensor x takes y's dtype; then the ``/`` operator,
    which promotes as numpy under tnp's numpy behaviour (else truediv)."""
    if not is_tensor(x):
        x = tensor(x, natural_dtype(y) if is_tensor(y) else None)
    if not _tf.numpy_behavior():
        return _truediv(x, y)
    return _truediv_of(*tnp_math.promoted(x, y))


def _div_no_nan(x, y, name=None):
    return _guarded(1, 1, _truediv_of)(*broadcast(x, y, op="DivNoNan",
                                                                  strict=True))


def _scalar_mul(scalar, x, name=None):
    a, b = broadcast(x, scalar, op="Mul", strict=True)
    return make(Op.MUL, (b, a))


def _add_n(inputs, name=None):
    nodes = operands(*inputs, op="AddN")
    if len({n.shape for n in nodes}) > 1:
        raise ShapeError(f"AddN: inputs must have one shape, got {[n.shape for n in nodes]}")
    return functools.reduce(prim(Op.ADD), nodes)


def _cast(x, dtype, name=None):
    """Complex to real keeps the real part, as TensorFlow's Cast."""
    node, target = tensor(x), dtype_arg(dtype)
    if dt.is_complex(node.dtype) and not dt.is_complex(target):
        node = make(Op.REAL, (node,))
    return ew.convert(node, target)


def _saturate_cast(value, dtype, name=None):
    """Clamp into ``dtype``'s range (where the input's is wider), then cast
    (the core's)."""
    return formulas.saturate_cast(tensor(value), dtype_arg(dtype))


def _clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """min(t, hi), then max(., lo) (TensorFlow's order and gradient); the
    bounds may not grow t's shape."""
    x, lo, hi = operands(t, clip_value_min, clip_value_max, op="ClipByValue", strict=True)
    shape = ew.broadcast_shapes(x.shape, lo.shape, hi.shape)
    if shape != x.shape:
        raise ShapeError(f"clip_by_value: bounds of shape {lo.shape}/{hi.shape} broadcast "
                         f"t {x.shape} to {shape}")
    lo, hi = ew.broadcast_to(lo, shape), ew.broadcast_to(hi, shape)
    return tnp_math._maximum(tnp_math._minimum(x, hi), lo)


# --------------------------------------------------------------- reductions

def _reducer(fn, kinds: str, api: str):
    """A reduction ``fn(x, axes, keepdims)`` of TensorFlow's arguments."""
    def impl(input_tensor, axis=None, keepdims=False, name=None):
        x = check(tensor(input_tensor), kinds, api)
        return fn(x, axes(axis, x.ndim), bool(keepdims))

    return impl


def _mean(x: Node, dims, keepdims: bool) -> Node:
    """Integers divide in integers (TensorFlow's Mean kernel)."""
    if dt.is_inexact(x.dtype):
        return reduction.mean(x, dims, keepdims)
    total = reduction.reduce("sum", x, dims, keepdims)
    count = reduction.count(x, caxes.normalize_axes(dims, x.ndim))
    return make(Op.DIV, (total, _const(max(count, 1), total)))


def _moment(std: bool):
    def impl(input_tensor, axis=None, keepdims=False, name=None):
        x = tensor(input_tensor)
        if not dt.is_inexact(x.dtype):
            raise TypeError(f"Input must be either real or complex. Received integer type "
                            f"{x.dtype.name}.")
        fn = reduction.std if std else reduction.var
        return fn(x, axes(axis, x.ndim), bool(keepdims))

    return impl


def _euclidean_norm(x: Node, dims, keepdims: bool) -> Node:
    """sqrt(sum(|x|^2)); integers take the truncated root, as TensorFlow's."""
    work = x if dt.is_inexact(x.dtype) else ew.convert(x, dt.float64)
    out = make(Op.SQRT, (reduction.reduce("sum", make(Op.MUL, (work, conj(work))), dims,
                                          keepdims),))
    return out if dt.is_inexact(x.dtype) else ew.convert(make(Op.FLOOR, (out,)), x.dtype)


def _argreduce(kind: str):
    def impl(input, axis=None, output_type=None, name=None):  # noqa: A002  (TF's names)
        x = check(tensor(input), REAL, kind)
        out = dtype_arg(output_type) or dt.int64
        axis = 0 if axis is None else host_int(axis)
        _tf.nonempty_arg_axis(kind, x.shape, axis)
        return reduction.argreduce(kind, x, axis, False, out)

    return impl


def _scan(op: Op, identity):
    """TF's cumulative ops: ``exclusive`` shifts in the identity, ``reverse``
    runs from the end."""
    def impl(x, axis=0, exclusive=False, reverse=False, name=None):
        node = check(tensor(x), FLOAT if op is Op.CUMLOGSUMEXP else NUMBER, op.name)
        ax = caxes.normalize_axis(host_int(axis), node.ndim)
        return accumulate.cumulative(node, op, ax, bool(reverse), bool(exclusive), identity)

    return impl


def _count_nonzero(input, axis=None, keepdims=None, dtype=None, name=None):  # noqa: A002
    x = tensor(input)
    nonzero = make(Op.NE, (x, _const(0, x)))
    return reduction.reduce("sum", nonzero, axes(axis, x.ndim), bool(keepdims),
                            dtype_arg(dtype) or dt.int64)


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def _top_k(input, k=1, sorted=True, index_type=None, name=None):  # noqa: A002
    x = check(tensor(input), REAL, "TopKV2")
    values, indices = sorting.top_k(x, host_int(k), -1, True, dtype_arg(index_type) or dt.int32)
    return TopKV2(values, indices)


def _unsorted_segment(kind: str, kinds=REAL):
    """Ids known on the host are checked as TensorFlow's CPU kernel (ids past
    ``num_segments`` raise; negative ones drop, as lazy ones do); data of a
    dtype outside ``kinds`` raises."""
    def impl(data, segment_ids, num_segments, name=None):
        ids = check(tensor(segment_ids), INT, "UnsortedSegment")
        n = host_int(num_segments)
        host = array_ops.host_indices(segment_ids)
        if host is not None and (host >= n).any():
            at = np.argwhere(host >= n)[0]
            raise _tf.tf().errors.InvalidArgumentError(
                None, None, f"segment_ids[{','.join(map(str, at))}] = {host[tuple(at)]} is out "
                            f"of range [0, {n})")
        return cnn.segment_reduce(check(tensor(data), kinds, "UnsortedSegment"), ids, n, kind)

    return impl


def _segment(kind: str):
    """Sorted segments: their count is the largest id + 1, read back (a
    barrier); segments that no id names give 0 for max and min."""
    def impl(data, segment_ids, name=None):
        ids = check(tensor(segment_ids), INT, "Segment")
        host = array_ops.host_indices(segment_ids)
        if host is not None and host.ndim == 1 and (host.size and host.min() < 0
                                                    or (np.diff(host) < 0).any()):
            raise _tf.tf().errors.InvalidArgumentError(
                None, None, "segment ids are not increasing" if host.min() >= 0
                else "segment ids must be >= 0")
        top = reduction.reduce("max", ids) if ids.shape[0] else None
        n = 0 if top is None else int(wrap(top).numpy()) + 1
        ids = tensor(segment_ids)  # after the barrier: buffers read before may be donated
        return cnn.segment_reduce(check(tensor(data), REAL, "Segment"), ids, n, kind,
                                  0 if kind in ("max", "min") else None)

    return impl


def _clip_by_norm(t, clip_norm, axes=None, name=None):
    """t * clip_norm / max(||t||, clip_norm) (the core's, shared with
    tf.nn.embedding_lookup's max_norm)."""
    x, c = operands(t, clip_norm, op="clip_by_norm", strict=True)
    dims = _dispatch.axes(axes, x.ndim)
    return layers.clip_by_norm(check(x, FLOAT, "clip_by_norm"), c,
                               tuple(range(x.ndim)) if dims is None else dims)


def _clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """The core's clip_by_global_norm over the tensors that are not None;
    returns (list, global_norm)."""
    present = [tensor(t) for t in t_list if t is not None]
    if not present:
        raise ValueError("`t_list` should contain at least one tensor")
    dtype = present[0].dtype
    clipped, norm = layers.clip_by_global_norm(
        present, tensor(clip_norm, dtype), None if use_norm is None else tensor(use_norm, dtype))
    out = iter(clipped)
    return [None if t is None else next(out) for t in t_list], norm


def _global_norm(t_list, name=None):
    """sqrt(sum of every element's square) over the tensors that are not
    None (tf.IndexedSlices by their values), in the first's dtype; all of
    one dtype, as TensorFlow stacks their norms."""
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    present = [tensor(getattr(t, "values", t) if _tf.indexed_slices(t) else t)
               for t in t_list if t is not None]
    if not present or any(t.dtype != present[0].dtype for t in present):
        raise NotImplementedError("global_norm of no tensors or mixed dtypes")  # TF's error
    return layers.global_norm(present)


def _complex(real, imag, name=None):
    """float32 -> complex64, float64 -> complex128; both parts one dtype
    (TensorFlow's TypeError otherwise), broadcast."""
    a, b = tensor(real), tensor(imag)
    if a.dtype != b.dtype or a.dtype not in (dt.float32, dt.float64):
        raise TypeError(f"The `real` and `imag` components have incorrect types: "
                        f"{a.dtype.name} {b.dtype.name}. They must be consistent, and one of "
                        f"[tf.float32, tf.float64]")
    return make(Op.COMPLEX, tuple(ew.coerce([a, b], a.dtype)))


def _polyval(coeffs, x, name=None):
    """Horner's rule from coeffs[0] (the core's, TensorFlow's order); the
    coefficients broadcast. Mixed dtypes go to TensorFlow's operators
    (whose promotion depends on tnp's numpy behaviour): eagerly."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    node = tensor(x)
    nodes = [tensor(c) for c in coeffs]
    if any(c.dtype != node.dtype for c in nodes):
        raise NotImplementedError("polyval of mixed dtypes")  # -> eager TensorFlow
    if len(nodes) < 2:
        return nodes[0] if nodes else ew.zeros_like(node)
    shape = ew.broadcast_shapes(*(c.shape for c in nodes))
    stacked = core_shape.stack([ew.broadcast_to(c, shape) for c in nodes], 0)
    return numerics.polyval(stacked, node, from_first=True)


# an empty max/min is the identity (-inf/+inf), as TensorFlow's
_REDUCE = {"max": reduction.reduce_or_identity, "min": reduction.reduce_or_identity}

APIS = {
    **{f"math.{name}": _unary(fn, kinds) for name, (fn, kinds) in UNARY.items()},
    **{f"bitwise.{name}": _unary(fn, kinds) for name, (fn, kinds) in BITWISE_UNARY.items()},
    **{path: _binary(fn, kinds) for path, (fn, kinds) in BINARY.items()},
    "math.add": _add, "math.truediv": _truediv, "math.divide": _divide,
    "math.divide_no_nan": _div_no_nan, "math.scalar_mul": _scalar_mul, "math.add_n": _add_n,
    "cast": _cast, "dtypes.saturate_cast": _saturate_cast, "clip_by_value": _clip_by_value,
    **{f"math.reduce_{kind}": _reducer(functools.partial(_REDUCE.get(kind, reduction.reduce),
                                                         kind), kinds,
                                       f"reduce_{kind}") for kind, kinds in (
        ("sum", NUMBER), ("prod", NUMBER), ("max", REAL), ("min", REAL), ("all", BOOL),
        ("any", BOOL))},
    "math.reduce_mean": _reducer(_mean, NUMBER, "reduce_mean"), "math.reduce_std": _moment(True),
    "math.reduce_variance": _moment(False),
    "math.reduce_logsumexp": _reducer(reduction.logsumexp, FLOAT, "reduce_logsumexp"),
    "math.reduce_euclidean_norm": _reducer(_euclidean_norm, NUMBER, "reduce_euclidean_norm"),
    "math.argmax": _argreduce("argmax"), "math.argmin": _argreduce("argmin"),
    "math.cumsum": _scan(Op.CUMSUM, 0), "math.cumprod": _scan(Op.CUMPROD, 1),
    "math.cumulative_logsumexp": _scan(Op.CUMLOGSUMEXP, -math.inf),
    "math.count_nonzero": _count_nonzero, "math.top_k": _top_k,
    **{f"math.{prefix}segment_{name}": factory(kind) for name, kind in (
        ("sum", "add"), ("prod", "mul"), ("max", "max"), ("min", "min"), ("mean", "mean"))
       for prefix, factory in (("unsorted_", _unsorted_segment), ("", _segment))},
    "math.unsorted_segment_sqrt_n": _unsorted_segment("sqrt_n", FLOAT),
    "clip_by_norm": _clip_by_norm, "clip_by_global_norm": _clip_by_global_norm,
    "linalg.global_norm": _global_norm,
    "complex": _complex, "math.polyval": _polyval,
    **array_ops.APIS,
}

__all__ = ["APIS"]
