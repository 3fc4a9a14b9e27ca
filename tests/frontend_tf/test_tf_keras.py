"""Keras on lazy arrays: layers and optimizers under the lazy tape,
softmax/sigmoid outputs, custom training loops. Each check runs eagerly
(tnp, tf) and lazily (lazytensor.tf.numpy, lazytensor.tf) and compares
values, dtypes and shapes, or the exception type."""


from __future__ import annotations

import functools

import lazytensor.tf as ltf
import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp


def _keras_probability_outputs(np_, V, T, c):
    tf.keras.utils.set_random_seed(11)
    rng = np.random.default_rng(11)
    x = c(rng.standard_normal((6, 4)).astype(np.float32))
    labels = c(np.eye(3, dtype=np.float32)[[0, 2, 1, 1, 0, 2]])
    soft = tf.keras.layers.Dense(3, activation="softmax")
    sig = tf.keras.layers.Dense(1, activation="sigmoid")
    with T() as t:
        probs, p1 = soft(x), sig(x)
        cce = tf.keras.losses.CategoricalCrossentropy()(labels, probs)
        bce = tf.keras.losses.BinaryCrossentropy()(labels[:, :1], p1)
        loss = cce + bce
    grads = t.gradient(loss, soft.trainable_weights + sig.trainable_weights)
    acts = [tf.keras.activations.softmax(x), tf.keras.activations.sigmoid(x)]
    return [probs, p1, cce, bce, *acts, *[c(g) for g in grads]]


def _keras_training(tape_cls, const, optimizer, steps=3):
    """A small Keras model (Conv2D, LayerNormalization, Dense) trained on
    lazy inputs with a Keras optimizer: losses, weights and last gradients."""
    tf.keras.utils.set_random_seed(0)
    x = np.random.default_rng(0).standard_normal((4, 5, 5, 2)).astype(np.float32)
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(3, 3, activation="relu"), tf.keras.layers.LayerNormalization(),
        tf.keras.layers.Flatten(), tf.keras.layers.Dense(4, activation="tanh"),
        tf.keras.layers.Dense(1)])
    model.build((None, 5, 5, 2))
    opt = optimizer()
    out = []
    for _ in range(steps):
        with tape_cls() as tape:
            loss = tf.reduce_mean(model(const(x)) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        out.append(loss)
    return out + [tf.convert_to_tensor(v) for v in model.trainable_variables] + list(grads)


def _keras_loop(tape_cls, const, compiled):
    """A Keras custom training loop (Dense, BatchNormalization, Adam, a
    metric), its step optionally a tf.function, fed lazy batches."""
    rng = np.random.default_rng(16)
    x = rng.standard_normal((12, 5)).astype(np.float32)
    y = rng.integers(0, 3, 12)
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Dense(3)])
    model.build((None, 5))
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = tf.keras.optimizers.Adam(0.01)
    accuracy = tf.keras.metrics.SparseCategoricalAccuracy()

    def step(xb, yb):
        with tape_cls() as tape:
            pred = model(xb, training=True)
            loss = loss_fn(yb, pred)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        accuracy.update_state(yb, pred)
        return loss

    step = tf.function(step) if compiled else step
    losses = [tf.convert_to_tensor(step(const(x[i:i + 4]), const(y[i:i + 4])))
              for i in range(0, 12, 4)]
    return losses + [tf.convert_to_tensor(v) for v in model.variables] + [
        accuracy.result(), tf.convert_to_tensor(model(const(x)))]


@pytest.mark.parametrize("tape", ["lazytensor", "tensorflow"])
def test_keras_softmax_and_sigmoid_outputs_of_lazy_batches(tape):
    want = _keras_probability_outputs(tnp, tf.Variable, tf.GradientTape, tf.constant)
    lazy_tape = ltf.GradientTape if tape == "lazytensor" else tf.GradientTape
    got = _keras_probability_outputs(lnp, ltf.Variable, lazy_tape, lnp.asarray)
    assert_same(got, want, "keras probabilities", "float32")


def test_keras_logits_slot_is_unset_until_keras_sets_it():
    x = lnp.ones((2, 3))
    assert not hasattr(x, "_keras_logits")
    assert tf.keras.activations.softmax(x)._keras_logits is x


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_keras_layers_and_optimizers_under_the_lazy_tape_match_tf(optimizer):
    """Keras layers called on lazy arrays computed lazily, but lazytensor's
    tape returned None for their weights (tf.Variables read in TensorFlow:
    silently wrong, and apply_gradients then raised 'No gradients provided').
    The tape now runs a TensorFlow tape beside it and chains the two, so the
    weights' gradients are TensorFlow's."""
    make = functools.partial(getattr(tf.keras.optimizers, optimizer), 0.05)
    want = _keras_training(tf.GradientTape, tf.constant, make)
    got = _keras_training(ltf.GradientTape, lnp.asarray, make)
    assert isinstance(got[0], ltf.Tensor)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_same(g, w, f"result {i}", precision="float16")


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "RMSprop"])
def test_keras_optimizers_update_lazy_variables_as_tf(optimizer):
    """Keras optimizers' apply_gradients on lazytensor Variables raised
    AttributeError ('_unique_id', then 'constraint'); they now update them
    as tf.Variables (the gradients are read back to TensorFlow: counted)."""
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 5

    def train(variable, tape_cls, const):
        w, b = variable(np.ones((3, 2), np.float32)), variable(np.zeros(2, np.float32))
        opt = getattr(tf.keras.optimizers, optimizer)(0.1)
        for _ in range(3):
            with tape_cls() as tape:
                loss = tf.reduce_mean((const(x) @ w + b) ** 2)
            opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b], strict=True))
        return [tf.convert_to_tensor(w), tf.convert_to_tensor(b)]

    assert_same(train(ltf.Variable, ltf.GradientTape, lnp.asarray),
                train(tf.Variable, tf.GradientTape, tf.constant))


@pytest.mark.parametrize("tape_kind", ["tf", "lazy"])
@pytest.mark.parametrize("compiled", [False, True])
def test_keras_custom_training_loop_on_lazy_batches_matches_tf(tape_kind, compiled):
    want = _keras_loop(tf.GradientTape, tf.constant, compiled)
    tape_cls = tf.GradientTape if tape_kind == "tf" else ltf.GradientTape
    got = _keras_loop(tape_cls, lnp.asarray, compiled)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_same(g, w, f"result {i}", precision="float16")
