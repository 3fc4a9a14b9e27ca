"""numpy's ufuncs by name: the node function computing each one on operands
already in its loop dtype (and broadcast together, except for gufuncs), what
``ufunc.reduce`` / ``ufunc.accumulate`` map to, and the one primitive that
computes it exactly where there is one. Shared by the numpy frontend (keyed
by ``np.ufunc`` there) and the tf.experimental.numpy frontend (its
elementwise tables pick entries by name).

>>> UFUNCS["add"].reduce, UFUNCS["maximum"].accumulate
('sum', <Op.CUMMAX: ...>)
>>> direct_op("add", np.dtype("bool"))
<Op.OR: ...>
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import (
    apply,
    arithmetic,
    division,
    ordering,
    predicates,
    rounding,
)
from lazytensor.core.composite.elementwise.apply import convert
from lazytensor.core.composite.linalg.matmul import matmul as _core_matmul
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


@dataclass(frozen=True, slots=True)
class Ufunc:
    """One ufunc: ``fn`` over loop-dtype operands (a Node, or a tuple of Nodes
    for several outputs), the reduction kind (``reduction.reduce``), the scan
    op of ``accumulate`` (or a ``folds`` kind, scanned by ``folds.scan``),
    and whether it has core dimensions (a gufunc)."""

    fn: Callable[..., Node | tuple]
    reduce: str | None = None
    accumulate: Op | str | None = None
    gufunc: bool = False


def prim(op: Op) -> Callable[..., Node]:
    """A core primitive as a node function."""
    return lambda *xs: make(op, xs)


def identity(x: Node) -> Node:
    return x


def conj(x: Node) -> Node:
    """Complex conjugate (real dtypes unchanged)."""
    return make(Op.CONJ, (x,)) if dt.is_complex(x.dtype) else x


# ------------------------------------------------------------------ gufuncs

def matmul(a: Node, b: Node) -> Node:
    """(..., n, k) @ (..., k, m) -> (..., n, m); bools: logical or of ands
    (computed in int32), as numpy's logical matmul."""
    if dt.is_bool(a.dtype):
        out = _core_matmul(convert(a, dt.int32), convert(b, dt.int32))
        return make(Op.NE, (out, apply.const(0, out)))
    return _core_matmul(a, b)


def _as_rows(x: Node) -> Node:
    """(..., n) -> (..., 1, n)."""
    return make(Op.RESHAPE, (x,), x.shape[:-1] + (1, x.shape[-1]))


def _as_column(x: Node) -> Node:
    """(..., n) -> (..., n, 1)."""
    return make(Op.RESHAPE, (x,), x.shape + (1,))


def vecdot(a: Node, b: Node) -> Node:
    """sum(conj(a) * b, axis=-1) with broadcasting: (..., n), (..., n) -> (...)."""
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("vecdot: Input operand does not have enough dimensions")
    if a.shape[-1] != b.shape[-1]:
        raise ShapeError(
            f"vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature (n),(n)->() (size {b.shape[-1]} is different from {a.shape[-1]})")
    out = matmul(_as_rows(conj(a)), _as_column(b))
    return make(Op.RESHAPE, (out,), out.shape[:-2])


def matvec(a: Node, b: Node) -> Node:
    """(..., m, n), (..., n) -> (..., m)."""
    if a.ndim < 2 or b.ndim < 1:
        raise ShapeError("matvec: Input operand does not have enough dimensions")
    out = matmul(a, _as_column(b))
    return make(Op.RESHAPE, (out,), out.shape[:-1])


def vecmat(a: Node, b: Node) -> Node:
    """(..., n), (..., n, m) -> (..., m), conjugating the vector."""
    if a.ndim < 1 or b.ndim < 2:
        raise ShapeError("vecmat: Input operand does not have enough dimensions")
    out = matmul(_as_rows(conj(a)), b)
    return make(Op.RESHAPE, (out,), out.shape[:-2] + out.shape[-1:])


# -------------------------------------------------------------------- table

def _cmp(op: Op) -> Callable[..., Node]:
    return partial(ordering.compare, op)


_PRIMITIVE = {  # ufuncs that are one core op on every loop dtype
    "negative": Op.NEG, "subtract": Op.SUB, "sqrt": Op.SQRT, "cbrt": Op.CBRT, "exp": Op.EXP,
    "exp2": Op.EXP2, "expm1": Op.EXPM1, "log": Op.LOG, "log1p": Op.LOG1P, "sin": Op.SIN,
    "cos": Op.COS, "tan": Op.TAN, "arcsin": Op.ASIN, "arccos": Op.ACOS, "arctan": Op.ATAN,
    "arctan2": Op.ATAN2, "sinh": Op.SINH, "cosh": Op.COSH, "tanh": Op.TANH,
    "arcsinh": Op.ASINH, "arccosh": Op.ACOSH, "arctanh": Op.ATANH, "equal": Op.EQ,
    "not_equal": Op.NE, "nextafter": Op.NEXTAFTER, "bitwise_and": Op.AND,
    "bitwise_or": Op.OR, "bitwise_xor": Op.XOR, "invert": Op.NOT, "left_shift": Op.SHIFT_LEFT,
}

_COMPOSITE = {  # ufuncs written as composites of the elementwise family
    "divide": division.true_divide, "floor_divide": division.floor_divide,
    "remainder": division.remainder, "fmod": division.fmod,
    "divmod": division.divmod_, "power": arithmetic.power, "float_power": arithmetic.float_power,
    "positive": identity, "absolute": arithmetic.absolute, "fabs": arithmetic.absolute,
    "sign": arithmetic.sign, "conjugate": conj, "square": arithmetic.square,
    "reciprocal": division.reciprocal, "log2": arithmetic.log2, "log10": arithmetic.log10,
    "logaddexp2": arithmetic.logaddexp2, "ldexp": arithmetic.ldexp, "hypot": arithmetic.hypot,
    "deg2rad": arithmetic.deg2rad, "rad2deg": arithmetic.rad2deg, "radians": arithmetic.deg2rad,
    "degrees": arithmetic.rad2deg, "floor": rounding.floor, "ceil": rounding.ceil,
    "trunc": rounding.trunc, "rint": rounding.rint, "modf": rounding.modf,
    "frexp": arithmetic.frexp, "less": _cmp(Op.LT), "less_equal": _cmp(Op.LE),
    "greater": _cmp(Op.GT), "greater_equal": _cmp(Op.GE), "fmax": ordering.fmax,
    "fmin": ordering.fmin, "isnan": predicates.isnan, "isinf": predicates.isinf,
    "isfinite": predicates.isfinite, "signbit": predicates.signbit,
    "copysign": predicates.copysign, "heaviside": arithmetic.heaviside,
    "logical_xor": predicates.logical(Op.XOR), "logical_not": predicates.logical_not,
    "right_shift": arithmetic.right_shift, "bitwise_count": arithmetic.bitwise_count,
    "gcd": division.gcd, "lcm": division.lcm,
}

UFUNCS: dict[str, Ufunc] = {
    **{name: Ufunc(prim(op)) for name, op in _PRIMITIVE.items()},
    **{name: Ufunc(fn) for name, fn in _COMPOSITE.items()},
    # with a reduction and / or a scan
    "add": Ufunc(arithmetic.add_or, "sum", Op.CUMSUM),
    "multiply": Ufunc(arithmetic.mul_and, "prod", Op.CUMPROD),
    "maximum": Ufunc(ordering.maximum, "max", Op.CUMMAX),
    "minimum": Ufunc(ordering.minimum, "min", Op.CUMMIN),
    "logaddexp": Ufunc(arithmetic.logaddexp, "logsumexp", Op.CUMLOGSUMEXP),
    "logical_and": Ufunc(predicates.logical(Op.AND), "all"),
    "logical_or": Ufunc(predicates.logical(Op.OR), "any"),
    # reduced and scanned by composite.reduce.folds (no reduce primitive)
    "bitwise_and": Ufunc(prim(Op.AND), "bitwise_and", "bitwise_and"),
    "bitwise_or": Ufunc(prim(Op.OR), "bitwise_or", "bitwise_or"),
    "bitwise_xor": Ufunc(prim(Op.XOR), "bitwise_xor", "bitwise_xor"),
    "logical_xor": Ufunc(predicates.logical(Op.XOR), "logical_xor", "logical_xor"),
    # gufuncs: operands are converted, not broadcast together
    "matmul": Ufunc(matmul, gufunc=True), "vecdot": Ufunc(vecdot, gufunc=True),
    "matvec": Ufunc(matvec, gufunc=True), "vecmat": Ufunc(vecmat, gufunc=True),
}

# Python's binary operators (``__add__``...) -> the ufunc each one is, and the comparisons
OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
}
COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
               "gt": "greater", "ge": "greater_equal"}

# comparisons: what a comparison with an out-of-range Python int gives
# (numpy 2 answers these exactly instead of raising OverflowError)
ABOVE_RANGE = {"equal": False, "not_equal": True, "less": True, "less_equal": True,
               "greater": False, "greater_equal": False}
MIRROR = {"less": "greater", "greater": "less", "less_equal": "greater_equal",
          "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}

# name -> {dtype category (or "*" for any): the one primitive that computes it
# exactly on loop-dtype operands}: a frontend's fast path may skip the composite
_REAL = ("b", "i", "u", "f")
DIRECT: dict[str, dict[str, Op]] = {
    "add": {"*": Op.ADD, "b": Op.OR}, "subtract": {"*": Op.SUB},
    "multiply": {"*": Op.MUL, "b": Op.AND}, "divide": {"*": Op.DIV},
    "power": {"f": Op.POW, "c": Op.POW}, "equal": {"*": Op.EQ}, "not_equal": {"*": Op.NE},
    **{name: dict.fromkeys(_REAL, op) for name, op in (
        ("less", Op.LT), ("less_equal", Op.LE), ("greater", Op.GT), ("greater_equal", Op.GE),
        ("maximum", Op.MAX), ("minimum", Op.MIN))},
    **{name: {"*": op} for name, op in (
        ("bitwise_and", Op.AND), ("bitwise_or", Op.OR), ("bitwise_xor", Op.XOR),
        ("left_shift", Op.SHIFT_LEFT), ("arctan2", Op.ATAN2), ("negative", Op.NEG),
        ("exp", Op.EXP), ("log", Op.LOG), ("sqrt", Op.SQRT), ("sin", Op.SIN),
        ("cos", Op.COS), ("tanh", Op.TANH), ("invert", Op.NOT))},
    "absolute": dict.fromkeys(("i", "f"), Op.ABS),  # complex: arithmetic.absolute (infinite parts)
}


def direct_op(name: str, dtype: np.dtype) -> Op | None:
    """The single primitive computing ufunc ``name`` on loop dtype ``dtype``, if any."""
    table = DIRECT.get(name)
    if table is None:
        return None
    return table.get(dt.category(dtype), table.get("*"))
