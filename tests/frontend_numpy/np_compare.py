"""How the numpy frontend tests compare with numpy's own result: ``same``
(dtype, shape, values within rtol), ``same_exactly``, ``same_error`` (both
raise it), ``same_outcome`` (the same array or the same exception type),
and ``check``, which runs a whole program with numpy, lazily, and through
numpy's protocols."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core.runtime import get_runtime


def same(got, want, rtol=1e-6) -> None:
    """``got`` (lazy or host) equals numpy's ``want``: dtype, shape, values."""
    host = np.asarray(got)
    assert host.dtype == want.dtype and host.shape == want.shape
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(host, want, rtol=rtol)
    else:
        np.testing.assert_array_equal(host, want)


def same_exactly(lazy, expected) -> None:
    """``lazy`` equals ``expected`` exactly: dtype, shape, values."""
    host = np.asarray(lazy)
    expected = np.asarray(expected)
    assert host.dtype == expected.dtype and host.shape == expected.shape
    np.testing.assert_array_equal(host, expected)


def same_error(error, fn) -> None:
    """``fn(np)`` and ``fn(lnp)`` both raise ``error``."""
    with pytest.raises(error):
        fn(np)
    with pytest.raises(error):
        fn(lnp)


def same_outcome(fn) -> None:
    """fn(np) and fn(lnp) give the same array, or raise the same exception type."""
    try:
        expected = fn(np)
    except Exception as exc:  # noqa: BLE001  (the type is what is compared)
        with pytest.raises(type(exc)):
            fn(lnp)
        return
    same_exactly(fn(lnp), expected)


RTOL = {"f2": 2e-3, "f4": 2e-5, "c8": 2e-5}


def _compare(got, want, where="out", rtol=None):
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _compare(g, w, f"{where}[{i}]", rtol)
        return
    if isinstance(want, dict):
        assert type(got) is dict and got.keys() == want.keys(), where
        for k in want:
            _compare(got[k], want[k], f"{where}[{k!r}]", rtol)
        return
    if isinstance(want, (bool, int, float, str)) and not isinstance(want, np.generic):
        assert type(got) is type(want), f"{where}: {type(got)} != {type(want)}"
        expected = want if isinstance(want, str) else pytest.approx(want, rel=rtol or 1e-9)
        assert got == expected, where
        return
    host, want = np.asarray(got), np.asarray(want)
    assert host.dtype == want.dtype, f"{where}: dtype {host.dtype} != {want.dtype}"
    assert host.shape == want.shape, f"{where}: shape {host.shape} != {want.shape}"
    if want.dtype.kind in "fc":
        tol = rtol or RTOL.get(want.dtype.str[1:], 1e-9)
        np.testing.assert_allclose(host, want, rtol=tol, atol=tol, err_msg=where)
    else:
        np.testing.assert_array_equal(host, want, err_msg=where)


def _lazy(inputs):
    return [lnp.asarray(x) if isinstance(x, np.ndarray) else x for x in inputs]


def _materialize(out):
    if isinstance(out, (list, tuple, dict)):
        for item in out.values() if isinstance(out, dict) else out:
            _materialize(item)
    elif isinstance(out, lnp.ndarray):
        np.asarray(out)


def check(program, *inputs, rtol=None, protocol=True, fallbacks=frozenset()):
    """``program(np, *inputs)`` with numpy, lazily through the namespace
    (three times: the third run compiles nothing; the runtime may run a large
    graph op by op on its first sighting and compile it on the second) and
    through numpy's protocols; only the numpy functions named in
    ``fallbacks`` may run eagerly."""
    want = program(np, *inputs)
    metrics = get_runtime().metrics
    before = dict(metrics.fallbacks)
    _compare(program(lnp, *_lazy(inputs)), want, program.__name__, rtol)
    _materialize(program(lnp, *_lazy(inputs)))
    misses = metrics.counters["cache_misses"]
    _materialize(program(lnp, *_lazy(inputs)))
    assert metrics.counters["cache_misses"] == misses, metrics.miss_reasons[-3:]
    if protocol:
        _compare(program(np, *_lazy(inputs)), want, f"{program.__name__} (protocol)", rtol)
    fell_back = {k for k, v in metrics.fallbacks.items() if v > before.get(k, 0)}
    assert fell_back == set(fallbacks), f"eager fallbacks: {fell_back}"
