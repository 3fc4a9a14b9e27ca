"""Bugs found by running a fifth round of TensorFlow / tnp user programs:
each case runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy, with tf.*
calls on lazy arrays) and must give the same values, dtypes, shapes and
error types."""

from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import lnp, tf, tnp

UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]

# tf.math ops on unsigned data (pixel values, counts) that TensorFlow's
# kernels refuse: Neg, Abs, Sign, Pow and SquaredDifference have no unsigned
# types (tnp's functions of the same names compute numpy's result in lnp, a
# documented difference; tf.math follows the kernels' type lists)
UNSIGNED_CASES = {
    "abs": lambda x: tf.abs(x), "negative": lambda x: tf.math.negative(x),
    "sign": lambda x: tf.sign(x), "pow": lambda x: tf.pow(x, 2),
    "squared_difference": lambda x: tf.math.squared_difference(x, x),
}


@pytest.mark.parametrize("dtype", UNSIGNED)
@pytest.mark.parametrize("case", sorted(UNSIGNED_CASES))
def test_tf_math_refuses_unsigned_where_tensorflows_kernels_do(case, dtype):
    """``tf.abs``, ``tf.math.negative``, ``tf.sign``, ``tf.pow`` and
    ``tf.math.squared_difference`` of an unsigned lazy array computed
    wrapped-around values (``tf.math.negative`` of uint8 [1, 2] gave
    [255, 254]) where TensorFlow raises InvalidArgumentError: their kernel
    type lists were taken as every number type."""
    fn = UNSIGNED_CASES[case]
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(tnp.asarray([1, 2, 3], dtype=dtype))
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(lnp.asarray([1, 2, 3], dtype=dtype))


def test_tf_math_negation_abs_sign_pow_of_signed_integers_still_compute():
    """The same ops on int32 compute, as in TensorFlow."""
    for fn in UNSIGNED_CASES.values():
        want = fn(tnp.asarray([1, -2, 3], dtype="int32"))
        got = fn(lnp.asarray([1, -2, 3], dtype="int32"))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.dtype == want.dtype

