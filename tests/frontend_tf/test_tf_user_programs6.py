"""Bugs found by a sixth round of TensorFlow / tnp user programs, and the
TensorFlow APIs that ran eagerly on lazy arrays (tf.einsum, slogdet,
rfft/irfft, tf.image): each case runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, with tf.* calls on lazy arrays) and must give the same
values, dtypes, shapes and error types, with no eager fallback."""

from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lazy_and_eager, lnp, tf, tnp

RNG = np.random.default_rng(6)




def test_tf_is_tensor_of_lazy_arrays_and_variables():
    """``tf.is_tensor`` of a lazy array or Variable was False (TensorFlow:
    True for its tensors, tnp ndarrays and variables), so user code that
    converts what is not a tensor (``if not tf.is_tensor(t): t =
    tf.convert_to_tensor(t)``) materialized lazy arrays."""
    x = lnp.asarray([1.0, 2.0])
    assert tf.is_tensor(x) and tf.is_tensor(tnp.asarray([1.0, 2.0]))
    assert tf.is_tensor(ltf.Variable(np.float32(1.0)))
    assert not tf.is_tensor(np.ones(2)) and not tf.is_tensor([1.0])

    def normalise(t):
        if not tf.is_tensor(t):
            t = tf.convert_to_tensor(t)
        return t / tf.reduce_sum(t)

    data = np.array([1.0, 2.0], np.float32)
    got = normalise(lnp.asarray(data))
    assert isinstance(got, ltf.Tensor)
    assert_same(got, normalise(tf.constant(data)))



def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


EINSUM = {  # equation: operand shapes
    "ij,jk->ik": [(3, 4), (4, 5)], "bhqd,bhkd->bhqk": [(2, 2, 3, 4), (2, 2, 5, 4)],
    "ij, jk -> ik": [(3, 4), (4, 2)], "...j,...j->...": [(2, 3, 4), (2, 3, 4)],
    "ii->i": [(3, 3)], "ij->": [(3, 4)], "ij,jk": [(2, 3), (3, 2)], "i,j->ij": [(3,), (4,)],
}


@pytest.mark.parametrize("equation", sorted(EINSUM))
def test_tf_einsum_records_lazily(equation):
    """``tf.einsum`` (and tf.linalg.einsum) of lazy arrays converted them
    (materialized) and returned an eager tf.Tensor: TensorFlow gives it no
    dispatch (``*inputs``); it now records the core's einsum."""
    arrays = [_f32(*s) for s in EINSUM[equation]]
    lazy_and_eager(lambda *xs: tf.einsum(equation, *xs), *arrays)
    lazy_and_eager(lambda *xs: tf.linalg.einsum(equation, *xs), *arrays)


def test_tf_einsum_int_and_errors_as_tensorflow():
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    lazy_and_eager(lambda a: tf.einsum("ij,kj->ik", a, a), ints)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.einsum("ij,j->i", lnp.asarray(_f32(2, 3)), tf.constant([1, 2, 3]))
    with pytest.raises(TypeError):
        tf.einsum("ij->ji", lnp.asarray(_f32(2, 3)), foo=1)
    with pytest.raises(AttributeError):  # TensorFlow reads each input's .shape
        tf.einsum("ij,j->i", lnp.asarray(_f32(2, 3)), [1.0, 2.0, 3.0])
    metrics.reset()  # int8 has no CPU kernel: TensorFlow's own error, eagerly
    with pytest.warns(UserWarning, match="tf.einsum"), pytest.raises(tf.errors.NotFoundError):
        tf.einsum("ij->i", lnp.asarray(np.ones((2, 2), np.int8)))
    assert metrics.as_dict()["fallbacks"] == {"tf.einsum": 1}


def test_tf_einsum_of_eager_tensors_is_tensorflows():
    got = tf.einsum("ij,jk->ik", tf.ones((2, 3)), tf.ones((3, 2)))
    assert not isinstance(got, ltf.Tensor)


def test_tf_linalg_slogdet_records_lazily():
    """``tf.linalg.slogdet`` converted lazy arrays and ran eagerly (its
    export has no dispatch); now the core's slogdet, both results of the
    input's dtype (complex log|det| too), sign 0 / -inf when singular."""
    lazy_and_eager(tf.linalg.slogdet, _f32(3, 4, 4))
    lazy_and_eager(tf.linalg.slogdet, np.zeros((2, 2), np.float64))
    lazy_and_eager(tf.linalg.slogdet, np.array([[0, 1], [1, 0]], np.complex64))
    got = tf.linalg.slogdet(lnp.asarray(_f32(2, 2)))
    assert got.sign.shape == () and got.log_abs_determinant.dtype == tf.float32
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.linalg.slogdet(lnp.asarray(np.eye(2, dtype=np.int32)))


RFFT = {
    "rfft": lambda x: tf.signal.rfft(x), "rfft_crop": lambda x: tf.signal.rfft(x, [5]),
    "rfft_pad": lambda x: tf.signal.rfft(x, fft_length=[12]),
    "rfft_tensor_length": lambda x: tf.signal.rfft(x, tf.constant([6])),
    "irfft": lambda x: tf.signal.irfft(tf.signal.rfft(x)),
    "irfft_odd": lambda x: tf.signal.irfft(tf.signal.rfft(x), [7]),
    "irfft_pad": lambda x: tf.signal.irfft(tf.signal.rfft(x), [20]),
    "rfft2d": lambda x: tf.signal.rfft2d(x), "rfft2d_len": lambda x: tf.signal.rfft2d(x, [3, 6]),
    "irfft2d": lambda x: tf.signal.irfft2d(tf.signal.rfft2d(x)),
    "irfft2d_len": lambda x: tf.signal.irfft2d(tf.signal.rfft2d(x), [4, 5]),
    "rfft3d": lambda x: tf.signal.rfft3d(x),
    "irfft3d": lambda x: tf.signal.irfft3d(tf.signal.rfft3d(x)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(RFFT))
def test_tf_signal_rfft_irfft_record_lazily(case, dtype):
    """``tf.signal.rfft``/``irfft`` (2-d, 3-d) converted lazy arrays and
    ran eagerly (their exports have no dispatch); now the core's fourier
    transforms with TensorFlow's fft_length (crop / zero-pad) and dtypes
    (float32 <-> complex64, float64 <-> complex128)."""
    lazy_and_eager(RFFT[case], RNG.standard_normal((2, 4, 8)).astype(dtype),
                    precision="float32")


def test_tf_signal_rfft_errors_as_tensorflow():
    for fn, value in ((tf.signal.rfft, np.arange(4, dtype=np.int32)),
                      (tf.signal.rfft, np.float32(1.0)),
                      (tf.signal.irfft, np.ones(4, np.float32)),
                      (tf.signal.rfft, np.ones(4, np.float16))):
        with pytest.raises(ValueError):
            fn(tf.constant(value))
        with pytest.raises(ValueError):
            fn(lnp.asarray(value))


IMAGE = {
    "rgb_to_grayscale": tf.image.rgb_to_grayscale,
    "grayscale_to_rgb": lambda x: tf.image.grayscale_to_rgb(x[..., :1]),
    "adjust_brightness": lambda x: tf.image.adjust_brightness(x, 0.2),
    "adjust_brightness_negative": lambda x: tf.image.adjust_brightness(x, -0.3),
    "adjust_contrast": lambda x: tf.image.adjust_contrast(x, 1.7),
    "adjust_contrast_tensor": lambda x: tf.image.adjust_contrast(x, tf.constant(0.5)),
    "adjust_gamma": lambda x: tf.image.adjust_gamma(x, 2.2),
    "adjust_gamma_gain": lambda x: tf.image.adjust_gamma(x, 0.5, gain=1.5),
    "central_crop": lambda x: tf.image.central_crop(x, 0.5),
    "central_crop_third": lambda x: tf.image.central_crop(x, 0.33),
    "central_crop_all": lambda x: tf.image.central_crop(x, 1.0),
    "crop_to_bounding_box": lambda x: tf.image.crop_to_bounding_box(x, 1, 2, 4, 3),
    "pad_to_bounding_box": lambda x: tf.image.pad_to_bounding_box(x, 1, 2, 9, 11),
    "resize_with_crop_or_pad": lambda x: tf.image.resize_with_crop_or_pad(x, 5, 10),
    "resize_with_crop_or_pad_odd": lambda x: tf.image.resize_with_crop_or_pad(x, 3, 9),
    "rot90": tf.image.rot90, "rot90_k2": lambda x: tf.image.rot90(x, 2),
    "rot90_k3": lambda x: tf.image.rot90(x, k=3), "rot90_k_neg": lambda x: tf.image.rot90(x, -1),
    "transpose": tf.image.transpose,
    "per_image_standardization": tf.image.per_image_standardization,
    "to_uint8": lambda x: tf.image.convert_image_dtype(x, tf.uint8),
    "to_uint8_saturate": lambda x: tf.image.convert_image_dtype(x * 2 - 0.5, tf.uint8,
                                                                saturate=True),
    "to_float16": lambda x: tf.image.convert_image_dtype(x, tf.float16),
    "to_float64": lambda x: tf.image.convert_image_dtype(x, "float64"),
    "to_int16": lambda x: tf.image.convert_image_dtype(x, tf.int16),
}
IMAGES = {
    "float32": RNG.uniform(0, 1, (2, 6, 7, 3)).astype(np.float32),
    "uint8": RNG.integers(0, 256, (6, 7, 3)).astype(np.uint8),
    "float16": RNG.uniform(0, 1, (6, 7, 3)).astype(np.float16),
}


@pytest.mark.parametrize("dtype", sorted(IMAGES))
@pytest.mark.parametrize("case", sorted(IMAGE))
def test_tf_image_ops_record_lazily(case, dtype):
    """tf.image's crops, pads, rotations, dtype conversion and colour
    adjustments of lazy images materialized them and returned eager tensors
    (the table had only flips and resize); now they record core ops with
    TensorFlow's dtype handling (integer images scaled through float32 and
    back with saturation)."""
    if dtype != "float32" and case in ("to_uint8_saturate",):
        pytest.skip("float arithmetic on an integer image: tnp promotion, not tf.image")
    if dtype == "float16" and case.startswith("adjust_contrast"):
        pytest.skip("no float16 CPU kernel: test_tf_image_adjust_contrast_of_float16")
    lazy_and_eager(IMAGE[case], IMAGES[dtype])


HSV_EDGES = np.array([[0.5, 0.5, 0.5], [0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 1, 1],
                      [0, 0, 1], [1, 0, 1], [0.3, 0.3, 0.1], [0.2, 0.9, 0.9]], np.float32)
HUE_EDGES = np.array([0, 1 / 6, 2 / 6, 0.5, 4 / 6, 5 / 6, 1.0, 0.9999, 1.2, -0.1], np.float32)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_tf_image_rgb_to_hsv_and_back_record_lazily(dtype):
    """``tf.image.rgb_to_hsv`` / ``hsv_to_rgb`` of lazy images materialized
    them and returned eager tensors; now TensorFlow's kernels' formulas
    (grey: hue 0; hue outside [0, 1): TensorFlow's default sextant)."""
    rgb = np.concatenate([RNG.random((30, 3)), HSV_EDGES]).astype(dtype).reshape(5, 8, 3)
    hsv = RNG.random((10, 3))
    hsv[:, 0] = HUE_EDGES
    hsv = np.concatenate([RNG.random((30, 3)), hsv]).astype(dtype).reshape(5, 8, 3)
    lazy_and_eager(tf.image.rgb_to_hsv, rgb)
    lazy_and_eager(tf.image.hsv_to_rgb, hsv)
    lazy_and_eager(lambda x: tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)), rgb)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.image.rgb_to_hsv(lnp.asarray(rgb[..., :2]))


def test_tf_image_adjust_contrast_of_float16_is_tensorflows_error():
    """TensorFlow's CPU AdjustContrastv2 has no float16 kernel: the call
    goes to TensorFlow (counted) for its NotFoundError."""
    metrics.reset()
    with pytest.warns(UserWarning), pytest.raises(tf.errors.NotFoundError):
        tf.image.adjust_contrast(lnp.asarray(IMAGES["float16"]), 2.0)
    assert metrics.as_dict()["fallbacks"] == {"tf.image.adjust_contrast": 1}


@pytest.mark.parametrize("case", ["uint8_to_int8", "int16_to_uint8", "int8_to_int32",
                                  "int32_to_float32", "uint8_to_float64"])
def test_tf_image_convert_image_dtype_between_integers_and_floats(case):
    source, target = case.split("_to_")
    info = np.iinfo(source)
    data = RNG.integers(info.min, info.max, (4, 5, 1), endpoint=True).astype(source)
    lazy_and_eager(lambda x: tf.image.convert_image_dtype(x, target), data)
    lazy_and_eager(lambda x: tf.image.convert_image_dtype(x, target, saturate=True), data)


IMAGE_ERRORS = {
    "crop_past_edge": lambda x: tf.image.crop_to_bounding_box(x, 3, 0, 4, 4),
    "crop_negative": lambda x: tf.image.crop_to_bounding_box(x, -1, 0, 2, 2),
    "pad_too_small": lambda x: tf.image.pad_to_bounding_box(x, 0, 0, 3, 3),
    "central_crop_zero": lambda x: tf.image.central_crop(x, 0.0),
    "rot90_rank2": lambda x: tf.image.rot90(x[0, :, :, 0]),
    "transpose_rank5": lambda x: tf.image.transpose(x[None]),
    "gamma_negative": lambda x: tf.image.adjust_gamma(x, -1.0),
    "grayscale_to_rgb_channels": tf.image.grayscale_to_rgb,
    "convert_to_bool": lambda x: tf.image.convert_image_dtype(x, tf.bool),
    "contrast_rank2": lambda x: tf.image.adjust_contrast(x[0, :, :, 0], 2.0),
}


@pytest.mark.parametrize("case", sorted(IMAGE_ERRORS))
def test_tf_image_bad_arguments_raise_as_tensorflow(case):
    data = IMAGES["float32"]
    with pytest.raises(Exception) as eager:
        IMAGE_ERRORS[case](tf.constant(data))
    with pytest.raises(type(eager.value)):
        IMAGE_ERRORS[case](lnp.asarray(data))


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


CONTROL = {
    "case": lambda x: tf.case([(tf.reduce_sum(x) > 100, lambda: x * 0),
                               (tf.reduce_sum(x) > 3, lambda: x + 1)], default=lambda: x),
    "case_default": lambda x: tf.case([(tf.reduce_max(x) > 100, lambda: x * 0)],
                                      default=lambda: x - 1),
    "case_no_default_last": lambda x: tf.case([(x[0] > 5, lambda: x * 2),
                                               (x[0] < 5, lambda: x * 3)]),
    "case_exclusive": lambda x: tf.case([(x[0] < 1, lambda: x * 2), (x[1] > 5, lambda: x)],
                                        exclusive=True),
    "switch_case": lambda x: tf.switch_case(tf.cast(x[1], tf.int32),
                                            [lambda: x, lambda: x * 3, lambda: x * 4]),
    "switch_case_default": lambda x: tf.switch_case(tf.cast(x[3], tf.int32),
                                                    {0: lambda: x, 1: lambda: -x},
                                                    default=lambda: x * 10),
    "is_non_decreasing": tf.math.is_non_decreasing,
    "is_non_decreasing_matrix": lambda x: tf.math.is_non_decreasing(tf.reshape(x, (2, 2))),
    "is_strictly_increasing": lambda x: tf.math.is_strictly_increasing(x * 0 + 1),
    "is_non_decreasing_one": lambda x: tf.math.is_non_decreasing(x[:1]),
}


@pytest.mark.parametrize("case", sorted(CONTROL))
def test_tf_case_switch_case_and_monotonic_checks_of_lazy_arrays(case):
    """``tf.case`` with a lazy predicate, ``tf.switch_case`` with a lazy
    branch index and ``tf.math.is_non_decreasing``/``is_strictly_increasing``
    of a lazy array raised TypeError ("pred must be a Tensor", "'branch_index'
    must be a Tensor", "Expected x to be numeric"); now the predicates are
    read back (as tf.cond's are) and the branches record lazily, and the
    checks compare neighbours lazily."""
    lazy_and_eager(CONTROL[case], np.arange(4, dtype=np.float32))


def test_tf_is_non_decreasing_of_bools_is_a_type_error_as_in_tensorflow():
    with pytest.raises(TypeError):
        tf.math.is_non_decreasing(tf.constant([True, False]))
    with pytest.raises(TypeError):
        tf.math.is_non_decreasing(lnp.asarray(np.array([True, False])))


DCT = {
    "dct": lambda x: tf.signal.dct(x), "dct_ortho": lambda x: tf.signal.dct(x, norm="ortho"),
    "dct3": lambda x: tf.signal.dct(x, type=3), "dct3_ortho": lambda x: tf.signal.dct(
        x, type=3, norm="ortho"),
    "dct_n_crop": lambda x: tf.signal.dct(x, n=6), "dct_n_pad": lambda x: tf.signal.dct(x, n=14),
    "idct": lambda x: tf.signal.idct(x), "idct_ortho": lambda x: tf.signal.idct(x, norm="ortho"),
    "idct3": lambda x: tf.signal.idct(x, type=3, n=7),
    "round_trip": lambda x: tf.signal.idct(tf.signal.dct(x, norm="ortho"), norm="ortho"),
    "mfcc": tf.signal.mfccs_from_log_mel_spectrograms,
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(DCT))
def test_tf_signal_dct_idct_mfcc_record_lazily(case, dtype):
    """``tf.signal.dct``/``idct`` (types 2 and 3) and
    ``mfccs_from_log_mel_spectrograms`` of lazy arrays materialized them
    and returned eager tensors (not in the signal table); now TensorFlow's
    rfft-based formulas on the core's transforms."""
    lazy_and_eager(DCT[case], RNG.standard_normal((2, 3, 10)).astype(dtype),
                    precision="float32")


def test_tf_signal_dct_bad_arguments_as_tensorflow():
    x = _f32(2, 8)
    for kwargs, error in ((dict(type=5), ValueError), (dict(norm="x"), ValueError),
                          (dict(n=0), ValueError), (dict(axis=0), NotImplementedError)):
        for c in (tf.constant, lnp.asarray):
            with pytest.raises(error):
                tf.signal.dct(c(x), **kwargs)


REVERSE_SEQUENCE = {
    "rows": ([1, 2, 4], 1, 0), "columns": ([1, 2, 3, 0], 0, 1), "last_batch": ([2, 1], 0, 2),
    "default_batch": (np.array([3, 1, 2], np.int64), 1, None),
}


@pytest.mark.parametrize("case", sorted(REVERSE_SEQUENCE))
def test_tf_reverse_sequence_records_lazily(case):
    """``tf.reverse_sequence`` (bidirectional RNN code) of a lazy array
    materialized it and returned an eager tensor; now one gather with an
    index built from the lengths (read back, checked as TensorFlow's)."""
    lengths, seq_axis, batch_axis = REVERSE_SEQUENCE[case]
    x = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    lazy_and_eager(lambda a: tf.reverse_sequence(a, lengths, seq_axis, batch_axis), x)


@pytest.mark.parametrize("lengths", [[1, 2, 5], [1, -2, 3], [1, 2], [1.0, 2.0, 3.0]])
def test_tf_reverse_sequence_bad_lengths_as_tensorflow(lengths):
    x = np.zeros((3, 4), np.float32)
    for c in (tf.constant, lnp.asarray):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.reverse_sequence(c(x), lengths, seq_axis=1, batch_axis=0)


@pytest.mark.parametrize("method", ["scatter_add", "scatter_sub", "scatter_update",
                                    "scatter_max", "scatter_min", "scatter_mul"])
def test_variable_scatter_of_indexed_slices(method):
    """``Variable.scatter_add`` / ``sub`` / ``update`` / ``max`` / ``min`` /
    ``mul`` (sparse updates of embedding rows) raised AttributeError on a
    lazytensor Variable; now scatter_nd over the IndexedSlices' rows."""
    results = []
    for variable, c in ((tf.Variable, tf.constant), (ltf.Variable, lnp.asarray)):
        v = variable(np.arange(8, dtype=np.float32).reshape(4, 2))
        first = getattr(v, method)(tf.IndexedSlices(c(np.array([[2.0, -3.0], [4.0, 5.0]],
                                                               np.float32)), c(np.array([0, 2]))))
        getattr(v, method)(tf.IndexedSlices(np.array([[1.0, 1.0]], np.float32), np.array([3])))
        results.append((tf.convert_to_tensor(first), tf.convert_to_tensor(v)))
    assert_same(results[1][0], results[0][0])
    assert_same(results[1][1], results[0][1])


def test_variable_scatter_nd_max_min_and_bad_sparse_deltas():
    for method in ("scatter_nd_max", "scatter_nd_min"):
        values = []
        for variable in (tf.Variable, ltf.Variable):
            v = variable(np.arange(8, dtype=np.float32).reshape(4, 2))
            getattr(v, method)([[0, 1], [3, 0]], [5.0, 1.0])
            values.append(tf.convert_to_tensor(v))
        assert_same(values[1], values[0])
    for variable in (tf.Variable, ltf.Variable):
        v = variable(np.zeros((4, 2), np.float32))
        with pytest.raises(TypeError):
            v.scatter_add(np.ones((2, 2), np.float32))
        with pytest.raises(tf.errors.InvalidArgumentError):
            v.scatter_add(tf.IndexedSlices(np.ones((1, 2), np.float32), np.array([7])))


SAFE_GRADIENTS = {
    "sqrt": lambda x: tf.where(x > 0, tf.sqrt(x), tf.zeros_like(x)),
    "rsqrt": lambda x: tf.where(x > 0, tf.math.rsqrt(x), 0.0),
    "tnp_sqrt": lambda x: tf.where(x > 0, lnp.sqrt(x) if isinstance(x, ltf.Tensor)
                                   else tnp.sqrt(x), 0.0),
    "safe_norm": lambda x: tf.where(tf.reduce_sum(x * x) > 0, tf.sqrt(tf.reduce_sum(x * x)),
                                    0.0),
    "sqrt_of_square": lambda x: tf.where(x > 0, tf.sqrt(x * x), 0.0),
}


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


def test_ndarray_size_is_numpy_int64_as_tnp():
    """``x.size`` of a lazy array was a Python int; tnp's is ``np.prod`` of
    the shape (numpy's int64; float64 1.0 for a 0-d array)."""
    for shape in ((4, 5), (), (0, 3)):
        want, got = tnp.ones(shape).size, lnp.ones(shape).size
        assert type(got) is type(want) and got == want
        assert type(got / 2) is type(want / 2)


# ---------------------------------------------------------------- programs
# Whole user programs, run with TensorFlow's eager types (EAGER) and with
# lazy arrays and lazytensor's Variable / GradientTape (LAZY): every result
# lazy, equal to TensorFlow's, with no eager fallback.

class EAGER:
    np, Variable, Tape, c = tnp, tf.Variable, tf.GradientTape, staticmethod(tf.constant)


class LAZY:
    np, Variable, Tape = lnp, ltf.Variable, ltf.GradientTape
    c = staticmethod(lnp.asarray)


def _n(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def logistic_regression(M, rng):
    X, y = M.c(_n(rng, 32, 4)), M.c((rng.random(32) > 0.5).astype(np.float32))
    w, b = M.Variable(np.zeros((4, 1), np.float32)), M.Variable(np.float32(0.0))
    losses = []
    for _ in range(4):
        with M.Tape() as tape:
            logits = tf.squeeze(tf.matmul(X, w), -1) + b
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        losses.append(loss)
    hits = tf.cast(tf.sigmoid(tf.squeeze(X @ w, -1) + b) > 0.5, tf.float32)
    return [tf.stack(losses), w, b, tf.reduce_mean(tf.cast(tf.equal(hits, y), tf.float32))]


def mlp_manual_adam(M, rng):
    X, Y = M.c(_n(rng, 16, 5)), M.c(_n(rng, 16, 2))
    params = [M.Variable(_n(rng, 5, 8) * 0.3), M.Variable(np.zeros(8, np.float32)),
              M.Variable(_n(rng, 8, 2) * 0.3), M.Variable(np.zeros(2, np.float32))]
    ms = [M.Variable(tf.zeros_like(p)) for p in params]
    vs = [M.Variable(tf.zeros_like(p)) for p in params]
    losses = []
    for step in range(1, 4):
        with M.Tape() as tape:
            pred = tf.nn.relu(X @ params[0] + params[1]) @ params[2] + params[3]
            loss = tf.reduce_mean(tf.square(pred - Y))
        for p, g, m, v in zip(params, tape.gradient(loss, params), ms, vs, strict=True):
            m.assign(0.9 * m + 0.1 * g)
            v.assign(0.999 * v + 0.001 * tf.square(g))
            p.assign_sub(0.01 * (m / (1 - 0.9 ** step)) /
                         (tf.sqrt(v / (1 - 0.999 ** step)) + 1e-7))
        losses.append(loss)
    return [tf.stack(losses), *params]


def conv_classifier_step(M, rng):
    images, labels = M.c(rng.random((4, 8, 8, 1)).astype(np.float32)), M.c(np.array([0, 1, 2, 1]))
    kernel, dense = M.Variable(_n(rng, 3, 3, 1, 4) * 0.2), M.Variable(_n(rng, 64, 3) * 0.1)
    with M.Tape() as tape:
        h = tf.nn.relu(tf.nn.conv2d(images, kernel, strides=1, padding="SAME"))
        h = tf.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
        logits = tf.reshape(h, [tf.shape(h)[0], -1]) @ dense
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                             logits=logits))
    return [loss, *tape.gradient(loss, [kernel, dense]), tf.argmax(logits, axis=1)]


def einsum_attention(M, rng):
    q, k, v = M.c(_n(rng, 2, 5, 8)), M.c(_n(rng, 2, 6, 8)), M.c(_n(rng, 2, 6, 8))
    mask = M.c(np.tril(np.ones((5, 6), np.float32)))
    scores = tf.einsum("bqd,bkd->bqk", q, k) / tf.sqrt(8.0) + (1.0 - mask) * -1e9
    weights = tf.nn.softmax(scores, axis=-1)
    out = tf.einsum("bqk,bkd->bqd", weights, v)
    heads = tf.transpose(tf.reshape(out, (2, 5, 2, 4)), [0, 2, 1, 3])
    return [weights, out, M.np.einsum("bqk,bkd->bqd", weights, v), heads]


def segment_aggregation(M, rng):
    data, ids = M.c(_n(rng, 6, 3)), M.c(np.array([0, 0, 1, 1, 1, 3], np.int32))
    unsorted = M.c(np.array([2, 0, 2, 1, 0, 2], np.int32))
    return [tf.math.segment_sum(data, ids), tf.math.segment_mean(data, ids),
            tf.math.segment_max(data, ids), tf.math.segment_prod(data, ids),
            tf.math.unsorted_segment_mean(data, unsorted, 4),
            tf.math.unsorted_segment_sqrt_n(data, unsorted, 3)]


def gather_scatter_gradient(M, rng):
    p, rows = M.Variable(_n(rng, 6, 3)), M.c(np.array([[0], [2], [2]], np.int64))
    with M.Tape() as tape:
        picked = tf.gather(p, M.c(np.array([1, 1, 4])))
        added = tf.tensor_scatter_nd_add(p, rows, picked)
        scattered = tf.scatter_nd(rows, picked, [6, 3])
        loss = tf.reduce_sum(added * scattered) + tf.reduce_sum(
            tf.gather_nd(p, M.c(np.array([[0, 1], [5, 2]]))))
    return [added, scattered, loss, tape.gradient(loss, p)]


def preprocessing(M, rng):
    x = M.c((rng.standard_normal((10, 3)) * 5 + 2).astype(np.float32))
    z = (x - M.np.mean(x, axis=0)) / M.np.std(x, axis=0)
    labels = M.c(np.array([0, 2, 1, 2, 0, 1, 1, 2, 0, 0]))
    top = tf.math.top_k(x[:, 2], k=3)
    return [z, M.np.clip(z, -1.5, 1.5), tf.one_hot(labels, 3, on_value=0.9, off_value=0.05),
            M.np.argsort(M.np.argsort(x[:, 0])), tf.argsort(x[:, 1], direction="DESCENDING"),
            top.values, top.indices, tf.sort(x, axis=0, direction="DESCENDING")]


def stft_mfcc_features(M, rng):
    stfts = tf.signal.stft(M.c(_n(rng, 2, 400)), frame_length=64, frame_step=32)
    magnitude = tf.abs(stfts)
    mel = tf.signal.linear_to_mel_weight_matrix(8, 33, 8000, 20.0, 4000.0)
    log_mel = tf.math.log(tf.tensordot(magnitude, mel, 1) + 1e-6)
    spectrum = tf.signal.rfft(M.c(_n(rng, 2, 64)))
    return [magnitude, log_mel, tf.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :4],
            tf.abs(spectrum), tf.signal.irfft(spectrum)]


def masked_sequence_loss(M, rng):
    logits, labels = M.c(_n(rng, 3, 5, 4)), M.c(rng.integers(0, 4, (3, 5)).astype(np.int32))
    lengths = M.c(np.array([5, 2, 3], np.int32))
    mask = tf.sequence_mask(lengths, maxlen=5, dtype=tf.float32)
    scale = M.Variable(np.float32(2.0))
    with M.Tape() as tape:
        ce = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        loss = tf.reduce_sum(tf.math.multiply_no_nan(ce * scale, mask)) / tf.reduce_sum(mask)
    backwards = tf.reverse_sequence(logits, lengths, seq_axis=1, batch_axis=0)
    return [loss, tape.gradient(loss, scale), tf.boolean_mask(ce, mask > 0), backwards]


def tapes_and_jacobians(M, rng):
    x, W = M.Variable(np.array([1.0, 2.0, 3.0], np.float32)), M.c(_n(rng, 3, 3))
    with M.Tape(persistent=True) as tape:
        y = tf.tanh(tf.linalg.matvec(W, x))
        z = tf.reduce_sum(y ** 2)
    results = [tape.gradient(z, x), tape.gradient(y, x), tape.jacobian(y, x)]
    xb = M.Variable(_n(rng, 4, 3))
    with M.Tape() as batch_tape:
        yb = tf.sin(xb) * tf.reduce_sum(xb, axis=1, keepdims=True)
    with M.Tape() as outer:
        with M.Tape() as inner:
            cubes = tf.reduce_sum(x ** 3)
        g = inner.gradient(cubes, x)
    return [*results, batch_tape.batch_jacobian(yb, xb), g, outer.jacobian(g, x)]


PROGRAMS = [logistic_regression, mlp_manual_adam, conv_classifier_step, einsum_attention,
            segment_aggregation, gather_scatter_gradient, preprocessing, stft_mfcc_features,
            masked_sequence_loss, tapes_and_jacobians]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_models_written_by_hand_match_tnp(program):
    """Lazy results equal TensorFlow's eager ones, with no fallback. Before
    this round, einsum_attention, stft_mfcc_features and masked_sequence_loss
    returned eager tensors for tf.einsum, rfft/irfft, the MFCC DCT and
    tf.reverse_sequence (lazy inputs materialized)."""
    want = program(EAGER, np.random.default_rng(6))
    metrics.reset()
    got = program(LAZY, np.random.default_rng(6))
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    for g in got:
        assert isinstance(g, ltf.Tensor), type(g)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_same(g, tf.convert_to_tensor(w), f"{program.__name__}[{i}]", precision="float32")


def test_unlowered_tensorflow_apis_count_as_eager_fallbacks():
    """A TensorFlow API that no table lowers converts its lazy arguments
    through ``__tf_tensor__`` and runs eagerly. That was an eager fallback
    the metrics never counted (tf.image.adjust_hue, tf.Tensor + lazy array);
    it is now counted under the API's name and warned once. Conversions the
    user asks for (tf.convert_to_tensor, tf.constant, np.asarray) are not
    fallbacks, and lowered APIs stay lazy and uncounted."""
    image = RNG.random((4, 4, 3)).astype(np.float32)
    x = lnp.asarray(image)
    metrics.reset()
    tf.convert_to_tensor(x), tf.constant(x), np.asarray(x)
    assert isinstance(tf.nn.relu(x), ltf.Tensor)
    assert metrics.as_dict()["fallbacks"] == {}
    spd = image[..., 0] @ image[..., 0].T + np.eye(4, dtype=np.float32)
    with pytest.warns(UserWarning, match="matrix_square_root is not lowered"):
        got = tf.linalg.sqrtm(lnp.asarray(spd))  # (adjust_hue, lowered since, was the example)
    np.testing.assert_allclose(got.numpy(), tf.linalg.sqrtm(spd).numpy(), rtol=1e-6)
    assert metrics.as_dict()["fallbacks"] == {"tf gen_linalg_ops.matrix_square_root": 1}
    assert metrics.as_dict()["counters"]["eager_fallbacks"] == 1
    # tf.Tensor + lazy array: lazy where TensorFlow dispatches the operator
    # to us (tnp's numpy behaviour on), else TensorFlow's eager add, counted
    before = metrics.as_dict()["counters"]["eager_fallbacks"]
    total = tf.ones((4, 4, 3)) + x
    ran_eagerly = not isinstance(total, ltf.Tensor)
    assert metrics.as_dict()["counters"]["eager_fallbacks"] == before + ran_eagerly
