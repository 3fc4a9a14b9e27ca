"""tnp's math functions as a table over the core's composites: elementwise
(tnp's ``_scalar`` / ``_bin_op`` families), reductions, contractions.

Only tnp's own choices live here (which functions promote to float, tnp's
reduction dtypes, TensorFlow's integer true division); the arithmetic is the
core's (``composite.elementwise``, ``composite.reduce``, ``composite.linalg``) and is
the same
code the numpy frontend runs.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply, formulas, ordering, predicates, ufuncs
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise import arithmetic as arith
from lazytensor.core.composite.elementwise import division as division
from lazytensor.core.composite.elementwise.promotion import TNP, result_type
from lazytensor.core.composite.linalg import matmul as linalg
from lazytensor.core.composite.linalg import products as products
from lazytensor.core.composite.movement import shape as core_shape
from lazytensor.core.composite.reduce import numerics, reduction
from lazytensor.core.composite.reduce import reduction as red
from lazytensor.core.composite.sorting.sort import cumulative
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make
from lazytensor.tf import _tf
from lazytensor.tf._array import RECORDING, lift, ndarray, node_of
from lazytensor.tf._tf import as_np_dtype
from lazytensor.tf.numpy._lower import (
    binary,
    float_of,
    index_dtype,
    prim,
    promoted,
    same_dtype,
    unary,
)


def _rounding(o: Op):
    return lambda x: make(o, (x,)) if dt.is_float(x.dtype) else x


def _neg(x: Node) -> Node:
    return make(Op.NEG, (x,))


def _angle(x: Node, deg: bool = False) -> Node:
    """The core's angle; for real x tnp's ``where(x < 0, pi, 0)`` (0 for NaN
    and -0.0, where numpy's atan2(0, x) gives NaN and pi)."""
    return arith.angle(x, deg, by_sign=True, keep_nan=False)


def zero_safe(name: str):
    """The core op ``name`` with TensorFlow's zero-safe gradient (SqrtGrad,
    RsqrtGrad: 0 where the incoming gradient is 0, so the unselected side of
    ``where(x > 0, sqrt(x), 0)`` gives 0, not NaN). Only while a tape
    records (gradients exist only there): outside, the plain op, so the
    graph is the one other frontends record for the same program."""
    op = Op[name]

    def fn(x: Node) -> Node:
        if RECORDING.active is not None and dt.is_inexact(x.dtype):
            return make(Op.ZERO_SAFE_GRAD, (x,), name)
        return make(op, (x,))

    return fn


def _reciprocal(x: Node) -> Node:
    """1 / x; while a tape records, with TensorFlow's ReciprocalGrad (0 where
    the incoming gradient is 0, not 0 * inf = NaN at x = 0)."""
    one = apply.const(1, x)
    if RECORDING.active is not None and dt.is_inexact(x.dtype):
        return make(Op.ZERO_SAFE_GRAD, (one, x), "DIV")
    return make(Op.DIV, (one, x))


def _signbit(x: Node) -> Node:
    if dt.is_complex(x.dtype):
        raise DTypeError(f"signbit does not accept dtype {x.dtype}")
    return make(Op.LT, (x, apply.const(0, x))) if not dt.is_bool(x.dtype) \
        else ew.full(x.shape, False, dt.bool_)


# While a GradientTape records, the ops whose gradient convention differs
# between TensorFlow and the core's autodiff (JAX's rules) are written so that
# their gradient is TensorFlow's; the values are the same.

def _taping(x: Node) -> bool:
    return RECORDING.active is not None and dt.is_float(x.dtype)


def _tf_chooser(compare: Op):
    """maximum/minimum as ``select(x1 >= x2 or isnan(x1), x1, x2)``: TensorFlow's
    gradient gives a tie wholly to x1 (``maximum(x, 0.0)`` at 0 passes the
    gradient; JAX's rule halves it); NaN propagates as in tf.maximum."""
    def fn(a: Node, b: Node) -> Node:
        pick = make(Op.OR, (make(compare, (a, b)), make(Op.NE, (a, a))))
        return make(Op.SELECT, (pick, a, b))

    return fn


_TF_MAXIMUM, _TF_MINIMUM = _tf_chooser(Op.GE), _tf_chooser(Op.LE)


def _maximum(a: Node, b: Node) -> Node:
    if dt.is_bool(a.dtype):
        return make(Op.OR, (a, b))
    return _TF_MAXIMUM(a, b) if _taping(a) else ordering.maximum(a, b)


def _minimum(a: Node, b: Node) -> Node:
    if dt.is_bool(a.dtype):
        return make(Op.AND, (a, b))
    return _TF_MINIMUM(a, b) if _taping(a) else ordering.minimum(a, b)


def _abs(x: Node) -> Node:
    """|x|; while taping real floats ``x * sign(x)``, whose gradient is
    TensorFlow's ``sign(x)`` (0 at 0, where JAX's abs gives 1)."""
    return make(Op.MUL, (x, make(Op.SIGN, (x,)))) if _taping(x) else arith.absolute(x)


def _shared(*names: str) -> dict:
    """The core's numpy ufuncs (``composite.elementwise.ufuncs``) that tnp computes alike."""
    return {name: ufuncs.UFUNCS[name].fn for name in names}


UNARY_FLOAT = {  # tnp promotes integer/bool input to float64
    **_shared("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
              "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log1p",
              "cbrt", "deg2rad", "rad2deg", "isnan", "isfinite"),
    "sqrt": zero_safe("SQRT"),
    "ceil": _rounding(Op.CEIL), "floor": _rounding(Op.FLOOR),
    "fix": ufuncs.UFUNCS["trunc"].fn, "sinc": formulas.sinc,
}
UNARY_SAME = {
    **_shared("negative", "positive", "square", "sign", "logical_not"),
    "abs": _abs, "absolute": _abs, "fabs": _abs, "conj": ufuncs.conj, "conjugate": ufuncs.conj,
    "reciprocal": _reciprocal, "signbit": _signbit, "bitwise_not": ufuncs.UFUNCS["invert"].fn,
    "real": lambda x: make(Op.REAL, (x,)) if dt.is_complex(x.dtype) else x,
    "imag": lambda x: make(Op.IMAG, (x,)) if dt.is_complex(x.dtype) else apply.const(0, x),
}


def _float_only(test):
    """isinf/isposinf/isneginf: tnp returns Python False for non-floats."""
    def impl(x):
        node = node_of(x)
        return test(node) if dt.is_inexact(node.dtype) else False

    return impl


def _angle_impl(z, deg=False):
    """Real input gives float32 whatever its dtype: tnp's ``where(x < 0,
    np.pi, 0)`` converts the Python pi to a float32 tensor."""
    x = float_of(node_of(z))
    if dt.is_complex(x.dtype):
        return _angle(x, deg)
    return _angle(ew.convert(x, dt.float32), deg)


def _round(a, decimals=0):
    """Round half to even at ``decimals`` (ints computed in float64)."""
    x = node_of(a)
    work = float_of(x)
    # tnp casts the Python factor through a float32 tensor: 0.1 -> 0.10000000149
    factor = ew.as_node(float(np.float32(10.0 ** decimals)), work.dtype, work.shape)
    out = make(Op.DIV, (make(Op.ROUND_EVEN, (make(Op.MUL, (work, factor)),)), factor))
    return ew.convert(out, x.dtype)


# ------------------------------------------------------------------ binary

def _true_divide(a: Node, b: Node) -> Node:
    """TensorFlow's truediv: small ints in float32, int32/int64 in float64."""
    if not dt.is_inexact(a.dtype):
        target = dt.float32 if a.dtype.itemsize <= 2 and not dt.is_bool(a.dtype) else dt.float64
        a, b = ew.convert(a, target), ew.convert(b, target)
    return make(Op.DIV, (a, b))


def _floor_divide(a: Node, b: Node) -> Node:
    """TensorFlow's FloorDiv: floats as floor(a / b) (``1.0 // 0.1`` is 10,
    where numpy's fmod-based rule gives 9), integers rounded toward -inf."""
    if dt.is_float(a.dtype):
        return make(Op.FLOOR, (make(Op.DIV, (a, b)),))
    return division.floor_divide(a, b)


def _bool_or(fn):
    """tnp computes boolean floor_divide/mod in int8."""
    def f(a: Node, b: Node) -> Node:
        if dt.is_bool(a.dtype):
            a, b = ew.convert(a, dt.int8), ew.convert(b, dt.int8)
        return fn(a, b)

    return f


def _heaviside(x: Node, h0: Node) -> Node:
    return float_of(arith.heaviside(x, h0, keep_nan=False))  # NaN gives h0, as in tnp


def _hypot(x1, x2):
    """tnp: sqrt(square(x1) + square(x2)), each squared in its own dtype."""
    a, b = promoted(arith.square(node_of(x1)), arith.square(node_of(x2)))
    return make(Op.SQRT, (float_of(make(Op.ADD, (a, b))),))


def _log_base(base: float):
    """tnp: log(x) / np.log(base) -- a strong numpy float64 scalar."""
    def impl(x):
        return _true_divide(*promoted(make(Op.LOG, (float_of(node_of(x)),)),
                                      np.float64(np.log(base))))

    return impl


def _per_ln2(tail: Node) -> Node:
    """tnp: the tail over np.log(2), a strong numpy float64 scalar."""
    return _true_divide(*promoted(tail, np.float64(np.log(2))))


# tnp: where(isnan(x1 - x2), x1 + x2, maximum + log1p(exp(-|x1 - x2|)) [/ log(2)]),
# with tf.maximum's and tf.abs's gradients and tnp's promotion
_TNP_LOGADDEXP = arith.LogAddExpRules(maximum=_maximum, absolute=_abs, per_ln2=_per_ln2,
                                      exact_ties=False, nan_from_gap=True, promote=promoted)


def _logaddexp(core_fn):
    def impl(x1, x2):
        a, b = (float_of(v) for v in promoted(x1, x2))
        if dt.is_complex(a.dtype):  # tf.maximum has no complex kernel
            raise DTypeError(f"Value for attr 'T' of {a.dtype} is not in the list of allowed "
                             "values: bfloat16, half, float, double, int8, uint8, int16, uint16, "
                             "int32, uint32, int64, uint64")
        return core_fn(a, b, _TNP_LOGADDEXP)

    return impl


BINARY = {  # name: (node function, kind)
    **{name: (fn, "same") for name, fn in _shared(
        "add", "subtract", "multiply", "power", "arctan2", "nextafter", "bitwise_and",
        "bitwise_or", "bitwise_xor", "gcd", "lcm", "equal", "not_equal").items()},
    **{name: (fn, "bool") for name, fn in _shared(
        "logical_and", "logical_or", "logical_xor").items()},
    "true_divide": (_true_divide, "same"), "divide": (_true_divide, "same"),
    "floor_divide": (_bool_or(_floor_divide), "same"),
    "mod": (_bool_or(division.remainder), "same"),
    "remainder": (_bool_or(division.remainder), "same"), "float_power": (arith.power, "same"),
    "maximum": (_maximum, "same"), "minimum": (_minimum, "same"),
    "heaviside": (_heaviside, "same"),
    **{name: (prim(op), "same") for name, op in (
        ("less", Op.LT), ("less_equal", Op.LE), ("greater", Op.GT), ("greater_equal", Op.GE))},
}


def _maximum_or_relu(x1, x2):
    """tnp's maximum; ``maximum(tensor, 0)`` (a Python or numpy zero, a
    tensor, not a variable) is tnp's fast path ``tf.nn.relu(x1)``: x1's dtype
    kept (``maximum(int array, 0.0)`` stays integer) and relu's gradient, 0
    at 0 (where maximum's gives a tie to x1)."""
    if not (isinstance(x2, numbers.Real) and not isinstance(x2, bool) and x2 == 0
            and type(x1) is ndarray and not dt.is_bool(x1._node().dtype)):
        return _MAXIMUM(x1, x2)
    x = x1._node()
    if not _taping(x):
        return _MAXIMUM(x1, 0)  # a weak zero: x1's dtype
    zero = apply.const(0, x)
    pick = make(Op.OR, (make(Op.GT, (x, zero)), make(Op.NE, (x, x))))
    return make(Op.SELECT, (pick, x, zero))


def _divmod(x1, x2):
    a, b = promoted(x1, x2)
    return _bool_or(_floor_divide)(a, b), _bool_or(division.remainder)(a, b)


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y = promoted(a, b)
    if not dt.is_inexact(x.dtype):
        return make(Op.EQ, (x, y))
    return predicates.isclose(x, y, rtol, atol, equal_nan)


def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return reduction.reduce("all", _isclose(a, b, rtol, atol, equal_nan))


def _array_equal(a1, a2):
    a, b = node_of(a1), node_of(a2)
    dtype = ew.promote(TNP, a, b)
    return reduction.array_equal(ew.convert(a, dtype), ew.convert(b, dtype))


def _clip(a, a_min, a_max):
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return _minimum(*promoted(a, a_max))
    if a_max is None:
        return _maximum(*promoted(a, a_min))
    x, lo, hi = promoted(a, a_min, a_max)
    if RECORDING.active is None and _ordered_on_host(a_min, a_max):
        return make(Op.MIN, (make(Op.MAX, (x, lo)), hi))  # numpy's order: the same value
    # tf.clip_by_value: max(min(x, hi), lo), which is a_min where a_min > a_max
    # (numpy's order gives a_max), with TensorFlow's gradient at the bounds
    return _maximum(_minimum(x, hi), lo)


def _ordered_on_host(a_min, a_max) -> bool:
    """Both bounds are host numbers and a_min <= a_max."""
    numbers = (int, float, np.integer, np.floating)
    return isinstance(a_min, numbers) and isinstance(a_max, numbers) and a_min <= a_max


# -------------------------------------------------------------- reductions

def _axis(axis):
    """tnp's sum/prod/max/min/mean/var/std/ptp pass ``axis`` to tf.reduce_*,
    which takes an array axis of a float dtype truncated to integers
    (``axis=tnp.array(1.7)`` is axis 1); other axes are the core's to check."""
    dtype = getattr(axis, "dtype", None)
    if dtype is None or isinstance(axis, (list, tuple)) or \
            np.dtype(as_np_dtype(dtype)).kind != "f":
        return axis
    value = np.trunc(np.asarray(axis.numpy() if hasattr(axis, "numpy") else axis))
    return int(value) if value.ndim == 0 else tuple(int(v) for v in value.ravel())


def _int_accumulator(dtype):
    """tnp's _TO_INT_: bools and integers narrower than 64 bits sum as int64 / uint64."""
    if dt.is_bool(dtype) or (dt.is_int(dtype) and dtype.itemsize < 8):
        return dt.uint64 if dt.is_unsigned(dtype) else dt.int64
    return dtype


def _sum_like(kind: str, bool_kind: str):
    """sum/prod; an explicit ``dtype`` is the accumulator and the result's
    (``sum(int8, dtype=int8)`` wraps, as tnp), else tnp's ``_TO_INT_``."""
    def impl(a, axis=None, dtype=None, keepdims=None):
        x, axis = lift(a, as_np_dtype(dtype)), _axis(axis)
        if dt.is_bool(x.dtype) and dtype is not None:
            return reduction.reduce(bool_kind, x, axis, bool(keepdims))
        accumulator = _int_accumulator(x.dtype) if dtype is None else x.dtype
        return reduction.reduce(kind, x, axis, bool(keepdims), accumulator)

    return impl


def _no_out(out) -> None:
    if out is not None:  # tnp's arrays are immutable
        raise ValueError("Setting out is not supported.")


def _extreme(kind: str, prepare=lambda x: x, out: bool = False):
    """max/min (all/any: of the truthiness, ``predicates.truthy``); ``out``:
    the signature with ``out=`` (tnp's amax/amin). An empty max/min gives
    TensorFlow's identity (-inf/+inf, the integer's lowest/highest)."""
    def impl(a, axis=None, keepdims=None):
        if kind in ("all", "any"):
            return reduction.reduce(kind, prepare(node_of(a)), axis, bool(keepdims))
        return reduction.reduce_or_identity(kind, node_of(a), _axis(axis), bool(keepdims))

    def with_out(a, axis=None, out=None, keepdims=None):
        _no_out(out)
        return impl(a, axis, keepdims)

    return with_out if out else impl


def _mean(a, axis=None, dtype=None, out=None, keepdims=None):
    """tnp casts to ``dtype`` first and averages in it (an integer dtype
    gives the truncated integer mean); without one, integers average as floats."""
    _no_out(out)
    axis = _axis(axis)
    if dtype is not None:
        return reduction.mean(lift(a, as_np_dtype(dtype)), axis, bool(keepdims))
    return reduction.mean(float_of(node_of(a)), axis, bool(keepdims))


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    """tnp computes in ``result_type(a, dtype)`` and casts the variance to ``dtype``."""
    _no_out(out)
    x, axis = node_of(a), _axis(axis)
    if dtype is None:
        return reduction.var(float_of(x), axis, bool(keepdims), ddof)
    want = as_np_dtype(dtype)
    working = result_type(TNP, x.dtype, want)
    if not dt.is_inexact(working):  # tf.math.reduce_variance's check
        raise TypeError(f"Input must be either real or complex. Received integer type {working}.")
    return ew.convert(reduction.var(ew.convert(x, working), axis, bool(keepdims), ddof), want)


def _std(a, axis=None, keepdims=None):
    return reduction.std(float_of(node_of(a)), _axis(axis), bool(keepdims))


def _nan_reduce(kind: str):
    def impl(a, axis=None, dtype=None, keepdims=False):
        x = node_of(a)
        filled = red.nan_to(x, 0 if kind == "sum" else 1)
        return _sum_like(kind, "any" if kind == "sum" else "all")(filled, axis, dtype, keepdims)

    return impl


def _nanmean(a, axis=None, dtype=None, keepdims=None):
    x, axis = lift(a, as_np_dtype(dtype)), _axis(axis)
    if not dt.is_inexact(x.dtype):
        return _mean(x, axis, keepdims=keepdims)
    kept = predicates.logical_not(predicates.isnan(x))
    return reduction.masked_mean(x, kept, axis, bool(keepdims))


def _argminmax(kind: str):
    # TensorFlow's ArgMax/ArgMin skip NaN (numpy's stop at the first one)
    skipped = -math.inf if kind == "argmax" else math.inf

    def impl(a, axis=None):
        x = node_of(a)
        x = core_shape.atleast_1d(x) if axis is not None else x
        _tf.nonempty_arg_axis(kind, x.shape if axis is not None else (math.prod(x.shape),),
                              0 if axis is None else int(axis))
        if x.dtype.kind == "f":
            x = red.nan_to(x, skipped)
        return reduction.argreduce(kind, x, axis, False, index_dtype())

    return impl


def _cumulative(kind: str):
    def impl(a, axis=None, dtype=None):
        x = lift(a, as_np_dtype(dtype))
        if dt.is_bool(x.dtype):
            raise DTypeError(f"{kind.upper()}: bool input is not supported")
        wide = dtype is None and dt.is_int(x.dtype)  # tnp accumulates ints in at least int64
        return cumulative(kind, x, axis, np.promote_types(x.dtype, dt.int64) if wide else None)

    return impl


def _average(a, axis=None, weights=None, returned=False):
    if axis is not None and not isinstance(axis, int):
        raise ValueError(f"Argument `axis` must be an integer. Received axis={axis}")
    if weights is None:
        x, w = float_of(node_of(a)), None
    else:
        x, w = (float_of(n) for n in same_dtype(a, weights))
    avg, total = red.average(x, axis, w)
    return (avg, total) if returned else avg


# ------------------------------------------------------------ contractions

def _matmul(x1, x2):
    a, b = same_dtype(x1, x2)
    try:
        return linalg.matmul(a, b)
    except ShapeError as error:  # tnp re-raises TensorFlow's error as ValueError
        raise ValueError(str(error)) from None


def _contraction(fn):
    """tnp's ``_bin_op`` without broadcasting: promote, then ``fn``."""
    return lambda a, b: fn(*same_dtype(a, b))


def _polyval(p, x):
    """tnp's ``_bin_op``, then the core's Horner rule (a 0-d p is one
    coefficient)."""
    coeffs, at = same_dtype(p, x)
    return numerics.polyval(core_shape.reshape(coeffs, (1,)) if coeffs.ndim == 0 else coeffs, at,
                            from_first=True)


def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    x, y = same_dtype(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    return products.cross(x, y, axisa, axisb, axisc)


def _power(x1, x2):
    # TensorFlow's Pow kernel refuses integers to negative integer powers: an
    # exponent known on the host is checked here; one in a device array
    # computes as XLA does
    out = _POWER(x1, x2)
    host = x2 if isinstance(x2, (int, np.integer, np.ndarray, list)) else None
    if host is not None and dt.is_int(out.dtype) and np.any(np.asarray(host) < 0):
        raise DTypeError("Integers to negative integer powers are not allowed")
    return out


_POWER = binary(ufuncs.UFUNCS["power"].fn)
_power.elementwise = True  # type: ignore[attr-defined]  (masked reads: _masked_reads)


def _is_complex_obj(x) -> bool:
    return dt.is_complex(node_of(x).dtype)


_MAXIMUM = binary(_maximum)
_maximum_or_relu.elementwise = True  # type: ignore[attr-defined]

MATH = {
    **{name: unary(fn, True) for name, fn in UNARY_FLOAT.items()},
    **{name: unary(fn) for name, fn in UNARY_SAME.items()},
    **{name: binary(fn, kind) for name, (fn, kind) in BINARY.items()},
    "isinf": _float_only(predicates.isinf), "isposinf": _float_only(predicates.isposinf),
    "isneginf": _float_only(predicates.isneginf), "angle": _angle_impl,
    "around": _round, "round": _round,
    "iscomplex": unary(predicates.iscomplex), "isreal": unary(predicates.isreal),
    "power": _power, "divmod": _divmod, "hypot": _hypot, "log2": _log_base(2.0),
    "log10": _log_base(10.0),
    "logaddexp": _logaddexp(arith.logaddexp),
    "logaddexp2": _logaddexp(arith.logaddexp2),
    "maximum": _maximum_or_relu, "isclose": _isclose, "allclose": _allclose,
    "array_equal": _array_equal, "clip": _clip,
    "sum": _sum_like("sum", "any"), "prod": _sum_like("prod", "all"),
    "amax": _extreme("max", out=True), "max": _extreme("max"),
    "amin": _extreme("min", out=True),
    "min": _extreme("min"), "all": _extreme("all", predicates.truthy),
    "any": _extreme("any", predicates.truthy),
    "mean": _mean, "var": _var, "std": _std,
    "nansum": _nan_reduce("sum"), "nanprod": _nan_reduce("prod"), "nanmean": _nanmean,
    "ptp": lambda a, axis=None, keepdims=None: red.ptp(node_of(a), _axis(axis), bool(keepdims),
                                                       True),
    "count_nonzero": lambda a, axis=None: red.count_nonzero(node_of(a), axis),
    "argmax": _argminmax("argmax"), "argmin": _argminmax("argmin"),
    "cumsum": _cumulative("cumsum"), "cumprod": _cumulative("cumprod"),
    "average": _average,
    "matmul": _matmul, "cross": _cross,
    **{name: _contraction(getattr(products, name))
       for name in ("dot", "inner", "outer", "vdot", "kron")},
    "polyval": _polyval,
    "tensordot": lambda a, b, axes=2: products.tensordot(*same_dtype(a, b), axes),
    "iscomplexobj": _is_complex_obj, "isrealobj": lambda x: not _is_complex_obj(x),
}
