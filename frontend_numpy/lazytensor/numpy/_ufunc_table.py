"""The ufunc table: ``np.ufunc -> UfuncImpl`` (the core composite computing
it in the loop dtype numpy chose, plus what ``reduce``/``accumulate`` map to).

Implementations receive operands already converted to numpy's loop dtypes and
broadcast to one shape (gufuncs: converted only) and return a Node, or a tuple
of Nodes for ufuncs with several outputs. A ufunc missing here runs eagerly in
numpy (``_fallback``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import npextra as npx
from lazytensor.core.composite import tnp_shared as shared
from lazytensor.core.composite.elementwise import convert
from lazytensor.core.composite.linalg import matmul
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make

import numpy as np


@dataclass(frozen=True, slots=True)
class UfuncImpl:
    fn: Callable[..., Node | tuple]
    reduce: str | None = None  # kind for composite.reduction.reduce
    accumulate: Op | None = None  # scan op for ufunc.accumulate
    gufunc: bool = False  # has core dimensions: operands are not broadcast together


def _prim(op: Op) -> Callable[..., Node]:
    return lambda *xs: make(op, xs)


def _identity(x: Node) -> Node:
    return x


def _conj(x: Node) -> Node:
    return make(Op.CONJ, (x,)) if dt.is_complex(x.dtype) else x


def _bool_dot(a: Node, b: Node, contract) -> Node:
    """Products of bools: logical or of ands, computed in int32."""
    out = contract(convert(a, dt.int32), convert(b, dt.int32))
    return make(Op.NE, (out, npx.const(0, out)))


def _matmul(a: Node, b: Node) -> Node:
    """(..., n, k) @ (..., k, m) -> (..., n, m)."""
    if dt.is_bool(a.dtype):
        return _bool_dot(a, b, matmul)
    return matmul(a, b)


def _vecdot(a: Node, b: Node) -> Node:
    """sum(conj(a) * b, axis=-1) with broadcasting: (..., n), (..., n) -> (...)."""
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("vecdot: Input operand does not have enough dimensions")
    if a.shape[-1] != b.shape[-1]:
        raise ShapeError(
            f"vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature (n),(n)->() (size {b.shape[-1]} is different from {a.shape[-1]})")
    a2 = make(Op.RESHAPE, (_conj(a),), a.shape[:-1] + (1, a.shape[-1]))
    b2 = make(Op.RESHAPE, (b,), b.shape + (1,))
    out = _matmul(a2, b2)
    return make(Op.RESHAPE, (out,), out.shape[:-2])


def _matvec(a: Node, b: Node) -> Node:
    """(..., m, n), (..., n) -> (..., m)."""
    if a.ndim < 2 or b.ndim < 1:
        raise ShapeError("matvec: Input operand does not have enough dimensions")
    out = _matmul(a, make(Op.RESHAPE, (b,), b.shape + (1,)))
    return make(Op.RESHAPE, (out,), out.shape[:-1])


def _vecmat(a: Node, b: Node) -> Node:
    """(..., n), (..., n, m) -> (..., m), conjugating the vector."""
    if a.ndim < 1 or b.ndim < 2:
        raise ShapeError("vecmat: Input operand does not have enough dimensions")
    out = _matmul(make(Op.RESHAPE, (_conj(a),), a.shape[:-1] + (1, a.shape[-1])), b)
    return make(Op.RESHAPE, (out,), out.shape[:-2] + out.shape[-1:])


def _cmp(op: Op) -> Callable[..., Node]:
    return partial(npx.compare, op)


def _op(op: Op) -> UfuncImpl:
    return UfuncImpl(_prim(op))


UFUNCS: dict[np.ufunc, UfuncImpl] = {
    # arithmetic
    np.add: UfuncImpl(npx.add_or, "sum", Op.CUMSUM),
    np.subtract: UfuncImpl(_prim(Op.SUB)),
    np.multiply: UfuncImpl(npx.mul_and, "prod", Op.CUMPROD),
    np.divide: UfuncImpl(npx.true_divide),
    np.floor_divide: UfuncImpl(npx.floor_divide),
    np.remainder: UfuncImpl(npx.remainder),
    np.fmod: UfuncImpl(npx.fmod),
    np.divmod: UfuncImpl(npx.divmod_),
    np.power: UfuncImpl(npx.power),
    np.float_power: UfuncImpl(npx.float_power),
    np.negative: _op(Op.NEG),
    np.positive: UfuncImpl(_identity),
    np.absolute: UfuncImpl(npx.absolute),
    np.fabs: UfuncImpl(npx.absolute),
    np.sign: UfuncImpl(npx.sign),
    np.conjugate: UfuncImpl(_conj),
    np.square: UfuncImpl(npx.square),
    np.reciprocal: UfuncImpl(npx.reciprocal),
    np.sqrt: _op(Op.SQRT),
    np.cbrt: _op(Op.CBRT),
    # exponents and logarithms
    np.exp: _op(Op.EXP),
    np.exp2: _op(Op.EXP2),
    np.expm1: _op(Op.EXPM1),
    np.log: _op(Op.LOG),
    np.log2: UfuncImpl(npx.log2),
    np.log10: UfuncImpl(npx.log10),
    np.log1p: _op(Op.LOG1P),
    np.logaddexp: UfuncImpl(npx.logaddexp, None, Op.CUMLOGSUMEXP),
    np.logaddexp2: UfuncImpl(npx.logaddexp2),
    np.ldexp: UfuncImpl(npx.ldexp),
    # trigonometric and hyperbolic
    np.sin: _op(Op.SIN),
    np.cos: _op(Op.COS),
    np.tan: _op(Op.TAN),
    np.arcsin: _op(Op.ASIN),
    np.arccos: _op(Op.ACOS),
    np.arctan: _op(Op.ATAN),
    np.arctan2: _op(Op.ATAN2),
    np.sinh: _op(Op.SINH),
    np.cosh: _op(Op.COSH),
    np.tanh: _op(Op.TANH),
    np.arcsinh: _op(Op.ASINH),
    np.arccosh: _op(Op.ACOSH),
    np.arctanh: _op(Op.ATANH),
    np.hypot: UfuncImpl(npx.hypot),
    np.deg2rad: UfuncImpl(npx.deg2rad),
    np.rad2deg: UfuncImpl(npx.rad2deg),
    np.radians: UfuncImpl(npx.deg2rad),
    np.degrees: UfuncImpl(npx.rad2deg),
    # rounding
    np.floor: UfuncImpl(npx.floor),
    np.ceil: UfuncImpl(npx.ceil),
    np.trunc: UfuncImpl(npx.trunc),
    np.rint: UfuncImpl(npx.rint),
    np.modf: UfuncImpl(npx.modf),
    # comparisons and extrema
    np.equal: UfuncImpl(_prim(Op.EQ)),
    np.not_equal: UfuncImpl(_prim(Op.NE)),
    np.less: UfuncImpl(_cmp(Op.LT)),
    np.less_equal: UfuncImpl(_cmp(Op.LE)),
    np.greater: UfuncImpl(_cmp(Op.GT)),
    np.greater_equal: UfuncImpl(_cmp(Op.GE)),
    np.maximum: UfuncImpl(npx.maximum, "max", Op.CUMMAX),
    np.minimum: UfuncImpl(npx.minimum, "min", Op.CUMMIN),
    np.fmax: UfuncImpl(npx.fmax),
    np.fmin: UfuncImpl(npx.fmin),
    # floating-point classification
    np.isnan: UfuncImpl(npx.isnan),
    np.isinf: UfuncImpl(npx.isinf),
    np.isfinite: UfuncImpl(npx.isfinite),
    np.signbit: UfuncImpl(npx.signbit),
    np.copysign: UfuncImpl(npx.copysign),
    np.nextafter: _op(Op.NEXTAFTER),
    np.heaviside: UfuncImpl(npx.heaviside),
    # logic and bits
    np.logical_and: UfuncImpl(npx.logical(Op.AND), "all"),
    np.logical_or: UfuncImpl(npx.logical(Op.OR), "any"),
    np.logical_xor: UfuncImpl(npx.logical(Op.XOR)),
    np.logical_not: UfuncImpl(npx.logical_not),
    np.bitwise_and: _op(Op.AND),
    np.bitwise_or: _op(Op.OR),
    np.bitwise_xor: _op(Op.XOR),
    np.invert: _op(Op.NOT),
    np.left_shift: _op(Op.SHIFT_LEFT),
    np.right_shift: UfuncImpl(npx.right_shift),
    np.bitwise_count: UfuncImpl(npx.bitwise_count),
    np.gcd: UfuncImpl(shared.gcd),
    np.lcm: UfuncImpl(shared.lcm),
    # gufuncs
    np.matmul: UfuncImpl(_matmul, gufunc=True),
    np.vecdot: UfuncImpl(_vecdot, gufunc=True),
    np.matvec: UfuncImpl(_matvec, gufunc=True),
    np.vecmat: UfuncImpl(_vecmat, gufunc=True),
}

# comparisons: what a comparison with an out-of-range Python int gives
# (numpy 2 answers these exactly instead of raising OverflowError)
ABOVE_RANGE = {np.equal: False, np.not_equal: True, np.less: True, np.less_equal: True,
               np.greater: False, np.greater_equal: False}
MIRROR = {np.less: np.greater, np.greater: np.less, np.less_equal: np.greater_equal,
          np.greater_equal: np.less_equal, np.equal: np.equal, np.not_equal: np.not_equal}


# ufunc -> {dtype category (or "*" for any): the one primitive that computes it
# exactly on loop-dtype operands}: the operator fast path skips the composite.
_ANY_REAL = ("b", "i", "u", "f")


def _ops(op: Op, kinds=("*",), **special) -> dict:
    return {**{k: op for k in kinds}, **special}


DIRECT: dict[np.ufunc, dict] = {
    np.add: _ops(Op.ADD, b=Op.OR),
    np.subtract: _ops(Op.SUB),
    np.multiply: _ops(Op.MUL, b=Op.AND),
    np.divide: _ops(Op.DIV),
    np.power: _ops(Op.POW, ("f", "c")),
    np.equal: _ops(Op.EQ),
    np.not_equal: _ops(Op.NE),
    np.less: _ops(Op.LT, _ANY_REAL),
    np.less_equal: _ops(Op.LE, _ANY_REAL),
    np.greater: _ops(Op.GT, _ANY_REAL),
    np.greater_equal: _ops(Op.GE, _ANY_REAL),
    np.maximum: _ops(Op.MAX, ("b", "i", "u", "f")),
    np.minimum: _ops(Op.MIN, ("b", "i", "u", "f")),
    np.bitwise_and: _ops(Op.AND),
    np.bitwise_or: _ops(Op.OR),
    np.bitwise_xor: _ops(Op.XOR),
    np.left_shift: _ops(Op.SHIFT_LEFT),
    np.arctan2: _ops(Op.ATAN2),
    np.negative: _ops(Op.NEG),
    np.exp: _ops(Op.EXP),
    np.log: _ops(Op.LOG),
    np.sqrt: _ops(Op.SQRT),
    np.sin: _ops(Op.SIN),
    np.cos: _ops(Op.COS),
    np.tanh: _ops(Op.TANH),
    np.invert: _ops(Op.NOT),
    np.absolute: _ops(Op.ABS, ("i", "f", "c")),
}


def direct_op(ufunc: np.ufunc, dtype: np.dtype) -> Op | None:
    """The single primitive computing ``ufunc`` on loop dtype ``dtype``, if any."""
    table = DIRECT.get(ufunc)
    if table is None:
        return None
    return table.get(dt.category(dtype), table.get("*"))
