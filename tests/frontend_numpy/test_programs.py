"""Realistic numpy programs (tests/frontend_numpy/programs/*.py) run three
ways on the same data and compared:

- ``numpy``: the program against numpy with host arrays -- the reference;
- ``namespace``: against ``lazytensor.numpy`` with lazy arrays, as
  ``import lazytensor.numpy as np`` users run it;
- ``protocol``: against numpy itself with lazy arrays passed in, which
  exercises ``__array_ufunc__`` / ``__array_function__``.

Every output must match numpy's in value (dtype-fitting tolerance), dtype,
shape and Python type (``str``, ``int``, ``float``, ``bool``, lists...);
in the namespace run an output that numpy gives as an ndarray must be a
lazy array, and only the fallbacks a program declares may run eagerly.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import warnings

import numpy as np
import pytest

import lazytensor.numpy as lnp
from lazytensor.core.runtime import get_runtime

PROGRAMS_DIR = pathlib.Path(__file__).parent / "programs"
if str(PROGRAMS_DIR) not in sys.path:
    sys.path.insert(0, str(PROGRAMS_DIR))


def _load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(f"np_programs_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = {case.name: case for path in sorted(PROGRAMS_DIR.glob("[!_]*.py"))
         if path.stem != "program_case" for case in _load(path).CASES}

# "case/mode" -> why it fails (a frontend bug for the frontend's owner)
XFAIL: dict[str, str] = {}

FLOAT_RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-5}


def _tolerance(dtype: np.dtype, rtol: float | None) -> float:
    if rtol is not None:
        return rtol
    base = np.dtype(dtype)
    if base.kind == "c":
        base = np.dtype(f"f{base.itemsize // 2}")
    return FLOAT_RTOL.get(base, 1e-9)


def _compare(got, want, where: str, rtol: float | None, lazy_arrays: bool) -> None:
    """Recursively: same container/Python types, same dtype/shape/values."""
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want), f"{where}: type {type(got)} != {type(want)}"
        assert len(got) == len(want), f"{where}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            _compare(g, w, f"{where}[{i}]", rtol, lazy_arrays)
        return
    if isinstance(want, dict):
        assert type(got) is dict and got.keys() == want.keys(), f"{where}: {got!r} != {want!r}"
        for k in want:
            _compare(got[k], want[k], f"{where}[{k!r}]", rtol, lazy_arrays)
        return
    if isinstance(want, (str, bool, int, float, complex)) and not isinstance(want, np.generic):
        assert type(got) is type(want), f"{where}: {type(got).__name__} {got!r} != " \
                                        f"{type(want).__name__} {want!r}"
        if isinstance(want, float):
            assert got == pytest.approx(want, rel=rtol or 1e-9, nan_ok=True), where
        else:
            assert got == want, f"{where}: {got!r} != {want!r}"
        return
    if isinstance(want, np.ndarray) and lazy_arrays:
        assert isinstance(got, lnp.ndarray), f"{where}: {type(got)} is not a lazy array"
    _compare_array(got, want, where, rtol)


def _compare_array(got, want, where: str, rtol: float | None) -> None:
    assert isinstance(got, (lnp.ndarray, np.ndarray, np.generic)), \
        f"{where}: {type(got)} where numpy gives {type(want)}"
    host, want = np.asarray(got), np.asarray(want)
    assert host.dtype == want.dtype, f"{where}: dtype {host.dtype} != {want.dtype}"
    assert host.shape == want.shape, f"{where}: shape {host.shape} != {want.shape}"
    if want.dtype.kind in "fc":
        tol = _tolerance(want.dtype, rtol)
        np.testing.assert_allclose(host, want, rtol=tol, atol=tol, equal_nan=True,
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(host, want, err_msg=where)


def _lazy(value):
    return lnp.asarray(value) if isinstance(value, np.ndarray) else value


def _run(case, mode: str):
    inputs = case.make(np.random.default_rng(0))
    if mode == "numpy":
        return case.fn(np, *inputs)
    namespace = lnp if mode == "namespace" else np
    return case.fn(namespace, *(_lazy(x) for x in inputs))


@pytest.mark.parametrize("mode", ["namespace", "protocol"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_program(name: str, mode: str, request) -> None:
    reason = XFAIL.get(f"{name}/{mode}")
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    case = CASES[name]
    want = _run(case, "numpy")
    metrics = get_runtime().metrics
    before = dict(metrics.fallbacks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        got = _run(case, mode)
        _compare(got, want, name, case.rtol, lazy_arrays=mode == "namespace")
    fell_back = {k for k, v in metrics.fallbacks.items() if v > before.get(k, 0)}
    assert fell_back <= case.fallbacks, f"unexpected eager fallbacks: {fell_back - case.fallbacks}"
