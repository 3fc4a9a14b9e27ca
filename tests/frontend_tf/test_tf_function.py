"""tf.function around lazy code: tracing with lazy arguments and captured
variables, tensorflow values still traced. Each check runs eagerly (tnp, tf)
and lazily (lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes
and shapes, or the exception type."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, tf, tnp


def traced_functions(np_):
    """tf.function around tnp code: its arguments are graph tensors there,
    which tnp (lnp: by handing the op to tnp) and TensorFlow's ops trace."""
    x = np_.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    captured = np_.ones(3, dtype=np_.float32)

    @tf.function
    def f(a):
        h = np_.tanh(np_.matmul(a, np_.transpose(a)) / 10.0)
        return np_.sum(h * 2.0, axis=1) + tf.reduce_max(a * captured) + a[0, 1]

    @tf.function
    def g(a):
        return tf.reduce_sum(tf.nn.relu(captured * a - 2.0)) + np_.mean(captured)

    return [f(x), f(x + 1.0), g(x)]


def _function_program(variable, tape_cls, const):
    """tf.function called with lazy arrays, differentiated through, and one
    that closes over variables (a training step, a method)."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 5
    w = variable(np.ones((3, 2), np.float32))

    @tf.function
    def score(a, b):
        return tf.reduce_sum(a * b) + 1.0

    with tape_cls() as tape:
        y = score(w, const(np.ones((3, 2), np.float32)))
    out = [score(const(x), const(x)), y, tape.gradient(y, w)]

    @tf.function
    def step(batch):
        with tape_cls() as t:
            loss = tf.reduce_mean(tf.matmul(batch, w) ** 2)
        w.assign_sub(0.1 * t.gradient(loss, w))
        return loss

    out += [step(tf.constant(x)) for _ in range(3)] + [tf.convert_to_tensor(w)]

    class Scaled:
        def __init__(self):
            self.v = variable(np.float32(2.0))

        @tf.function
        def __call__(self, a):
            return a * self.v

    model = Scaled()
    out.append(model(const(x)))
    model.v.assign(3.0)
    out.append(model(const(x)))
    return out


def test_tf_function_around_lazy_code_traces_as_tnp():
    assert_same(traced_functions(lnp), traced_functions(tnp))


def test_tf_function_with_lazy_arguments_and_captured_variables_matches_tf():
    """A tf.function called with lazy arrays converted them (materialized,
    counted as a fallback) and traced TensorFlow's graph: lazytensor's tape
    saw nothing (gradient None where TensorFlow's is the gradient), and one
    that closes over a lazytensor Variable failed (its gradient None inside
    the trace) or froze the variable's value into its graph (later calls
    saw the old value). Such a function now runs its Python code on the lazy
    arrays, as with ``tf.config.run_functions_eagerly(True)``."""
    want = _function_program(tf.Variable, tf.GradientTape, tf.constant)
    metrics.reset()
    got = _function_program(ltf.Variable, ltf.GradientTape, lnp.asarray)
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert all(isinstance(g, ltf.Tensor) for g in got[:6] + got[-2:])
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_same(g, w, f"result {i}")


def test_tf_function_of_tensorflow_values_still_traces():
    calls = []

    @tf.function
    def f(a):
        calls.append(1)
        return a * 2.0

    for _ in range(3):
        out = f(tf.constant([1.0, 2.0]))
    assert len(calls) == 1 and isinstance(out, tf.Tensor)
