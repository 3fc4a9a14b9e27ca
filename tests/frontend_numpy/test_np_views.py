"""In-place updates and views: each program runs on numpy and on lazy arrays
with the same source; every array it returns (bases and views alike) must
end up equal. Also flags, strides and dtype-changing views."""


from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same, same_error, same_exactly


def _moving_averages(mod, prices):
    windows = mod.lib.stride_tricks.sliding_window_view(prices, 5)
    tiles = mod.lib.stride_tricks.sliding_window_view(prices.reshape(6, 10), (2, 3))
    rows = mod.lib.stride_tricks.sliding_window_view(prices.reshape(6, 10), 4, axis=(1,))
    return windows.mean(axis=1), windows.max(-1), tiles.sum(axis=(-1, -2)), rows, windows.strides


_VIEWS = [lambda a: a, lambda a: a[::2], lambda a: a.T, lambda a: a.copy(), lambda a: a[1:],
          lambda a: a.reshape(-1)]


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


def test_view_base_and_shared_memory():
    """``x.base`` was missing; ``np.shares_memory`` ran eagerly on host
    copies and answered False for every pair of views."""
    host = np.arange(12.0).reshape(3, 4)
    a = lnp.asarray(host)
    assert a.base is None and a[1:].base is a and a.T[1:].base is a and a.reshape(-1).base is a
    assert a.copy().base is None and (a + 1).base is None
    pairs = (lambda m: (m, m[1:]), lambda m: (m[::2], m[1::2]), lambda m: (m[:, 0], m.T[1]),
             lambda m: (m[:1], m[2:]), lambda m: (m, m.copy()))
    for pair in pairs:
        for share in (np.shares_memory, np.may_share_memory):
            assert share(*pair(a)) == share(*pair(host))


def test_sliding_window_view_is_a_lazy_read_only_view(runtime):
    """sliding_window_view (moving averages, 2-d tiles) ran eagerly; it is a
    read-only view now: numpy's shapes, strides and errors, and a write to
    the base shows through."""
    host = 100 * np.cumprod(1 + np.sin(np.arange(60.0)) / 50)
    got, want = _moving_averages(lnp, lnp.asarray(host)), _moving_averages(np, host)
    for g, w in zip(got[:-1], want[:-1], strict=True):
        same(g, w)
    assert got[-1] == want[-1]
    base = lnp.asarray(host)
    windows = lnp.lib.stride_tricks.sliding_window_view(base, 3)
    base[1] = -1.0
    assert float(windows[0, 1]) == -1.0 and windows.base is base
    with pytest.raises(ValueError, match="read-only"):
        windows[0, 0] = 2.0
    with pytest.raises(ValueError, match="larger than input"):
        lnp.lib.stride_tricks.sliding_window_view(base, 61)
    with pytest.raises(NotImplementedError):
        lnp.lib.stride_tricks.sliding_window_view(base, 3, writeable=True)


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


@pytest.mark.parametrize("left", range(len(_VIEWS)))
@pytest.mark.parametrize("right", range(len(_VIEWS)))
def test_flags_compare_by_value_as_numpys(left, right) -> None:
    def equal(xp):
        a = xp.arange(12.0).reshape(4, 3)
        return _VIEWS[left](a).flags == _VIEWS[right](a).flags
    assert equal(lnp) == equal(np)
    host = _VIEWS[right](np.arange(12.0).reshape(4, 3)).flags
    assert (_VIEWS[left](lnp.arange(12.0).reshape(4, 3)).flags == host) == equal(np)
    with pytest.raises(TypeError):
        hash(lnp.ones(2).flags)


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1])
def test_rot90_is_a_view_that_writes_back(k):
    host = np.arange(24.0).reshape(2, 3, 4)
    want, got = host.copy(), lnp.asarray(host)
    rw, rg = np.rot90(want, k, (2, 0)), np.rot90(got, k, (2, 0))
    rw[0, 1, 0] = -1.0
    rg[0, 1, 0] = -1.0
    np.testing.assert_array_equal(np.asarray(rg), rw)
    np.testing.assert_array_equal(np.asarray(got), want)


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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("write", [
    lambda np, a, b: a.__setitem__(slice(2, 6), a[2:6]),
    lambda np, a, b: a.__setitem__((1, slice(1, -1)), a[1, 1:-1]),
    lambda np, a, b: a.__setitem__(slice(2, 6), a[1:5]),
    lambda np, a, b: a.__setitem__(slice(None, None, 2), a[::2] * 2),
    lambda np, a, b: a.__setitem__(slice(2, 6), b[2:6]),
    lambda np, a, b: a[1:3].__setitem__(slice(None), a[1:3])])
def test_writing_a_view_back_where_it_reads(write):
    """``a[i:j] = a[i:j]`` changes nothing: Python's augmented assignment
    ``a[i:j] += v`` does it after the in-place add wrote through the view,
    which now records one update, not two; other sources still write."""
    import lazytensor.numpy as lnp

    host = np.arange(48.0).reshape(6, 8)
    a, b = host.copy(), host[::-1].copy()
    write(np, a, b)
    la, lb = lnp.asarray(host), lnp.asarray(host[::-1].copy())
    write(lnp, la, lb)
    np.testing.assert_array_equal(np.asarray(la), a)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_augmented_slice_assignment_records_one_update():
    import lazytensor.numpy as lnp
    from lazytensor.core.ir import toposort
    from lazytensor.core.ops import Op

    out, v = lnp.zeros(40), lnp.asarray(np.arange(8.0))
    for i in range(0, 32, 4):
        out[i:i + 8] += v
    ops = [n.op for n in toposort([out._h.node])]
    assert ops.count(Op.DYNAMIC_UPDATE_SLICE) == 8
    want = np.zeros(40)
    for i in range(0, 32, 4):
        want[i:i + 8] += np.arange(8.0)
    np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("shape", [(4, 5, 6), (1, 5, 1), (3, 1, 4), (0, 3, 2)])
def test_strides_of_basic_views_are_numpys(shape):
    """The strides of every view of a C-contiguous array by up to three of
    these index items (a shortcut now answers the contiguous ones)."""
    import itertools

    import lazytensor.numpy as lnp

    items = [0, -1, slice(None), slice(1, 3), slice(None, None, 2), slice(2, 0, -1),
             slice(1, 2), None, Ellipsis]
    host = np.zeros(shape)
    lazy = lnp.asarray(host)
    for k in (1, 2, 3):
        for index in itertools.product(items, repeat=k):
            try:
                want = host[index]
            except IndexError:
                continue
            got = lazy[index]
            assert got.strides == want.strides or (
                want.flags.c_contiguous and got.flags.c_contiguous), index
