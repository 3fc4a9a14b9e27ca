"""Bugs found by running small numpy user programs on lazy arrays, each
reduced to the lines that broke and compared with numpy's own result."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same


def test_lazy_mask_read_after_a_pending_write():
    """``a[a > 1]`` reads the mask (a barrier) after a pending write to ``a``:
    the pending node taken before the barrier named a donated buffer
    ('Array has been deleted')."""
    for mod in (np, lnp):
        a = mod.asarray(np.arange(24.0).reshape(6, 4))
        c = a[:, 0]
        c[c > 1] = 9
        a[0, 1] = 5
        got = a[a > 1]
        b = a.copy()
        b[b > 4] = a[a > 4] * 2  # the same in a write, with a lazy value
        c = a * 1
        mod.add.at(c, c > 5, 1)  # and in ufunc.at
        if mod is np:
            want = got, b, c
    for g, w in zip((got, b, c), want, strict=True):
        same(g, w, rtol=1e-7)


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


def _outs(mod, x):
    """Reductions and scans written into ``out=`` (host or lazy arrays)."""
    outs = (np.zeros(3), np.zeros((2, 3)), np.zeros(2, dtype=np.int64), np.zeros(3),
            mod.zeros(3, dtype=np.int32), mod.zeros(2, dtype=np.int64))
    np.sum(x, axis=0, out=outs[0])
    np.cumsum(x, axis=1, out=outs[1])
    np.max(x, axis=1, out=outs[2])  # reductions cast into out unsafely
    np.add.reduce(x, out=outs[3])
    np.add.accumulate(x[0] * 1.5, out=outs[4])
    np.max(x, axis=1, out=outs[5])
    return outs


def test_reduction_into_out():
    """``np.sum(lazy, out=host)`` failed ('numpy.ndarray' object has no
    attribute '_h'); reduce/accumulate refused out= of another kind, where
    numpy casts unsafely."""
    host = np.arange(6.0).reshape(2, 3)
    for got, want in zip(_outs(lnp, lnp.asarray(host)), _outs(np, host), strict=True):
        same(got, want, rtol=1e-7)


def test_quantile_methods():
    """percentile(method='nearest'/'lower'/...) raised NotImplementedError; the
    picking methods keep the input's dtype, midpoint interpolates."""
    host = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    calls = (lambda m, a, method: m.percentile(a, 40, method=method),
             lambda m, a, method: m.quantile(a.astype(np.float32), [0.1, 0.5], method=method),
             lambda m, a, method: m.quantile(a[:6], [0.1, 0.3, 0.5, 0.7], method=method),
             lambda m, a, method: m.quantile(a.reshape(2, 4) * 1.5, [0.25, 0.625], axis=1,
                                             method=method, keepdims=True),
             lambda m, a, method: m.percentile(m.where(a > 5, np.nan, a), 50, method=method))
    for method in ("lower", "higher", "nearest", "midpoint", "weibull"):
        for call in calls:
            want = call(np, host, method)
            got = np.asarray(call(lnp, lnp.asarray(host), method))
            assert got.dtype == want.dtype and got.shape == want.shape, method
            np.testing.assert_allclose(got, want, equal_nan=True, err_msg=method)


def test_astype_str():
    """``a.astype(str)`` crashed in JAX's convert; numpy gives a string array
    (host, counted as a fallback)."""
    host = np.array([[0.5, 1.25], [3.0, -2.0]])
    got = lnp.asarray(host).astype(str)
    want = host.astype(str)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_out_of_another_shape_is_a_value_error():
    """``np.add(x, x, out=wrong_shape)`` leaked the core's ShapeError."""
    x = lnp.asarray(np.ones(6))
    for out in (np.zeros(2), lnp.zeros(2)):
        with pytest.raises(ValueError, match="could not be broadcast"):
            np.add(x, x, out=out)


def _into_out(mod, x):
    outs = (mod.zeros(4, bool), np.zeros(4, complex), mod.zeros(3, complex), np.zeros(4),
            np.zeros((2, 2)))
    np.isposinf(x * np.inf, out=outs[0])
    np.fft.fft(x, out=outs[1])
    np.fft.rfft(x, out=outs[2])
    np.fft.irfft(np.fft.rfft(x), n=4, out=outs[3])
    np.linalg.multi_dot([x[:2, None], x[None, 2:], x[:2, None] * x[None, :2]], out=outs[4])
    return outs


def test_out_of_fft_isposinf_multi_dot():
    """out= was accepted and silently ignored by np.fft.*, isposinf/isneginf
    and linalg.multi_dot."""
    host = np.array([1.0, -2.0, 3.0, 4.0])
    for got, want in zip(_into_out(lnp, lnp.asarray(host)), _into_out(np, host), strict=True):
        same(got, want, rtol=1e-7)


def test_barrier_inside_a_function_keeps_its_operands():
    """``np.bincount(x % 3)`` reads max(x) (a barrier) after taking x's
    pending node; the barrier donated the input's buffer ('Array has been
    deleted'). Likewise a lazy int argument read inside np.tril/np.roll."""
    host = np.array([1, 5, 2, 2, 7, 1])
    k = lnp.argmax(lnp.asarray(host))
    for got, want in (
        (np.bincount(lnp.asarray(host) % 3), np.bincount(host % 3)),
        (np.bincount(lnp.asarray(host) * 2, weights=lnp.asarray(host) * 0.5),
         np.bincount(host * 2, weights=host * 0.5)),
        (np.roll(lnp.asarray(host) * 2, k), np.roll(host * 2, 4)),
        (np.tril(lnp.asarray(np.ones((3, 3))) * 2, k=k - 5), np.tril(np.ones((3, 3)) * 2, -1)),
    ):
        same(got, want, rtol=1e-7)


def test_choose_method():
    """``idx.choose(choices)`` was missing (AttributeError), np.choose is lazy."""
    host, choices = np.array([0, 2, 1, 0]), np.arange(12).reshape(3, 4)
    same(lnp.asarray(host).choose(lnp.asarray(choices)), host.choose(choices), rtol=1e-7)
