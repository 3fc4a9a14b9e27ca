"""Training loops over tf.data batches, tf.nn losses on tnp arrays,
tf.function-decorated steps, GRU cells, ridge and Newton solvers, EMA
schedules. Each program is written once against a numpy-like module and
TensorFlow, runs eagerly (tensorflow.experimental.numpy, tf.Variable,
tf.GradientTape) and lazily (lazytensor.tf.numpy, lazytensor.tf.Variable,
lazytensor.tf.GradientTape), and must give the same values, dtypes and
shapes."""


from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import same_as_tnp, tf


def _data(seed: int, n: int = 48, d: int = 5):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    w = rng.standard_normal((d, 1)).astype(np.float32)
    return rng, x, w


def dataset_poisson_regression(np_, V, T, c):
    """Poisson regression over shuffled tf.data batches with tf.nn.log_poisson_loss."""
    rng, x, w_true = _data(91)
    counts = rng.poisson(np.exp(x @ w_true * 0.3)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, counts)).shuffle(48, seed=3).batch(16)
    w = V(np.zeros((5, 1), np.float32))
    b = V(np.zeros((1,), np.float32))
    losses = []
    for _ in range(2):
        for xb, yb in ds:
            xb, yb = np_.asarray(xb), np_.asarray(yb)
            with T() as t:
                log_rate = np_.matmul(xb, w) + b
                loss = np_.mean(tf.nn.log_poisson_loss(yb, log_rate, compute_full_loss=True))
            gw, gb = t.gradient(loss, [w, b])
            w.assign_sub(0.05 * gw)
            b.assign_sub(0.05 * gb)
            losses.append(loss)
    return [w, b, np_.stack(losses)]


def softmax_losses_with_label_smoothing(np_, V, T, c):
    """Dense and sparse softmax cross-entropy, label smoothing, top-k accuracy."""
    rng = np.random.default_rng(92)
    logits0 = rng.standard_normal((6, 4)).astype(np.float32)
    labels = np.array([0, 3, 1, 1, 2, 0], np.int64)
    logits = V(logits0)
    with T(persistent=True) as t:
        onehot = np_.asarray(tf.one_hot(labels, 4))
        smooth = onehot * 0.9 + 0.1 / 4
        dense = tf.nn.softmax_cross_entropy_with_logits(labels=smooth, logits=logits)
        sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        total = np_.sum(dense) + 0.5 * np_.mean(sparse)
    g = t.gradient(total, logits)
    gs = t.gradient(sparse, logits)
    top2 = tf.math.top_k(logits, k=2)
    hit = np_.any(top2.indices == np_.asarray(labels)[:, None], axis=1)
    acc = np_.mean(hit.astype(np.float32))
    return [dense, sparse, total, g, gs, top2.values, top2.indices, acc]


def function_decorated_step(np_, V, T, c):
    """A tf.function-decorated update on tnp arrays and Variables, called in a loop."""
    _, x, w_true = _data(93, 32, 3)
    y = x @ w_true + 0.25
    w = V(np.zeros((3, 1), np.float32))
    b = V(np.zeros((1,), np.float32))

    @tf.function
    def predict(xb):
        return np_.matmul(xb, w) + b

    out = []
    for _ in range(4):
        with T() as t:
            err = predict(c(x)) - c(y)
            loss = np_.mean(np_.square(err))
        gw, gb = t.gradient(loss, [w, b])
        w.assign_sub(0.2 * gw)
        b.assign_sub(0.2 * gb)
        out.append(loss)
    return [w, b, np_.stack(out), predict(c(x[:2]))]


def gru_cell_unrolled(np_, V, T, c):
    """A GRU cell written in tnp, unrolled over time, clipped by global norm."""
    rng = np.random.default_rng(94)
    xs = c(rng.standard_normal((5, 3, 4)).astype(np.float32))  # time, batch, features
    wz, wr, wh = (V(rng.standard_normal((4 + 6, 6)).astype(np.float32) * 0.3) for _ in range(3))
    h = np_.zeros((3, 6), np.float32)
    with T() as t:
        for step in range(5):
            xh = np_.concatenate([xs[step], h], axis=1)
            z = tf.sigmoid(np_.matmul(xh, wz))
            r = tf.sigmoid(np_.matmul(xh, wr))
            cand = np_.tanh(np_.matmul(np_.concatenate([xs[step], r * h], axis=1), wh))
            h = (1 - z) * h + z * cand
        loss = np_.sum(np_.square(h - 0.1))
    grads = t.gradient(loss, [wz, wr, wh])
    clipped, norm = tf.clip_by_global_norm(grads, 0.5)
    for var, g in zip((wz, wr, wh), clipped, strict=True):
        var.assign_sub(0.1 * g)
    return [h, loss, norm, clipped, wz]


def focal_loss_binary(np_, V, T, c):
    """Binary focal loss from tf.nn.sigmoid_cross_entropy_with_logits and tnp.where."""
    rng = np.random.default_rng(95)
    logits = V(rng.standard_normal((10,)).astype(np.float32) * 2)
    y = c(rng.integers(0, 2, 10).astype(np.float32))
    with T() as t:
        ce = tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits)
        p = tf.sigmoid(logits)
        p_t = np_.where(y > 0.5, p, 1 - p)
        alpha_t = np_.where(y > 0.5, 0.25, 0.75)
        loss = np_.sum(alpha_t * np_.power(1 - p_t, 2.0) * ce)
        weighted = tf.nn.weighted_cross_entropy_with_logits(y, logits, pos_weight=3.0)
        both = loss + np_.mean(weighted)
    return [ce, p_t, loss, weighted, t.gradient(both, logits)]


def ridge_closed_form_and_newton(np_, V, T, c):
    """Ridge regression by tf.linalg.solve, then a Newton step from nested tapes."""
    _, x, w_true = _data(96, 40, 4)
    x64 = c(x.astype(np.float64))
    y64 = c((x @ w_true).astype(np.float64) + 0.1)
    gram = np_.matmul(np_.transpose(x64), x64) + 0.5 * np_.eye(4)
    w_ridge = tf.linalg.solve(gram, np_.matmul(np_.transpose(x64), y64))
    w = V(np.zeros((4, 1), np.float64))
    with T() as outer:
        with T() as inner:
            pred = np_.matmul(x64, w)
            loss = 0.5 * np_.mean(np_.square(pred - y64)) + 0.25 * np_.sum(np_.square(w))
        g = inner.gradient(loss, w)
    hess = outer.jacobian(g, w)
    step = tf.linalg.solve(np_.reshape(hess, (4, 4)), np_.reshape(g, (4, 1)))
    w.assign_sub(step)
    return [w_ridge, loss, g, hess, w]


def ema_weights_and_schedule(np_, V, T, c):
    """SGD with a cosine learning-rate schedule and an exponential moving average
    of the weights kept in a second Variable."""
    _, x, w_true = _data(97, 24, 3)
    y = np.tanh(x @ w_true)
    w = V(np.full((3, 1), 0.1, np.float32))
    ema = V(np.full((3, 1), 0.1, np.float32))
    lrs = []
    for step in range(6):
        lr = float(0.05 * 0.5 * (1 + np.cos(np.pi * step / 6)))
        with T() as t:
            loss = np_.mean(np_.square(np_.tanh(np_.matmul(c(x), w)) - c(y)))
        w.assign_sub(lr * t.gradient(loss, w))
        ema.assign(0.9 * ema + 0.1 * w)
        lrs.append(lr)
    return [w, ema, loss, np_.asarray(lrs, np.float32)]


def contrastive_similarity(np_, V, T, c):
    """InfoNCE-style loss: l2-normalized embeddings, cosine similarity matrix,
    temperature, sparse cross-entropy against the diagonal."""
    rng = np.random.default_rng(98)
    a = c(rng.standard_normal((5, 8)).astype(np.float32))
    proj = V(rng.standard_normal((8, 4)).astype(np.float32) * 0.4)
    with T() as t:
        za = tf.math.l2_normalize(np_.matmul(a, proj), axis=1)
        zb = tf.math.l2_normalize(np_.matmul(a * 0.9 + 0.05, proj), axis=1)
        sim = np_.matmul(za, np_.transpose(zb)) / 0.2
        targets = np_.arange(5)
        loss = np_.mean(tf.nn.sparse_softmax_cross_entropy_with_logits(targets, sim))
    return [sim, loss, t.gradient(loss, proj), np_.argmax(sim, axis=1)]


def bincount_and_segment_stats(np_, V, T, c):
    """Class histograms with tf.math.bincount and per-class means with
    unsorted_segment_mean on tnp arrays."""
    rng = np.random.default_rng(99)
    labels = c(rng.integers(0, 4, 20).astype(np.int32))
    values = c(rng.standard_normal((20, 3)).astype(np.float32))
    counts = tf.math.bincount(labels, minlength=5)
    means = tf.math.unsorted_segment_mean(values, labels, num_segments=4)
    maxes = tf.math.unsorted_segment_max(values, labels, num_segments=4)
    weights = np_.asarray(1.0 / np_.maximum(counts[:4], 1), np.float32)
    balanced = np_.sum(np_.take(weights, labels)[:, None] * values, axis=0)
    return [counts, means, maxes, weights, balanced]


def early_stopping_over_epochs(np_, V, T, c):
    """A loop over tf.data epochs that reads the validation loss as a Python
    float each epoch (a barrier) and stops when it stops improving."""
    _, x, w_true = _data(100, 40, 3)
    y = x @ w_true
    train = tf.data.Dataset.from_tensor_slices((x[:30], y[:30])).batch(10)
    xv, yv = c(x[30:]), c(y[30:])
    w = V(np.zeros((3, 1), np.float32))
    best, history = float("inf"), []
    for _ in range(20):
        for xb, yb in train:
            with T() as t:
                loss = np_.mean(np_.square(np_.matmul(np_.asarray(xb), w) - np_.asarray(yb)))
            w.assign_sub(0.3 * t.gradient(loss, w))
        val = float(np_.mean(np_.square(np_.matmul(xv, w) - yv)))
        history.append(val)
        if val > best - 1e-4:
            break
        best = val
    return [w, np_.asarray(history, np.float32), len(history)]


ROUND9 = {f.__name__: f for f in (
    dataset_poisson_regression, softmax_losses_with_label_smoothing, function_decorated_step,
    gru_cell_unrolled, focal_loss_binary, ridge_closed_form_and_newton,
    ema_weights_and_schedule, contrastive_similarity, bincount_and_segment_stats,
    early_stopping_over_epochs)}


@pytest.mark.parametrize("program", sorted(ROUND9))
def test_training_loop_programs_match_tnp(program):
    same_as_tnp(ROUND9[program], program, precision="float32")
