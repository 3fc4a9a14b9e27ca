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
lazy array, only the fallbacks a program declares may run eagerly, and a
second run on the same data must find every graph in the compile cache.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
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
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
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


# slow: the protocol mode reruns every program through numpy's __array_function__
# protocol, which np_compare.check also runs for every user program (about
# half of this file's 205 s on a loaded 2-core machine)
@pytest.mark.parametrize("mode", ["namespace", pytest.param("protocol", marks=pytest.mark.slow)])
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
    if mode == "namespace":  # the same program on the same data: every graph is cached
        misses = metrics.counters["cache_misses"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
            _materialize(_run(case, mode))
        assert metrics.counters["cache_misses"] == misses, metrics.miss_reasons[-3:]


def _materialize(out) -> None:
    if isinstance(out, (list, tuple)):
        for item in out:
            _materialize(item)
    elif isinstance(out, dict):
        _materialize(list(out.values()))
    elif isinstance(out, lnp.ndarray):
        np.asarray(out)


# --------------------------------------------------------------------------
# Frontend bugs found by these programs, each reduced to the line of user
# code that broke (all fixed).

def test_round_of_a_reduction():
    host = np.array([0.1234, 0.5678, 0.9])
    assert round(lnp.mean(lnp.asarray(host)), 3) == round(np.mean(host), 3)
    assert type(round(lnp.max(lnp.asarray(host)))) is int


def test_in_operator():
    x = lnp.asarray(np.arange(6).reshape(2, 3))
    assert 4 in x
    assert 7 not in x


def test_reduction_result_as_dict_key():
    x = lnp.asarray(np.array([3, 1, 9]))
    table = {9: "nine", 0: "zero"}
    assert table.get(x.max()) == "nine"
    assert table[x.argmin() - 1] == "zero"


def test_lazy_scalars_where_numpy_takes_an_int():
    """A 0-d lazy int (``k = np.argmax(...)``) as a shape, an axis, a slice
    bound or a repeat count, as numpy accepts any ``__index__`` object
    (fixed in the core: shape.as_axes, reduction.normalize_axes,
    indexing._token)."""
    host = np.arange(10.0)
    x = lnp.asarray(host)
    k = lnp.argmax(x > 4.5)
    for got, want in (
        (lnp.zeros(k + 1), np.zeros(6)), (lnp.full(k, 2), np.full(5, 2)),
        (x[:k], host[:5]), (x[k - 2::2], host[3::2]),
        (x.reshape(2, 5)[:, :k - 2], host.reshape(2, 5)[:, :3]),
        (lnp.roll(x, k), np.roll(host, 5)), (lnp.tile(x[:2], k - 3), np.tile(host[:2], 2)),
        (lnp.sum(x.reshape(2, 5), axis=k - 5), host.reshape(2, 5).sum(axis=0)),
        (lnp.expand_dims(x, k - 5), host[None]),
    ):
        _compare_array(got, want, "lazy int", None)
    y = x.copy()
    y[:k] = 0
    _compare_array(y, np.where(host < 5, 0, host), "y[:k] = 0", None)


@pytest.mark.parametrize("call", [
    lambda x, k: lnp.array_split(x, k),
    lambda x, k: lnp.random.default_rng(0).normal(size=k),
], ids=["array_split", "Generator.normal"])
def test_lazy_int_in_frontend_helpers(call):
    x = lnp.arange(10.0)
    call(x, lnp.argmax(x > 3.5))


def test_flat_iterator():
    host = np.arange(6.0).reshape(2, 3)
    x = lnp.asarray(host)
    assert float(x.flat[4]) == 4.0
    assert [float(v) for v in x.flat] == host.ravel().tolist()


def test_methods_and_none_comparison():
    """Were frontend bugs found here (ndarray.searchsorted/argpartition were
    missing; x == None gave a 0-d False), fixed in the frontend."""
    host = np.array([1.0, 3.0, 5.0, 7.0])
    x = lnp.asarray(host)
    assert int(x.searchsorted(4.0)) == 2
    np.testing.assert_array_equal(np.sort(np.asarray(x.argpartition(2)[:2])), [0, 1])
    _compare_array(x == None, host == None, "x == None", None)  # noqa: E711


@pytest.mark.parametrize("how", ["put", "place"])
@pytest.mark.filterwarnings("ignore::lazytensor.numpy.LazyFallbackWarning")
def test_inplace_numpy_functions_write_back(how):
    host = np.zeros(5)
    x = lnp.asarray(host)
    for xp, a in ((np, host), (lnp, x)):
        if how == "put":
            xp.put(a, [0, 3], [1.0, 2.0])
        else:
            xp.place(a, a == 0, [4.0])
    np.testing.assert_array_equal(np.asarray(x), host)


def test_pad_modes_fall_back():
    host = np.arange(6.0).reshape(2, 3)
    got = lnp.pad(lnp.asarray(host), 1, mode="linear_ramp")
    np.testing.assert_array_equal(np.asarray(got), np.pad(host, 1, mode="linear_ramp"))


@pytest.mark.parametrize("call", [
    lambda r: r.choice(5, 3), lambda r: r.default_rng(0).choice(lnp.arange(4)),
    lambda r: r.binomial(10, 0.5, size=3), lambda r: r.RandomState(0).rand(2),
], ids=["choice", "Generator.choice", "binomial", "RandomState"])
def test_random_functions_exist(call):
    out = call(lnp.random)
    assert np.asarray(out).dtype.kind in "if"


def test_repr_of_explicit_0d_arrays():
    assert repr(lnp.asarray(5.0)) == repr(np.asarray(5.0))
    assert repr(lnp.zeros(())) == repr(np.zeros(()))


def test_string_arrays():
    names = lnp.array(["cat", "dog", "eel"])
    picked = names[np.array([2, 0])]
    assert list(picked) == ["eel", "cat"]


@pytest.mark.parametrize("draw", [
    lambda r: (r.seed(0), r.rand(3))[1],
    lambda r: (r.seed(1), r.randint(0, 10, size=4))[1],
    lambda r: r.default_rng(0).normal(size=3),
    lambda r: r.default_rng(0).integers(0, 10, size=4),
    lambda r: r.RandomState(5).standard_normal((2, 2)),
    lambda r: (r.seed(2), r.permutation(6))[1],
], ids=["seed+rand", "seed+randint", "default_rng.normal", "default_rng.integers",
        "RandomState", "seed+permutation"])
def test_seeded_random_matches_numpy(draw):
    """Seeded programs draw numpy's own streams, bit for bit."""
    got = draw(lnp.random)
    assert isinstance(got, lnp.ndarray)
    np.testing.assert_array_equal(np.asarray(got), draw(np.random))


def test_scalar_draws_are_numpys_scalars():
    got, want = lnp.random.default_rng(1), np.random.default_rng(1)
    for draw in (lambda r: r.integers(10), lambda r: r.random(), lambda r: r.normal()):
        a, b = draw(got), draw(want)
        assert type(a) is type(b) and a == b


def test_random_shuffle_in_place_matches_numpy():
    host = np.arange(10.0)
    lazy = lnp.asarray(host.copy())
    view = lazy[2:]
    np.random.seed(4)
    np.random.shuffle(host)
    lnp.random.seed(4)
    lnp.random.shuffle(lazy)
    np.testing.assert_array_equal(np.asarray(lazy), host)
    np.testing.assert_array_equal(np.asarray(view), host[2:])
