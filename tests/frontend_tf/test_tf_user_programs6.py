"""Bugs found by a sixth round of TensorFlow / tnp user programs, and the
TensorFlow APIs that ran eagerly on lazy arrays (tf.einsum, slogdet,
rfft/irfft, tf.image): each case runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, with tf.* calls on lazy arrays) and must give the same
values, dtypes, shapes and error types, with no eager fallback."""

from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp

import lazytensor.tf as ltf
from lazytensor.core import metrics

RNG = np.random.default_rng(6)


def _lazy_and_eager(fn, *arrays, precision=None):
    """fn on lazy arrays (a lazy result, no fallback) and on eager tensors."""
    metrics.reset()
    got = fn(*[lnp.asarray(a) for a in arrays])
    for g in got if isinstance(got, (list, tuple)) else [got]:
        assert isinstance(g, ltf.Tensor), type(g)
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    want = fn(*[tf.constant(a) for a in arrays])
    assert_same(got, want, precision=precision)
    return got


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

