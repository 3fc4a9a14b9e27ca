"""Elementwise families: strict rules (no implicit promotion or broadcasting:
operands share shape and dtype; frontends insert convert/broadcast nodes)."""

from __future__ import annotations

from collections.abc import Callable

from lazytensor.core import dtypes as dt
from lazytensor.core.ops import BINARY_ARITH, BITWISE, COMPARE, UNARY_SAME, Op
from lazytensor.core.registry import OPDEFS, DTypeError, register
from lazytensor.core.rules.common import check_dtype, same_dtypes, same_shapes


def _numeric(d):
    return d.kind != "b"  # not bool (inlined: the commonest check of recorded ops)


def _integral(d):
    return dt.is_int(d) or dt.is_bool(d)


# which operand dtypes each op accepts, with the words used in its error
_INEXACT = (dt.is_inexact, "a floating or complex")
_FLOAT = (dt.is_float, "a real floating")
_NUMERIC = (_numeric, "a numeric (non-bool)")
_INTEGRAL = (_integral, "an integer or bool")
_INT = (dt.is_int, "an integer")
_COMPLEX = (dt.is_complex, "a complex")
_ANY = (lambda d: True, "any")

UNARY_ACCEPTS = {
    Op.NEG: _NUMERIC, Op.SIGN: _NUMERIC, Op.EXP: _INEXACT, Op.EXP2: _INEXACT,
    Op.EXPM1: _INEXACT, Op.LOG: _INEXACT, Op.LOG1P: _INEXACT, Op.SQRT: _INEXACT,
    Op.RSQRT: _INEXACT, Op.CBRT: _FLOAT, Op.SIN: _INEXACT, Op.COS: _INEXACT,
    Op.TAN: _INEXACT, Op.ASIN: _INEXACT, Op.ACOS: _INEXACT, Op.ATAN: _INEXACT,
    Op.SINH: _INEXACT, Op.COSH: _INEXACT, Op.TANH: _INEXACT, Op.ASINH: _INEXACT,
    Op.ACOSH: _INEXACT, Op.ATANH: _INEXACT, Op.FLOOR: _FLOAT, Op.CEIL: _FLOAT,
    Op.ROUND_EVEN: _FLOAT, Op.ROUND_AWAY: _FLOAT, Op.LOGISTIC: _INEXACT, Op.ERF: _FLOAT,
    Op.ERFC: _FLOAT, Op.ERF_INV: _FLOAT, Op.LGAMMA: _FLOAT, Op.DIGAMMA: _FLOAT,
    Op.BESSEL_I0E: _FLOAT, Op.BESSEL_I1E: _FLOAT,
    Op.NOT: _INTEGRAL, Op.POPCNT: _INT, Op.CLZ: _INT, Op.CONJ: _COMPLEX,
}


_SEEN_LIMIT = 64  # dtypes remembered per op (the core has 15; a bound all the same)


def _result_dtypes(op: Op, accepts, result) -> Callable:
    """``op``'s result dtype of an operand dtype, remembered per dtype (a
    finite set); a dtype the op does not accept raises, and is not remembered.
    (A dict lookup: the category predicates cost more, and these rules run
    for most recorded ops.)"""
    allowed, what = accepts
    seen: dict = {}

    def result_dtype(dtype):
        out = seen.get(dtype)
        if out is None:
            check_dtype(op, dtype, allowed, what)
            out = dtype if result is None else result(dtype)
            if len(seen) >= _SEEN_LIMIT:
                seen.clear()
            seen[dtype] = out
        return out

    return result_dtype


def unary(op: Op, accepts, result=None) -> None:
    """Register a unary elementwise op: same shape, ``result(dtype)``."""
    result_dtype = _result_dtypes(op, accepts, result)

    def rule(operands, attrs):
        (x,) = operands
        return x.shape, result_dtype(x.dtype)

    register(op, 1, (), rule)


def binary(op: Op, accepts, result=None) -> None:
    """Register a strict binary elementwise op: equal shapes and dtypes.
    (Inlined checks: this rule runs for most recorded ops.)"""
    result_dtype = _result_dtypes(op, accepts, result)

    def rule(operands, attrs):
        x, y = operands
        dtype = x.dtype
        if x.shape != y.shape:
            same_shapes(op, operands)
        if y.dtype is not dtype and y.dtype != dtype:
            same_dtypes(op, operands)
        return x.shape, result_dtype(dtype)

    register(op, 2, (), rule)


for _op, _accepts in UNARY_ACCEPTS.items():
    unary(_op, _accepts)
unary(Op.ABS, _NUMERIC, dt.real_dtype)  # |complex| is real
unary(Op.IS_FINITE, _FLOAT, lambda d: dt.bool_)
unary(Op.REAL, _COMPLEX, dt.real_dtype)
unary(Op.IMAG, _COMPLEX, dt.real_dtype)

for _op in (Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.POW, Op.MAX, Op.MIN):
    binary(_op, _ANY if _op in (Op.MAX, Op.MIN) else _NUMERIC)
binary(Op.REM, (lambda d: _numeric(d) and not dt.is_complex(d), "a real numeric"))
binary(Op.ATAN2, _FLOAT)
binary(Op.NEXTAFTER, _FLOAT)
for _op in (Op.IGAMMA, Op.IGAMMAC, Op.ZETA):
    binary(_op, _FLOAT)
for _op in BITWISE:
    binary(_op, _INTEGRAL if _op in (Op.AND, Op.OR, Op.XOR) else _INT)
for _op in COMPARE:
    binary(_op, _ANY, lambda d: dt.bool_)
binary(Op.COMPLEX, (lambda d: d in (dt.float32, dt.float64), "a float32/float64"),
       dt.complex_dtype)


def _select_rule(operands, attrs):
    pred, on_true, on_false = operands
    shape = same_shapes(Op.SELECT, operands)
    if pred.dtype != dt.bool_:
        raise DTypeError(f"SELECT: predicate must be bool, got {pred.dtype}")
    return shape, same_dtypes(Op.SELECT, (on_true, on_false))


def _clamp_rule(operands, attrs):
    shape = same_shapes(Op.CLAMP, operands)
    return shape, same_dtypes(Op.CLAMP, operands)


def _convert_rule(operands, attrs):
    (x,), (dtype,) = operands, attrs
    return x.shape, dtype


def _bitcast_rule(operands, attrs):
    """StableHLO's: a wider item splits into a new last axis of the size
    ratio; a narrower one consumes a last axis of that ratio."""
    (x,), (dtype,) = operands, attrs
    wide, narrow = x.dtype.itemsize, dtype.itemsize
    if wide > narrow:
        return (*x.shape, wide // narrow), dtype
    if wide < narrow and (not x.shape or x.shape[-1] * wide != narrow):
        raise DTypeError(f"BITCAST_CONVERT: {x.dtype} to {dtype} needs a last axis of "
                         f"{narrow // wide}, got shape {x.shape}")
    return x.shape[:-1] if wide < narrow else x.shape, dtype


def _zero_safe_grad_rule(operands, attrs):
    """The wrapped op's own rule (its name in ``attrs``): a unary op of the
    same dtype, or a binary arithmetic one (``1 / x``) with its two operands."""
    (name,) = attrs
    inner = Op.__members__.get(name)
    if inner not in UNARY_SAME | BINARY_ARITH:
        raise DTypeError(f"ZERO_SAFE_GRAD wraps a unary op of the same dtype or a binary "
                         f"arithmetic op, not {name}")
    if len(operands) != OPDEFS[inner].arity:
        raise DTypeError(f"ZERO_SAFE_GRAD of {name} takes {OPDEFS[inner].arity} operands, "
                         f"got {len(operands)}")
    return OPDEFS[inner].rule(operands, ())


register(Op.SELECT, 3, (), _select_rule)
register(Op.ZERO_SAFE_GRAD, None, ("op",), _zero_safe_grad_rule)
register(Op.CLAMP, 3, (), _clamp_rule)
register(Op.CONVERT, 1, ("dtype",), _convert_rule)
register(Op.BITCAST_CONVERT, 1, ("dtype",), _bitcast_rule)
