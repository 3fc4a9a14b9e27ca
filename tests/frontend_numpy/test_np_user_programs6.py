"""Bugs found by running numpy's own test modules (ci/numpy_conformance.py)
and a sixth round of numpy user programs on lazy arrays, each reduced to the
lines that broke and compared with numpy's own result."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_user_helpers import same

pytestmark = pytest.mark.usefixtures("own_runtime")

_HALF_MAX = np.iinfo(np.intp).max // 2


@pytest.mark.parametrize("call", [
    lambda m: m.unravel_index(1, (2**32 - 1, 2**31 + 1)),
    lambda m: m.unravel_index(m.asarray([0]), ()),
    lambda m: m.unravel_index(m.zeros(1, dtype=m.intp), (2, 1, 0)),
    lambda m: m.ravel_multi_index(m.zeros((3, 1), dtype=m.intp), (2, 1, 0), mode="clip"),
    lambda m: m.ravel_multi_index(m.zeros((3, 1), dtype=m.intp), (2, 1, 0), mode="wrap"),
    lambda m: m.ravel_multi_index(([0], [0]), (_HALF_MAX + 1, 2)),
])
def test_index_conversion_errors_that_the_shape_alone_decides(call):
    """A shape larger than intp, several indices into a 0-d shape and any
    index into an empty shape are errors whatever the index values: numpy
    raises ValueError; lazy unravel_index/ravel_multi_index returned
    wrapped-around or -1 coordinates (found by numpy's test_index_tricks)."""
    with pytest.raises(ValueError):
        call(np)
    with pytest.raises(ValueError):
        call(lnp)


def test_index_conversion_of_an_empty_list_is_numpys_type_error():
    """An empty list is a float array in numpy: TypeError with numpy's hint."""
    for mod in (np, lnp):
        with pytest.raises(TypeError, match="the provided empty sequence was"):
            mod.unravel_index([], (10, 3, 5))
        with pytest.raises(TypeError, match="the provided empty sequence was"):
            mod.ravel_multi_index(([], []), (10, 3))


def test_index_conversion_near_the_limits(runtime):
    for mod in (np, lnp):
        assert mod.unravel_index(0, ()) == ()
    same(lnp.ravel_multi_index(([0], [0]), (_HALF_MAX, 2)),
         np.ravel_multi_index(([0], [0]), (_HALF_MAX, 2)))
    same(lnp.ravel_multi_index(lnp.zeros((3, 0), dtype=lnp.intp), (2, 1, 0)),
         np.ravel_multi_index(np.zeros((3, 0), dtype=np.intp), (2, 1, 0)))


def _geomspaces(mod):
    start, stop = mod.asarray([1.0, 32.0, -1.0]), mod.asarray([1e4, 2.0, -8.0])
    return (mod.geomspace(start, stop, 5), mod.geomspace(start, stop, 4, axis=-1),
            mod.geomspace(1j, 16j, num=5), mod.geomspace(-2 - 3j, 5 + 7j, 7),
            mod.geomspace(-1, 1, num=3, dtype=complex), mod.geomspace(2.0, 8.0, 3, axis=0))


def test_geomspace_of_arrays_complex_end_points_and_axis():
    """numpy's geomspace takes array and complex end points and axis=; lazy
    geomspace raised TypeError for them (numpy's _core test_function_base).
    They now run eagerly (counted); a complex dtype with real end points is
    a spiral too (it must not become a NaN through the real logarithm)."""
    for got, want in zip(_geomspaces(lnp), _geomspaces(np), strict=True):
        same(got, want, rtol=1e-12)


def test_concatenate_of_more_arrays_than_intc_raises_before_reading_them():
    """numpy refuses more than intc-max arrays up front (ValueError); lazy
    concatenate read every one of the 2**31 tuple entries and ran out of
    memory (numpy's _core test_shape_base, test_huge_list_error)."""
    class Huge(tuple):  # the length of a 16 GiB tuple, without the memory
        def __len__(self):
            return np.iinfo(np.intc).max + 1

    with pytest.raises(ValueError, match="only supports up to"):
        lnp.concatenate(Huge([lnp.asarray([1])]))


@pytest.mark.parametrize("call", [
    lambda m: m.concatenate((m.asarray([1.0]), m.asarray([2.0])), out=m.empty(2), dtype="f8"),
    lambda m: m.stack((m.asarray([1.0]), m.asarray([2.0])), out=m.empty((2, 1)), dtype="f8"),
    lambda m: m.concatenate(([1], [1]), dtype="(2,)i"),
])
def test_join_refuses_out_with_dtype_and_subarray_dtypes(call):
    """numpy raises TypeError for out= together with dtype= and for a
    subarray dtype; lazy concatenate/stack ignored the conflict and the
    subarray dtype reached JAX (numpy's _core test_shape_base)."""
    with pytest.raises(TypeError):
        call(np)
    with pytest.raises(TypeError):
        call(lnp)


def test_unstack_of_a_0d_array_is_numpys_value_error():
    """np.unstack(np.array(0)) raises ValueError; lazy unstack raised IndexError."""
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="at least 1-d"):
            mod.unstack(mod.asarray(0))
