"""Loops over data of one shape compile once: tf.function steps, Keras losses,
segment ops, tf.data pipelines, Keras momentum, Viterbi batches, embedding
bags. Each check runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy,
lazytensor.tf) and compares values, dtypes and shapes, or the exception
type."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, tf, tnp


def _rng(seed: int):
    return np.random.default_rng(seed)


def _f32(rng, *shape, scale: float = 1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _misses() -> int:
    return metrics.as_dict()["counters"].get("cache_misses", 0)


def _function_step_loop(rng):
    w1 = ltf.Variable(_f32(rng, 4, 8, scale=0.3))
    w2 = ltf.Variable(_f32(rng, 8, 1, scale=0.3))

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as t:
            h = tf.nn.relu(lnp.matmul(xb, w1))
            loss = lnp.mean(lnp.square(lnp.matmul(h, w2) - yb))
        g1, g2 = t.gradient(loss, [w1, w2])
        w1.assign_sub(0.1 * g1)
        w2.assign_sub(0.1 * g2)
        return loss

    x = _f32(rng, 64, 4)
    ds = tf.data.Dataset.from_tensor_slices((x, np.tanh(x[:, :1]))).batch(16, drop_remainder=True)
    for xb, yb in ds.repeat(2):
        float(step(lnp.asarray(xb), lnp.asarray(yb)))
        yield _misses()


def _keras_loss_loop(rng):
    w, b = ltf.Variable(np.zeros((4, 3), np.float32)), ltf.Variable(np.zeros((3,), np.float32))
    lossf = tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)
    ds = tf.data.Dataset.from_tensor_slices((_f32(rng, 60, 4), rng.integers(0, 3, 60))).batch(12)
    for xb, yb in ds:
        with tf.GradientTape() as t:
            loss = lossf(tf.one_hot(yb, 3), lnp.matmul(lnp.asarray(xb), w) + b)
        gw, gb = t.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        ltf.sync()
        yield _misses()


def _segment_loop(rng):
    table = ltf.Variable(_f32(rng, 10, 4))
    for _ in range(5):
        nodes = lnp.asarray(rng.integers(0, 10, 8).astype(np.int32))
        seg = lnp.asarray(np.sort(rng.integers(0, 3, 8)).astype(np.int32))
        with tf.GradientTape() as t:
            pooled = tf.math.unsorted_segment_sum(tf.gather(table, nodes), seg, num_segments=3)
            loss = lnp.sum(lnp.square(pooled))
        table.assign_sub(0.01 * tf.convert_to_tensor(t.gradient(loss, table)))
        float(loss)
        yield _misses()


def _batch_norm_loop(rng):
    gamma, beta = ltf.Variable(np.ones((4,), np.float32)), ltf.Variable(np.zeros((4,), np.float32))
    running = ltf.Variable(np.zeros((4,), np.float32))
    for _ in range(5):
        xb = lnp.asarray(_f32(rng, 8, 4))
        with tf.GradientTape() as t:
            mean, var = tf.nn.moments(xb, axes=[0])
            y = tf.nn.batch_normalization(xb, mean, var, beta, gamma, 1e-3)
            loss = lnp.mean(lnp.square(y - 0.5))
        gg, gb = t.gradient(loss, [gamma, beta])
        gamma.assign_sub(0.1 * gg)
        beta.assign_sub(0.1 * gb)
        running.assign(0.9 * running + 0.1 * mean)
        ltf.sync()
        yield _misses()


def _cnn_function_step(np_, V, T, seed=1201, steps=4):
    """A tf.function-decorated conv2d/max_pool2d step over tf.data batches."""
    rng = _rng(seed)
    x = _f32(rng, 16, 6, 6, 1)
    y = rng.integers(0, 2, 16).astype(np.int32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4, drop_remainder=True)
    k = V(_f32(rng, 3, 3, 1, 2, scale=0.3))
    w = V(_f32(rng, 3 * 3 * 2, 2, scale=0.2))

    @tf.function
    def step(xb, yb):
        with T() as t:
            h = tf.nn.relu(tf.nn.conv2d(xb, k, strides=1, padding="SAME"))
            p = tf.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
            logits = np_.reshape(p, (-1, 18)) @ w
            loss = np_.mean(tf.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
        gk, gw = t.gradient(loss, [k, w])
        k.assign_sub(0.2 * gk)
        w.assign_sub(0.2 * gw)
        return loss

    for (xb, yb), _ in zip(ds.repeat(), range(steps), strict=False):
        yield step(np_.asarray(xb), np_.asarray(yb)), [k, w]


def _mapped_pipeline(np_, V, T, seed=1202, steps=4):
    """tf.data .map() standardises each example; tnp code fits a linear
    model on the batches with a hand-written gradient."""
    rng = _rng(seed)
    x = _f32(rng, 40, 3, scale=3.0) + 2.0
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    mean, std = x.mean(0), x.std(0)
    ds = (tf.data.Dataset.from_tensor_slices((x, y))
          .map(lambda a, b: ((a - mean) / std, b)).batch(8, drop_remainder=True))
    w = V(np.zeros((3, 1), np.float32))
    for (xb, yb), _ in zip(ds.repeat(), range(steps), strict=False):
        xb, yb = np_.asarray(xb), np_.asarray(yb)
        err = xb @ w - yb
        w.assign_sub(0.1 * np_.transpose(xb) @ err / 8.0)
        yield np_.mean(np_.square(err)), [w]


def _keras_momentum(np_, V, T, seed=1203, steps=4):
    """tf.keras.optimizers.SGD(momentum=0.9) on Variables of a tnp model."""
    rng = _rng(seed)
    w = V(_f32(rng, 3, 2, scale=0.1))
    opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    for _ in range(steps):
        xb, yb = np_.asarray(_f32(rng, 8, 3)), np_.asarray(_f32(rng, 8, 2))
        with T() as t:
            loss = np_.mean(np_.square(xb @ w - yb))
        opt.apply_gradients([(t.gradient(loss, w), w)])
        yield loss, [w]


def _viterbi_batches(np_, V, T, seed=1204, steps=4):
    """Viterbi scores of one length-5 sequence per step (tnp max/argmax in a
    Python loop over time), the best final state read as an int."""
    rng = _rng(seed)
    log_trans = np_.asarray(np.log(rng.dirichlet(np.ones(3), 3)).astype(np.float32))
    for _ in range(steps):
        emit = np_.asarray(_f32(rng, 5, 3))
        score = emit[0]
        for t in range(1, 5):
            score = np_.max(score[:, None] + log_trans, axis=0) + emit[t]
        best = int(np_.argmax(score))
        yield np_.max(score), [score, np_.asarray(best)]


def _embedding_bag(np_, V, T, seed=1205, steps=4):
    """Embedding bag with unsorted_segment_mean and a Variable momentum buffer."""
    rng = _rng(seed)
    emb = V(_f32(rng, 10, 4, scale=0.5))
    vel = V(np.zeros((10, 4), np.float32))
    doc = np_.asarray(np.array([0, 0, 1, 1, 1, 2, 3, 3], np.int32))
    for _ in range(steps):
        tokens = np_.asarray(rng.integers(0, 10, 8).astype(np.int32))
        target = np_.asarray(_f32(rng, 4, 4))
        with T() as t:
            docs = tf.math.unsorted_segment_mean(tf.nn.embedding_lookup(emb, tokens), doc,
                                                 num_segments=4)
            loss = np_.mean(np_.square(docs - target))
        vel.assign(0.9 * vel + tf.convert_to_tensor(t.gradient(loss, emb)))
        emb.assign_sub(0.5 * vel)
        yield loss, [emb, vel]


LOOPS = {f.__name__.lstrip("_"): f for f in (
    _cnn_function_step, _mapped_pipeline, _keras_momentum, _viterbi_batches, _embedding_bag)}


KERAS = {"keras_momentum"}  # Keras optimizers read the gradients back (a counted fallback)


@pytest.mark.parametrize("loop", [_function_step_loop, _keras_loss_loop, _segment_loop,
                                  _batch_norm_loop])
def test_loops_over_one_shape_compile_once(loop):
    metrics.reset()
    compiles = list(loop(_rng(120)))
    assert compiles[0] >= 1 and compiles[1] == compiles[-1], compiles
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_loop_matches_tnp_and_compiles_once(loop):
    want = [(tnp.asarray(loss).numpy(), [tf.convert_to_tensor(s).numpy() for s in state])
            for loss, state in LOOPS[loop](tnp, tf.Variable, tf.GradientTape)]
    metrics.reset()
    misses = []
    for i, (loss, state) in enumerate(LOOPS[loop](lnp, ltf.Variable, ltf.GradientTape)):
        float(loss)
        ltf.sync()
        misses.append(_misses())
        assert_same(loss, tnp.asarray(want[i][0]), f"{loop} step {i}", "float32")
        for got, ref in zip(state, want[i][1], strict=True):
            np.testing.assert_allclose(lnp.asarray(got).numpy(), ref, rtol=1e-4, atol=1e-5,
                                       err_msg=f"{loop} step {i}")
    assert misses[0] >= 1 and misses[1] == misses[-1], misses
    if loop not in KERAS:
        assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
