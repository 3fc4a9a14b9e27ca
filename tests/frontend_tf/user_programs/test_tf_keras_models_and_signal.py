"""Keras models (a Model subclass text classifier, recurrent layers, Adam with
schedules and clipping) and signal and linear-algebra programs (PCA by eigh,
STFT, masked attention, retrieval, mixtures, k-means). Each program is
written once against a numpy-like module and TensorFlow, runs eagerly
(tensorflow.experimental.numpy, tf.Variable, tf.GradientTape) and lazily
(lazytensor.tf.numpy, lazytensor.tf.Variable, lazytensor.tf.GradientTape),
and must give the same values, dtypes and shapes."""


from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import same_as_tnp, tf


def _rng(seed: int):
    return np.random.default_rng(seed)


def _f32(rng, *shape, scale: float = 1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _seeded(model, x, seed: int):
    """``model`` built on ``x`` with weights drawn from ``seed`` (the same
    in the eager and the lazy run; Keras' initializers draw differently)."""
    model(x)
    rng = _rng(seed)
    model.set_weights([(rng.standard_normal(w.shape) * 0.3).astype(w.dtype)
                       for w in model.get_weights()])
    return model


class _TextClassifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.embed = tf.keras.layers.Embedding(20, 8)
        self.conv = tf.keras.layers.Conv1D(6, 3, padding="same", activation="relu")
        self.norm = tf.keras.layers.LayerNormalization()
        self.drop = tf.keras.layers.Dropout(0.5)
        self.out = tf.keras.layers.Dense(3)

    def call(self, tokens, training=False):
        h = self.norm(self.conv(self.embed(tokens)))
        return self.out(self.drop(tf.reduce_mean(h, axis=1), training=training))


def keras_text_classifier(np_, V, T, c):
    """A Keras Model subclass on lazy token batches (inference mode), its
    cross-entropy gradients with respect to the Keras weights, and a tnp
    head on top of the pooled features."""
    rng = _rng(1301)
    tokens = c(rng.integers(0, 20, (4, 7)).astype(np.int32))
    labels = c(rng.integers(0, 3, 4).astype(np.int32))
    model = _seeded(_TextClassifier(), tokens, 1302)
    with T() as t:
        logits = model(tokens, training=False)
        loss = np_.mean(tf.keras.losses.sparse_categorical_crossentropy(
            labels, logits, from_logits=True))
    grads = t.gradient(loss, model.trainable_variables)
    probs = np_.exp(logits - np_.max(logits, axis=-1, keepdims=True))
    return [logits, loss, probs / np_.sum(probs, -1, keepdims=True),
            [np_.asarray(tf.convert_to_tensor(g)) for g in grads]]


def keras_recurrent_layers(np_, V, T, c):
    """tf.keras.layers.GRU and LSTM (return_sequences, then the last state)
    over a lazy batch of sequences, and the loss's gradient."""
    rng = _rng(1303)
    x = c(_f32(rng, 3, 5, 4))
    gru = _seeded(tf.keras.layers.GRU(6, return_sequences=True), x, 1304)
    lstm = _seeded(tf.keras.layers.LSTM(5), gru(x), 1305)
    with T() as t:
        h = lstm(gru(x))
        loss = np_.sum(np_.square(h))
    return [h, loss, [tf.convert_to_tensor(g) for g in t.gradient(loss, gru.trainable_variables)]]


def adam_with_schedules_and_clipping(np_, V, T, c):
    """Keras Adam driven by ExponentialDecay, SGD by CosineDecay; gradients
    clipped with tf.clip_by_global_norm; a softplus regression on tnp
    Variables, four steps."""
    rng = _rng(1306)
    x, y = c(_f32(rng, 12, 3)), c(np.abs(_f32(rng, 12, 1)))
    w, b = V(_f32(rng, 3, 1, scale=0.5)), V(np.zeros((1,), np.float32))
    adam = tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.ExponentialDecay(
        0.1, decay_steps=2, decay_rate=0.5))
    sgd = tf.keras.optimizers.SGD(tf.keras.optimizers.schedules.CosineDecay(0.2, 4))
    losses, norms = [], []
    for step in range(4):
        with T() as t:
            pred = tf.math.softplus(x @ w + b)
            loss = np_.mean(np_.square(pred - y))
        grads, norm = tf.clip_by_global_norm(t.gradient(loss, [w, b]), 0.5)
        (adam if step % 2 == 0 else sgd).apply_gradients(zip(grads, [w, b], strict=True))
        losses.append(loss)
        norms.append(norm)
    return [w, b, np_.stack(losses), np_.stack(norms)]


def pca_by_eigh(np_, V, T, c):
    """PCA of stateless-normal data: tf.linalg.eigh of the covariance, the
    signs of the components fixed, projections; svd's singular values and
    qr's R agree with it."""
    z = tf.random.stateless_normal((40, 4), seed=[3, 7])
    data = np_.asarray(z) * np_.asarray(np.array([3.0, 1.0, 0.5, 0.1], np.float32))
    centred = data - np_.mean(data, axis=0)
    cov = np_.transpose(centred) @ centred / 39.0
    evals, evecs = tf.linalg.eigh(cov)
    evecs = evecs * np_.sign(evecs[0:1, :])
    proj = centred @ evecs[:, ::-1][:, :2]
    s = tf.linalg.svd(centred, compute_uv=False)
    r = tf.linalg.qr(centred)[1]
    return [evals, np_.abs(evecs), proj * np_.sign(proj[0:1]), s, np_.abs(np_.diagonal(r)),
            np_.square(s) / 39.0 - evals[::-1]]


def stft_spectrogram(np_, V, T, c):
    """A chirp's magnitude spectrogram by tf.signal.stft with a Hann
    window, log-compressed, and the spectral centroid per frame."""
    t = np_.arange(256, dtype=np.float32) / 256.0
    chirp = np_.sin(2 * np.pi * (8.0 + 30.0 * t) * t)
    spec = tf.signal.stft(chirp, frame_length=64, frame_step=32, fft_length=64,
                          window_fn=tf.signal.hann_window)
    mag = np_.abs(spec)
    bins = np_.arange(33, dtype=np.float32)
    centroid = np_.sum(mag * bins, axis=-1) / np_.sum(mag, axis=-1)
    return [np_.log1p(mag), centroid, tf.signal.frame(chirp, 64, 32)]


def masked_attention(np_, V, T, c):
    """Scaled dot-product attention with a padding mask broadcast by
    tf.where over heads, normalised with tf.reduce_logsumexp; causal
    band from tf.linalg.band_part; gradients with respect to the query
    weights."""
    rng = _rng(1307)
    x = c(_f32(rng, 2, 5, 8))
    lengths = c(np.array([5, 3], np.int32))
    wq, wk = V(_f32(rng, 8, 8, scale=0.3)), V(_f32(rng, 8, 8, scale=0.3))
    with T() as t:
        q = np_.transpose(np_.reshape(x @ wq, (2, 5, 2, 4)), (0, 2, 1, 3))
        k = np_.transpose(np_.reshape(x @ wk, (2, 5, 2, 4)), (0, 2, 1, 3))
        scores = q @ np_.swapaxes(k, -1, -2) / 2.0
        keep = tf.sequence_mask(lengths, 5)[:, None, None, :]
        causal = tf.linalg.band_part(np_.ones((5, 5)), -1, 0) > 0
        scores = tf.where(keep & causal, scores, -1e9)
        logp = scores - tf.reduce_logsumexp(scores, axis=-1, keepdims=True)
        out = np_.exp(logp) @ np_.transpose(np_.reshape(x, (2, 5, 2, 4)), (0, 2, 1, 3))
        loss = np_.sum(np_.square(out))
    return [logp, out, t.gradient(loss, [wq, wk])]


def retrieval_top_k(np_, V, T, c):
    """Cosine-similarity retrieval: tf.math.top_k of the scores, the
    distinct retrieved ids by tf.unique (and their counts), recall@3."""
    rng = _rng(1308)
    items = c(_f32(rng, 12, 6))
    queries = c(_f32(rng, 4, 6))
    relevant = c(rng.integers(0, 12, 4).astype(np.int32))
    norm = tf.math.l2_normalize
    scores = norm(queries, axis=-1) @ np_.transpose(norm(items, axis=-1))
    top = tf.math.top_k(scores, k=3)
    ids, where = tf.unique(np_.reshape(top.indices, [-1]))
    hit = np_.any(top.indices == relevant[:, None], axis=-1)
    return [top.values, top.indices, ids, where, np_.mean(hit.astype(np.float32)),
            tf.math.bincount(where)]


def segment_features(np_, V, T, c):
    """Node features gathered by edge lists (tf.gather, batch_dims=1 for the
    per-graph neighbours), averaged by sorted tf.math.segment_mean and
    max-pooled by segment_max; a message-passing layer's gradient."""
    rng = _rng(1309)
    nodes = c(_f32(rng, 6, 4))
    src = c(np.array([0, 0, 1, 2, 2, 2, 4, 5], np.int32))
    dst = c(np.array([1, 2, 0, 1, 3, 5, 5, 4], np.int32))
    order = np.argsort(np.array([1, 2, 0, 1, 3, 5, 5, 4]), kind="stable").astype(np.int32)
    w = V(_f32(rng, 4, 4, scale=0.5))
    batch = c(_f32(rng, 2, 5, 3))
    picks = c(np.array([[4, 0], [2, 2]], np.int32))
    with T() as t:
        msgs = tf.gather(tf.nn.relu(nodes @ w), src)
        sorted_dst = tf.gather(dst, order)
        agg = tf.math.segment_mean(tf.gather(msgs, order), sorted_dst)
        peak = tf.math.segment_max(tf.gather(msgs, order), sorted_dst)
        loss = np_.sum(agg * peak)
    return [agg, peak, t.gradient(loss, w), tf.gather(batch, picks, batch_dims=1)]


def gaussian_mixture_nll(np_, V, T, c):
    """The negative log-likelihood of a 1-D Gaussian mixture (log-softmax
    weights, softplus scales, tf.reduce_logsumexp over components) and
    its gradients; lgamma/digamma of the concentration as a prior term."""
    rng = _rng(1310)
    x = c(np.concatenate([_f32(rng, 10) - 2.0, _f32(rng, 10, scale=0.5) + 1.5]))
    logits, mu = V(np.zeros(3, np.float32)), V(np.array([-1.0, 0.0, 1.0], np.float32))
    raw = V(np.zeros(3, np.float32))
    with T() as t:
        scale = tf.math.softplus(raw) + 1e-3
        logw = tf.nn.log_softmax(logits)
        z = (x[:, None] - mu) / scale
        comp = -0.5 * np_.square(z) - np_.log(scale) - 0.5 * np.log(2 * np.pi)
        nll = -np_.mean(tf.reduce_logsumexp(logw + comp, axis=1))
        alpha = np_.exp(logw) * 3.0
        prior = np_.sum(tf.math.lgamma(alpha)) - tf.math.lgamma(np_.sum(alpha))
        loss = nll + 0.01 * prior
    return [nll, loss, t.gradient(loss, [logits, mu, raw]), tf.math.digamma(alpha)]


def kmeans_steps(np_, V, T, c):
    """Three Lloyd steps: squared distances by broadcasting, argmin
    assignment, new centroids by tf.math.unsorted_segment_sum / counts
    (empty clusters keep their centroid via tf.where)."""
    rng = _rng(1311)
    pts = c(np.concatenate([_f32(rng, 8, 2) + 3, _f32(rng, 8, 2) - 3, _f32(rng, 4, 2)]))
    cent = V(np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, -1.0], [9.0, 9.0]], np.float32))
    inertia = []
    for _ in range(3):
        d2 = np_.sum(np_.square(pts[:, None, :] - cent[None]), axis=-1)
        assign = np_.argmin(d2, axis=1)
        sums = tf.math.unsorted_segment_sum(pts, assign, 4)
        counts = tf.math.unsorted_segment_sum(np_.ones_like(pts[:, :1]), assign, 4)
        cent.assign(tf.where(counts > 0, sums / np_.maximum(counts, 1.0), cent))
        inertia.append(np_.sum(np_.min(d2, axis=1)))
    return [cent, np_.stack(inertia), assign]


# slow: Keras's GRU and LSTM, 16 s on a loaded 2-core machine; keeps CI near 10 minutes
PROGRAMS = [keras_text_classifier, pytest.param(keras_recurrent_layers, marks=pytest.mark.slow),
            adam_with_schedules_and_clipping,
            pca_by_eigh, stft_spectrogram, masked_attention, retrieval_top_k, segment_features,
            gaussian_mixture_nll, kmeans_steps]


# Counted eager fallbacks, each a graph break the values survive: Keras
# optimizers read the lazy gradients back; Keras's GRU/LSTM loop over time with
# tf.while_loop and a TensorArray (TensorFlow control flow, not lowered);
# tf.unique's length and order are the data's.
FALLBACKS = {"adam_with_schedules_and_clipping", "keras_recurrent_layers", "retrieval_top_k"}


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_keras_model_and_signal_programs_match_tnp(program):
    same_as_tnp(program, program.__name__, fallbacks=program.__name__ in FALLBACKS,
                precision="float32")
