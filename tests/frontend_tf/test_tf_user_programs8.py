"""Bugs found by TensorFlow's own tf.experimental.numpy tests
(ci/tf_conformance.py) and an eighth round of tnp / TF user programs. Each
case runs eagerly (tensorflow.experimental.numpy) and lazily
(lazytensor.tf.numpy) and must give the same values, dtypes, shapes and
error types."""

from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tnp


def _both(fn):
    return fn(lnp), fn(tnp)


def _same_error(fn):
    with pytest.raises(Exception) as want:
        fn(tnp)
    with pytest.raises(want.type):
        fn(lnp)


# ------------------------------------------- np_array_ops_test: ArrayMethodsTest

REDUCE_DTYPE = {
    # tnp casts to an integer dtype first and averages in it (truncated mean);
    # lazytensor averaged in float64 (1.333..., float64: a silently wrong value)
    "mean_int": lambda m: m.mean([1.0, 2.0, 1.0], dtype=int),
    "mean_int32_axis": lambda m: m.mean([[1.0, 2.0], [2.0, 2.0], [-2.0, 1.0]], axis=0,
                                        dtype=np.int32),
    "mean_float32": lambda m: m.mean(np.array([1, 2, 4], np.int64), dtype=np.float32),
    # var computes in result_type(a, dtype) and casts the variance to dtype
    "var_int64": lambda m: m.var([1.0, 2.0, 1.0], dtype=np.int64),
    "var_float32_of_ints": lambda m: m.var(np.array([1, 5, 9], np.int32), dtype=np.float32),
    "var_float32_ddof": lambda m: m.var(np.array([1.0, 2.5, 4.0]), dtype=np.float32, ddof=1),
}


@pytest.mark.parametrize("case", sorted(REDUCE_DTYPE))
def test_reduction_dtype_argument(case):
    got, want = _both(REDUCE_DTYPE[case])
    assert_same(got, want, case)


OUT_ARGUMENT = {
    # tnp raises ValueError("Setting out is not supported."); lazytensor
    # ignored out= in mean/var (a silently unwritten buffer) and raised
    # TypeError for max/min/amax/amin
    "amax": lambda m: m.amax(np.ones([2, 2]), out=[]),
    "amin": lambda m: m.amin(np.ones([2, 2]), out=[]),
    "max": lambda m: m.max(np.ones([2, 2]), out=[]),
    "mean": lambda m: m.mean(np.ones([2, 2]), out=[]),
    "var": lambda m: m.var(np.ones([2, 2]), out=[]),
}


@pytest.mark.parametrize("case", sorted(OUT_ARGUMENT))
def test_out_argument_raises(case):
    _same_error(OUT_ARGUMENT[case])


def test_var_in_an_integer_dtype_raises():
    # tnp reduces in result_type(a, dtype): int32 has no variance kernel (TypeError)
    _same_error(lambda m: m.var(np.array([1, 5, 9], np.int32), dtype=np.int32))


def test_amax_keeps_keepdims_positionally():
    # tnp's signature is amax(a, axis=None, out=None, keepdims=None)
    x = np.arange(6.0).reshape(2, 3)
    got, want = _both(lambda m: m.amax(x, 1, None, True))
    assert_same(got, want)


def test_size_with_axis_raises_not_implemented():
    # tnp: NotImplementedError; lazytensor returned the total size
    _same_error(lambda m: m.size(np.ones((2, 2)), 1))
    assert lnp.size(np.ones((2, 3))) == tnp.size(np.ones((2, 3)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("args", [(-3, 2), (-3, 2, 2), (4,), (2.5,)])
def test_arange_complex_dtype(args, dtype):
    # lazytensor raised InvalidArgumentError (the core's arange has no complex dtype)
    got, want = _both(lambda m: m.arange(*args, dtype=dtype))
    assert_same(got, want)


def test_asarray_and_array_return_the_same_array():
    # tnp returns its argument when no conversion is needed (ArrayCreationTest.testAsArray)
    z = lnp.zeros(5)
    assert lnp.asarray(z) is z
    assert lnp.asanyarray(z) is z
    assert lnp.asarray(z, dtype=float) is z
    assert lnp.asarray(z, dtype=int) is not z
    assert lnp.array(z, copy=False) is z
    assert lnp.array(z, copy=False, ndmin=1) is z
    assert lnp.array(z, copy=False, ndmin=2) is not z
    assert lnp.array(z) is not z


# ---------------------------------------------- tests/np_test.py (JAX-port tests)

SPACES = {
    # array end points: lazytensor raised TypeError ("only 0-dimensional
    # arrays can be converted to Python scalars") for numpy arrays
    "linspace_arrays": lambda m: m.linspace(np.array([0.0, 1.0]),
                                            np.array([[1.0, 3.0], [2.0, 5.0]]), 5),
    "linspace_axis": lambda m: m.linspace(np.array([0.0, 1.0]), 4.0, 3, axis=1),
    "linspace_retstep": lambda m: m.linspace(np.array([0.0, 1.0], np.float32),
                                             np.array([2.0, 3.0], np.float32), 4,
                                             endpoint=False, retstep=True),
    "logspace_arrays": lambda m: m.logspace(np.array([0.0, 1.0]), np.array([2.0, 3.0]), 4,
                                            base=2),
    "logspace_axis": lambda m: m.logspace(np.array([[0.0], [1.0]]), 2.0, 3, axis=1),
    "geomspace_signs_axis": lambda m: m.geomspace(np.array([1.0, -2.0]),
                                                  np.array([100.0, -8.0]), 3, axis=1),
    "geomspace_array_scalar": lambda m: m.geomspace(np.array([1.0, 2.0]), 16.0, 5),
    "geomspace_no_endpoint": lambda m: m.geomspace(np.array([1.0, 2.0], np.float32),
                                                   np.array([16.0, 4.0], np.float32), 4,
                                                   endpoint=False),
    "geomspace_one": lambda m: m.geomspace(np.array([3.0, 2.0]), np.array([16.0, 4.0]), 1),
    "geomspace_none": lambda m: m.geomspace(np.array([3.0, 2.0]), np.array([16.0, 4.0]), 0),
    # order="F": lazytensor raised ValueError("Unsupported order argument F")
    "reshape_fortran": lambda m: m.reshape(np.arange(6), (3, -1), order="F"),
    "reshape_fortran_3d": lambda m: m.reshape(np.arange(24.0).reshape(2, 3, 4), (4, 6),
                                              order="F"),
    "reshape_fortran_empty": lambda m: m.reshape(np.zeros((7, 0)), (0, 42, 101), order="F"),
    "ones_numpy_float_shape": lambda m: m.ones(np.float32(2)),
}


@pytest.mark.parametrize("case", sorted(SPACES))
def test_spaces_of_array_end_points_and_fortran_reshape(case):
    got, want = _both(SPACES[case])
    assert_same(got, want, case)


@pytest.mark.parametrize("shape", [1.5, (2, 1.5)])
def test_float_shape_raises_type_error(shape):
    # tnp converts shapes to int32 tensors (TypeError); lazytensor truncated 1.5 to 1
    _same_error(lambda m: m.zeros(shape))


def test_broadcast_to_error_says_unable_to_broadcast():
    # testBroadcastToIssue1522 matches TensorFlow's message
    with pytest.raises(Exception) as want:
        tnp.broadcast_to(np.ones((2, 3)), (1, 3))
    with pytest.raises(want.type, match="Unable to broadcast tensor of shape"):
        lnp.broadcast_to(np.ones((2, 3)), (1, 3))


# -------------------------------------------- tests/np_indexing_test.py

@pytest.mark.parametrize("index", [0.0, (0, 0.0), np.float32(1.0), slice(0.5, 2), [0.0, 1.0],
                                   np.array([0.5])], ids=repr)
def test_float_index_raises_numpy_index_error(index):
    # under numpy behaviour tnp raises numpy's IndexError ("only integers, slices
    # ... are valid indices"); lazytensor raised IndexError with tf.Tensor's
    # message, TypeError for a float slice bound and InvalidArgumentError for a
    # float list
    with pytest.raises(IndexError) as want:
        tnp.zeros((2, 2))[index]
    with pytest.raises(IndexError, match="only integers, slices") as got:
        lnp.zeros((2, 2))[index]
    assert str(got.value) == str(want.value)
