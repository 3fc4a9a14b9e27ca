"""Integers given as objects with ``__index__`` (0-d integer arrays, such
as ``k = np.argmax(...)`` in user code) where numpy takes an int: slice
bounds (``x[:k]``), axes (``sum(axis=k)``, ``roll``, ``expand_dims``) and
shapes/repeats (``tile``)."""

import numpy as np
import pytest
from lazytensor.core import Handle
from lazytensor.core.composite.indexing import subscript as ix
from lazytensor.core.composite.movement import rearrange, shape
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.runtime import get_runtime

X = np.arange(24.0).reshape(4, 6)


class Index:
    """An int-like that is not an int (nor iterable), as a lazy 0-d array."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value

    def __iter__(self):
        raise TypeError("iteration over a 0-d array")


def dev(a):
    return get_runtime().from_host(np.asarray(a)).node


INT_LIKES = [Index(2), np.array(2), np.int32(2)]


@pytest.mark.parametrize("k", INT_LIKES, ids=["__index__", "0-d array", "np.int32"])
def test_slice_bounds(k):
    x = dev(X)
    for index, want in (((slice(None), slice(None, k)), X[:, :2]),
                        ((slice(k, None, k),), X[2::2]),
                        ((Ellipsis, slice(-5, k)), X[..., -5:2])):
        got = Handle(ix.getitem(x, index)).numpy()
        np.testing.assert_array_equal(got, want)
    got = Handle(ix.setitem(x, (slice(None, k),), 0.0)).numpy()
    want = X.copy()
    want[:2] = 0
    np.testing.assert_array_equal(got, want)


def test_non_integer_slice_bounds_still_raise():
    with pytest.raises(TypeError, match="slice indices must be integers"):
        ix.getitem(dev(X), slice(1.5, None))


@pytest.mark.parametrize("k", INT_LIKES, ids=["__index__", "0-d array", "np.int32"])
def test_axes(k):
    assert shape.as_axes(k) == (2,)
    assert shape.normalize_axis_tuple(Index(-1), 2) == (1,)
    assert caxes.normalize_axes(Index(-1), 2) == (1,)
    assert shape.expand_dims(dev(X), k).shape == (4, 6, 1)
    np.testing.assert_array_equal(Handle(rearrange.roll(dev(X), k, 1)).numpy(),
                                  np.roll(X, 2, 1))
    assert rearrange.tile(dev(X), k).shape == (4, 12)
