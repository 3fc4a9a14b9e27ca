"""Bugs found by a seventh round of TensorFlow / tnp user programs: gradient
conventions of TensorFlow's tape (zero-safe reciprocal and norm, None for
sources reached only through ops TensorFlow does not differentiate), Keras,
tf.function and tf.data around lazy arrays, and small programs. Each case
runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy, with tf.* calls on
lazy arrays) and must give the same values, dtypes, shapes and error types."""

from __future__ import annotations

import functools

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, same_as_tnp, tf, tnp

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


# ------------------------------------------------- Keras and tf.Variables

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


def test_tf_variables_beside_lazy_arrays_get_tensorflows_gradients():
    want = _mixed_variables(tf.GradientTape, tf.constant, tnp)
    got = _mixed_variables(ltf.GradientTape, lnp.asarray, lnp)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if w is None:
            assert g is None, f"result {i}"
        else:
            assert_same(g, w, f"result {i}")


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


# ------------------------------------------------------------ tf.image

def _image(dtype=np.float32):
    img = np.random.default_rng(3).uniform(0, 1, (2, 6, 7, 3)).astype(np.float32)
    img[0, 0, :7] = [[0.5, 0.5, 0.5], [0.5, 0.5, 0.2], [0.2, 0.5, 0.5], [0.5, 0.2, 0.5],
                     [0, 0, 0], [1, 1, 0.3], [0.3, 1, 1]]  # ties between channels, grey, black
    return (img * 255).astype(dtype) if np.dtype(dtype).kind in "iu" else img.astype(dtype)


IMAGE_OPS = {
    "saturation_down": (lambda x: tf.image.adjust_saturation(x, 0.4), np.float32),
    "saturation_up": (lambda x: tf.image.adjust_saturation(x, 3.0), np.float32),
    "saturation_uint8": (lambda x: tf.image.adjust_saturation(x, 1.7), np.uint8),
    "saturation_float64": (lambda x: tf.image.adjust_saturation(x, 0.5), np.float64),
    "hue": (lambda x: tf.image.adjust_hue(x, 0.2), np.float32),
    "hue_negative": (lambda x: tf.image.adjust_hue(x, -0.7), np.float32),
    "hue_full_turn": (lambda x: tf.image.adjust_hue(x, 1.0), np.float32),
    "hue_uint8": (lambda x: tf.image.adjust_hue(x, 0.33), np.uint8),
    "hue_3d": (lambda x: tf.image.adjust_hue(x[0], 0.5), np.float32),
    "sobel": (tf.image.sobel_edges, np.float32),
    "sobel_float64": (tf.image.sobel_edges, np.float64),
    "patches_valid": (lambda x: tf.image.extract_patches(x, [1, 3, 2, 1], [1, 2, 1, 1],
                                                         [1, 1, 1, 1], "VALID"), np.float32),
    "patches_same_dilated": (lambda x: tf.image.extract_patches(
        x, [1, 3, 3, 1], [1, 2, 3, 1], [1, 1, 2, 1], "SAME"), np.float32),
    "patches_empty": (lambda x: tf.image.extract_patches(x, [1, 7, 7, 1], [1, 1, 1, 1],
                                                         [1, 1, 1, 1], "VALID"), np.float32),
    "patches_uint8": (lambda x: tf.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1],
                                                         [1, 1, 1, 1], "SAME"), np.uint8),
    "crop_bilinear": (lambda x: tf.image.crop_and_resize(
        x, [[0.1, 0.2, 0.8, 0.9], [-0.2, 0.0, 1.3, 0.5], [0.5, 0.5, 0.5, 0.5]], [0, 1, 1],
        [4, 5]), np.float32),
    "crop_nearest_flipped": (lambda x: tf.image.crop_and_resize(
        x, [[0.1, 0.2, 0.8, 0.9], [0.9, 0.8, 0.1, 0.0]], [1, 0], [3, 3], method="nearest",
        extrapolation_value=-1.0), np.float32),
    "crop_one_pixel_uint8": (lambda x: tf.image.crop_and_resize(
        x, np.array([[0.1, 0.2, 0.8, 0.9]], np.float32), np.array([1], np.int32), [1, 1]),
        np.uint8),
}


@pytest.mark.parametrize("case", sorted(IMAGE_OPS))
def test_tf_image_filters_record_lazily(case):
    """tf.image.adjust_saturation / adjust_hue / sobel_edges / extract_patches
    / crop_and_resize of lazy images ran eagerly in TensorFlow (counted
    fallbacks); they are now TensorFlow's CPU kernels on core ops."""
    fn, dtype = IMAGE_OPS[case]
    img = _image(dtype)
    metrics.reset()
    got = fn(lnp.asarray(img))
    assert isinstance(got, ltf.Tensor)
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert_same(got, fn(tf.constant(img)), precision="float16" if dtype == np.uint8 else "float32")


@pytest.mark.parametrize("case", ["saturation_float16", "hue_float16", "crop_bad_index",
                                  "crop_empty_size", "patches_bad_sizes"])
def test_tf_image_filters_errors_as_tensorflow(case):
    img = _image()
    fn = {
        "saturation_float16": lambda x: tf.image.adjust_saturation(tf.cast(x, tf.float16), 0.5),
        "hue_float16": lambda x: tf.image.adjust_hue(tf.cast(x, tf.float16), 0.5),
        "crop_bad_index": lambda x: tf.image.crop_and_resize(x, [[0.0, 0.0, 1.0, 1.0]], [2],
                                                             [2, 2]),
        "crop_empty_size": lambda x: tf.image.crop_and_resize(x, [[0.0, 0.0, 1.0, 1.0]], [0],
                                                              [0, 2]),
        "patches_bad_sizes": lambda x: tf.image.extract_patches(x, [2, 2, 2, 1], [1, 1, 1, 1],
                                                                [1, 1, 1, 1], "VALID"),
    }[case]
    errors = []
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(Exception) as info:  # noqa: PT011  (the type is compared below)
            fn(const(img))
        errors.append(type(info.value))
    assert errors[0] is errors[1]


# ------------------------------------------- read-backs inside an operation

READ_BACK = {  # ops whose result size is read back (a barrier) before the rest is built
    "bincount": (lambda x: tf.math.bincount(x, minlength=3), np.int32),
    "bincount_weights": (lambda x: tf.math.bincount(x, weights=tf.cast(x, tf.float32) * 0.5),
                         np.int32),
    "confusion_matrix": (lambda x: tf.math.confusion_matrix(x, x[::-1]), np.int32),
    "sequence_mask": (lambda x: tf.sequence_mask(x), np.int32),
    "segment_sum": (lambda x: tf.math.segment_sum(tf.cast(x, tf.float32), x), np.int32),
    "boolean_mask": (lambda x: tf.boolean_mask(x, x > 0.5), np.float32),
    "tnp_compress": (lambda x: (lnp if isinstance(x, ltf.Tensor) else tnp).compress(x > 0.5, x),
                     np.float32),
    "crop_and_resize": (lambda x: tf.image.crop_and_resize(
        tf.reshape(x, (1, 2, 2, 1)), [[0.0, 0.0, 1.0, 1.0]], [0], [3, 3]), np.float32),
}


@pytest.mark.parametrize("case", sorted(READ_BACK))
def test_ops_that_read_back_keep_the_buffers_they_use(case):
    """tf.math.bincount of a value computed in a loop whose first input was
    reassigned (k-means: ``cent = unsorted_segment_mean(...)``) raised
    'Array has been deleted': the read-back inside the op (its size) ran a
    graph that donated the input's buffer, and the op then built on the
    node it had taken before. These ops take their inputs' nodes after the
    read-back now."""
    fn, dtype = READ_BACK[case]
    data = np.array([0, 1, 2, 2], dtype) if dtype == np.int32 else \
        np.array([0.25, 0.75, 1.0, 0.5], dtype)
    results = []
    for const in (tf.constant, lnp.asarray):
        x = const(data)
        y = x * 1  # pending on x's buffer
        x = None  # the buffer's only handle is gone: donatable
        results.append(fn(y))
    assert_same(results[1], results[0])


# ------------------------------------------------------- user programs


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


def _through_fallbacks(variable, tape_cls, const):
    """Gradients through TensorFlow APIs that run eagerly on lazy arrays
    (bicubic resize: a table's eager path; tf.linalg.sqrtm: TensorFlow
    converting the lazy arrays), twice in a row, into lazy code again, and
    with a TensorFlow-computed target."""
    rng = np.random.default_rng(14)
    x = variable(rng.standard_normal((1, 4, 4, 1)).astype(np.float32))
    m = variable(rng.standard_normal((3, 3)).astype(np.float32))
    with tape_cls(persistent=True) as tape:
        once = tf.image.resize(x * 2.0, [6, 6], method="bicubic")
        twice = tf.image.resize(tf.tanh(once) * 3.0, [3, 3], method="bicubic")
        loss = tf.reduce_sum(twice ** 2) + tf.reduce_sum(x)
        root = tf.linalg.sqrtm(tf.matmul(m, m, transpose_b=True) + tf.eye(3))
        spd = tf.reduce_sum(root)  # a TensorFlow tensor
        mixed = tf.reduce_sum(tf.sin(const(np.ones((3, 3), np.float32)) * root))
    return [loss, tape.gradient(loss, x), spd, tape.gradient(spd, m),
            tape.gradient(mixed, m), tape.gradient([loss, spd, mixed], [x, m])]


def test_gradients_flow_through_eager_fallbacks_as_tf():
    """A TensorFlow API that runs eagerly on lazy arrays (counted) cut the
    tape: the gradient through it was None, or only the lazy paths' part
    (silently wrong). The TensorFlow tape beside lazytensor's now watches the
    lazy arrays converted to TensorFlow, and gradients alternate between the
    two (nested fallbacks included)."""
    want = _through_fallbacks(tf.Variable, tf.GradientTape, tf.constant)
    got = _through_fallbacks(ltf.Variable, ltf.GradientTape, lnp.asarray)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_same(g, w, f"result {i}", precision="float32")


def _ctc(variable, tape_cls, const, labels, **kwargs):
    logits = variable(np.random.default_rng(15).standard_normal((7, 3, 5)).astype(np.float32))
    major = kwargs.pop("time_major", True)
    with tape_cls() as tape:
        x = logits if major else tf.transpose(logits, (1, 0, 2))
        loss = tf.nn.ctc_loss(const(np.array(labels, np.int32)), x,
                              label_length=const(np.array([3, 2, 3], np.int32)),
                              logit_length=const(np.array([7, 5, 4], np.int32)),
                              logits_time_major=major, **kwargs)
        total = tf.reduce_sum(loss)
    return [loss, tape.gradient(total, logits)]


CTC = {  # labels, keyword arguments
    "blank_0": ([[1, 2, 2], [3, 1, 0], [4, 4, 1]], {}),
    "blank_last": ([[1, 2, 2], [3, 1, 0], [4, 4, 1]], {"blank_index": 4}),
    "blank_minus_one": ([[1, 2, 2], [3, 1, 0], [0, 0, 1]], {"blank_index": -1}),
    "batch_major": ([[1, 2, 2], [3, 1, 0], [4, 4, 1]], {"time_major": False}),
}


@pytest.mark.parametrize("case", sorted(CTC))
def test_ctc_loss_records_lazily_as_tf(case):
    """tf.nn.ctc_loss of lazy logits ran eagerly in TensorFlow (counted), so
    its gradient under lazytensor's tape was None; dense labels now use the
    core's CTC recursion with TensorFlow's blank_index rotation."""
    labels, kwargs = CTC[case]
    want = _ctc(tf.Variable, tf.GradientTape, tf.constant, labels, **dict(kwargs))
    metrics.reset()
    got = _ctc(ltf.Variable, ltf.GradientTape, lnp.asarray, labels, **dict(kwargs))
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert isinstance(got[0], ltf.Tensor)
    assert_same(got, want, case, precision="float32")


def test_ctc_loss_of_an_impossible_alignment_is_tensorflows():
    """Labels that need more frames than given: TensorFlow's loss is a large
    finite number, the core's inf; such calls run in TensorFlow (counted)."""
    labels = [[1, 2, 2], [3, 1, 0], [4, 4, 4]]
    want = _ctc(tf.Variable, tf.GradientTape, tf.constant, labels)
    got = _ctc(ltf.Variable, ltf.GradientTape, lnp.asarray, labels)
    assert_same(got, want, precision="float32")


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


@pytest.mark.parametrize("tape_kind", ["tf", "lazy"])
@pytest.mark.parametrize("compiled", [False, True])
def test_keras_custom_training_loop_on_lazy_batches_matches_tf(tape_kind, compiled):
    want = _keras_loop(tf.GradientTape, tf.constant, compiled)
    tape_cls = tf.GradientTape if tape_kind == "tf" else ltf.GradientTape
    got = _keras_loop(tape_cls, lnp.asarray, compiled)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_same(g, w, f"result {i}", precision="float16")
