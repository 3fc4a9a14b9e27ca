"""The ufunc table: ``np.ufunc -> Ufunc``, numpy's objects bound to the
core's ufuncs by name (``composite.elementwise.ufuncs``: the composite computing each one
in the loop dtype numpy chose, plus what ``reduce``/``accumulate`` map to).

Implementations receive operands already converted to numpy's loop dtypes and
broadcast to one shape (gufuncs: converted only) and return a Node, or a tuple
of Nodes for ufuncs with several outputs. A ufunc missing here runs eagerly in
numpy (``_fallback``).
"""

from __future__ import annotations

import dataclasses

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import branch_cuts as branchcuts
from lazytensor.core.composite.elementwise import complex_special
from lazytensor.core.composite.elementwise import ufuncs as cu
from lazytensor.core.composite.elementwise.apply import as_node
from lazytensor.core.composite.elementwise.ufuncs import Ufunc
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

import numpy as np

UFUNCS: dict[np.ufunc, Ufunc] = {getattr(np, name): impl for name, impl in cu.UFUNCS.items()}


def _numpy_complex_power(power):
    """``power`` with numpy's complex loop (npy_cpow) where it does not take
    exp(b log a): ``a ** 0`` is 1; a zero base gives 0 for an exponent with
    a positive real part, else NaN; the exponents 1, 2, 3 and -1 multiply or
    divide (``a ** 2`` is ``a * a`` exactly). numpy's binary powering for
    the other integers below 100 is left to exp(b log a) (an ulp apart), as
    it would add some 50 nodes to every complex power."""
    def fn(a: Node, b: Node) -> Node:
        out = power(a, b)
        return _cpow(a, b, out) if dt.is_complex(a.dtype) else out

    return fn


def _sel(cond: Node, yes: Node, no: Node) -> Node:
    return make(Op.SELECT, (cond, yes, no))


def _cpow(a: Node, b: Node, out: Node) -> Node:
    def c(value) -> Node:
        return as_node(value, a.dtype, a.shape)

    br = make(Op.REAL, (b,))
    real = make(Op.EQ, (make(Op.IMAG, (b,)), as_node(0, br.dtype, br.shape)))
    square = make(Op.MUL, (a, a))
    for k, exact in ((1, a), (2, square), (3, make(Op.MUL, (a, square))),
                     (-1, make(Op.DIV, (c(1), a)))):
        at_k = make(Op.AND, (real, make(Op.EQ, (br, as_node(k, br.dtype, br.shape)))))
        out = _sel(at_k, exact, out)
    zero_base = make(Op.EQ, (a, c(0)))
    at_zero = _sel(make(Op.GT, (br, as_node(0, br.dtype, br.shape))), c(0),
                   c(complex(np.nan, np.nan)))
    out = _sel(zero_base, at_zero, out)
    return _sel(make(Op.EQ, (b, c(0))), c(1), out)


def _sign(x: Node) -> Node:
    """numpy's complex sign: x / |x|, but an infinite part with a finite
    other part is +-1 along its axis (x / |x| would be inf / inf = NaN)."""
    out = cu.UFUNCS["sign"].fn(x)
    if not dt.is_complex(x.dtype):
        return out
    re, im = make(Op.REAL, (x,)), make(Op.IMAG, (x,))

    def inf(part: Node) -> Node:
        return make(Op.EQ, (make(Op.ABS, (part,)), as_node(np.inf, part.dtype, part.shape)))

    def finite(part: Node) -> Node:
        return make(Op.IS_FINITE, (part,))

    zero = as_node(0, re.dtype, re.shape)
    along_re = make(Op.COMPLEX, (make(Op.SIGN, (re,)), zero))
    along_im = make(Op.COMPLEX, (zero, make(Op.SIGN, (im,))))
    out = _sel(make(Op.AND, (inf(re), finite(im))), along_re, out)
    out = _sel(make(Op.AND, (inf(im), finite(re))), along_im, out)
    both_zero = make(Op.AND, (make(Op.EQ, (re, zero)), make(Op.EQ, (im, zero))))
    return _sel(both_zero, make(Op.COMPLEX, (zero, zero)), out)  # +0 + 0j, signs dropped


UFUNCS[np.sign] = dataclasses.replace(UFUNCS[np.sign], fn=_sign)
_CUTS = {np.arctan: Op.ATAN}
for _u, _op in _CUTS.items():  # complex: C99's side of the cut for a signed zero part
    UFUNCS[_u] = dataclasses.replace(UFUNCS[_u], fn=branchcuts.signed_zero_cut(_op))
_ANNEX_G = {np.exp: Op.EXP, np.expm1: Op.EXPM1, np.log: Op.LOG, np.log1p: Op.LOG1P,
            np.sqrt: Op.SQRT, np.sinh: Op.SINH, np.cosh: Op.COSH, np.tanh: Op.TANH,
            np.arcsin: Op.ASIN, np.arccos: Op.ACOS, np.arccosh: Op.ACOSH, np.arcsinh: Op.ASINH,
            np.arctanh: Op.ATANH}
for _u, _op in _ANNEX_G.items():  # complex: C99's values at infinities, NaNs, signed zeros
    UFUNCS[_u] = dataclasses.replace(UFUNCS[_u], fn=complex_special.c99(_op))
for _u, _base in ((np.log2, 2.0), (np.log10, 10.0)):
    UFUNCS[_u] = dataclasses.replace(UFUNCS[_u], fn=complex_special.log_base(_base))
for _u in (np.power, np.float_power):
    UFUNCS[_u] = dataclasses.replace(UFUNCS[_u], fn=_numpy_complex_power(UFUNCS[_u].fn))
ABOVE_RANGE = {getattr(np, name): answer for name, answer in cu.ABOVE_RANGE.items()}
MIRROR = {getattr(np, a): getattr(np, b) for a, b in cu.MIRROR.items()}


def direct_op(ufunc: np.ufunc, dtype: np.dtype) -> Op | None:
    """The single primitive computing ``ufunc`` on loop dtype ``dtype``, if any."""
    if dtype.kind == "c" and (ufunc in (np.power, np.float_power, np.sign) or ufunc in _CUTS
                              or ufunc in _ANNEX_G):
        return None  # (_numpy_complex_power, _sign, branchcuts, complex_special)
    return cu.direct_op(ufunc.__name__, dtype)

