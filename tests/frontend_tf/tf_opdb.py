"""The op database for lazytensor.tf.numpy: per lowered tnp function, sample
inputs over several dtypes and shapes. Each sample is ``(args, kwargs)``;
numpy arrays become arrays of the namespace under test (``tnp.asarray`` or
``lnp.asarray``), ``Host`` values stay numpy, Python scalars stay Python.
A sample on which tnp raises is an error-parity case: lnp must raise the
same exception type.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RNG = np.random.default_rng(1234)
FLOATS = ("float32", "float64")
NUMERIC = ("float32", "float64", "int32", "int64")
INTS = ("int8", "int32", "int64", "uint8")
SHAPES = ((), (4,), (2, 3))


@dataclass(frozen=True)
class Host:
    """An argument passed to both namespaces as a numpy array."""

    value: np.ndarray


def arr(shape, dtype, lo=-2.0, hi=2.0) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return RNG.random(shape) > 0.5
    if dtype.kind in "iu":
        return RNG.integers(max(lo, np.iinfo(dtype).min), hi + 1, shape).astype(dtype)
    if dtype.kind == "c":
        return (RNG.uniform(lo, hi, shape) + 1j * RNG.uniform(lo, hi, shape)).astype(dtype)
    return RNG.uniform(lo, hi, shape).astype(dtype)


def _samples(*items):
    return lambda: list(items)


# ------------------------------------------------------------ elementwise

def unary(dtypes=NUMERIC + ("bool",), lo=-2.0, hi=2.0):
    def make():
        return [((arr(shape, d, lo, hi),), {}) for d in dtypes for shape in SHAPES]

    return make


def binary(lo=-3.0, hi=3.0, positive_rhs=False, dtypes=("float32", "float64", "int32"),
           scalars=(2, 1.5)):
    """Same-dtype pairs over broadcasting shapes, mixed dtypes, Python scalars."""
    def rhs(shape, d):
        return arr(shape, d, 1 if positive_rhs else lo, hi)

    def make():
        out = [((arr((2, 3), d, lo, hi), rhs((3,), d)), {}) for d in dtypes]
        out += [((arr((2, 1), "float32", lo, hi), rhs((1, 3), "float64")), {}),
                ((arr((4,), "int32", lo, hi), rhs((4,), "float32")), {}),
                ((arr((4,), "int64", lo, hi), rhs((), "int8")), {})]
        out += [((arr((3,), d, lo, hi), s), {}) for d in ("float32", "int32") for s in scalars]
        out += [((s, rhs((3,), "float32")), {}) for s in scalars[:1]]
        return out

    return make


# ------------------------------------------------------------- reductions

AXES = (None, 0, -1, (0, 2))


def reduce(dtypes=NUMERIC + ("bool",), keep=True, dtype_arg=False, axes=AXES, lo=-2, hi=2):
    def make():
        out = []
        for d in dtypes:
            x = arr((2, 3, 4), d, lo, hi)
            out += [((x,), {"axis": a}) for a in axes]
            if keep:
                out.append(((x,), {"axis": 1, "keepdims": True}))
        if dtype_arg:
            out.append(((arr((3, 4), "int32"),), {"dtype": "float32"}))
            out.append(((arr((3, 4), "float32"),), {"axis": 0, "dtype": np.float64}))
        out.append(((arr((), "float32"),), {}))
        return out

    return make


def arg_reduce():
    def make():
        return [((arr((3, 4), d),), {"axis": a}) for d in ("float32", "int32") for a in
                (None, 0, 1, -1)] + [((arr((5,), "float64"),), {})]

    return make


def cumulative():
    def make():
        return [((arr((3, 4), d, -2, 3),), {"axis": a}) for d in ("float32", "int32", "bool")
                for a in (None, 0, 1)] + [((arr((3, 4), "int32"),), {"dtype": "float32"})]

    return make


# ------------------------------------------------------------------- ops

F32, F64, I32 = "float32", "float64", "int32"

# sin, exp, log, sqrt, floor, isnan... (the elementwise functions all three
# frontends share) are rows of tests/cross/test_elementwise_table.py
UNARY_FLOAT = ("fix", "sinc")
UNARY_SAME = ("abs", "conj", "real", "imag")  # absolute, negative, positive, square, sign,
# signbit, conjugate and reciprocal are rows of tests/cross/test_elementwise_table.py

OPS: dict = {}
for _name in UNARY_FLOAT:
    OPS[_name] = unary(FLOATS + ("int32", "int64", "float16"))
for _name in UNARY_SAME:
    OPS[_name] = unary(("float32", "float64", "int32", "int64", "complex64"), 0.5, 3.0)
OPS["bitwise_not"] = unary(("int8", "int32", "uint8", "bool"))
OPS["logical_not"] = unary(("int32", "float32", "bool"))
OPS["isinf"] = OPS["isposinf"] = OPS["isneginf"] = _samples(
    ((np.array([1.0, np.inf, -np.inf, np.nan], np.float32),), {}),
    ((np.array([[np.inf, 2.0]]),), {}), ((arr((3,), "int32"),), {}))
OPS["iscomplex"] = OPS["isreal"] = OPS["iscomplexobj"] = OPS["isrealobj"] = _samples(
    ((arr((3,), "complex64"),), {}), ((arr((3,), "float32"),), {}),
    ((np.array([1 + 0j, 2j]),), {}))
OPS["angle"] = _samples(((arr((4,), "complex64"),), {}), ((arr((4,), "float32"),), {}),
                        ((arr((3,), "complex128"),), {"deg": True}),
                        ((np.array([np.nan, -0.0, -1.0, 0.0], np.float32),), {}))
OPS["around"] = OPS["round"] = _samples(
    ((arr((5,), F32, -9, 9),), {}), ((arr((5,), F64, -9, 9),), {"decimals": 2}),
    ((arr((4,), I32, -99, 99),), {"decimals": -1}), ((np.array([0.5, 1.5, 2.5, -0.5]),), {}))

# add, subtract, multiply, divide, floor_divide, remainder, maximum, minimum,
# arctan2, hypot, logaddexp(2), nextafter, heaviside, the comparisons and the
# logical and bitwise and/or/xor are rows of tests/cross/test_binary_table.py
for _name in ("true_divide", "mod", "divmod"):
    OPS[_name] = binary(positive_rhs=True)
OPS["power"] = OPS["float_power"] = binary(0.5, 3.0, dtypes=FLOATS + ("int32",),
                                           scalars=(2, 0.5))
OPS["gcd"] = OPS["lcm"] = _samples(
    ((arr((6,), "int32", -30, 30), arr((6,), "int32", -30, 30)), {}),
    ((arr((2, 3), "int64", 0, 100), arr((3,), "int64", 1, 60)), {}),
    ((arr((4,), "int32", 0, 50), 12), {}))
OPS["isclose"] = _samples(
    ((arr((4,), F32), arr((4,), F32)), {}),
    ((np.array([1.0, 1.0 + 1e-9, np.nan]), np.array([1.0, 1.0, np.nan])), {"equal_nan": True}),
    ((arr((3,), I32), arr((3,), I32)), {}),
    ((np.array([1.0, 2.0]), np.array([1.1, 2.0])), {"rtol": 0.2, "atol": 0.0}))
OPS["allclose"] = OPS["isclose"]
OPS["array_equal"] = _samples(
    ((np.array([1, 2, 3]), np.array([1, 2, 3])), {}),
    ((np.array([1.0, 2.0]), np.array([1, 3])), {}),
    ((np.array([1, 2]), np.array([1, 2, 3])), {}))
OPS["clip"] = _samples(
    ((arr((2, 3), F32), -0.5, 0.5), {}), ((arr((4,), I32), 0, 1), {}),
    ((arr((4,), F64), arr((4,), F64, -1, 0), 1.0), {}), ((arr((3,), F32), None, 0.0), {}),
    ((arr((3,), F32), 0.0, None), {}))

for _name in ("sum", "prod"):
    OPS[_name] = reduce(NUMERIC + ("bool", "int8", "uint8"), dtype_arg=True)
for _name in ("amax", "max", "amin", "min"):
    OPS[_name] = reduce(NUMERIC + ("bool",))
for _name in ("all", "any"):
    OPS[_name] = reduce(("bool", "int32", "float32"))
OPS["mean"] = reduce(NUMERIC + ("bool",), dtype_arg=True)
OPS["var"] = reduce(("float32", "float64", "int32"), dtype_arg=True)
OPS["std"] = reduce(("float32", "float64", "int32"))
OPS["nansum"] = OPS["nanprod"] = OPS["nanmean"] = _samples(
    ((np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 0.5]], np.float32),), {}),
    ((np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 0.5]]),), {"axis": 1}),
    ((arr((3, 4), "int32"),), {"axis": 0, "keepdims": True}),
    ((np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32),), {"axis": -1, "keepdims": True}))
OPS["ptp"] = reduce(("float32", "int32"), keep=True, axes=(None, 0, -1))
OPS["count_nonzero"] = _samples(
    ((arr((3, 4), "int32", -1, 1),), {}), ((arr((3, 4), "float32", -1, 1).round(),), {"axis": 0}),
    ((arr((3, 4), "bool"),), {"axis": 1}))
OPS["argmax"] = OPS["argmin"] = arg_reduce()
OPS["cumsum"] = OPS["cumprod"] = cumulative()
OPS["average"] = _samples(
    ((arr((3, 4), F32),), {}), ((arr((3, 4), I32),), {"axis": 0}),
    ((arr((3, 4), F64), Host(arr((3, 4), F64, 0.5, 2))), {}),
    ((arr((3, 4), F32),), {"axis": 1, "weights": Host(arr((4,), F32, 0.5, 2))}),
    ((arr((3, 4), F32),), {"axis": 0, "returned": True}))

OPS["matmul"] = _samples(
    ((arr((2, 3), F32), arr((3, 4), F32)), {}), ((arr((5, 2, 3), F64), arr((3, 2), F64)), {}),
    ((arr((3,), F32), arr((3, 2), F32)), {}), ((arr((2, 3), I32), arr((3,), I32)), {}),
    ((arr((2, 1, 2, 3), F32), arr((4, 3, 2), F32)), {}), ((arr((3,), I32), arr((3,), F32)), {}))
OPS["dot"] = _samples(
    ((arr((2, 3), F32), arr((3, 4), F32)), {}), ((arr((3,), F64), arr((3,), F64)), {}),
    ((arr((2, 3), F32), 2.0), {}), ((arr((2, 2, 3), F32), arr((4, 3, 2), F32)), {}),
    ((arr((2, 3), I32), arr((3,), I32)), {}))
OPS["tensordot"] = _samples(
    ((arr((2, 3, 4), F32), arr((3, 4, 5), F32)), {}),
    ((arr((2, 3), F64), arr((3, 2), F64)), {"axes": 1}),
    ((arr((2, 3, 4), F32), arr((4, 2, 3), F32)), {"axes": ([1, 2], [2, 0])}))
OPS["inner"] = _samples(((arr((2, 3), F32), arr((4, 3), F32)), {}),
                        ((arr((3,), I32), arr((3,), I32)), {}), ((arr((3,), F32), 2.0), {}))
OPS["outer"] = _samples(((arr((3,), F32), arr((4,), F32)), {}),
                        ((arr((2, 2), I32), arr((3,), F64)), {}))
OPS["vdot"] = _samples(((arr((2, 3), F32), arr((2, 3), F32)), {}),
                       ((arr((3,), "complex64"), arr((3,), "complex64")), {}))
OPS["kron"] = _samples(((arr((2, 3), F32), arr((2, 2), F32)), {}),
                       ((arr((3,), I32), arr((2, 2), I32)), {}))
OPS["polyval"] = _samples(((np.array([1.0, -2.0, 3.0]), arr((4,), F64)), {}),
                          ((np.array([2, 1]), arr((2, 3), F32)), {}),
                          ((np.array(3.0), arr((2, 3), F32)), {}),
                          ((arr((3, 2), F32), arr((2,), F32)), {}))
OPS["cross"] = _samples(
    ((arr((3,), F32), arr((3,), F32)), {}), ((arr((4, 3), F64), arr((3,), F64)), {}),
    ((arr((2,), F32), arr((2,), F32)), {}), ((arr((4, 2), F32), arr((4, 3), F32)), {}),
    ((arr((3, 4), F32), arr((3, 4), F32)), {"axis": 0}))

# ---------------------------------------------------------- array functions

OPS["zeros"] = OPS["empty"] = _samples(((3,), {}), (((2, 3),), {"dtype": I32}),
                                       (((2,),), {"dtype": np.bool_}))
OPS["ones"] = _samples(((3,), {}), (((2, 3),), {"dtype": "int64"}), (((2,),), {"dtype": None}))
OPS["zeros_like"] = OPS["ones_like"] = OPS["empty_like"] = _samples(
    ((arr((2, 3), F32),), {}), ((arr((4,), I32),), {"dtype": F64}), ((1.5,), {}), ((2,), {}))
OPS["full"] = _samples((((2, 3), 1.5), {}), ((3, 7), {}), (((2, 2), 1), {"dtype": F32}),
                       (((2, 3), arr((3,), F32)), {}))
OPS["full_like"] = _samples(((arr((2, 3), F32), 2), {}), ((arr((4,), I32), 2.7), {}),
                            ((arr((2,), I32), 1), {"dtype": F64}))
OPS["eye"] = _samples(((3,), {}), ((2, 4), {}), ((4, 3, 1), {"dtype": I32}),
                      ((3, 3, -1), {}), ((3, 3, 5), {}))
OPS["identity"] = _samples(((3,), {}), ((2,), {"dtype": "int32"}))
OPS["asarray"] = OPS["asanyarray"] = OPS["array"] = _samples(
    ((Host(arr((2, 3), F32)),), {}), (([1, 2, 3],), {}), (([1.0, 2],), {}), ((2.5,), {}),
    ((True,), {}), ((Host(arr((3,), I32)),), {"dtype": F32}), ((arr((2,), F64),), {}))
OPS["array"] = _samples(((Host(arr((3,), F32)),), {"ndmin": 3}), (([[1, 2]],), {}),
                        ((arr((2,), I32),), {"dtype": "float64"}))
OPS["ascontiguousarray"] = _samples(((3.0,), {}), ((Host(arr((2, 2), I32)),), {}))
OPS["copy"] = _samples(((arr((2, 3), F32),), {}), ((arr((), I32),), {}))
OPS["arange"] = _samples(((5,), {}), ((1, 7, 2), {}), ((0.0, 1.0, 0.25), {}),
                         ((5,), {"dtype": F32}), ((3, 0), {}), ((1, 10, 3.0), {}))
OPS["linspace"] = _samples(((0, 1, 5), {}), ((0.0, 10.0), {"num": 7, "endpoint": False}),
                           ((1, 5, 4), {"dtype": I32}), ((-2, 2, 6), {"retstep": True}))
OPS["logspace"] = _samples(((0, 2, 5), {}), ((0.0, 1.0), {"num": 4, "base": 2.0}))
OPS["geomspace"] = _samples(((1, 1000, 4), {}), ((2.0, 32.0), {"num": 5, "endpoint": False}))
OPS["tri"] = _samples(((3,), {}), ((2, 4, 1), {}), ((3, 3, -1), {"dtype": I32}))
OPS["meshgrid"] = _samples(((arr((3,), F32), arr((2,), F32)), {}),
                           ((arr((3,), I32), arr((4,), I32)), {"indexing": "ij"}))
OPS["vander"] = _samples(((arr((4,), F32),), {}), ((arr((3,), I32),), {"N": 5}),
                         ((arr((3,), F64),), {"increasing": True}))
OPS["diag_indices"] = _samples(((3,), {}), ((2, 3), {}))

OPS["reshape"] = _samples(((arr((2, 3), F32), (3, 2)), {}), ((arr((2, 3), I32), (-1,)), {}),
                          ((arr((6,), F32), (2, -1)), {}), ((arr((6,), F32), (4, 2)), {}))
OPS["ravel"] = OPS["flatten"] = _samples(((arr((2, 3), F32),), {}), ((arr((), I32),), {}))
OPS["expand_dims"] = _samples(((arr((2, 3), F32), 0), {}), ((arr((2, 3), F32), -1), {}),
                              ((arr((2,), F32), 1), {}))
OPS["squeeze"] = _samples(((arr((1, 3, 1), F32),), {}), ((arr((1, 3, 1), F32),), {"axis": 0}),
                          ((arr((1, 3), F32),), {"axis": 1}))
OPS["transpose"] = _samples(((arr((2, 3), F32),), {}), ((arr((2, 3, 4), F32), (1, 0, 2)), {}))
OPS["swapaxes"] = _samples(((arr((2, 3, 4), F32), 0, 2), {}), ((arr((2, 3), I32), -1, 0), {}))
OPS["moveaxis"] = _samples(((arr((2, 3, 4), F32), 0, -1), {}),
                           ((arr((2, 3, 4), F32), [0, 1], [2, 0]), {}))
OPS["broadcast_to"] = _samples(((arr((3,), F32), (2, 3)), {}), ((arr((2, 1), I32), (2, 4)), {}),
                               ((arr((3,), F32), (4,)), {}))
OPS["broadcast_arrays"] = _samples(((arr((3,), F32), arr((2, 1), F32)), {}))
OPS["atleast_1d"] = OPS["atleast_2d"] = OPS["atleast_3d"] = _samples(
    ((arr((), F32),), {}), ((arr((3,), I32),), {}), ((arr((2, 3), F32),), {}),
    ((arr((3,), F32), arr((2, 2), F32)), {}))
OPS["concatenate"] = _samples((([arr((2, 3), F32), arr((1, 3), F32)],), {}),
                              (([arr((2, 2), I32), arr((2, 1), F32)],), {"axis": 1}),
                              (([arr((2, 3), F32), arr((1, 2), F32)],), {}))
OPS["stack"] = _samples((([arr((2, 3), F32), arr((2, 3), F32)],), {}),
                        (([arr((3,), I32), arr((3,), F64)],), {"axis": 1}),
                        ((arr((2, 3), F32),), {"axis": 1}))
OPS["hstack"] = OPS["vstack"] = OPS["dstack"] = _samples(
    (([arr((2, 3), F32), arr((2, 3), F32)],), {}), (([arr((3,), I32), arr((3,), I32)],), {}))
OPS["split"] = _samples(((arr((6, 2), F32), 3), {}), ((arr((6, 2), F32), [1, 4]), {}),
                        ((arr((2, 6), I32), 2), {"axis": 1}), ((arr((5,), F32), 2), {}))
OPS["vsplit"] = _samples(((arr((4, 2), F32), 2), {}))
OPS["hsplit"] = _samples(((arr((4, 6), F32), 3), {}), ((arr((6,), F32), [2]), {}))
OPS["dsplit"] = _samples(((arr((2, 2, 4), F32), 2), {}))
OPS["append"] = _samples(((arr((2, 3), F32), arr((1, 3), F32)), {}),
                         ((arr((2, 3), I32), arr((2, 1), I32)), {"axis": 1}))
OPS["shape"] = OPS["ndim"] = OPS["size"] = OPS["isscalar"] = _samples(
    ((arr((2, 3), F32),), {}), ((arr((), I32),), {}))
OPS["flip"] = _samples(((arr((2, 3), F32),), {}), ((arr((2, 3), I32), 1), {}),
                       ((arr((2, 3, 2), F32), (0, 2)), {}))
OPS["flipud"] = OPS["fliplr"] = _samples(((arr((2, 3), F32),), {}))
OPS["roll"] = _samples(((arr((5,), F32), 2), {}), ((arr((2, 3), I32), -1, 1), {}),
                       ((arr((2, 3), F32), 4), {}), ((arr((2, 3), F32), (1, 2), (0, 1)), {}))
OPS["rot90"] = _samples(((arr((2, 3), F32),), {}), ((arr((2, 3), F32), 2), {}),
                        ((arr((2, 3, 4), I32), 3, (1, 2)), {}))
OPS["tile"] = _samples(((arr((2, 3), F32), 2), {}), ((arr((3,), I32), (2, 2)), {}))
OPS["repeat"] = _samples(((arr((2, 3), F32), 2), {}), ((arr((2, 3), I32), 3), {"axis": 1}),
                         ((arr((3,), F32), [1, 2, 0]), {"axis": 0}))
OPS["pad"] = _samples(((arr((2, 3), F32), 1, "constant"), {}),
                      ((arr((3,), I32), ((1, 2),), "constant"), {"constant_values": 7}),
                      ((arr((4,), F32), 2, "reflect"), {}), ((arr((3, 3), F32), 1, "symmetric"),
                                                             {}))
OPS["where"] = _samples(((arr((2, 3), "bool"), arr((2, 3), F32), arr((3,), F64)), {}),
                        ((arr((4,), I32), 1, 0), {}), ((arr((4,), "bool"), arr((4,), I32), 2.5),
                                                      {}))
OPS["select"] = _samples((([arr((4,), "bool"), arr((4,), "bool")],
                           [arr((4,), F32), arr((4,), F32)]), {}),
                         (([arr((3,), "bool")], [arr((3,), I32)]), {"default": 9}))
OPS["nonzero"] = _samples(((arr((3, 4), I32, -1, 1),), {}), ((arr((5,), "bool"),), {}))
OPS["compress"] = _samples(((Host(np.array([True, False, True])), arr((3, 2), F32)), {"axis": 0}),
                           (([False, True], arr((2, 2), I32)), {}),
                           ((Host(np.array([1, 0])), arr((2, 3), F64)), {"axis": -1}),
                           ((Host(np.array([True, True])), arr((), F32)), {"axis": 0}),
                           ((Host(np.array([True, False, True, True])), arr((3,), F32)), {}),
                           ((Host(np.array([[True, False]])), arr((3,), F32)), {}))
OPS["ix_"] = _samples(((arr((2,), I32, 0, 3), arr((3,), I32, 0, 3)), {}))
OPS["diff"] = _samples(((arr((5,), F32),), {}), ((arr((3, 4), I32),), {"n": 2, "axis": 0}),
                       ((arr((4,), "bool"),), {}))
OPS["take"] = _samples(((arr((3, 4), F32), Host(np.array([0, 5, 11]))), {}),
                       ((arr((3, 4), I32), [2, 0]), {"axis": 1}),
                       ((arr((5,), F32), Host(np.array([-1, 7]))), {"mode": "wrap"}),
                       ((arr((5,), F32), arr((2, 2), "int32", 0, 4)), {}))
OPS["take_along_axis"] = _samples(
    ((arr((3, 4), F32), arr((3, 2), "int64", 0, 3)), {"axis": 1}),
    ((arr((3, 4), I32), arr((1, 4), "int32", 0, 2)), {"axis": 0}))

OPS["tril"] = OPS["triu"] = _samples(((arr((3, 4), F32),), {}), ((arr((4, 4), I32), 1), {}),
                                     ((arr((2, 3, 3), F32), -1), {}))
OPS["diag"] = _samples(((arr((3,), F32),), {}), ((arr((3, 4), I32),), {}),
                       ((arr((3,), F32), 1), {}), ((arr((4, 3), F32), -1), {}))
OPS["diagflat"] = _samples(((arr((2, 2), F32),), {}), ((arr((3,), I32), -1), {}))
OPS["diagonal"] = _samples(((arr((3, 4), F32),), {}), ((arr((2, 3, 3), I32), 1, 1, 2), {}))
OPS["trace"] = _samples(((arr((3, 4), F32),), {}), ((arr((3, 3), I32), 1), {}),
                        ((arr((2, 3, 3), F64),), {"axis1": 1, "axis2": 2}),
                        ((arr((3, 3), "int8"),), {}))


def _distinct(shape, dtype):
    """Values without ties (sort orders of equal keys differ between sorts)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) - n // 2).reshape(shape).astype(dtype)


OPS["sort"] = _samples(((_distinct((3, 4), F32),), {}), ((_distinct((3, 4), I32),), {"axis": 0}),
                       ((_distinct((2, 3), F64),), {"axis": None}),
                       ((_distinct((4,), F32),), {"kind": "stable"}))
OPS["argsort"] = _samples(((_distinct((3, 4), F32),), {}), ((_distinct((3, 4), I32),), {"axis": 0}),
                          ((_distinct((2, 3), F64),), {"axis": None}),
                          ((arr((3,), "complex64"),), {}), ((np.float32(2.0),), {}))
OPS["einsum"] = _samples(
    (("ij,jk->ik", arr((2, 3), F32), arr((3, 4), F32)), {}),
    (("ii->i", arr((3, 3), F64)), {}), (("ij->", arr((2, 3), I32)), {}),
    (("bij,bjk->bik", arr((2, 2, 3), F32), arr((2, 3, 2), F32)), {}),
    (("i,i", arr((3,), I32), arr((3,), F32)), {}),
    (("...j,j->...", arr((2, 3, 4), F32), arr((4,), F32)), {}))
