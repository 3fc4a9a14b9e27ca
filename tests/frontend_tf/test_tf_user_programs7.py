"""Bugs found by a seventh round of TensorFlow / tnp user programs: gradient
conventions of TensorFlow's tape (zero-safe reciprocal and norm, None for
sources reached only through ops TensorFlow does not differentiate), Keras,
tf.function and tf.data around lazy arrays, and small programs. Each case
runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy, with tf.* calls on
lazy arrays) and must give the same values, dtypes, shapes and error types."""

from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, tf, tnp

RNG = np.random.default_rng(7)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _both_tapes(fn, *arrays, persistent=False):
    """fn(tape, *variables) under tf.GradientTape with tf.Variables, and under
    lazytensor's tape with lazy Variables: (eager result, lazy result)."""
    out = []
    for variable, tape_cls in ((tf.Variable, tf.GradientTape), (ltf.Variable, ltf.GradientTape)):
        xs = [variable(a) for a in arrays]
        out.append(fn(tape_cls, *xs))
    return out


def _gradients(fn, *arrays):
    def run(tape_cls, *xs):
        with tape_cls() as tape:
            y = fn(*xs)
        return [y, *tape.gradient(y, list(xs))]

    return _both_tapes(run, *arrays)


def _assert_gradients(got, want):
    """Same values (None where TensorFlow's gradient is None)."""
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if w is None:
            assert g is None, f"result {i}: {g} where TensorFlow gives None"
        else:
            assert g is not None, f"result {i}: None where TensorFlow gives {w}"
            assert_same(g, w, f"result {i}")


# ----------------------------------------------------------- zero-safe grads

ZERO_SAFE = {
    "reciprocal": lambda x: tf.reduce_sum(tf.where(x != 0, tf.math.reciprocal(x), 0.0)),
    "tnp_reciprocal": lambda x: tf.reduce_sum(tf.where(
        x != 0, (lnp if isinstance(x, ltf.Tensor) else tnp).reciprocal(x), 0.0)),
    "norm": lambda x: tf.where(tf.reduce_all(x == 0), 0.0, tf.norm(x)),
    "norm_ord2": lambda x: tf.where(tf.reduce_all(x == 0), 0.0, tf.norm(x, ord=2)),
    "norm_fro": lambda x: tf.where(tf.reduce_all(x == 0), 0.0,
                                   tf.norm(tf.reshape(x, (2, 2)), axis=[0, 1])),
    "norm_axis": lambda x: tf.reduce_sum(tf.where(
        tf.reduce_all(tf.reshape(x, (2, 2)) == 0, axis=1), 0.0,
        tf.norm(tf.reshape(x, (2, 2)), axis=1))),
}


@pytest.mark.parametrize("data", [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, -4.0]])
@pytest.mark.parametrize("case", sorted(ZERO_SAFE))
def test_reciprocal_and_norm_gradients_are_zero_where_the_incoming_gradient_is(case, data):
    """``tf.where(x != 0, tf.math.reciprocal(x), 0)`` and ``tf.where(all
    zero, 0, tf.norm(x))`` had NaN gradients where x is 0 (JAX's 0 * inf on
    the unselected side), where TensorFlow's ReciprocalGrad and SqrtGrad give
    0 for a zero incoming gradient. Reciprocal now records the core's
    ZERO_SAFE_GRAD of the division 1 / x, and the euclidean norms TensorFlow's
    sqrt(sum(x * conj(x))) with the zero-safe square root."""
    want, got = _gradients(ZERO_SAFE[case], np.array(data, np.float32))
    _assert_gradients(got, want)
    assert np.isfinite(got[1].numpy()).all()


def test_reciprocal_second_order_and_complex_gradients_match_tf():
    data = np.array([0.5, -2.0, 4.0], np.float32)

    def second(tape_cls, x):
        with tape_cls() as outer:
            with tape_cls() as inner:
                y = tf.reduce_sum(tf.math.reciprocal(x))
            g = inner.gradient(y, x)
        return [y, g, outer.gradient(g, x)]

    want, got = _both_tapes(second, data)
    _assert_gradients(got, want)
    z = np.array([1 + 1j, 2j, 0.5], np.complex64)
    want, got = _gradients(lambda v: tf.reduce_sum(tf.math.real(tf.math.reciprocal(v))), z)
    _assert_gradients(got, want)


# ------------------------------------------- gradients TensorFlow gives None

def _np(x):
    return lnp if isinstance(x, ltf.Tensor) else tnp


NOT_DIFFERENTIABLE = {  # TensorFlow's gradient is None: the only path is not differentiated
    "floor": tf.floor, "ceil": tf.math.ceil, "round": tf.round, "rint": tf.math.rint,
    "tnp_floor": lambda x: _np(x).floor(x), "tnp_ceil": lambda x: _np(x).ceil(x),
    "tnp_round": lambda x: _np(x).round(x), "tnp_around_1": lambda x: _np(x).around(x, 1),
    "tnp_fix": lambda x: _np(x).fix(x), "floordiv": lambda x: tf.math.floordiv(x, 2.0),
    "floordiv_operator": lambda x: x // 2.0, "truncatediv": lambda x: tf.truncatediv(x, 2.0),
    "stop_gradient": tf.stop_gradient,
    "cast_through_int": lambda x: tf.cast(tf.cast(x, tf.int32), tf.float32),
    "where_of_constants": lambda x: _np(x).where(x > 0, 1.0, 0.0),
    "heaviside": lambda x: _np(x).heaviside(x, 0.5),
    "floor_times_floor": lambda x: tf.floor(x) * tf.floor(x),
    "round_scaled": lambda x: tf.round(x * 10.0) / 10.0,
}
CONNECTED = {  # zeros or values: another path is differentiated
    "floor_plus_x": lambda x: tf.floor(x) + x,
    "sign": tf.sign, "tnp_sign": lambda x: _np(x).sign(x),
    "stop_gradient_plus_zero_x": lambda x: tf.stop_gradient(x) + 0.0 * x,
    "floormod": lambda x: tf.math.floormod(x, 2.0), "mod_operator": lambda x: x % 2.0,
    "clip_outside": lambda x: tf.clip_by_value(x, 10.0, 20.0),
    "relu": tf.nn.relu, "sort": tf.sort,
}


@pytest.mark.parametrize("case", sorted({**NOT_DIFFERENTIABLE, **CONNECTED}))
def test_gradient_is_none_only_where_tensorflow_does_not_differentiate(case):
    """Floor, Ceil, Round, Rint, FloorDiv, TruncateDiv, StopGradient and
    integer casts have no gradient in TensorFlow: a source reached only
    through them gets None from ``tape.gradient``; the lazy tape gave zeros
    (the core's derivative). Sources with another differentiated path still
    get their gradient (zeros where that path's is zero)."""
    fn = {**NOT_DIFFERENTIABLE, **CONNECTED}[case]
    data = np.array([0.3, 2.6, -1.5], np.float32)
    y = np.array([1.0, 2.0, 3.0], np.float32)
    want, got = _gradients(lambda x, w: tf.reduce_sum(fn(x)) + tf.reduce_sum(w * w), data, y)
    assert (want[1] is None) == (case in NOT_DIFFERENTIABLE)
    _assert_gradients(got, want)


def test_unconnected_zero_and_jacobian_of_non_differentiable_paths():
    data = np.array([0.3, 2.6, -1.5], np.float32)

    def run(tape_cls, x):
        with tape_cls(persistent=True) as tape:
            y = tf.floor(x) * 2.0
            s = tf.reduce_sum(y)
        return [tape.gradient(s, x, unconnected_gradients=tf.UnconnectedGradients.ZERO),
                tape.gradient(s, x), tape.gradient(s, y)]

    want, got = _both_tapes(run, data)
    _assert_gradients(got, want)


# ------------------------------------------------------------ tf.function

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
