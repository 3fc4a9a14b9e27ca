"""CONVERT from floats to 8/16-bit ints and uint32 wraps through int64 as
numpy (and torch) do -- ``(img * 1.5).astype(np.uint8)`` without a clip
gives 300.7 -> 44, not XLA's saturated 255. In-range values are exact."""

import numpy as np
import pytest
from lazytensor.core import Handle, Op, make
from lazytensor.core.runtime import get_runtime

VALUES = np.array([-1.0, 300.7, 256.0, 255.9, -129.0, 7000.5, -0.5, 3.99, np.nan])


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "uint16", "uint32"])
@pytest.mark.parametrize("source", ["float64", "float32", "float16"])
def test_float_to_narrow_int_wraps_like_numpy(dtype, source):
    host = VALUES.astype(source)
    node = make(Op.CONVERT, (get_runtime().from_host(host).node,), np.dtype(dtype))
    with np.errstate(invalid="ignore"):
        want = host.astype(np.int64).astype(dtype)  # numpy's (x86 and arm64) result
        direct = host[np.isfinite(host)].astype(dtype)
    got = Handle(node).numpy()
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got[:-1], want[:-1])  # NaN: any value (undefined)
    np.testing.assert_array_equal(got[:-1], direct)
