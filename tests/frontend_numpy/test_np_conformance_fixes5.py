"""Regressions found by running numpy's own test suite on lazytensor.numpy
(ci/numpy_conformance.py, round 5: _core/test_nep50_promotions,
_core/test_item_selection, _core/test_ufunc, _core/test_umath and others).
Each test compares with numpy itself (values, dtype, shape) or checks that
the same exception type (and, where numpy's tests read it, the same message)
is raised."""

from __future__ import annotations

import warnings
from decimal import Decimal
from fractions import Fraction

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same_outcome

# ------------------------------------------------ ufunc loops of numpy's own


@pytest.mark.parametrize("ufunc", ["add", "power", "multiply", "equal", "less", "maximum"])
@pytest.mark.parametrize("args", [(1, 2**63), (2**200, -2**200), (3, [1, 2])])
def test_object_loop_runs_numpys_own(ufunc, args) -> None:
    # dtype=object asks for numpy's object loop, which lazy arrays cannot hold:
    # it made a lazy node of dtype object, which failed in JAX at the next read
    # (KeyError 'O', or 'Error interpreting argument' for every later read)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        lazy = getattr(lnp, ufunc)(*args, dtype=object)
    expected = getattr(np, ufunc)(*args, dtype=object)
    assert type(lazy) is type(expected)
    assert np.asarray(lazy).dtype == np.asarray(expected).dtype
    assert np.asarray(lazy).tolist() == np.asarray(expected).tolist()
    same_outcome(lambda xp: xp.arange(3) + 1)  # a later read is unharmed


# ------------------------------------------------------ NEP 50 in joins


@pytest.mark.parametrize("items", [
    [np.float32(1), 1.0], [np.ones(2, np.int8), 1000], [np.ones(2, np.int8), 100],
    [np.ones(2, np.float32), 1j], [np.ones(2, np.int8), 1.5], [np.ones(2, np.int8), True],
    [np.ones(2, np.bool_), 3], [np.float16(1), 1e10], [np.ones((2, 2), np.uint8), -1, [3, 4]],
    [np.ones(2, np.float32), np.array(1.0)]])
@pytest.mark.parametrize("lazy_items", [False, True])
def test_concatenate_axis_none_takes_python_scalars_as_weak(items, lazy_items) -> None:
    # numpy's concatenate(axis=None) joins a float32 and 1. as float32 (NEP 50):
    # the Python scalar was a strong float64 array, so the result was float64
    def run(xp):
        own = [xp.asarray(i) if lazy_items and isinstance(i, np.ndarray) else i for i in items]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (float16 overflow: both)
            return xp.concatenate(own, axis=None)
    same_outcome(run)


# --------------------------------------------------------------------- put


@pytest.mark.parametrize(("ind", "v"), [
    (np.array([True, False, True]), [7, 8, 9]), ([True], [4]), (np.array(True), 2),
    (np.random.default_rng(0).integers(2, size=5).astype(bool), []), ([9], []), ([], []),
    ([1.5], [1]), ([1, 2.5], [3.0, 4.0]), (np.array([1.5]), [1]), (np.uint64([1, 2]), [3]),
    (np.uint32([1, 2]), [3]), ([2**63], [1]), (np.array([], float), [1]),
    ([[0, 4], [1, 2]], 7), ([1, 1, 1], [1, 2, 3])])
@pytest.mark.parametrize("lazy_ind", [False, True])
@pytest.mark.parametrize("method", [False, True])
def test_put_reads_positions_as_numpy(ind, v, lazy_ind, method) -> None:
    # a boolean ind was taken for a mask (numpy: positions 0 and 1), empty
    # values raised (numpy writes nothing), float arrays were IndexError
    # (numpy: TypeError under the 'safe' cast) and a float list raised
    def run(xp):
        a = xp.zeros(5)
        own = xp.asarray(ind) if lazy_ind and isinstance(ind, np.ndarray) else ind
        a.put(own, v) if method else xp.put(a, own, v)
        return a
    same_outcome(run)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize("view", [False, True])
def test_put_method_takes_mode_and_cycles_values(mode, view) -> None:
    # ndarray.put ignored mode (wrap/clip raised IndexError), did not repeat
    # values and refused non-contiguous views; np.put did all three
    def run(xp):
        a = xp.arange(12.0).reshape(3, 4)
        target = a.T if view else a
        target.put([1, 5, -2] if mode == "raise" else [1, 15, -20], [10.0, 20.0], mode=mode)
        return a
    same_outcome(run)


# ------------------------------------------------------------------ einsum


@pytest.mark.parametrize("optimize", [
    ["einsum_path", (0, 1)], ("einsum_path", (0, 1)), ["einsum_path", (0, 1), (0, 1)],
    ["einsum_path", (0, 1, 2)], [(0, 1)], "bogus", 0, "greedy", "optimal", True, False, None])
def test_einsum_checks_an_explicit_path_as_numpy(optimize) -> None:
    # an explicit contraction path that leaves operands uncontracted is
    # numpy's RuntimeError (it was ignored: the einsum ran)
    same_outcome(lambda xp: xp.einsum("ij,jk,kl", xp.ones((2, 3)), xp.ones((3, 4)), xp.ones((4, 2)),
                               optimize=optimize))


# ----------------------------------------------- complex branch cuts, signed zeros

_CUT_POINTS = [complex(x, y) for x in (-2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5)
               for y in (-2.5, -1.0, -0.0, 0.0, 1.0, 2.5)]


@pytest.mark.parametrize("name", ["sqrt", "arcsin", "arccos", "arcsinh", "arccosh", "arctan",
                                  "arctanh"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_branch_cuts_follow_the_sign_of_zero(name, dtype) -> None:
    # XLA ignores the sign of a zero part on a branch cut: sqrt(-1 - 0j) was
    # 1j (numpy: -1j), arcsin(2.5 - 0j) the upper side of its cut
    rng = np.random.default_rng(1)
    z = np.concatenate([np.array(_CUT_POINTS), rng.normal(size=64) + 1j * rng.normal(size=64)])
    z = z.astype(dtype)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(z)
    lazy = np.asarray(getattr(lnp, name)(lnp.asarray(z)))
    assert lazy.dtype == expected.dtype and lazy.shape == expected.shape
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(lazy, expected, rtol=tol, atol=tol)
    on_cut = (z.real == 0) | (z.imag == 0)  # the signs of the parts where they decide
    both = np.abs(expected[on_cut]) > tol
    assert (np.signbit(lazy[on_cut].imag) == np.signbit(expected[on_cut].imag))[both].all()
    assert (np.signbit(lazy[on_cut].real) == np.signbit(expected[on_cut].real))[both].all()


# -------------------------------------------- writing numpy-only values


@pytest.mark.parametrize("value", [
    "1.5", "abc", "0", "", b"1", np.array([b"1", b"0"]), np.array(["3", "4"]),
    np.longdouble(2.5), np.clongdouble(1 + 0j), np.array([1.5, 2.5], dtype=np.longdouble),
    np.array([1, 2], dtype=object), Fraction(1, 2), Decimal("0.25"), [Fraction(1, 3), "2"]])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_, np.complex64, np.uint8])
def test_strings_objects_and_longdouble_values_are_cast_when_written(value, dtype) -> None:
    # a[:] = '1.5', a[0] = Fraction(1, 2) or a longdouble raised lazytensor's
    # UnsupportedDtype; numpy casts them into the array's dtype (or raises its
    # ValueError for a string that is no number)
    def run(xp):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            a = xp.zeros(2, dtype)
            a[:] = value
            if np.ndim(value) == 0:
                a[0] = value
                a.fill(value)
                return xp.stack([a, xp.full(2, value, dtype=dtype)])
            return a
    same_outcome(run)


_OBJECT_REDUCTIONS = [
    lambda m: m.add.reduce([], dtype=object), lambda m: m.add.reduce([1, 2**70], dtype=object),
    lambda m: m.multiply.accumulate(m.asarray([1, 2, 3]), dtype=object),
    lambda m: m.add.reduceat(m.arange(4), [0, 2], dtype=object),
    lambda m: m.maximum.reduce(m.arange(3), dtype=object),
    lambda m: m.add.reduce(m.arange(3.0), dtype=np.longdouble),
    lambda m: m.sum(m.arange(3), dtype=object), lambda m: m.cumsum(m.arange(3), dtype=object)]


@pytest.mark.parametrize("fn", _OBJECT_REDUCTIONS)
def test_object_reduction_loops_run_numpys_own(fn) -> None:
    # add.reduce([], dtype=object) made a lazy node of dtype object, which
    # failed in JAX when read (numpy: the Python int 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        lazy = fn(lnp)
    expected = fn(np)
    assert type(lazy) is type(expected)
    assert np.asarray(lazy).dtype == np.asarray(expected).dtype
    assert np.asarray(lazy).tolist() == np.asarray(expected).tolist()
