"""Complex elementary functions at infinities, NaNs and signed zeros, as
C99 Annex G (and numpy, and the Array API standard) define them.

XLA computes exp, sinh, tanh... of a complex operand from real formulas
that meet ``inf * 0`` or ``inf - inf`` at the special values (exp(+inf + 0j)
is inf + NaN j where C99 gives inf + 0j, exp(-inf + inf j) NaN + NaN j for
0 + 0j) and that drop the sign of a zero part. C99 defines the functions by
their symmetries, f(conj z) = conj f(z) for all of them, and f(-z) = -f(z)
(sinh, tanh, asinh, atanh) or f(-z) = f(z) (cosh); so each is computed on
w = a + i|b| (|a| + i|b| for the odd and even ones), where a table of
Annex G's special cases (``RULES``, one line each) overrides XLA's values,
and mapped back by those symmetries. Functions with a branch cut take their
side of it from ``branch_cuts.signed_zero_cut``. Where numpy departs from
C99 (expm1(+inf + 0j), numpy inf + NaN j), C99's value is kept, and the
Array API standard's where it fixes a sign C99 leaves open (expm1(-0 + 0j)
= 0 + 0j, tanh(+inf + bj) = 1 + 0j).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import arithmetic
from lazytensor.core.composite.elementwise.apply import as_node
from lazytensor.core.composite.elementwise.branch_cuts import CUT, signed_zero_cut
from lazytensor.core.composite.elementwise.predicates import isinf, isnan, signbit
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

ODD = frozenset({Op.SINH, Op.TANH, Op.ASIN, Op.ASINH, Op.ATANH})  # f(-z) = -f(z)
EVEN = frozenset({Op.COSH})  # f(-z) = f(z)
INF, NAN, HALF_PI = math.inf, math.nan, math.pi / 2


class _Parts:
    """The reduced parts a (>= +0 for odd and even functions) and b (>= +0
    or NaN) of w, with the predicates the rules read."""

    def __init__(self, a: Node, b: Node, re: Node) -> None:
        self.a, self.b, self.re = a, b, re  # re: the operand's own real part

    def eq(self, part: Node, value: float) -> Node:
        return make(Op.EQ, (part, _const(value, part)))

    def nan(self, part: Node) -> Node:
        return isnan(part)

    def finite(self, part: Node) -> Node:
        return make(Op.IS_FINITE, (part,))

    def inf(self, part: Node) -> Node:
        return isinf(part)


def _const(value: float, like: Node) -> Node:
    return as_node(value, like.dtype, like.shape)


def _and(*preds: Node) -> Node:
    out = preds[0]
    for p in preds[1:]:
        out = make(Op.AND, (out, p))
    return out


def _not(p: Node) -> Node:
    return make(Op.NOT, (p,))


# A rule: (condition on the reduced parts, (real, imag) of the result: a
# float or "a"/"b" for that part). Annex G's cases that XLA already meets
# are left out.
Rule = tuple[Callable[[_Parts], Node], tuple]
_POS_INF_NONFINITE_B = (lambda p: _and(p.eq(p.a, INF), _not(p.finite(p.b))), (INF, NAN))
_NAN_A_ZERO_B = (lambda p: _and(p.nan(p.a), p.eq(p.b, 0.0)), (NAN, "b"))
_POS_INF_ZERO_B = (lambda p: _and(p.eq(p.a, INF), p.eq(p.b, 0.0)), (INF, "b"))
# any NaN part gives NaN + NaN j, but for the cases the tables list
_ANY_NAN = (lambda p: make(Op.OR, (p.nan(p.a), p.nan(p.b))), (NAN, NAN))
_INF_A_NAN_B = (lambda p: _and(p.inf(p.a), p.nan(p.b)))
_NAN_A_INF_B = (lambda p: _and(p.nan(p.a), p.inf(p.b)))
_LOG_INF_NAN = (lambda p: make(Op.OR, (_and(p.inf(p.a), p.nan(p.b)),
                                        _and(p.nan(p.a), p.inf(p.b)))), (INF, NAN))

RULES: dict[Op, tuple[Rule, ...]] = {
    Op.EXP: (_POS_INF_ZERO_B, _POS_INF_NONFINITE_B, _NAN_A_ZERO_B,
             (lambda p: _and(p.eq(p.a, -INF), _not(p.finite(p.b))), (0.0, 0.0))),
    Op.EXPM1: (_POS_INF_ZERO_B, _POS_INF_NONFINITE_B, _NAN_A_ZERO_B,
               (lambda p: _and(p.eq(p.a, -INF), _not(p.finite(p.b))), (-1.0, 0.0)),
               # the standard's 0 + 0j for either zero (numpy: -0 + 0j from -0)
               (lambda p: _and(p.eq(p.a, 0.0), p.eq(p.b, 0.0)), (0.0, "b"))),
    Op.LOG: (_LOG_INF_NAN,),
    Op.LOG1P: (_LOG_INF_NAN,),
    Op.SQRT: ((lambda p: p.inf(p.b), (INF, INF)),
              (lambda p: _and(p.eq(p.a, -INF), p.nan(p.b)), (NAN, INF)),
              (lambda p: _and(p.eq(p.a, INF), p.nan(p.b)), (INF, NAN))),
    Op.SINH: ((lambda p: _and(p.eq(p.a, 0.0), _not(p.finite(p.b))), (0.0, NAN)),
              _POS_INF_ZERO_B, _NAN_A_ZERO_B),
    Op.COSH: (_POS_INF_ZERO_B, _POS_INF_NONFINITE_B, _NAN_A_ZERO_B),
    Op.TANH: ((lambda p: _and(p.eq(p.a, 0.0), _not(p.finite(p.b))), (0.0, NAN)),
              _NAN_A_ZERO_B,
              # the standard's 1 + 0j (C99: 1 + 0 sin(2b), numpy's)
              (lambda p: _and(p.eq(p.a, INF), p.finite(p.b)), (1.0, 0.0))),
    Op.ACOS: ((lambda p: _and(p.eq(p.a, 0.0), p.nan(p.b)), (HALF_PI, NAN)),
              (_INF_A_NAN_B, (NAN, -INF)), (_NAN_A_INF_B, (NAN, -INF))),
    Op.ACOSH: ((lambda p: _and(p.eq(p.a, 0.0), p.nan(p.b)), (NAN, HALF_PI)),
               (_INF_A_NAN_B, (INF, NAN)), (_NAN_A_INF_B, (INF, NAN))),
    Op.ASINH: (_NAN_A_ZERO_B, (_INF_A_NAN_B, (INF, NAN)), (_NAN_A_INF_B, (INF, NAN))),
    Op.ASIN: ((lambda p: _and(p.eq(p.a, 0.0), p.nan(p.b)), ("a", NAN)),
              (_NAN_A_INF_B, (NAN, INF))),
    Op.ATANH: ((lambda p: _and(p.nan(p.b), make(Op.OR, (p.eq(p.a, 0.0), p.eq(p.a, INF)))),
                (0.0, NAN)),
               (lambda p: _and(p.nan(p.b), p.finite(p.a), _not(p.eq(p.a, 0.0))), (NAN, NAN)),
               (lambda p: _and(p.nan(p.a), _not(p.inf(p.b))), (NAN, NAN)),
               (lambda p: _and(p.nan(p.a), p.inf(p.b)), (0.0, HALF_PI))),
}


# Rules whose zero part is +0 whatever the operand's signs (C99 leaves the
# sign unspecified; numpy's): applied after the symmetries
UNSIGNED: dict[Op, tuple[Rule, ...]] = {
    Op.COSH: ((lambda p: _and(p.eq(p.a, 0.0), _not(p.finite(p.b))), (NAN, 0.0)),),
    Op.SINH: (_POS_INF_NONFINITE_B,),
    Op.ASIN: ((_INF_A_NAN_B, (NAN, INF)),),
    Op.TANH: ((_INF_A_NAN_B, ("sign re", 0.0)),),
}


def _value(p: _Parts, spec) -> Node:
    if spec == "sign re":
        return make(Op.SIGN, (p.re,))
    return p.a if spec == "a" else p.b if spec == "b" else _const(spec, p.a)


def _apply(rules: tuple[Rule, ...], p: _Parts, out: Node) -> Node:
    for condition, (real, imag) in rules:
        special = make(Op.COMPLEX, (_value(p, real), _value(p, imag)))
        out = make(Op.SELECT, (condition(p), special, out))
    return out


def c99(op: Op) -> Callable[[Node], Node]:
    """``op`` (one of ``RULES``) with Annex G's values for complex operands
    (real ones go to the primitive, or to the branch-cut form); same shape
    and dtype as ``op``.

    >>> from lazytensor.core.leaves import scalar
    >>> c99(Op.EXP)(scalar(complex(-math.inf, math.inf), dt.complex128)).dtype
    dtype('complex128')
    """
    if op not in RULES:
        raise ValueError(f"{op} has no Annex G table here")
    base = signed_zero_cut(op) if op in CUT else (lambda x: make(op, (x,)))

    def fn(x: Node) -> Node:
        if not dt.is_complex(x.dtype):
            return base(x)
        re, im = make(Op.REAL, (x,)), make(Op.IMAG, (x,))
        flip_b = _and(signbit(im), _not(isnan(im)))
        symmetric = op in ODD or op in EVEN
        flip_a = _and(signbit(re), _not(isnan(re))) if symmetric else None
        p = _Parts(make(Op.ABS, (re,)) if symmetric else re, make(Op.ABS, (im,)), re)
        out = base(make(Op.COMPLEX, (p.a, p.b)))
        out = _apply((_ANY_NAN, *RULES[op]), p, out)
        conj = flip_b if flip_a is None else make(Op.XOR, (flip_a, flip_b))
        out = make(Op.SELECT, (conj, make(Op.CONJ, (out,)), out))
        if op in ODD:
            out = make(Op.SELECT, (flip_a, make(Op.NEG, (out,)), out))
        return _apply(UNSIGNED.get(op, ()), p, out)

    return fn


def log_base(base: float) -> Callable[[Node], Node]:
    """log2/log10 (``base`` 2 or 10): a complex operand's Annex G log with
    each part divided by ln(base), as numpy's (a complex division would turn
    -inf + 0j into -inf + NaN j); real operands as ``arithmetic``'s."""
    real = {2.0: arithmetic.log2, 10.0: arithmetic.log10}[base]
    log = c99(Op.LOG)

    def fn(x: Node) -> Node:
        if not dt.is_complex(x.dtype):
            return real(x)
        ln = log(x)
        re, im = make(Op.REAL, (ln,)), make(Op.IMAG, (ln,))
        scale = _const(math.log(base), re)
        return make(Op.COMPLEX, (make(Op.DIV, (re, scale)), make(Op.DIV, (im, scale))))

    return fn
