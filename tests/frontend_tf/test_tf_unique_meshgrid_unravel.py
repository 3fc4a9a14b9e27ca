"""TensorFlow APIs that ran eagerly on lazy arrays: tf.unique,
tf.unique_with_counts, tf.unravel_index, tf.meshgrid, with TensorFlow's
orders, dtypes and errors. Each check runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes and shapes,
or the exception type."""


from __future__ import annotations

import lazytensor.tf as ltf  # noqa: F401  (installs the tf_api tables)
import numpy as np
import pytest
from lazytensor.core import metrics
from tf_helpers import assert_same, lnp, tf

NAN = float("nan")


def _lazy_same(fn, *values, name: str) -> None:
    """fn(tf constants) eagerly and fn(lazy arrays) lazily agree, no fallback."""
    want = fn(*[tf.constant(v) for v in values])
    metrics.reset()
    got = fn(*[lnp.asarray(v) for v in values])
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert all(isinstance(g, lnp.ndarray) for g in got), name
    assert_same(list(got), list(want), name)


UNIQUE_CASES = {
    "ints": np.array([5, 1, 5, 2, 1, 7, 2], np.int32),
    "int64": np.array([9, -3, 9, 0, -3], np.int64),
    "int8": np.array([3, 3, 1, 2], np.int8),
    "floats_nan_zero": np.array([3.0, NAN, 1.0, NAN, -0.0, 0.0, 3.0], np.float32),
    "float64": np.array([0.5, 0.25, 0.5, 1e300], np.float64),
    "bools": np.array([True, False, True], np.bool_),
    "one": np.array([4], np.int32),
    "all_equal": np.array([2.0, 2.0, 2.0], np.float32),
}


UNRAVEL_CASES = [
    (np.array([5, 7, 0], np.int32), [2, 4]),
    (np.int32(5), [2, 4]),
    (np.array([1, 2], np.int64), np.array([3, 1], np.int64)),
    (np.array([23, 4], np.int64), [2, 3, 4]),
    (np.array([-1], np.int32), [2, 4]),  # the kernel's truncating division
    (np.array([], np.int32), [3]),
]


@pytest.mark.parametrize("case", sorted(UNIQUE_CASES))
@pytest.mark.parametrize("out_idx", [None, tf.int64])
def test_unique_is_first_occurrence_order(case, out_idx):
    kw = {} if out_idx is None else {"out_idx": out_idx}
    _lazy_same(lambda x: tf.unique(x, **kw), UNIQUE_CASES[case], name=f"unique {case}")


@pytest.mark.parametrize("case", sorted(UNIQUE_CASES))
@pytest.mark.parametrize("out_idx", [None, tf.int64])
def test_unique_with_counts(case, out_idx):
    kw = {} if out_idx is None else {"out_idx": out_idx}
    _lazy_same(lambda x: tf.unique_with_counts(x, **kw), UNIQUE_CASES[case],
               name=f"unique_with_counts {case}")


def test_unique_of_empty_and_fields():
    _lazy_same(tf.unique_with_counts, np.zeros((0,), np.float32), name="empty")
    got = tf.unique(lnp.asarray(np.array([2, 1, 2], np.int32)))
    want = tf.unique(tf.constant([2, 1, 2]))
    assert_same([got.y, got.idx], [want.y, want.idx], "named fields")


def test_unique_in_a_lazy_program():
    def program(x):
        y, idx, count = tf.unique_with_counts(x * 2)
        return [tf.gather(y, idx) + 1, tf.reduce_sum(count)]

    x = np.array([4, 1, 4, 3, 1, 1], np.int32)
    _lazy_same(program, x, name="program")


@pytest.mark.parametrize("value", [np.ones((2, 2), np.int32), np.int32(3)])
def test_unique_of_non_vector_raises_as_tensorflow(value):
    for fn in (tf.unique, tf.unique_with_counts):
        with pytest.raises(tf.errors.InvalidArgumentError, match="1D vector"):
            fn(tf.constant(value))
        with pytest.raises(tf.errors.InvalidArgumentError, match="1D vector"):
            fn(lnp.asarray(value))


@pytest.mark.parametrize("case", range(len(UNRAVEL_CASES)))
def test_unravel_index(case):
    indices, dims = UNRAVEL_CASES[case]
    if not np.asarray(indices).size:  # TensorFlow refuses empty indices
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.unravel_index(tf.constant(indices), dims)
        return
    want = tf.unravel_index(tf.constant(indices), dims)
    metrics.reset()
    got = tf.unravel_index(lnp.asarray(indices), dims)
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert isinstance(got, lnp.ndarray)
    assert_same(got, want, f"unravel_index {case}")


@pytest.mark.parametrize("indices, dims", [
    (np.array([[1, 2]], np.int32), [3, 4]),  # 2-d indices
    (np.array([1], np.int32), [2, 0]),  # a zero dim
])
def test_unravel_index_errors_as_tensorflow(indices, dims):
    with pytest.raises(tf.errors.InvalidArgumentError) as want:
        tf.unravel_index(tf.constant(indices), dims)
    with pytest.raises(tf.errors.InvalidArgumentError) as got:
        tf.unravel_index(lnp.asarray(indices), dims)
    assert type(got.value) is type(want.value)
    assert str(want.value).split("}} ")[-1].split(" [Op")[0] in str(got.value)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_meshgrid(indexing, n):
    values = [np.arange(2 + i, dtype=np.float32) * (i + 1) for i in range(n)]
    _lazy_same(lambda *xs: tf.meshgrid(*xs, indexing=indexing), *values,
               name=f"meshgrid {indexing} {n}")


def test_meshgrid_flattens_and_keeps_int_dtype():
    _lazy_same(lambda a, b: tf.meshgrid(a, b), np.arange(4, dtype=np.int32).reshape(2, 2),
               np.int32(7), name="meshgrid n-d")


def test_meshgrid_bad_indexing_raises_as_tensorflow():
    with pytest.raises(ValueError, match="indexing"):
        tf.meshgrid(tf.constant([1, 2]), indexing="ji")
    with pytest.raises(ValueError, match="indexing"):
        tf.meshgrid(lnp.asarray(np.array([1, 2], np.int32)), indexing="ji")


def test_meshgrid_mixed_dtypes_promote_as_numpy_behaviour():
    # tf_helpers turns numpy behaviour on: TensorFlow's Mul then promotes
    _lazy_same(lambda a, b: tf.meshgrid(a, b), np.array([1, 2], np.int32),
               np.array([0.5, 1.5, 2.5], np.float32), name="meshgrid mixed")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "uint8", "int16", "uint32"])
def test_unique_of_narrow_dtypes(dtype):
    x = np.array([3, 1, 3, 0, 1], np.float32)
    want = tf.unique_with_counts(tf.cast(tf.constant(x), dtype))
    metrics.reset()
    got = tf.unique_with_counts(tf.cast(lnp.asarray(x), dtype))
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert_same(list(got), list(want), dtype)


@pytest.mark.filterwarnings("ignore:lazytensor.tf")
def test_unique_bad_out_idx_raises_as_tensorflow():
    # an out_idx the kernel refuses goes to TensorFlow (its own error)
    with pytest.raises(tf.errors.InvalidArgumentError, match="out_idx"):
        tf.unique(tf.constant([1, 2]), out_idx=tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="out_idx"):
        tf.unique(lnp.asarray(np.array([1, 2], np.int32)), out_idx=tf.float32)
