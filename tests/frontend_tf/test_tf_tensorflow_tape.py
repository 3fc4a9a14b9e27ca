"""TensorFlow's own tf.GradientTape and ForwardAccumulator over lazy arrays and
variables, as over tnp arrays. Each check runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes and shapes,
or the exception type."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, tf, tnp


def _watched(np_):
    with tf.GradientTape() as t:
        x, y = np_.asarray(3.0), np_.asarray([2.0, -1.0])
        t.watch([x, y])
        out = [2 * x * np_.sum(y), np_.square(y)]
    return out + list(t.gradient(out, [x, y]))


def _jacobians(np_):
    with tf.GradientTape(persistent=True) as g:
        x = np_.asarray([[1.0, 2.0], [3.0, 4.0]])
        y = np_.asarray([[3.0, 4.0], [5.0, 6.0]])
        g.watch(x)
        g.watch(y)
        z = x * x * y
    return [*g.jacobian(z, [x, y]), g.batch_jacobian(z, x), g.gradient(z, x)]


def _tf_variables(np_):
    """tf.Variables read by tnp code inside tf.GradientTape: a training step."""
    w = tf.Variable(np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2))
    b = tf.Variable(np.zeros((2,), np.float32))
    x = np_.asarray(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    losses = []
    for _ in range(3):
        with tf.GradientTape() as t:
            loss = np_.mean(np_.square(np_.tanh(np_.matmul(x, w) + b) - 0.5))
        gw, gb = t.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        losses.append(loss)
    return [np_.stack(losses), w, b, gw, gb]


def _forward(np_):
    x, xt = np_.asarray([1.0, 2.0]), np_.asarray([3.0, 4.0])
    b = np_.asarray([[0.5, -1.0], [2.0, 0.25]])
    with tf.autodiff.ForwardAccumulator(x, xt) as acc:
        y = x * 2.0
        w = np_.sin(x) * np_.sum(x * x)
        m = np_.matmul(b, np_.tanh(x)[:, None])
    z = np_.asarray([1.0])
    return [acc.jvp(y), acc.jvp([w, m]), acc.jvp(x), acc.jvp(z, unconnected_gradients="zero")]


def _hessian_vector_product(np_):
    x, v = np_.asarray([1.0, 2.0, 0.5]), np_.asarray([0.3, -1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = np_.sum(np_.exp(x) * x[::-1])
        g = tape.gradient(y, x)
    return [g, acc.jvp(g)]


def _watched_tf_tensor(np_, tape_cls=tf.GradientTape):
    x = tf.constant([3.0, 1.0])
    with tape_cls(persistent=True) as t:
        t.watch(x)
        h = tf.exp(x)
        y = np_.sum(np_.square(x) * np_.asarray([1.0, 2.0]))
        z = np_.sum(np_.square(h) * np_.asarray([1.0, 2.0]))
    return [y, z, t.gradient(y, x), t.gradient(z, x), t.gradient([y, z], [x])]


def _gradient_norm_penalty(np_, tape_cls):
    w = tf.Variable(np.array([0.5, -1.0, 2.0], np.float32))
    x = np_.asarray(np.array([[1.0, 2.0, 0.5], [0.3, -0.2, 1.0]], np.float32))
    with tape_cls() as outer:
        with tape_cls() as inner:
            y = np_.sum(np_.sin(np_.matmul(x, w[:, None])) * np_.sum(w * w))
        g = inner.gradient(y, w)
        penalty = np_.sum(g * g)
    return [y, g, penalty, outer.gradient(penalty, w)]


def _mixed_variables(tape_cls, const, np_):
    """tf.Variables used directly and through TensorFlow-only ops (slicing a
    variable, tf.gather of it) beside lazy arrays."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    w = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 8)
    b = tf.Variable(np.zeros(2, np.float32))
    table = tf.Variable(np.arange(10, dtype=np.float32).reshape(5, 2))
    frozen = tf.Variable(2.0, trainable=False)
    with tape_cls(persistent=True) as tape:
        y = tf.matmul(const(x), w) + b
        z = np_.sum(np_.tanh(y) * w[0]) * frozen + tf.reduce_sum(
            tf.gather(table, [1, 1, 3]) * y[:1])
    out = [z, *tape.gradient(z, [w, b, frozen]), tape.gradient(y, w)]
    out.append(tf.convert_to_tensor(tape.gradient(z, table)))
    out += tape.gradient(z, [w, b], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return out


@pytest.mark.parametrize("program", [_watched, _jacobians, _tf_variables])
def test_tf_gradient_tape_differentiates_lazy_arrays_as_tnp(program):
    want = program(tnp)
    metrics.reset()
    got = program(lnp)
    if program is not _tf_variables:  # (gradients of tf.Variables are TensorFlow's tensors)
        assert all(isinstance(g, lnp.ndarray) for g in got)
    assert not metrics.as_dict()["fallbacks"]
    assert_same(got, want, program.__name__)


def test_tf_gradient_tape_unconnected_and_stopped_values_as_tnp():
    def run(np_):
        y = np_.asarray(2.0)
        with tf.GradientTape(persistent=True) as t:
            x = np_.asarray(3.0)
            t.watch(x)
            z = 2 * x
            with t.stop_recording():
                w = x * 5
        return t.gradient(z, y), t.gradient(w, x), t.gradient(z, x, unconnected_gradients="zero")

    want, got = run(tnp), run(lnp)
    assert want[0] is None and got[0] is None
    assert want[1] is None and got[1] is None
    assert_same(got[2], want[2])


def test_non_persistent_tf_tape_refuses_a_second_gradient_as_tensorflow():
    for np_ in (tnp, lnp):
        with tf.GradientTape() as t:
            x = np_.asarray(3.0)
            t.watch(x)
            z = x * x
        t.gradient(z, x)
        with pytest.raises(RuntimeError, match="non-persistent"):
            t.gradient(z, x)


def test_tf_tape_reset_forgets_what_it_recorded_as_tensorflow():
    def run(np_):
        with tf.GradientTape() as t:
            x = np_.asarray(2.0)
            t.watch(x)
            first = x * x
            t.reset()
            t.watch(x)
            second = x * x * x
        return t.gradient(first + second, x)

    assert_same(run(lnp), run(tnp))


def test_tf_tape_without_lazy_arrays_is_tensorflows():
    """A TensorFlow-only program gets TensorFlow's tensors and behaviour."""
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(v * v)
    g = t.gradient(loss, v)
    assert type(g) is type(tf.constant(1.0))
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    assert t.watched_variables() == (v,)
    with pytest.raises(RuntimeError):
        t.gradient(loss, v)


def test_keras_layer_on_a_lazy_batch_under_tf_tape_gets_gradients():
    """A Keras layer fed a lazy batch inside tf.GradientTape: the values cross
    between the lazy graph and TensorFlow's, and the gradients of the
    layer's weights are TensorFlow's, as with a TensorFlow batch."""
    def run(c):
        tf.keras.utils.set_random_seed(3)
        layer = tf.keras.layers.Dense(2)
        x = c(np.arange(6, dtype=np.float32).reshape(3, 2) / 4)
        layer.build((None, 2))
        with tf.GradientTape() as t:
            loss = tf.reduce_mean(tf.square(layer(x) - 1.0))
        return t.gradient(loss, layer.trainable_variables)

    want, got = run(tf.constant), run(lnp.asarray)
    assert all(g is not None for g in got)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=1e-5, atol=1e-6)


def test_lazy_variables_under_tf_tape_as_under_the_lazy_tape():
    def run(tape_cls):
        v = ltf.Variable(np.array([0.5, -1.5], np.float32))
        with tape_cls() as t:
            loss = lnp.sum(lnp.exp(v) * v)
        return t.gradient(loss, v)

    assert_same(run(tf.GradientTape), run(ltf.GradientTape))


@pytest.mark.parametrize("program", [_forward, _hessian_vector_product])
def test_forward_accumulator_over_lazy_arrays_as_tnp(program):
    want = program(tnp)
    got = program(lnp)
    flat = [x for v in got for x in (v if isinstance(v, list) else [v])]
    assert all(isinstance(x, lnp.ndarray) for x in flat)
    assert_same(got, want, program.__name__)


def test_forward_accumulator_unconnected_and_repeated_primals_as_tensorflow():
    for np_ in (tnp, lnp):
        x = np_.asarray([1.0, 2.0])
        with tf.autodiff.ForwardAccumulator(x, np_.asarray([1.0, 1.0])) as acc:
            pass
        assert acc.jvp(np_.asarray([3.0])) is None
        with pytest.raises(ValueError):
            tf.autodiff.ForwardAccumulator([x, x], [x, x])


@pytest.mark.parametrize("lazy_tape", ["tf", "lazytensor"])
def test_watched_tf_tensors_used_by_tnp_code_get_gradients_as_tnp(lazy_tape):
    """(lazytensor's own tape raised ValueError for a tf.Tensor to watch.)"""
    tape_cls = tf.GradientTape if lazy_tape == "tf" else ltf.GradientTape
    want, got = _watched_tf_tensor(tnp), _watched_tf_tensor(lnp, tape_cls)
    assert type(got[2]) is type(want[2])  # a tf.Tensor, as TensorFlow's
    assert_same(got, want)


def test_lazy_jacobian_with_respect_to_a_tf_tensor_raises_clearly():
    x = tf.constant([3.0, 1.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = lnp.square(x)
    with pytest.raises(NotImplementedError, match="jacobian"):
        t.jacobian(y, x)


@pytest.mark.parametrize("lazy_tape", ["tf", "lazytensor"])
def test_second_order_gradients_of_tf_variables_read_by_tnp_code(lazy_tape):
    want = _gradient_norm_penalty(tnp, tf.GradientTape)
    got = _gradient_norm_penalty(lnp, tf.GradientTape if lazy_tape == "tf" else ltf.GradientTape)
    assert got[3] is not None
    assert_same(got[2:], want[2:], precision="float32")
    np.testing.assert_allclose(np.asarray(got[1]), want[1].numpy(), rtol=2e-5, atol=2e-5)


def test_tf_variables_beside_lazy_arrays_get_tensorflows_gradients():
    want = _mixed_variables(tf.GradientTape, tf.constant, tnp)
    got = _mixed_variables(ltf.GradientTape, lnp.asarray, lnp)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if w is None:
            assert g is None, f"result {i}"
        else:
            assert_same(g, w, f"result {i}")
