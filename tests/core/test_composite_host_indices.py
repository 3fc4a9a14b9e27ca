"""Core code that the numpy frontend shares:
indexing with host index arrays uploaded as device data, basic-index
expansion, rot90 as steps, and numpy.resize's cyclic repetition."""

import numpy as np
import pytest
from core_nodes import dev, run
from lazytensor.core import Op
from lazytensor.core.composite.indexing import subscript as ix
from lazytensor.core.composite.movement import rearrange as cr
from lazytensor.core.composite.movement.shape import transpose
from lazytensor.core.runtime import use_runtime

X = np.arange(24.0).reshape(4, 6)


@pytest.fixture
def rt():
    with use_runtime() as fresh:
        yield fresh


def test_uploaded_host_indices_never_recompile(rt):
    """With ``upload=True`` new host index values reuse the compiled graph;
    as constants, each value is its own graph."""
    x = dev(X)
    for rows in ([0, 2], [3, 1], [-1, 0]):
        np.testing.assert_array_equal(run(ix.getitem(x, (rows, 1), upload=True)), X[rows, 1])
    assert len(rt.cache) == 1
    for rows in ([0, 2], [3, 1]):
        run(ix.getitem(x, (rows, 1)))
    assert len(rt.cache) == 3


def test_uploaded_indices_keep_host_checks_and_uniqueness():
    plan = ix.plan_index(X.shape, ([0, 3], [5, 5]), upload=True)
    assert all(a.op is not Op.CONST for a in plan.adv)
    np.testing.assert_array_equal(plan.static[0], [0, 3])
    assert ix._statically_unique(plan)
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 1 with size 6"):
        ix.plan_index(X.shape, (0, [6]), upload=True)
    mask = X > 20
    np.testing.assert_array_equal(run(ix.getitem(dev(X), mask, upload=True)), X[mask])


def test_set_with_uploaded_duplicates_keeps_the_last_write():
    got = run(ix.setitem(dev(X), ([1, 1, 2], [0, 0, 3]), dev(np.array([7.0, 8.0, 9.0])),
                         upload=True))
    want = X.copy()
    want[[1, 1, 2], [0, 0, 3]] = [7.0, 8.0, 9.0]
    np.testing.assert_array_equal(got, want)


def test_out_of_bounds_axis_counts_only_the_arrays_axes():
    """A 0-d bool adds an axis of its own; numpy names x's axis in the error."""
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 4"):
        ix.getitem(dev(X), (True, [5]))


@pytest.mark.parametrize("index", [(0, ...), (..., None), (slice(1, 3),), (None, 1, ...)])
def test_expand_basic_matches_numpy_shapes(index):
    items = ix.expand_basic(index, X.ndim)
    assert Ellipsis not in items
    assert X[tuple(items)].shape == X[index].shape


@pytest.mark.parametrize("k", range(-2, 6))
@pytest.mark.parametrize("axes", [(0, 1), (2, 0), (1, -1)])
def test_rot90_steps_match_numpy(k, axes):
    host = np.arange(24).reshape(2, 3, 4)
    out = host
    for step, arg in cr.rot90_steps(host.ndim, k, axes):
        out = np.flip(out, arg) if step == "flip" else np.transpose(out, arg)
    np.testing.assert_array_equal(out, np.rot90(host, k, axes))
    np.testing.assert_array_equal(run(cr.rot90(dev(host), k, axes)), np.rot90(host, k, axes))


def test_rot90_steps_raise_numpy_errors():
    with pytest.raises(ValueError, match="Axes must be different"):
        cr.rot90_steps(3, 1, (1, 1))
    with pytest.raises(ValueError, match="len\\(axes\\) must be 2"):
        cr.rot90_steps(3, 1, (0, 1, 2))
    assert cr.rot90_steps(2, 4) == ()
    assert transpose(dev(X), cr.rot90_steps(2, 1)[1][1]).shape == (6, 4)


@pytest.mark.parametrize("count", [0, 1, 5, 6, 13])
def test_cycle_is_numpy_resize(count):
    values = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(run(cr.resized(dev(values), count)), np.resize(values, count))
    assert run(cr.resized(dev(np.zeros(0, np.int32)), 3)).tolist() == [0, 0, 0]
