"""Control flow with lazy values: tf.case/switch_case, monotonic checks,
functional control flow, map_fn, TensorArray, vectorized_map, gradients
through them. Each check runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes and shapes,
or the exception type."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lazy_and_eager, lnp, normal_f32, same_lazily, tf

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


def test_gradients_flow_through_lazy_control_flow():
    """A tape differentiates through tf.while_loop / tf.scan / tf.map_fn on
    lazy values (their bodies record lazily), as TensorFlow's tape does."""

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
