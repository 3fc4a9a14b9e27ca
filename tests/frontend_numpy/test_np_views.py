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
