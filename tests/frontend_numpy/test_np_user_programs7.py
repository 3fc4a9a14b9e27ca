"""Bugs found by running numpy's own indexing and ufunc test modules
(ci/numpy_conformance.py: test_indexing, test_umath, test_ufunc), the
numpy functions that were still eager fallbacks, and a seventh round of
numpy user programs on lazy arrays, each compared with numpy's own result."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core import metrics
from np_compare import same

pytestmark = pytest.mark.usefixtures("own_runtime")


# ------------------------------------------------------------ indexing

def test_a_tuple_subclass_is_a_multi_dimensional_index():
    """numpy reads any tuple subclass (a namedtuple too) as one index per
    axis; lazy arrays took it as one advanced index (shape (2, 1, 5) for
    numpy's (1,)), found by numpy's test_indexing.test_tuple_subclass."""
    class Pair(tuple):
        pass

    for index in (Pair(([1], [1])), Pair((1, 2))):
        same(lnp.arange(25.0).reshape(5, 5)[index], np.arange(25.0).reshape(5, 5)[index])
        same(lnp.arange(25.0).reshape(5, 5)[index,], np.arange(25.0).reshape(5, 5)[index,])
    got, want = lnp.zeros((5, 5)), np.zeros((5, 5))
    got[Pair(([1, 2], [3, 4]))] = 7.0
    want[Pair(([1, 2], [3, 4]))] = 7.0
    same(got, want)


@pytest.mark.parametrize("shape", [(1.0, 1, -1), (lnp.float64(1.0), -1), (True, -1),
                                   (np.array(1.0), -1), 2.5])
def test_reshape_to_a_float_or_bool_shape_raises_type_error(shape):
    """numpy refuses float and bool dimensions; lazy reshape truncated them
    with int() (a 2.5 became 2), found by test_indexing's
    test_non_integer_argument_errors and test_bool_as_int_argument_errors."""
    for mod in (np, lnp):
        with pytest.raises(TypeError):
            mod.reshape(mod.ones((1, 1)), shape)
    with pytest.raises(TypeError):
        lnp.ones(2).reshape(shape)


def test_reshape_still_takes_integer_like_shapes():
    for shape in ((np.int64(2), 3), np.array([3, 2]), lnp.asarray([6]), lnp.int32(6), [-1, 2]):
        same(lnp.reshape(lnp.arange(6), shape), np.reshape(np.arange(6), np.asarray(shape)))


def test_flat_iterator_indices_follow_numpy_2_4():
    """``x.flat[True]`` read the whole array as one row (numpy: element 0)
    and ``x.flat[True] = v`` wrote every element (numpy: element 0); a list
    of bools, None, two indices, a 0-d assignment index and a mask of the
    wrong length gave other errors or none; another flatiter was refused
    as an index (found by test_indexing's TestFlatiterIndexing)."""
    host = np.arange(9).reshape(3, 3)
    lazy = lnp.asarray(host)
    for index in ((), (1,), ..., [True, 1], np.array([True, False] * 4 + [True]), 1.0,
                  (slice(None),), (np.array([1, 2]),), True, False):
        with warnings.catch_warnings(record=True) as seen_np:
            warnings.simplefilter("always")
            want = host.flat[index]
        with warnings.catch_warnings(record=True) as seen_lazy:
            warnings.simplefilter("always")
            got = lazy.flat[index]
        same(got, np.asarray(want))
        assert [w.category for w in seen_lazy] == [w.category for w in seen_np]
    same(lazy.flat[lnp.asarray([0, 5, 6]).flat], host.flat[np.array([0, 5, 6]).flat])
    for index, match in (([True, True], "boolean indices for iterators"),
                         (None, "only integers"), ((1, 2), "too many indices for flat"),
                         (np.zeros(10, bool), "did not match indexed flat iterator")):
        for it in (host.flat, lazy.flat):
            with pytest.raises(IndexError, match=match):
                it[index]
    for index in ((), [True, True]):
        for it in (host.copy().flat, lazy.copy().flat):
            with pytest.raises(IndexError):
                it[index] = 1
    for index in (True, False, ..., slice(10, 5), slice(None, None, -1), np.arange(9) % 2 == 0):
        want, got = host.copy(), lazy.copy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            want.flat[index] = 70
            got.flat[index] = 70
        same(got, want)


# ------------------------------------------- functions that were eager

def _fallbacks() -> int:
    return metrics.as_dict()["counters"]["eager_fallbacks"]


@pytest.mark.parametrize("dtype", [bool, np.int8, np.uint16, np.int32, np.int64, np.float16,
                                   np.float32, np.float64, np.complex64, np.complex128])
def test_sort_complex_records_lazily(runtime, dtype):
    """np.sort_complex ran as an eager fallback; it is a lazy sort along the
    last axis cast as numpy casts (complex64 for 8- and 16-bit integers)."""
    host = np.array([[3, 1, 2], [0, 5, 1]]).astype(dtype)
    if dtype in (np.complex64, np.complex128):
        host = host + 1j * np.array([[1, -1, 0], [2, 0, -3]]).astype(dtype)
        host[0, 1] = host[0, 0].real + 0.5j
    same(lnp.sort_complex(lnp.asarray(host)), np.sort_complex(host))
    same(lnp.sort_complex(lnp.asarray(host[0, :0])), np.sort_complex(host[0, :0]))


@pytest.mark.parametrize("a1, a2", [
    ([0, 0, 1, 2], [3, 4]), ([0, 0], [3.0, 4]), ([1j, 2], [0, 3, 4]), (True, [0, 3, 4]),
    (5, 3), ([1.5, -2.0, 0.0], [0.0, 0.0, 0.0]), (np.float32([1, 2]), np.float32([0, 3])),
    ([True, False], [True, True]),
])
def test_polymul_records_lazily(runtime, a1, a2):
    """np.polymul ran as an eager fallback; it is now a lazy convolution of
    the operands without their leading zeros (numpy's poly1d trimming; only
    the two zero counts are read to the host)."""
    want = np.polymul(np.asarray(a1), np.asarray(a2))
    same(lnp.polymul(lnp.asarray(a1), lnp.asarray(a2)), want)
    same(lnp.polymul(lnp.asarray(a1), a2), want)


def test_polymul_of_a_matrix_is_numpys_value_error():
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="1d"):
            mod.polymul(mod.ones((2, 2)), mod.ones(2))


_X = np.linspace(-2.0, 2.0, 9)


@pytest.mark.parametrize("call", [
    lambda m, x: m.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]),
    lambda m, x: m.piecewise(x, [x < 0], [lambda v: m.sin(v) * 2, 1.5]),
    lambda m, x: m.piecewise(x, x < 0, [7, lambda v: v * 2]),
    lambda m, x: m.piecewise(x, [x < -1, x < 1], [lambda v: v + 1, lambda v: m.where(v > 0, v, 0)]),
    lambda m, x: m.piecewise(x, [x < 0, x > 0.5], [lambda v, k: v * k, lambda v, k: v - k], 3.0),
    lambda m, x: m.piecewise(x, [x > 9], [lambda v: v.astype(m.float32)]),
    lambda m, x: m.piecewise(x.reshape(3, 3), [x.reshape(3, 3) > 0], [lambda v: v + 0.5, 0]),
    lambda m, x: m.piecewise((x * 4).astype(m.int64), [x < 0], [lambda v: v * 1.6, 2.7]),
    lambda m, x: m.piecewise(x[4], [True, False], [lambda v: v + 1, 0]),
    lambda m, x: m.piecewise(x[:0], [x[:0] > 0], [lambda v: v + 1, 0]),
    lambda m, x: m.piecewise(x > 0, [x > 1], [lambda v: ~v, True]),
    lambda m, x: m.piecewise(x + 1j, [x < 0], [lambda v: v.conj(), 0]),
])
def test_piecewise_records_lazily(runtime, call):
    """np.piecewise ran as an eager fallback; it is a select over the
    conditions, each function called once on the raveled x (numpy calls it
    on x[cond]: the same values for a pointwise function)."""
    same(call(lnp, lnp.asarray(_X)), call(np, _X))


@pytest.mark.parametrize("func", [lambda v: v.sum(), lambda v: v - v.mean(),
                                  lambda v: np.sort(v)[::-1], lambda v: float(v.max()),
                                  lambda v: np.asarray(v).cumsum()])
def test_piecewise_of_a_function_that_is_not_pointwise_runs_numpys(func):
    """Such a function sees x[cond] in numpy, not all of x: the graph shows
    it is not pointwise (or it read its argument), so numpy's piecewise
    runs, eagerly and counted, and gives numpy's answer."""
    before = _fallbacks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        got = lnp.piecewise(lnp.asarray(_X), [lnp.asarray(_X) < 0], [func, 1.5])
    same(got, np.piecewise(_X, [_X < 0], [func, 1.5]))
    assert _fallbacks() == before + 1


def test_piecewise_errors_are_numpys():
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="functions are expected"):
            mod.piecewise(mod.asarray(_X), [mod.asarray(_X) < 0], [1, 2, 3])


_A = np.arange(24.0).reshape(2, 3, 4) % 7


@pytest.mark.parametrize("call", [
    lambda m, a: m.apply_along_axis(lambda v: v.sum(), 1, a),
    lambda m, a: m.apply_along_axis(m.diff, 2, a),
    lambda m, a: m.apply_along_axis(lambda v: m.outer(v, v), 1, a),
    lambda m, a: m.apply_along_axis(lambda v: (v > 3).all(), 0, a),
    lambda m, a: m.apply_along_axis(m.sort, -1, a),
    lambda m, a: m.apply_along_axis(lambda v, k: v[:k] * 2, 0, a.astype(m.int32), 1),
    lambda m, a: m.apply_along_axis(lambda v: v.max(), 0, a[0, 0]),
    lambda m, a: m.apply_along_axis(lambda v: m.convolve(v, m.ones(2)), 1, a[:, :, 0] + 1j),
    lambda m, a: m.apply_over_axes(m.sum, a, [0, 2]),
    lambda m, a: m.apply_over_axes(m.mean, a, -1),
    lambda m, a: m.apply_over_axes(m.max, a, 1),
])
def test_apply_along_and_over_axes_record_lazily(runtime, call):
    """np.apply_along_axis and np.apply_over_axes ran as eager fallbacks;
    func1d now runs on lazy 1-d slices (results stacked where numpy puts
    them, the first result's dtype) and func on the lazy array per axis."""
    same(call(lnp, lnp.asarray(_A)), call(np, _A))


def test_apply_along_axis_errors_and_many_slices():
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="iteration dimensions are 0"):
            mod.apply_along_axis(lambda v: v, 1, mod.ones((0, 3)))
        with pytest.raises(np.exceptions.AxisError):
            mod.apply_along_axis(lambda v: v, 2, mod.ones((2, 3)))
    host = np.arange(2000.0).reshape(1000, 2)
    before = _fallbacks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        got = lnp.apply_along_axis(lambda v: v[0] - v[1], 1, lnp.asarray(host))
    same(got, np.apply_along_axis(lambda v: v[0] - v[1], 1, host))
    assert _fallbacks() == before + 1  # 1000 slices: numpy's loop, eagerly and counted


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_of_bools(runtime, mode):
    """numpy convolves bools with its bool loop (an or of ands); lazy
    convolve/correlate raised TypeError (found by polymul of bool arrays)."""
    a, v = np.array([True, False, True, True]), np.array([True, True, False])
    same(lnp.convolve(lnp.asarray(a), lnp.asarray(v), mode), np.convolve(a, v, mode))
    same(lnp.correlate(lnp.asarray(a), v, mode), np.correlate(a, v, mode))
    same(lnp.convolve(lnp.asarray(a), lnp.asarray(v).astype(lnp.int8), mode),
         np.convolve(a, v.astype(np.int8), mode))


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.uint8, bool, np.complex64])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_with_a_large_table_searches_the_sorted_table(runtime, dtype, invert):
    """np.isin compared every element with every test element (a
    x.size * t.size bool table: 4M here, 1e10 for 1e5-element arrays); past
    1M entries it now searches the sorted test elements (NaN never found,
    -0.0 equals 0.0, as numpy)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3000, (50, 40)).astype(dtype)
    t = rng.integers(0, 3000, 2000).astype(dtype)
    if dtype == np.float32:
        x[0, :2], t[:2] = [np.nan, -0.0], [np.nan, 0.0]
    same(lnp.isin(lnp.asarray(x), lnp.asarray(t), invert=invert), np.isin(x, t, invert=invert))
    same(lnp.isin(lnp.asarray(x), t[:3], invert=invert), np.isin(x, t[:3], invert=invert))


def test_isin_kind_errors_are_numpys():
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="Invalid kind"):
            mod.isin(mod.asarray([1.0, 2.0]), [1.0], kind="hash")
        with pytest.raises(ValueError, match="only supported for boolean or integer"):
            mod.isin(mod.asarray([1.0, 2.0]), [1.0], kind="table")
    same(lnp.isin(lnp.asarray([1, 2]), [1], kind="table"), np.isin([1, 2], [1], kind="table"))


# -------------------------------------------------------------- ufuncs

@pytest.mark.parametrize("name", ["less", "less_equal", "greater", "greater_equal", "equal",
                                  "not_equal"])
def test_int64_uint64_comparisons_are_exact(runtime, name):
    """numpy compares int64 with uint64 exactly (its 'qQ->?' loops); lazy
    comparisons crashed with the core's 'operand dtypes differ' TypeError
    (found by test_umath's test_large_integer_direct_comparison)."""
    a = np.array([-2**63, -1, 0, 1, 2**60, 2**60 + 1, 2**63 - 1], dtype=np.int64)[:, None]
    b = np.array([0, 1, 2**60, 2**60 + 1, 2**63, 2**64 - 1], dtype=np.uint64)[None, :]
    ufunc = getattr(np, name)
    for x, y in ((a, b), (b, a)):
        same(ufunc(lnp.asarray(x), lnp.asarray(y)), ufunc(x, y))
        same(ufunc(lnp.asarray(x), y), ufunc(x, y))
    out = lnp.zeros((7, 6), bool)
    ufunc(lnp.asarray(a), lnp.asarray(b), out=out)
    same(out, ufunc(a, b))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_power_of_zero(runtime, dtype):
    """0 ** b for a complex b with a positive real part is 0 in numpy; lazy
    power gave NaN+NaNj (exp(b * log 0)) whenever b had an imaginary part
    (found by test_umath's TestPower.test_zero_power_nonzero)."""
    zero = np.zeros(1, dtype)
    exponents = [1 + 4j, 2 - 3j, 1 + 1j, 1 + 0j, 1 - 1j, -1 + 1j, -7 + 0j, 1j, -1j, 0, 0.5, 2, -2]
    with np.errstate(invalid="ignore", divide="ignore"):
        for p in exponents:
            same(lnp.power(lnp.asarray(zero), p), np.power(zero, p))
            exponent = np.array([p], dtype)
            same(lnp.asarray(zero) ** lnp.asarray(exponent), zero ** exponent)
            same(lnp.float_power(lnp.asarray(zero), p), np.float_power(zero, p))
        z = np.array([1 + 2j, -3 + 0.5j, 0j, 2j], dtype)
        same(lnp.asarray(z)[:, None] ** lnp.asarray(z), z[:, None] ** z, rtol=1e-5)


@pytest.mark.parametrize("write", [
    lambda m, a: a.__setitem__(m.zeros(a.shape, bool) | (m.arange(a.size).reshape(a.shape) == 1),
                               m.array([2.5 + 1j])),
    lambda m, a: a.__setitem__(([0], [1]), m.array([2.5 + 1j])),
    lambda m, a: a.__setitem__((slice(None), 1), m.array([2.5 + 1j, 3j])),
    lambda m, a: a.fill(m.array(2.5 + 1j)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_writing_complex_values_into_a_real_array_warns(runtime, write, dtype):
    """numpy warns ComplexWarning whenever complex values are stored into a
    real array (a dtype rule); lazy arrays warned only when JAX happened to
    compile a new graph (found by test_indexing's
    test_boolean_index_cast_assign). The real part is stored, as numpy."""
    want, got = np.zeros((2, 3), dtype), lnp.zeros((2, 3), dtype)
    with pytest.warns(np.exceptions.ComplexWarning):
        write(np, want)
    for _ in range(2):  # the second time the graph is cached
        with pytest.warns(np.exceptions.ComplexWarning) as seen:
            write(lnp, got)
        assert seen[0].filename == __file__
    same(got, want)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_power_by_integers_multiplies_as_numpy(runtime, dtype):
    """numpy's complex power multiplies for integral real exponents (x ** 1
    is x exactly, x ** 0 is 1); lazy power took exp(b log x), off by an ulp
    (found by test_umath's TestPower.test_power_complex, which asserts
    x ** 1 == x). 1, 2, 3 and -1 now multiply as numpy; larger integers
    stay exp(b log x), within a few ulps times the exponent."""
    rng = np.random.default_rng(0)
    x = ((rng.normal(size=40) + 1j * rng.normal(size=40)) * 3).astype(dtype)
    x[:3] = [1 + 2j, 2 + 3j, 3 + 4j]
    for p in (0, 1, 1 + 0j):
        exponent = np.array(p, dtype)
        same(lnp.asarray(x) ** lnp.asarray(exponent), x ** exponent, rtol=0)
        same(lnp.power(lnp.asarray(x), exponent), x ** exponent, rtol=0)
    tol = 1e-4 if dtype == np.complex64 else 1e-12
    for p in (2, 3, 4, -1, -2, -3, 14, 99, -57, 2.5, 1j):
        exponent = np.array(p, dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            want = x ** exponent
        finite = np.isfinite(want)
        got = np.asarray(lnp.asarray(x) ** lnp.asarray(exponent))
        same(got[finite], want[finite], rtol=tol)


_COMPLEX_SPECIALS = np.array([
    complex(np.nan, 0), complex(0, np.nan), complex(np.nan, np.nan), 1, -1, 1j, -1j, 1 + 1j,
    -1 - 1j, 0, np.inf, -np.inf, complex(0, np.inf), complex(0, -np.inf),
    complex(np.inf, np.inf), complex(np.inf, -np.inf), complex(-np.inf, 2),
    complex(5, -np.inf), 3 + 4j, -8 + 6j])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_comparisons_with_a_nan_part_are_false(runtime, dtype):
    """numpy orders complex numbers lexicographically, and any NaN part
    makes <, <=, >, >= False; lazy ones said (0+nanj) < (1+0j) (the real
    parts decided; found by test_umath's test_complex_nan_comparisons)."""
    x = _COMPLEX_SPECIALS.astype(dtype)
    for name in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal",
                 "maximum", "minimum", "fmax", "fmin"):
        ufunc = getattr(np, name)
        with np.errstate(invalid="ignore"):
            want = ufunc(x[:, None], x[None, :])
        same(ufunc(lnp.asarray(x)[:, None], lnp.asarray(x)[None, :]), want)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sign_of_infinite_parts(runtime, dtype):
    """numpy's sign(inf + 0j) is 1, sign(-2 - inf j) is -1j; lazy sign gave
    NaN (x / |x| is inf / inf there; found by test_umath's
    TestSign.test_sign_complex)."""
    x = _COMPLEX_SPECIALS.astype(dtype)
    with np.errstate(invalid="ignore"):
        want = np.sign(x)
    got = lnp.sign(lnp.asarray(x))
    same(got, want)
    out = lnp.zeros(x.shape, dtype)
    assert lnp.sign(lnp.asarray(x), out=out) is out
    same(out, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("exponent_dtype", [np.int32, np.int64])
def test_ldexp_is_exact(runtime, dtype, exponent_dtype):
    """np.ldexp multiplied by EXP2 of the exponent, which XLA does not
    compute exactly (ldexp(0.125, 3) was 1 - 2**-53; found by test_umath's
    TestLDExp); it now multiplies by powers of two built from their bits,
    exact wherever the result is normal. (XLA's CPU flushes subnormal
    results to zero: those are not compared.)"""
    info = np.finfo(dtype)
    rng = np.random.default_rng(0)
    specials = [0, -0.0, np.inf, -np.inf, np.nan, 0.125, 8, float(info.max), float(info.tiny)]
    x = np.concatenate([rng.normal(size=200) * 10, specials]).astype(dtype)
    e = rng.integers(-3 * info.maxexp, 3 * info.maxexp, x.size).astype(exponent_dtype)
    e[-4:] = [3, -3, -1, 0]
    with np.errstate(over="ignore", under="ignore"):
        want = np.ldexp(x, e)
    got = np.asarray(lnp.ldexp(lnp.asarray(x), lnp.asarray(e)))
    normal = (want == 0) | (np.abs(want) >= info.tiny) | np.isnan(want)
    same(got[normal], want[normal], rtol=0)
    same(lnp.ldexp(lnp.asarray(x), 3), np.ldexp(x, 3), rtol=0)
