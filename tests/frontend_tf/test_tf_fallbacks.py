"""Eager fallbacks of TensorFlow APIs that are not lowered: counted, named,
gradients flowing through them; observations (tf.print, datasets) that are
not fallbacks. Each check runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes and shapes,
or the exception type."""


from __future__ import annotations

import sys

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import (
    assert_same,
    lnp,
    normal_f32,
    same_lazily,
    tf,
    tnp,
)

RNG = np.random.default_rng(6)


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


@pytest.mark.parametrize("case", ["batch_norm", "dawsn"])
def test_fallbacks_behind_weak_tensor_wrappers_name_the_api(case):
    x = np.random.default_rng(5).standard_normal((4, 3)).astype(np.float32)
    metrics.reset()
    if case == "batch_norm":
        want = tf.keras.layers.BatchNormalization()(tnp.asarray(x), training=True)
        got = tf.keras.layers.BatchNormalization()(lnp.asarray(x), training=True)
        expected = "tf resource_variable_ops.BaseResourceVariable.assign"
    else:
        want = tf.math.special.dawsn(tnp.asarray(x))
        got = tf.math.special.dawsn(lnp.asarray(x))
        expected = "tf special_math_ops.dawsn"
    fallbacks = metrics.as_dict()["fallbacks"]
    assert expected in fallbacks and not any("wrapper" in k for k in fallbacks), fallbacks
    assert_same(lnp.asarray(got), tnp.asarray(want), case, "float32")


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
