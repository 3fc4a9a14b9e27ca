"""Bugs found by running numpy's own indexing and ufunc test modules
(ci/numpy_conformance.py: test_indexing, test_umath, test_ufunc), the
numpy functions that were still eager fallbacks, and a seventh round of
numpy user programs on lazy arrays, each compared with numpy's own result."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_user_helpers import same

pytestmark = pytest.mark.usefixtures("own_runtime")


# ------------------------------------------------------------ indexing

def test_a_tuple_subclass_is_a_multi_dimensional_index():
    """numpy reads any tuple subclass (a namedtuple too) as one index per
    axis; lazy arrays took it as one advanced index (shape (2, 1, 5) for
    numpy's (1,)), found by numpy's test_indexing.test_tuple_subclass."""
    class Pair(tuple):
        pass

    for index in (Pair(([1], [1])), Pair((1, 2))):
        same(lnp.arange(25.0).reshape(5, 5)[index], np.arange(25.0).reshape(5, 5)[index])
        same(lnp.arange(25.0).reshape(5, 5)[index,], np.arange(25.0).reshape(5, 5)[index,])
    got, want = lnp.zeros((5, 5)), np.zeros((5, 5))
    got[Pair(([1, 2], [3, 4]))] = 7.0
    want[Pair(([1, 2], [3, 4]))] = 7.0
    same(got, want)


@pytest.mark.parametrize("shape", [(1.0, 1, -1), (lnp.float64(1.0), -1), (True, -1),
                                   (np.array(1.0), -1), 2.5])
def test_reshape_to_a_float_or_bool_shape_raises_type_error(shape):
    """numpy refuses float and bool dimensions; lazy reshape truncated them
    with int() (a 2.5 became 2), found by test_indexing's
    test_non_integer_argument_errors and test_bool_as_int_argument_errors."""
    for mod in (np, lnp):
        with pytest.raises(TypeError):
            mod.reshape(mod.ones((1, 1)), shape)
    with pytest.raises(TypeError):
        lnp.ones(2).reshape(shape)


def test_reshape_still_takes_integer_like_shapes():
    for shape in ((np.int64(2), 3), np.array([3, 2]), lnp.asarray([6]), lnp.int32(6), [-1, 2]):
        same(lnp.reshape(lnp.arange(6), shape), np.reshape(np.arange(6), np.asarray(shape)))


def test_flat_iterator_indices_follow_numpy_2_4():
    """``x.flat[True]`` read the whole array as one row (numpy: element 0)
    and ``x.flat[True] = v`` wrote every element (numpy: element 0); a list
    of bools, None, two indices, a 0-d assignment index and a mask of the
    wrong length gave other errors or none; another flatiter was refused
    as an index (found by test_indexing's TestFlatiterIndexing)."""
    host = np.arange(9).reshape(3, 3)
    lazy = lnp.asarray(host)
    for index in ((), (1,), ..., [True, 1], np.array([True, False] * 4 + [True]), 1.0,
                  (slice(None),), (np.array([1, 2]),), True, False):
        with warnings.catch_warnings(record=True) as seen_np:
            warnings.simplefilter("always")
            want = host.flat[index]
        with warnings.catch_warnings(record=True) as seen_lazy:
            warnings.simplefilter("always")
            got = lazy.flat[index]
        same(got, np.asarray(want))
        assert [w.category for w in seen_lazy] == [w.category for w in seen_np]
    same(lazy.flat[lnp.asarray([0, 5, 6]).flat], host.flat[np.array([0, 5, 6]).flat])
    for index, match in (([True, True], "boolean indices for iterators"),
                         (None, "only integers"), ((1, 2), "too many indices for flat"),
                         (np.zeros(10, bool), "did not match indexed flat iterator")):
        for it in (host.flat, lazy.flat):
            with pytest.raises(IndexError, match=match):
                it[index]
    for index in ((), [True, True]):
        for it in (host.copy().flat, lazy.copy().flat):
            with pytest.raises(IndexError):
                it[index] = 1
    for index in (True, False, ..., slice(10, 5), slice(None, None, -1), np.arange(9) % 2 == 0):
        want, got = host.copy(), lazy.copy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            want.flat[index] = 70
            got.flat[index] = 70
        same(got, want)
