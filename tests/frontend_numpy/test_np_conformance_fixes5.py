"""Regressions found by running numpy's own test suite on lazytensor.numpy
(ci/numpy_conformance.py, round 5: _core/test_nep50_promotions,
_core/test_item_selection, _core/test_ufunc, _core/test_umath and others).
Each test compares with numpy itself (values, dtype, shape) or checks that
the same exception type (and, where numpy's tests read it, the same message)
is raised."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from test_np_conformance_fixes2 import _both

# ------------------------------------------------ ufunc loops of numpy's own


@pytest.mark.parametrize("ufunc", ["add", "power", "multiply", "equal", "less", "maximum"])
@pytest.mark.parametrize("args", [(1, 2**63), (2**200, -2**200), (3, [1, 2])])
def test_object_loop_runs_numpys_own(ufunc, args) -> None:
    # dtype=object asks for numpy's object loop, which lazy arrays cannot hold:
    # it made a lazy node of dtype object, which failed in JAX at the next read
    # (KeyError 'O', or 'Error interpreting argument' for every later read)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        lazy = getattr(lnp, ufunc)(*args, dtype=object)
    expected = getattr(np, ufunc)(*args, dtype=object)
    assert type(lazy) is type(expected)
    assert np.asarray(lazy).dtype == np.asarray(expected).dtype
    assert np.asarray(lazy).tolist() == np.asarray(expected).tolist()
    _both(lambda xp: xp.arange(3) + 1)  # a later read is unharmed
