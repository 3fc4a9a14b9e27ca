"""More of TensorFlow's own ops on lazy arrays (tf_api.nn_extra, image,
counting, and math/linalg entries) against eager TensorFlow: values,
dtype and shape, a lazy result and no fallback; bad arguments raise
TensorFlow's error types. Dropout's mask cannot be TensorFlow's (its
stream is not reproducible lazily): its tests check the kept fraction,
the 1 / (1 - rate) scaling, zeros elsewhere, noise_shape broadcasting,
rate 0, seeding and that fresh masks never recompile."""

from __future__ import annotations

import warnings

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, channels_first, lnp, tf

RNG = np.random.default_rng(11)
IMG = RNG.standard_normal((2, 4, 5, 3)).astype(np.float32)
IMG8 = RNG.integers(0, 255, (4, 6, 2)).astype(np.uint8)
LENGTHS = np.array([[1, 3], [0, 2]], np.int32)
VALUES = np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 3.0, 4.99, 7.0], np.float32)
ARR = np.array([1, 3, 3, 0, 5], np.int32)
LABELS = np.array([0, 1, 2, 1, 3], np.int64)
PREDS = np.array([0, 2, 2, 1, 3], np.int64)
W = np.array([1.0, 2.0, 3.0, 4.0, 0.5], np.float32)
F = RNG.standard_normal((3, 4)).astype(np.float32)

CASES = {
    # tf.image
    "flip_left_right": (lambda t, x: t.image.flip_left_right(x), [IMG]),
    "flip_left_right 3d": (lambda t, x: t.image.flip_left_right(x), [IMG8]),
    "flip_up_down": (lambda t, x: t.image.flip_up_down(x), [IMG]),
    "flip_up_down 3d": (lambda t, x: t.image.flip_up_down(x), [IMG8]),
    "resize bilinear down": (lambda t, x: t.image.resize(x, [3, 2]), [IMG]),
    "resize bilinear up": (lambda t, x: t.image.resize(x, [9, 11]), [IMG]),
    "resize bilinear uint8": (lambda t, x: t.image.resize(x, (7, 4)), [IMG8]),
    "resize bilinear float64": (lambda t, x: t.image.resize(x, [5, 5]),
                                [IMG.astype(np.float64)]),
    "resize bilinear same size": (lambda t, x: t.image.resize(x, [4, 5]), [IMG]),
    "resize nearest": (lambda t, x: t.image.resize(x, [7, 3], method="nearest"), [IMG]),
    "resize nearest uint8 up": (lambda t, x: t.image.resize(
        x, [9, 13], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR), [IMG8]),
    "resize size tensor": (lambda t, x, s: t.image.resize(x, s), [IMG, np.array([6, 2],
                                                                              np.int32)]),
    # counting
    "sequence_mask": (lambda t, n: t.sequence_mask(n, 4), [LENGTHS[0]]),
    "sequence_mask no maxlen": (lambda t, n: t.sequence_mask(n), [LENGTHS]),
    "sequence_mask dtype": (lambda t, n: t.sequence_mask(n, 3, dtype=tf.float32),
                            [LENGTHS.astype(np.int64)]),
    "sequence_mask maxlen tensor": (lambda t, n, m: t.sequence_mask(n, m),
                                    [LENGTHS, np.int64(5)]),
    "histogram_fixed_width": (lambda t, v: t.histogram_fixed_width(v, [0.0, 5.0], nbins=5),
                              [VALUES]),
    "histogram_fixed_width int": (lambda t, v: t.histogram_fixed_width(
        v, [0, 5], nbins=3, dtype=tf.int64), [np.array([[-1, 0, 1], [2, 5, 3]], np.int32)]),
    "histogram_fixed_width range tensor": (lambda t, v, r: t.histogram_fixed_width(
        v, r, nbins=4), [VALUES, np.array([1.0, 4.0], np.float32)]),
    "confusion_matrix": (lambda t, a, b: t.math.confusion_matrix(a, b, num_classes=5),
                         [LABELS, PREDS]),
    "confusion_matrix no num_classes": (lambda t, a, b: t.math.confusion_matrix(a, b),
                                        [LABELS, PREDS]),
    "confusion_matrix weights": (lambda t, a, b, w: t.math.confusion_matrix(
        a, b, 4, weights=w, dtype=tf.float32), [LABELS, PREDS, W]),
    "confusion_matrix squeeze": (lambda t, a, b: t.math.confusion_matrix(a, b, 4),
                                 [LABELS[:, None].astype(np.int32), PREDS.astype(np.int32)]),
    "bincount": (lambda t, x: t.math.bincount(x), [ARR]),
    "bincount minlength": (lambda t, x: t.math.bincount(x, minlength=8), [ARR]),
    "bincount maxlength": (lambda t, x: t.math.bincount(x, maxlength=3), [ARR]),
    "bincount fixed size": (lambda t, x: t.math.bincount(x, minlength=4, maxlength=4), [ARR]),
    "bincount weights": (lambda t, x, w: t.math.bincount(x, weights=w), [ARR, W]),
    "bincount dtype": (lambda t, x: t.math.bincount(x, dtype=tf.float32), [ARR]),
    "bincount 2d": (lambda t, x: t.math.bincount(x), [ARR[:4].reshape(2, 2)]),
    "bincount axis -1": (lambda t, x: t.math.bincount(x, axis=-1, minlength=5),
                         [ARR[:4].reshape(2, 2)]),
    "bincount axis -1 weights": (lambda t, x, w: t.math.bincount(x, w, axis=-1),
                                 [ARR[:4].reshape(2, 2), W[:4].reshape(2, 2)]),
    "bincount binary": (lambda t, x: t.math.bincount(x, binary_output=True), [ARR]),
    "bincount float arr": (lambda t, x: t.math.bincount(x), [ARR.astype(np.float32) + 0.7]),
    "bincount int64": (lambda t, x: t.math.bincount(x, maxlength=4), [ARR.astype(np.int64)]),
    # math, linalg
    "complex": (lambda t, a, b: t.complex(a, b), [F, F[::-1]]),
    "complex broadcast": (lambda t, a, b: t.complex(a, b), [F, F[0]]),
    "complex float64": (lambda t, a, b: t.complex(a, b), [F.astype(np.float64),
                                                         F.astype(np.float64)]),
    "polyval": (lambda t, c0, x: t.math.polyval([c0, 2.0, -1.0], x), [F[0], F]),
    "polyval int": (lambda t, x: t.math.polyval([1, 2, 3], x), [ARR]),
    "polyval one": (lambda t, c0, x: t.math.polyval([c0], x), [F[0], F]),
    "polyval empty": (lambda t, x: t.math.polyval([], x), [F]),
    "normalize": (lambda t, x: t.linalg.normalize(x), [F]),
    "normalize axis ord": (lambda t, x: t.linalg.normalize(x, ord=1, axis=1), [F]),
    "normalize matrix": (lambda t, x: t.linalg.normalize(x, ord="fro", axis=[-2, -1]),
                         [IMG]),
    # tf.nn.pool
    "pool max same": (lambda t, x: t.nn.pool(x, [2, 2], "MAX", strides=[2, 2],
                                             padding="SAME"), [IMG]),
    "pool avg valid": (lambda t, x: t.nn.pool(x, [2, 3], "AVG"), [IMG]),
    "pool avg dilated": (lambda t, x: t.nn.pool(x, [2, 2], "AVG", dilations=[2, 1]), [IMG]),
    "pool max dilated": (lambda t, x: t.nn.pool(x, [2, 2], "MAX", dilations=[1, 2]), [IMG]),
    "pool 1d": (lambda t, x: t.nn.pool(x, [2], "AVG", strides=[1], padding="SAME"), [IMG[0]]),
    "pool 1d NCW": (lambda t, x: t.nn.pool(x, [2], "MAX", padding="SAME",
                                           data_format="NCW"), [IMG[0]]),
    "pool NCHW": (lambda t, x: t.nn.pool(x, [2, 2], "AVG", strides=[1, 2], padding="SAME",
                                         data_format="NCHW"), [IMG]),
    "pool 3d": (lambda t, x: t.nn.pool(x, [2, 2, 1], "MAX", strides=[2, 1, 1]), [IMG[None]]),
}


# Channels-first pools are computed channels-last by transposes for the
# eager reference: TensorFlow's CPU kernels without oneDNN refuse them.
REFERENCES = {
    "pool 1d NCW": channels_first(lambda t, x: t.nn.pool(x, [2], "MAX", padding="SAME")),
    "pool NCHW": channels_first(lambda t, x: t.nn.pool(x, [2, 2], "AVG", strides=[1, 2],
                                                       padding="SAME")),
}


def _lazy(out) -> bool:
    if isinstance(out, (list, tuple)):
        return all(_lazy(o) for o in out)
    return isinstance(out, ltf.Tensor)


@pytest.mark.parametrize("case", list(CASES))
def test_matches_eager_tensorflow(case):
    fn, data = CASES[case]
    want = REFERENCES.get(case, fn)(tf, *[tf.constant(d) for d in data])
    metrics.reset()
    got = fn(tf, *[lnp.asarray(d) for d in data])
    assert _lazy(got), f"{case}: {type(got)}"
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert_same(got, want, case, precision="float32" if "float64" in case else None)


def test_data_dependent_sizes_read_back_once():
    """A bincount without a bounding size reads its range back (one barrier,
    which also checks for negative values, as TensorFlow does)."""
    x = lnp.asarray(ARR) * 1
    metrics.reset()
    tf.math.bincount(x)
    assert metrics.as_dict()["counters"].get("graphs_executed", 0) == 1
    metrics.reset()
    out = tf.math.bincount(x, minlength=6, maxlength=6)
    assert metrics.as_dict()["counters"].get("graphs_executed", 0) == 0
    np.testing.assert_array_equal(out.numpy(), np.bincount(ARR, minlength=6))


def test_out_of_range_labels_are_dropped_not_miscounted():
    """Eager TensorFlow raises on labels outside num_classes; a lazy graph
    cannot, so such pairs are dropped (TensorFlow's GPU scatter)."""
    got = tf.math.confusion_matrix(lnp.asarray(np.array([0, 5, -1, 1])),
                                   lnp.asarray(np.array([0, 1, 1, 1])), num_classes=2)
    np.testing.assert_array_equal(got.numpy(), [[1, 0], [0, 1]])


BAD = {
    "flip rank 2": lambda t, a: t.image.flip_left_right(a(F)),
    "flip rank 5": lambda t, a: t.image.flip_up_down(a(IMG[None])),
    "resize rank 2": lambda t, a: t.image.resize(a(F), [2, 2]),
    "resize size 3": lambda t, a: t.image.resize(a(IMG), [2, 2, 1]),
    "resize method": lambda t, a: t.image.resize(a(IMG), [2, 2], method="foo"),
    "resize zero": lambda t, a: t.image.resize(a(IMG), [0, 2]),
    "sequence_mask maxlen vector": lambda t, a: t.sequence_mask(a(LENGTHS), [4]),
    "sequence_mask negative": lambda t, a: t.sequence_mask(a(LENGTHS), -1),
    "histogram nbins": lambda t, a: t.histogram_fixed_width(a(VALUES), [0.0, 5.0], nbins=0),
    "histogram range": lambda t, a: t.histogram_fixed_width(a(VALUES), [5.0, 0.0]),
    "histogram float16": lambda t, a: t.histogram_fixed_width(
        a(VALUES.astype(np.float16)), a(np.array([0, 5], np.float16))),
    "confusion lengths": lambda t, a: t.math.confusion_matrix(a(LABELS), a(PREDS[:3]), 4),
    "bincount axis": lambda t, a: t.math.bincount(a(ARR), axis=1),
    "bincount rank 3": lambda t, a: t.math.bincount(a(ARR[:4].reshape(1, 2, 2)), axis=-1),
    "bincount negative": lambda t, a: t.math.bincount(a(ARR - 2)),
    "bincount weights shape": lambda t, a: t.math.bincount(a(ARR), weights=a(W[:2])),
    "bincount binary weights": lambda t, a: t.math.bincount(a(ARR), a(W), binary_output=True),
    "bincount float16 weights": lambda t, a: t.math.bincount(a(ARR), a(W.astype(np.float16))),
    "complex dtypes": lambda t, a: t.complex(a(F.astype(np.float64)), a(F)),
    "complex int": lambda t, a: t.complex(a(ARR), a(ARR)),
    "polyval tensor coeffs": lambda t, a: t.math.polyval(a(F[0]), a(F)),
    "normalize int": lambda t, a: t.linalg.normalize(a(ARR)),
    "pool type": lambda t, a: t.nn.pool(a(IMG), [2, 2], "SUM"),
    "pool rank": lambda t, a: t.nn.pool(a(IMG[0]), [2, 2], "AVG"),
    "pool window rank": lambda t, a: t.nn.pool(a(IMG[None, None]), [1, 1, 1, 1], "AVG"),
    "pool same dilated": lambda t, a: t.nn.pool(a(IMG), [2, 2], "AVG", padding="SAME",
                                                dilations=[2, 1]),
    "pool strides over window": lambda t, a: t.nn.pool(a(IMG), [2, 2], "MAX", strides=[3, 3]),
    "pool strides and dilations": lambda t, a: t.nn.pool(a(IMG), [2, 2], "MAX",
                                                         strides=[2, 2], dilations=[2, 2]),
    "pool int strides": lambda t, a: t.nn.pool(a(IMG), [2, 2], "MAX", strides=2),
    "pool strides length": lambda t, a: t.nn.pool(a(IMG), [2, 2], "MAX", strides=[2]),
    "pool avg int": lambda t, a: t.nn.pool(a(ARR[:4].reshape(1, 2, 2, 1)), [1, 1], "AVG"),
    "dropout int": lambda t, a: t.nn.dropout(a(ARR), 0.5),
    "dropout rate 1": lambda t, a: t.nn.dropout(a(F), 1.0),
    "dropout rate negative": lambda t, a: t.nn.dropout(a(F), -0.1),
    "dropout rate string": lambda t, a: t.nn.dropout(a(F), "a"),
    "dropout rate vector": lambda t, a: t.nn.dropout(a(F), a(W[:2])),
    "dropout rate dtype": lambda t, a: t.nn.dropout(a(F), a(np.float64(0.5))),
    "dropout noise shape": lambda t, a: t.nn.dropout(a(F), 0.5, noise_shape=[2, 1]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_raises_tensorflow_error_types(case):
    fn = BAD[case]
    with pytest.raises(Exception) as eager:
        fn(tf, tf.constant)
    metrics.reset()
    with pytest.raises(type(eager.value)), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(tf, lnp.asarray)


# ----------------------------------------------------------------- dropout

def _ones(*shape, dtype=np.float32):
    return lnp.asarray(np.ones(shape, dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("rate", [0.2, 0.5, 0.9])
def test_dropout_keeps_a_fraction_scaled_by_one_over_keep(rate, dtype):
    metrics.reset()
    out = tf.nn.dropout(_ones(300, 200, dtype=dtype), rate)
    assert isinstance(out, ltf.Tensor) and out.dtype == tf.as_dtype(dtype)
    assert not metrics.as_dict()["fallbacks"]
    host = out.numpy()
    assert host.shape == (300, 200)
    kept = host != 0
    assert abs(kept.mean() - (1 - rate)) < 0.02
    want = np.asarray(1 / (1 - rate), dtype)  # TensorFlow's scale, converted to x's dtype
    np.testing.assert_array_equal(np.unique(host[kept]), [want])


def test_dropout_scales_values_and_zeroes_the_rest():
    x = RNG.standard_normal((100, 50)).astype(np.float32)
    host = tf.nn.dropout(lnp.asarray(x), 0.25).numpy()
    kept = host != 0
    np.testing.assert_allclose(host[kept], x[kept] * np.float32(1 / 0.75), rtol=1e-6)
    eager = tf.nn.dropout(x, 0.25).numpy()  # the same rule in TensorFlow
    np.testing.assert_allclose(eager[eager != 0], x[eager != 0] * np.float32(1 / 0.75),
                               rtol=1e-6)


def test_dropout_tensor_rate_divides_by_one_minus_rate():
    rate = lnp.asarray(np.float32(0.6))
    host = tf.nn.dropout(_ones(200, 100), rate).numpy()
    assert abs((host != 0).mean() - 0.4) < 0.03
    np.testing.assert_allclose(np.unique(host[host != 0]), [np.float32(1) / np.float32(0.4)])


def test_dropout_rate_zero_is_the_identity():
    x = lnp.asarray(F)
    out = tf.nn.dropout(x, 0.0)
    assert isinstance(out, ltf.Tensor)
    np.testing.assert_array_equal(out.numpy(), F)


@pytest.mark.parametrize("noise_shape, shared", [([1, 100], 0), ([200, 1], 1),
                                                  ([None, 1], 1)])
def test_dropout_noise_shape_shares_the_mask(noise_shape, shared):
    host = tf.nn.dropout(_ones(200, 100), 0.5, noise_shape=noise_shape).numpy()
    assert (host.std(axis=shared) == 0).all()  # constant along the shared dim
    assert 0.35 < (host != 0).mean() < 0.65


def test_dropout_larger_noise_shape_broadcasts_the_result():
    out = tf.nn.dropout(_ones(20, 10), 0.5, noise_shape=[3, 20, 10])
    want = tf.nn.dropout(tf.ones((20, 10)), 0.5, noise_shape=[3, 20, 10])
    assert out.shape == want.shape and out.dtype == want.dtype


def test_seeded_dropout_is_fresh_every_step_reproducible_and_compiles_once():
    """The key folds one draw from TensorFlow's generator (op and global
    seed) into the runtime key as a parameter: fresh masks each step, the
    same sequence after re-seeding, one compiled executable."""
    x = _ones(64, 32)

    def run():
        tf.random.set_seed(1234)
        return [tf.nn.dropout(x * 2.0, 0.5, seed=7).numpy() for _ in range(4)]

    metrics.reset()
    first = run()
    assert metrics.as_dict()["counters"].get("cache_misses", 0) <= 1
    assert not any(np.array_equal(first[0], m) for m in first[1:])
    metrics.reset()
    again = run()
    assert metrics.as_dict()["counters"].get("cache_misses", 0) == 0
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)


def test_dropout_in_a_training_step_gets_gradients_through_the_mask():
    """d(sum(dropout(w)))/dw is the mask times 1 / (1 - rate)."""
    w = ltf.Variable(np.ones((50, 20), np.float32))
    with ltf.GradientTape() as tape:
        y = tf.nn.dropout(w * 1.0, 0.5)
        loss = lnp.sum(y)
    grad = tape.gradient(loss, w).numpy()
    np.testing.assert_array_equal(grad, (y.numpy() != 0) * np.float32(2.0))


def test_resize_methods_the_table_leaves_to_tensorflow_run_eagerly_and_are_counted():
    metrics.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = tf.image.resize(lnp.asarray(IMG), [6, 7], method="bicubic")
        anti = tf.image.resize(lnp.asarray(IMG), [2, 3], antialias=True)
    assert isinstance(got, ltf.Tensor)
    assert_same(got, tf.image.resize(IMG, [6, 7], method="bicubic"))
    assert_same(anti, tf.image.resize(IMG, [2, 3], antialias=True))
    assert metrics.as_dict()["fallbacks"] == {"tf.image.resize": 2}


def test_meshgrid_without_dispatch_hook_records_lazily():
    """tf.meshgrid offers no type-based dispatch (as tf.einsum): its public
    name is wrapped, so lazy arguments give lazy grids."""
    got = tf.meshgrid(lnp.asarray(F[0]), lnp.asarray(F[1, :3]))
    want = tf.meshgrid(F[0], F[1, :3])
    assert all(isinstance(g, lnp.ndarray) for g in got)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), w.numpy())
