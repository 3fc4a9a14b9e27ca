"""tf.einsum, tf.linalg.slogdet and lu_solve record lazily, with TensorFlow's
integer support and errors. Each check runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes and shapes,
or the exception type."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import lazy_and_eager, lnp, same_lazily, tf

RNG = np.random.default_rng(6)


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
