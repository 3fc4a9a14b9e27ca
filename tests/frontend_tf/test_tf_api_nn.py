"""``tf.nn`` on lazy arrays (lazytensor.tf.tf_api.nn) against eager TensorFlow:
each case runs on tf.Tensors and on lazy arrays of the same data, comparing
values, dtype and shape; the lazy result must be a lazy array, recorded
without a fallback. Then a training step through the tape, bad input raising
TensorFlow's error types, and what a lazy graph answers where eager
TensorFlow would raise on a value."""


from __future__ import annotations

import warnings

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, channels_first, dilate_kernel, lnp, tf, tnp


def _ctc(variable, tape_cls, const, labels, **kwargs):
    logits = variable(np.random.default_rng(15).standard_normal((7, 3, 5)).astype(np.float32))
    major = kwargs.pop("time_major", True)
    with tape_cls() as tape:
        x = logits if major else tf.transpose(logits, (1, 0, 2))
        loss = tf.nn.ctc_loss(const(np.array(labels, np.int32)), x,
                              label_length=const(np.array([3, 2, 3], np.int32)),
                              logit_length=const(np.array([7, 5, 4], np.int32)),
                              logits_time_major=major, **kwargs)
        total = tf.reduce_sum(loss)
    return [loss, tape.gradient(total, logits)]


CTC = {  # labels, keyword arguments
    "blank_0": ([[1, 2, 2], [3, 1, 0], [4, 4, 1]], {}),
    "blank_last": ([[1, 2, 2], [3, 1, 0], [4, 4, 1]], {"blank_index": 4}),
    "blank_minus_one": ([[1, 2, 2], [3, 1, 0], [0, 0, 1]], {"blank_index": -1}),
    "batch_major": ([[1, 2, 2], [3, 1, 0], [4, 4, 1]], {"time_major": False}),
}


RNG = np.random.default_rng(7)


def _normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


X = _normal(3, 5)


X4 = X * 4


INT = np.array([[-3, 0, 2], [7, -1, 9]], np.int32)


PROBS = np.exp(X) / np.exp(X).sum(-1, keepdims=True)


LABELS = np.array([0, 4, 2], np.int32)


BITS = (RNG.random((3, 5)) > 0.5).astype(np.float32)


COUNTS = np.array([[0.0, 1.0, 3.5, 2.0, 0.5]] * 3, np.float32)


KINKS = np.array([np.nan, -1.0, 0.0, 3.0, 6.0, 7.5], np.float32)


NAN_TIES = np.array([np.nan, 1, 3, 2, 1, np.nan, 3, 2, 5, 5, 5, 5], np.float32).reshape(
    3, 2, 2, 1)


IMG = _normal(2, 7, 7, 3)


IMG_NCHW = np.ascontiguousarray(IMG.transpose(0, 3, 1, 2))


W2 = _normal(3, 3, 3, 4)


SEQ = _normal(2, 9, 3)


W1 = _normal(3, 3, 2)


VOL = _normal(1, 5, 6, 4, 2)


W3 = _normal(2, 3, 2, 2, 3)


DEPTH = _normal(3, 3, 3, 2)


TABLE = _normal(6, 4)


TABLE3 = _normal(6, 2, 3)


IDS = np.array([[0, 5], [3, 3]], np.int32)


CASES = {
    # activations
    "relu": (lambda t, x: t.nn.relu(x), [X]),
    "relu kinks and nan": (lambda t, x: t.nn.relu(x), [KINKS]),
    "relu6 kinks and nan": (lambda t, x: t.nn.relu6(x), [KINKS]),
    "relu int": (lambda t, x: t.nn.relu(x), [INT]),
    "relu6": (lambda t, x: t.nn.relu6(x), [X4]),
    "crelu": (lambda t, x: t.nn.crelu(x), [X]),
    "crelu axis": (lambda t, x: t.nn.crelu(x, axis=0), [X]),
    "relu6 int": (lambda t, x: t.nn.relu6(x), [INT]),
    "elu": (lambda t, x: t.nn.elu(x), [X]),
    "selu": (lambda t, x: t.nn.selu(x), [X]),
    "gelu": (lambda t, x: t.nn.gelu(x), [X4]),
    "gelu approximate": (lambda t, x: t.nn.gelu(x, approximate=True), [X4]),
    "leaky_relu": (lambda t, x: t.nn.leaky_relu(x), [X]),
    "leaky_relu alpha": (lambda t, x: t.nn.leaky_relu(x, alpha=np.float32(0.05)), [X]),
    "leaky_relu int": (lambda t, x: t.nn.leaky_relu(x), [INT]),
    "silu": (lambda t, x: t.nn.silu(x), [X4]),
    "swish beta": (lambda t, x: t.nn.swish(x, beta=2.0), [X4]),
    "sigmoid": (lambda t, x: t.math.sigmoid(x), [X4]),
    "nn.sigmoid": (lambda t, x: t.nn.sigmoid(x=x), [X4]),
    "softplus": (lambda t, x: t.math.softplus(x), [X4 * 8]),
    "nn.softplus": (lambda t, x: t.nn.softplus(x), [X]),
    "softsign": (lambda t, x: t.nn.softsign(x), [X4]),
    "math.softsign": (lambda t, x: t.math.softsign(x), [X]),
    "log_sigmoid": (lambda t, x: t.math.log_sigmoid(x), [X4 * 8]),
    "softmax": (lambda t, x: t.nn.softmax(x), [X4]),
    "softmax axis": (lambda t, x: t.nn.softmax(x, axis=0), [X4]),
    "math.softmax": (lambda t, x: t.math.softmax(x, -2), [IMG]),
    "log_softmax": (lambda t, x: t.nn.log_softmax(x), [X4]),
    "log_softmax axis": (lambda t, x: t.nn.log_softmax(x, axis=0), [X4]),
    "softmax float16": (lambda t, x: t.nn.softmax(x), [X.astype(np.float16)]),
    "relu float64": (lambda t, x: t.nn.elu(x), [X.astype(np.float64)]),
    # losses
    "softmax ce": (lambda t, z, x: t.nn.softmax_cross_entropy_with_logits(z, x), [PROBS, X4]),
    "softmax ce axis": (lambda t, z, x: t.nn.softmax_cross_entropy_with_logits(
        z, x, axis=0), [PROBS, X4]),
    "softmax ce broadcast": (lambda t, z, x: t.nn.softmax_cross_entropy_with_logits(
        z, x), [PROBS[:1], X4]),
    "sparse ce": (lambda t, z, x: t.nn.sparse_softmax_cross_entropy_with_logits(z, x),
                  [LABELS, X4]),
    "sparse ce int64": (lambda t, z, x: t.nn.sparse_softmax_cross_entropy_with_logits(
        labels=z, logits=x), [LABELS.astype(np.int64), X4]),
    "sigmoid ce": (lambda t, z, x: t.nn.sigmoid_cross_entropy_with_logits(
        labels=z, logits=x), [BITS, X4 * 8]),
    "weighted ce": (lambda t, z, x: t.nn.weighted_cross_entropy_with_logits(z, x, 3.0),
                    [BITS, X4]),
    "weighted ce tensor weight": (lambda t, z, x, q: t.nn.weighted_cross_entropy_with_logits(
        z, x, q), [BITS, X4, np.linspace(0.5, 2, 5, dtype=np.float32)]),
    "l2_loss": (lambda t, x: t.nn.l2_loss(x), [X]),
    "log_poisson_loss": (lambda t, c, x: t.nn.log_poisson_loss(c, x), [COUNTS, X]),
    "log_poisson_loss full": (lambda t, c, x: t.nn.log_poisson_loss(
        c, x, compute_full_loss=True), [COUNTS, X]),
    # normalization, statistics
    "l2_normalize": (lambda t, x: t.nn.l2_normalize(x), [X]),
    "l2_normalize axis": (lambda t, x: t.math.l2_normalize(x, axis=1), [X]),
    "l2_normalize axes": (lambda t, x: t.linalg.l2_normalize(x, axis=[1, 2]), [IMG]),
    "moments": (lambda t, x: t.nn.moments(x, axes=[0]), [X]),
    "moments keepdims": (lambda t, x: t.nn.moments(x, [0, 1, 2], keepdims=True), [IMG]),
    "moments float16": (lambda t, x: t.nn.moments(x, [1]), [X.astype(np.float16)]),
    "weighted_moments": (lambda t, x, w: t.nn.weighted_moments(x, [0], w),
                         [X, np.array([[1.0], [2.0], [0.5]], np.float32)]),
    "weighted_moments keepdims": (lambda t, x, w: t.nn.weighted_moments(
        x, [1, 2], w, keepdims=True), [IMG, np.abs(X[:2, :1, None, None])]),
    "sufficient_statistics": (lambda t, x: t.nn.sufficient_statistics(x, [0])[:3], [X]),
    "sufficient_statistics shift": (lambda t, x, s: t.nn.sufficient_statistics(
        x, [0, 2], shift=s, keepdims=True), [IMG, X[0, 0]]),
    "normalize_moments": (lambda t, c, m, v: t.nn.normalize_moments(c, m, v, None),
                          [np.float32(3.0), X[0], np.abs(X[1]) * 5]),
    "normalize_moments shift": (lambda t, c, m, v, s: t.nn.normalize_moments(c, m, v, s),
                                [np.float32(4.0), X[0], np.abs(X[1]) * 5, X[2]]),
    "batch_normalization": (lambda t, x, m, v, o, s: t.nn.batch_normalization(
        x, m, v, o, s, 1e-3), [IMG, X[0, :3], np.abs(X[1, :3]), X[2, :3], X[0, 2:]]),
    "batch_normalization bare": (lambda t, x, m, v: t.nn.batch_normalization(
        x, m, v, None, None, 0.5), [X, X[0], np.abs(X[1])]),
    "bias_add": (lambda t, x, b: t.nn.bias_add(x, b), [IMG, X[0, :3]]),
    "bias_add NCHW": (lambda t, x, b: t.nn.bias_add(x, b, data_format="NCHW"),
                      [IMG_NCHW, X[0, :3]]),
    "bias_add matrix": (lambda t, x, b: t.nn.bias_add(x, b), [X, X[1]]),
    # convolution
    "conv1d": (lambda t, x, w: t.nn.conv1d(x, w, 1, "SAME"), [SEQ, W1]),
    "conv1d stride valid": (lambda t, x, w: t.nn.conv1d(x, w, 2, "VALID"), [SEQ, W1]),
    "conv1d dilated": (lambda t, x, w: t.nn.conv1d(x, w, 1, "SAME", dilations=2), [SEQ, W1]),
    "conv2d same stride": (lambda t, x, w: t.nn.conv2d(x, w, 2, "SAME"), [IMG, W2]),
    "conv2d valid dilated": (lambda t, x, w: t.nn.conv2d(x, w, 1, "VALID", dilations=[2, 2]),
                             [IMG, W2]),
    "conv2d explicit": (lambda t, x, w: t.nn.conv2d(
        x, w, [1, 2, 1, 1], [[0, 0], [1, 2], [0, 3], [0, 0]]), [IMG, W2]),
    "conv2d strides (2, 1)": (lambda t, x, w: t.nn.conv2d(x, w, (2, 1), "SAME"), [IMG, W2]),
    "conv2d grouped": (lambda t, x, w: t.nn.conv2d(x, w, 1, "SAME"),
                       [_normal(1, 5, 5, 4), _normal(3, 3, 2, 6)]),
    "conv2d batch dims": (lambda t, x, w: t.nn.conv2d(x, w, 1, "SAME"),
                          [IMG.reshape(2, 1, 7, 7, 3), W2]),
    "conv2d NCHW": (lambda t, x, w: t.nn.conv2d(x, w, 1, "SAME", data_format="NCHW"),
                    [IMG_NCHW, W2]),
    "conv3d": (lambda t, x, w: t.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"), [VOL, W3]),
    "convolution": (lambda t, x, w: t.nn.convolution(x, w, padding="SAME"), [IMG, W2]),
    "convolution 1d": (lambda t, x, w: t.nn.convolution(x, w, strides=[2]), [SEQ, W1]),
    "depthwise_conv2d": (lambda t, x, w: t.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"),
                         [IMG, DEPTH]),
    "depthwise_conv2d dilated": (lambda t, x, w: t.nn.depthwise_conv2d(
        x, w, [1, 1, 1, 1], "VALID", dilations=[2, 2]), [IMG, DEPTH]),
    "atrous_conv2d": (lambda t, x, w: t.nn.atrous_conv2d(x, w, 2, "SAME"), [IMG, W2]),
    "separable_conv2d": (lambda t, x, d, w: t.nn.separable_conv2d(
        x, d, w, [1, 1, 1, 1], "SAME"), [IMG, DEPTH, _normal(1, 1, 6, 5)]),
    "conv2d_transpose same": (lambda t, x, w: t.nn.conv2d_transpose(
        x, w, [2, 14, 14, 5], 2, "SAME"), [IMG, _normal(3, 3, 5, 3)]),
    "conv2d_transpose valid": (lambda t, x, w: t.nn.conv2d_transpose(
        x, w, [2, 16, 15, 5], [2, 2], "VALID"), [IMG, _normal(3, 2, 5, 3)]),
    "conv2d_transpose odd": (lambda t, x, w: t.nn.conv2d_transpose(
        x, w, (2, 13, 13, 5), 2, "SAME"), [IMG, _normal(3, 3, 5, 3)]),
    "conv2d_transpose dilated": (lambda t, x, w: t.nn.conv2d_transpose(
        x, w, [2, 11, 11, 5], 1, "VALID", dilations=2), [IMG, _normal(3, 3, 5, 3)]),
    "conv1d_transpose": (lambda t, x, w: t.nn.conv1d_transpose(x, w, [2, 18, 4], 2),
                         [SEQ, _normal(3, 4, 3)]),
    "conv3d_transpose": (lambda t, x, w: t.nn.conv3d_transpose(
        x, w, [1, 5, 12, 8, 3], [1, 2, 2], "SAME"), [VOL, _normal(2, 2, 2, 3, 2)]),
    "conv_transpose": (lambda t, x, w: t.nn.conv_transpose(x, w, [2, 14, 14, 5], 2),
                       [IMG, _normal(3, 3, 5, 3)]),
    # pooling
    "max_pool2d same": (lambda t, x: t.nn.max_pool2d(x, 3, 2, "SAME"), [IMG]),
    "max_pool2d valid": (lambda t, x: t.nn.max_pool2d(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
                         [IMG]),
    "max_pool2d explicit": (lambda t, x: t.nn.max_pool2d(
        x, 2, 1, [[0, 0], [1, 1], [1, 0], [0, 0]]), [IMG]),
    "max_pool2d int": (lambda t, x: t.nn.max_pool2d(x, 2, 1, "SAME"),
                       [(IMG * 10).astype(np.int32)]),
    "max_pool2d NCHW": (lambda t, x: t.nn.max_pool2d(x, 2, 2, "VALID", data_format="NCHW"),
                        [IMG_NCHW]),
    "max_pool_with_argmax": (lambda t, x: t.nn.max_pool_with_argmax(x, 2, 2, "SAME"), [IMG]),
    "max_pool_with_argmax batch": (lambda t, x: t.nn.max_pool_with_argmax(
        x, [1, 3, 2, 1], 2, "VALID", output_dtype=tf.int32, include_batch_in_index=True),
        [IMG]),
    "max_pool_with_argmax nan ties": (lambda t, x: t.nn.max_pool_with_argmax(
        x, 2, 2, "VALID"), [NAN_TIES]),
    "avg_pool2d same": (lambda t, x: t.nn.avg_pool2d(x, 3, 2, "SAME"), [IMG]),
    "avg_pool2d valid": (lambda t, x: t.nn.avg_pool2d(x, (2, 3), (1, 2), "VALID"), [IMG]),
    "max_pool": (lambda t, x: t.nn.max_pool(x, 2, 2, "SAME"), [SEQ]),
    "avg_pool": (lambda t, x: t.nn.avg_pool(x, 3, 2, "SAME"), [IMG]),
    "max_pool1d": (lambda t, x: t.nn.max_pool1d(x, 3, 1, "VALID"), [SEQ]),
    "avg_pool1d": (lambda t, x: t.nn.avg_pool1d(x, 2, 2, "SAME"), [SEQ]),
    "max_pool3d": (lambda t, x: t.nn.max_pool3d(x, 2, 2, "SAME"), [VOL]),
    "avg_pool3d": (lambda t, x: t.nn.avg_pool3d(x, [2, 3, 2], 1, "VALID"), [VOL]),
    "local_response_normalization": (lambda t, x: t.nn.local_response_normalization(
        x, depth_radius=2, bias=0.5, alpha=0.3, beta=0.75), [_normal(2, 3, 3, 9)]),
    "space_to_depth": (lambda t, x: t.nn.space_to_depth(x, 2), [_normal(2, 4, 6, 3)]),
    "depth_to_space": (lambda t, x: t.nn.depth_to_space(x, 2), [_normal(2, 2, 3, 12)]),
    "zero_fraction": (lambda t, x: t.nn.zero_fraction(x), [INT * (INT > 1)]),
    "in_top_k": (lambda t, i, p: t.nn.in_top_k(i, p, 2), [np.array([1, 0, 7, 2], np.int32),
                 np.array([[0.1, 0.5, 0.5, 0.2], [np.nan, 1, 2, 3], [1, 2, 3, 4],
                           [0.3, 0.3, 0.3, 0.9]], np.float32)]),
    "math.in_top_k": (lambda t, i, p: t.math.in_top_k(i, p, 1), [LABELS, X]),
    # embedding
    "embedding_lookup": (lambda t, p, i: t.nn.embedding_lookup(p, i), [TABLE, IDS]),
    "embedding_lookup 3d": (lambda t, p, i: t.nn.embedding_lookup(p, i), [TABLE3, IDS[0]]),
    "embedding_lookup max_norm": (lambda t, p, i: t.nn.embedding_lookup(p, i, max_norm=1.5),
                                  [TABLE, IDS]),
}


# The eager references of cases that eager TensorFlow's CPU kernels compute
# only with oneDNN: channels-first data by transposes, dilated transposed
# convolutions by an explicitly dilated kernel.
REFERENCES = {
    "conv2d NCHW": channels_first(lambda t, x, w: t.nn.conv2d(x, w, 1, "SAME")),
    "max_pool2d NCHW": channels_first(lambda t, x: t.nn.max_pool2d(x, 2, 2, "VALID")),
    "conv2d_transpose dilated": lambda t, x, w: t.nn.conv2d_transpose(
        x, dilate_kernel(w, 2), [2, 11, 11, 5], 1, "VALID"),
}


def _lazy_tensors(out) -> bool:
    if isinstance(out, (list, tuple)):
        return all(_lazy_tensors(o) for o in out)
    return isinstance(out, ltf.Tensor)


def _dense_step(np_, x, labels, w, b):
    logits = tf.nn.bias_add(x @ w, b)
    per = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, tf.nn.relu6(logits * 3.0))
    return np_.sum(per) / 8.0 + 0.01 * tf.nn.l2_loss(w)


def _conv_step(np_, x, labels, w, b):
    h = tf.nn.max_pool2d(tf.nn.gelu(tf.nn.conv2d(x, w, 1, "SAME")), 2, 2, "VALID")
    logits = np_.reshape(h, (h.shape[0], -1))[:, :3] + b
    return np_.sum(tf.nn.softmax_cross_entropy_with_logits(labels, logits))


def _decoder_step(np_, x, target, w, b):
    y = tf.nn.bias_add(tf.nn.conv2d_transpose(x, w, [2, 14, 14, 2], 2, "SAME"), b)
    per = tf.nn.sigmoid_cross_entropy_with_logits(target, tf.nn.elu(y))
    return np_.sum(per) / 100.0


BAD = {
    "softmax int": lambda t, a: t.nn.softmax(a(INT)),
    "softmax axis": lambda t, a: t.nn.softmax(a(X), axis=2),
    "elu int": lambda t, a: t.nn.elu(a(INT)),
    "sigmoid int": lambda t, a: t.math.sigmoid(a(INT)),
    "gelu int": lambda t, a: t.nn.gelu(a(INT)),
    "l2_loss int": lambda t, a: t.nn.l2_loss(a(INT)),
    "l2_normalize int": lambda t, a: t.nn.l2_normalize(a(INT)),
    "softmax ce shapes": lambda t, a: t.nn.softmax_cross_entropy_with_logits(
        a(X[:, :4]), a(X)),
    "softmax ce axis": lambda t, a: t.nn.softmax_cross_entropy_with_logits(
        a(PROBS), a(X), axis=2),
    "sparse ce shapes": lambda t, a: t.nn.sparse_softmax_cross_entropy_with_logits(
        a(LABELS[:2]), a(X)),
    "sparse ce float labels": lambda t, a: t.nn.sparse_softmax_cross_entropy_with_logits(
        a(X[:, 0]), a(X)),
    "sigmoid ce shapes": lambda t, a: t.nn.sigmoid_cross_entropy_with_logits(
        a(X[:, :4]), a(X)),
    "sigmoid ce dtypes": lambda t, a: t.nn.sigmoid_cross_entropy_with_logits(
        a(X.astype(np.float64)), a(X)),
    "bias_add size": lambda t, a: t.nn.bias_add(a(X), a(X[0, :4])),
    "bias_add 2d bias": lambda t, a: t.nn.bias_add(a(X), a(X[:1])),
    "bias_add dtypes": lambda t, a: t.nn.bias_add(a(X), a(X[0].astype(np.float64))),
    "conv2d depth": lambda t, a: t.nn.conv2d(a(IMG), a(_normal(3, 3, 2, 4)), 1, "SAME"),
    "conv2d padding": lambda t, a: t.nn.conv2d(a(IMG), a(W2), 1, "FULL"),
    "conv2d dtypes": lambda t, a: t.nn.conv2d(a(IMG), a(W2.astype(np.float64)), 1, "SAME"),
    "local_response_normalization rank": lambda t, a: t.nn.local_response_normalization(
        a(X)),
    "space_to_depth size": lambda t, a: t.nn.space_to_depth(a(_normal(1, 3, 4, 2)), 2),
    "max_pool2d rank": lambda t, a: t.nn.max_pool2d(a(IMG[0]), 2, 1, "VALID"),
    "avg_pool2d int": lambda t, a: t.nn.avg_pool2d(a(INT.reshape(1, 2, 3, 1)), 1, 1, "VALID"),
    "in_top_k rows": lambda t, a: t.nn.in_top_k(a(LABELS[:2]), a(X), 2),
    "embedding float ids": lambda t, a: t.nn.embedding_lookup(a(TABLE), a(X[0, :2])),
}


@pytest.mark.parametrize("case", sorted(CTC))
def test_ctc_loss_records_lazily_as_tf(case):
    """tf.nn.ctc_loss of lazy logits ran eagerly in TensorFlow (counted), so
    its gradient under lazytensor's tape was None; dense labels now use the
    core's CTC recursion with TensorFlow's blank_index rotation."""
    labels, kwargs = CTC[case]
    want = _ctc(tf.Variable, tf.GradientTape, tf.constant, labels, **dict(kwargs))
    metrics.reset()
    got = _ctc(ltf.Variable, ltf.GradientTape, lnp.asarray, labels, **dict(kwargs))
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert isinstance(got[0], ltf.Tensor)
    assert_same(got, want, case, precision="float32")


def test_ctc_loss_of_an_impossible_alignment_is_tensorflows():
    """Labels that need more frames than given: TensorFlow's loss is a large
    finite number, the core's inf; such calls run in TensorFlow (counted)."""
    labels = [[1, 2, 2], [3, 1, 0], [4, 4, 4]]
    want = _ctc(tf.Variable, tf.GradientTape, tf.constant, labels)
    got = _ctc(ltf.Variable, ltf.GradientTape, lnp.asarray, labels)
    assert_same(got, want, precision="float32")


@pytest.mark.parametrize("case", list(CASES))
def test_tf_nn_matches_eager_tensorflow(case):
    fn, data = CASES[case]
    want = REFERENCES.get(case, fn)(tf, *[tf.constant(d) for d in data])
    metrics.reset()
    got = fn(tf, *[lnp.asarray(d) for d in data])
    assert _lazy_tensors(got), f"{case}: {type(got)}"
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    precision = "float16" if "float16" in case else "float32"
    assert_same(got, want, case, precision=precision if "float" in case else None)


def test_lazy_arrays_mix_with_tf_tensors():
    """Only one argument need be lazy: a tf.Tensor joins the lazy graph."""
    got = tf.nn.conv2d(lnp.asarray(IMG), tf.constant(W2), 1, "SAME")
    assert isinstance(got, ltf.Tensor)
    assert_same(got, tf.nn.conv2d(IMG, W2, 1, "SAME"))
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(LABELS, lnp.asarray(X))
    assert_same(got, tf.nn.sparse_softmax_cross_entropy_with_logits(LABELS, X))


@pytest.mark.parametrize("step", [_dense_step, _conv_step, _decoder_step],
                         ids=["dense", "conv", "decoder"])
def test_training_step_gradients_match_tf_gradient_tape(step):
    """A step through lazytensor.tf.GradientTape/Variable with tf.nn ops
    gives tf.GradientTape's loss and gradients on the same data."""
    if step is _dense_step:
        data = (_normal(8, 4), RNG.integers(0, 3, 8).astype(np.int32))
        params = (_normal(4, 3), _normal(3))
    elif step is _conv_step:
        data = (IMG, PROBS[:2, :3] / PROBS[:2, :3].sum(-1, keepdims=True))
        params = (W2, _normal(3))
    else:
        data = (IMG, (RNG.random((2, 14, 14, 2)) > 0.5).astype(np.float32))
        params = (_normal(3, 3, 2, 3), _normal(2))

    def run(t, np_):
        w, b = (t.Variable(p) for p in params)
        x, labels = (np_.asarray(d) for d in data)
        with t.GradientTape() as tape:
            loss = step(np_, x, labels, w, b)
        return [loss, *tape.gradient(loss, [w, b])]

    want = run(tf, tnp)
    got = run(ltf, lnp)
    for g, w in zip(got, want, strict=True):
        assert isinstance(g, ltf.Tensor)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("api", ["relu", "relu6", "elu", "selu", "leaky_relu", "gelu",
                                 "silu", "softsign"])
def test_activation_gradients_at_the_kinks_match_tf(api):
    """Derivatives at x == 0 (and relu6's cap) are TensorFlow's: 0 for
    relu/relu6, the linear branch's for elu/selu (not a tie split in halves)."""
    values = np.array([-2.0, -0.0, 0.0, 1.0, 6.0, 8.0], np.float32)
    fn = getattr(tf.nn, api)

    def run(t, np_):
        w = t.Variable(values)
        with t.GradientTape() as tape:
            loss = np_.sum(fn(w * 1.0) * np_.asarray(np.arange(1, 7, dtype=np.float32)))
        return tape.gradient(loss, w)

    np.testing.assert_allclose(run(ltf, lnp).numpy(), run(tf, tnp).numpy(), rtol=1e-6)


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_raises_tensorflow_error_types(case):
    fn = BAD[case]
    with pytest.raises(Exception) as eager:
        fn(tf, tf.constant)
    with pytest.raises(type(eager.value)):
        fn(tf, lnp.asarray)


def test_impossible_transpose_shape_is_invalid_argument():
    """Eager TensorFlow's oneDNN kernel answers AbortedError here (its stock
    kernel InvalidArgumentError); both are OpErrors."""
    with pytest.raises(tf.errors.OpError):
        tf.nn.conv2d_transpose(IMG, _normal(3, 3, 5, 3), [2, 20, 20, 5], 2, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot give size 20"):
        tf.nn.conv2d_transpose(lnp.asarray(IMG), _normal(3, 3, 5, 3), [2, 20, 20, 5], 2,
                               "SAME")


def test_values_eager_tensorflow_would_reject_give_nan():
    """A lazy graph cannot raise on a value: an out-of-range class label
    gives a NaN loss (TensorFlow's answer on GPU), an out-of-range id a NaN
    row; never a plausible number."""
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(
        lnp.asarray(np.array([0, 5, -1], np.int32)), lnp.asarray(X))
    host = loss.numpy()
    assert np.isfinite(host[0]) and np.isnan(host[1:]).all()
    rows = tf.nn.embedding_lookup(lnp.asarray(TABLE), lnp.asarray(np.array([1, 6, -2], np.int32)))
    assert np.isnan(rows.numpy()[1:]).all()
    np.testing.assert_array_equal(rows.numpy()[0], TABLE[1])


def test_what_the_table_leaves_to_tensorflow_runs_eagerly_and_is_counted():
    """Integer moments (TensorFlow's truncating means) and sharded
    embedding tables run in TensorFlow: same values, lazy results, each
    counted as a fallback."""
    from lazytensor.core import metrics

    metrics.reset()
    ints = np.array([[1, 2, 6], [3, 5, 8]], np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = tf.nn.moments(lnp.asarray(ints), [0]), tf.nn.moments(ints, [0])
        for g, w in zip(got, want, strict=True):
            assert isinstance(g, lnp.ndarray)
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        shards = [lnp.asarray(TABLE[:3]), lnp.asarray(TABLE[3:])]
        got = tf.nn.embedding_lookup(shards, IDS)
    want = tf.nn.embedding_lookup([tf.constant(TABLE[:3]), tf.constant(TABLE[3:])], IDS)
    np.testing.assert_array_equal(np.asarray(got), want.numpy())
    assert metrics.as_dict()["fallbacks"] == {"tf.nn.moments": 1, "tf.nn.embedding_lookup": 1}
