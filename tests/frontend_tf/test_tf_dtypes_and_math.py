"""dtypes and math edge cases as TensorFlow's kernels: unsigned refusals,
integer accumulation, floor division, xlogy, angle, bitcast, global_norm,
histogram_fixed_width, compute_average_loss. Each check runs eagerly (tnp,
tf) and lazily (lazytensor.tf.numpy, lazytensor.tf) and compares values,
dtypes and shapes, or the exception type."""


from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import assert_same, lnp, normal_f32, same_lazily, tf, tnp

UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]


# tf.math ops on unsigned data (pixel values, counts) that TensorFlow's
# kernels refuse: Neg, Abs, Sign, Pow and SquaredDifference have no unsigned
# types (tnp's functions of the same names compute numpy's result in lnp, a
# documented difference; tf.math follows the kernels' type lists)
UNSIGNED_CASES = {
    "abs": lambda x: tf.abs(x), "negative": lambda x: tf.math.negative(x),
    "sign": lambda x: tf.sign(x), "pow": lambda x: tf.pow(x, 2),
    "squared_difference": lambda x: tf.math.squared_difference(x, x),
}


def narrow_integer_totals(np_):
    """Per-class pixel counts kept in a narrow integer type by an explicit
    ``dtype=`` (tnp then accumulates in it, wrapping as numpy does)."""
    pixels = np_.asarray([[200, 100, 7], [50, 60, 70]], dtype=np_.uint8)
    small = np_.asarray([1, 2, 100], dtype=np_.int8)
    return [np_.sum(pixels, axis=1, dtype=np_.uint8), np_.sum(pixels, dtype=np_.int16),
            np_.prod(small, dtype=np_.int8), np_.nansum(small, dtype=np_.int8),
            np_.nanprod(small, dtype=np_.int8), np_.sum(small > 1, dtype=np_.int8),
            np_.prod(pixels, axis=0, keepdims=True, dtype=np_.int32), np_.sum(small)]


BIN_EDGES = np.array([3.5, 1.0, 0.3, 0.7, -2.1, 2.5, 0.0, np.inf, -1.0], np.float32)


def histogram_bins(np_):
    """Bin numbers of measurements by floor division by the bin width (a
    float32 width that is not exact in binary: 0.1, 0.7) and the remainder
    within each bin."""
    x = np_.asarray(BIN_EDGES)
    width = np_.asarray([-0.7, 0.1, 0.1, 0.1, 0.7, 0.5, 0.3, 1.0, 0.0], np_.float32)
    return [x // width, np_.floor_divide(x, 0.1), np_.divmod(x, width)[0], x % width,
            tf.math.floordiv(x, width), tf.math.floormod(x, width),
            np_.floor_divide(np_.asarray(BIN_EDGES, np_.float64), 0.1)]


def phases(np_):
    """The phase of real samples (0 or pi by sign) next to complex ones."""
    real = np_.asarray([-1.5, 0.0, 2.0])
    return [np_.angle(real), np_.angle(real, deg=True), np_.angle(np_.asarray([-1, 3])),
            np_.angle(np_.asarray([-1.0, 1.0], np_.float16)), np_.angle(np_.asarray([True])),
            np_.angle(np_.asarray([1j, -1.0])), np_.angle(np_.asarray([1j], np_.complex64))]


@pytest.mark.parametrize("dtype", UNSIGNED)
@pytest.mark.parametrize("case", sorted(UNSIGNED_CASES))
def test_tf_math_refuses_unsigned_where_tensorflows_kernels_do(case, dtype):
    """``tf.abs``, ``tf.math.negative``, ``tf.sign``, ``tf.pow`` and
    ``tf.math.squared_difference`` of an unsigned lazy array computed
    wrapped-around values (``tf.math.negative`` of uint8 [1, 2] gave
    [255, 254]) where TensorFlow raises InvalidArgumentError: their kernel
    type lists were taken as every number type."""
    fn = UNSIGNED_CASES[case]
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(tnp.asarray([1, 2, 3], dtype=dtype))
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(lnp.asarray([1, 2, 3], dtype=dtype))


def test_tf_math_negation_abs_sign_pow_of_signed_integers_still_compute():
    """The same ops on int32 compute, as in TensorFlow."""
    for fn in UNSIGNED_CASES.values():
        want = fn(tnp.asarray([1, -2, 3], dtype="int32"))
        got = fn(lnp.asarray([1, -2, 3], dtype="int32"))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.dtype == want.dtype


def test_sum_and_prod_with_an_integer_dtype_accumulate_in_it_as_tnp():
    """``sum``/``prod``/``nansum``/``nanprod`` with an explicit integer
    ``dtype=`` returned int64 (uint64 for unsigned) and its unwrapped value
    (``prod(int8 [1, 2, 100], dtype=int8)`` gave 200, tnp -56): the int64
    accumulator meant for ``dtype=None`` was applied to every integer sum."""
    assert_same(narrow_integer_totals(lnp), narrow_integer_totals(tnp))


def test_float_floor_division_is_floor_of_the_quotient_as_tensorflow():
    """``x // y`` of floats (tnp's floor_divide, divmod and tf.math.floordiv)
    used numpy's fmod-based rule, off by one from TensorFlow's FloorDiv
    (floor(x / y)) where y is inexact: ``1.0 // 0.1`` gave 9 (tnp 10),
    ``3.5 // -0.7`` in float32 gave -6 (tnp -5)."""
    assert_same(histogram_bins(lnp), histogram_bins(tnp))


def test_xlogy_is_zero_where_x_is_zero_even_for_nan_y():
    """``tf.math.xlogy(0, nan)`` gave NaN (the core's xlogy, torch's and
    scipy's convention); TensorFlow gives 0 wherever x is 0."""
    x = np.array([0.0, 0.0, 0.0, 1.0, 2.0], np.float32)
    y = np.array([np.nan, -1.0, np.inf, np.nan, 3.0], np.float32)
    assert_same(tf.math.xlogy(lnp.asarray(x), lnp.asarray(y)),
                tf.math.xlogy(tnp.asarray(x), tnp.asarray(y)))


def test_angle_of_real_input_is_float32_as_tnp():
    """``angle`` of float64, float16, integer or bool input kept float64 /
    float16 where tnp gives float32 (its where(x < 0, np.pi, 0) makes the
    Python pi a float32 tensor)."""
    assert_same(phases(lnp), phases(tnp))


@pytest.mark.parametrize(("src", "to", "shape"), [
    ("float32", "int32", (2, 3)), ("float32", "uint8", (4,)), ("int16", "float32", (3, 2)),
    ("float64", "int64", (2,)), ("uint8", "float16", (5, 2)), ("float16", "int16", (3,))])
def test_bitcast_records_lazily(src, to, shape):
    """tf.bitcast (Keras's signbit, called by its metrics) ran eagerly."""
    size = int(np.prod(shape)) * np.dtype(src).itemsize
    raw = np.random.default_rng(3).integers(0, 255, size, dtype=np.uint8)
    x = raw.view(src).reshape(shape)
    if np.dtype(src).kind == "f":  # NaN payloads aside
        x = np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0)
    same_lazily(lambda const: tf.bitcast(const(x), getattr(tf, to)), f"{src}->{to}")


def test_bitcast_of_bool_or_an_unfit_axis_raises_tensorflows_error():
    for x, to in ((np.array([True, False]), tf.int8), (np.zeros(3, np.int16), tf.float32)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.bitcast(tf.constant(x), to)
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.bitcast(lnp.asarray(x), to)


def test_global_norm_records_lazily():
    """tf.linalg.global_norm ran eagerly; None entries are skipped."""
    a, b = normal_f32(4, 3, 2), normal_f32(5, 4)
    same_lazily(lambda const: tf.linalg.global_norm([const(a), None, const(b)]))
    same_lazily(lambda const: tf.linalg.global_norm((const(a).astype(np.float64),)))


def test_global_norm_of_a_non_sequence_raises_tensorflows_type_error():
    with pytest.raises(TypeError, match="should be a sequence"):
        tf.linalg.global_norm(tf.constant(normal_f32(6, 3)))
    with pytest.raises(TypeError, match="should be a sequence"):
        tf.linalg.global_norm(lnp.asarray(normal_f32(6, 3)))


def test_histogram_fixed_width_bins_records_lazily():
    """tf.histogram_fixed_width_bins ran eagerly: values outside the range
    land in the end bins, the shape is kept, the result is int32."""
    x = normal_f32(10, 4, 5) * 2
    x[0, 0], x[1, 1] = 9.0, -9.0
    same_lazily(lambda const: tf.histogram_fixed_width_bins(const(x), [-2.0, 2.0], nbins=7))
    same_lazily(lambda const: tf.histogram_fixed_width_bins(
        const(x.astype(np.float64)), const(np.array([-1.0, 3.0])), nbins=4, dtype=tf.int64))


def test_compute_average_loss_records_lazily():
    """tf.nn.compute_average_loss (custom training loops' loss reduction)
    converted its lazy per-example losses (a counted fallback)."""
    x, w = normal_f32(20, 6, 3) ** 2, np.abs(normal_f32(21, 6))

    def program(const):
        loss = const(x)
        return [tf.nn.compute_average_loss(loss[:, 0]),
                tf.nn.compute_average_loss(loss[:, 0], global_batch_size=16),
                tf.nn.compute_average_loss(loss, sample_weight=const(w)),
                tf.nn.compute_average_loss(loss[:, :1], sample_weight=const(w[:, None, None])),
                tf.nn.compute_average_loss(loss[:, 1], sample_weight=0.5,
                                           global_batch_size=tf.constant(3))]

    same_lazily(program, precision="float32")


def test_compute_average_loss_errors_are_tensorflows():
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(ValueError, match="at least rank 1"):
            tf.nn.compute_average_loss(const(np.float32(1.0)))
        with pytest.raises(TypeError, match="must be an integer"):
            tf.nn.compute_average_loss(const(np.ones(3, np.float32)), global_batch_size=2.5)
