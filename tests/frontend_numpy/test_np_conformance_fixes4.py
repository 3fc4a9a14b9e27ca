"""Regressions found by running numpy's own test suite on lazytensor.numpy
(ci/numpy_conformance.py, round 4: _core/test_indexing, _core/test_umath,
_core/test_multiarray's sorting and searching classes, linalg and the lib
modules). Each test compares with numpy itself (values, dtype, shape) or
checks that the same exception type (and, where numpy's tests read it, the
same message) is raised."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same_outcome

# ------------------------------------------------------------ indexing limits


@pytest.mark.parametrize("index", [True, False, np.array([0]), 0, None])
@pytest.mark.parametrize("num", [32, 63, 64, 80])
@pytest.mark.parametrize("ndim", [0, 1, 64])
def test_indices_past_numpys_64_limit_raise_index_error(index, num, ndim) -> None:
    def read(xp):
        return xp.ones((1,) * ndim)[(index,) * num]

    def write(xp):
        a = xp.ones((1,) * ndim)
        a[(index,) * num] = 2.0
        return a
    same_outcome(read)
    same_outcome(write)


@pytest.mark.parametrize("index", [(..., [1, 2], slice(None)), ([0, 1], ..., 0),
                                   (..., [1, 2], [1, 2]), (slice(1, 3),)])
def test_write_shape_mismatch_reports_shapes_as_numpy(index) -> None:
    messages = []
    for xp in (np, lnp):
        a = xp.zeros((3, 4, 5, 6, 7))
        with pytest.raises(ValueError) as info:
            a[index] = xp.zeros((100, 100))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("write", [False, True])
def test_flat_index_by_a_list_of_floats_is_deprecated_and_truncated(write) -> None:
    def run(xp):
        a = xp.arange(9).reshape((3, 3))
        with pytest.warns(DeprecationWarning, match="Invalid non-array indices"):
            if not write:
                return a.flat[[1.0, 2.7]]
            a.flat[[1.0, 2.7]] = 20
        return a
    same_outcome(run)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same_outcome(lambda xp: xp.arange(4).flat[[]])
