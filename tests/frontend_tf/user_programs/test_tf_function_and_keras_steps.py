"""Whole training steps inside tf.function, Keras losses on tnp arrays, masked
reads in data loops, segment pooling, discounted returns, nested-tape
gradient penalties, batch norm, k-NN; also under TensorFlow's own tape. Each
program is written once against a numpy-like module and TensorFlow, runs
eagerly (tensorflow.experimental.numpy, tf.Variable, tf.GradientTape) and
lazily (lazytensor.tf.numpy, lazytensor.tf.Variable,
lazytensor.tf.GradientTape), and must give the same values, dtypes and
shapes."""


from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import same_as_tnp, tf


def _rng(seed: int):
    return np.random.default_rng(seed)


def _f32(rng, *shape, scale: float = 1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def tf_function_whole_step(np_, V, T, c):
    """The tape, the loss and the update all inside one tf.function, called
    over tf.data batches of one shape."""
    rng = _rng(101)
    x, w_true = _f32(rng, 64, 4), _f32(rng, 4, 1)
    y = np.tanh(x @ w_true)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16, drop_remainder=True)
    w1 = V(_f32(rng, 4, 8, scale=0.3))
    w2 = V(_f32(rng, 8, 1, scale=0.3))

    @tf.function
    def step(xb, yb):
        with T() as t:
            h = tf.nn.relu(np_.matmul(xb, w1))
            loss = np_.mean(np_.square(np_.matmul(h, w2) - yb))
        g1, g2 = t.gradient(loss, [w1, w2])
        w1.assign_sub(0.1 * g1)
        w2.assign_sub(0.1 * g2)
        return loss

    losses = [step(np_.asarray(xb), np_.asarray(yb)) for _ in range(2) for xb, yb in ds]
    return [w1, w2, np_.stack(losses)]


def keras_losses_on_tnp(np_, V, T, c):
    """tf.keras.losses functions and loss objects on tnp arrays, with gradients."""
    rng = _rng(102)
    logits = V(_f32(rng, 6, 3))
    labels = c(np.eye(3, dtype=np.float32)[rng.integers(0, 3, 6)])
    target = c(_f32(rng, 6, 3))
    huber = tf.keras.losses.Huber(delta=0.5)
    with T() as t:
        probs = tf.nn.softmax(logits)
        cce = tf.keras.losses.categorical_crossentropy(labels, probs)
        cce_logits = tf.keras.losses.categorical_crossentropy(labels, logits, from_logits=True)
        bce = tf.keras.losses.binary_crossentropy(labels, tf.sigmoid(logits))
        hub = huber(target, logits)
        mse = tf.keras.losses.MSE(target, logits)
        total = np_.mean(cce) + np_.mean(cce_logits) + np_.mean(bce) + hub + np_.sum(mse)
    return [cce, cce_logits, bce, hub, mse, total, t.gradient(total, logits)]


def masked_reads_in_a_data_loop(np_, V, T, c):
    """Running statistics of the positive entries of each batch: x[x > 0]
    reductions and tnp.where replacements in a Python loop."""
    rng = _rng(103)
    batches = [c(_f32(rng, 8, 5)) for _ in range(4)]
    total, count, clipped = np_.zeros(()), 0, []
    for xb in batches:
        pos = xb[xb > 0]
        total = total + np_.sum(pos)
        count += int(np_.size(pos))
        neg_mean = np_.mean(xb[xb < 0])
        clipped.append(np_.where(xb > 1.0, 1.0, np_.where(xb < -1.0, neg_mean, xb)))
    return [total, total / count, np_.stack(clipped), count]


def segment_pooling_of_gathered_embeddings(np_, V, T, c):
    """Graph readout: gather node embeddings, segment_sum per graph, a linear
    head, gradients into the embedding table."""
    rng = _rng(104)
    table = V(_f32(rng, 10, 4, scale=0.5))
    head = V(_f32(rng, 4, 1, scale=0.5))
    nodes = c(np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32))
    graph_of_node = c(np.array([0, 0, 0, 1, 1, 2, 2, 2], np.int32))
    targets = c(np.array([[1.0], [-1.0], [0.5]], np.float32))
    for _ in range(3):
        with T() as t:
            emb = tf.gather(table, nodes)
            pooled = tf.math.segment_sum(emb, graph_of_node)
            counts = tf.math.segment_sum(np_.ones_like(graph_of_node), graph_of_node)
            mean_pooled = pooled / np_.asarray(counts, np.float32)[:, None]
            loss = np_.mean(np_.square(np_.matmul(mean_pooled, head) - targets))
        g_table, g_head = t.gradient(loss, [table, head])
        table.assign_sub(0.5 * tf.convert_to_tensor(g_table))
        head.assign_sub(0.5 * g_head)
    return [pooled, counts, loss, table, head]


def discounted_returns_and_advantages(np_, V, T, c):
    """REINFORCE bookkeeping: rewards discounted backwards in a loop, normalized
    advantages, a policy-gradient loss over tnp.take_along_axis log-probs."""
    rng = _rng(105)
    rewards = _f32(rng, 7)
    done = np.array([0, 0, 1, 0, 0, 0, 1], np.float32)
    logits = V(_f32(rng, 7, 3))
    actions = c(rng.integers(0, 3, (7, 1)).astype(np.int64))
    running, returns = np_.zeros(()), []
    for r, d in zip(reversed(rewards), reversed(done), strict=True):
        running = float(r) + 0.9 * running * (1.0 - float(d))
        returns.append(running)
    returns = np_.flip(np_.stack(returns))
    adv = (returns - np_.mean(returns)) / (np_.std(returns) + 1e-6)
    with T() as t:
        logp = tf.nn.log_softmax(logits)
        chosen = np_.take_along_axis(logp, actions, axis=1)[:, 0]
        loss = -np_.mean(chosen * adv)
    return [returns, adv, np_.cumsum(rewards), loss, t.gradient(loss, logits)]


def gradient_penalty_nested_tapes(np_, V, T, c):
    """A WGAN-GP style penalty: the gradient of a critic with respect to its
    input, its norm, and the gradient of the penalty with respect to weights."""
    rng = _rng(106)
    w = V(_f32(rng, 3, 4, scale=0.5))
    v = V(_f32(rng, 4, 1, scale=0.5))
    real, fake = c(_f32(rng, 5, 3)), c(_f32(rng, 5, 3))
    eps = c(rng.uniform(size=(5, 1)).astype(np.float32))
    with T() as outer:
        mix = eps * real + (1 - eps) * fake
        with T() as inner:
            inner.watch(mix)
            critic = np_.matmul(np_.tanh(np_.matmul(mix, w)), v)
        g = inner.gradient(critic, mix)
        norm = np_.sqrt(np_.sum(np_.square(g), axis=1) + 1e-12)
        penalty = np_.mean(np_.square(norm - 1.0))
    gw, gv = outer.gradient(penalty, [w, v])
    return [critic, g, norm, penalty, gw, gv]


def batch_norm_with_running_statistics(np_, V, T, c):
    """Training-mode batch norm from tf.nn.moments with running mean and
    variance kept in Variables (assign with momentum), then inference mode."""
    rng = _rng(107)
    gamma, beta = V(np.ones((4,), np.float32)), V(np.zeros((4,), np.float32))
    run_mean, run_var = V(np.zeros((4,), np.float32)), V(np.ones((4,), np.float32))
    losses = []
    for _ in range(4):
        xb = c(_f32(rng, 8, 4) * 2 + 1)
        with T() as t:
            mean, var = tf.nn.moments(xb, axes=[0])
            y = tf.nn.batch_normalization(xb, mean, var, beta, gamma, 1e-3)
            loss = np_.mean(np_.square(y - 0.5))
        gg, gb = t.gradient(loss, [gamma, beta])
        gamma.assign_sub(0.1 * gg)
        beta.assign_sub(0.1 * gb)
        run_mean.assign(0.9 * run_mean + 0.1 * mean)
        run_var.assign(0.9 * run_var + 0.1 * var)
        losses.append(loss)
    test = c(_f32(rng, 3, 4))
    infer = tf.nn.batch_normalization(test, run_mean, run_var, beta, gamma, 1e-3)
    return [np_.stack(losses), gamma, beta, run_mean, run_var, infer]


def knn_classifier(np_, V, T, c):
    """k-nearest neighbours: squared distances by broadcasting, top_k of the
    negated distances, tf.gather of the labels, a vote by one_hot sums."""
    rng = _rng(108)
    train, test = c(_f32(rng, 20, 3)), c(_f32(rng, 6, 3))
    labels = c(rng.integers(0, 3, 20).astype(np.int32))
    d2 = np_.sum(np_.square(test[:, None, :] - train[None, :, :]), axis=-1)
    nearest = tf.math.top_k(-d2, k=5)
    votes = np_.sum(tf.one_hot(tf.gather(labels, nearest.indices), 3), axis=1)
    pred = np_.argmax(votes, axis=1)
    margin = np_.max(votes, axis=1) - np_.min(votes, axis=1)
    return [d2, nearest.values, nearest.indices, votes, pred, margin]


def sequence_mask_masked_mean(np_, V, T, c):
    """Padded sequences: tf.sequence_mask, a masked mean over time via tnp.where,
    masked softmax attention pooling, gradients into the scoring vector."""
    rng = _rng(109)
    seqs = c(_f32(rng, 4, 6, 3))
    lengths = c(np.array([6, 2, 4, 1], np.int32))
    score = V(_f32(rng, 3, scale=0.5))
    mask = tf.sequence_mask(lengths, 6)
    n = np_.sum(np_.asarray(mask, np.float32), axis=1, keepdims=True)
    mean = np_.sum(np_.where(mask[:, :, None], seqs, 0.0), axis=1) / n
    with T() as t:
        logits = np_.tensordot(seqs, score, axes=1)
        logits = np_.where(mask, logits, -1e9)
        att = tf.nn.softmax(logits, axis=1)
        pooled = np_.sum(att[:, :, None] * seqs, axis=1)
        loss = np_.sum(np_.square(pooled - mean))
    return [mask, n, mean, att, pooled, loss, t.gradient(loss, score)]


def reductions_and_statistics(np_, V, T, c):
    """Reductions users reach for: var/std with ddof, axis tuples, keepdims,
    tf.math.reduce_logsumexp, nan-aware means, argmin/argmax, cumulative max."""
    rng = _rng(110)
    x = _f32(rng, 4, 5, 3)
    x[1, 2, 0] = np.nan
    a = c(x)
    clean = np_.where(np_.isnan(a), 0.0, a)
    return [
        np_.var(clean, axis=0), np_.std(clean, axis=1, keepdims=True),
        np_.nanmean(a, axis=0), tf.math.reduce_logsumexp(clean, axis=[1, 2]),
        np_.argmin(clean, axis=1), np_.argmax(np_.reshape(clean, (4, -1)), axis=-1),
        np_.max(clean, axis=(0, 1)), np_.prod(clean[:, :2, :] + 1, axis=1),
        np_.count_nonzero(clean > 0, axis=0), np_.any(np_.isnan(a), axis=(1, 2)),
    ]


def label_smoothed_keras_training(np_, V, T, c):
    """A softmax classifier trained with tf.keras.losses.CategoricalCrossentropy
    (label smoothing) over tf.data batches; accuracy from argmax compared
    with the labels."""
    rng = _rng(111)
    x = _f32(rng, 48, 4)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0.5).astype(np.int64)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(12)
    w = V(np.zeros((4, 3), np.float32))
    b = V(np.zeros((3,), np.float32))
    lossf = tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)
    accs = []
    for xb, yb in ds:
        xb = np_.asarray(xb)
        with T() as t:
            logits = np_.matmul(xb, w) + b
            loss = lossf(tf.one_hot(yb, 3), logits)
        gw, gb = t.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        accs.append(np_.mean(np_.asarray(np_.argmax(logits, axis=1) == np_.asarray(yb),
                                         np.float32)))
    return [w, b, loss, np_.stack(accs)]


def unsorted_segment_softmax(np_, V, T, c):
    """Softmax within segments (edges grouped by destination node):
    unsorted_segment_max for stability, gather back, exp, unsorted_segment_sum."""
    rng = _rng(112)
    scores = V(_f32(rng, 9))
    dest = c(np.array([2, 0, 1, 2, 0, 2, 1, 1, 0], np.int32))
    values = c(_f32(rng, 9, 2))
    with T() as t:
        top = tf.stop_gradient(tf.math.unsorted_segment_max(scores, dest, num_segments=3))
        e = np_.exp(scores - tf.gather(top, dest))
        denom = tf.math.unsorted_segment_sum(e, dest, num_segments=3)
        alpha = e / tf.gather(denom, dest)
        out = tf.math.unsorted_segment_sum(alpha[:, None] * values, dest, num_segments=3)
        loss = np_.sum(np_.square(out))
    return [alpha, out, loss, t.gradient(loss, scores)]


ROUND10 = {f.__name__: f for f in (
    tf_function_whole_step, keras_losses_on_tnp, masked_reads_in_a_data_loop,
    segment_pooling_of_gathered_embeddings, discounted_returns_and_advantages,
    gradient_penalty_nested_tapes, batch_norm_with_running_statistics, knn_classifier,
    sequence_mask_masked_mean, reductions_and_statistics, label_smoothed_keras_training,
    unsorted_segment_softmax)}


@pytest.mark.parametrize("program", sorted(ROUND10))
def test_function_and_keras_step_programs_match_tnp(program):
    same_as_tnp(ROUND10[program], program, precision="float32")


@pytest.mark.parametrize("program", sorted(ROUND10))
def test_function_and_keras_step_programs_match_tnp_under_tensorflows_own_tape(program):
    """The same programs with TensorFlow's tf.GradientTape over the lazy
    arrays and lazytensor Variables (lazytensor.tf._tf_tape)."""
    same_as_tnp(ROUND10[program], program, tape=tf.GradientTape, precision="float32")
