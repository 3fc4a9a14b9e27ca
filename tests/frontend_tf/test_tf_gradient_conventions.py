"""Gradient conventions of TensorFlow's tape on lazy arrays: zero-safe
gradients (no_nan ops, sqrt/rsqrt, reciprocal), complex gradients, None
versus zero for unconnected values, IndexedSlices. Each check runs eagerly
(tnp, tf) and lazily (lazytensor.tf.numpy, lazytensor.tf) and compares
values, dtypes and shapes, or the exception type."""


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


def sigmoid_losses_at_kinks(np_, t):
    x = t.Variable(np.array([0.0, 0.0, 0.0, -1.5, 2.0], np.float32))
    z = np_.asarray([0.0, 1.0, 0.5, 1.0, 0.0], dtype=np_.float32)
    with t.GradientTape(persistent=True) as tape:
        plain = tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
        weighted = tf.nn.weighted_cross_entropy_with_logits(labels=z, logits=x, pos_weight=3.0)
        totals = [tf.reduce_sum(plain), tf.reduce_sum(weighted)]
    return [plain, weighted, *(tape.gradient(v, x) for v in totals)]


def masked_mean_and_entropy_gradients(np_, t):
    """A per-row masked mean (``divide_no_nan`` by a count that is 0 for an
    empty row) and an entropy term (``xlogy`` of probabilities with exact
    zeros), differentiated by a tape, as a user's loss is."""
    values = t.Variable(np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [3.0, 0.0, 1.0]], np.float32))
    counts = t.Variable(np.array([2.0, 0.0, 1.0], np.float32))
    probs = t.Variable(np.array([0.0, 0.25, 0.75], np.float32))
    with t.GradientTape() as tape:
        means = tf.math.divide_no_nan(tf.reduce_sum(values, axis=1), counts)
        entropy = -tf.reduce_sum(tf.math.xlogy(probs, probs))
        ratio = tf.reduce_sum(tf.math.xdivy(probs, probs * counts))
        inverse = tf.reduce_sum(tf.math.reciprocal_no_nan(counts))
        loss = tf.reduce_sum(means) + entropy + ratio + inverse
    return [loss, *tape.gradient(loss, [values, counts, probs])]


SAFE_GRADIENTS = {
    "sqrt": lambda x: tf.where(x > 0, tf.sqrt(x), tf.zeros_like(x)),
    "rsqrt": lambda x: tf.where(x > 0, tf.math.rsqrt(x), 0.0),
    "tnp_sqrt": lambda x: tf.where(x > 0, lnp.sqrt(x) if isinstance(x, ltf.Tensor)
                                   else tnp.sqrt(x), 0.0),
    "safe_norm": lambda x: tf.where(tf.reduce_sum(x * x) > 0, tf.sqrt(tf.reduce_sum(x * x)),
                                    0.0),
    "sqrt_of_square": lambda x: tf.where(x > 0, tf.sqrt(x * x), 0.0),
}


def _complex_gradients(variable, tape_cls, c):
    z = variable(np.array([1 + 1j, 2 - 0.5j], np.complex64))
    x = variable(np.array([0.5, -1.5], np.float32))
    with tape_cls(persistent=True) as tape:
        y = z * z * tf.complex(x, x)
        loss = tf.reduce_sum(tf.abs(y) ** 2) + tf.math.real(tf.reduce_sum(tf.exp(z)))
        spectrum = tf.signal.fft(y)
    out = [*tape.gradient(loss, [z, x]), *tape.gradient(spectrum, [z, x])]
    out += tape.gradient(y, [z, x], output_gradients=c(np.array([1j, 2 - 1j], np.complex64)))
    out += [tape.jacobian(y, z), tape.jacobian(y, x)]
    with tape_cls() as outer:
        with tape_cls() as inner:
            cube = tf.reduce_sum(tf.abs(z * z * z))
        g = inner.gradient(cube, z)
        norm = tf.reduce_sum(tf.math.real(g * tf.math.conj(g)))
    return [*out, g, outer.gradient(norm, z)]


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


def test_sigmoid_cross_entropy_gradient_at_zero_logits_matches_tf():
    assert_same(logistic_regression_from_zeros(lnp, ltf), logistic_regression_from_zeros(tnp, tf))


def test_logistic_loss_gradients_at_zero_match_tf():
    assert_same(sigmoid_losses_at_kinks(lnp, ltf), sigmoid_losses_at_kinks(tnp, tf))


def test_no_nan_ops_give_tensorflows_zero_gradients_under_a_tape():
    """``divide_no_nan`` by a zero count, ``xlogy``/``xdivy`` at x = 0 and
    ``reciprocal_no_nan`` of 0 gave NaN gradients (the unselected branch's
    inf times a zero cotangent) where TensorFlow's are 0, so one empty
    row turned every updated weight into NaN."""
    import lazytensor.tf as ltf

    assert_same(masked_mean_and_entropy_gradients(lnp, ltf),
                masked_mean_and_entropy_gradients(tnp, tf))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_tf_multiply_no_nan_gradient_where_y_is_zero(dtype):
    """``tf.math.multiply_no_nan``'s gradient with respect to y was 0 where
    y is 0; TensorFlow's is upstream * x there too (its MulNoNan gradient is
    mul_no_nan(x, upstream)). Values and d/dx were right already."""
    xs = np.array([1.5, -2.0, np.inf, 3.0, 0.5], dtype)
    ys = np.array([0.0, 0.0, 0.0, 2.0, -1.0], dtype)
    weights = np.arange(1, 6).astype(dtype)

    def step(tape_cls, variable, constant):
        x, y = variable(xs), variable(ys)
        with tape_cls() as tape:
            z = tf.math.multiply_no_nan(x, y)
            loss = tf.reduce_sum(z * constant(weights))
        return [z, *tape.gradient(loss, [x, y])]

    got = step(ltf.GradientTape, ltf.Variable, lnp.asarray)
    want = step(tf.GradientTape, tf.Variable, tf.constant)
    assert_same(got[:2], want[:2])
    # d/dy where y is 0 and x is finite: TensorFlow's x * upstream
    finite = np.isfinite(xs)
    np.testing.assert_allclose(got[2].numpy()[finite], want[2].numpy()[finite], rtol=1e-6)


@pytest.mark.parametrize("case", sorted(SAFE_GRADIENTS))
def test_sqrt_rsqrt_gradient_is_zero_where_the_incoming_gradient_is(case):
    """``tf.where(x > 0, tf.sqrt(x), 0)`` had a NaN gradient at x <= 0 (the
    unselected branch's 0 * inf), where TensorFlow's SqrtGrad / RsqrtGrad
    give 0 for a zero incoming gradient; sqrt and rsqrt now record the
    core's ZERO_SAFE_GRAD, so the gradient is TensorFlow's (first and second
    order)."""
    fn = SAFE_GRADIENTS[case]
    data = np.array([-1.0, 0.0, 0.25, 4.0], np.float32)
    results = []
    for variable, tape in ((tf.Variable, tf.GradientTape), (ltf.Variable, ltf.GradientTape)):
        x = variable(data)
        with tape() as outer:
            with tape() as inner:
                y = tf.reduce_sum(fn(x))
            g = inner.gradient(y, x)
        results.append([y, g, outer.gradient(g, x)])
    assert isinstance(results[1][1], ltf.Tensor)
    assert_same(results[1], results[0])
    assert np.isfinite(results[1][1].numpy()).all()


def test_complex_gradients_follow_tensorflows_convention():
    """Gradients with respect to complex variables were the conjugates of
    TensorFlow's (d|z|^2/dz gave 2 conj(z), TensorFlow 2z: the core's VJP
    is JAX's convention), and a complex output_gradients was not conjugated;
    the tape now returns conj(VJP(conj(upstream))), TensorFlow's gradients
    (first order, jacobians, nested tapes)."""
    want = _complex_gradients(tf.Variable, tf.GradientTape, tf.constant)
    got = _complex_gradients(ltf.Variable, ltf.GradientTape, lnp.asarray)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_same(g, w, f"result {i}", precision="float32")


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
