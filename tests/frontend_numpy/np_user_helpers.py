"""The comparison the numpy user-program tests (test_np_user_programs*.py)
make with numpy's own result; their runtime fixtures are in conftest.py."""

from __future__ import annotations

import numpy as np


def same(got, want, rtol=1e-6) -> None:
    """``got`` (lazy or host) equals numpy's ``want``: dtype, shape, values."""
    host = np.asarray(got)
    assert host.dtype == want.dtype and host.shape == want.shape
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(host, want, rtol=rtol)
    else:
        np.testing.assert_array_equal(host, want)
