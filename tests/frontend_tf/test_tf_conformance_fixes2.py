"""Bugs found by a second round of TensorFlow's own tf.experimental.numpy
tests (ci/tf_conformance.py: np_array_ops_test's StringArrayTest,
np_random_test, np_interop_test). Each case runs eagerly
(tensorflow.experimental.numpy) and lazily (lazytensor.tf.numpy) and must give
the same values, dtypes, types and error types."""

from __future__ import annotations

import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import lnp, tf, tnp

# ------------------------------------ np_array_ops_test: StringArrayTest
# Strings have no core dtype: lazytensor raised TypeError ('Cannot convert
# ... to a lazytensor.tf array') where tnp makes a string tensor. A tnp
# function given strings now runs eagerly in TensorFlow (a counted fallback)
# and returns tnp's own result, a tf.Tensor of dtype string.

STRINGS = {
    "array_str": lambda m: m.array("abcde\U0001f005", dtype="U8"),
    "array_bytes": lambda m: m.array(b"\0abcdef", dtype="S8"),
    "asarray_np_unicode": lambda m: m.asarray(np.array(["x", "yz"])),
    "asarray_np_str_scalar": lambda m: m.asarray(np.str_("q")),
    "array_tf_string": lambda m: m.array(tf.constant([b"p", b"q"])),
    "zeros_like": lambda m: m.zeros_like("abc"),
    "empty_like_bytes": lambda m: m.empty_like(b"abc", dtype="S8"),
    "where": lambda m: m.where([True, False], ["a", "b"], ["c", "d"]),
    "concatenate": lambda m: m.concatenate([["a"], ["b", "c"]]),
    "reshape": lambda m: m.reshape(["a", "b", "c", "d"], (2, 2)),
}


@pytest.mark.parametrize("case", sorted(STRINGS))
def test_string_data_runs_tnps_own_function(case):
    fn = STRINGS[case]
    want = fn(tnp)
    metrics.reset()
    got = fn(lnp)
    assert type(got) is type(want), (type(got), type(want))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert metrics.as_dict()["fallbacks"], "a string fallback is counted"


def test_string_errors_are_tnps():
    """Strings that tnp itself refuses give tnp's error type."""
    with pytest.raises(Exception) as want:
        tnp.add("a", 1)
    with pytest.raises(want.type):
        lnp.add("a", 1)


def test_numbers_next_to_strings_stay_lazy():
    """Numeric arrays still record lazily (no fallback) after a string call."""
    lnp.asarray(["a"])
    metrics.reset()
    x = lnp.asarray([1.0, 2.0]) * 3
    assert isinstance(x, lnp.ndarray)
    assert not metrics.as_dict()["fallbacks"]
    np.testing.assert_array_equal(x.numpy(), (tnp.asarray([1.0, 2.0]) * 3).numpy())
