"""Bugs found by running numpy's own multiarray, ufunc and numerictypes test
modules (ci/numpy_conformance.py) and an eighth round of numpy user programs
on lazy arrays, each compared with numpy's own result."""

from __future__ import annotations

import re
import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same

pytestmark = [pytest.mark.usefixtures("own_runtime"),
              pytest.mark.filterwarnings("ignore::lazytensor.numpy.LazyFallbackWarning")]


# ------------------------------------------------------------ ufunc objects

def test_a_numpy_ufunc_is_an_instance_of_the_lazy_ufunc_type():
    """numpy's test_ufunc collects ``[f for f in umath if isinstance(f,
    np.ufunc)]`` and removes ``np.bitwise_count`` from it: the list was empty
    under lazytensor.numpy (numpy's ufuncs were no lazy ``ufunc``) and the
    removal raised ValueError, so the module did not even collect."""
    assert isinstance(np.add, lnp.ufunc) and isinstance(lnp.add, lnp.ufunc)
    assert not isinstance(np.sum, lnp.ufunc)
    assert lnp.add == np.add and np.add == lnp.add and lnp.add != lnp.subtract
    assert hash(lnp.add) == hash(np.add) and {np.add: 1}[lnp.add] == 1
    found = [f for f in vars(np).values() if isinstance(f, lnp.ufunc)]
    found.remove(lnp.bitwise_count)
    assert np.bitwise_count not in found


@pytest.mark.parametrize("name", ["arange", "zeros", "ones", "empty", "full"])
def test_creation_with_a_void_or_user_dtype_is_numpys(name):
    """np.arange(10, dtype=rational) (a user-defined dtype, kind 'V') raised
    TypeError 'unsupported dtype' at the collection of numpy's test_ufunc;
    structured and user dtypes now run numpy's own function, as objects and
    strings already did."""
    from numpy._core import _rational_tests

    dtype = np.dtype([("a", np.int32), ("b", np.float64)])
    args = (3, 0) if name == "full" else (3,)
    for d in (dtype, _rational_tests.rational):
        if name == "arange" and d is dtype:
            continue
        got = getattr(lnp, name)(*args, dtype=d)
        want = getattr(np, name)(*args, dtype=d)
        assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
        if name != "empty":
            np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------ reductions

def test_std_of_float16_is_the_root_of_the_float16_variance():
    """numpy's float16 std is sqrt of the float16 variance: inf where the
    variance overflows float16; the lazy std took the root in float32 and
    gave 306.2 where numpy (and the lazy var) gave inf (silently wrong)."""
    for a in (np.linspace(0, 1000, 17).astype(np.float16),
              np.linspace(0, 10, 17).astype(np.float16)):
        with np.errstate(over="ignore"):
            want = a.std()
            same(lnp.asarray(a).std(), np.asarray(want))
            same(lnp.std(lnp.asarray(a), ddof=1), np.asarray(np.std(a, ddof=1)))


# ------------------------------------------------------------ sorting

def _complex_with_nans(dtype):
    a = np.zeros(9, dtype=dtype)
    a.real += [0, 0, 1, 1, 0, 1, np.nan, np.nan, np.nan]
    a.imag += [0, 1, 0, 1, np.nan, np.nan, 0, 1, np.nan]
    return a


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sort_order_with_nans_is_numpys(runtime, dtype):
    """numpy sorts R+Rj < R+nanj < nan+Rj < nan+nanj; the lazy sort ordered
    lexicographically (0+nanj before 1+0j: silently wrong order), found by
    numpy's test_multiarray TestMethods.test_sort."""
    a = _complex_with_nans(dtype)
    shuffled = a[np.random.default_rng(0).permutation(9)]
    both = np.stack([shuffled, shuffled[::-1]])
    same(lnp.sort(lnp.asarray(shuffled)), np.sort(shuffled))
    for axis in (0, 1, None):
        same(lnp.argsort(lnp.asarray(both), axis=axis), np.argsort(both, axis, kind="stable"))
        same(lnp.sort(lnp.asarray(both), axis=axis), np.sort(both, axis))
    x = lnp.asarray(shuffled)
    x.sort(kind="heapsort")
    same(x, np.sort(shuffled))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_of_complex_values(runtime, side):
    """searchsorted on complex arrays crashed when the graph ran (XLA has no
    complex less-than); now numpy's complex order, NaN parts included,
    with and without sorter; found by numpy's test_searchsorted_complex."""
    a = _complex_with_nans(np.complex128)
    v = np.array([[0.5 + 0j, 1 + 2j], [np.nan, 1j]])
    same(lnp.asarray(a).searchsorted(lnp.asarray(a), side=side), a.searchsorted(a, side=side))
    same(lnp.searchsorted(lnp.asarray(a), v, side), np.searchsorted(a, v, side))
    same(lnp.searchsorted(lnp.asarray(a), 1 + 1j, side), np.asarray(np.searchsorted(a, 1 + 1j,
                                                                                  side)))
    shuffled = a[np.random.default_rng(1).permutation(9)]
    sorter = np.argsort(shuffled, kind="stable")
    same(lnp.searchsorted(lnp.asarray(shuffled), v, side, sorter=lnp.asarray(sorter)),
         np.searchsorted(shuffled, v, side, sorter=sorter))


@pytest.mark.parametrize(("sorter", "value", "error"), [
    ([1.1], 0, TypeError), ([1, 2, 3, 4], 0, ValueError), ([1, 2, 3, 4, 5, 6], 0, ValueError),
    ([0, 1, 2, 3, 5], 4, ValueError), ([-1, 0, 1, 2, 3], 0, ValueError)])
def test_searchsorted_sorter_errors_are_numpys(sorter, value, error):
    """A float sorter gave IndexError, a sorter of the wrong length or out
    of bounds no error (numpy: TypeError, ValueError; numpy checks the
    bounds of the indices that its search reads, a host sorter is checked
    whole here)."""
    a = np.array([5, 2, 1, 3, 4])
    with pytest.raises(error):
        np.searchsorted(a, value, sorter=sorter)
    with pytest.raises(error):
        lnp.searchsorted(lnp.asarray(a), value, sorter=sorter)


@pytest.mark.parametrize("call", [
    lambda m, d: d.sort(kind="\u00e4"), lambda m, d: d.argsort(kind="x"),
    lambda m, d: m.sort(d, kind=""), lambda m, d: m.sort(d, kind=3),
    lambda m, d: m.argsort(d, kind="stable", stable=True)])
def test_sort_kind_errors_are_numpys(call):
    """An unknown sort kind (or kind= beside stable=) was ignored; numpy
    raises ValueError (TypeError for a kind that is no string)."""
    with pytest.raises((ValueError, TypeError)) as want:
        call(np, np.arange(10))
    with pytest.raises(want.type):
        call(lnp, lnp.arange(10))
    assert lnp.sort(lnp.arange(3)[::-1], kind="Q").tolist() == [0, 1, 2]


def test_partition_of_an_empty_array_skips_the_kth_check(runtime):
    """numpy partitions an empty array with any kth; the lazy partition
    raised ValueError 'kth(=0) out of bounds (0)' (numpy's
    test_partition_empty_array)."""
    a = np.array([]).reshape((3, 2, 1, 0))
    for axis in (*range(-4, 4), None):
        same(lnp.partition(lnp.asarray(a), 0, axis=axis), np.partition(a, 0, axis=axis))
        same(lnp.argpartition(lnp.asarray(a), 0, axis=axis), np.argpartition(a, 0, axis=axis))
    with pytest.raises(ValueError):
        lnp.partition(lnp.arange(10.0), 10)


# ------------------------------------------------------------ layout orders

def test_ravel_and_reshape_in_a_fortran_arrays_order(runtime):
    """np.array(..., order='F') ignored the order: ravel('A'/'K'),
    reshape(-1, order='A') and flatten('A') of it gave the C order
    ([0, 1, 2, 3] for numpy's [0, 2, 1, 3]: silently wrong values), found by
    numpy's test_multiarray TestMethods.test_ravel; np.asarray(a, order=)
    ignored the order too."""
    host = [[0, 1], [2, 3]]
    want, got = np.array(host, order="F"), lnp.array(host, order="F")
    assert got.flags.f_contiguous and not got.flags.c_contiguous
    for order in "CFAK":
        same(got.ravel(order), want.ravel(order))
        same(got.flatten(order), want.flatten(order))
        same(lnp.ravel(got, order), np.ravel(want, order))
    for order in "CFA":
        same(got.reshape(-1, order=order), want.reshape(-1, order=order))
        same(lnp.reshape(got, (4,), order=order), np.reshape(want, (4,), order=order))
    lazy_c, host_c = lnp.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3)
    for order in "CFAK":
        for make_lazy, make_host in ((lnp.array, np.array), (lnp.asarray, np.asarray)):
            g, w = make_lazy(lazy_c, order=order), make_host(host_c, order=order)
            assert (g.flags.c_contiguous, g.flags.f_contiguous) == (
                w.flags.c_contiguous, w.flags.f_contiguous)
            same(g.ravel("K"), w.ravel("K"))
    assert lnp.asarray(got, order="C").flags.c_contiguous
    assert lnp.asarray(got, order="f") is got
    with pytest.raises(ValueError):
        lnp.asarray(got, order="X")


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


@pytest.mark.parametrize("call", [
    lambda m, d: m.partition(d, 2, kind=1), lambda m, d: m.partition(d, 2, kind="nonsense"),
    lambda m, d: m.argpartition(d, 2, kind="intro"), lambda m, d: d.partition(2, kind="\u00e4"),
    lambda m, d: d.argpartition(2, axis=0, kind="x")])
def test_partition_kind_errors_are_numpys(call):
    """partition/argpartition ignored kind=; numpy accepts only
    'introselect' (ValueError, TypeError for a kind that is no string)."""
    with pytest.raises((ValueError, TypeError)) as want:
        call(np, np.arange(10))
    with pytest.raises(want.type):
        call(lnp, lnp.arange(10))


def test_put_errors_and_host_arrays():
    """np.put on a list raised AttributeError (numpy: TypeError), on an empty
    array with mode wrap/clip a bounds IndexError after a host division by
    zero (numpy: IndexError 'cannot replace elements of an empty array'),
    and on a host numpy array AttributeError (numpy writes it in place)."""
    with pytest.raises(TypeError):
        lnp.put([1, 2, 3], [0, 2], 5)
    for mode in ("wrap", "clip"):
        with pytest.raises(IndexError, match="cannot replace elements of an empty array"):
            lnp.put(lnp.asarray([]), 1, 1, mode=mode)
    host = np.array([1, 2, 3])
    lnp.put(host, lnp.asarray([0, 2]), lnp.asarray(7))
    same(host, np.array([7, 2, 7]))


# ------------------------------------------------------------ reductions of 0-d arrays

@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("name", ["sum", "prod", "max", "amin", "any", "all", "argmax",
                                  "argmin"])
def test_reducing_a_0d_array_over_axis_0(runtime, name, axis):
    """numpy reduces a 0-d array over axis 0 or -1; the lazy reductions
    raised IndexError 'tuple index out of range' (max/min) or ValueError
    (sum, any, argmax), found by numpy's test_multiarray
    TestMinMax.test_scalar."""
    for value in (1, 2.5):
        got = getattr(lnp, name)(lnp.asarray(value), axis=axis)
        same(got, np.asarray(getattr(np, name)(np.asarray(value), axis=axis)))
    same(lnp.add.reduce(lnp.asarray(3.0), axis=axis), np.asarray(3.0))
    with pytest.raises(ValueError):
        getattr(lnp, name)(lnp.asarray(1.0), axis=1)


# ------------------------------------------------------------ ufunc calls, out=

def test_ufunc_outputs_given_by_position(runtime):
    """numpy takes a ufunc's outputs after its inputs (``np.multiply(x, 2,
    x)``, ``np.matmul(a, b, out)``); called through lazytensor.numpy this
    crashed with resolve_dtypes' TypeError. Found by numpy's test_multiarray
    TestMatmul.test_out_arg."""
    x, want = lnp.arange(4.0), np.arange(4.0)
    assert lnp.multiply(x, 2, x) is x
    np.multiply(want, 2, want)
    same(x, want)
    a, b = np.ones((5, 2)), np.array([[1.0, 3.0], [5.0, 7.0]])
    out = lnp.zeros((5, 2))
    assert lnp.matmul(lnp.asarray(a), lnp.asarray(b), out) is out
    same(out, a @ b)
    q, r = lnp.zeros(3), lnp.zeros(3)
    got = lnp.divmod(lnp.asarray([7.0, 8.0, 9.0]), 2.0, q, r)
    assert got[0] is q and got[1] is r
    same(q, np.array([3.0, 4.0, 4.0]))
    same(r, np.array([1.0, 0.0, 1.0]))
    q = lnp.zeros(3)
    lnp.divmod(lnp.asarray([7.0, 8.0, 9.0]), 2.0, q)
    same(q, np.array([3.0, 4.0, 4.0]))
    host = np.zeros(3)
    lnp.add(np.ones(3), 1, host)
    same(host, np.full(3, 2.0))


def test_positional_out_errors_are_numpys():
    a, o = lnp.ones(3), lnp.zeros(3)
    for call in (lambda m, a, o: m.add(a, a, o, o), lambda m, a, o: m.add(a, a, o, out=o)):
        with pytest.raises(TypeError):
            call(np, np.ones(3), np.zeros(3))
        with pytest.raises(TypeError):
            call(lnp, a, o)


def test_dot_out_must_be_numpys_exact_array():
    """np.dot(a, b, out) with an out of another dtype, shape or layout wrote
    (and cast) into it; numpy raises ValueError (test_dot_3args_errors)."""
    f, v = np.ones((4, 2)), np.ones((2, 3))
    for make in (lambda m: m.empty((3, 4)).T, lambda m: m.empty((4, 6))[:, ::2],
                 lambda m: m.empty((4, 3), np.float32), lambda m: m.empty((4,)),
                 lambda m: m.empty((4, 3), complex)):
        with pytest.raises(ValueError):
            np.dot(f, v, make(np))
        with pytest.raises(ValueError):
            lnp.dot(lnp.asarray(f), lnp.asarray(v), make(lnp))
    out = lnp.empty((4, 3))
    assert lnp.dot(lnp.asarray(f), lnp.asarray(v), out) is out
    same(out, f @ v)


# ------------------------------------------------------------ choose, putmask, resize

@pytest.mark.parametrize("choices", [
    (1000, np.array([1], dtype=np.uint8)), (-1, np.array([1], dtype=np.uint8)),
    (1.0, np.float32(3.0)), (1.0, np.array([3.0], dtype=np.float32)), (True, np.int8(2)),
    (1, 2.5)])
def test_choose_keeps_python_scalars_weak(runtime, choices):
    """np.choose([0], (1000, uint8 array)) is uint8 (232) in numpy 2; the lazy
    choose promoted the Python scalar as int64 (dtype and value silently
    differed), found by numpy's TestChoose.test_output_dtype."""
    lazy = tuple(lnp.asarray(c) if isinstance(c, np.ndarray) else c for c in choices)
    same(lnp.choose([0], lazy), np.choose([0], choices))
    same(lnp.choose(lnp.asarray([1, 0]), lazy), np.choose([1, 0], choices))


def test_putmask_checks_and_host_arrays():
    """np.putmask with a mask of another size broadcast it (numpy:
    ValueError), took ``a`` by keyword (numpy: positional only, TypeError)
    and crashed with AttributeError on a host numpy array (numpy writes it)."""
    with pytest.raises(ValueError):
        lnp.putmask(lnp.asarray([1, 2, 3]), [True], 5)
    with pytest.raises(TypeError):
        lnp.putmask(a=lnp.zeros(2), values=[-1, -2], mask=[0, 1])
    host = np.array([1, 2, 3])
    lnp.putmask(host, lnp.asarray([True, False, True]), lnp.asarray(9))
    same(host, np.array([9, 2, 9]))
    got, want = lnp.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3)
    lnp.putmask(got, got > 2, lnp.asarray([10.0, 20.0]))
    np.putmask(want, want > 2, np.array([10.0, 20.0]))
    same(got, want)


def test_resize_without_a_shape_keeps_the_array(runtime):
    """``x.resize()`` made the 3x3 array a 0-d array of its first element
    (silently wrong); numpy leaves it unchanged (TestResize.test_none_shape)."""
    for args in ((), (None,)):
        x = lnp.eye(3)
        x.resize(*args)
        same(x, np.eye(3))
    x = lnp.ones(1)
    x.resize(())
    assert x.shape == ()


# ------------------------------------------------------------ arange, longdouble

@pytest.mark.parametrize("call", [
    lambda m: m.arange(start=0, stop=3), lambda m: m.arange(stop=3),
    lambda m: m.arange(1, stop=3), lambda m: m.arange(0, 10, 2, float),
    lambda m: m.arange(2, dtype=bool), lambda m: m.arange(1, 0, dtype=bool),
    lambda m: m.arange(True, False, -1)])
def test_arange_keywords_and_booleans(runtime, call):
    """np.arange(start=0, stop=3) raised TypeError (the first argument was
    positional only) and dtype=bool raised 'unsupported dtype'; numpy's
    TestArange.test_start_stop_kwarg and test_arange_booleans."""
    same(call(lnp), call(np))


@pytest.mark.parametrize("call", [
    lambda m: m.arange(start=4), lambda m: m.arange(), lambda m: m.arange(3, dtype=bool),
    lambda m: m.arange(0, m.inf), lambda m: m.arange(0, -m.inf), lambda m: m.arange(m.inf),
    lambda m: m.arange(0, 1, m.nan), lambda m: m.arange(0.0, m.inf, 1.0)])
def test_arange_errors_are_numpys(call):
    """An infinite length raised OverflowError and a NaN step numpy's
    ValueError with another message; start= without stop counted from 0."""
    with pytest.raises((TypeError, ValueError)) as want:
        call(np)
    with pytest.raises(want.type, match=str(want.value)[:20].replace("(", r"\(")
                       .replace(")", r"\)")):
        call(lnp)


def test_a_longdouble_scalar_runs_numpys_own():
    """A numpy longdouble scalar operand (np.where(c, np.longdouble(0), ...),
    c + np.longdouble(1)) reached XLA and crashed inside jit's argument
    check; longdouble data is numpy's own now (eagerly, counted), as dates."""
    c, h = lnp.ones(5, dtype=bool), np.ones(5, dtype=bool)
    for call in (lambda m, c: m.where(c, np.longdouble(0), np.longdouble(1)),
                 lambda m, c: c + np.longdouble(1),
                 lambda m, c: m.asarray(np.ones(2, np.longdouble))):
        got, want = np.asarray(call(lnp, c)), call(np, h)
        assert got.dtype == want.dtype == np.longdouble
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("call", [
    lambda m: m.array([[1, 2], [3, 4]], ndmax=2), lambda m: m.array([[1, 2], [3, 4]], ndmax=3),
    lambda m: m.array(m.arange(6).reshape(2, 3), ndmax=2),
    lambda m: m.array([[1, 2, 3], [4, 5, 6]], ndmax=1, dtype=object),
    lambda m: m.array([[[1], [2]], [[3], [4]]], ndmax=2), lambda m: m.array([1, 2], ndmax=-1),
    lambda m: m.array([[1], [2]], ndmax=1, ndmin=2),
    lambda m: m.array(m.arange(6).reshape(2, 3), ndmax=1, dtype=object)])
def test_array_ndmax_is_numpys(call):
    """numpy 2.4's np.array(..., ndmax=) raised TypeError 'unexpected
    keyword'; found by numpy's test_multiarray TestCreation.test_ndmax_*."""
    try:
        want = call(np)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error)[:25])):
            call(lnp)
        return
    got = call(lnp)
    assert type(got) is (lnp.ndarray if want.dtype.kind in "biufc" else np.ndarray)
    if want.dtype.kind in "biufc":
        same(got, want)
    else:
        assert got.shape == want.shape and got.dtype == want.dtype


# ------------------------------------------------------------ ufunc dtype=, gufunc kwargs

@pytest.mark.parametrize("n", [127, 300, 1000])
def test_float16_sum_accumulates_in_float32(runtime, n):
    """numpy's float16 add.reduce accumulates in float32 (pairwise) and
    rounds once; the lazy sum accumulated in float16 (np.sum(arange(1, 128,
    dtype=float16)) gave 8124 for numpy's 8128: silently wrong), found by
    numpy's test_ufunc TestUfunc.test_sum."""
    d = np.arange(1, n + 1, dtype=np.float16) / np.float16(7)
    same(lnp.sum(lnp.asarray(d)), np.asarray(np.sum(d)), rtol=0)
    same(lnp.add.reduce(lnp.asarray(d)), np.asarray(np.add.reduce(d)), rtol=0)
    same(lnp.asarray(d).reshape(1, -1).sum(axis=1), d.reshape(1, -1).sum(axis=1), rtol=0)


@pytest.mark.parametrize("call", [
    lambda m, x: m.true_divide(x, 2.0, dtype=np.longdouble), lambda m, x: m.add(x, x, dtype="g"),
    lambda m, x: m.sqrt(x, dtype=np.clongdouble), lambda m, x: m.sum(x, dtype="g")])
def test_a_longdouble_loop_runs_numpys_own(call):
    """dtype=longdouble on a ufunc or a reduction reached XLA and failed
    inside jit/convert_element_type; it runs numpy's own loop eagerly
    (counted), numpy's longdouble result, as longdouble data does."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        lazy = call(lnp, lnp.asarray([1.0, 2.0]))
    expected = call(np, np.asarray([1.0, 2.0]))
    assert type(lazy) is type(expected) and lazy.dtype == expected.dtype
    np.testing.assert_array_equal(lazy, expected)


@pytest.mark.parametrize("call", [
    lambda m, a, b: m.vecdot(a, b.T, axis=0), lambda m, a, b: m.vecdot(a, a, keepdims=True),
    lambda m, a, b: m.matmul(a, b, axes=[(0, 1), (0, 1), (0, 1)]),
    lambda m, a, b: m.matvec(a, b[:, 0], axes=[(-2, -1), -1, -1])])
def test_gufunc_axes_axis_keepdims_run_numpys(call):
    """np.vecdot(..., axis=), np.matmul(..., axes=) and keepdims= raised
    TypeError 'unsupported keyword arguments'; they run numpy's gufunc
    eagerly now (counted), found by numpy's test_ufunc test_axes_argument,
    test_axis_argument, test_keepdims_argument, test_vecdot, test_matvec."""
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2)
    same(call(lnp, lnp.asarray(a), lnp.asarray(b)), call(np, a, b))


def test_a_flat_iterator_converts_to_a_host_array_in_one_read(runtime):
    """``np.asarray(x.flat)``: the lazy flat iterator had no __array__, so
    numpy read it as a sequence, one element (one graph) at a time, and
    ``x.flat.__array__()`` raised AttributeError (numpy's TestFlat)."""
    host = np.arange(20.0).reshape(4, 5)
    x = lnp.asarray(host)
    for got, want in ((x.flat, host.flat), (x[::2, ::2].flat, host[::2, ::2].flat),
                      (x.T.flat, host.T.flat)):
        same(np.asarray(got), np.asarray(want))
        same(np.array(got, dtype=np.float32), np.array(want, dtype=np.float32))
        same(got.__array__(), want.__array__())
    same(lnp.asarray(x.T.flat), np.asarray(host.T.flat))


# ------------------------------------------------------------ out= of reductions

@pytest.mark.parametrize("call", [
    lambda m, x: m.argmax(x, axis=0, keepdims=True, out=m.empty((2, 3), m.intp)),
    lambda m, x: m.sum(x, axis=0, keepdims=True, out=m.empty((2, 3))),
    lambda m, x: m.sum(x, axis=0, out=m.empty((2, 3))),
    lambda m, x: m.max(x, axis=1, out=m.empty((4, 2))),
    lambda m, x: m.mean(x, axis=0, out=m.empty((2, 3))),
    lambda m, x: m.cumsum(x, axis=0, out=m.empty((2, 2, 3))),
    lambda m, x: m.any(x, axis=0, out=m.empty((2, 3), bool)),
    lambda m, x: m.round(x, out=m.empty((4, 2, 3))),
    lambda m, x: m.median(x, axis=0, out=m.empty((2, 3))),
    lambda m, x: m.take(x, [0], axis=0, out=m.empty((2, 3))),
    lambda m, x: m.nanargmax(x, axis=0, out=m.empty((2, 3), m.intp)),
    lambda m, x: m.add.reduce(x, 0, out=m.empty((2, 3))),
    lambda m, x: m.add.accumulate(x, 0, out=m.empty((2, 2, 3)))])
def test_a_reduction_out_of_a_larger_shape_is_numpys_value_error(call):
    """A reduction's out= of a shape that its result broadcasts to (argmax
    with keepdims into (2, 3)) was filled with the broadcast result; numpy
    raises ValueError (a reduction's out has the result's shape exactly),
    found by numpy's TestArgmaxArgminCommon.test_np_argmin_argmax_keepdims."""
    with pytest.raises(ValueError):
        call(np, np.ones((2, 3)))
    with pytest.raises(ValueError):
        call(lnp, lnp.ones((2, 3)))


@pytest.mark.parametrize("call", [
    lambda m, x: m.add(x, 1, out=m.empty((4, 2, 3))),
    lambda m, x: m.outer(x[0], x[0], out=m.empty((2, 3, 3))),
    lambda m, x: m.clip(x, 0, 1, out=m.empty((2, 2, 3))),
    lambda m, x: m.quantile(x, 0.5, axis=0, out=m.empty((2, 3))),
    lambda m, x: m.isposinf(x, out=m.empty((2, 2, 3), bool)),
    lambda m, x: m.sum(x, axis=0, out=m.empty((3,)))])
def test_ufunc_like_outs_still_broadcast(runtime, call):
    host = call(np, np.arange(6.0).reshape(2, 3))
    same(call(lnp, lnp.arange(6.0).reshape(2, 3)), host)


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


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["log2", "log10"])
def test_complex_log2_log10_of_zero(runtime, name, dtype):
    """np.log2(0j) is -inf+0j; the core's log(x) / ln(2) divided by a complex
    constant and gave -inf+nanj (silently wrong); each part is now divided
    by the real ln(base), as numpy (found by a unary ufunc sweep)."""
    a = np.array([0, 1, 2j, -3 + 4j, np.inf, complex(np.nan, 1)], dtype)
    same(getattr(lnp, name)(lnp.asarray(a)), getattr(np, name)(a))
