"""Regressions found by running numpy's own test suite on lazytensor.numpy
(ci/numpy_conformance.py, round 2: test_ufunc, test_umath, test_multiarray
and the lib modules). Each test compares with numpy itself (values, dtype,
shape) or checks that the same exception type is raised."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same_exactly, same_outcome

# ------------------------------------------- ufunc keywords: sig=, casting=

_F = np.arange(3.0) * 0.5


@pytest.mark.parametrize("kwargs", [
    {"sig": "ii->i", "casting": "unsafe"}, {"sig": ("i4", "i4", "i4"), "casting": "unsafe"},
    {"sig": (None, None, None)}, {"sig": "i", "casting": "unsafe"},
    {"sig": ("i4",), "casting": "unsafe"}, {"sig": "ii->i", "dtype": int},
    {"signature": "ii->i", "dtype": int}, {"sig": "ii->i", "signature": "ii->i"},
    {"dtype": np.intp, "casting": "unsafe"}, {"dtype": np.intp},
    {"signature": (None, None, np.intp), "casting": "unsafe"},
    {"casting": "no"}, {"casting": "equiv"}, {"casting": "safe"}, {"casting": "bogus"},
    {"dtype": "float32", "casting": "equiv"}, {"dtype": "float32", "casting": "same_kind"},
    {"dtype": int, "casting": "safe"}, {"dtype": "f8", "casting": "equiv"}])
@pytest.mark.parametrize("operands", [(_F, 0.5), (_F.astype("i4"), 3), (1.5, 2.8),
                                      (_F.astype("f4"), 2.5)])
def test_ufunc_signature_dtype_and_casting_follow_numpy(kwargs, operands) -> None:
    lazy = [lnp.asarray(o) if isinstance(o, np.ndarray) else o for o in operands]
    try:
        expected = np.add(*operands, **kwargs)
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(type(exc)):
            lnp.add(*lazy, **kwargs)
        return
    same_exactly(lnp.add(*lazy, **kwargs), expected)


def test_ufunc_casting_checks_inputs_without_a_signature() -> None:
    i4 = np.array([1, 2], "i4")
    same_exactly(lnp.add(lnp.asarray(i4), 3, casting="no"), np.add(i4, 3, casting="no"))
    for casting in ("no", "equiv", "safe"):  # int32 -> float64 is safe, not equiv
        same_outcome(lambda m, c=casting: m.add(m.asarray(i4), m.ones(2), casting=c))
        same_outcome(lambda m, c=casting: m.add(m.ones(2), m.asarray(i4), casting=c))


def test_out_ellipsis_returns_arrays_and_is_keyword_only() -> None:
    a = np.arange(3.0)
    same_exactly(lnp.add(lnp.asarray(a), 2, out=...), np.add(a, 2, out=...))
    same_exactly(lnp.add.reduce(lnp.asarray(a), out=...), np.add.reduce(a, out=...))
    for fn in (lambda m: m.add(1, 2, ...), lambda m: m.add.reduce(m.ones(2), 0, None, ...),
               lambda m: m.negative(m.ones(2), out=(...,))):
        same_outcome(fn)


def test_where_without_out_warns_as_numpy() -> None:
    a = lnp.arange(4)
    with pytest.warns(UserWarning, match="'where' used without 'out'"):
        lnp.add(a, a, where=a > 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = lnp.add(a, a, where=a > 1, out=None)
        lnp.add(a, a, where=True)
    same_exactly(r[2:], np.array([4, 6]))


@pytest.mark.parametrize("ufunc", ["add", "multiply", "maximum"])
@pytest.mark.parametrize("shape", [(0,), (3,), (2, 0)])
def test_reduce_initial_none_means_no_identity(ufunc, shape) -> None:
    same_outcome(lambda m: getattr(m, ufunc).reduce(m.ones(shape), initial=None))
    same_outcome(lambda m: getattr(m, ufunc).reduce(m.ones(shape), axis=None, initial=None))


@pytest.mark.parametrize("out", ["invalid", 3, [1.0]])
def test_reduce_out_must_be_an_array(out) -> None:
    same_outcome(lambda m: m.add.reduce(m.ones((2, 1)), 0, None, out))
    same_outcome(lambda m: m.add.reduce(m.ones((2, 1)), out=out))


def test_positional_lazy_out_is_not_compared_with_ellipsis() -> None:
    # (the keyword-only check must not compare a lazy out with == ...)
    a, out = lnp.arange(3.0), lnp.zeros(3)
    r = lnp.add(a, 1, out)
    assert r is out
    same_exactly(out, np.arange(3.0) + 1)
    q, m = lnp.zeros(3), lnp.zeros(3)
    lnp.divmod(a + 3, 2, q, m)
    same_exactly(q, np.divmod(np.arange(3.0) + 3, 2)[0])
    same_exactly(m, np.divmod(np.arange(3.0) + 3, 2)[1])


# ------------------------------- longdouble: numpy's own arrays, as dates

_G = np.arange(1, 4, dtype=np.longdouble) / 3


@pytest.mark.parametrize("fn", [
    lambda m: m.array([1, 2, 3], dtype=np.longdouble),
    lambda m: m.zeros(2, dtype="G"),
    lambda m: m.arange(3).astype("g"),
    lambda m: m.sin(m.asarray(_G)),
    lambda m: m.add(m.arange(3.0), _G),
    lambda m: m.arange(3.0) + _G,
    lambda m: _G * m.arange(3.0),
    lambda m: m.arange(3.0) - np.longdouble(1) / 3,
    lambda m: np.longdouble(1) / 3 - m.arange(3.0),
    lambda m: m.sum(m.asarray(_G)),
    lambda m: m.sqrt(np.add(m.arange(3.0), _G)),
    lambda m: m.where(m.arange(3) > 0, _G, np.longdouble(0)),
])
def test_longdouble_data_runs_numpys_own(fn) -> None:
    got, want = fn(lnp), fn(np)
    assert isinstance(got, np.ndarray | np.generic)  # (no XLA type: not a lazy array)
    assert np.asarray(got).dtype == want.dtype and np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def test_lazy_reductions_to_longdouble_run_numpys_own() -> None:
    # (a longdouble loop has no XLA type: numpy's own, eagerly and counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        got = lnp.sum(lnp.arange(3.0), dtype="g")
    want = np.sum(np.arange(3.0), dtype="g")
    assert type(got) is type(want) and got == want


# ------------------------------------------------ a @= b keeps a's shape

@pytest.mark.parametrize("sa,sb", [
    ((3,), (3,)), ((3, 3), (3,)), ((3,), (3, 3)), ((3, 3), (3, 1)), ((1, 3), (3, 3)),
    ((3, 3), (3, 3)), ((3, 3, 3), (1, 3, 1)), ((3, 3, 3), (1, 3, 3)), ((1, 3, 3), (3, 3, 3)),
    ((3, 1, 3), (3, 3, 3))])
def test_inplace_matmul_never_broadcasts_its_result(sa, sb) -> None:
    # (the (3, 1) or scalar result was broadcast into a: silently wrong)
    def run(m):
        a = m.arange(int(np.prod(sa)), dtype=float).reshape(sa)
        a @= m.arange(int(np.prod(sb))).reshape(sb)
        return a
    same_outcome(run)


def test_object_operands_run_numpys_ufunc_with_every_keyword() -> None:
    # (the eager path once received the keywords the lazy path had popped)
    obj = np.array([True, None, False], dtype=object)
    same_exactly(lnp.logical_xor(obj, obj, dtype=bool), np.logical_xor(obj, obj, dtype=bool))
    same_exactly(lnp.logical_or(obj, obj, dtype=bool), np.logical_or(obj, obj, dtype=bool))
    same_outcome(lambda m: m.logical_and(obj, obj, signature="OO->O"))
    same_outcome(lambda m: m.logical_and(obj, obj, signature="??->?"))


# -------------------- eager fallbacks check a lazy out= as numpy checks it

@pytest.mark.filterwarnings("ignore::lazytensor.numpy._errors.LazyFallbackWarning")
@pytest.mark.parametrize("shape", [(2, 3), (1, 2, 3), (3,), (2, 1)])
def test_eager_fallback_writes_a_lazy_out_only_where_numpy_would(shape) -> None:
    # (the result was computed without out and broadcast into it: a
    # wrong-shaped out took a broadcast copy where numpy raises ValueError)
    x = np.arange(6).reshape(2, 3)

    def run(m):
        out = m.zeros(shape, dtype=x.dtype)
        r = m.subtract.accumulate(m.asarray(x), axis=0, out=out)  # (eager)
        assert r is out
        return out
    same_outcome(run)
