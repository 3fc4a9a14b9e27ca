"""Bugs found by round 11 (TensorFlow's own tnp tests through
ci/tf_conformance.py, and tnp programs written the way TF users write them).
Each case runs eagerly (tensorflow.experimental.numpy, tf.Variable) and
lazily (lazytensor.tf.numpy, lazytensor.tf.Variable) and must give the same
values, dtypes and shapes."""

from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, tf, tnp

# ------------------------------------------------ tf.Module's variables
# A tf.Module holding lazytensor Variables listed none of them in
# ``trainable_variables`` / ``variables`` (tf.Module looks for tf.Variable
# instances), so ``t.gradient(loss, m.trainable_variables)`` differentiated
# nothing and the model never trained.


def _module_step(np_, variable):
    class Affine(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = variable(np.full((3, 2), 0.5, np.float32), name="w")
            self.b = variable(np.zeros((2,), np.float32), name="b")
            self.frozen = variable(np.ones((2,), np.float32), trainable=False)

        def __call__(self, x):
            return (np_.matmul(x, self.w) + self.b) * self.frozen

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Affine(), Affine()]

    net = Net()
    x = np_.asarray(np.arange(6, dtype=np.float32).reshape(2, 3) / 6)
    with tf.GradientTape() as t:
        loss = np_.sum(np_.square(net.layers[1](np_.concatenate([net.layers[0](x), x[:, :1]],
                                                                 axis=1))))
    grads = t.gradient(loss, net.trainable_variables)
    for g, v in zip(grads, net.trainable_variables, strict=True):
        v.assign_sub(0.1 * g)
    counts = np_.asarray([len(net.trainable_variables), len(net.variables)])
    return [loss, counts, *[np_.asarray(v) for v in net.trainable_variables]]


def test_tf_module_lists_lazy_variables_as_tf_variables():
    want = _module_step(tnp, tf.Variable)
    metrics.reset()
    got = _module_step(lnp, ltf.Variable)
    assert not metrics.as_dict()["fallbacks"]
    assert_same(got, want, "tf.Module")


def test_tf_module_still_lists_tf_variables_and_skips_arrays():
    m = tf.Module()
    m.a, m.b, m.c = tf.Variable(1.0), ltf.Variable(2.0, trainable=False), lnp.ones(3)
    assert [v.name for v in m.trainable_variables] == ["Variable:0"]
    assert len(m.variables) == 2 and m.variables[1] is m.b


@pytest.mark.parametrize("trainable", [True, False])
def test_trainable_flag_decides_as_tensorflow(trainable):
    m = tf.Module()
    m.v = ltf.Variable(np.zeros(2, np.float32), trainable=trainable)
    assert len(m.trainable_variables) == int(trainable)
    assert len(m.non_trainable_variables) == int(not trainable)


# ------------------------------------------- Keras softmax/sigmoid outputs
# Keras' TensorFlow backend stores an activation's input on its output
# (``output._keras_logits = x``; its losses then compute from the logits):
# on a lazy array that raised AttributeError (no such slot), so a Keras
# layer with activation="softmax"/"sigmoid" on a lazy batch, and
# tf.keras.activations.softmax/sigmoid, crashed.


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


# --------------------------------------------- tf.Variable's name, sparse_read
# lazytensor Variables were named "w" where TensorFlow's are "w:0", and had no
# sparse_read (tf.Variable's row gather).


def test_variable_names_and_sparse_read_as_tensorflow():
    host = np.arange(12, dtype=np.float32).reshape(4, 3)
    for name in (None, "w"):
        kw = {} if name is None else {"name": name}
        assert ltf.Variable(host, **kw).name == tf.Variable(host, **kw).name
    metrics.reset()
    got = ltf.Variable(host).sparse_read(lnp.asarray([3, 0, 3]))
    assert not metrics.as_dict()["fallbacks"]
    assert_same(got, tf.Variable(host).sparse_read(tnp.asarray([3, 0, 3])), "sparse_read")


# ------------------------------------------------- fallback names
# A lazy array converted by a TensorFlow API wrapped by TensorFlow's
# weak-tensor decorator was counted as the fallback "tf
# weak_tensor_ops.wrapper" (the decorator's frame), which names no API: a
# Keras BatchNormalization's moving-statistics update (tf.Variable.assign of
# a lazy value) and tf.debugging.check_numerics said so. They now name the
# API, as other fallbacks do (tf.math.special.dawsn stands in for
# check_numerics, which is lowered since test_tf_user_programs15).


@pytest.mark.parametrize("case", ["batch_norm", "dawsn"])
def test_fallbacks_behind_weak_tensor_wrappers_name_the_api(case):
    x = np.random.default_rng(5).standard_normal((4, 3)).astype(np.float32)
    metrics.reset()
    if case == "batch_norm":
        want = tf.keras.layers.BatchNormalization()(tnp.asarray(x), training=True)
        got = tf.keras.layers.BatchNormalization()(lnp.asarray(x), training=True)
        expected = "tf resource_variable_ops.BaseResourceVariable.assign"
    else:
        want = tf.math.special.dawsn(tnp.asarray(x))
        got = tf.math.special.dawsn(lnp.asarray(x))
        expected = "tf special_math_ops.dawsn"
    fallbacks = metrics.as_dict()["fallbacks"]
    assert expected in fallbacks and not any("wrapper" in k for k in fallbacks), fallbacks
    assert_same(lnp.asarray(got), tnp.asarray(want), case, "float32")


# -------------------------------------- conversion to a requested dtype
# A lazy array converted to TensorFlow with a requested dtype was cast to it
# (tf.Variable.assign of a float64 value into a float32 tf.Variable, float
# partitions given to tf.dynamic_partition were truncated to int32), where a
# tf.Tensor (a tnp array) refuses: TensorFlow's conversion never casts.


@pytest.mark.parametrize("case", ["variable_assign", "float_to_int", "int64_to_int32"])
def test_conversion_to_another_dtype_raises_as_for_tnp_arrays(case):
    def run(np_):
        if case == "variable_assign":
            return tf.Variable(np.zeros(2, np.float32)).assign(np_.asarray([1.0, 2.0]))
        value = np_.asarray([0.7, 1.2]) if case == "float_to_int" else np_.asarray([0, 1])
        return tf.convert_to_tensor(value, dtype=tf.int32)

    with pytest.raises(ValueError, match="requested dtype"):
        run(tnp)
    with pytest.raises(ValueError, match="requested dtype"):
        run(lnp)


def test_conversion_to_its_own_dtype_still_works():
    x = lnp.asarray(np.arange(3, dtype=np.float32))
    assert_same(lnp.asarray(tf.convert_to_tensor(x, dtype=tf.float32)),
                tnp.asarray(np.arange(3, dtype=np.float32)), "same dtype")
    v = tf.Variable(np.zeros(3, np.float32))
    v.assign(x)
    np.testing.assert_array_equal(v.numpy(), np.arange(3, dtype=np.float32))
