"""Every primitive's lowering against a numpy reference: values, dtype, shape.

One table: op -> (dtypes, input maker, attrs, reference). Inputs are made
per dtype from a seeded generator; the core node's inferred shape/dtype must
match the executed result and the reference.
"""

import math

import numpy as np
import pytest
from lazytensor.core import Handle, Op, make
from lazytensor.core import dtypes as dt
from lazytensor.core.runtime import get_runtime

RNG = np.random.default_rng(0)
FLOATS = ("float32", "float64")
INTS = ("int8", "int32", "int64", "uint8")
NUMERIC = FLOATS + INTS


def _sample(dtype: str, shape=(3, 4), low=-3.0, high=3.0):
    d = np.dtype(dtype)
    if d == np.bool_:
        return RNG.random(shape) > 0.5
    if d.kind == "u":
        return RNG.integers(0, 9, shape).astype(d)
    if d.kind == "i":
        return RNG.integers(-9, 9, shape).astype(d)
    if d.kind == "c":
        return (RNG.uniform(low, high, shape) + 1j * RNG.uniform(low, high, shape)).astype(d)
    return RNG.uniform(low, high, shape).astype(d)


def _positive(dtype):
    return [_sample(dtype, low=0.1, high=3.0)]


def _unit(dtype):
    return [_sample(dtype, low=-0.9, high=0.9)]


def _one(dtype):
    return [_sample(dtype)]


def _two(dtype):
    return [_sample(dtype), _sample(dtype)]


def _two_nonzero(dtype):
    a, b = _sample(dtype), _sample(dtype)
    b[b == 0] = 1
    return [a, b]


# op: (dtypes, make inputs, attrs, numpy reference)
UNARY = {
    Op.NEG: (NUMERIC[:-1], _one, (), np.negative),
    Op.ABS: (NUMERIC[:-1], _one, (), np.abs),
    Op.SIGN: (FLOATS + ("int32",), _one, (), np.sign),
    Op.EXP: (FLOATS, _one, (), np.exp),
    Op.EXP2: (FLOATS, _one, (), np.exp2),
    Op.EXPM1: (FLOATS, _one, (), np.expm1),
    Op.LOG: (FLOATS, _positive, (), np.log),
    Op.LOG1P: (FLOATS, _positive, (), np.log1p),
    Op.SQRT: (FLOATS, _positive, (), np.sqrt),
    Op.RSQRT: (FLOATS, _positive, (), lambda x: 1 / np.sqrt(x)),
    Op.CBRT: (FLOATS, _one, (), np.cbrt),
    Op.SIN: (FLOATS, _one, (), np.sin),
    Op.COS: (FLOATS, _one, (), np.cos),
    Op.TAN: (FLOATS, _unit, (), np.tan),
    Op.ASIN: (FLOATS, _unit, (), np.arcsin),
    Op.ACOS: (FLOATS, _unit, (), np.arccos),
    Op.ATAN: (FLOATS, _one, (), np.arctan),
    Op.SINH: (FLOATS, _one, (), np.sinh),
    Op.COSH: (FLOATS, _one, (), np.cosh),
    Op.TANH: (FLOATS, _one, (), np.tanh),
    Op.ASINH: (FLOATS, _one, (), np.arcsinh),
    Op.ACOSH: (FLOATS, lambda d: [_sample(d, low=1.1, high=4.0)], (), np.arccosh),
    Op.ATANH: (FLOATS, _unit, (), np.arctanh),
    Op.FLOOR: (FLOATS, _one, (), np.floor),
    Op.CEIL: (FLOATS, _one, (), np.ceil),
    Op.ROUND_EVEN: (FLOATS, lambda d: [np.array([0.5, 1.5, -2.5, 2.4], d)], (), np.rint),
    Op.ROUND_AWAY: (FLOATS, lambda d: [np.array([0.5, 1.5, -2.5, 2.4], d)], (),
                    lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)),
    Op.LOGISTIC: (FLOATS, _one, (), lambda x: 1 / (1 + np.exp(-x))),
    Op.ERF: (FLOATS, _one, (), np.vectorize(math.erf, otypes=[float])),
    Op.ERFC: (FLOATS, _one, (), np.vectorize(math.erfc, otypes=[float])),
    Op.LGAMMA: (FLOATS, _positive, (), np.vectorize(math.lgamma, otypes=[float])),
    Op.NOT: (("bool", "int32", "uint8"), _one, (), np.invert),
    Op.IS_FINITE: (FLOATS, lambda d: [np.array([1.0, np.inf, -np.inf, np.nan], d)], (),
                   np.isfinite),
    Op.REAL: (("complex64",), _one, (), np.real),
    Op.IMAG: (("complex64",), _one, (), np.imag),
    Op.CONJ: (("complex64",), _one, (), np.conj),
}

BINARY = {
    Op.ADD: (NUMERIC, _two, (), np.add),
    Op.SUB: (NUMERIC, _two, (), np.subtract),
    Op.MUL: (NUMERIC, _two, (), np.multiply),
    Op.DIV: (FLOATS, _two_nonzero, (), np.divide),
    Op.REM: (FLOATS + ("int32",), _two_nonzero, (), np.fmod),
    Op.POW: (FLOATS, lambda d: [_sample(d, low=0.1, high=3.0), _sample(d)], (), np.power),
    Op.MAX: (NUMERIC, _two, (), np.maximum),
    Op.MIN: (NUMERIC, _two, (), np.minimum),
    Op.ATAN2: (FLOATS, _two, (), np.arctan2),
    Op.NEXTAFTER: (FLOATS, _two, (), np.nextafter),
    Op.AND: (("bool", "int32"), _two, (), np.bitwise_and),
    Op.OR: (("bool", "int32"), _two, (), np.bitwise_or),
    Op.XOR: (("bool", "int32"), _two, (), np.bitwise_xor),
    Op.SHIFT_LEFT: (("int32",), lambda d: [_sample(d), np.abs(_sample(d))], (), np.left_shift),
    Op.SHIFT_RIGHT_ARITHMETIC: (("int32",), lambda d: [_sample(d), np.abs(_sample(d))], (),
                                np.right_shift),
    Op.EQ: (NUMERIC, _two, (), np.equal),
    Op.NE: (NUMERIC, _two, (), np.not_equal),
    Op.LT: (NUMERIC, _two, (), np.less),
    Op.LE: (NUMERIC, _two, (), np.less_equal),
    Op.GT: (NUMERIC, _two, (), np.greater),
    Op.GE: (NUMERIC, _two, (), np.greater_equal),
}


def _truncdiv(a, b):
    return (np.trunc(a / b)).astype(a.dtype)


OTHER = [
    ("int_div", Op.DIV, "int32", lambda d: _two_nonzero(d), (), _truncdiv),
    ("int_pow", Op.POW, "int64", lambda d: [_sample(d), np.abs(_sample(d)) % 5], (), np.power),
    ("select", Op.SELECT, "float32", lambda d: [_sample("bool"), *_two(d)], (), np.where),
    ("clamp", Op.CLAMP, "float32",
     lambda d: [np.full((3, 4), -1, d), _sample(d), np.full((3, 4), 1, d)], (),
     lambda lo, x, hi: np.clip(x, lo, hi)),
    ("convert", Op.CONVERT, "float32", _one, (np.dtype("int32"),),
     lambda x: x.astype(np.int32)),
    ("transpose", Op.TRANSPOSE, "float32", _one, ((1, 0),), np.transpose),
    ("reshape", Op.RESHAPE, "int32", _one, ((2, 6),), lambda x: x.reshape(2, 6)),
    ("rev", Op.REV, "float32", _one, ((1,),), lambda x: x[:, ::-1]),
    ("slice", Op.SLICE, "float32", _one, ((0, 1), (3, 4), (2, 2)), lambda x: x[0:3:2, 1:4:2]),
    ("broadcast", Op.BROADCAST_IN_DIM, "float32", _one, ((2, 3, 4), (1, 2)),
     lambda x: np.broadcast_to(x, (2, 3, 4))),
    ("concat", Op.CONCATENATE, "int32", _two, (1,), lambda a, b: np.concatenate([a, b], 1)),
    ("sum", Op.REDUCE_SUM, "float64", _one, ((1,),), lambda x: x.sum(1)),
    ("prod", Op.REDUCE_PROD, "int64", _one, ((0, 1),), np.prod),
    ("max", Op.REDUCE_MAX, "float32", _one, ((0,),), lambda x: x.max(0)),
    ("min", Op.REDUCE_MIN, "int8", _one, ((1,),), lambda x: x.min(1)),
    ("all", Op.REDUCE_AND, "bool", _one, ((1,),), lambda x: x.all(1)),
    ("any", Op.REDUCE_OR, "bool", _one, ((0,),), lambda x: x.any(0)),
    ("argmax", Op.ARGMAX, "float32", _one, (1, np.dtype("int64")), lambda x: x.argmax(1)),
    ("argmin", Op.ARGMIN, "int32", _one, (0, np.dtype("int64")), lambda x: x.argmin(0)),
    ("cumsum", Op.CUMSUM, "float64", _one, (1, False), lambda x: np.cumsum(x, 1)),
    ("cumsum_rev", Op.CUMSUM, "int32", _one, (0, True),
     lambda x: np.cumsum(x[::-1], 0)[::-1]),
    ("cumprod", Op.CUMPROD, "float64", _one, (1, False), lambda x: np.cumprod(x, 1)),
    ("cummax", Op.CUMMAX, "float32", _one, (1, False), lambda x: np.maximum.accumulate(x, 1)),
    ("dot", Op.DOT_GENERAL, "float32", lambda d: [_sample(d, (3, 4)), _sample(d, (4, 5))],
     ((((1,), (0,)), ((), ())), None), np.matmul),
    ("batched_dot", Op.DOT_GENERAL, "float64",
     lambda d: [_sample(d, (2, 3, 4)), _sample(d, (2, 4, 5))],
     ((((2,), (1,)), ((0,), (0,))), None), np.matmul),
    ("sort", Op.SORT, "float32", _one, (1, False, True), lambda x: np.sort(x, 1)),
    ("sort_desc", Op.SORT, "int32", _one, (0, True, True), lambda x: -np.sort(-x, 0)),
    ("argsort", Op.ARGSORT, "float64", _one, (1, False, True, np.dtype("int64")),
     lambda x: np.argsort(x, 1, kind="stable")),
    ("argsort_desc", Op.ARGSORT, "int32",
     lambda d: [np.array([3, 1, 3, 2, 1], d)], (0, True, True, np.dtype("int32")),
     lambda x: np.array([0, 2, 3, 1, 4], np.int32)),
    ("pad", Op.PAD, "float32", lambda d: [_sample(d), np.array(7, d)],
     (((1, 0, 1), (0, 2, 0)),),
     lambda x, v: np.pad(np.insert(x, [1, 2], 7, axis=0), ((1, 0), (0, 2)), constant_values=7)),
]


def _run(op, inputs, attrs):
    rt = get_runtime()
    nodes = [rt.from_host(x).node for x in inputs]
    node = make(op, tuple(nodes), *attrs)
    out = Handle(node).numpy()
    assert out.shape == node.shape and out.dtype == node.dtype, (op, out.dtype, node.dtype)
    return out


def _check(out, expected, dtype):
    expected = np.asarray(expected)
    assert out.shape == expected.shape
    if np.dtype(dtype).kind in "fc":
        tol = 1e-5 if np.dtype(dtype).itemsize <= 8 and np.dtype(dtype) != np.float64 else 1e-12
        np.testing.assert_allclose(out, expected.astype(out.dtype), rtol=tol * 10, atol=tol)
    else:
        np.testing.assert_array_equal(out, expected)


CASES = [
    pytest.param(op, d, maker, attrs, ref, id=f"{op.name}-{d}")
    for table in (UNARY, BINARY)
    for op, (dts, maker, attrs, ref) in table.items()
    for d in dts
] + [pytest.param(op, d, maker, attrs, ref, id=name) for name, op, d, maker, attrs, ref in OTHER]


# two dtypes per op by default (in turn through the table's dtypes); every
# op x dtype pair in make test-slow
@pytest.mark.sweep("dtype", per_row=2, reason="every primitive in two of its dtypes, in turn; "
                   "all its dtypes are slow")
@pytest.mark.parametrize(("op", "dtype", "maker", "attrs", "ref"), CASES)
def test_primitive_matches_numpy(op, dtype, maker, attrs, ref):
    inputs = maker(dtype)
    out = _run(op, inputs, attrs)
    expected = ref(*inputs)
    if op in UNARY and np.dtype(dtype).kind in "iub" and op not in (Op.NOT,):
        expected = np.asarray(expected).astype(out.dtype)
    _check(out, expected, dtype if dt.is_inexact(out.dtype) else out.dtype)


def test_gather_and_scatter_take_rows():
    x = RNG.uniform(size=(5, 3)).astype(np.float32)
    idx = np.array([[4], [0], [2]], np.int32)
    dnums = ((1,), (0,), (0,), (), (), (1, 3), "clip")
    np.testing.assert_array_equal(_run(Op.GATHER, [x, idx], dnums), x[[4, 0, 2]])
    upd = np.ones((3, 3), np.float32)
    sdn = ((1,), (0,), (0,), (), (), "add", "fill")
    expected = x.copy()
    np.add.at(expected, [4, 0, 2], upd)
    np.testing.assert_allclose(_run(Op.SCATTER, [x, idx, upd], sdn), expected)


def test_reduce_window_and_conv():
    x = RNG.uniform(size=(1, 1, 4, 4)).astype(np.float32)
    init = np.array(-np.inf, np.float32)
    attrs = ((1, 1, 2, 2), (1, 1, 2, 2), ((0, 0),) * 4, (1,) * 4, (1,) * 4)
    pooled = _run(Op.REDUCE_WINDOW_MAX, [x, init], attrs)
    np.testing.assert_array_equal(pooled, x.reshape(1, 1, 2, 2, 2, 2).max(axis=(3, 5)))
    w = np.ones((1, 1, 2, 2), np.float32)
    conv = _run(Op.CONV, [x, w], ((1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1),
                                  ("NCHW", "OIHW", "NCHW"), 1, 1))
    ref = np.array([[x[0, 0, i:i + 2, j:j + 2].sum() for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(conv[0, 0], ref, rtol=1e-6)


def test_iota_and_dynamic_slices():
    node = make(Op.IOTA, (), np.dtype("int32"), (2, 3), 1)
    np.testing.assert_array_equal(Handle(node).numpy(), np.tile(np.arange(3), (2, 1)))
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    i, j = np.array(1, np.int32), np.array(2, np.int32)
    np.testing.assert_array_equal(_run(Op.DYNAMIC_SLICE, [x, i, j], ((2, 2),)), x[1:3, 2:4])
    upd = np.zeros((1, 2), np.float32)
    expected = x.copy()
    expected[1, 2:4] = 0
    np.testing.assert_array_equal(_run(Op.DYNAMIC_UPDATE_SLICE, [x, upd, i, j], ()), expected)


@pytest.mark.parametrize("op", [Op.REDUCE_MAX, Op.REDUCE_MIN])
@pytest.mark.parametrize("rows", [5, 1000])
def test_max_min_reductions_propagate_nan(op, rows):
    """numpy, torch and tnp give NaN; XLA's CPU backend alone drops NaNs in
    vectorized reductions of about 1000 elements (regression)."""
    x = RNG.uniform(size=(rows, 4)).astype(np.float32)
    x[rows // 2, 1] = np.nan
    ref = np.max if op is Op.REDUCE_MAX else np.min
    np.testing.assert_array_equal(_run(op, [x], ((0,),)), ref(x, axis=0))
    np.testing.assert_array_equal(_run(op, [x], ((0, 1),)), ref(x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_division_is_ieee_division(dtype):
    """x / c, x / sqrt(y) and (x / y) / z give the eager frameworks' bits:
    XLA's simplifier would rewrite them as x * (1/c), x * rsqrt(y) and
    x / (y * z) (regression: lnp.round(x, 4) printed 3.1428000000000003)."""
    from lazytensor.core.composite.elementwise.apply import as_node

    x = RNG.uniform(1, 1e4, size=(64, 7)).astype(dtype)
    y = RNG.uniform(1, 9, size=(64, 7)).astype(dtype)
    rt = get_runtime()
    nx, ny = rt.from_host(x).node, rt.from_host(y).node
    three = as_node(3.0, np.dtype(dtype), x.shape)
    cases = {
        "by scalar": (make(Op.DIV, (nx, three)), x / np.asarray(3.0, dtype)),
        "by sqrt": (make(Op.DIV, (nx, make(Op.SQRT, (ny,)))), x / np.sqrt(y)),
        "twice": (make(Op.DIV, (make(Op.DIV, (nx, ny)), three)), x / y / np.asarray(3.0, dtype)),
    }
    for name, (node, want) in cases.items():
        got = np.asarray(Handle(node).value())
        np.testing.assert_array_equal(got, want, err_msg=name)
