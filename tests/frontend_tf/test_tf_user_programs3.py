"""Bugs found by running a third round of tnp + TensorFlow user programs
(see test_tf_programs.py for the format): each case runs eagerly (tnp, tf)
and lazily (lnp, lazytensor.tf) and must give the same values, dtypes and
shapes."""

from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp

RNG = np.random.default_rng(5)
X = RNG.normal(size=(16, 3)).astype(np.float32)
LABELS = (X[:, 0] + X[:, 1] > 0).astype(np.float32)


def logistic_regression_from_zeros(np_, t):
    """Zero weights put every logit at 0, the kink of the stable formula:
    TensorFlow's gradient there is sigmoid(0) - z (lazily it was -z)."""
    w = t.Variable(tf.zeros((3, 1)))
    b = t.Variable(tf.zeros((1,)))
    x, y = np_.asarray(X), np_.asarray(LABELS)[:, None]
    losses = []
    for _ in range(3):
        with t.GradientTape() as tape:
            logits = tf.matmul(x, w) + b
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        losses.append(loss)
    return [tf.stack(losses), w.read_value(), b.read_value()]


def test_sigmoid_cross_entropy_gradient_at_zero_logits_matches_tf():
    assert_same(logistic_regression_from_zeros(lnp, ltf), logistic_regression_from_zeros(tnp, tf))


def sigmoid_losses_at_kinks(np_, t):
    x = t.Variable(np.array([0.0, 0.0, 0.0, -1.5, 2.0], np.float32))
    z = np_.asarray([0.0, 1.0, 0.5, 1.0, 0.0], dtype=np_.float32)
    with t.GradientTape(persistent=True) as tape:
        plain = tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
        weighted = tf.nn.weighted_cross_entropy_with_logits(labels=z, logits=x, pos_weight=3.0)
        totals = [tf.reduce_sum(plain), tf.reduce_sum(weighted)]
    return [plain, weighted, *(tape.gradient(v, x) for v in totals)]


def test_logistic_loss_gradients_at_zero_match_tf():
    assert_same(sigmoid_losses_at_kinks(lnp, ltf), sigmoid_losses_at_kinks(tnp, tf))


def values_the_tape_did_not_record(np_, t):
    """What ``stop_recording`` computes, and what is computed after the tape,
    are constants to it: their own gradients are None, and a recorded value
    made from them differentiates only through the recorded ops."""
    w = t.Variable(2.0)
    with t.GradientTape(persistent=True) as tape:
        y = w * w
        with tape.stop_recording():
            scale = y * 3.0
        r = scale * w
    after = y * 2.0
    grads = [tape.gradient(v, w) for v in (after, scale, r, y)]
    return [np_.asarray([g is None for g in grads]), grads[2], grads[3],
            tape.jacobian(after, w, unconnected_gradients=tf.UnconnectedGradients.ZERO)]


def test_unrecorded_values_are_constants_to_the_tape():
    # lazily the gradients flowed through them (8, 12 and 36 where TF has None, None, 12)
    assert_same(values_the_tape_did_not_record(lnp, ltf), values_the_tape_did_not_record(tnp, tf))


def sizes_from_tf_shape(np_, t):
    """``tf.shape(x)[0]`` is a lazy scalar for a lazy x; TensorFlow APIs that
    take it as a size or inside a shape list must accept it as they accept
    an eager one (tf.eye raised TypeError, tf.random.normal([n, 2]) a
    ValueError from TensorFlow's list converter)."""
    x = np_.ones((3, 4), dtype=np_.float32)
    n, m = tf.shape(x)[0], tf.shape(x)[1]
    tf.random.set_seed(3)
    noise = [tf.random.normal([n, 2], seed=1), tf.random.uniform((n,), seed=2),
             tf.random.uniform([m], maxval=9, dtype=tf.int32, seed=3)]
    return [tf.eye(n), tf.eye(n, m, dtype=tf.int32), tf.eye(2, n, batch_shape=[2]),
            tf.linalg.eye(m, dtype=tf.float64) @ tf.ones((4, 1), tf.float64),
            tf.convert_to_tensor([n, 2]), tf.convert_to_tensor(((n, 1), (m, 2))), *noise]


def test_lazy_sizes_are_accepted_where_tensorflow_takes_sizes():
    assert_same(sizes_from_tf_shape(lnp, ltf), sizes_from_tf_shape(tnp, tf))


def test_tf_eye_of_a_bad_lazy_size_raises_as_tensorflow():
    for np_ in (tnp, lnp):
        n = tf.shape(np_.ones((3, 4)))
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.eye(n[0] - 4)
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.eye(n)


def print_every_step_without_sync(np_, t):
    """``float(loss)`` each step, no ``sync``: the barrier runs the variable's
    pending update; its old buffer was donated although the tape's graph
    still named it, and the third step raised "Array has been deleted"."""
    w = t.Variable(5.0)
    v = t.Variable(np.ones(3, np.float32))
    x = np_.asarray([1.0, 2.0, 3.0], dtype=np_.float32)
    losses = []
    for _ in range(5):
        with t.GradientTape() as tape:
            loss = (w - 1.0) ** 2 + np_.sum((v * x - 1.0) ** 2)
            losses.append(float(loss))  # a barrier inside the tape too
        gw, gv = tape.gradient(loss, [w, v])
        losses.append(float(loss))
        w.assign_sub(0.1 * gw)
        v.assign_sub(0.01 * gv)
    return [np_.asarray(losses, dtype=np_.float32), w.read_value(), v.read_value()]


def test_barriers_between_steps_keep_the_tapes_buffers():
    assert_same(print_every_step_without_sync(lnp, ltf), print_every_step_without_sync(tnp, tf))


def variable_read_before_an_inner_tape(np_, t):
    """An outer tape reads w, then an inner tape starts and reads it again:
    what was computed before the inner tape is a constant to it (TF: 4), the
    outer tape differentiates through both reads (8); the inner tape's
    gradient was None lazily (it never watched w)."""
    w = t.Variable(2.0)
    x = t.Variable(3.0)
    with t.GradientTape(persistent=True) as outer:
        h = w * 2.0
        with t.GradientTape(persistent=True) as inner:
            y = h * w
        with t.GradientTape(watch_accessed_variables=False) as late:
            u = w * x
            late.watch(w)
            v = u * w
    return [inner.gradient(y, w), outer.gradient(y, w), late.gradient(v, w),
            outer.gradient(v, [w, x])]


def test_inner_tapes_watch_variables_read_before_they_started():
    assert_same(variable_read_before_an_inner_tape(lnp, ltf),
                variable_read_before_an_inner_tape(tnp, tf))


def values_after_an_inner_tape_exits(np_, t):
    """Ops that only the outer tape records (after the inner one exited) are
    not the inner tape's: its gradients of them are None (lazily the inner
    tape differentiated them: 12 and 5)."""
    w = t.Variable(2.0)
    with t.GradientTape(persistent=True) as outer:
        with t.GradientTape(persistent=True) as inner:
            y = w * w
        z = y * 3.0
        q = w * 5.0
    recorded = [inner.gradient(v, w) for v in (z, q)]
    return [np_.asarray([g is None for g in recorded]), inner.gradient(y, w),
            outer.gradient(z, w), outer.gradient(q, w)]


def test_inner_tape_does_not_see_ops_after_it_exits():
    assert_same(values_after_an_inner_tape_exits(lnp, ltf),
                values_after_an_inner_tape_exits(tnp, tf))
