"""Bugs found by running small numpy user programs (k-means, PCA, stencils,
signal and image processing, finance, ranking...) on lazy arrays, each
reduced to the lines that broke and compared with numpy's own result."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest


def _same(got, want) -> None:
    host = np.asarray(got)
    assert host.dtype == want.dtype and host.shape == want.shape
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(host, want, rtol=1e-6)
    else:
        np.testing.assert_array_equal(host, want)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int64"])
def test_round_integers_to_tens_ties_to_even(dtype):
    """``np.round(ints, -1)`` rounded ties upward (25 -> 30, numpy: 20), its
    ``x + 5`` wrapped near the dtype's top (int8 127 -> 126, numpy: -126),
    and a scale past the dtype (int8, decimals=-3) gave garbage."""
    info = np.iinfo(dtype)
    host = np.array([-128, -35, -25, -15, -5, 5, 15, 25, 35, 45, 127, 250, 60000, 49999, 50001])
    host = host.clip(info.min, info.max).astype(dtype)
    for decimals in (-1, -2, -3, -5):
        _same(lnp.round(lnp.asarray(host), decimals), np.round(host, decimals))


def test_round_bools():
    """numpy rounds booleans in float16 (decimals=0) and cannot cast a scaled
    bool back (TypeError); the lazy round kept bools, or failed in the core."""
    host = np.array([True, False])
    _same(lnp.round(lnp.asarray(host)), np.round(host))
    for decimals in (1, -1):
        with pytest.raises(TypeError):
            np.round(host, decimals)
        with pytest.raises(TypeError):
            lnp.round(lnp.asarray(host), decimals)
