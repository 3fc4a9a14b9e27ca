"""tnp's semantics on lazy arrays (TensorFlow's own tf.experimental.numpy
tests): reductions' dtype and out arguments, keepdims, IndexedSlices as
arrays, arange/linspace, asarray identity, shapes and index errors,
conversions, format specs, prefer-float32 and strict-operator modes. Each
check runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy, lazytensor.tf)
and compares values, dtypes and shapes, or the exception type."""


from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp

PREFER_FLOAT32 = """
import numpy as np, tensorflow.experimental.numpy as tnp, lazytensor.tf.numpy as lnp
tnp.experimental_enable_numpy_behavior(prefer_float32=True)
x = np.array([0.25, 1.3, -2.7, 0.55])
for f in (lambda n: n.asarray(x) * 0.1, lambda n: n.mod(n.asarray(x), 0.7),
          lambda n: n.asarray(x) / np.float64(0.1), lambda n: n.log2(n.abs(n.asarray(x))),
          lambda n: n.asarray(x) - [0.1, 0.2, 0.3, 0.4], lambda n: n.asarray(x, n.float32) + 0.1):
    got, want = f(lnp), f(tnp)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
print("ok")
"""


STRICT_OPERATORS = """
import tensorflow as tf, lazytensor.tf.numpy as lnp
ti, li = tf.constant([1, 2, 3]), lnp.asarray([1, 2, 3], dtype=lnp.int32)
for expr in ("X * 1.5", "X - 1.5", "X / 1.5", "X < 1.5", "X == 1.5", "1.5 + X", "X + 1.5",
             "X ** 1j"):
    raised = []
    for X in (ti, li):
        try:
            eval(expr)
            raised.append(None)
        except Exception as error:
            raised.append(type(error).__name__)
    assert raised[0] == raised[1], (expr, raised)
print("ok")
"""


def complex_sample_paths(np_):
    """Points on a segment of the complex plane (a contour for a numerical
    integral): Python complex end points make a complex128 linspace."""
    return [np_.linspace(0, 1 + 1j, 5), np_.linspace(1j, 2j, 3),
            *np_.linspace(0, 1 + 1j, 3, retstep=True), np_.linspace(0j, 1, 4, endpoint=False),
            np_.linspace(2.5, 1j, 3, dtype="complex64")]


def _both(fn):
    return fn(lnp), fn(tnp)


def _same_error(fn):
    with pytest.raises(Exception) as want:
        fn(tnp)
    with pytest.raises(want.type):
        fn(lnp)


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


@pytest.mark.parametrize("args", [(0, -8, -4, "uint8"), (250, 3, -100, "int8"),
                                  (255, 0, -1, "uint8")])
def test_arange_out_of_a_small_integer_range_wraps_as_tnp(args):
    """tnp's arange casts tf.range's values (a C cast: -4 is 252 in uint8),
    where numpy raises OverflowError (the core's default since 6ccbe67)."""
    *bounds, dtype = args
    assert_same(lnp.arange(*bounds, dtype=dtype), tnp.arange(*bounds, dtype=dtype), str(args))


@pytest.mark.parametrize("case", ["variable_assign", "float_to_int", "int64_to_int32"])
def test_conversion_to_another_dtype_raises_as_for_tnp_arrays(case):
    def run(np_):
        if case == "variable_assign":
            return tf.Variable(np.zeros(2, np.float32)).assign(np_.asarray([1.0, 2.0]))
        value = np_.asarray([0.7, 1.2]) if case == "float_to_int" else np_.asarray([0, 1])
        return tf.convert_to_tensor(value, dtype=tf.int32)

    with pytest.raises(ValueError, match="requested dtype"):
        run(tnp)
    with pytest.raises(ValueError, match="requested dtype"):
        run(lnp)


def test_conversion_to_its_own_dtype_still_works():
    x = lnp.asarray(np.arange(3, dtype=np.float32))
    assert_same(lnp.asarray(tf.convert_to_tensor(x, dtype=tf.float32)),
                tnp.asarray(np.arange(3, dtype=np.float32)), "same dtype")
    v = tf.Variable(np.zeros(3, np.float32))
    v.assign(x)
    np.testing.assert_array_equal(v.numpy(), np.arange(3, dtype=np.float32))


def test_format_specs_read_the_value_as_tf_tensor():
    # print(f"loss {loss:.4f}") is how training loops report; f"{x}" shows the value
    for spec in (".4f", "", "8.2e"):
        want = format(tnp.asarray(1.23456, tnp.float32), spec)
        assert format(lnp.asarray(1.23456, lnp.float32), spec) == want
    assert f"{lnp.arange(3)}" == f"{tnp.arange(3)}"
    with pytest.raises(TypeError):
        format(lnp.arange(3), ".2f")


def test_prefer_float32_scalars_convert_once_to_the_result_dtype():
    # tnp converts a Python / numpy float operand straight to the promoted
    # dtype: float64 array * 0.1 is not rounded through float32 first
    proc = subprocess.run([sys.executable, "-c", PREFER_FLOAT32], capture_output=True,
                          text=True, timeout=300, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": ""})
    assert proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


def test_strict_operators_raise_tensorflows_error_types():
    # without numpy behaviour, int32 tensor * 1.5 is TensorFlow's TypeError (x + 1.5:
    # InvalidArgumentError, the kernel's)
    proc = subprocess.run([sys.executable, "-c", STRICT_OPERATORS], capture_output=True,
                          text=True, timeout=300, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": ""})
    assert proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


def test_linspace_with_python_complex_end_points_matches_tnp():
    """``linspace(0, 1 + 1j, 5)`` raised TypeError (the end points were cast
    to the default float)."""
    assert_same(complex_sample_paths(lnp), complex_sample_paths(tnp))


def test_ndarray_size_is_numpy_int64_as_tnp():
    """``x.size`` of a lazy array was a Python int; tnp's is ``np.prod`` of
    the shape (numpy's int64; float64 1.0 for a 0-d array)."""
    for shape in ((4, 5), (), (0, 3)):
        want, got = tnp.ones(shape).size, lnp.ones(shape).size
        assert type(got) is type(want) and got == want
        assert type(got / 2) is type(want / 2)


@pytest.mark.parametrize("case", sorted(REDUCE_DTYPE))
def test_reduction_dtype_argument(case):
    got, want = _both(REDUCE_DTYPE[case])
    assert_same(got, want, case)


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


def test_asarray_of_indexed_slices_is_the_dense_gradient():
    # a gather's gradient is a tf.IndexedSlices; tnp.asarray/array make it dense
    # (ArrayCreationTest.testIndexedSlices); lazytensor raised TypeError
    emb = tf.Variable(np.arange(12.0).reshape(4, 3))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(emb, [1, 3, 1]) ** 2)
    grad = tape.gradient(y, emb)
    assert isinstance(grad, tf.IndexedSlices)
    for fn in (lambda m: m.asarray(grad), lambda m: m.array(grad, copy=False),
               lambda m: m.sum(m.asarray(grad) * 2.0, axis=0)):
        got, want = _both(fn)
        assert_same(got, want)


def test_array_of_indexed_slices_with_lazy_values():
    # ArrayCreationTest.testIndexedSlices: the slices' values are tnp arrays;
    # TensorFlow's own densifying returned a lazy array where it wanted a
    # tf.Tensor (RuntimeError)
    def dense(m):
        slices = tf.IndexedSlices(values=m.ones([2, 3], dtype=np.int64),
                                  indices=tf.constant([1, 9]), dense_shape=[10, 3])
        return m.array(slices, copy=False)

    got, want = _both(dense)
    assert_same(got, want)
