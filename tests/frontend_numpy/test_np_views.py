"""In-place updates and views: each program runs on numpy and on lazy arrays
with the same source; every array it returns (bases and views alike) must
end up equal, so a write through a view reaches its base exactly as in
numpy, and a reshape numpy would copy does not write back."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest


def _setitem_int(xp, x):
    x[1] = 7
    x[0, 2] = -1
    return [x]


def _setitem_slices(xp, x):
    x[1:3, ::2] = 5
    x[:, -1] = xp.arange(4.0)
    x[::-1, 0] += 1
    return [x]


def _setitem_advanced(xp, x):
    x[[0, 2], 1] = xp.asarray([10.0, 20.0])
    x[[1, 1, 3], [0, 0, 2]] = xp.asarray([1.0, 2.0, 3.0])  # duplicates: last write wins
    return [x]


def _setitem_mask(xp, x):
    x[x > 3] = 0
    x[xp.asarray(x < 1) & (x > -1)] = xp.asarray(np.arange(1.0, 100.0))[: int((x == 0).sum())]
    return [x]


def _view_write_reaches_base(xp, x):
    v = x[1:3]
    v[0, 0] = 100
    v += 1
    return [x, v]


def _base_write_shows_in_view(xp, x):
    v = x[:, 1]
    x += 10
    x[0, 1] = -5
    return [x, v]


def _view_of_view(xp, x):
    v = x[1:][::2]
    w = v[:, 1:3]
    w *= -1
    return [x, v, w]


def _transpose_view(xp, x):
    t = x.T
    t[0, 1] = 42
    s = xp.swapaxes(x, 0, 1)[2]
    s[:] = 3
    return [x, t, s]


def _reshape_view(xp, x):
    r = x.reshape(2, 6)
    r[1, 0] = 9
    flat = x.ravel()
    flat[-1] = -9
    return [x, r, flat]


def _reshape_that_copies(xp, x):
    r = x.T.reshape(-1)  # numpy must copy here: writes stay in r
    r[0] = 1000
    f = x.flatten()
    f[1] = 2000
    k = x[:, ::2].ravel()
    k[0] = 3000
    return [x, r, f, k]


def _inplace_on_reshaped_transpose(xp, x):
    t = x.T
    u = t.reshape(3, 4)  # a copy (t is not C-contiguous)
    u += 1
    v = t[::2].reshape(-1)  # also a copy
    v -= 1
    return [x, t, u, v]


def _ufunc_out(xp, x):
    xp.add(x[0], 1, out=x[1])
    xp.multiply(x, 2, out=x)
    xp.negative(x[2:], out=x[2:])
    return [x]


def _split_flip_rot(xp, x):
    a, b = xp.split(x, 2)
    b[0] = 0
    f = xp.flip(x, 1)
    f[0, 0] = 77
    r = xp.rot90(x)
    r[0, 0] = 55
    return [x, a, b, f, r]


def _copies_are_independent(xp, x):
    c = x.copy()
    d = xp.array(x)
    e = x.astype(np.float32)
    x[0] = -1
    c[1] = -2
    return [x, c, d, e]


def _aliasing(xp, x):
    y = x
    y += 1
    z = x[...]
    z -= 5
    return [x, y, z]


def _complex_parts(xp, x):
    z = x + 1j * x
    z.real[0] = 100
    z.imag += 1
    re = z.real
    z[1] = 5 - 2j
    return [z, re]


def _methods_in_place(xp, x):
    x.fill(2.5)
    x[1] = xp.arange(3.0)[::-1].repeat(1)[0]
    y = xp.asarray(np.array([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]]))
    y.sort(axis=1)
    xp.copyto(x[:2, :3], y)
    xp.putmask(x, x > 2, -3.0)
    xp.put_along_axis(x, xp.asarray(np.array([[0], [2], [1], [0]])), 8.0, axis=1)
    x[1:].put([0, 4], [1.5, 2.5])
    z = x[:, 0].copy()
    z.partition(1)
    return [x, y, z]


def _shape_setter(xp, x):
    v = x[:2]
    v.shape = (3, 2)
    v[0, 0] = 123
    return [x, v]


PROGRAMS = [fn for name, fn in sorted(globals().items()) if name.startswith("_")
            and callable(fn) and fn.__code__.co_varnames[:2] == ("xp", "x")]


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__.strip("_") for p in PROGRAMS])
def test_program_matches_numpy(program):
    host = np.arange(12.0).reshape(4, 3) - 4.0
    expected = program(np, host.copy())
    actual = program(lnp, lnp.asarray(host))
    assert len(expected) == len(actual)
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert isinstance(got, lnp.ndarray), f"output {i} is {type(got).__name__}"
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape, (i, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=f"output {i}")


def test_views_report_numpys_strides():
    host = np.zeros((4, 6), dtype=np.float32)
    x = lnp.asarray(host)
    for index in (np.s_[1:3], np.s_[:, ::2], np.s_[::-1, 1], np.s_[None, 2:, 1:5:2]):
        assert x[index].strides == host[index].strides, index
    assert x.T.strides == host.T.strides
    assert (x.T + 1).strides == (host.T + 1).strides  # K order of a fresh output
    assert x.reshape(3, 8).strides == host.reshape(3, 8).strides


def test_write_through_view_after_sync():
    x = lnp.arange(6.0)
    v = x[2:]
    lnp.sync()
    assert float(v[0]) == 2.0
    v[0] = -1.0
    lnp.sync()
    assert np.asarray(x).tolist() == [0.0, 1.0, -1.0, 3.0, 4.0, 5.0]


_STRIDED_VIEWS = {
    "step": lambda y: y[::2],
    "transpose": lambda y: y.T,
    "reversed": lambda y: y[:, ::-1],
    "steps_and_reversal": lambda y: y[::-2, 1::3, ::2],
    "swapped_slice": lambda y: y.swapaxes(0, 2)[1:],
    "broadcast": lambda y: np.broadcast_to(y[:, :1], (6, 8, 5)),
    "last_index": lambda y: y[..., 0],
    "fortran": lambda y: np.asfortranarray(y),
}


@pytest.mark.parametrize("make", _STRIDED_VIEWS.values(), ids=_STRIDED_VIEWS.keys())
def test_a_views_host_copy_has_the_strides_it_reports(make):
    """numpy code pairs ``a.strides`` with ``np.asarray(a)`` (as_strided on the
    buffer it got back): the host copy must be laid out as ``a.strides`` says,
    or as_strided reads other elements (or past the buffer's end)."""
    y = np.random.default_rng(0).standard_normal((6, 8, 5))
    want, lazy = make(y), make(lnp.asarray(y))
    host = np.asarray(lazy)
    assert lazy.strides == want.strides == host.strides
    np.testing.assert_array_equal(host, want)
    # a host copy whose elements share bytes (a broadcast) is read-only, as numpy's
    assert host.flags.writeable == np.asarray(want).flags.writeable
    strided = np.lib.stride_tricks.as_strided
    np.testing.assert_array_equal(strided(lazy, strides=lazy.strides),
                                  strided(want, strides=want.strides))


def test_sliding_windows_by_as_strided_on_a_step_slice():
    """The as_strided sliding-window idiom on a lazy step slice (numpy's test_ravel
    found the same with a swapped view): windows of the slice's elements."""
    def windows(xp):
        x = xp.asarray(np.arange(20.0))[::2]
        return np.lib.stride_tricks.as_strided(x, shape=(8, 3), strides=(x.strides[0],) * 2)

    np.testing.assert_array_equal(windows(lnp), windows(np))


@pytest.mark.parametrize("name", ["ascontiguousarray", "asfortranarray"])
@pytest.mark.parametrize("value", [5.0, [[1, 2], [3, 4]], "lazy_0d", "lazy_t", "lazy_step"])
def test_contiguous_copies_match_numpy(name, value, runtime):
    """numpy's as{contiguous,fortran}array: at least 1-d, laid out in their order
    (asfortranarray ran eagerly before)."""
    lazy_values = {"lazy_0d": lambda m: m.asarray(3), "lazy_t": lambda m: m.ones((2, 3)).T,
                   "lazy_step": lambda m: m.arange(12.0).reshape(4, 3)[::2]}
    make = lazy_values[value] if isinstance(value, str) else lambda m: value
    got, want = getattr(lnp, name)(make(lnp)), getattr(np, name)(make(np))
    assert isinstance(got, lnp.ndarray)
    assert (got.shape, got.strides, got.dtype) == (want.shape, want.strides, want.dtype)
    np.testing.assert_array_equal(np.asarray(got), want)  # (runtime: no eager fallback)
