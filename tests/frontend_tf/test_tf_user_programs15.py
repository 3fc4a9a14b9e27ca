"""Regression tests for what the round-14 user programs
(test_tf_user_programs14.py) found: TensorFlow APIs that took lazy arrays
eagerly (materialized them, a counted fallback) though the core can express
them, and observations counted as fallbacks. Each compares with eager
TensorFlow on the same values (values, dtype, shape) and checks that the
lazy run has no fallback."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, normal_f32, same_lazily, tf

# ------------------------------------------------- observations, not fallbacks

def test_tf_print_of_lazy_values_prints_tensorflows_text_without_a_fallback(capfd):
    """tf.print of a lazy array is an observation (as print): it was counted
    as the eager fallback logging_ops.print_v2."""
    x = normal_f32(1, 2, 3)

    def program(const):
        v = const(x)
        tf.print("x:", v, "max:", tf.reduce_max(v), output_stream=sys.stdout)
        return v * 2

    same_lazily(program)
    lines = capfd.readouterr().out.strip().splitlines()[-4:]
    assert lines[2:] == lines[:2] and lines[0].startswith("x: [[")


def test_a_dataset_of_lazy_values_is_an_observation_not_a_fallback():
    """tf.data.Dataset.from_tensor_slices / from_tensors of lazy arrays hand
    them to TensorFlow's input pipeline (counted as eager fallbacks before);
    the batches are TensorFlow's."""
    x, y = normal_f32(2, 10, 3), np.arange(10, dtype=np.int32)

    def program(const):
        ds = tf.data.Dataset.from_tensor_slices((const(x), const(y)))
        batches = [(a, b) for a, b in ds.shuffle(10, seed=1).batch(4)]
        whole = next(iter(tf.data.Dataset.from_tensors(const(x) * 2)))
        return [lnp.asarray(t) for pair in batches for t in pair] + [lnp.asarray(whole)]

    same_lazily(program)


# ------------------------------------------------------------------- bitcast

@pytest.mark.parametrize(("src", "to", "shape"), [
    ("float32", "int32", (2, 3)), ("float32", "uint8", (4,)), ("int16", "float32", (3, 2)),
    ("float64", "int64", (2,)), ("uint8", "float16", (5, 2)), ("float16", "int16", (3,))])
def test_bitcast_records_lazily(src, to, shape):
    """tf.bitcast (Keras's signbit, called by its metrics) ran eagerly."""
    size = int(np.prod(shape)) * np.dtype(src).itemsize
    raw = np.random.default_rng(3).integers(0, 255, size, dtype=np.uint8)
    x = raw.view(src).reshape(shape)
    if np.dtype(src).kind == "f":  # NaN payloads aside
        x = np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0)
    same_lazily(lambda const: tf.bitcast(const(x), getattr(tf, to)), f"{src}->{to}")


def test_bitcast_of_bool_or_an_unfit_axis_raises_tensorflows_error():
    for x, to in ((np.array([True, False]), tf.int8), (np.zeros(3, np.int16), tf.float32)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.bitcast(tf.constant(x), to)
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.bitcast(lnp.asarray(x), to)


# ---------------------------------------------------------------- global_norm

def test_global_norm_records_lazily():
    """tf.linalg.global_norm ran eagerly; None entries are skipped."""
    a, b = normal_f32(4, 3, 2), normal_f32(5, 4)
    same_lazily(lambda const: tf.linalg.global_norm([const(a), None, const(b)]))
    same_lazily(lambda const: tf.linalg.global_norm((const(a).astype(np.float64),)))


def test_global_norm_of_a_non_sequence_raises_tensorflows_type_error():
    with pytest.raises(TypeError, match="should be a sequence"):
        tf.linalg.global_norm(tf.constant(normal_f32(6, 3)))
    with pytest.raises(TypeError, match="should be a sequence"):
        tf.linalg.global_norm(lnp.asarray(normal_f32(6, 3)))


# ------------------------------------------------------ stateless draws on data

@pytest.mark.parametrize("kind", ["number", "tensor", "noise_shape", "zero"])
def test_stateless_dropout_is_tensorflows_mask(kind):
    """tf.nn.experimental.stateless_dropout ran eagerly; now TensorFlow
    draws the mask from the seed and the data part records lazily: the
    same elements kept, scaled as TensorFlow scales them."""
    x = normal_f32(7, 4, 6)

    def program(const):
        v = const(x)
        if kind == "number":
            return tf.nn.experimental.stateless_dropout(v, 0.4, seed=[3, 9])
        if kind == "tensor":
            return tf.nn.experimental.stateless_dropout(v, tf.constant(0.25), seed=[1, 2])
        if kind == "noise_shape":
            return tf.nn.experimental.stateless_dropout(v, 0.5, seed=(5, 5),
                                                        noise_shape=[4, 1])
        return tf.nn.experimental.stateless_dropout(v, 0.0, seed=[0, 0])

    same_lazily(program, kind)


def test_stateless_dropout_of_integers_raises_tensorflows_error():
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(ValueError, match="floating point"):
            tf.nn.experimental.stateless_dropout(const(np.ones(3, np.int32)), 0.5, seed=[1, 1])


@pytest.mark.parametrize("shape", [(7,), (5, 3)])
def test_stateless_shuffle_is_tensorflows_order(shape):
    x = normal_f32(8, *shape)
    same_lazily(lambda const: tf.random.experimental.stateless_shuffle(const(x), seed=[4, 2]))


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
@pytest.mark.parametrize("rank", [3, 4])
def test_stateless_image_flips_and_crops_are_tensorflows(dtype, rank):
    """tf.image.stateless_random_flip_left_right / up_down and
    stateless_random_crop ran eagerly."""
    shape = (5, 6, 4, 3)[4 - rank:]
    img = (np.random.default_rng(9).random(shape) * 255).astype(dtype)

    def program(const):
        v = const(img)
        out = []
        for seed in ([1, 2], [3, 4], [7, 0]):
            out.append(tf.image.stateless_random_flip_left_right(v, seed=seed))
            out.append(tf.image.stateless_random_flip_up_down(v, seed=seed))
            out.append(tf.image.stateless_random_crop(v, shape[:-3] + (3, 2, 3), seed=seed))
        return out

    same_lazily(program, f"{dtype} rank {rank}")


# -------------------------------------------------------- histogram bins, LU

def test_histogram_fixed_width_bins_records_lazily():
    """tf.histogram_fixed_width_bins ran eagerly: values outside the range
    land in the end bins, the shape is kept, the result is int32."""
    x = normal_f32(10, 4, 5) * 2
    x[0, 0], x[1, 1] = 9.0, -9.0
    same_lazily(lambda const: tf.histogram_fixed_width_bins(const(x), [-2.0, 2.0], nbins=7))
    same_lazily(lambda const: tf.histogram_fixed_width_bins(
        const(x.astype(np.float64)), const(np.array([-1.0, 3.0])), nbins=4, dtype=tf.int64))


@pytest.mark.parametrize("batch", ["none", "both", "rhs"])
def test_lu_solve_records_lazily(batch):
    """tf.linalg.lu_solve of tf.linalg.lu's factors ran eagerly."""
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((2, 4, 4)) + 3 * np.eye(4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 3)).astype(np.float32)
    a, b = {"none": (a[0], b[0]), "both": (a, b), "rhs": (a[0], b)}[batch]

    def program(const):
        lu, perm = tf.linalg.lu(const(a))
        return tf.linalg.lu_solve(lu, perm, const(b))

    same_lazily(program, batch, precision="float32")


# ------------------------------------------------- functional control flow

@pytest.mark.parametrize("api", ["cond", "while_loop", "map_fn", "scan", "scan_reverse",
                                 "foldl", "foldr"])
def test_functional_control_flow_runs_lazily(api):
    """tf.cond/while_loop/map_fn/scan/foldl/foldr converted their lazy
    predicate, elements or final loop variables (materialized: counted
    fallbacks, eager results); they now loop over lazy slices and return
    lazy arrays."""
    x = normal_f32(12, 4, 3)

    def program(const):
        v = const(x)
        if api == "cond":
            return tf.cond(tf.reduce_sum(v) > 100, lambda: v * 2, lambda: v - 1)
        if api == "while_loop":
            return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 0.5 + v[i]),
                                 [0, v[0] * 0])
        if api == "map_fn":
            return tf.map_fn(lambda row: tf.reduce_max(row), v)
        if api.startswith("scan"):
            return tf.scan(lambda a, row: a * 0.5 + row, v, reverse=api == "scan_reverse")
        fold = tf.foldl if api == "foldl" else tf.foldr
        return fold(lambda a, row: a * 2.0 + tf.reduce_sum(row), v,
                    initializer=tf.constant(1.0))

    got = same_lazily(program, api, precision="float32")
    assert isinstance(tf.nest.flatten(got)[-1], lnp.ndarray)


def test_map_fn_without_a_signature_needs_the_elements_structure():
    x = normal_f32(13, 3, 2)
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(ValueError, match="same nested structure"):
            tf.map_fn(lambda pair: pair[0][0] - pair[1], (const(x), const(x[:, 0])))


def test_a_lazy_array_an_undispatched_api_converts_from_a_closure_is_a_counted_fallback():
    """tf.while_loop (wrapped by lazytensor for dispatch) over TensorFlow
    values, with a lazy array in its body's closure, converts the lazy
    result at its end: that eager fallback went uncounted (the wrapper's
    frame was taken for lazytensor's own conversion). tf.map_fn with a
    closure's lazy array stays lazy (its TensorArray keeps lazy writes;
    set_shape on a lazy array is tf.Tensor's check). Values are TensorFlow's."""
    x = normal_f32(14, 4, 3)

    def program(const):
        v = const(x)
        mapped = tf.map_fn(lambda i: v[i] * 2, tf.range(3), fn_output_signature=tf.float32)
        _, looped = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 0.5 + v[i]),
                                  [0, tf.zeros(3)])
        return [mapped, looped]

    want = program(tf.constant)
    metrics.reset()
    got = program(lnp.asarray)
    assert metrics.as_dict()["fallbacks"] == {"tf while_loop.while_loop_v2": 1}
    assert isinstance(got[0], lnp.ndarray)
    assert_same(got, want, precision="float32")
    with pytest.raises(ValueError, match="not compatible"):
        got[0].set_shape([4])


def test_a_lazy_shape_or_seed_of_a_random_op_is_read_not_a_fallback():
    """tf.random.stateless_normal(tf.shape(x), ...), a Generator's
    normal(tf.shape(x)) and uniform([tf.shape(x)[0], 2]) counted the shape
    they read (TensorFlow draws, as tnp.random's draws) as eager fallbacks;
    data arguments (a lazy minval, tf.random.shuffle of lazy data) still
    count."""
    x = normal_f32(15, 4, 3)

    def program(const):
        v = const(x)
        g = tf.random.Generator.from_seed(5)
        return [v + tf.random.stateless_normal(tf.shape(v), seed=const(np.array([1, 2]))),
                v * g.normal(tf.shape(v)), g.uniform([tf.shape(v)[0], 2])]

    same_lazily(program)
    metrics.reset()
    tf.random.uniform([2], minval=lnp.asarray(x)[0, 0])
    assert metrics.as_dict()["fallbacks"] == {"tf random_ops.random_uniform": 1}


# ---------------------------------------------------- TensorArray, vectorized_map

def test_a_tensor_array_keeps_lazy_writes():
    """tf.TensorArray.write of a lazy array converted it (a counted fallback
    per write, eager results); writes, dynamic growth, an unwritten slot,
    read/stack/gather/concat now stay lazy and equal TensorFlow's."""
    x = normal_f32(16, 5, 3)

    def program(const):
        v = const(x)
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        h = v[0] * 0
        for i in range(5):
            h = tf.tanh(h * 0.5 + v[i])
            ta = ta.write(i + (i > 2), h)  # slot 3 stays unwritten: zeros
        return [ta.stack(), ta.read(4), ta.gather([0, 5]), ta.concat(), ta.size()]

    got = same_lazily(program)
    assert isinstance(got[0], lnp.ndarray)


def test_a_tensor_array_refuses_a_lazy_write_as_tensorflow_does():
    for const in (tf.constant, lnp.asarray):
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[3])
        with pytest.raises(tf.errors.InvalidArgumentError, match="dtype is float32"):
            ta.write(0, const(np.zeros(3, np.int32)))
        with pytest.raises(tf.errors.OutOfRangeError, match="not resizeable"):
            ta.write(2, const(np.zeros(3, np.float32)))
        with pytest.raises(ValueError, match="Incompatible shape"):
            ta.write(1, const(np.zeros(2, np.float32)))


def test_vectorized_map_of_lazy_elements_runs_lazily():
    """tf.vectorized_map converted lazy elements (a counted fallback)."""
    x = normal_f32(17, 4, 3)
    same_lazily(lambda const: tf.vectorized_map(lambda r: tf.tensordot(r, r, 0), const(x)),
          precision="float32")
    same_lazily(lambda const: tf.vectorized_map(lambda p: (p[0] * 2, tf.reduce_sum(p[1])),
                                          (const(x), const(x[:, :2]))))


# ------------------------------------------------------------ image metrics

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


# ------------------------------------------------------- compute_average_loss

def test_compute_average_loss_records_lazily():
    """tf.nn.compute_average_loss (custom training loops' loss reduction)
    converted its lazy per-example losses (a counted fallback)."""
    x, w = normal_f32(20, 6, 3) ** 2, np.abs(normal_f32(21, 6))

    def program(const):
        loss = const(x)
        return [tf.nn.compute_average_loss(loss[:, 0]),
                tf.nn.compute_average_loss(loss[:, 0], global_batch_size=16),
                tf.nn.compute_average_loss(loss, sample_weight=const(w)),
                tf.nn.compute_average_loss(loss[:, :1], sample_weight=const(w[:, None, None])),
                tf.nn.compute_average_loss(loss[:, 1], sample_weight=0.5,
                                           global_batch_size=tf.constant(3))]

    same_lazily(program, precision="float32")


def test_compute_average_loss_errors_are_tensorflows():
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(ValueError, match="at least rank 1"):
            tf.nn.compute_average_loss(const(np.float32(1.0)))
        with pytest.raises(TypeError, match="must be an integer"):
            tf.nn.compute_average_loss(const(np.ones(3, np.float32)), global_batch_size=2.5)


# ---------------------------------------------------------------- debugging

def test_debugging_checks_keep_lazy_values_and_assertions_observe():
    """tf.debugging.check_numerics / assert_all_finite and tf.ensure_shape
    returned eager copies of lazy inputs (counted fallbacks; the program and
    a tape's path left the lazy graph); tf.debugging.assert_* counted their
    look at the values as fallbacks. The checks return the lazy input now,
    gradients flow through them, and assertions are observations."""
    x = normal_f32(22, 4, 3)

    def program(const):
        v = const(x)
        tf.debugging.assert_near(v, v * 1.0)
        tf.debugging.assert_less(v, 100.0)
        tf.debugging.assert_rank(v, 2)
        checked = tf.ensure_shape(tf.debugging.check_numerics(v * 2, "bad"), [None, 3])
        return [checked, tf.debugging.assert_all_finite(v, "bad") + 1]

    got = same_lazily(program)
    assert all(isinstance(t, lnp.ndarray) for t in got)
    import lazytensor.tf as ltf

    w = ltf.Variable(x)
    with ltf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.debugging.check_numerics(w * w, "bad"))
    assert_same(tape.gradient(loss, w), lnp.asarray(2 * x))


@pytest.mark.parametrize("check", ["check_numerics", "assert_all_finite", "ensure_shape",
                                   "assert_less"])
def test_failed_debugging_checks_raise_tensorflows_errors(check):
    bad = np.array([1.0, np.nan, np.inf], np.float32)
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(tf.errors.InvalidArgumentError):
            if check == "ensure_shape":
                tf.ensure_shape(const(bad), [2])
            elif check == "assert_less":
                tf.debugging.assert_less(const(bad), 0.5)
            else:
                getattr(tf.debugging, check)(const(bad), "bad values")


def test_gradients_flow_through_lazy_control_flow():
    """A tape differentiates through tf.while_loop / tf.scan / tf.map_fn on
    lazy values (their bodies record lazily), as TensorFlow's tape does."""
    import lazytensor.tf as ltf

    x0 = np.array([0.5, -0.3], np.float32)
    ones = np.ones((3, 2), np.float32)

    def run(variable, tape_cls, const):
        w = variable(np.float32(0.9))
        with tape_cls() as tape:
            _, h = tf.while_loop(lambda i, h: i < 4,
                                 lambda i, h: (i + 1, tf.tanh(h * w + 0.1)), (0, const(x0)))
            s = tf.scan(lambda a, e: a * w + e, const(ones), initializer=const(x0))
            m = tf.map_fn(lambda r: r * w, const(ones))
            loss = tf.reduce_sum(h) + tf.reduce_sum(s) + tf.reduce_sum(m)
        return [loss, tape.gradient(loss, w)]

    want = run(tf.Variable, tf.GradientTape, tf.constant)
    metrics.reset()
    got = run(ltf.Variable, ltf.GradientTape, lnp.asarray)
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert_same(got, want, precision="float32")


def test_compat_v2_names_of_undispatched_apis_take_lazy_arrays():
    """``import tensorflow.compat.v2 as tf`` (as TensorFlow's own tnp tests
    and older code do) reached the unwrapped tf.map_fn / tf.einsum /
    tf.vectorized_map: lazy elements were converted (eager results). Found
    by np_interop_test's testMapFn and testPForInterop."""
    import tensorflow.compat.v2 as tf2

    x = normal_f32(23, 3, 2)

    def program(const):
        v = const(x)
        return [*tf2.map_fn(lambda p: (p[0] + 1, p[1] * 2), (v, v)),
                tf2.einsum("ij,kj->ik", v, v), tf2.vectorized_map(lambda r: r * 3, v)]

    got = same_lazily(program, precision="float32")
    assert all(isinstance(t, lnp.ndarray) for t in got)
