"""Strings and other non-numeric data next to lazy arrays: tnp's own functions
run on them, numbers beside them stay lazy, non-numeric dtypes raise tnp's
errors, float axes truncate. Each check runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes and shapes,
or the exception type."""


from __future__ import annotations

import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import lnp, tf, tnp

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


# A non-numeric dtype argument (or dates) reached the core and raised JAX's
# TypeError ('Dtype |S2 is not a valid JAX array type'); tnp makes a string
# tensor or raises its own error
NON_NUMERIC_DTYPES = {
    "zeros_bytes": lambda m: m.zeros(2, dtype="S2"),
    "full_like_str": lambda m: m.full_like(np.ones(2), "x", dtype="S1"),
}


NON_NUMERIC_ERRORS = {
    "ones_str": lambda m: m.ones(2, dtype=str),
    "asarray_to_str": lambda m: m.asarray([1, 2], dtype=str),
    "dates": lambda m: m.asarray(np.array(["2020-01-01"], dtype="datetime64[D]")),
    "astype_str": lambda m: m.ones(2).astype(str),
    "astype_bytes": lambda m: m.ones(2).astype("S3"),
    "astype_object": lambda m: m.asarray([1.5]).astype(np.object_),
}


FLOAT_AXES = {
    "f32_scalar": lambda m: m.array(1.7, dtype=np.float32),
    "f64_pair": lambda m: m.array((1, 0), dtype=np.float64),
    "np_f64": lambda m: np.float64(1.0),
    "np_f64_array": lambda m: np.array([1.0, 0.0]),
    "negative": lambda m: m.array(-1.2, dtype=np.float32),
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


@pytest.mark.parametrize("case", sorted(NON_NUMERIC_DTYPES))
def test_string_dtype_arguments_run_tnps_own_function(case):
    fn = NON_NUMERIC_DTYPES[case]
    want = fn(tnp)
    got = fn(lnp)
    assert type(got) is type(want) and got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("case", sorted(NON_NUMERIC_ERRORS))
def test_non_numeric_dtypes_raise_tnps_error(case):
    fn = NON_NUMERIC_ERRORS[case]
    with pytest.raises(Exception) as want:
        fn(tnp)
    with pytest.raises(want.type) as got:
        fn(lnp)
    assert "JAX" not in str(got.value)


@pytest.mark.sweep("axis", reason="every function with one float axis form, "
                   "forms in turn; the product is slow")
@pytest.mark.parametrize("fn", ["sum", "prod", "amax", "max", "amin", "min", "mean", "var",
                                "std", "ptp", "nansum", "nanmean"])
@pytest.mark.parametrize("axis", sorted(FLOAT_AXES))
def test_float_array_axes_truncate_as_tnp(fn, axis):
    a = [[2.0, -3.0, 0.5], [-6.0, 7.0, 1.5]]
    want = getattr(tnp, fn)(a, axis=FLOAT_AXES[axis](tnp))
    got = getattr(lnp, fn)(a, axis=FLOAT_AXES[axis](lnp))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
