"""Elementwise ATen ops: one row per op naming its core op (or shared
composite) and torch's type-promotion kind for it.

Promotion follows torch exactly (``lazytensor.torch._promotion``); the math
is the core's (``lazytensor.core.composite.elementwise``: ``division``,
``rounding`` and ``predicates`` hold the numpy/torch-shared rules).

Ops with a CompositeImplicitAutograd kernel (``fix``, ``square``, ``clip``,
``true_divide``, ``__and__``, ``where.Scalar``...) have no row: torch
decomposes them above ``__torch_dispatch__`` (and, under inference mode,
the dispatcher's ``implicit`` resolver runs the same kernel).
"""

from __future__ import annotations

import warnings

from lazytensor.core import Node, Op, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import (
    arithmetic,
    complex_special,
    ordering,
    predicates,
    special,
)
from lazytensor.core.composite.elementwise import division as division
from lazytensor.core.composite.elementwise import formulas as pw
from lazytensor.core.composite.elementwise import rounding as rounding
from lazytensor.core.composite.elementwise.apply import as_node, convert
from lazytensor.core.composite.nn import activations as act
from lazytensor.core.metrics import user_stacklevel
from lazytensor.torch import _fallback
from lazytensor.torch import _promotion as P
from lazytensor.torch._promotion import key_of
from lazytensor.torch._tensor import LazyTensor, scalar_type_name, wrap
from lazytensor.torch.aten import masked_reads
from lazytensor.torch.aten._common import (
    aten,
    binary_op,
    broadcast_sizes,
    elementwise,
    fast_operands,
    node,
    operand,
    unary_op,
)

import torch
from torch._decomp import decomposition_table

_F32 = dt.float32

# ----------------------------------------------------------------- unary
def _torch_angle(x: Node) -> Node:
    """torch's angle: pi for real x < 0, else 0 (-0.0 too); NaN stays."""
    return arithmetic.angle(x, by_sign=True)


def _angle(x):
    """angle: real for complex input, the default float for integers."""
    return _unary(_torch_angle, P.COMPLEX_TO_FLOAT if x.is_complex() else P.INT_TO_FLOAT)(x)


def _frexp(x):
    """torch.frexp: the core's exact (bit-reading) frexp; an int32 exponent."""
    if not x.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = arithmetic.frexp(node(x), dt.int32)
    return wrap(mantissa), wrap(exponent)


UNARY_FLOAT = {  # a core op or a function; integer inputs become the default float dtype
    aten.exp: Op.EXP, aten.exp2: Op.EXP2, aten.expm1: Op.EXPM1, aten.log: Op.LOG,
    aten.log1p: Op.LOG1P, aten.sqrt: Op.SQRT, aten.rsqrt: Op.RSQRT, aten.sin: Op.SIN,
    aten.cos: Op.COS, aten.tan: Op.TAN, aten.asin: Op.ASIN, aten.acos: Op.ACOS,
    aten.atan: Op.ATAN, aten.sinh: Op.SINH, aten.cosh: Op.COSH, aten.tanh: Op.TANH,
    aten.asinh: Op.ASINH, aten.acosh: Op.ACOSH, aten.atanh: Op.ATANH,
    aten.sigmoid: Op.LOGISTIC, aten.erf: Op.ERF, aten.erfc: Op.ERFC, aten.erfinv: Op.ERF_INV,
    aten.lgamma: Op.LGAMMA, aten.digamma: special.digamma, aten.special_i0e: Op.BESSEL_I0E,
    aten.special_i1e: Op.BESSEL_I1E, aten.log2: arithmetic.log2,
    aten.log10: arithmetic.log10, aten.reciprocal: division.reciprocal, aten.i0: pw.bessel_i0,
    aten.special_i1: pw.bessel_i1, aten.special_modified_bessel_i0: pw.bessel_i0,
    aten.special_modified_bessel_i1: pw.bessel_i1, aten.special_ndtri: pw.ndtri,
    aten.special_spherical_bessel_j0: pw.spherical_bessel_j0, aten.special_erfcx: pw.erfcx,
}
# complex operands: C99 Annex G's values at infinities, NaNs and signed zeros, as
# torch's kernels (std::exp... of libstdc++) give them (its expm1, log1p, acos
# and acosh use formulas of their own at those points: XLA's primitives stay)
UNARY_FLOAT.update({op: complex_special.c99(core) for op, core in (
    (aten.exp, Op.EXP), (aten.log, Op.LOG), (aten.sqrt, Op.SQRT), (aten.sinh, Op.SINH),
    (aten.cosh, Op.COSH), (aten.tanh, Op.TANH),
    (aten.asin, Op.ASIN), (aten.asinh, Op.ASINH), (aten.atanh, Op.ATANH))})
UNARY_FLOAT.update({aten.log2: complex_special.log_base(2.0),
                    aten.log10: complex_special.log_base(10.0)})


def _unary(fn, kind):
    def impl(x):
        n = x._h.node
        if kind is P.DEFAULT or kind is P.INT_TO_FLOAT:  # the hot path: float32 in, out
            if n.dtype is _F32:
                return wrap(fn(n), None if x.is_contiguous() else x.stride())
        computation, result = P.dtypes(kind, (n.dtype, bool(n.shape)))
        out = fn(convert(n, computation))
        return wrap(convert(out, result), None if x.is_contiguous() else x.stride())

    return impl


def _neg(x: Node) -> Node:
    if dt.is_bool(x.dtype):
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return make(Op.NEG, (x,))


def _sign(x: Node) -> Node:
    """torch's sign is 0 at NaN (numpy's and XLA's keep NaN)."""
    if dt.is_bool(x.dtype):
        return x
    return predicates.nan_to_num(arithmetic.sign(x)) if dt.is_float(x.dtype) else arithmetic.sign(x)


UNARY_SAME = {  # (function, promotion kind)
    aten.neg: (_neg, P.DEFAULT), aten.abs: (arithmetic.absolute, P.COMPLEX_TO_FLOAT),
    aten.sign: (_sign, P.DEFAULT), aten.sgn: (_sign, P.DEFAULT),
    aten.floor: (rounding.floor, P.DEFAULT), aten.ceil: (rounding.ceil, P.DEFAULT),
    aten.trunc: (rounding.trunc, P.DEFAULT),
    aten.frac: (pw.frac, P.DEFAULT), aten.relu: (act.relu, P.DEFAULT),
    aten.bitwise_not: (unary_op(Op.NOT), P.DEFAULT),
    aten.isnan: (predicates.isnan, P.ALWAYS_BOOL), aten.isinf: (predicates.isinf, P.ALWAYS_BOOL),
    aten.isposinf: (pw.isposinf, P.ALWAYS_BOOL), aten.isneginf: (pw.isneginf, P.ALWAYS_BOOL),
    aten.signbit: (predicates.signbit, P.ALWAYS_BOOL),
    aten.logical_not: (predicates.logical_not, P.ALWAYS_BOOL),
}


def _round_impl(x, decimals: int = 0):
    return _unary(lambda n: pw.round_to(n, decimals), P.DEFAULT)(x)


def _nan_to_num(x, nan=None, posinf=None, neginf=None):
    fn = lambda n: predicates.nan_to_num(n, 0.0 if nan is None else nan, posinf, neginf)  # noqa: E731
    return _unary(fn, P.DEFAULT)(x)


def _logit(x, eps=None):
    return _unary(lambda n: pw.logit(n, eps), P.INT_TO_FLOAT)(x)


def _conj(x):
    """conj: the conjugate (a copy, not torch's lazily conjugated view)."""
    n = node(x)
    return wrap(make(Op.CONJ, (n,)) if dt.is_complex(n.dtype) else n)


# ----------------------------------------------------------------- binary
def _check_alpha(a, b, alpha) -> None:
    """torch's alpha_check of add/sub: alpha is no float for an integral
    result, no complex for a real one, and bool only for a bool one (an int
    alpha always passes)."""
    if type(alpha) is int:
        return
    result = P.dtypes_of(P.DEFAULT, a, b)[1]
    if isinstance(alpha, bool) and not dt.is_bool(result):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, (float, complex)) and not dt.is_inexact(result):
        raise RuntimeError("For integral input tensors, argument alpha must not be a "
                           "floating point number.")
    if isinstance(alpha, complex) and not dt.is_complex(result):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                           "complex number.")


def _add(alpha_op: Op):
    combine = arithmetic.add_or if alpha_op is Op.ADD else binary_op(alpha_op)  # bools: or

    def impl(a, b, alpha=1):
        _check_alpha(a, b, alpha)
        if alpha != 1 and dt.is_bool(P.dtypes_of(P.DEFAULT, a, b)[1]):
            # torch casts alpha to the bool result's dtype: a or (b and alpha)
            return elementwise(lambda x, y: combine(x, y if alpha else make(
                Op.AND, (y, as_node(False, y.dtype, y.shape)))), P.DEFAULT, a, b)
        if alpha == 1:
            fast = fast_operands(a, b)
            if fast is not None:
                return wrap(combine(*fast))
            return elementwise(combine, P.DEFAULT, a, b)
        if isinstance(b, (bool, int, float, complex)):
            return impl(a, b * alpha)
        return elementwise(lambda x, y: make(alpha_op, (x, _scaled(y, alpha))), P.DEFAULT, a, b)

    return impl


def _scaled(y: Node, alpha) -> Node:
    if alpha == 1:
        return y
    return make(Op.MUL, (y, as_node(alpha, y.dtype, y.shape)))


def _is_bool_operand(x) -> bool:
    h = getattr(x, "_h", None)
    if h is not None:  # (a lazy tensor: its dtype at once)
        return h.node.dtype.kind == "b"
    if type(x) is float or type(x) is int:
        return False
    k = key_of(x)
    return k is bool or isinstance(k, tuple) and k[0] == dt.bool_


def _sub(a, b, alpha=1):
    bools = [_is_bool_operand(a), _is_bool_operand(b)]
    if all(bools):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if any(bools):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return _add(Op.SUB)(a, b, alpha)


def _rsub(a, b, alpha=1):
    return _sub(b, a, alpha)


def _div(a, b, rounding_mode=None):
    if rounding_mode is None:
        return _true_divide(a, b)
    _integer_division_by_zero(a, b)
    fn = division.floor_divide if rounding_mode == "floor" else pw.trunc_divide
    return elementwise(fn, P.DEFAULT, a, b)


def _pow(a, b):
    _probe(torch.pow, a, b)
    if isinstance(b, bool) and isinstance(a, LazyTensor) and a.dtype is torch.bool:
        # torch's kernel copies self for an exponent of 1 and fills 1 for 0
        n = a._h.node
        return wrap(n if b else as_node(True, n.dtype, n.shape))
    if isinstance(b, (int, float)) and not isinstance(b, bool) and isinstance(a, LazyTensor):
        shortcut = _POW_SPECIAL.get(b)
        if shortcut is not None and dt.is_inexact(a._h.node.dtype):
            return elementwise(shortcut, P.DEFAULT, a)
        if isinstance(b, int) and b < 0 and not dt.is_inexact(P.dtypes_of(P.DEFAULT, a, b)[1]):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    return elementwise(arithmetic.int_power, P.BOOL_TO_LONG, a, b)


_POW_SPECIAL = {
    2: arithmetic.square, 1: lambda x: x, 0.5: unary_op(Op.SQRT), -1: division.reciprocal,
}


BINARY = {  # (function of nodes, promotion kind)
    aten.mul: (arithmetic.mul_and, P.DEFAULT),
    aten.maximum: (ordering.maximum, P.DEFAULT), aten.minimum: (ordering.minimum, P.DEFAULT),
    aten.fmax: (ordering.fmax, P.DEFAULT), aten.fmin: (ordering.fmin, P.DEFAULT),
    aten.remainder: (division.remainder, P.DEFAULT), aten.fmod: (division.fmod, P.DEFAULT),
    aten.floor_divide: (division.floor_divide, P.DEFAULT),
    aten.atan2: (binary_op(Op.ATAN2), P.INT_TO_FLOAT),
    aten.hypot: (arithmetic.hypot, P.DEFAULT), aten.copysign: (predicates.copysign, P.INT_TO_FLOAT),
    aten.nextafter: (binary_op(Op.NEXTAFTER), P.NO_OPMATH),
    aten.logaddexp: (arithmetic.logaddexp, P.DEFAULT), aten.logaddexp2: (arithmetic.logaddexp2,
                                                                      P.DEFAULT),
    aten.xlogy: (pw.xlogy, P.INT_TO_FLOAT),
    aten.bitwise_and: (binary_op(Op.AND), P.DEFAULT),
    aten.bitwise_or: (binary_op(Op.OR), P.DEFAULT),
    aten.bitwise_xor: (binary_op(Op.XOR), P.DEFAULT),
    aten.bitwise_left_shift: (binary_op(Op.SHIFT_LEFT), P.DEFAULT),
    aten.__lshift__: (binary_op(Op.SHIFT_LEFT), P.DEFAULT),
    aten.bitwise_right_shift: (arithmetic.right_shift, P.DEFAULT),
    aten.__rshift__: (arithmetic.right_shift, P.DEFAULT),
    aten.eq: (binary_op(Op.EQ), P.ALWAYS_BOOL), aten.ne: (binary_op(Op.NE), P.ALWAYS_BOOL),
    aten.lt: (binary_op(Op.LT), P.ALWAYS_BOOL), aten.le: (binary_op(Op.LE), P.ALWAYS_BOOL),
    aten.gt: (binary_op(Op.GT), P.ALWAYS_BOOL), aten.ge: (binary_op(Op.GE), P.ALWAYS_BOOL),
    aten.logical_and: (predicates.logical(Op.AND), P.ALWAYS_BOOL),
    aten.logical_or: (predicates.logical(Op.OR), P.ALWAYS_BOOL),
    aten.logical_xor: (predicates.logical(Op.XOR), P.ALWAYS_BOOL),
    aten.igamma: (binary_op(Op.IGAMMA), P.INT_TO_FLOAT),
    aten.igammac: (binary_op(Op.IGAMMAC), P.INT_TO_FLOAT),
    aten.special_zeta: (special.zeta, P.INT_TO_FLOAT),
    aten.gcd: (division.gcd, P.DEFAULT), aten.lcm: (division.lcm, P.DEFAULT),
}

# ops with kernels for integers and bool only: a float operand raises torch's
# NotImplementedError (the core's type error would be a RuntimeError)
INTEGER_ONLY = frozenset({
    aten.bitwise_not, aten.bitwise_and, aten.bitwise_or, aten.bitwise_xor,
    aten.bitwise_left_shift, aten.__lshift__, aten.bitwise_right_shift, aten.__rshift__,
    aten.gcd, aten.lcm,
})

# (op, operand signatures) that torch's own kernel accepted (see _probe)
_ACCEPTED: set = set()


def _probe(op, *args, integer_only: bool = False, **kwargs) -> None:
    """Run torch's own ``op`` on empty CPU stand-ins of the operands when
    one is not a floating tensor (or, for the bitwise ops, when one is):
    it raises torch's error where the op has no kernel for those dtypes
    (maximum, clamp or ``<`` of complex numbers, ``//`` or ``%`` of bools,
    hypot, logaddexp or igamma of integers, ``&`` or ``<<`` of floats). An
    accepted signature (op, dtypes, dims, scalar types) is remembered."""
    def unsupported(x) -> bool:
        if isinstance(x, torch.Tensor):
            return integer_only or not x.is_floating_point()
        return isinstance(x, complex) or integer_only and isinstance(x, float)

    values = (*args, *kwargs.values())
    if not any(unsupported(x) for x in values):
        return
    key = (op, tuple(kwargs), *(_signature(x) for x in values))
    if key not in _ACCEPTED:
        op(*map(_standin, args), **{k: _standin(v) for k, v in kwargs.items()})
        _ACCEPTED.add(key)


INTEGER_DIVISIONS = frozenset({aten.floor_divide, aten.remainder, aten.fmod})


def _integer_division_by_zero(a, b) -> None:
    """torch raises RuntimeError('ZeroDivisionError') for an integer ``//``,
    ``%``, fmod or rounding div by a zero known on the host (a Python number
    or a CPU 0-d tensor); a zero inside a lazy tensor is data (XLA's value,
    as on an accelerator, where torch does not check either)."""
    if isinstance(b, torch.Tensor):
        if isinstance(b, LazyTensor) or b.dim() or b.is_floating_point() or b.is_complex():
            return
        b = b.item()
    if (isinstance(b, int) and b == 0 and isinstance(a, torch.Tensor)
            and not (a.is_floating_point() or a.is_complex())):
        raise RuntimeError("ZeroDivisionError")


def _signature(x) -> tuple:
    if isinstance(x, torch.Tensor):
        return (x.dtype, x.dim() == 0)
    return (type(x),)


def _standin(x):
    """An empty CPU tensor of x's dtype (0-d stays 0-d, a one: a zero would make
    torch's integer division raise); scalars as they are."""
    if not isinstance(x, torch.Tensor):
        return x
    return torch.ones((), dtype=x.dtype) if x.dim() == 0 else torch.empty(0, dtype=x.dtype)


def _binary(fn, kind, op=None):
    float_only = kind is P.INT_TO_FLOAT
    integer_only = op in INTEGER_ONLY
    divides = op in INTEGER_DIVISIONS  # decided once, not per call

    def impl(a, b):
        fast = None if kind is P.NO_OPMATH else fast_operands(a, b, float_only=float_only)
        # real floating operands (fast_operands' float32/float64 tensors with
        # real scalars) are what every probed kernel takes and never divide
        # by an integer zero: the checks are skipped
        if fast is None or integer_only or fast[0].dtype.kind != "f":
            if op is not None:
                _probe(op, a, b, integer_only=integer_only)
            if divides:
                _integer_division_by_zero(a, b)
        if fast is not None:
            return wrap(fn(*fast))
        return elementwise(fn, kind, a, b)

    return impl


_true_divide = _binary(binary_op(Op.DIV), P.INT_TO_FLOAT)


# ---------------------------------------------------------------- ternary
def _where(cond, a, b):
    c = operand(cond)
    if c.dtype == dt.uint8:  # still accepted by torch, with its deprecation warning
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated "
                      "and will be removed in a future version of PyTorch. Use a boolean "
                      "condition instead.", UserWarning,
                      stacklevel=user_stacklevel(_fallback._LIBRARY_DIRS))
        c = make(Op.NE, (c, as_node(0, c.dtype, c.shape)))
    if not dt.is_bool(c.dtype):
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{scalar_type_name(c.dtype)}"
        )
    result = P.dtypes_of(P.NO_OPMATH, a, b)[1]
    values = [c, operand(a), operand(b)]
    shape = broadcast_sizes(*[v.shape for v in values if isinstance(v, Node)])
    return wrap(make(Op.SELECT, tuple(as_node(v, d, shape) for v, d in
                                      zip(values, (dt.bool_, result, result), strict=False))))


def _clamp(x, min=None, max=None):  # noqa: A002  (ATen's argument names)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    bounds = [v for v in (min, max) if v is not None]
    fast = fast_operands(x, *bounds)
    if fast is None or fast[0].dtype.kind != "f":  # (real floating operands: no probe needed)
        _probe(torch.clamp, x, min=min, max=max)

    def fn(n: Node, *bounds: Node) -> Node:
        it = iter(bounds)
        return pw.clamp(n, next(it) if min is not None else None,
                        next(it) if max is not None else None)

    if fast is not None:
        return wrap(fn(*fast))
    return elementwise(fn, P.DEFAULT, x, *bounds)


def _lerp(start, end, weight):
    """lerp: torch requires one floating (or complex) dtype for start, end
    and a tensor weight (it never promotes); its own kernel, run on empty
    CPU tensors of these dtypes, raises its exact errors."""
    probe = torch.empty(0, dtype=weight.dtype) if isinstance(weight, torch.Tensor) else weight
    torch.lerp(torch.empty(0, dtype=start.dtype), torch.empty(0, dtype=end.dtype), probe)
    if isinstance(weight, (int, float)):
        return elementwise(lambda s, e: pw.lerp(s, e, weight), P.DEFAULT, start, end)

    return elementwise(pw.lerp_tensor, P.DEFAULT, start, end, weight)


def _addcmul(self, t1, t2, value=1):
    _probe(torch.addcmul, self, t1, t2, value=value)
    return elementwise(lambda s, a, b: pw.addcmul(s, a, b, value), P.DEFAULT, self, t1, t2)


def _addcdiv(self, t1, t2, value=1):
    if not any(dt.is_inexact(k[0]) for k in (key_of(t1), key_of(t2))
               if isinstance(k, tuple)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2."
        )

    return elementwise(lambda s, a, b: pw.addcdiv(s, a, b, value), P.DEFAULT, self, t1, t2)


# -------------------------------------------------------- special functions
def _polygamma(n, x):
    """polygamma(0, x) is digamma; higher orders are the core's
    ``special.polygamma`` (torch's edge values); a negative order raises
    torch's error."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return _unary(special.digamma, P.INT_TO_FLOAT)(x)
    return _unary(lambda v: special.polygamma(n, v), P.INT_TO_FLOAT)(x)


def _probed_unary(op, impl, probed_when=None):
    """``impl``, after torch's own ``op`` ran on an empty CPU stand-in of a
    bool, integer or complex input (a floating one for ``bitwise_not``): it
    raises torch's error where the op has no such kernel (abs/floor/round of
    bool, frac of integers, ~ of floats, sign/signbit of complex...)."""
    integer_only = op in INTEGER_ONLY

    def probed(x):
        if (probed_when(x) if probed_when is not None else
                integer_only or not x.is_floating_point()):
            op(torch.empty(0, dtype=x.dtype))
        return impl(x)

    return probed


def _heaviside(x, values):
    """torch's decomposition, after its kernel's check: one dtype only."""
    if x.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return decomposition_table[aten.heaviside.default](x, values)


def _table() -> dict:
    table: dict = {}
    for op, fn in UNARY_FLOAT.items():
        table[op] = _unary(unary_op(fn) if isinstance(fn, Op) else fn, P.INT_TO_FLOAT)
    for op, (fn, kind) in UNARY_SAME.items():
        table[op] = _probed_unary(op, _unary(fn, kind))
    for op, (fn, kind) in BINARY.items():
        table[op] = _binary(fn, kind, op)
    table[aten.polygamma] = _polygamma
    # (torch's kernel has no half precision or complex version)
    table[aten.special_log_ndtr] = decomposition_table[aten.special_log_ndtr.default]
    for op in (aten.special_spherical_bessel_j0, aten.special_erfcx, aten.special_log_ndtr):
        table[op] = _probed_unary(op, table[op],
                                  lambda x: x.dtype not in (torch.float32, torch.float64))
    table.update({
        aten.round: _round_impl, aten.nan_to_num: _nan_to_num, aten.logit: _logit,
        aten._conj: _conj, aten._conj_physical: _conj,
        aten.add: _add(Op.ADD), aten.sub: _sub, aten.rsub: _rsub,
        aten.div: _div, aten.pow: _pow,
        aten.where.self: _where, aten.clamp: _clamp,
        aten.clamp_min: lambda x, min: _clamp(x, min=min),  # noqa: A006
        aten.clamp_max: lambda x, max: _clamp(x, max=max),  # noqa: A006
        aten.lerp: _lerp, aten.addcmul: _addcmul, aten.addcdiv: _addcdiv,
        aten.angle: _angle, aten.frexp.Tensor: _frexp, aten.heaviside: _heaviside,
    })
    # all elementwise: x[m] reads stay x-shaped through them (masked_reads)
    return {op: masked_reads.through(impl) for op, impl in table.items()}


TABLE = _table()


# ------------------------------------------- in-place fast paths (hot loop)
# The optimizers' in-place updates (``p.add_``, ``_foreach_lerp_``...) on
# operands that need no promotion, broadcast or layout work: the result node
# has self's shape and dtype, so it is stored into self directly, without a
# result tensor. Each returns None when its case does not apply (the
# ordinary in-place path then runs). Same nodes as the functional op.
def _add_inplace(alpha_op: Op):
    def nodes(a, b, alpha=1) -> Node | None:
        _check_alpha(a, b, alpha)
        if isinstance(b, (bool, int, float, complex)):
            fast = fast_operands(a, b * alpha if alpha != 1 else b)
            return None if fast is None else make(alpha_op, fast)
        if alpha != 1 and not isinstance(alpha, (int, float)):
            return None
        fast = fast_operands(a, b, float_only=alpha != 1)
        if fast is None:
            return None
        return make(alpha_op, (fast[0], _scaled(fast[1], alpha)))

    return nodes


def _mul_inplace(a, b) -> Node | None:
    fast = fast_operands(a, b)
    return None if fast is None else make(Op.MUL, fast)


def _div_inplace(a, b, rounding_mode=None) -> Node | None:
    fast = fast_operands(a, b, float_only=True) if rounding_mode is None else None
    return None if fast is None else make(Op.DIV, fast)


def _ternary_inplace(nodes_fn, scalar_arg: bool):
    def nodes(s, a, b, value=1) -> Node | None:
        if scalar_arg and not isinstance(b, (int, float)):
            return None
        fast = fast_operands(*((s, a) if scalar_arg else (s, a, b)))
        if fast is None or not dt.is_inexact(fast[0].dtype):
            return None
        return nodes_fn(*fast, b) if scalar_arg else nodes_fn(*fast, value)

    return nodes


def _sqrt_inplace(x) -> Node | None:
    n = x._h.node
    return make(Op.SQRT, (n,)) if n.dtype is _F32 and x.is_contiguous() else None


INPLACE_NODES = {
    aten.add.Tensor: _add_inplace(Op.ADD), aten.add.Scalar: _add_inplace(Op.ADD),
    aten.sub.Tensor: _add_inplace(Op.SUB), aten.mul.Tensor: _mul_inplace,
    aten.mul.Scalar: _mul_inplace, aten.div.Tensor: _div_inplace,
    aten.div.Scalar: _div_inplace,
    aten.lerp.Scalar: _ternary_inplace(pw.lerp, True),
    aten.addcmul.default: _ternary_inplace(pw.addcmul, False),
    aten.addcdiv.default: _ternary_inplace(pw.addcdiv, False),
    aten.sqrt.default: _sqrt_inplace,
}
