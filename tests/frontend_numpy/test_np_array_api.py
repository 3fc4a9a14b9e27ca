"""The Array API namespace that ``x.__array_namespace__()`` returns, with the
fixes found by the data-apis conformance suite; each test compares with
numpy itself."""


from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest

HOST = np.arange(6.0).reshape(2, 3) - 2.5


@pytest.fixture
def xp():
    return lnp.asarray(HOST).__array_namespace__()


def _same(out, ref) -> None:
    assert out.dtype == ref.dtype and out.shape == ref.shape
    if ref.dtype.kind in "fc":
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-12)
    else:
        np.testing.assert_array_equal(np.asarray(out), ref)


SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5]


ARANGE_CASES = [
    ((255, 0, -1), np.uint8),  # a negative step of an unsigned dtype (raised OverflowError)
    ((250, 3, -100), np.uint8),
    ((1, 0, 255), np.uint8),  # empty: nothing is stored, nothing overflows
    ((0, 1000, 1), np.uint8),  # numpy's fill wraps
    ((-100, 127, 150), np.int8),
    ((1, 2, 200), np.int8),  # one element: start + step is never stored
    ((0.5, 5, 1), np.int8),
]


def test_device_and_to_device(xp, runtime):
    x, ref = xp.asarray(HOST), np.asarray(HOST)
    assert x.device == ref.device
    assert x.to_device(ref.device) is x
    with pytest.raises(ValueError) as numpys:
        ref.to_device("gpu")
    with pytest.raises(ValueError) as ours:
        x.to_device("gpu")
    assert str(ours.value) == str(numpys.value)


def test_dlpack_export_and_from_dlpack(xp, runtime):
    x, ref = xp.asarray(HOST), np.asarray(HOST)
    assert x.__dlpack_device__() == ref.__dlpack_device__()
    _same(np.from_dlpack(x), np.from_dlpack(ref))  # numpy imports a lazy array
    out = xp.from_dlpack(x)  # and the namespace imports numpy's and its own
    assert isinstance(out, lnp.ndarray)
    _same(out, np.from_dlpack(ref))
    _same(xp.from_dlpack(ref), np.from_dlpack(ref))


@pytest.mark.parametrize("version", [None, "2021.12", "2022.12", "2023.12"])
def test_array_namespace_versions_it_implements(version):
    x = lnp.asarray(HOST)
    assert np.asarray(HOST).__array_namespace__(api_version=version) is np
    assert x.__array_namespace__(api_version=version) is x.__array_namespace__()


@pytest.mark.parametrize("version", ["2011.01", "not a version"])
def test_array_namespace_unknown_version_raises_numpys_error(version):
    with pytest.raises(ValueError) as numpys:
        np.asarray(HOST).__array_namespace__(api_version=version)
    with pytest.raises(ValueError) as ours:
        lnp.asarray(HOST).__array_namespace__(api_version=version)
    assert str(ours.value) == str(numpys.value)
    with pytest.raises(TypeError):  # keyword-only, as numpy's
        lnp.asarray(HOST).__array_namespace__("2023.12")


@pytest.mark.parametrize("axis, b_shape",
                         [(0, (2, 3, 4)), (-2, (3, 4)), (-1, (3, 4)), (1, (2, 3, 4))])
def test_vecdot_axis_is_lazy(xp, runtime, axis, b_shape):
    a = np.arange(24.0).reshape(2, 3, 4) - 7
    b = np.arange(float(np.prod(b_shape))).reshape(b_shape) / 3
    _same(xp.vecdot(xp.asarray(a), xp.asarray(b), axis=axis), np.vecdot(a, b, axis=axis))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_abs_of_complex_with_an_infinite_part_is_inf(xp, runtime, dtype):
    """The spec's (and C99's) special case: |a + bj| is +inf when a or b is
    infinite, even if the other part is NaN (XLA's complex abs gave NaN)."""
    z = np.array([complex(a, b) for a in SPECIAL for b in SPECIAL], dtype=dtype)
    for out in (xp.abs(xp.asarray(z)), abs(lnp.asarray(z)), np.absolute(lnp.asarray(z))):
        _same(out, np.abs(z))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sign_of_negative_zero_is_positive_zero(xp, runtime, dtype):
    """numpy's sign(-0.0) is +0.0 (XLA's sign kept -0.0)."""
    x = np.array(SPECIAL, dtype=dtype)
    out = xp.sign(xp.asarray(x))
    _same(out, np.sign(x))
    np.testing.assert_array_equal(np.signbit(np.asarray(out)), np.signbit(np.sign(x)))


@pytest.mark.parametrize("args, dtype", ARANGE_CASES)
def test_arange_small_integer_dtypes(xp, runtime, args, dtype):
    _same(xp.arange(*args, dtype=dtype), np.arange(*args, dtype=dtype))


@pytest.mark.parametrize("args, dtype", [((250, 3, -100), np.int8), ((300, 0, -1), np.uint8),
                                         ((-1, 3, 1), np.uint8), ((0, 300, 200), np.int8)])
def test_arange_start_out_of_range_raises_numpys_overflow_error(xp, args, dtype):
    """A start (or, past one element, start + step) the dtype cannot hold
    raises; it was silently wrapped."""
    with pytest.raises(OverflowError) as numpys:
        np.arange(*args, dtype=dtype)
    with pytest.raises(OverflowError) as ours:
        xp.arange(*args, dtype=dtype)
    assert str(ours.value) == str(numpys.value)


@pytest.mark.parametrize("shape, mask_shape", [((1,), (0,)), ((3, 4), (0,)), ((3, 4), (0, 4)),
                                               ((3, 4), (3, 0)), ((3, 4), (0, 0))])
def test_mask_with_an_empty_axis_selects_nothing(xp, runtime, shape, mask_shape):
    """numpy: a boolean axis of length 0 indexes any axis (an empty selection);
    it raised IndexError. Reads and writes, against numpy."""
    host = np.arange(float(np.prod(shape))).reshape(shape)
    mask = np.zeros(mask_shape, dtype=bool)
    x = xp.asarray(host)
    _same(x[mask], host[mask])
    _same(x[xp.asarray(mask)], host[mask])
    expected = host.copy()
    expected[mask] = 7.0
    x[mask] = 7.0
    _same(x, expected)


@pytest.mark.parametrize("shape, mask_shape",
                         [((3, 4), (0, 2)), ((3, 4), (2, 0)), ((3, 4), (1, 4))])
def test_mask_axis_mismatch_still_raises_numpys_error(xp, shape, mask_shape):
    host = np.zeros(shape)
    mask = np.zeros(mask_shape, dtype=bool)
    with pytest.raises(IndexError) as numpys:
        host[mask]
    with pytest.raises(IndexError) as ours:
        xp.asarray(host)[mask]
    assert str(ours.value) == str(numpys.value)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_fftfreq_takes_the_standard_s_dtype(xp, name):
    """array-api-tests passes ``dtype=`` (the standard's, 2025.12)."""
    out = getattr(xp.fft, name)(5, d=0.5, dtype=xp.float32)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), getattr(np.fft, name)(5, 0.5), rtol=1e-6)
    assert getattr(xp.fft, name)(5).dtype == np.float64


def test_meshgrid_and_broadcast_arrays_return_lists_as_2023_12_has_it(xp):
    a, b = xp.asarray([1.0, 2.0, 3.0]), xp.asarray([4.0, 5.0])
    grids = xp.meshgrid(a, b, indexing="ij")
    assert type(grids) is list and [g.shape for g in grids] == [(3, 2), (3, 2)]
    out = xp.broadcast_arrays(a, xp.reshape(b, (2, 1)))
    assert type(out) is list and [o.shape for o in out] == [(2, 3), (2, 3)]
    np.testing.assert_array_equal(np.asarray(grids[0]), np.meshgrid([1.0, 2, 3], [4.0, 5],
                                                                     indexing="ij")[0])
