"""tf.image on lazy arrays: colour conversions, contrast, dtype conversion,
filters, gradients, PSNR/SSIM, stateless flips and crops, and their errors.
Each check runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy,
lazytensor.tf) and compares values, dtypes and shapes, or the exception
type."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import (
    assert_same,
    lazy_and_eager,
    lnp,
    same_lazily,
    tf,
)

RNG = np.random.default_rng(6)


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


HSV_EDGES = np.array([[0.5, 0.5, 0.5], [0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 1, 1],
                      [0, 0, 1], [1, 0, 1], [0.3, 0.3, 0.1], [0.2, 0.9, 0.9]], np.float32)


HUE_EDGES = np.array([0, 1 / 6, 2 / 6, 0.5, 4 / 6, 5 / 6, 1.0, 0.9999, 1.2, -0.1], np.float32)


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


def _image_op_skip(case, dtype, **_) -> str | None:
    if dtype != "float32" and case in ("to_uint8_saturate",):
        return "float arithmetic on an integer image: tnp promotion, not tf.image"
    if dtype == "float16" and case.startswith("adjust_contrast"):
        return "no float16 CPU kernel: test_tf_image_adjust_contrast_of_float16"
    return None


@pytest.mark.sweep("dtype", skips=_image_op_skip, reason="every image op in one dtype, dtypes "
                   "in turn; the dtype product is slow")
@pytest.mark.parametrize("dtype", sorted(IMAGES))
@pytest.mark.parametrize("case", sorted(IMAGE))
def test_tf_image_ops_record_lazily(case, dtype):
    """tf.image's crops, pads, rotations, dtype conversion and colour
    adjustments of lazy images materialized them and returned eager tensors
    (the table had only flips and resize); now they record core ops with
    TensorFlow's dtype handling (integer images scaled through float32 and
    back with saturation)."""
    reason = _image_op_skip(case, dtype)
    if reason:
        pytest.skip(reason)
    lazy_and_eager(IMAGE[case], IMAGES[dtype])


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


@pytest.mark.parametrize("case", sorted(IMAGE_ERRORS))
def test_tf_image_bad_arguments_raise_as_tensorflow(case):
    data = IMAGES["float32"]
    with pytest.raises(Exception) as eager:
        IMAGE_ERRORS[case](tf.constant(data))
    with pytest.raises(type(eager.value)):
        IMAGE_ERRORS[case](lnp.asarray(data))


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


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_image_gradients_and_psnr_record_lazily(dtype):
    """tf.image.image_gradients ran eagerly (TensorFlow's body calls the
    undispatched gen_array_ops.shape); tf.image.psnr's body calls
    tf.shape_n and the v1 tf.size, which converted its images: both are
    lowered now, so psnr's own body records lazily."""
    img = (np.random.default_rng(18).random((2, 5, 6, 3)) * 255).astype(dtype)

    def program(const):
        a = const(img)
        b = const((img * 0.8).astype(dtype))
        return [*tf.image.image_gradients(a), tf.image.psnr(a, b, 255),
                tf.shape_n([a, b[0]]), tf.compat.v1.size(a, out_type=tf.int64)]

    same_lazily(program, dtype, precision="float32")


def test_image_gradients_of_a_3d_image_raises_tensorflows_error():
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(ValueError, match="expects a 4D tensor"):
            tf.image.image_gradients(const(np.zeros((4, 4, 3), np.float32)))


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_ssim_records_lazily(dtype):
    """tf.image.ssim converted its lazy images at its top (a counted
    fallback); it runs TensorFlow's per-channel SSIM on lazy arrays now."""
    img = (np.random.default_rng(19).random((2, 9, 8, 3)) * 255).astype(dtype)

    def program(const):
        a, b = const(img), const((img * 0.7 + 20).astype(dtype))
        return [tf.image.ssim(a, b, 255, filter_size=3),
                tf.image.ssim(a[0], b[0], 255, filter_size=5, filter_sigma=1.0)]

    same_lazily(program, dtype, precision="float32")


def test_ssim_of_incompatible_images_raises_tensorflows_error():
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(ValueError):
            tf.image.ssim(const(np.zeros((4, 4, 3), np.float32)),
                          const(np.zeros((4, 5, 3), np.float32)), 1.0)
