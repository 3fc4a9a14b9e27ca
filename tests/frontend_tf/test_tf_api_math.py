"""TensorFlow's own ``tf.math`` / ``tf.bitwise`` / array ops on lazy arrays
(``lazytensor.tf.tf_api.math``): every case runs through eager TensorFlow on
tf.Tensors and through the dispatch on lazy arrays made from the same data,
and must agree in values, dtype and shape, come back lazy (no EagerTensor)
and count no fallback."""

from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, tf


class L:
    """A tensor argument: tf.constant in the eager run, lazy in the other."""

    def __init__(self, value, dtype=None):
        self.value = np.asarray(value, dtype)


class T(L):
    """A tf.Tensor in both runs (mixed with lazy arrays)."""


def _eager(arg):
    if isinstance(arg, L):
        return tf.constant(arg.value)
    if isinstance(arg, list):
        return [_eager(a) for a in arg]
    return arg


def _lazy(arg):
    if isinstance(arg, T):
        return tf.constant(arg.value)
    if isinstance(arg, L):
        return lnp.asarray(arg.value)
    if isinstance(arg, list):
        return [_lazy(a) for a in arg]
    return arg


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _flat(v)]
    return [] if value is None else [value]


F32 = L([[-1.5, 0.5, 2.0], [3.0, -0.25, 0.0]], np.float32)
F64 = L([[0.3, -2.0, 1.25], [4.0, 0.5, -0.75]], np.float64)
POS = L([[0.5, 1.5, 2.0], [3.0, 0.25, 1.0]], np.float32)
UNIT = L([[-0.9, -0.2, 0.0], [0.3, 0.6, 0.95]], np.float32)
BIG = L([[1.5, 2.0, 3.0], [1.25, 4.0, 8.0]], np.float32)
HALF = L([0.5, 1.5, 2.5, -0.5, -1.5, 2.4], np.float32)
SPECIAL = L([np.inf, -np.inf, np.nan, 1.0, 0.0], np.float32)
I32 = L([[-3, 0, 2], [5, -1, 4]], np.int32)
I32B = L([[2, 3, -2], [1, 7, -3]], np.int32)
EXPONENT = L([[2, 3, 0], [1, 2, 3]], np.int32)
I64 = L([[6, 1, 0], [3, 9, 2]], np.int64)
I8 = L([100, 27, -5], np.int8)
U8 = L([1, 200, 7], np.uint8)
B = L([[True, False, True], [False, False, True]])
B2 = L([[True, True, False], [False, True, True]])
C64 = L([1 + 2j, -3 + 0.5j, 0j], np.complex64)
IDX = L([2, 0, 1, 1], np.int32)
CUBE = L(np.arange(24, dtype=np.float32).reshape(2, 3, 4))


def _math_op(name: str):
    return lambda tf, *args, **kwargs: getattr(tf.math, name)(*args, **kwargs)


def _unary_cases():
    floats = ["sin", "cos", "tan", "sinh", "cosh", "tanh", "asinh", "atan", "exp", "expm1",
              "floor", "ceil", "rint", "erf", "erfc", "negative", "sign", "square", "abs",
              "is_finite", "is_nan", "real", "imag", "conj", "angle", "reciprocal"]
    cases = [(f"{n}-f32", _math_op(n), [F32])
             for n in floats]
    cases += [(f"{n}-pos", _math_op(n), [POS])
              for n in ("sqrt", "rsqrt", "log", "log1p", "lgamma", "digamma")]
    cases += [(f"{n}-unit", _math_op(n), [UNIT])
              for n in ("asin", "acos", "atanh", "erfinv", "ndtri")]
    cases += [("acosh", lambda tf, x: tf.math.acosh(x), [BIG]),
              ("round-half-even", lambda tf, x: tf.math.round(x), [HALF]),
              ("round-int", lambda tf, x: tf.math.round(x), [I32]),
              ("is_inf", lambda tf, x: tf.math.is_inf(x), [SPECIAL]),
              ("is_finite-special", lambda tf, x: tf.math.is_finite(x), [SPECIAL]),
              ("exp-f64", lambda tf, x: tf.math.exp(x), [F64]),
              ("abs-int", lambda tf, x: tf.math.abs(x), [I32]),
              ("bessel_i0", lambda tf, x: tf.math.bessel_i0(x), [F32]),
              ("bessel_i1", lambda tf, x: tf.math.bessel_i1(x), [F32]),
              ("reciprocal_no_nan", lambda tf, x: tf.math.reciprocal_no_nan(x), [F32]),
              ("negative-i64", lambda tf, x: tf.math.negative(x), [I64]),
              ("sign-int", lambda tf, x: tf.math.sign(x), [I32]),
              ("square-int", lambda tf, x: tf.math.square(x), [I32]),
              ("abs-complex", lambda tf, x: tf.math.abs(x), [C64]),
              ("real-complex", lambda tf, x: tf.math.real(x), [C64]),
              ("imag-complex", lambda tf, x: tf.math.imag(x), [C64]),
              ("conj-complex", lambda tf, x: tf.math.conj(x), [C64]),
              ("angle-complex", lambda tf, x: tf.math.angle(x), [C64]),
              ("imag-int", lambda tf, x: tf.math.imag(x), [I32]),
              ("logical_not", lambda tf, x: tf.math.logical_not(x), [B]),
              ("invert", lambda tf, x: tf.bitwise.invert(x), [I32])]
    return cases


def _binary(path: str):
    *scope, name = path.split(".")
    return lambda tf, x, y: getattr(getattr(tf, scope[0]) if scope else tf, name)(x, y)


def _binary_cases():
    cases = []
    for path in ("math.add", "math.subtract", "math.multiply", "math.divide", "math.truediv",
                 "math.maximum", "math.minimum", "math.squared_difference", "math.equal",
                 "math.not_equal", "math.less", "math.less_equal", "math.greater",
                 "math.greater_equal", "math.pow", "math.floordiv", "math.floormod",
                 "truncatediv", "truncatemod"):
        cases.append((f"{path}-f32", _binary(path), [F32, BIG]))
        cases.append((f"{path}-i32", _binary(path), [I32, EXPONENT if path == "math.pow"
                                                      else I32B]))
    for path in ("math.atan2", "math.xlogy", "math.xlog1py", "math.xdivy", "math.divide_no_nan",
                 "math.multiply_no_nan", "math.igamma", "math.igammac", "math.zeta",
                 "math.nextafter"):
        cases.append((path, _binary(path), [POS, BIG]))
    cases += [(f"{p}-bool", _binary(p), [B, B2])
              for p in ("math.logical_and", "math.logical_or", "math.logical_xor",
                        "math.equal")]
    cases += [(p, _binary(p), [I32, L([[1, 2, 3], [0, 1, 2]], np.int32)])
              for p in ("bitwise.bitwise_and", "bitwise.bitwise_or", "bitwise.bitwise_xor",
                        "bitwise.left_shift", "bitwise.right_shift")]
    cases += [
        # mixed: Python scalars, numpy values and tf.Tensors beside lazy arrays
        ("add-scalar", lambda tf, x: tf.math.add(x, 2), [F32]),
        ("add-float-first", lambda tf, x: tf.math.add(1.5, x), [F32]),
        ("add-bool-into-int", lambda tf, x: tf.math.add(x, True), [I32]),
        ("add-int8-wraps", lambda tf, x: tf.math.add(x, 100), [I8]),
        ("subtract-int-first", lambda tf, x: tf.math.subtract(1, x), [F32]),
        ("multiply-numpy-f64", lambda tf, x: tf.math.multiply(x, np.array([2.0, 0.5, 1.0])),
         [F32]),
        ("multiply-numpy-scalar", lambda tf, x: tf.math.multiply(np.int64(3), x), [I32]),
        ("multiply-tf-tensor", lambda tf, x, y: tf.math.multiply(x, y), [F32, T(BIG.value)]),
        ("add-tf-first", lambda tf, x, y: tf.math.add(x, y), [T(I32.value), I32B]),
        ("maximum-broadcast", lambda tf, x: tf.math.maximum(x, [0.0, 1.0, 0.5]), [F32]),
        ("divide-int-scalar", lambda tf, x: tf.math.divide(x, 2), [I32]),
        ("divide-int-float-numpy-mode", lambda tf, x: tf.math.divide(x, 2.5), [I32]),
        ("divide-mixed-numpy-mode", lambda tf, x, y: tf.math.divide(x, y), [I32, F32]),
        ("divide-scalar-first", lambda tf, x: tf.math.divide(1, x), [BIG]),
        ("truediv-int8", lambda tf, x: tf.math.truediv(x, x), [I8]),
        ("divide_no_nan-int", lambda tf, x, y: tf.math.divide_no_nan(x, y), [I32, I32B]),
        ("divide_no_nan-zero", lambda tf, x: tf.math.divide_no_nan(x, 0.0), [F32]),
        ("pow-scalar-base", lambda tf, x: tf.math.pow(2, x), [F32]),
        ("floordiv-negative", lambda tf, x: tf.math.floordiv(x, -2), [I32]),
        ("equal-scalar", lambda tf, x: tf.math.equal(x, 0), [I32]),
        ("less-uint8", lambda tf, x: tf.math.less(x, 100), [U8]),
        ("scalar_mul", lambda tf, x: tf.math.scalar_mul(3, x), [I32]),
        ("add_n", lambda tf, x, y: tf.math.add_n([x, y, x]), [F32, T(BIG.value)]),
        ("cast-f2i", lambda tf, x: tf.cast(x, tf.int32), [F32]),
        ("cast-i2f", lambda tf, x: tf.cast(x, tf.float64), [I32]),
        ("cast-b2f", lambda tf, x: tf.cast(x, "float32"), [B]),
        ("cast-c2f", lambda tf, x: tf.cast(x, tf.float32), [C64]),
        ("saturate_cast-u8", lambda tf, x: tf.dtypes.saturate_cast(x * 100, tf.uint8), [F32]),
        ("saturate_cast-i8", lambda tf, x: tf.dtypes.saturate_cast(x, tf.int8),
         [L([-300, 5, 400], np.int32)]),
        ("clip_by_value", lambda tf, x: tf.clip_by_value(x, -0.5, 1.0), [F32]),
        ("clip_by_value-int", lambda tf, x: tf.clip_by_value(x, 0, 3), [I32]),
        ("clip_by_value-tensors", lambda tf, x, lo: tf.clip_by_value(x, lo, 2.0),
         [F32, T([0.0, -1.0, 0.5], np.float32)]),
    ]
    return cases


def _segment_op(name: str, *args):
    return lambda tf, x: getattr(tf.math, name)(x, *args)


def _reduction_cases():
    cases = []
    for kind in ("sum", "prod", "max", "min", "mean"):
        red = _math_op(f"reduce_{kind}")
        cases += [(f"reduce_{kind}-all", red, [F32]),
                  (f"reduce_{kind}-axis1-keep", lambda tf, x, r=red: r(tf, x, axis=1,
                                                                       keepdims=True), [F32]),
                  (f"reduce_{kind}-int-axis0", lambda tf, x, r=red: r(tf, x, axis=0), [I32])]
    cases += [
        ("reduce_mean-int-truncates", lambda tf, x: tf.reduce_mean(x, axis=1), [I32]),
        ("reduce_sum-axes-list", lambda tf, x: tf.reduce_sum(x, axis=[0, 2]), [CUBE]),
        ("reduce_sum-axis-empty", lambda tf, x: tf.reduce_sum(x, axis=[]), [I32]),
        ("reduce_sum-axis-tensor", lambda tf, x: tf.reduce_sum(x, axis=tf.constant(-1)), [F32]),
        ("reduce_all", lambda tf, x: tf.reduce_all(x, axis=0), [B]),
        ("reduce_any", lambda tf, x: tf.reduce_any(x), [B]),
        ("reduce_logsumexp", lambda tf, x: tf.math.reduce_logsumexp(x, axis=1), [F32]),
        ("reduce_std", lambda tf, x: tf.math.reduce_std(x, axis=0), [F32]),
        ("reduce_variance", lambda tf, x: tf.math.reduce_variance(x, keepdims=True), [F64]),
        ("reduce_euclidean_norm", lambda tf, x: tf.math.reduce_euclidean_norm(x, 1), [F32]),
        ("reduce_euclidean_norm-int", lambda tf, x: tf.math.reduce_euclidean_norm(x), [I32]),
        ("argmax", lambda tf, x: tf.math.argmax(x), [F32]),
        ("argmax-axis1-int32", lambda tf, x: tf.math.argmax(x, 1, output_type=tf.int32), [I32]),
        ("argmin", lambda tf, x: tf.math.argmin(x, axis=-1), [F32]),
        ("cumsum", lambda tf, x: tf.math.cumsum(x, axis=1), [F32]),
        ("cumsum-exclusive-reverse",
         lambda tf, x: tf.math.cumsum(x, axis=1, exclusive=True, reverse=True), [I32]),
        ("cumsum-int8-wraps", lambda tf, x: tf.math.cumsum(x), [I8]),
        ("cumprod-exclusive", lambda tf, x: tf.math.cumprod(x, 1, exclusive=True), [I32B]),
        ("cumprod-reverse", lambda tf, x: tf.math.cumprod(x, axis=0, reverse=True), [F32]),
        ("cumulative_logsumexp", lambda tf, x: tf.math.cumulative_logsumexp(x, axis=1), [F32]),
        ("count_nonzero", lambda tf, x: tf.math.count_nonzero(x, axis=0), [I32]),
        ("count_nonzero-keep-int32",
         lambda tf, x: tf.math.count_nonzero(x, 1, keepdims=True, dtype=tf.int32), [F32]),
        ("top_k", lambda tf, x: tf.math.top_k(x, k=2), [F32]),
        ("top_k-int-index64", lambda tf, x: tf.math.top_k(x, 3, index_type=tf.int64), [I32]),
        ("unsorted_segment_sum",
         lambda tf, x: tf.math.unsorted_segment_sum(x, [0, 2], 3), [F32]),
        ("segment_sum", lambda tf, x: tf.math.segment_sum(x, [0, 0, 2, 3]), [L([1., 2, 3, 4])]),
        *[(f"unsorted_segment_{k}", _segment_op(f"unsorted_segment_{k}", [0, 2, 0, 2, 1], 4),
           [L([[1., 2], [3, 4], [5, 6], [7, -8], [9, 9]], np.float32)])
          for k in ("prod", "max", "min", "mean")],
        ("segment_max-int", lambda tf, x: tf.math.segment_max(x, [0, 0, 2]), [L([4, 7, 1])]),
        ("segment_mean", lambda tf, x: tf.math.segment_mean(x, [0, 0, 2]), [L([1., 2, 3])]),
        ("segment_prod", lambda tf, x: tf.math.segment_prod(x, [0, 0, 2]), [L([1., 2, 3])]),
        ("clip_by_norm", lambda tf, x: tf.clip_by_norm(x, 1.5), [F32]),
        ("clip_by_norm-axes", lambda tf, x: tf.clip_by_norm(x, 2.0, axes=[1]), [F32]),
        ("clip_by_global_norm", lambda tf, x, y: tf.clip_by_global_norm([x, None, y], 2.0),
         [F32, T(BIG.value)]),
    ]
    return cases


def _array_cases():
    return [
        ("reshape", lambda tf, x: tf.reshape(x, [3, -1]), [F32]),
        ("reshape-shape-tensor", lambda tf, x: tf.reshape(x, tf.constant([6])), [I32]),
        ("transpose", lambda tf, x: tf.transpose(x), [CUBE]),
        ("transpose-perm", lambda tf, x: tf.transpose(x, perm=[1, 0, 2]), [CUBE]),
        ("transpose-conjugate", lambda tf, x: tf.transpose(x[None], conjugate=True), [C64]),
        ("concat", lambda tf, x, y: tf.concat([x, y], axis=0), [F32, BIG]),
        ("concat-mixed", lambda tf, x, y: tf.concat([x, y, [[1.0, 2, 3]]], -1 + 1),
         [F32, T(BIG.value)]),
        ("concat-axis1", lambda tf, x, y: tf.concat([x, y], 1), [I32, I32B]),
        ("stack", lambda tf, x, y: tf.stack([x, y], axis=1), [F32, BIG]),
        ("stack-list-second", lambda tf, x: tf.stack([x, [1.0, 2.0, 3.0, 4.0, 5.0]]),
         [L([0.5, 1, 2, 3, 4], np.float32)]),
        ("unstack", lambda tf, x: tf.unstack(x, axis=1), [F32]),
        ("split-even", lambda tf, x: tf.split(x, 3, axis=1), [F32]),
        ("split-sizes", lambda tf, x: tf.split(x, [1, -1, 2], axis=2), [CUBE]),
        ("expand_dims", lambda tf, x: tf.expand_dims(x, -1), [F32]),
        ("squeeze", lambda tf, x: tf.squeeze(x), [L(np.ones((1, 3, 1), np.int32))]),
        ("squeeze-axis", lambda tf, x: tf.squeeze(x, axis=[0]), [L(np.ones((1, 3, 1)))]),
        ("tile", lambda tf, x: tf.tile(x, [2, 1]), [I32]),
        ("pad-constant", lambda tf, x: tf.pad(x, [[1, 0], [2, 1]], constant_values=7), [I32]),
        ("pad-reflect", lambda tf, x: tf.pad(x, [[1, 1], [2, 2]], "REFLECT"), [F32]),
        ("pad-symmetric", lambda tf, x: tf.pad(x, [[1, 1], [1, 2]], mode="symmetric"), [F32]),
        ("gather", lambda tf, x, i: tf.gather(x, i, axis=1), [CUBE, IDX]),
        ("gather-list", lambda tf, x: tf.gather(x, [1, 0, 1]), [F32]),
        ("gather-batch_dims", lambda tf, x, i: tf.gather(x, i, axis=2, batch_dims=1),
         [CUBE, L([[0, 2], [3, 1]], np.int32)]),
        ("gather-batch_dims-axis1", lambda tf, x, i: tf.gather(x, i, batch_dims=1),
         [CUBE, L([[0, 2], [1, 1]], np.int64)]),
        ("gather_nd", lambda tf, x, i: tf.gather_nd(x, i),
         [CUBE, L([[0, 1], [1, 2], [0, 0]], np.int32)]),
        ("gather_nd-full", lambda tf, x: tf.gather_nd(x, [[1, 2, 3], [0, 0, 1]]), [CUBE]),
        ("gather_nd-batch", lambda tf, x, i: tf.gather_nd(x, i, batch_dims=1),
         [CUBE, L([[[1], [2]], [[0], [1]]], np.int32)]),
        ("where", lambda tf, c, x, y: tf.where(c, x, y), [B, F32, BIG]),
        ("where-scalar", lambda tf, c, x: tf.where(c, x, 0), [B, I32]),
        ("where-broadcast", lambda tf, c, x: tf.where(c, x, [[9.0], [8.0]]),
         [L([True, False, True]), F32]),
        ("where-coordinates", lambda tf, c: tf.where(c), [B]),
        ("one_hot", lambda tf, i: tf.one_hot(i, 3), [IDX]),
        ("one_hot-values-axis0", lambda tf, i: tf.one_hot(i, 4, 5, -1, axis=0), [IDX]),
        ("one_hot-dtype", lambda tf, i: tf.one_hot(i, 3, dtype=tf.float64), [IDX]),
        ("range", lambda tf, n: tf.range(n), [L(5, np.int32)]),
        ("range-start-delta", lambda tf, n: tf.range(1, n, 2), [L(9, np.int64)]),
        ("range-float", lambda tf, n: tf.range(0.5, n, 0.25), [L(2.0, np.float32)]),
        ("range-dtype", lambda tf, n: tf.range(n, dtype=tf.float64), [L(4, np.int32)]),
        ("zeros_like", lambda tf, x: tf.zeros_like(x), [I32]),
        ("ones_like-dtype", lambda tf, x: tf.ones_like(x, dtype=tf.float16), [F32]),
        ("fill", lambda tf, v: tf.fill([2, 3], v), [L(1.5, np.float32)]),
        ("broadcast_to", lambda tf, x: tf.broadcast_to(x, [4, 2, 3]), [F32]),
        ("reverse", lambda tf, x: tf.reverse(x, [0, -1]), [CUBE]),
        ("roll", lambda tf, x: tf.roll(x, shift=[1, -1], axis=[0, 2]), [CUBE]),
        ("shape", lambda tf, x: tf.shape(x), [CUBE]),
        ("shape-int64", lambda tf, x: tf.shape(x, out_type=tf.int64), [F32]),
        ("size", lambda tf, x: tf.size(x), [CUBE]),
        ("rank", lambda tf, x: tf.rank(x), [CUBE]),
        ("identity", lambda tf, x: tf.identity(x), [F32]),
        ("stop_gradient", lambda tf, x: tf.stop_gradient(x), [F32]),
        ("sort", lambda tf, x: tf.sort(x), [F32]),
        ("sort-descending", lambda tf, x: tf.sort(x, axis=0, direction="DESCENDING"), [I32]),
        ("argsort", lambda tf, x: tf.argsort(x, stable=True), [I32]),
        ("argsort-descending", lambda tf, x: tf.argsort(x, 0, "DESCENDING"), [F32]),
        ("boolean_mask", lambda tf, x, m: tf.boolean_mask(x, m), [F32, B]),
        ("boolean_mask-axis", lambda tf, x, m: tf.boolean_mask(x, m, axis=2),
         [CUBE, L([True, False, True, True])]),
        ("tensor_scatter_nd_update", lambda tf, x, i: tf.tensor_scatter_nd_update(
            x, i, [[9.0, 9, 9], [7.0, 7, 7]]), [F32, L([[1], [0]], np.int32)]),
        ("tensor_scatter_nd_add", lambda tf, x, i: tf.tensor_scatter_nd_add(x, i, [1, 2, 3]),
         [I32, L([[0, 1], [1, 2], [0, 1]], np.int32)]),
        ("slice", lambda tf, x: tf.slice(x, [0, 1, 1], [2, -1, 2]), [CUBE]),
        ("scatter_nd", lambda tf, i, u: tf.scatter_nd(i, u, [4, 2]),
         [L([[1], [3], [1]], np.int32), L([[1, 2], [3, 4], [5, 6]], np.float32)]),
        ("repeat", lambda tf, x: tf.repeat(x, [1, 2], axis=0), [I32]),
        ("repeat-flat", lambda tf, x: tf.repeat(x, 2), [F32]),
        ("searchsorted", lambda tf, s, v: tf.searchsorted(s, v),
         [L([[1.0, 2, 3], [0, 5, 9]], np.float32), L([[2.5, 0.5], [5.0, 10]], np.float32)]),
        ("searchsorted-right", lambda tf, s: tf.searchsorted(s, [2, 3], side="right",
                                                             out_type=tf.int64),
         [L([1, 2, 3], np.int32)]),
        ("linspace", lambda tf, a: tf.linspace(a, 2.0, 5), [L(0.0, np.float32)]),
        ("linspace-nd", lambda tf, a, b: tf.linspace(a, b, 4, axis=1),
         [L([0.0, 1.0], np.float64), L([1.0, 5.0], np.float64)]),
    ]


CASES = _unary_cases() + _binary_cases() + _reduction_cases() + _array_cases()


@pytest.mark.parametrize("fn,args", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_tf_op_on_lazy_arrays_matches_eager_tensorflow(fn, args):
    want = fn(tf, *[_eager(a) for a in args])
    metrics.reset()
    got = fn(tf, *[_lazy(a) for a in args])
    for leaf in _flat(got):
        assert isinstance(leaf, ltf.Tensor), f"not lazy: {type(leaf).__name__}"
    if isinstance(want, tuple) and hasattr(want, "_fields"):  # top_k's namedtuple
        assert got._fields == want._fields
    assert_same(got, want, precision="float32")
    assert metrics.as_dict()["counters"]["eager_fallbacks"] == 0


BAD = [  # (id, program, what eager TensorFlow raises)
    ("add-int-float", lambda tf, x, y: tf.math.add(x, y), [I32, F32]),
    ("add-int-tensor-float-scalar", lambda tf, x: tf.math.add(x, 1.5), [I32]),
    ("add-int-scalar-first", lambda tf, x: tf.math.add(1, x), [F32]),
    ("multiply-float-scalar-into-int", lambda tf, x: tf.math.multiply(x, 1.5), [I32]),
    ("maximum-mixed-tf", lambda tf, x, y: tf.math.maximum(x, y), [F32, T(F64.value)]),
    ("truediv-mixed", lambda tf, x, y: tf.math.truediv(x, y), [I32, F32]),
    ("sin-int", lambda tf, x: tf.math.sin(x), [I32]),
    ("negative-bool", lambda tf, x: tf.math.negative(x), [B]),
    ("logical_and-int", lambda tf, x: tf.math.logical_and(x, True), [I32]),
    ("logical_and-scalar-1", lambda tf, x: tf.math.logical_and(x, 1), [B]),
    ("bitwise-float", lambda tf, x: tf.bitwise.bitwise_and(x, x), [F32]),
    ("add-shapes", lambda tf, x, y: tf.math.add(x, y), [F32, L([1.0, 2.0], np.float32)]),
    ("reduce_sum-bool", lambda tf, x: tf.reduce_sum(x), [B]),
    ("reduce_all-int", lambda tf, x: tf.reduce_all(x), [I32]),
    ("reduce_sum-axis", lambda tf, x: tf.reduce_sum(x, axis=3), [F32]),
    ("reduce_std-int", lambda tf, x: tf.math.reduce_std(x), [I32]),
    ("reshape", lambda tf, x: tf.reshape(x, [4, 2]), [F32]),
    ("concat-dtypes", lambda tf, x, y: tf.concat([x, y], 0), [I32, F32]),
    ("concat-float-into-int", lambda tf, x: tf.concat([x, [[1.5, 2, 3]]], 0), [I32]),
    ("squeeze-not-one", lambda tf, x: tf.squeeze(x, 0), [F32]),
    ("split-uneven", lambda tf, x: tf.split(x, 2, axis=1), [F32]),
    ("where-dtypes", lambda tf, c, x, y: tf.where(c, x, y), [B, I32, F32]),
    ("clip-float-bounds-on-int", lambda tf, x: tf.clip_by_value(x, 0.5, 2.5), [I32]),
    ("tile-length", lambda tf, x: tf.tile(x, [2]), [F32]),
]


@pytest.mark.parametrize("fn,args", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_input_raises_tensorflows_error_type(fn, args):
    with pytest.raises(Exception) as want:
        fn(tf, *[_eager(a) for a in args])
    with pytest.raises(Exception) as got:
        out = fn(tf, *[_lazy(a) for a in args])
        [leaf.numpy() for leaf in _flat(out)]
    assert type(got.value) is want.type or isinstance(got.value, want.type), \
        f"tf: {want.value!r}, lazy: {got.value!r}"


def test_math_ops_follow_tensorflow_not_numpy_behaviour():
    """tf.math.add does not promote even under tnp's numpy behaviour (on in
    these tests), while the tf.Tensor operators and tf.math.divide do."""
    from lazytensor.tf import _tf

    assert _tf.numpy_behavior()
    x = lnp.asarray(np.array([1, 2], np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.add(x, lnp.asarray(np.array([1.0, 2.0], np.float32)))
    assert tf.math.divide(x, 2.5).dtype == tf.float64


def test_a_chain_of_tf_ops_compiles_to_one_graph():
    """Several TensorFlow ops on lazy arrays (mixed with a tf.Tensor and
    Python scalars) record one graph: one execution, one compilation, and
    the same program on new data reuses it."""
    def program(x, w):
        h = tf.math.maximum(x * w, 0.0)
        h = tf.reshape(tf.transpose(h), [-1, 2])
        h = tf.concat([h, tf.math.square(h)], axis=1)
        s = tf.math.reduce_sum(tf.math.exp(-h), axis=1)
        return tf.math.cumsum(tf.clip_by_value(s, 0.1, 3.0)), tf.math.argmax(h, axis=1)

    rng = np.random.default_rng(0)
    w = tf.constant(rng.standard_normal((3, 4)).astype(np.float32))
    data = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2)]
    metrics.reset()
    for host in data:
        got = program(lnp.asarray(host), w)
        assert all(isinstance(g, ltf.Tensor) for g in got)
        ltf.sync()
        want = program(tf.constant(host), w)
        assert_same(list(got), list(want))
    counters = metrics.as_dict()["counters"]
    assert counters["graphs_executed"] == 2, counters
    assert counters.get("cache_misses", 0) == 1, counters
    assert counters["eager_fallbacks"] == 0


def test_stop_gradient_blocks_the_tape():
    """d/dx of x * stop_gradient(x) is stop_gradient(x) (= x), not 2x."""
    x = ltf.Variable(np.array([1.0, 2.0, 3.0], np.float32))
    with ltf.GradientTape() as tape:
        y = tf.math.reduce_sum(x * tf.stop_gradient(x * 1.0))
    grad = tape.gradient(y, x)
    np.testing.assert_allclose(grad.numpy(), [1.0, 2.0, 3.0])
    xe = tf.Variable(np.array([1.0, 2.0, 3.0], np.float32))
    with tf.GradientTape() as tape:
        ye = tf.math.reduce_sum(xe * tf.stop_gradient(xe * 1.0))
    np.testing.assert_allclose(grad.numpy(), tape.gradient(ye, xe).numpy())


LEGACY_MODE = """
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import lazytensor.tf.numpy as lnp
import numpy as np
import tensorflow as tf
from lazytensor.tf import _tf
assert not _tf.numpy_behavior()
x = lnp.asarray(np.array([1, 2, 4], np.int32))
f = lnp.asarray(np.array([1.0, 2.0, 4.0], np.float32))
for fn in (lambda: tf.math.divide(x, f), lambda: tf.math.divide(x, 2.5)):
    try:
        fn()
        print("no error")
    except TypeError:
        print("TypeError")
print(tf.math.divide(x, 2).dtype.name, tf.math.divide(1, f).dtype.name)
print(tf.math.multiply(f, 2).dtype.name, type(tf.math.add(x, 1)).__module__)
"""


def test_legacy_mode_divide_is_strict():
    """Without numpy behaviour tf.math.divide is TensorFlow's truediv (one
    dtype, TypeError otherwise) -- eager TensorFlow gives the same answers."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", LEGACY_MODE], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["TypeError", "TypeError", "float64", "float32", "float32",
                                   "lazytensor.tf._array"]
