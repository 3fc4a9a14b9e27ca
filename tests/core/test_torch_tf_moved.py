"""Core composites moved out of the torch frontend and TensorFlow's tf.* API
(CTC target splitting and gradient, antialiased resampling, rrelu, histc,
cumulative ops with exclusive/reverse, truncating division, saturating
casts, gather/scatter by index tuples, batched gathers, one-hot, segment
means and fills, flat argmax pooling, HWIO convolution, trilinear
products, short-time Fourier transforms, alias-summed gradients and stacked
Jacobian rows), checked against numpy without any frontend."""

import math

import numpy as np
import pytest
from core_nodes import check, dev, run
from lazytensor.core import Op, get_runtime, make, scalar
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import formulas as formulas
from lazytensor.core.composite.image import resize as cresize
from lazytensor.core.composite.indexing import along
from lazytensor.core.composite.linalg import jacobian
from lazytensor.core.composite.nn import activations, ctc, layers, losses
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.core.composite.reduce import accumulate as accumulate
from lazytensor.core.composite.signal import stft


def test_padded_targets_splits_concatenated_labels():
    flat = dev(np.array([1, 2, 3, 4, 5, 6]))
    lengths = dev(np.array([2, 0, 4]))
    got = run(ctc.padded_targets(flat, lengths, 3))
    assert got.shape == (3, 6)
    np.testing.assert_array_equal(got[0, :2], [1, 2])
    np.testing.assert_array_equal(got[2, :4], [3, 4, 5, 6])
    padded = dev(np.array([[1, 2], [3, 0]]))
    assert ctc.padded_targets(padded, lengths, 2) is padded
    assert ctc.padded_targets(dev(np.zeros(0, np.int64)), lengths, 3).shape == (3, 0)


def test_ctc_loss_backward_sums_to_zero_over_classes():
    """Through a log-softmax the gradient of each running frame sums to 0
    over the classes (the softmax part cancels the VJP's total); frames
    past a sample's input length get none."""
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((5, 2, 4))
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    targets, lens, labels = dev(np.array([[1, 2], [3, 0]])), dev(np.array([5, 3])), \
        dev(np.array([2, 1]))
    nll, _ = ctc.ctc_loss(dev(lp), targets, lens, labels, 0)
    grad = run(ctc.ctc_loss_backward(dev(np.ones(2)), dev(lp), targets, lens, labels, 0, nll))
    np.testing.assert_allclose(grad.sum(-1), 0, atol=1e-10)
    np.testing.assert_array_equal(grad[3:, 1], 0)


def test_ctc_loss_backward_zero_infinity():
    lp = np.log(np.full((1, 1, 3), 1 / 3))  # one frame cannot emit two labels
    targets, lens, labels = dev(np.array([[1, 2]])), dev(np.array([1])), dev(np.array([2]))
    nll, _ = ctc.ctc_loss(dev(lp), targets, lens, labels, 0)
    assert run(nll)[0] == math.inf
    grad = ctc.ctc_loss_backward(dev(1.0), dev(lp), targets, lens, labels, 0, nll, True)
    np.testing.assert_array_equal(run(grad), 0)


def test_antialiased_resize_of_a_constant_image_is_constant():
    x = np.full((1, 2, 8, 6), 3.0)
    for kind in ("bilinear", "bicubic"):
        np.testing.assert_allclose(run(cresize.resize_antialiased(dev(x), (3, 4), kind)), 3.0)
        weights = cresize.antialias_weights(kind, 8, 3, False, None)
        np.testing.assert_allclose(weights.sum(1), 1.0)


def test_rrelu_slopes_in_range_and_noise():
    x = np.linspace(-2, 2, 41, dtype=np.float32)
    held = get_runtime().from_host(x)  # (kept: its buffer is read by both runs)
    key = make(Op.RNG_FOLD, (get_runtime().rng.key, scalar(7, np.dtype(np.uint32))))
    out, noise = (run(n) for n in activations.rrelu(held.node, 0.1, 0.3, key))
    np.testing.assert_array_equal(noise[x > 0], 1)
    assert ((noise[x <= 0] >= 0.1) & (noise[x <= 0] <= 0.3)).all()
    np.testing.assert_allclose(out, x * noise, rtol=1e-6)


@pytest.mark.parametrize("lo,hi", [(0.0, 4.0), (0.0, 0.0), (1.0, 2.0)])
def test_histc_against_numpy(lo, hi):
    x = np.array([0.0, 0.5, 1.0, 2.5, 4.0, 5.0, -1.0], np.float32)
    got = run(accumulate.histc(dev(x), 4, lo, hi))
    lo_, hi_ = (x.min(), x.max()) if lo == hi else (lo, hi)
    want = np.histogram(x[(x >= lo_) & (x <= hi_)], 4, (lo_, hi_))[0].astype(np.float32)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(run(accumulate.histc(dev(np.ones(3, np.float32)), 2, 0, 0)),
                                  [0, 3])  # one value: its range widened by 1 each way


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("exclusive", [False, True])
def test_cumulative_exclusive_reverse(reverse, exclusive):
    x = np.arange(1, 13, dtype=np.float64).reshape(3, 4)
    got = run(accumulate.cumulative(dev(x), Op.CUMPROD, 1, reverse, exclusive, 1))
    y = x[:, ::-1] if reverse else x
    want = np.cumprod(y, 1)
    if exclusive:
        want = np.concatenate([np.ones((3, 1)), want[:, :-1]], 1)
    np.testing.assert_allclose(got, want[:, ::-1] if reverse else want)


def test_trunc_divide_and_saturate_cast():
    a, b = np.array([7.0, -7.0, 7.5]), np.array([2.0, 2.0, -2.0])
    check(formulas.trunc_divide(dev(a), dev(b)), np.trunc(a / b))
    check(formulas.trunc_divide(dev(np.array([7, -7])), dev(np.array([2, 2]))),
          np.array([3, -3]))
    x = np.array([300.0, -5.0, 3e10, np.float32(2.0 ** 63)], np.float32)
    check(formulas.saturate_cast(dev(x[:2]), dt.uint8), np.array([255, 0], np.uint8))
    got = run(formulas.saturate_cast(dev(x[2:]), dt.int64))
    assert got[0] == 30000001024 and got[1] >= 2 ** 63 - 2 ** 40  # saturated, not wrapped


def test_gather_nd_scatter_nd_and_batched_gather():
    x = np.arange(24.0).reshape(2, 3, 4)
    idx = np.array([[1, 2], [0, 0], [1, 0]])
    check(along.gather_nd(dev(x), dev(idx)), x[idx[:, 0], idx[:, 1]])
    batch_idx = np.array([[2], [0]])  # batch_dims=1: row b's index tuple into x[b]
    check(along.gather_nd(dev(x), dev(batch_idx), 1),
          np.stack([x[b, batch_idx[b, 0]] for b in range(2)]))
    upd = np.ones((3, 4))
    want = x.copy()
    np.add.at(want, (idx[:, 0], idx[:, 1]), upd)
    check(along.scatter_nd(dev(x), dev(idx), dev(upd), "add"), want)
    pick = np.array([[3, 0], [1, 1]])
    check(along.gather_batched(dev(x), dev(pick), 2, 1),
          np.stack([x[b][:, pick[b]] for b in range(2)]))


def test_one_hot_and_segments():
    idx = np.array([[0, 2], [5, 1]])
    got = run(layers.one_hot(dev(idx), 3, 1, dev(np.float32(7)), dev(np.float32(-1))))
    want = np.where(np.arange(3)[None, :, None] == idx[:, None, :], 7, -1).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    data, ids = np.array([1.0, 2.0, 6.0, 5.0]), np.array([0, 0, 2, 2])
    check(cnn.segment_reduce(dev(data), dev(ids), 4, "mean"), np.array([1.5, 0, 5.5, 0]))
    check(cnn.segment_reduce(dev(data), dev(ids), 4, "max", 0), np.array([2.0, 0, 6, 0]))


def test_max_pool_flat_argmax():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 4, 3))
    values, index = (run(n) for n in cnn.max_pool_flat_argmax(dev(x), (2, 2), (2, 2),
                                                              ((0, 0), (0, 0)), True))
    np.testing.assert_array_equal(x.reshape(-1)[index], values)
    windows = x.reshape(2, 2, 2, 2, 2, 3).max(axis=(2, 4))
    np.testing.assert_array_equal(values, windows)


def test_conv_hwio_channels_first_matches_last():
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 5, 6, 4)), rng.standard_normal((3, 3, 2, 6))  # 2 groups
    last = run(layers.conv_hwio(dev(x), dev(w), (1, 1), "SAME", (1, 1)))
    first = run(layers.conv_hwio(dev(np.moveaxis(x, -1, 1)), dev(w), (1, 1), "SAME", (1, 1),
                                 channels_first=True))
    np.testing.assert_allclose(np.moveaxis(first, 1, -1), last, rtol=1e-10)
    # the centre tap of group 0's first output channel, away from the border
    want = np.einsum("hwc,hwc->", x[0, 1:4, 1:4, :2], w[:, :, :, 0])
    np.testing.assert_allclose(last[0, 2, 2, 0], want, rtol=1e-10)


def test_trilinear_is_bilinear_form():
    rng = np.random.default_rng(3)
    x1, w, x2 = rng.standard_normal((4, 2)), rng.standard_normal((5, 2, 3)), \
        rng.standard_normal((4, 3))
    check(layers.trilinear(dev(x1), dev(w), dev(x2), (1, 3), (0,), (1, 2), (2, 3)),
          np.einsum("nc,ocd,nd->no", x1, w, x2), rtol=1e-10)


def test_stft_against_numpy_and_back():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 40))
    window = np.hanning(8)
    got = run(stft.stft(dev(x), 8, 4, 16, dev(window)))
    frames = np.stack([x[:, i:i + 8] for i in range(0, 33, 4)], 1) * window
    np.testing.assert_allclose(got, np.fft.rfft(frames, 16), atol=1e-12)
    back = run(stft.inverse_stft(dev(got), 8, 4, 16))  # no window: sum of windowed frames
    want = np.zeros((2, 40))
    for i in range(9):
        want[:, 4 * i:4 * i + 8] += frames[:, i]
    np.testing.assert_allclose(back, want, atol=1e-12)


def test_grouped_grads_sum_aliases_and_stack_rows():
    held = get_runtime().from_host(np.array([1.0, 2.0, 3.0]))
    x = held.node
    a, b = (make(Op.CONVERT, (x,), x.dtype) for _ in range(2))  # two reads of one value
    y = make(Op.ADD, (make(Op.MUL, (a, a)), b))
    other = dev(np.ones(2))
    grads = jacobian.grouped_grads(y, [[a, b], [other], []])
    check(grads[0], 2 * np.array([1.0, 2.0, 3.0]) + 1)
    assert grads[1] is None and grads[2] is None
    assert jacobian.grouped_grads(None, [[a]]) == [None]
    stacked = jacobian.stack_rows([grads[0], None], (2,), x, zeros=False)
    check(stacked, np.array([[3.0, 5.0, 7.0], [0, 0, 0]]))
    assert jacobian.stack_rows([None, None], (2,), x, zeros=False) is None
    check(jacobian.stack_rows([None], (1,), x, zeros=True), np.zeros((1, 3)))


def test_small_tf_composites():
    x = np.array([[-1.0, 0.0], [2.0, 0.0]])
    check(activations.crelu(dev(x), 1), np.maximum(np.concatenate([x, -x], 1), 0))
    check(losses.l2_loss(dev(x)), np.array(np.sum(x * x) / 2))
    check(accumulate.zero_fraction(dev(x)), np.float32(0.5))
    test, values = np.array([0.0, 0.0, 2.0]), np.array([np.nan, np.inf, np.inf])
    check(formulas.unless_zero(dev(test), dev(values)), np.array([0.0, 0.0, np.inf]))
