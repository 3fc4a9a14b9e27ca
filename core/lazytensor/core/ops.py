"""The core's operations as data: one ``Op`` enum and family sets.

Primitives mirror StableHLO. Each op is declared once, with its shape/dtype
rule, in ``lazytensor.core.rules`` and lowered once in
``lazytensor.core.lowering``. Code tests membership (``op in UNARY``), never
compares strings.

>>> Op.ADD in BINARY, Op.ADD in UNARY
(True, False)
"""

from __future__ import annotations

import enum


class Op(enum.IntEnum):
    # leaves
    DATA = enum.auto()  # device data (a jax.Array), a graph parameter
    SCALAR = enum.auto()  # a Python scalar that varies: a parameter, hashed by dtype
    CONST = enum.auto()  # a small constant, hashed by value
    # unary elementwise, value -> same dtype
    NEG = enum.auto()
    ABS = enum.auto()
    SIGN = enum.auto()
    EXP = enum.auto()
    EXP2 = enum.auto()
    EXPM1 = enum.auto()
    LOG = enum.auto()
    LOG1P = enum.auto()
    SQRT = enum.auto()
    RSQRT = enum.auto()
    CBRT = enum.auto()
    SIN = enum.auto()
    COS = enum.auto()
    TAN = enum.auto()
    ASIN = enum.auto()
    ACOS = enum.auto()
    ATAN = enum.auto()
    SINH = enum.auto()
    COSH = enum.auto()
    TANH = enum.auto()
    ASINH = enum.auto()
    ACOSH = enum.auto()
    ATANH = enum.auto()
    FLOOR = enum.auto()
    CEIL = enum.auto()
    ROUND_EVEN = enum.auto()  # round half to even (numpy's rint/round)
    ROUND_AWAY = enum.auto()  # round half away from zero (C round)
    LOGISTIC = enum.auto()
    ERF = enum.auto()
    ERFC = enum.auto()
    ERF_INV = enum.auto()
    LGAMMA = enum.auto()
    DIGAMMA = enum.auto()
    BESSEL_I0E = enum.auto()  # exponentially scaled modified Bessel functions
    BESSEL_I1E = enum.auto()
    NOT = enum.auto()  # logical not for bool, bitwise not for ints
    POPCNT = enum.auto()
    CLZ = enum.auto()
    CONJ = enum.auto()
    # unary elementwise with a different result dtype
    IS_FINITE = enum.auto()  # -> bool
    REAL = enum.auto()  # complex -> real
    IMAG = enum.auto()  # complex -> real
    # binary elementwise
    ADD = enum.auto()
    SUB = enum.auto()
    MUL = enum.auto()
    DIV = enum.auto()  # float: true division; int: truncating (C) division
    REM = enum.auto()  # C remainder (sign of the dividend)
    POW = enum.auto()
    MAX = enum.auto()
    MIN = enum.auto()
    ATAN2 = enum.auto()
    NEXTAFTER = enum.auto()
    IGAMMA = enum.auto()  # regularized lower incomplete gamma P(a, x)
    IGAMMAC = enum.auto()  # regularized upper incomplete gamma Q(a, x)
    ZETA = enum.auto()  # Hurwitz zeta (x, q)
    AND = enum.auto()
    OR = enum.auto()
    XOR = enum.auto()
    SHIFT_LEFT = enum.auto()
    SHIFT_RIGHT_ARITHMETIC = enum.auto()
    SHIFT_RIGHT_LOGICAL = enum.auto()
    COMPLEX = enum.auto()  # (real, imag) -> complex
    # comparisons -> bool
    EQ = enum.auto()
    NE = enum.auto()
    LT = enum.auto()
    LE = enum.auto()
    GT = enum.auto()
    GE = enum.auto()
    # ternary / type
    SELECT = enum.auto()
    CLAMP = enum.auto()
    CONVERT = enum.auto()
    BITCAST_CONVERT = enum.auto()
    # movement
    BROADCAST_IN_DIM = enum.auto()
    RESHAPE = enum.auto()
    TRANSPOSE = enum.auto()
    REV = enum.auto()
    SLICE = enum.auto()
    DYNAMIC_SLICE = enum.auto()
    DYNAMIC_UPDATE_SLICE = enum.auto()
    CONCATENATE = enum.auto()
    PAD = enum.auto()
    GATHER = enum.auto()
    SCATTER = enum.auto()
    # reductions over axes
    REDUCE_SUM = enum.auto()
    REDUCE_PROD = enum.auto()
    REDUCE_MAX = enum.auto()
    REDUCE_MIN = enum.auto()
    REDUCE_AND = enum.auto()
    REDUCE_OR = enum.auto()
    ARGMAX = enum.auto()
    ARGMIN = enum.auto()
    # cumulative along one axis
    CUMSUM = enum.auto()
    CUMPROD = enum.auto()
    CUMMAX = enum.auto()
    CUMMIN = enum.auto()
    CUMLOGSUMEXP = enum.auto()
    # windows and contractions
    REDUCE_WINDOW_SUM = enum.auto()
    REDUCE_WINDOW_MAX = enum.auto()
    REDUCE_WINDOW_MIN = enum.auto()
    DOT_GENERAL = enum.auto()
    CONV = enum.auto()
    # generators and the rest
    IOTA = enum.auto()
    RNG_UNIFORM = enum.auto()  # (key) -> uniform [0, 1)
    RNG_NORMAL = enum.auto()  # (key) -> standard normal
    RNG_BITS = enum.auto()  # (key) -> random unsigned bits
    RNG_FOLD = enum.auto()  # (key, uint32 data) -> new key
    SORT = enum.auto()
    ARGSORT = enum.auto()
    TOP_K = enum.auto()
    # linear algebra (XLA custom calls on CPU/GPU)
    CHOLESKY = enum.auto()
    TRIANGULAR_SOLVE = enum.auto()
    LU = enum.auto()
    QR = enum.auto()
    EIGH = enum.auto()
    SVD = enum.auto()
    # fast Fourier transforms over trailing dims (attrs: type, lengths)
    FFT = enum.auto()
    # multi-output projection: picks output i of a multi-output node
    TUPLE_GET = enum.auto()
    # automatic differentiation: vector-Jacobian product of a recorded sub-graph
    # (see lazytensor.core.autodiff); one output per differentiated value
    VJP = enum.auto()
    # LAPACK-style row-swap pivots (..., k) -> the permutation they apply
    # (..., m) (attr: permutation_size)
    LU_PIVOTS_TO_PERMUTATION = enum.auto()
    # CTC forward recursion in log space, one loop over frames (not unrolled):
    # (emit (T, N, L), skip (N, L) bool, lengths (N,) int) -> log alphas (T, N, L)
    CTC_ALPHA = enum.auto()
    # a unary op of UNARY_SAME or a BINARY_ARITH op (attr: its name) whose
    # gradients are 0 where the cotangent is 0, not 0 * inf = NaN (TensorFlow's
    # SqrtGrad, RsqrtGrad, ReciprocalGrad: ``where(x > 0, sqrt(x), 0)`` has a
    # finite gradient at x <= 0)
    ZERO_SAFE_GRAD = enum.auto()
    # placement: an identity whose value is laid out over a device mesh
    # (attr: a lazytensor.core.sharding.Sharding); with_sharding_constraint
    SHARD = enum.auto()


LEAVES = frozenset({Op.DATA, Op.SCALAR, Op.CONST})
PARAMETERS = frozenset({Op.DATA, Op.SCALAR})

UNARY_SAME = frozenset({
    Op.NEG, Op.ABS, Op.SIGN, Op.EXP, Op.EXP2, Op.EXPM1, Op.LOG, Op.LOG1P, Op.SQRT,
    Op.RSQRT, Op.CBRT, Op.SIN, Op.COS, Op.TAN, Op.ASIN, Op.ACOS, Op.ATAN, Op.SINH,
    Op.COSH, Op.TANH, Op.ASINH, Op.ACOSH, Op.ATANH, Op.FLOOR, Op.CEIL, Op.ROUND_EVEN,
    Op.ROUND_AWAY, Op.LOGISTIC, Op.ERF, Op.ERFC, Op.ERF_INV, Op.LGAMMA, Op.DIGAMMA,
    Op.BESSEL_I0E, Op.BESSEL_I1E,
    Op.NOT, Op.POPCNT, Op.CLZ, Op.CONJ,
})
UNARY = UNARY_SAME | {Op.IS_FINITE, Op.REAL, Op.IMAG}
BINARY_ARITH = frozenset({
    Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.REM, Op.POW, Op.MAX, Op.MIN, Op.ATAN2,
    Op.NEXTAFTER, Op.IGAMMA, Op.IGAMMAC, Op.ZETA,
})
BITWISE = frozenset({
    Op.AND, Op.OR, Op.XOR, Op.SHIFT_LEFT, Op.SHIFT_RIGHT_ARITHMETIC, Op.SHIFT_RIGHT_LOGICAL,
})
COMPARE = frozenset({Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE})
BINARY = BINARY_ARITH | BITWISE | COMPARE | {Op.COMPLEX}
ELEMENTWISE = UNARY | BINARY | {Op.SELECT, Op.CLAMP, Op.CONVERT}
REDUCE = frozenset({
    Op.REDUCE_SUM, Op.REDUCE_PROD, Op.REDUCE_MAX, Op.REDUCE_MIN, Op.REDUCE_AND, Op.REDUCE_OR,
})
ARG_REDUCE = frozenset({Op.ARGMAX, Op.ARGMIN})
CUMULATIVE = frozenset({Op.CUMSUM, Op.CUMPROD, Op.CUMMAX, Op.CUMMIN, Op.CUMLOGSUMEXP})
REDUCE_WINDOW = frozenset({Op.REDUCE_WINDOW_SUM, Op.REDUCE_WINDOW_MAX, Op.REDUCE_WINDOW_MIN})
RNG = frozenset({Op.RNG_UNIFORM, Op.RNG_NORMAL, Op.RNG_BITS, Op.RNG_FOLD})
MULTI_OUTPUT = frozenset({Op.LU, Op.QR, Op.EIGH, Op.SVD, Op.TOP_K, Op.VJP})
