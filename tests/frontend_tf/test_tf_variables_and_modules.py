"""Variables and tf.Module: lazy variables listed as tf.Variables, trainable
flags, names, sparse reads, sliced assignment, scatters of IndexedSlices,
dtype checks of assign. Each check runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes and shapes,
or the exception type."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, tf, tnp


def _module_step(np_, variable):
    class Affine(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = variable(np.full((3, 2), 0.5, np.float32), name="w")
            self.b = variable(np.zeros((2,), np.float32), name="b")
            self.frozen = variable(np.ones((2,), np.float32), trainable=False)

        def __call__(self, x):
            return (np_.matmul(x, self.w) + self.b) * self.frozen

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Affine(), Affine()]

    net = Net()
    x = np_.asarray(np.arange(6, dtype=np.float32).reshape(2, 3) / 6)
    with tf.GradientTape() as t:
        loss = np_.sum(np_.square(net.layers[1](np_.concatenate([net.layers[0](x), x[:, :1]],
                                                                 axis=1))))
    grads = t.gradient(loss, net.trainable_variables)
    for g, v in zip(grads, net.trainable_variables, strict=True):
        v.assign_sub(0.1 * g)
    counts = np_.asarray([len(net.trainable_variables), len(net.variables)])
    return [loss, counts, *[np_.asarray(v) for v in net.trainable_variables]]


def sliced_variable_updates(np_, t):
    """``v[i].assign(x)`` (TensorFlow's sliced assignment) and the variable's
    scatter_nd_* methods write into the variable."""
    v = t.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))
    first = v[0, 1].assign(-1.0).numpy()
    v[1:, ::2].assign(np_.zeros((2, 2), dtype=np_.float32))
    v[np_.asarray(2), :].assign([5.0, 6.0, 7.0, 8.0])
    v.scatter_nd_update([[0, 0], [1, 1]], [9.0, 9.0])
    v.scatter_nd_add([[2]], np.ones((1, 4), np.float32))
    v.scatter_nd_sub([[0, 3]], [0.5])
    return [first, v.read_value(), v[1]]


def test_tf_module_lists_lazy_variables_as_tf_variables():
    want = _module_step(tnp, tf.Variable)
    metrics.reset()
    got = _module_step(lnp, ltf.Variable)
    assert not metrics.as_dict()["fallbacks"]
    assert_same(got, want, "tf.Module")


def test_tf_module_still_lists_tf_variables_and_skips_arrays():
    m = tf.Module()
    m.a, m.b, m.c = tf.Variable(1.0), ltf.Variable(2.0, trainable=False), lnp.ones(3)
    assert [v.name for v in m.trainable_variables] == ["Variable:0"]
    assert len(m.variables) == 2 and m.variables[1] is m.b


@pytest.mark.parametrize("trainable", [True, False])
def test_trainable_flag_decides_as_tensorflow(trainable):
    m = tf.Module()
    m.v = ltf.Variable(np.zeros(2, np.float32), trainable=trainable)
    assert len(m.trainable_variables) == int(trainable)
    assert len(m.non_trainable_variables) == int(not trainable)


def test_variable_names_and_sparse_read_as_tensorflow():
    host = np.arange(12, dtype=np.float32).reshape(4, 3)
    for name in (None, "w"):
        kw = {} if name is None else {"name": name}
        assert ltf.Variable(host, **kw).name == tf.Variable(host, **kw).name
    metrics.reset()
    got = ltf.Variable(host).sparse_read(lnp.asarray([3, 0, 3]))
    assert not metrics.as_dict()["fallbacks"]
    assert_same(got, tf.Variable(host).sparse_read(tnp.asarray([3, 0, 3])), "sparse_read")


def test_sliced_variable_assignment_matches_tf():
    assert_same(sliced_variable_updates(lnp, ltf), sliced_variable_updates(tnp, tf))


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


def test_assigning_a_float64_update_to_a_float32_variable_raises_as_tensorflow():
    """A numpy float64 learning rate makes the update float64 (numpy behaviour);
    assign_sub into a float32 variable raises TensorFlow's error type."""
    def run(np_, V):
        w = V(np.ones((2,), np.float32))
        update = np.float64(0.1) * np_.ones((2,), np.float32)
        assert update.dtype == tf.float64
        w.assign_sub(update)

    with pytest.raises(Exception) as want:
        run(tnp, tf.Variable)
    with pytest.raises(want.type):
        run(lnp, ltf.Variable)
