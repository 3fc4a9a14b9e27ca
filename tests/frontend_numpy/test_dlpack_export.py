"""DLPack export of lazy arrays: ``__dlpack__`` computes a pending value (a
barrier) and exports it, with every ``copy=`` (the export never aliases the
device buffer, which a later graph may donate), so numpy's ``from_dlpack``
and the Array API namespace's take lazy results as they take numpy's."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest

_DTYPES = ["bool", "int8", "uint16", "int64", "float32", "float64", "complex64", "complex128"]


def _pending(dtype: str):
    """A lazy result not computed yet, and numpy's value of it."""
    host = (np.arange(6).reshape(2, 3) % 3).astype(dtype)
    lazy = lnp.asarray(host)
    return lazy[::-1] + lazy[::-1] * 0, host[::-1] + host[::-1] * 0


@pytest.mark.sweep("copy", reason="every dtype with one copy mode, "
                   "modes in turn; the product is slow")
@pytest.mark.parametrize("copy", [None, True, False])
@pytest.mark.parametrize("dtype", _DTYPES)
def test_pending_values_export_through_dlpack(dtype, copy):
    lazy, host = _pending(dtype)
    out = np.from_dlpack(lazy, copy=copy)
    assert type(out) is np.ndarray and out.dtype == host.dtype
    np.testing.assert_array_equal(out, host)
    xp = lazy.__array_namespace__()
    lazy, host = _pending(dtype)
    back = xp.from_dlpack(lazy, copy=copy)
    assert isinstance(back, lnp.ndarray)
    np.testing.assert_array_equal(np.asarray(back), host)


@pytest.mark.parametrize("max_version", [None, (0, 0), (1, 0), (2, 0)])
def test_dunder_dlpack_takes_the_standard_s_arguments(max_version):
    lazy, _ = _pending("float32")
    assert lazy.__dlpack_device__() == np.empty(0).__dlpack_device__()
    for copy in (None, True, False):
        lazy.__dlpack__(max_version=max_version, copy=copy, dl_device=(1, 0))


def test_export_does_not_alias_the_lazy_value():
    lazy, host = _pending("float64")
    out = np.from_dlpack(lazy, copy=False)
    out[...] = -1.0
    np.testing.assert_array_equal(np.asarray(lazy), host)
    lazy += 1.0  # an in-place update (which may donate the buffer) leaves the export alone
    np.testing.assert_array_equal(out, -1.0)
