"""max/min of an empty array give TensorFlow's identities (-inf/+inf, an
integer's lowest/highest, False/True) and argmax/argmin over an empty axis
raise TensorFlow's InvalidArgumentError, as eager tnp and tf do."""

from __future__ import annotations

import lazytensor.tf  # noqa: F401  (installs lazy arrays in TensorFlow's APIs)
import lazytensor.tf.numpy as lnp
import numpy as np
import pytest
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

_ARRAYS = {"float32 (0,)": ((0,), np.float32), "float64 (2, 0)": ((2, 0), np.float64),
           "float16 (0,)": ((0,), np.float16), "int32 (0, 3)": ((0, 3), np.int32),
           "uint8 (0,)": ((0,), np.uint8), "bool (0,)": ((0,), np.bool_)}
_REDUCTIONS = {
    "max": lambda m, x: m.max(x), "min": lambda m, x: m.min(x),
    "amax axis -1": lambda m, x: m.amax(x, axis=-1), "amin axis 0": lambda m, x: m.amin(x, axis=0),
    "max keepdims": lambda m, x: m.max(x, axis=-1, keepdims=True),
    "ptp": lambda m, x: m.ptp(x),
    "reduce_max": lambda m, x: tf.reduce_max(x), "reduce_min axis 0":
        lambda m, x: tf.math.reduce_min(x, axis=0),
}


def _bool_refused(array, reduction, **_) -> str | None:
    if _ARRAYS[array][1] is np.bool_ and reduction in ("ptp", "reduce_max", "reduce_min axis 0"):
        return "TensorFlow refuses bool there (a different concern)"
    return None


@pytest.mark.sweep("array", skips=_bool_refused, reason="every reduction on one empty array, "
                   "arrays in turn; the product is slow")
@pytest.mark.parametrize("reduction", sorted(_REDUCTIONS))
@pytest.mark.parametrize("array", sorted(_ARRAYS))
def test_empty_max_min_are_tensorflow_s_identities(array, reduction):
    shape, dtype = _ARRAYS[array]
    fn = _REDUCTIONS[reduction]
    reason = _bool_refused(array, reduction)
    if reason:
        pytest.skip(reason)
    expected = np.asarray(fn(tnp, tnp.zeros(shape, dtype)))
    actual = np.asarray(fn(lnp, lnp.zeros(shape, dtype)))
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


_ARGS = {"argmax": lambda m, x: m.argmax(x), "argmin": lambda m, x: m.argmin(x),
         "argmax axis 1": lambda m, x: m.argmax(x, axis=1),
         "argmin axis -2": lambda m, x: m.argmin(x, axis=-2),
         "tf.argmax": lambda m, x: tf.argmax(x), "tf.math.argmin axis 1":
             lambda m, x: tf.math.argmin(x, axis=1)}


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3), (2, 0, 3)])
@pytest.mark.parametrize("name", sorted(_ARGS))
def test_empty_argmax_argmin_raise_tensorflow_s_error(name, shape):
    fn = _ARGS[name]
    try:
        expected = np.asarray(fn(tnp, tnp.zeros(shape)))
    except (tf.errors.InvalidArgumentError, ValueError, IndexError) as exc:
        with pytest.raises(type(exc)) as info:
            np.asarray(fn(lnp, lnp.zeros(shape)))
        if "is empty" in str(exc):  # (an axis out of range: TF's wording differs)
            assert info.value.message in exc.message  # TF's adds the kernel's name
        return
    actual = np.asarray(fn(lnp, lnp.zeros(shape)))
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
