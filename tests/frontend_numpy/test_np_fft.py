"""numpy.fft on lazy arrays (``lazytensor.numpy.fft``) against eager numpy:
values, dtype and shape for every transform over float/int/complex input,
with n/s/axes/norm variants, the helpers, and the error cases."""


from __future__ import annotations

import importlib

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same_error


def _close(lazy, expected) -> None:
    host = np.asarray(lazy)
    assert host.dtype == expected.dtype and host.shape == expected.shape
    np.testing.assert_allclose(host, expected, atol=1e-9)


lfft = importlib.import_module("lazytensor.numpy.fft")


RNG = np.random.default_rng(7)


DTYPES = ("float32", "float64", "int64", "complex64", "complex128")


REAL = ("float32", "float64", "int64")


NORMS = (None, "backward", "ortho", "forward")


# each transform and argument set runs in one dtype, the dtypes in turn; the
# dtype x transform x argument product (5x more compiles) is in make test-slow
DTYPE_SWEEP = pytest.mark.sweep("dtype", reason="every transform and argument set, dtypes in "
                                "turn; the full dtype product is slow")


def sample(dtype: str, shape) -> np.ndarray:
    d = np.dtype(dtype)
    if d.kind == "c":
        return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(d)
    if d.kind == "i":
        return RNG.integers(-5, 6, shape).astype(d)
    return RNG.standard_normal(shape).astype(d)


def check(got, want):
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
    single = w.dtype in (np.float32, np.complex64)
    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    np.testing.assert_allclose(g, w, rtol=1e-4 if single else 1e-10,
                               atol=(1e-4 if single else 1e-10) * scale)


def both(name: str, x: np.ndarray, **kwargs):
    """The transform by numpy dispatch and by the module's function."""
    want = getattr(np.fft, name)(x, **kwargs)
    check(getattr(np.fft, name)(lnp.asarray(x), **kwargs), want)
    check(getattr(lfft, name)(lnp.asarray(x), **kwargs), want)


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


@DTYPE_SWEEP
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("kwargs", [{}, {"n": 5}, {"n": 12}, {"axis": 0}, {"n": 3, "axis": 0}]
                         + [{"norm": n} for n in NORMS])
def test_fft_ifft(dtype, name, kwargs):
    both(name, sample(dtype, (4, 8)), **kwargs)


@DTYPE_SWEEP
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["fftn", "ifftn", "fft2", "ifft2"])
@pytest.mark.parametrize("kwargs", [{}, {"s": (3, 6)}, {"axes": (0, 2)},
                                    {"s": (5, 2), "axes": (2, 0)}, {"norm": "ortho"},
                                    {"norm": "forward"}])
def test_nd_complex_transforms(dtype, name, kwargs):
    both(name, sample(dtype, (3, 4, 6)), **kwargs)


@DTYPE_SWEEP
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("kwargs", [{}, {"n": 5}, {"n": 10}, {"axis": 0}]
                         + [{"norm": n} for n in NORMS])
def test_rfft(dtype, kwargs):
    both("rfft", sample(dtype, (4, 8)), **kwargs)


@DTYPE_SWEEP
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [{}, {"n": 7}, {"n": 14}, {"axis": 0}]
                         + [{"norm": n} for n in NORMS])
def test_irfft(dtype, kwargs):
    both("irfft", sample(dtype, (4, 5)), **kwargs)


@DTYPE_SWEEP
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("name", ["rfftn", "rfft2"])
@pytest.mark.parametrize("kwargs", [{}, {"s": (4, 6)}, {"axes": (0, 1)}, {"norm": "ortho"},
                                    {"norm": "forward"}])
def test_rfftn(dtype, name, kwargs):
    both(name, sample(dtype, (3, 4, 6)), **kwargs)


@DTYPE_SWEEP
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["irfftn", "irfft2"])
@pytest.mark.parametrize("kwargs", [{}, {"s": (4, 6)}, {"s": (2, 9)}, {"axes": (0, 2)},
                                    {"norm": "ortho"}, {"norm": "forward"}])
def test_irfftn(dtype, name, kwargs):
    both(name, sample(dtype, (3, 4, 5)), **kwargs)


@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
def test_round_trips():
    x = sample("float64", (6, 8))
    lazy = lnp.asarray(x)
    check(np.fft.irfft(np.fft.rfft(lazy), n=8), x)
    check(np.fft.ifft2(np.fft.fft2(lazy)).real, x)
    check(np.fft.irfftn(np.fft.rfftn(lazy), s=x.shape), x)


@DTYPE_SWEEP
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [None, 0, (1,), (0, 1)])
def test_shifts(dtype, name, axes):
    both(name, sample(dtype, (5, 6)), axes=axes)


@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n, d", [(8, 1.0), (9, 0.1), (1, 2.0)])
def test_frequencies(name, n, d):
    got = getattr(lfft, name)(n, d)
    assert isinstance(got, lnp.ndarray)
    check(got, getattr(np.fft, name)(n, d))


@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
@pytest.mark.parametrize("call", [
    lambda m, x: m.fft(x, n=0), lambda m, x: m.ifft(x, n=-1), lambda m, x: m.rfft(x, n=0),
    lambda m, x: m.irfft(x, n=0), lambda m, x: m.fft(x, norm="bad"),
    lambda m, x: m.rfftn(x, norm="sideways"), lambda m, x: m.fftn(x, s=(2, 2), axes=(0,)),
])
def test_errors(call):
    x = sample("float64", (4, 4))
    with pytest.raises(ValueError):
        call(np.fft, x)
    with pytest.raises(ValueError):
        call(np.fft, lnp.asarray(x))
    with pytest.raises(ValueError):
        call(lfft, lnp.asarray(x))


@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
def test_rfft_of_complex_input_is_a_type_error():
    x = sample("complex128", 8)
    with pytest.raises(TypeError):
        np.fft.rfft(x)
    with pytest.raises(TypeError):
        np.fft.rfft(lnp.asarray(x))


@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.filterwarnings('ignore:`axes` should not be:DeprecationWarning')
def test_no_eager_fallback(strict_runtime):
    x = lnp.asarray(sample("float64", (4, 6)))
    np.fft.fft(x), np.fft.rfft2(x), np.fft.irfftn(np.fft.rfftn(x)), np.fft.fftshift(x)
    assert not strict_runtime.metrics.fallbacks
