"""numpy functions that repeat their values (putmask by position, place and
put in order, fill_diagonal along the diagonal) and rot90's views, on the
core's resized and rot90 steps, against numpy itself."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core.runtime import get_runtime

MASK = np.array([[1, 0, 1], [1, 1, 0]], bool)


@pytest.mark.parametrize("values", [[1.0, 2.0], [], np.ones((2, 3)), 5, np.arange(4)])
def test_putmask_repeats_values_by_position(values):
    want, got = np.zeros((2, 3)), lnp.zeros((2, 3))
    np.putmask(want, MASK, values)
    np.putmask(got, lnp.asarray(MASK), np.asarray(values))
    np.testing.assert_array_equal(np.asarray(got), want)


def test_place_and_put_repeat_values_in_order():
    want, got = np.zeros(7), lnp.zeros(7)
    np.place(want, want == 0, [1, 2, 3])
    np.place(got, np.ones(7, bool), np.array([1, 2, 3]))
    np.testing.assert_array_equal(np.asarray(got), want)
    np.put(want, [0, 3, -1], [9, 8])
    np.put(got, [0, 3, -1], np.array([9, 8]))
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("value", [7, [1, 2, 3], np.array([4.0, 5.0, 6.0, 7.0, 8.0])])
def test_fill_diagonal_repeats_values(value):
    want, got = np.zeros((4, 4)), lnp.zeros((4, 4))
    np.fill_diagonal(want, value)
    np.fill_diagonal(got, value if np.isscalar(value) else lnp.asarray(np.asarray(value)))
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1])
def test_rot90_is_a_view_that_writes_back(k):
    host = np.arange(24.0).reshape(2, 3, 4)
    want, got = host.copy(), lnp.asarray(host)
    rw, rg = np.rot90(want, k, (2, 0)), np.rot90(got, k, (2, 0))
    rw[0, 1, 0] = -1.0
    rg[0, 1, 0] = -1.0
    np.testing.assert_array_equal(np.asarray(rg), rw)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_new_host_index_values_reuse_the_graph():
    x = lnp.asarray(np.arange(12.0).reshape(3, 4))
    first = np.asarray(x[[0, 2], 1])
    misses = get_runtime().metrics.counters["cache_misses"]
    np.testing.assert_array_equal(np.asarray(x[[2, -1], 1]), [9.0, 9.0])
    np.testing.assert_array_equal(first, [1.0, 9.0])
    assert get_runtime().metrics.counters["cache_misses"] == misses
