"""Regressions found by running numpy's own test suite on lazytensor.numpy
(ci/numpy_conformance.py): each test compares with numpy itself (values,
dtype, shape) or checks that the same error type is raised."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same_error, same_exactly

# ------------------------------------------------------------ flags, setflags

def test_flags_layout() -> None:
    h = np.arange(12.0).reshape(3, 4)
    a = lnp.asarray(h)
    for view in (lambda x: x, lambda x: x.T, lambda x: x[:, 1], lambda x: x[::2]):
        for key in ("C_CONTIGUOUS", "F_CONTIGUOUS", "FNC", "FORC", "C", "F"):
            assert view(a).flags[key] == view(h).flags[key], key
        assert view(a).flags.writeable == view(h).flags.writeable


def test_setflags_write() -> None:
    a = lnp.arange(4.0)
    a.setflags(write=False)
    assert not a.flags.writeable and not a[1:].flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        a[1:][0] = 1
    a.flags.writeable = True
    a[0] = 7
    same_exactly(a, np.array([7.0, 1, 2, 3]))
    with pytest.raises(ValueError):  # numpy allows it; a lazy broadcast cannot be written
        lnp.broadcast_to(lnp.ones(3), (2, 3)).setflags(write=True)


# ------------------------------------------------- view with another itemsize

@pytest.mark.parametrize("src,dst", [
    ("c16", "f8"), ("f8", "c16"), ("c8", "i4"), ("f8", "u1"), ("u1", "f4"), ("?", "u1"),
    ("u1", "?"), ("f4", "u2"), ("c16", "c8"), ("c8", "c16"), ("i2", "i8")])
def test_view_changes_itemsize(src: str, dst: str) -> None:
    h = (np.arange(48).reshape(2, 24) % 2).astype(src)
    if np.dtype(src).kind == "c":
        h = h + 0.5j * np.arange(24)
    a = lnp.asarray(h)
    same_exactly(a.view(dst), h.view(dst))
    v = a.view(dst)  # a write through the view reaches the base
    v[...] = v * 1
    same_exactly(a, h)


def test_view_changes_itemsize_writes_and_empty() -> None:
    z = lnp.zeros(3, complex)
    z.view(np.float64)[1] = 5
    same_exactly(z, np.array([5j, 0, 0]))
    same_exactly(lnp.zeros((0, 2), "c16").view("f8"), np.zeros((0, 2), "c16").view("f8"))


@pytest.mark.parametrize("make,dtype", [
    (lambda xp: xp.zeros(()), "f4"), (lambda xp: xp.zeros((3, 4))[:, ::2], "f4"),
    (lambda xp: xp.zeros(3, "u1"), "f8")])
def test_view_changes_itemsize_errors(make, dtype) -> None:
    same_error(ValueError, lambda xp: make(xp).view(dtype))


# --------------------------------------------------------- dtypes numpy takes

def test_non_native_byte_order_is_native() -> None:
    h = np.arange(6.0).astype(">f8")
    a = lnp.asarray(h)
    assert a.dtype == np.float64
    same_exactly(a * 2, (h * 2).astype(np.float64))
    same_exactly(lnp.zeros(3, ">i4"), np.zeros(3, np.int32))


def test_longdouble_arrays_are_numpys_own() -> None:
    # (no XLA type: numpy's own arrays, eagerly, as dates and strings)
    same_exactly(lnp.zeros(3, np.longdouble), np.zeros(3, np.longdouble))
    same_exactly(lnp.asarray(np.ones(3, np.clongdouble)), np.ones(3, np.clongdouble))


# ---------------------------------------------------------------- indexing

def test_slice_bounds_that_are_lazy_arrays() -> None:
    data = lnp.zeros((3, 4))
    start, stop = lnp.asarray([1, 0]), lnp.asarray([2, 3])
    data[slice(start[0], stop[0]), slice(start[1], stop[1])] = 1 + lnp.ones((1, 3))
    expected = np.zeros((3, 4))
    expected[1:2, 0:3] = 2
    same_exactly(data[slice(start[0], stop[0]), :], expected[1:2])
    same_exactly(data, expected)


def test_linalg_outer_needs_vectors() -> None:
    same_error(ValueError, lambda xp: xp.linalg.outer(xp.ones((3, 1)), xp.ones(3)))
    same_exactly(lnp.linalg.outer(lnp.arange(3), lnp.arange(3)),
                 np.outer(np.arange(3), np.arange(3)))


# ------------------------------------------------------------- quantiles

def test_quantile_weights_are_used_and_checked() -> None:
    h, w = np.array([1.0, 2, 3, 4]), np.array([0, 0, 1, 5])
    with pytest.warns(lnp.LazyFallbackWarning):
        got = lnp.quantile(lnp.asarray(h), 0.5, weights=w, method="inverted_cdf")
    same_exactly(got, np.asarray(np.quantile(h, 0.5, weights=w, method="inverted_cdf")))
    same_error(ValueError, lambda xp: xp.quantile(xp.asarray(h), 0.5, weights=w))  # linear
    same_error(ValueError, lambda xp: xp.quantile(xp.asarray(h), 0.5, weights=-w,
                                                   method="inverted_cdf"))


def test_quantile_nan_q_and_strong_scalar_q() -> None:
    same_error(ValueError, lambda xp: xp.percentile(xp.asarray([1.0, 2, 3]), np.nan))
    same_error(ValueError, lambda xp: xp.percentile(xp.asarray([1.0, 2, 3]), [np.nan]))
    a = np.arange(1, 6, dtype=np.float32)
    for q in (np.float64(0.5), np.float32(0.5), 0.5):
        for method in ("linear", "midpoint"):
            assert lnp.quantile(lnp.asarray(a), q, method=method).dtype == \
                np.quantile(a, q, method=method).dtype


# --------------------------------------------------------------------- fft

def _close(lazy, expected) -> None:
    host = np.asarray(lazy)
    assert host.dtype == expected.dtype and host.shape == expected.shape
    np.testing.assert_allclose(host, expected, atol=1e-9)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [None, 7, 12])
def test_hfft_ihfft(norm, n) -> None:
    x = np.arange(10.0) + 1j * np.arange(10.0)[::-1]
    _close(lnp.fft.hfft(lnp.asarray(x), n, norm=norm), np.fft.hfft(x, n, norm=norm))
    _close(lnp.fft.ihfft(lnp.asarray(x.real), n, norm=norm), np.fft.ihfft(x.real, n, norm=norm))


def test_fftn_s_minus_one_none_and_repeated_axes() -> None:
    x = np.arange(100.0).reshape(10, 10)
    _close(lnp.fft.fftn(lnp.asarray(x), s=(-1, 5), axes=(0, 1)), np.fft.fftn(x, (-1, 5), (0, 1)))
    with pytest.warns(DeprecationWarning, match="containing `None`"):
        got = lnp.fft.rfftn(lnp.asarray(x), s=(None, 6), axes=(0, 1))
    _close(got, np.fft.rfftn(x, s=(10, 6), axes=(0, 1)))
    y = np.ones((2, 3))
    _close(lnp.fft.rfftn(lnp.asarray(y), axes=(0, 0, 1), s=(10, 20, 40)),
           np.fft.rfftn(y, axes=(0, 0, 1), s=(10, 20, 40)))
    _close(lnp.fft.fftn(lnp.asarray(y), axes=(1, 1), s=(4, 5)),
           np.fft.fftn(y, axes=(1, 1), s=(4, 5)))


def test_fft_errors() -> None:
    same_error(ValueError, lambda xp: xp.fft.ifft(xp.asarray([], dtype=complex)))
    x = np.arange(30.0)
    same_error(TypeError, lambda xp: xp.fft.fft(xp.asarray(x), out=""))
    same_error(ValueError, lambda xp: xp.fft.fft(xp.asarray(x), out=xp.zeros((5, 6), complex)))
    same_error(TypeError, lambda xp: xp.fft.fft(xp.asarray(x), out=xp.zeros(30)))
    out = lnp.zeros(30, complex)
    assert lnp.fft.fft(lnp.asarray(x), out=out) is out
    _close(out, np.fft.fft(x))


# ------------------------------------------------- nan_to_num, interp

def test_nan_to_num_copy_false_is_in_place() -> None:
    h = np.array([1.0, np.nan, np.inf, -np.inf])
    a = lnp.asarray(h)
    view = a[1:]
    assert lnp.nan_to_num(view, copy=False) is view
    same_exactly(a, np.nan_to_num(h))
    same_exactly(lnp.nan_to_num(lnp.asarray(h), nan=5), np.nan_to_num(h, nan=5))


@pytest.mark.parametrize("sc", [lambda v: v, lambda v: 1j * v, lambda v: v - 2j * v])
def test_interp_non_finite(sc) -> None:
    cases = [(0.5, [-np.inf, np.inf], [10, 10]), (0.5, [-np.inf, 1], [0, 10]),
             (0.5, [0, 1], [np.inf, np.inf]), (0.5, [0, 1], [-np.inf, 10]),
             ([1, 2, 2.5, 3, 4], [1, 2, 3, 4], [1, 2, np.inf, 4]),
             ([0, 1, 2], [0, 1, 2], [0, -np.inf, np.inf])]
    for x, xp, fp in cases:
        fp = sc(np.asarray(fp, float))
        got = lnp.interp(lnp.asarray(x), lnp.asarray(xp), lnp.asarray(fp))
        np.testing.assert_array_equal(np.asarray(got), np.interp(x, xp, fp))


# --------------------------------------------------------------------- pad

def test_pad_dict_width_kwargs_and_layout() -> None:
    h = np.arange(60.0).reshape(3, 4, 5)
    for width in ({-2: (1, 3)}, {0: (5, 2), -1: (3, 4)}, {1: 5}):
        same_exactly(lnp.pad(lnp.asarray(h), width), np.pad(h, width))
    same_error(ValueError, lambda xp: xp.pad(xp.asarray([1, 2, 3]), 1, "edge",
                                             constant_values=0))
    same_error(ValueError, lambda xp: xp.pad(xp.asarray([1, 2, 3]), 1, "constant",
                                             stat_length=1))
    same_error(ValueError, lambda xp: xp.pad(xp.ones((6, 5)), (((3,), (4,), (5,)),
                                                                ((0,), (1,), (2,)))))
    for mode in ("constant", "edge", "reflect", "wrap", "mean"):
        got = lnp.pad(lnp.ones((5, 10), order="F"), 5, mode)
        assert got.flags.f_contiguous and got.strides == np.pad(np.ones((5, 10), order="F"),
                                                                 5, mode).strides


def test_creation_order_f() -> None:
    for make in (lambda xp: xp.zeros((2, 3, 4), "i4", order="F"),
                 lambda xp: xp.ones((2, 3), order="F"), lambda xp: xp.empty((2, 3), order="F"),
                 lambda xp: xp.full((2, 3), 1.5, order="F")):
        assert make(lnp).strides == make(np).strides
        assert make(lnp).flags.f_contiguous


@pytest.mark.parametrize("shape,val,wrap", [
    ((5, 3), [1, 2], True), ((7, 3), 5, True), ((3, 5), [1, 2], True), ((3, 3, 3), 4, False),
    ((4, 4, 4, 4), [1, 2, 3], False), ((4, 6), [1, 2], False)])
def test_fill_diagonal_nd_and_wrap(shape, val, wrap) -> None:
    a, h = lnp.zeros(shape), np.zeros(shape)
    lnp.fill_diagonal(a, val, wrap)
    np.fill_diagonal(h, val, wrap)
    same_exactly(a, h)
    same_error(ValueError, lambda xp: xp.fill_diagonal(xp.zeros((2, 3, 3)), 1))
    same_error(ValueError, lambda xp: xp.fill_diagonal(xp.zeros(3), 1))
