"""Elementwise math against numpy: rounding, clipping, complex specials and
branch cuts, integer powers, comparisons across int64/uint64,
frexp/ldexp/i0, isclose, packbits."""


from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core import metrics
from np_compare import check, same, same_exactly, same_outcome


def _clips(mod):
    small = mod.asarray([-100, 5, 100], dtype=mod.int8)
    pixels = mod.asarray([0, 7, 250], dtype=mod.uint8)
    return (mod.clip(small, -200, 200), mod.clip(small, -1000, 50), pixels.clip(-1, 100),
            mod.clip(pixels, 3, 1000), mod.clip(pixels, max=2**40), mod.clip(mod.arange(3.0)),
            mod.arange(4).clip(None, None))


def _closes(mod):
    x, y = mod.asarray([1.0, 2.0, 1e10, np.nan]), mod.asarray([1.1, 2.0, 1.00001e10, np.nan])
    return (mod.isclose(x, y, atol=[0.2, 0.0, 0.0, 0.0]),
            mod.isclose(x, y, rtol=mod.asarray([0.0, 0.0, 1e-4, 0.0]), equal_nan=True),
            mod.isclose(mod.asarray(np.float32(1)), np.float32(0), atol=np.float64(1 - 1e-16)),
            mod.isclose(3, mod.asarray([3, 4]), rtol=np.float32(0.1)),
            mod.asarray(mod.allclose(x[:2], y[:2], atol=[0.2, 0.0])))


_COMPLEX_SPECIALS = np.array([
    complex(np.nan, 0), complex(0, np.nan), complex(np.nan, np.nan), 1, -1, 1j, -1j, 1 + 1j,
    -1 - 1j, 0, np.inf, -np.inf, complex(0, np.inf), complex(0, -np.inf),
    complex(np.inf, np.inf), complex(np.inf, -np.inf), complex(-np.inf, 2),
    complex(5, -np.inf), 3 + 4j, -8 + 6j])


_CUT_POINTS = [complex(x, y) for x in (-2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5)
               for y in (-2.5, -1.0, -0.0, 0.0, 1.0, 2.5)]


def bit_packing(np, b, i, u):
    """np.packbits / np.unpackbits over axes, bit orders, counts, ints, 0-d."""
    return (np.packbits(b), np.packbits(b, axis=1), np.packbits(b, axis=0, bitorder="little"),
            np.packbits(i, axis=-1), np.packbits(i[0, 0, 0], axis=0), np.unpackbits(u),
            np.unpackbits(u, axis=0), np.unpackbits(u, axis=1, count=5),
            np.unpackbits(u, axis=1, count=40, bitorder="little"),
            np.unpackbits(u, axis=1, count=-9))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int64"])
def test_round_integers_to_tens_ties_to_even(dtype):
    """``np.round(ints, -1)`` rounded ties upward (25 -> 30, numpy: 20), its
    ``x + 5`` wrapped near the dtype's top (int8 127 -> 126, numpy: -126),
    and a scale past the dtype (int8, decimals=-3) gave garbage."""
    info = np.iinfo(dtype)
    host = np.array([-128, -35, -25, -15, -5, 5, 15, 25, 35, 45, 127, 250, 60000, 49999, 50001])
    host = host.clip(info.min, info.max).astype(dtype)
    for decimals in (-1, -2, -3, -5):
        same(lnp.round(lnp.asarray(host), decimals), np.round(host, decimals))


def test_round_bools():
    """numpy rounds booleans in float16 (decimals=0) and cannot cast a scaled
    bool back (TypeError); the lazy round kept bools, or failed in the core."""
    host = np.array([True, False])
    same(lnp.round(lnp.asarray(host)), np.round(host))
    for decimals in (1, -1):
        with pytest.raises(TypeError):
            np.round(host, decimals)
        with pytest.raises(TypeError):
            lnp.round(lnp.asarray(host), decimals)


@pytest.mark.usefixtures('own_runtime')
def test_clip_with_python_int_bounds_beyond_the_dtype(runtime):
    """numpy's clip drops a Python int bound that the integer dtype's range
    already satisfies (clip(uint8, -1, 100), clip(int8, -200, 200)); lazy
    clip raised OverflowError. clip with no bound at all is a copy in numpy
    2.4 (lazy clip raised numpy 2.0's ValueError)."""
    for got, want in zip(_clips(lnp), _clips(np), strict=True):
        same(got, want)


@pytest.mark.usefixtures('own_runtime')
def test_clip_errors_are_numpys():
    """A bound beyond the range on the other side still overflows; a bool
    array with no bound has no positive loop."""
    with pytest.raises(OverflowError):
        lnp.clip(lnp.asarray([1, 2], dtype=lnp.uint8), 300, 400)
    with pytest.raises(TypeError):
        lnp.clip(lnp.asarray([True, False]))


@pytest.mark.usefixtures('own_runtime')
def test_a_list_times_a_lazy_integer_scalar_repeats_the_list(runtime):
    """``[0] * counts.max()`` repeats the list as with numpy's scalar (whose
    multiply leaves sequences to Python); the lazy 0-d result multiplied the
    list elementwise and gave array([0]). A 0-d array made as an array
    still multiplies elementwise, as numpy's 0-d ndarray."""
    counts = lnp.bincount(lnp.asarray([0, 1, 1, 2, 1]))
    host = np.bincount(np.asarray([0, 1, 1, 2, 1]))
    assert [0] * counts.max() == [0] * host.max() == [0, 0, 0]
    assert counts[1] * ("a", "b") == host[1] * ("a", "b")
    same([1, 2] * lnp.asarray(2), [1, 2] * np.asarray(2))
    with pytest.raises(TypeError):
        [1.0] * lnp.asarray([2.5])[0]


@pytest.mark.usefixtures('own_runtime')
def test_isclose_with_array_and_numpy_scalar_tolerances(runtime):
    """numpy's isclose takes array tolerances and, under NEP 50, computes in
    the dtype of a numpy-scalar tolerance: isclose(float32(1), float32(0),
    atol=float64(1 - 1e-16)) is False. Lazy isclose raised TypeError for
    array tolerances and gave True there (float32 rounding; silently wrong)."""
    for got, want in zip(_closes(lnp), _closes(np), strict=True):
        same(got, want)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int8", "bool"])
def test_frexp_is_lazy(dtype):
    """np.frexp ran as an eager fallback; it is now the core's frexp (read
    from the bits: subnormals, 0, inf and NaN as C's) with numpy's output
    dtypes (the float loop of the input, int32 exponents)."""
    a = np.array([1.5, -3.0, 0.0, 7, 1, 1e-310, np.inf, -np.inf, np.nan])
    a = a[:2].astype(bool) if dtype == "bool" else a[:5].astype(dtype) if dtype[0] == "i" else \
        a.astype(dtype)
    before = metrics.as_dict()["counters"]["eager_fallbacks"]
    mantissa, exponent = np.frexp(lnp.asarray(a))
    assert metrics.as_dict()["counters"]["eager_fallbacks"] == before
    want_m, want_e = np.frexp(a)
    np.testing.assert_array_equal(np.asarray(mantissa), want_m)
    same(exponent, want_e)
    assert np.asarray(mantissa).dtype == want_m.dtype


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
def test_i0_is_lazy(dtype):
    """np.i0 ran as an eager fallback; it is now the core's Bessel i0 (XLA's
    scaled i0e times exp|x|), float dtypes kept, others as float64."""
    a = np.array([0.0, 0.5, 3.0, 9.0, -20.0]).astype(dtype)
    before = metrics.as_dict()["counters"]["eager_fallbacks"]
    got = np.i0(lnp.asarray(a))
    assert metrics.as_dict()["counters"]["eager_fallbacks"] == before
    same(got, np.i0(a), rtol=1e-6 if dtype == "float32" else 1e-13)
    with pytest.raises(TypeError):
        np.i0(lnp.asarray([1j]))


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("dtype", ["?", "b", "h", "I", "f"])
def test_conjugate_method_of_a_real_array_is_the_array(runtime, dtype):
    """numpy's ndarray.conj() returns the array itself unless it is complex;
    the lazy method gave a new array and, for bools, int8 (the ufunc's
    loop): silently the wrong dtype. ``a.conjugate(out)`` raised TypeError."""
    a = lnp.ones(10, dtype=dtype)
    assert a.conj() is a and a.conjugate() is a
    same(lnp.conjugate(a), np.conjugate(np.ones(10, dtype=dtype)))
    c = lnp.array([1 - 1j, 1 + 1j, 23 + 23.0j])
    out = lnp.empty_like(c)
    assert c.conjugate(out) is out
    same(out, np.array([1 - 1j, 1 + 1j, 23 + 23.0j]).conjugate())


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("exponent", [np.int64(-2), np.int8(-1), np.array([1, -1, 2]),
                                      [1, -1, 2], [[1, 2, -3]]])
def test_integer_power_by_a_negative_host_exponent_raises(exponent):
    """``int_array ** np.int64(-2)`` (a numpy scalar or host array exponent)
    gave garbage ([1, 0, -8198552921648689607]: silently wrong); numpy
    raises ValueError, as the lazy power already did for a Python int."""
    a = lnp.asarray([1, 2, 3])
    with pytest.raises(ValueError, match="negative integer powers"):
        np.power(np.asarray([1, 2, 3]), exponent)
    for call in (lambda: a ** exponent, lambda: lnp.power(a, exponent)):
        with pytest.raises(ValueError, match="negative integer powers"):
            call()
    same(lnp.power(a, np.int8(2)), np.power(np.array([1, 2, 3]), np.int8(2)))
    same(lnp.asarray([2.0]) ** np.int64(-2), np.array([2.0]) ** np.int64(-2))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["log2", "log10"])
def test_complex_log2_log10_of_zero(runtime, name, dtype):
    """np.log2(0j) is -inf+0j; the core's log(x) / ln(2) divided by a complex
    constant and gave -inf+nanj (silently wrong); each part is now divided
    by the real ln(base), as numpy (found by a unary ufunc sweep)."""
    a = np.array([0, 1, 2j, -3 + 4j, np.inf, complex(np.nan, 1)], dtype)
    same(getattr(lnp, name)(lnp.asarray(a)), getattr(np, name)(a))


def test_nan_to_num_copy_false_is_in_place() -> None:
    h = np.array([1.0, np.nan, np.inf, -np.inf])
    a = lnp.asarray(h)
    view = a[1:]
    assert lnp.nan_to_num(view, copy=False) is view
    same_exactly(a, np.nan_to_num(h))
    same_exactly(lnp.nan_to_num(lnp.asarray(h), nan=5), np.nan_to_num(h, nan=5))


@pytest.mark.parametrize("args, kwargs", [
    ((), {}), ((2,), {}), ((None,), {"a_max": 2}), ((), {"a_max": 2}), ((), {"a_min": 1}),
    ((1, 3), {}), ((), {"min": 2}), ((), {"max": 2, "min": 1}), ((1, 3), {"max": 3}),
    ((1, 3), {"min": 1}), ((None, None), {}), ((None, 2), {})])
def test_clip_bounds_positional_or_keyword_as_numpy(args, kwargs) -> None:
    same_outcome(lambda xp: xp.clip(xp.arange(5), *args, **kwargs))
    same_outcome(lambda xp: xp.arange(5).clip(*args, **{k.removeprefix("a_"): v
                                                  for k, v in kwargs.items()}))


@pytest.mark.sweep("dtype", reason="every function in one complex dtype, in "
                   "turn; both dtypes for each function are slow")
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


@pytest.mark.usefixtures('own_runtime')
def test_packbits_and_unpackbits_record_lazily():
    rng = np.random.default_rng(151)
    u = rng.integers(0, 256, (3, 4)).astype(np.uint8)
    i = rng.integers(-3, 3, (2, 5, 9)).astype(np.int16)
    check(bit_packing, rng.random((3, 13)) < 0.5, i, u)
    for mod in (np, lnp):
        with pytest.raises(TypeError, match="integer or boolean"):
            mod.packbits(mod.ones(3))
        with pytest.raises(TypeError, match="unsigned byte"):
            mod.unpackbits(mod.asarray(u).astype(np.int8))
        with pytest.raises(ValueError, match="-count larger"):
            mod.unpackbits(mod.asarray(u), count=-97)
        with pytest.raises(ValueError, match="'order' must be either"):
            mod.packbits(mod.asarray(u), bitorder="x")
