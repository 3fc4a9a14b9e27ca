"""NN composites shared by the torch frontend and TensorFlow's tf.nn
(activations, logistic/Poisson/sparse losses, moments, normalization,
batched layers, embedding), checked against numpy without any frontend."""

import math

import numpy as np
import pytest
from core_nodes import check, dev, run
from lazytensor.core.composite.nn import activations as act
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.core.composite.nn import layers, losses
from lazytensor.core.composite.nn import normalization as norm

RNG = np.random.default_rng(3)
X = RNG.standard_normal((4, 5)) * 3


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _erf(x):
    return np.vectorize(math.erf)(x)


@pytest.mark.parametrize("name, got, want", [
    ("selu", lambda x: act.selu(x),
     lambda x: act.SELU_SCALE * np.where(x > 0, x, act.SELU_ALPHA * np.expm1(x))),
    ("softsign", act.softsign, lambda x: x / (1 + np.abs(x))),
    ("silu", act.silu, lambda x: x * _sigmoid(x)),
    ("swish beta", lambda x: act.silu(x, 1.7), lambda x: x * _sigmoid(1.7 * x)),
    ("gelu", act.gelu, lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    ("softmax", lambda x: act.softmax(x, 0), lambda x: np.exp(x) / np.exp(x).sum(0)),
    ("log_softmax", lambda x: act.softmax(x, -1, log=True),
     lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
])
def test_activations(name, got, want):
    check(got(dev(X)), want(X), rtol=1e-12)


def test_softmax_edge_cases():
    check(act.softmax(dev(np.float32(2.5)), 0), np.float32(1.0))
    check(act.softmax(dev(np.float32(2.5)), 0, log=True), np.float32(0.0))
    assert run(act.softmax(dev(np.zeros((3, 0), np.float32)), 1)).shape == (3, 0)


def test_logistic_losses_are_stable_and_match_the_definition():
    z = (RNG.random(X.shape) > 0.5).astype(np.float64)
    plain = z * -np.log(_sigmoid(X)) + (1 - z) * -np.log(1 - _sigmoid(X))
    check(losses.sigmoid_cross_entropy(dev(X), dev(z)), plain, rtol=1e-10)
    q = np.linspace(0.5, 3, 5)
    weighted = q * z * -np.log(_sigmoid(X)) + (1 - z) * -np.log(1 - _sigmoid(X))
    check(losses.sigmoid_cross_entropy(dev(X), dev(z), dev(np.broadcast_to(q, X.shape))),
          weighted, rtol=1e-10)
    huge = losses.sigmoid_cross_entropy(dev(np.array([-800.0, 800.0])), dev(np.array([1.0, 0])))
    check(huge, np.array([800.0, 800.0]))


def test_poisson_nll_with_stirling_term():
    t = np.array([0.0, 1.0, 1.5, 7.0])
    x = np.array([0.3, -0.2, 1.0, 2.0])
    base = np.exp(x) - x * t
    stirling = np.where(t > 1, t * np.log(np.where(t > 0, t, 1)) - t + 0.5 * np.log(
        2 * np.pi * np.where(t > 0, t, 1)), 0)
    check(losses.poisson_nll(dev(x), dev(t)), base)
    check(losses.poisson_nll(dev(x), dev(t), full=True), base + stirling, rtol=1e-12)


def test_sparse_cross_entropy_is_nan_outside_the_classes():
    labels = np.array([0, 4, 5, -1], np.int32)
    got = run(losses.sparse_cross_entropy(dev(X), dev(labels)))
    logp = X - np.log(np.exp(X).sum(-1, keepdims=True))
    np.testing.assert_allclose(got[:2], -logp[[0, 1], [0, 4]], rtol=1e-9)
    assert np.isnan(got[2:]).all()


def test_moments_compute_half_types_in_float32():
    x = X.astype(np.float16)
    mean, var = norm.moments(dev(x), (0,), keepdims=True)
    wide = x.astype(np.float32)
    check(mean, wide.mean(0, keepdims=True), rtol=1e-6)
    check(var, wide.var(0, keepdims=True), rtol=1e-5)
    mean, var = norm.moments(dev(X), (0, 1))
    check(mean, X.mean())
    check(var, X.var())


def test_normalize_l2_normalize_and_clip_by_norm():
    mean, var, off, scale = (RNG.standard_normal(5) for _ in range(4))
    var = np.abs(var)
    want = (X - mean) / np.sqrt(var + 1e-3) * scale + off
    check(layers.normalize(dev(X), dev(mean), dev(var), dev(off), dev(scale), 1e-3), want,
          rtol=1e-10)
    check(layers.normalize(dev(X), dev(mean), dev(var), None, None, 1e-3),
          (X - mean) / np.sqrt(var + 1e-3), rtol=1e-10)
    check(layers.l2_normalize(dev(X), (1,), 1e-12),
          X / np.linalg.norm(X, axis=1, keepdims=True), rtol=1e-12)
    rows = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    check(layers.clip_by_norm(dev(rows), 1.0, (1,)), [[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]])


def test_batched_folds_extra_leading_dims():
    x = RNG.standard_normal((2, 3, 6, 4))
    w = RNG.standard_normal((3, 4, 5))

    def conv(a):
        return cnn.conv(a, dev(w), (1,), "SAME", channels_last=True)

    many = run(layers.batched(conv, dev(x), 3))
    one = run(conv(dev(x.reshape(6, 6, 4)))).reshape(2, 3, 6, 5)
    np.testing.assert_allclose(many, one, rtol=1e-12)
    single = run(layers.batched(conv, dev(x[0, 0]), 3))
    np.testing.assert_allclose(single, one[0, 0], rtol=1e-12)


def test_embedding_of_nd_tables():
    table = RNG.standard_normal((5, 2, 3))
    ids = np.array([[4, 0], [1, 1]])
    check(cnn.embedding(dev(table), dev(ids)), table[ids])
    clipped = run(cnn.embedding(dev(table), dev(np.array([7])), "clip"))
    np.testing.assert_array_equal(clipped, table[[4]])
    assert np.isnan(run(cnn.embedding(dev(table), dev(np.array([7])), "fill"))).all()


def test_space_to_depth_round_trip_and_order():
    x = np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3)
    packed = run(layers.space_to_depth(dev(x), 2))
    np.testing.assert_array_equal(packed[0, 0, 0], x[0, :2, :2].reshape(-1))
    np.testing.assert_array_equal(run(layers.depth_to_space(dev(packed), 2)), x)


def test_local_response_norm_sums_a_window_of_channels():
    x = RNG.standard_normal((1, 2, 2, 7))
    sq = np.pad(x * x, ((0, 0),) * 3 + ((2, 2),))
    window = sum(sq[..., i:i + 7] for i in range(5))
    check(layers.local_response_norm(dev(x), 2, 0.5, 0.3, 0.75),
          x / (0.5 + 0.3 * window) ** 0.75, rtol=1e-12)


@pytest.mark.parametrize("size, stride, padding", [(8, 2, "SAME"), (7, 2, "SAME"),
                                                    (10, 2, "VALID"), (9, 3, ((1, 2),))])
def test_transpose_padding_inverts_the_forward_shape(size, stride, padding):
    """The transposed convolution of the forward output reaches ``size``."""
    from lazytensor.core.rules.contract import window_output

    pads = cnn.same_padding((size,), (3,), (stride,), (1,)) if padding == "SAME" else \
        ((0, 0),) if padding == "VALID" else padding
    n = window_output(size, 3, stride, *pads[0])
    got, extra = layers.transpose_padding((n,), (size,), (3,), (stride,), padding, (1,))
    assert got == tuple(pads)
    x = dev(np.ones((1, 1, n)))
    w = dev(np.ones((1, 1, 3)))
    assert run(cnn.conv_transpose(x, w, (stride,), got, extra, (1,))).shape == (1, 1, size)
    with pytest.raises(Exception, match="cannot give size"):
        layers.transpose_padding((n + 2,), (size,), (3,), (stride,), padding, (1,))


def test_kinked_relu_passes_nan_and_clips():
    x = np.array([np.nan, -1.0, 0.0, 3.0, 6.0, 7.5])
    np.testing.assert_array_equal(run(act.kinked_relu(dev(x))), [np.nan, 0, 0, 3, 6, 7.5])
    np.testing.assert_array_equal(run(act.kinked_relu(dev(x), 6)), [np.nan, 0, 0, 3, 6, 6])
