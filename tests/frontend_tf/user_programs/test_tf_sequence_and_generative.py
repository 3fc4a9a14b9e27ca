"""Sequence and generative programs (a character RNN, a VAE step, word2vec,
beam search). Each program is written once against a numpy-like module and
TensorFlow, runs eagerly (tensorflow.experimental.numpy, tf.Variable,
tf.GradientTape) and lazily (lazytensor.tf.numpy, lazytensor.tf.Variable,
lazytensor.tf.GradientTape), and must give the same values, dtypes and
shapes."""


from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import same_as_tnp, tf


def char_rnn(np_, V, T, c):
    rng = np.random.default_rng(1)
    vocab, hidden, steps = 7, 5, 6
    wx = V(rng.standard_normal((vocab, hidden)).astype(np.float32) * 0.3)
    wh = V(rng.standard_normal((hidden, hidden)).astype(np.float32) * 0.3)
    wy = V(rng.standard_normal((hidden, vocab)).astype(np.float32) * 0.3)
    seq = rng.integers(0, vocab, (2, steps + 1))
    with T() as t:
        h = np_.zeros((2, hidden), dtype=np_.float32)
        loss = 0.0
        for s in range(steps):
            x = tf.one_hot(c(seq[:, s]), vocab)
            h = np_.tanh(x @ wx + h @ wh)
            logits = h @ wy
            loss = loss + tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                c(seq[:, s + 1]), logits))
    grads = t.gradient(loss, [wx, wh, wy])
    clipped, norm = tf.clip_by_global_norm(grads, 1.0)
    return [loss, norm, *clipped]


def vae_step(np_, V, T, c):
    rng = np.random.default_rng(2)
    x = c(rng.uniform(0, 1, (4, 6)).astype(np.float32))
    enc = V(rng.standard_normal((6, 4)).astype(np.float32) * 0.2)
    dec = V(rng.standard_normal((2, 6)).astype(np.float32) * 0.2)
    eps = c(rng.standard_normal((4, 2)).astype(np.float32))
    with T() as t:
        h = x @ enc
        mu, logvar = h[:, :2], h[:, 2:]
        z = mu + np_.exp(0.5 * logvar) * eps
        recon = tf.sigmoid(z @ dec)
        bce = -np_.sum(x * np_.log(recon + 1e-7) + (1 - x) * np_.log(1 - recon + 1e-7), axis=1)
        kl = -0.5 * np_.sum(1 + logvar - mu ** 2 - np_.exp(logvar), axis=1)
        loss = np_.mean(bce + kl)
    g = t.gradient(loss, [enc, dec])
    enc.assign_sub(0.1 * g[0])
    dec.assign_sub(0.1 * g[1])
    return [loss, *g, enc.read_value(), dec.read_value()]


def word2vec(np_, V, T, c):
    rng = np.random.default_rng(3)
    emb = V(rng.standard_normal((10, 4)).astype(np.float32) * 0.1)
    ctx = V(rng.standard_normal((10, 4)).astype(np.float32) * 0.1)
    centers = c(np.array([1, 2, 3, 1], np.int32))
    pos = c(np.array([2, 3, 4, 0], np.int32))
    neg = c(rng.integers(0, 10, (4, 3)).astype(np.int32))
    with T() as t:
        e = tf.nn.embedding_lookup(emb, centers)
        p = tf.nn.embedding_lookup(ctx, pos)
        n = tf.nn.embedding_lookup(ctx, neg)
        pos_score = tf.reduce_sum(e * p, axis=-1)
        neg_score = tf.einsum("bd,bkd->bk", e, n)
        loss = -tf.reduce_mean(tf.math.log_sigmoid(pos_score)) - tf.reduce_mean(
            tf.reduce_sum(tf.math.log_sigmoid(-neg_score), axis=-1))
    g_emb, g_ctx = t.gradient(loss, [emb, ctx])
    return [loss, tf.convert_to_tensor(g_emb), tf.convert_to_tensor(g_ctx)]


def beam_search(np_, V, T, c):
    rng = np.random.default_rng(4)
    batch, beam, vocab, steps = 2, 3, 6, 4
    trans = c(np.log(rng.dirichlet(np.ones(vocab), vocab)).astype(np.float32))
    scores = c(np.array([[0.0, -1e9, -1e9]] * batch, np.float32))
    tokens = c(np.zeros((batch, beam), np.int32))
    history = c(np.zeros((batch, beam, 0), np.int32))
    for _ in range(steps):
        step_logp = tf.gather(trans, tokens)  # (batch, beam, vocab)
        total = tf.reshape(scores[:, :, None] + step_logp, (batch, beam * vocab))
        scores, flat = tf.math.top_k(total, k=beam)
        parent = flat // vocab
        tokens = flat % vocab
        history = tf.gather(history, parent, batch_dims=1)
        history = tf.concat([history, tokens[:, :, None]], axis=-1)
    return [scores, history, tokens]


def kmeans(np_, V, T, c):
    rng = np.random.default_rng(5)
    pts = c(np.concatenate([rng.normal(m, 0.3, (8, 2)) for m in (0, 3, 6)]).astype(
        np.float32))
    cent = c(np.array([[0.0, 0.5], [2.0, 2.0], [5.0, 6.0]], np.float32))
    out = []
    for _ in range(4):
        d = tf.reduce_sum((pts[:, None, :] - cent[None]) ** 2, axis=-1)
        assign = tf.argmin(d, axis=1, output_type=tf.int32)
        cent = tf.math.unsorted_segment_mean(pts, assign, 3)
        inertia = tf.reduce_sum(tf.reduce_min(d, axis=1))
        out += [assign, inertia]
    counts = tf.math.bincount(assign, minlength=3)
    return out + [cent, counts]


def framed_features(np_, V, T, c):
    rng = np.random.default_rng(6)
    sig = c(rng.standard_normal((2, 64)).astype(np.float32))
    frames = tf.signal.frame(sig, 16, 8)  # (2, 7, 16)
    win = tf.signal.hann_window(16)
    spec = tf.abs(tf.signal.rfft(frames * win))
    energy = tf.math.log(tf.reduce_sum(frames ** 2, axis=-1) + 1e-6)
    zcr = tf.reduce_mean(tf.cast(frames[..., 1:] * frames[..., :-1] < 0, tf.float32), -1)
    padded = tf.signal.frame(sig, 16, 8, pad_end=True, pad_value=0.5)
    overlap = tf.signal.overlap_and_add(frames, 8)
    return [spec, energy, zcr, padded, overlap]


def lr_schedules(np_, V, T, c):
    rng = np.random.default_rng(7)
    w = V(rng.standard_normal((3,)).astype(np.float32))
    x = c(rng.standard_normal((8, 3)).astype(np.float32))
    y = c(rng.standard_normal((8,)).astype(np.float32))
    losses = []
    warmup, total, base = 3, 10, 0.1
    for step in range(total):
        if step < warmup:
            lr = base * (step + 1) / warmup
        else:
            lr = 0.5 * base * (1 + np.cos(np.pi * (step - warmup) / (total - warmup)))
        with T() as t:
            loss = tf.reduce_mean((tf.linalg.matvec(x, w) - y) ** 2)
        g = t.gradient(loss, w)
        w.assign_sub(float(lr) * g)
        losses.append(loss)
    return losses + [w.read_value()]


def grad_accumulation(np_, V, T, c):
    rng = np.random.default_rng(8)
    w = V(rng.standard_normal((4, 2)).astype(np.float32))
    b = V(np.zeros(2, np.float32))
    data = rng.standard_normal((12, 4)).astype(np.float32)
    target = rng.standard_normal((12, 2)).astype(np.float32)
    out = []
    for _epoch in range(2):
        acc = [tf.zeros_like(w), tf.zeros_like(b)]
        for i in range(0, 12, 4):
            with T() as t:
                pred = c(data[i:i + 4]) @ w + b
                loss = tf.reduce_mean(tf.keras.losses.huber(c(target[i:i + 4]), pred))
            g = t.gradient(loss, [w, b])
            acc = [a + gi / 3.0 for a, gi in zip(acc, g, strict=True)]
            out.append(loss)
        w.assign_sub(0.5 * acc[0])
        b.assign_sub(0.5 * acc[1])
    return out + [w.read_value(), b.read_value()]


def mixed_precision(np_, V, T, c):
    rng = np.random.default_rng(9)
    x16 = c(rng.standard_normal((4, 8)).astype(np.float16))
    w32 = V(rng.standard_normal((8, 3)).astype(np.float32) * 0.5)
    with T() as t:
        h16 = tf.matmul(x16, tf.cast(w32, tf.float16))
        logits = tf.cast(h16, tf.float32)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
            tf.one_hot(c(np.array([0, 1, 2, 1], np.int32)), 3), logits))
        scaled = loss * 128.0
    g = t.gradient(scaled, w32) / 128.0
    ln = tf.nn.l2_normalize(tf.cast(x16, tf.float32), axis=-1)
    s = np_.sum(x16, axis=0)
    return [h16, loss, g, ln, s, np_.mean(x16 * 2)]


def data_pipeline(np_, V, T, c):
    rng = np.random.default_rng(10)
    feats = rng.standard_normal((10, 3)).astype(np.float32)
    labels = (feats.sum(1) > 0).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((feats, labels)).map(
        lambda f, l: (f * 2.0, l)).shuffle(10, seed=1).batch(4)
    w = V(np.zeros(3, np.float32))
    out = []
    for xb, yb in ds:
        with T() as t:
            logits = np_.matmul(xb, w)
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(yb, logits))
        g = t.gradient(loss, w)
        w.assign_sub(0.5 * g)
        out.append(loss)
    return out + [w.read_value()]


def random_ops(np_, V, T, c):
    x = c(np.ones((3, 4), np.float32))
    g = tf.random.Generator.from_seed(3)
    a = g.normal(tf.shape(x))
    b = tf.random.stateless_uniform(tf.shape(x), seed=[1, 2])
    d = tf.random.stateless_normal([x.shape[0], 2], seed=[3, 4])
    e = tf.random.stateless_categorical(tf.math.log([[0.5, 0.5]]), 4, seed=[5, 6])
    return [x + a, x * b, d, e]


def scatter_band_segments(np_, V, T, c):
    rng = np.random.default_rng(11)
    m = c(rng.standard_normal((5, 5)).astype(np.float32))
    band = tf.linalg.band_part(m, 1, 2)
    lower = tf.linalg.band_part(m, -1, 0)
    upd = tf.tensor_scatter_nd_update(m, [[0, 0], [4, 4]], [9.0, 9.0])
    add = tf.tensor_scatter_nd_add(m, c(np.array([[1], [1]], np.int32)),
                                   c(np.ones((2, 5), np.float32)))
    sub = tf.tensor_scatter_nd_sub(m, [[2, 3]], [1.0])
    mx = tf.tensor_scatter_nd_max(m, [[3]], [tf.fill([5], 0.5)])
    ids = c(np.array([0, 2, 2, 1, 0], np.int32))
    seg = [tf.math.unsorted_segment_sum(m, ids, 3), tf.math.unsorted_segment_max(m, ids, 4),
           tf.math.unsorted_segment_mean(m, ids, 3), tf.math.unsorted_segment_sqrt_n(m, ids, 3),
           tf.math.unsorted_segment_prod(m, ids, 3), tf.math.unsorted_segment_min(m, ids, 3)]
    return [band, lower, upd, add, sub, mx, *seg]


def ctc_program(np_, V, T, c):
    rng = np.random.default_rng(12)
    logits = V(rng.standard_normal((6, 2, 4)).astype(np.float32))
    labels = tf.constant([[1, 2], [3, 3]])
    with T() as t:
        loss = tf.nn.ctc_loss(labels, logits, label_length=tf.constant([2, 2]),
                              logit_length=tf.constant([6, 5]), logits_time_major=True,
                              blank_index=0)
        total = tf.reduce_sum(loss)
    return [loss, t.gradient(total, logits)]


def attention_block(np_, V, T, c):
    rng = np.random.default_rng(13)
    q = c(rng.standard_normal((2, 4, 8)).astype(np.float32))
    wq = V(rng.standard_normal((8, 8)).astype(np.float32) * 0.3)
    mask = tf.linalg.band_part(tf.ones((4, 4)), -1, 0)
    with T() as t:
        h = tf.einsum("btd,de->bte", q, wq)
        s = tf.matmul(h, h, transpose_b=True) / np.sqrt(np.float32(8.0))
        s = s + (1.0 - mask) * -1e9
        p = tf.nn.softmax(s, axis=-1)
        o = tf.matmul(p, h)
        o = tf.keras.activations.gelu(o)
        loss = tf.reduce_mean(tf.square(o))
    return [o, loss, t.gradient(loss, wq)]


PROGRAMS = {f.__name__: f for f in (
    char_rnn, vae_step, word2vec, beam_search, kmeans, framed_features, lr_schedules,
    grad_accumulation, mixed_precision, data_pipeline, random_ops, scatter_band_segments,
    attention_block, ctc_program)}


# results computed from float16 values, compared at float16's tolerance
LOW_PRECISION = {"mixed_precision"}


# APIs that run eagerly in TensorFlow (counted): random draws shaped by lazy sizes, CTC
COUNTED = {"random_ops", "ctc_program"}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_sequence_and_generative_programs_match_tnp(program):
    """Round-7 user programs (char-RNN, VAE step, word2vec negative sampling,
    beam search, k-means, framed signal features, learning-rate schedules,
    gradient accumulation, mixed float16/float32, tf.data feeding tnp,
    stateless/Generator random ops, scatters/band_part/segments, causal
    attention, CTC) give eager TensorFlow's values, dtypes and shapes."""
    same_as_tnp(PROGRAMS[program], program, fallbacks=program in COUNTED,
                precision="float16" if program in LOW_PRECISION else "float32")
