"""Indexing, slicing and scatters: tnp's index order, host indices in and out
of range, strided_slice masks, reverse_sequence, tensor_scatter and segment
ops. Each check runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy,
lazytensor.tf) and compares values, dtypes and shapes, or the exception
type."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from tf_helpers import assert_same, lazy_and_eager, lnp, tf, tnp

A = np.arange(120).reshape(2, 3, 4, 5)


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


REVERSE_SEQUENCE = {
    "rows": ([1, 2, 4], 1, 0), "columns": ([1, 2, 3, 0], 0, 1), "last_batch": ([2, 1], 0, 2),
    "default_batch": (np.array([3, 1, 2], np.int64), 1, None),
}


@pytest.mark.parametrize("key", [
    (1, slice(None), [0, 3]), (slice(None), 1, slice(None), [0, 1, 2]),
    (1, [0, 2], slice(None), [1, 3]), (None, 1, slice(None), [0, 2]), (Ellipsis, 1, [0, 2]),
    (np.array([0, 1]), slice(None), 2, np.array([3, 4])), (1, slice(None, None, -1), [0, 1]),
], ids=str)
def test_scalar_indices_apply_before_array_indices_as_tnp(key):
    # tnp: x[1, :, [0, 4]] is (4, 2) (scalars are a strided slice first); numpy gives (2, 4)
    assert_same(lnp.asarray(A)[key], tnp.asarray(A)[key], str(key))


def test_scalar_array_index_applies_first():
    got = lnp.asarray(A)[lnp.asarray(1), :, [1, 2]]
    assert_same(got, tnp.asarray(A)[tnp.asarray(1), :, [1, 2]])


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


def test_scatter_sub_max_min_and_segment_sqrt_n_record_lazily():
    """``tf.tensor_scatter_nd_sub/max/min`` and ``tf.math.unsorted_segment_sqrt_n``
    on lazy arrays ran in TensorFlow eagerly (a materialized copy, an eager
    tf.Tensor back); they now record on the core's scatter and segment sum,
    with TensorFlow's values (uint8 subtraction wraps), dtypes and gradients."""
    from lazytensor.core.runtime import use_runtime

    with use_runtime() as rt:
        got = sparse_feature_updates(ltf)
        assert all(isinstance(g, lnp.ndarray) for g in got)
        assert rt.metrics.counters["eager_fallbacks"] == 0
        assert_same(got, sparse_feature_updates(tf))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.unsorted_segment_sqrt_n(lnp.arange(4), np.array([0, 1, 0, 1]), 2)


def test_strided_slice_records_lazily_with_tensorflows_masks():
    """``tf.strided_slice`` on a lazy array ran in TensorFlow eagerly (a
    materialized copy, an eager tf.Tensor back); it now records as the
    Python index its begin/end/strides and five bit masks spell, with
    TensorFlow's errors for a zero stride or arguments of unequal length."""
    from lazytensor.core.runtime import use_runtime

    with use_runtime() as rt:
        got = strided_crops(ltf)
        assert all(isinstance(g, lnp.ndarray) for g in got)
        assert rt.metrics.counters["eager_fallbacks"] == 0
        assert_same(got, strided_crops(tf))
    for bad in (dict(begin=[0], end=[1], strides=[0]), dict(begin=[0, 1], end=[1])):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.strided_slice(lnp.ones((2, 3)), **bad)


@pytest.mark.parametrize("case", sorted(REVERSE_SEQUENCE))
def test_tf_reverse_sequence_records_lazily(case):
    """``tf.reverse_sequence`` (bidirectional RNN code) of a lazy array
    materialized it and returned an eager tensor; now one gather with an
    index built from the lengths (read back, checked as TensorFlow's)."""
    lengths, seq_axis, batch_axis = REVERSE_SEQUENCE[case]
    x = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    lazy_and_eager(lambda a: tf.reverse_sequence(a, lengths, seq_axis, batch_axis), x)


@pytest.mark.parametrize("lengths", [[1, 2, 5], [1, -2, 3], [1, 2], [1.0, 2.0, 3.0]])
def test_tf_reverse_sequence_bad_lengths_as_tensorflow(lengths):
    x = np.zeros((3, 4), np.float32)
    for c in (tf.constant, lnp.asarray):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.reverse_sequence(c(x), lengths, seq_axis=1, batch_axis=0)
