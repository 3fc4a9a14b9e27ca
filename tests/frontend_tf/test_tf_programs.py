"""Ordinary tf.experimental.numpy programs, written the way tnp users write
them, run eagerly (tnp, tf.GradientTape, tf.Variable) and lazily
(lazytensor.tf.numpy, lazytensor.tf.GradientTape / Variable): the same
values, dtypes and shapes.

Each program is a function ``program(np_, t)`` where ``np_`` is tnp or lnp
and ``t`` is ``tf`` or ``lazytensor.tf`` (for GradientTape and Variable only;
programs that mix in real TensorFlow ops call ``tf`` directly, as users do).
numpy behaviour is on here (conftest, as tnp's documentation asks); the
programs that matter without it run in a subprocess at the end.
"""

from __future__ import annotations

import json
import subprocess
import sys

import lazytensor.tf as ltf
import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp

RNG = np.random.default_rng(7)
X = RNG.normal(size=(32, 3)).astype(np.float32)
TRUE_W = np.array([[1.5], [-2.0], [0.5]], np.float32)
Y = (X @ TRUE_W + 0.3 + 0.05 * RNG.normal(size=(32, 1))).astype(np.float32)
LABELS = (X[:, 0] + X[:, 1] > 0).astype(np.int64)


def both(program):
    """``program`` with tnp/tf (eager) and lnp/lazytensor.tf (lazy)."""
    return program(tnp, tf), program(lnp, ltf)


def check(program, precision: str | None = None) -> None:
    want, got = both(program)
    assert_same(got, want, program.__name__, precision)


# ------------------------------------------------------------------ training
def linear_regression(np_, t):
    w, b = t.Variable(np.zeros((3, 1), np.float32)), t.Variable(np.zeros(1, np.float32))
    x, y = np_.asarray(X), np_.asarray(Y)
    losses = []
    for _ in range(5):
        with t.GradientTape() as tape:
            loss = np_.mean((x @ w + b - y) ** 2)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * dw)
        b.assign_sub(0.1 * db)
        losses.append(float(loss))
    return [np_.asarray(losses, dtype=np_.float32), w.read_value(), b.read_value()]


def logistic_regression(np_, t):
    w = t.Variable(np.zeros((3,), np.float32))
    b = t.Variable(0.0, dtype=np.float32)
    x, y = np_.asarray(X), np_.asarray(LABELS).astype(np_.float32)
    for _ in range(4):
        with t.GradientTape() as tape:
            p = 1.0 / (1.0 + np_.exp(-(np_.dot(x, w) + b)))
            p = np_.clip(p, 1e-6, 1 - 1e-6)
            loss = -np_.mean(y * np_.log(p) + (1 - y) * np_.log1p(-p))
        gw, gb = tape.gradient(loss, (w, b))
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
    accuracy = np_.mean(((np_.dot(x, w) + b) > 0) == (y > 0.5))
    return [loss, w.read_value(), accuracy]


def softmax_classifier(np_, t):
    k = 2
    w = t.Variable(RNG_W.astype(np.float32))
    x, labels = np_.asarray(X), np_.asarray(LABELS)
    onehot = np_.eye(k, dtype=np_.float32)[labels]
    with t.GradientTape() as tape:
        logits = np_.matmul(x, w)
        logits = logits - np_.max(logits, axis=-1, keepdims=True)
        log_probs = logits - np_.log(np_.sum(np_.exp(logits), axis=-1, keepdims=True))
        loss = -np_.sum(onehot * log_probs) / x.shape[0]
    grad = tape.gradient(loss, w)
    predictions = np_.argmax(log_probs, axis=1)
    picked = np_.take_along_axis(log_probs, labels[:, None], axis=1)
    return [loss, grad, predictions, np_.mean(predictions == labels), picked]


RNG_W = np.random.default_rng(1).normal(size=(3, 2))


# ------------------------------------------------------------- numeric code
def kmeans_step(np_, t):
    points = np_.asarray(X[:, :2])
    centroids = np_.asarray(X[:3, :2])
    for _ in range(2):
        distances = np_.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
        assign = np_.argmin(distances, axis=1)
        new = []
        for j in range(3):
            mask = (assign == j)[:, None]
            count = np_.maximum(np_.sum(mask.astype(np_.float32)), 1.0)
            new.append(np_.sum(np_.where(mask, points, 0.0), axis=0) / count)
        centroids = np_.stack(new)
    inertia = np_.sum(np_.min(distances, axis=1))
    return [centroids, assign, inertia]


def stable_logsumexp(np_, t):
    x = np_.asarray([[1000.0, 1001.0, 999.0], [-5.0, 0.0, 5.0]], dtype=np_.float32)
    m = np_.max(x, axis=-1, keepdims=True)
    lse = np_.squeeze(m, -1) + np_.log(np_.sum(np_.exp(x - m), axis=-1))
    naive = np_.log(np_.sum(np_.exp(x), axis=-1))  # overflows in the first row
    return [lse, naive, np_.isfinite(naive)]


def batch_norm_by_hand(np_, t):
    x = np_.asarray(X * 3.0 + 1.0)
    gamma, beta = np_.ones(3, dtype=np_.float32) * 2.0, np_.zeros(3, dtype=np_.float32)
    mean = np_.mean(x, axis=0)
    var = np_.var(x, axis=0)
    y = (x - mean) / np_.sqrt(var + 1e-5) * gamma + beta
    running = 0.9 * np_.zeros(3, dtype=np_.float32) + 0.1 * mean
    return [y, np_.std(y, axis=0), running, np_.mean(y, axis=0)]


def pairwise_distances(np_, t):
    a, b = np_.asarray(X[:5]), np_.asarray(X[5:9])
    direct = np_.sqrt(np_.sum((a[:, np_.newaxis, :] - b[np_.newaxis, :, :]) ** 2, axis=-1))
    sq_a, sq_b = np_.sum(a * a, axis=1), np_.sum(b * b, axis=1)
    gram = np_.sqrt(np_.maximum(sq_a[:, None] + sq_b[None, :] - 2 * a @ b.T, 0.0))
    nearest = np_.argmin(direct, axis=1)
    return [direct, gram, nearest, np_.allclose(direct, gram, atol=1e-4)]


def sorting_pipeline(np_, t):
    scores = np_.asarray(X[:, 0])
    order = np_.argsort(scores)[::-1]
    top3 = np_.take(scores, order[:3])
    ranked = np_.sort(scores)
    running = np_.cumsum(ranked)
    steps = np_.diff(ranked)
    best = np_.argmax(running > 0)
    return [order, top3, running, steps, best, np_.cumprod(np_.flip(ranked[:4]))]


def boolean_masks(np_, t):
    x = np_.asarray(X)
    positive = x > 0
    counts = np_.count_nonzero(positive, axis=0)
    relu = np_.where(positive, x, 0.0)
    rows_all = np_.all(positive, axis=1)
    any_neg = np_.any(~positive)
    fraction = np_.mean(positive.astype(np_.float32))
    clipped = x * (np_.abs(x) < 1.0)
    return [counts, relu, rows_all, any_neg, fraction, clipped]


def boolean_mask_indexing(np_, t):
    x = np_.asarray(X[:8, 0])
    return [x[x > 0], np_.sum(x[x > 0])]


def one_hot_confusion_matrix(np_, t):
    labels = np_.asarray(LABELS)
    predictions = np_.asarray((X[:, 0] > 0).astype(np.int64))
    eye = np_.eye(2, dtype=np_.int32)
    confusion = np_.matmul(eye[labels].T, eye[predictions])
    precision = confusion[1, 1] / np_.sum(confusion[:, 1])
    return [confusion, precision, np_.trace(confusion)]


# ------------------------------------------------- TensorFlow interoperation
def mixing_with_tf_ops(np_, t):
    x = np_.asarray(X) * 2.0
    as_tensor = tf.convert_to_tensor(x)  # a lazy array materializes into a tf.Tensor
    total = tf.reduce_sum(x, axis=0)
    relu = tf.nn.relu(x)
    back = np_.asarray(relu) + 1.0  # and a tf.Tensor comes back into the namespace
    return [as_tensor, total, back, np_.tanh(tf.constant([0.5, -0.5]))]


def python_observation(np_, t):
    x = np_.asarray(X)
    loss = np_.mean(x ** 2)
    steps = 0
    while float(loss) > 0.1 and steps < 50:  # Python control flow on values
        x = x * 0.8
        loss = np_.mean(x ** 2)
        steps += 1
    text = str(np_.round(loss, 3).numpy())
    print("loss", loss, "after", steps, "steps")
    return [np_.asarray(steps), np_.asarray(float(loss)), np_.asarray(int(np_.argmax(x[0]))),
            np_.asarray(bool(np_.any(x > 1.0))), np_.asarray(len(text) > 0), x[0].tolist()]


def attention_gradient(np_, t):
    q = np_.asarray(X[:4])
    k, v = np_.asarray(X[4:10]), np_.asarray(X[10:16] * 0.5)
    with t.GradientTape() as tape:
        tape.watch(q)
        scores = np_.einsum("qd,kd->qk", q, k) / np_.sqrt(float(q.shape[-1]))
        weights = np_.exp(scores - np_.max(scores, axis=-1, keepdims=True))
        weights /= np_.sum(weights, axis=-1, keepdims=True)
        out = weights @ v
        loss = np_.sum(np_.maximum(out, 0.0) ** 2)
    return [out, np_.sum(weights, axis=-1), tape.gradient(loss, q)]


def momentum_sgd_with_variables(np_, t):
    w = t.Variable(np.zeros((3, 1), np.float32))
    velocity = t.Variable(np.zeros((3, 1), np.float32), trainable=False)
    x, y = np_.asarray(X), np_.asarray(Y)
    for step in range(4):
        with t.GradientTape() as tape:
            residual = np_.matmul(x, w) - y
            loss = np_.mean(np_.square(residual)) + 0.01 * np_.sum(w * w)
        g = tape.gradient(loss, w)
        velocity.assign(0.9 * velocity + g)
        w.assign_sub(0.05 / (1 + step) * velocity)
    return [w.read_value(), velocity.read_value(), loss]


def class_weights(np_, t):
    labels = np_.asarray(LABELS)
    counts = np_.sum(np_.eye(3, dtype=np_.int32)[labels], axis=0)
    weights = 1.0 / np_.maximum(counts, 1).astype(np_.float32)
    per_sample = weights[labels]
    return [counts, per_sample, np_.sum(per_sample * np_.asarray(X[:, 0]))]


def tensor_methods_and_indexing(np_, t):
    x = np_.asarray(X[:6])
    flat = x.reshape(-1, 2).T.astype(np_.float64).ravel()
    picked = x[[0, 2, 5], 1:]  # fancy rows, sliced columns
    reversed_rows = x[::-1, ..., None]
    clipped = x.clip(-1.0, 1.0)
    shape_facts = np_.asarray([x.ndim, x.size, len(x), x.shape[0] * x.shape[1]])
    return [flat, picked, reversed_rows, clipped, shape_facts, x.transpose()[0].tolist()]


PROGRAMS = [
    linear_regression, logistic_regression, softmax_classifier, kmeans_step,
    stable_logsumexp, batch_norm_by_hand, pairwise_distances, sorting_pipeline,
    boolean_masks, boolean_mask_indexing, one_hot_confusion_matrix, mixing_with_tf_ops,
    python_observation, attention_gradient, momentum_sgd_with_variables,
    class_weights, tensor_methods_and_indexing,
]


# Programs whose float64 results pass through float32 arithmetic first carry
# float32's error: attention_gradient's scores are an einsum of float32
# values (a 3-term reduction whose rounding differs between CPUs' kernels)
# before the division by a Python float makes them float64.
PRECISION = {attention_gradient: "float32"}


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_tnp(program):
    check(program, PRECISION.get(program))


def test_seeded_random_programs_match_tnp():
    """A seeded program draws TensorFlow's own stream, so it matches tnp."""
    def program(np_):
        np_.random.seed(3)
        u = np_.random.uniform(-1.0, 1.0, size=(200,))
        n = np_.random.randn(100, 2)
        k = np_.random.randint(0, 5, size=(50,))
        noisy = np_.asarray(X) + 0.01 * np_.random.standard_normal(size=X.shape)
        return [u, n, k, noisy]

    want, got = program(tnp), program(lnp)
    for g, w in zip(got, want, strict=True):
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)


# programs in tnp's other global modes (each needs a fresh process)
MODE_SCRIPT = """
import json, sys
import numpy as onp
import tensorflow as tf
import tensorflow.experimental.numpy as tnp
import lazytensor.tf.numpy as lnp
if sys.argv[1] == "prefer_float32":
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)

def program(np_):
    x = np_.asarray([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])   # Python floats
    w = np_.ones((3, 2), dtype=np_.float32)
    h = np_.tanh(np_.matmul(np_.asarray(x, dtype=np_.float32), w))
    mean = np_.mean(h, axis=0)
    scaled = np_.multiply(h, 2.0)
    counts = np_.arange(4)
    ratio = np_.true_divide(counts, 2)
    steps = np_.linspace(0.0, 1.0, 5)
    return [x, h, mean, scaled, counts, ratio, steps, np_.sum(np_.square(x), axis=1)]

out = []
for np_ in (tnp, lnp):
    out.append([[v.dtype.name, list(v.shape), onp.asarray(v).tolist()] for v in program(np_)])
print(json.dumps(out))
"""


@pytest.mark.parametrize("mode", ["off", "prefer_float32"])
def test_program_in_other_modes(mode):
    """Without numpy behaviour (tnp functions only: tf.Tensor has no numpy
    operators then) and with prefer_float32 (Python floats are float32)."""
    run = subprocess.run([sys.executable, "-c", MODE_SCRIPT, mode], capture_output=True,
                         text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    want, got = json.loads(run.stdout.strip().splitlines()[-1])
    for w, g in zip(want, got, strict=True):
        assert g[:2] == w[:2], f"{mode}: dtype/shape {g[:2]} vs {w[:2]}"
        np.testing.assert_allclose(np.asarray(g[2], float), np.asarray(w[2], float),
                                   rtol=1e-5, atol=1e-6)
