"""A unit-step slice whose bounds move in a loop (``X[i:i + batch]``, the
mini-batch loop) has its start as a scalar parameter, as an integer index
has: every position is one graph structure, compiled once, the same in
every frontend; strided and reversed slices keep static bounds."""

from __future__ import annotations

import numpy as np
import pytest
from frontends import available
from lazytensor.core import debug
from lazytensor.core.runtime import use_runtime

DATA = np.arange(60, dtype=np.float32).reshape(12, 5) / 7


def _slice_keys(fe: str, starts, step=1, width=3) -> tuple[list[int], list[np.ndarray]]:
    """The graph key and value of ``X[i:i + width * step:step].sum(0) * 2``."""
    if fe == "numpy":
        import lazytensor.numpy as lnp

        x, total = lnp.asarray(DATA), lnp.sum
    elif fe == "torch":
        import lazytensor.torch as lt
        import torch

        x, total = torch.from_numpy(DATA).to(lt.device()), torch.sum
    else:
        import lazytensor.tf.numpy as tnp

        x, total = tnp.asarray(DATA), tnp.sum
    keys, values = [], []
    for i in starts:
        y = total(x[i:i + width * step:step], 0) * 2
        keys.append(debug.graph_key(y))
        values.append(np.asarray(y.cpu() if fe == "torch" else y))
    return keys, values


FRONTENDS = [pytest.param(fe, marks=pytest.mark.skipif(not available(fe), reason=f"no {fe}"))
             for fe in ("numpy", "torch", "tnp")]


@pytest.mark.parametrize("fe", FRONTENDS)
def test_moving_unit_slices_are_one_structure_compiled_once(fe):
    with use_runtime() as rt:
        keys, values = _slice_keys(fe, range(0, 9, 2))
        assert len(set(keys)) == 1
        assert rt.metrics.counters["cache_misses"] == 1
    for i, got in zip(range(0, 9, 2), values, strict=True):
        want = DATA[i:i + 3].sum(0) * 2
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert got.dtype == want.dtype and got.shape == want.shape


@pytest.mark.parametrize("fe", FRONTENDS)
def test_strided_slices_keep_static_bounds(fe):
    keys, values = _slice_keys(fe, (0, 1), step=2)
    assert keys[0] != keys[1]
    for i, got in zip((0, 1), values, strict=True):
        np.testing.assert_allclose(got, DATA[i:i + 6:2].sum(0) * 2, rtol=1e-6)


def test_the_same_moving_slice_hashes_alike_in_every_frontend():
    present = [fe for fe in ("numpy", "torch", "tnp") if available(fe)]
    keys = {fe: _slice_keys(fe, (4,))[0][0] for fe in present}
    assert len(set(keys.values())) == 1, keys


def test_writes_through_moving_slices_compile_once():
    import lazytensor.numpy as lnp

    with use_runtime() as rt:
        x = lnp.zeros((10, 3), dtype=np.float32)
        expected = np.zeros((10, 3), np.float32)
        for i in range(0, 8, 2):
            x[i:i + 2] += i + 1.0
            expected[i:i + 2] += i + 1.0
            np.testing.assert_array_equal(np.asarray(x), expected)
        assert rt.metrics.counters["cache_misses"] <= 2  # the first write: zeros are a constant
