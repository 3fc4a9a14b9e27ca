"""Bugs found by running a fifth round of TensorFlow / tnp user programs:
each case runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy, with tf.*
calls on lazy arrays) and must give the same values, dtypes, shapes and
error types."""

from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp

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


TABLE = np.arange(12, dtype=np.float32).reshape(3, 4)
OUT_OF_RANGE = {  # a user's off-by-one lookups, with indices known on the host
    "gather": lambda p: tf.gather(p, [0, 3]),
    "gather_negative": lambda p: tf.gather(p, [-1]),
    "gather_axis1": lambda p: tf.gather(p, np.array([4]), axis=1),
    "gather_scalar": lambda p: tf.gather(p, 3),
    "gather_eager_tensor": lambda p: tf.gather(p, tf.constant([3])),
    "gather_batch_dims": lambda p: tf.gather(p, [[0], [4], [1]], axis=1, batch_dims=1),
    "gather_nd": lambda p: tf.gather_nd(p, [[0, 9]]),
    "gather_nd_rows": lambda p: tf.gather_nd(p, [[3]]),
    "tensor_scatter_nd_update": lambda p: tf.tensor_scatter_nd_update(p, [[3, 0]], [1.0]),
    "tensor_scatter_nd_add": lambda p: tf.tensor_scatter_nd_add(p, [[0, -1]], [1.0]),
    "embedding_lookup": lambda p: tf.nn.embedding_lookup(p, [3]),
    "sparse_softmax_cross_entropy": lambda p: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=[0, 4, 1], logits=p),
    "sparse_softmax_cross_entropy_negative": lambda p:
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=np.array([0, -1, 1]), logits=p),
    "unsorted_segment_sum": lambda p: tf.math.unsorted_segment_sum(p, [0, 5, 1], 3),
    "segment_sum_unsorted_ids": lambda p: tf.math.segment_sum(p, [1, 0, 0]),
    "segment_sum_negative_ids": lambda p: tf.math.segment_sum(p, [-1, 0, 0]),
    "confusion_matrix": lambda p: tf.math.confusion_matrix(
        tf.argmax(p, axis=1), [0, 5, 1], num_classes=4),
}


@pytest.mark.parametrize("case", sorted(OUT_OF_RANGE))
def test_out_of_range_host_indices_raise_as_tensorflow(case):
    """Out-of-range indices given as lists, numpy arrays or eager tensors
    were clamped (``tf.gather(x, [0, 3])`` of a 3-row x returned row 2
    twice), dropped (scatters, segment ids, confusion-matrix labels), read
    NaN (``embedding_lookup``, a sparse cross entropy's label) or summed
    unsorted segment ids where TensorFlow's CPU kernels raise
    InvalidArgumentError; values the host knows are now checked when the op
    is recorded (lazy ones still cannot raise)."""
    fn = OUT_OF_RANGE[case]
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(tnp.asarray(TABLE))
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(lnp.asarray(TABLE))


def test_in_range_host_indices_and_variable_scatters_match_tensorflow():
    """In-range lookups are unchanged (a negative unsorted segment id drops,
    a gap in sorted ids is an empty segment); a lazy Variable's scatter_nd_update
    with an out-of-range row raises as tf.Variable's."""
    import lazytensor.tf as ltf

    for fn in (lambda p: tf.gather(p, [2, 0, 2]), lambda p: tf.gather_nd(p, [[2, 3], [0, 0]]),
               lambda p: tf.tensor_scatter_nd_update(p, [[2, 3]], [-1.0]),
               lambda p: tf.math.unsorted_segment_sum(p, [0, -1, 2], 3),
               lambda p: tf.math.segment_sum(p, [0, 0, 2]),
               lambda p: tf.nn.sparse_softmax_cross_entropy_with_logits([3, 0, 1], p)):
        np.testing.assert_allclose(fn(lnp.asarray(TABLE)).numpy(),
                                   fn(tnp.asarray(TABLE)).numpy(), rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.Variable(TABLE).scatter_nd_update([[5, 0]], [1.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        ltf.Variable(TABLE).scatter_nd_update([[5, 0]], [1.0])


def narrow_integer_totals(np_):
    """Per-class pixel counts kept in a narrow integer type by an explicit
    ``dtype=`` (tnp then accumulates in it, wrapping as numpy does)."""
    pixels = np_.asarray([[200, 100, 7], [50, 60, 70]], dtype=np_.uint8)
    small = np_.asarray([1, 2, 100], dtype=np_.int8)
    return [np_.sum(pixels, axis=1, dtype=np_.uint8), np_.sum(pixels, dtype=np_.int16),
            np_.prod(small, dtype=np_.int8), np_.nansum(small, dtype=np_.int8),
            np_.nanprod(small, dtype=np_.int8), np_.sum(small > 1, dtype=np_.int8),
            np_.prod(pixels, axis=0, keepdims=True, dtype=np_.int32), np_.sum(small)]


def test_sum_and_prod_with_an_integer_dtype_accumulate_in_it_as_tnp():
    """``sum``/``prod``/``nansum``/``nanprod`` with an explicit integer
    ``dtype=`` returned int64 (uint64 for unsigned) and its unwrapped value
    (``prod(int8 [1, 2, 100], dtype=int8)`` gave 200, tnp -56): the int64
    accumulator meant for ``dtype=None`` was applied to every integer sum."""
    assert_same(narrow_integer_totals(lnp), narrow_integer_totals(tnp))


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


def masked_mean_and_entropy_gradients(np_, t):
    """A per-row masked mean (``divide_no_nan`` by a count that is 0 for an
    empty row) and an entropy term (``xlogy`` of probabilities with exact
    zeros), differentiated by a tape, as a user's loss is."""
    values = t.Variable(np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [3.0, 0.0, 1.0]], np.float32))
    counts = t.Variable(np.array([2.0, 0.0, 1.0], np.float32))
    probs = t.Variable(np.array([0.0, 0.25, 0.75], np.float32))
    with t.GradientTape() as tape:
        means = tf.math.divide_no_nan(tf.reduce_sum(values, axis=1), counts)
        entropy = -tf.reduce_sum(tf.math.xlogy(probs, probs))
        ratio = tf.reduce_sum(tf.math.xdivy(probs, probs * counts))
        inverse = tf.reduce_sum(tf.math.reciprocal_no_nan(counts))
        loss = tf.reduce_sum(means) + entropy + ratio + inverse
    return [loss, *tape.gradient(loss, [values, counts, probs])]


def test_no_nan_ops_give_tensorflows_zero_gradients_under_a_tape():
    """``divide_no_nan`` by a zero count, ``xlogy``/``xdivy`` at x = 0 and
    ``reciprocal_no_nan`` of 0 gave NaN gradients (the unselected branch's
    inf times a zero cotangent) where TensorFlow's are 0, so one empty
    row turned every updated weight into NaN."""
    import lazytensor.tf as ltf

    assert_same(masked_mean_and_entropy_gradients(lnp, ltf),
                masked_mean_and_entropy_gradients(tnp, tf))


def phases(np_):
    """The phase of real samples (0 or pi by sign) next to complex ones."""
    real = np_.asarray([-1.5, 0.0, 2.0])
    return [np_.angle(real), np_.angle(real, deg=True), np_.angle(np_.asarray([-1, 3])),
            np_.angle(np_.asarray([-1.0, 1.0], np_.float16)), np_.angle(np_.asarray([True])),
            np_.angle(np_.asarray([1j, -1.0])), np_.angle(np_.asarray([1j], np_.complex64))]


def test_angle_of_real_input_is_float32_as_tnp():
    """``angle`` of float64, float16, integer or bool input kept float64 /
    float16 where tnp gives float32 (its where(x < 0, np.pi, 0) makes the
    Python pi a float32 tensor)."""
    assert_same(phases(lnp), phases(tnp))


def sparse_feature_updates(t):
    """Per-bucket bookkeeping of a sparse model: subtract decayed updates,
    keep running maxima and minima (repeated indices combine), average an
    embedding bag by the square root of its size; with a tape's gradients."""
    table = t.Variable(np.arange(12.0, dtype=np.float32).reshape(4, 3))
    rows = np.array([[1], [3], [1]])
    updates = t.Variable(np.array([[1, 20, -3], [4, 5, 6], [7, -8, 9]], np.float32))
    counts = t.Variable(np.arange(6, dtype=np.uint8).reshape(2, 3), trainable=False)
    ids = np.array([2, 0, 2, 2])
    with t.GradientTape() as tape:
        sub = tf.tensor_scatter_nd_sub(table, rows, updates)
        top = tf.tensor_scatter_nd_max(table, rows, updates)
        low = tf.tensor_scatter_nd_min(table, rows, updates)
        bag = tf.math.unsorted_segment_sqrt_n(table, ids, 4)
        loss = tf.reduce_sum(sub * sub) + tf.reduce_sum(top) - tf.reduce_sum(low) + tf.reduce_sum(
            bag * bag)
    cells = [[0, 1], [1, 2], [0, 1]]
    return [sub, top, low, bag, *tape.gradient(loss, [table, updates]),
            tf.tensor_scatter_nd_sub(counts, cells, np.array([9, 2, 1], np.uint8)),
            tf.tensor_scatter_nd_max(counts, cells, np.array([9, 2, 1], np.uint8)),
            tf.tensor_scatter_nd_min(counts, cells, np.array([9, 2, 1], np.uint8))]


def test_scatter_sub_max_min_and_segment_sqrt_n_record_lazily():
    """``tf.tensor_scatter_nd_sub/max/min`` and ``tf.math.unsorted_segment_sqrt_n``
    on lazy arrays ran in TensorFlow eagerly (a materialized copy, an eager
    tf.Tensor back); they now record on the core's scatter and segment sum,
    with TensorFlow's values (uint8 subtraction wraps), dtypes and gradients."""
    import lazytensor.tf as ltf
    from lazytensor.core.runtime import use_runtime

    with use_runtime() as rt:
        got = sparse_feature_updates(ltf)
        assert all(isinstance(g, lnp.ndarray) for g in got)
        assert rt.metrics.counters["eager_fallbacks"] == 0
        assert_same(got, sparse_feature_updates(tf))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.unsorted_segment_sqrt_n(lnp.arange(4), np.array([0, 1, 0, 1]), 2)


STRIDED_SLICES = [
    dict(begin=[0, 1, 0], end=[2, 3, 5], strides=[1, 2, 2]),
    dict(begin=[2, 3, 4], end=[0, 0, 0], strides=[-1, -1, -2]),
    dict(begin=[-1, 0, 0], end=[0, 0, 0], strides=[-1, 1, 1], end_mask=0b110),
    dict(begin=[1, 0], end=[2, 0], shrink_axis_mask=1, end_mask=2),
    dict(begin=[0, 0, 0], end=[0, 0, 0], begin_mask=7, end_mask=7, new_axis_mask=2),
    dict(begin=[0, 2], end=[0, 4], ellipsis_mask=1),
    dict(begin=[1, 0, -1], end=[2, 0, 0], shrink_axis_mask=5, begin_mask=2, end_mask=2),
    dict(begin=[0], end=[10]), dict(begin=[5, 0, 0], end=[9, 4, 5]),
]


def strided_crops(t):
    """Crops, flips, strided subsampling and axis insertion spelled as
    ``tf.strided_slice`` (as code converted from TF1 graphs does), with a
    tape's gradient through one of them."""
    x = t.Variable(np.arange(60.0, dtype=np.float32).reshape(3, 4, 5))
    with t.GradientTape() as tape:
        crops = [tf.strided_slice(x, **case) for case in STRIDED_SLICES]
        loss = tf.reduce_sum(crops[1] * crops[1])
    return [*crops, tape.gradient(loss, x)]


def test_strided_slice_records_lazily_with_tensorflows_masks():
    """``tf.strided_slice`` on a lazy array ran in TensorFlow eagerly (a
    materialized copy, an eager tf.Tensor back); it now records as the
    Python index its begin/end/strides and five bit masks spell, with
    TensorFlow's errors for a zero stride or arguments of unequal length."""
    import lazytensor.tf as ltf
    from lazytensor.core.runtime import use_runtime

    with use_runtime() as rt:
        got = strided_crops(ltf)
        assert all(isinstance(g, lnp.ndarray) for g in got)
        assert rt.metrics.counters["eager_fallbacks"] == 0
        assert_same(got, strided_crops(tf))
    for bad in (dict(begin=[0], end=[1], strides=[0]), dict(begin=[0, 1], end=[1])):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.strided_slice(lnp.ones((2, 3)), **bad)
