"""Regressions found by running numpy's own test suite on lazytensor.numpy
(ci/numpy_conformance.py, round 3: the default modules and test_multiarray's
TestMethods/TestDot/TestChoose/TestTake/TestPutmask/TestClip). Each test
compares with numpy itself (values, dtype, shape) or checks that the same
exception type is raised."""

from __future__ import annotations

import re
import warnings
from fractions import Fraction

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same_outcome


def _partitioned(xp, axis):
    d = xp.arange(12.0)[::-1].reshape(3, 4)
    d.partition(1, axis=axis)
    return d


@pytest.mark.parametrize("axis", [None, 0, -1, 2])
def test_partition_method_takes_no_axis_none(axis) -> None:
    same_outcome(lambda xp: _partitioned(xp, axis))


@pytest.mark.parametrize("fn", [np.histogram, np.digitize])
@pytest.mark.parametrize("bins", [[1, 3, 1], [1, 3, 5], [5, 3, 1], [1, 1, 2]])
@pytest.mark.parametrize("dtype", ["uint64", "uint8", "int64"])
def test_unsigned_bins_are_checked_for_monotonicity(fn, bins, dtype) -> None:
    edges = np.array(bins, dtype=dtype)  # host bins: numpy's check applies
    same_outcome(lambda xp: getattr(xp, fn.__name__)(xp.array([2, 4, 0]), edges)[0])


@pytest.mark.parametrize("join", ["concatenate", "stack"])
@pytest.mark.parametrize("shape", [(4,), (2, 2), (1, 4), (4, 1), (5,), (2, 2, 1), (2, 1, 2)])
def test_joins_never_broadcast_into_out(join, shape) -> None:
    def run(xp):
        out = xp.zeros(shape)
        getattr(xp, join)((xp.array([1.0, 2.0]), xp.array([3.0, 4.0])), out=out)
        return out
    same_outcome(run)


_NANS = np.array([[1.0, np.nan, 3.0, 4.0], [np.nan, np.nan, 2.0, np.nan], [5.0, 6.0, np.nan, 7.0]])


@pytest.mark.parametrize("fn", ["nanvar", "nanstd"])
@pytest.mark.parametrize("ddof", [0, 1, 2, 3, 5])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nanvar_of_a_slice_with_no_more_numbers_than_ddof_is_nan(fn, ddof) -> None:
    for axis in (0, 1, None):
        same_outcome(lambda xp, axis=axis: getattr(xp, fn)(xp.asarray(_NANS), axis=axis, ddof=ddof))


@pytest.mark.parametrize("ddof", [0, 2, 3, 5])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_masked_var_divides_by_at_least_zero_as_numpy(ddof) -> None:
    keep = ~np.isnan(_NANS)
    same_outcome(lambda xp: xp.var(xp.asarray(np.nan_to_num(_NANS)), axis=1, ddof=ddof, where=keep))


@pytest.mark.parametrize("fn", ["nanmean", "nanvar", "nanstd"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int64, np.uint8, np.float64])
def test_nan_statistics_of_inexact_data_want_an_inexact_dtype_and_out(fn, dtype) -> None:
    same_outcome(lambda xp: getattr(xp, fn)(xp.asarray(_NANS), axis=1, dtype=dtype))

    def into_out(xp):
        out = xp.zeros(3, dtype=dtype)
        getattr(xp, fn)(xp.asarray(_NANS), axis=1, out=out)
        return out
    same_outcome(into_out)


@pytest.mark.parametrize("fn", ["nanargmin", "nanargmax"])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.filterwarnings("ignore::lazytensor.numpy._errors.LazyFallbackWarning")
def test_nanarg_writes_its_out_and_returns_it(fn, dtype) -> None:
    def run(xp):
        a = xp.asarray(np.where(np.arange(9) < 5, np.nan, np.arange(9.0)).astype(dtype))
        out = xp.zeros((), dtype=np.intp)
        assert getattr(xp, fn)(a, out=out) is out
        return out
    same_outcome(run)


@pytest.mark.parametrize("conditions", [
    [np.array([1, 0, 1])], [[True, False, True]], [np.array([True, False]), np.array([1, 0], "u1")],
    [True], [np.array(1.0)], [np.array([True, False]), np.array([False, True])]])
def test_select_wants_boolean_conditions(conditions) -> None:
    choices = [np.arange(2.0) + i for i in range(len(conditions))]
    same_outcome(lambda xp: xp.select([xp.asarray(c) for c in conditions], choices, default=-1))
    same_outcome(lambda xp: xp.select(conditions, choices))


@pytest.mark.parametrize("fn", ["quantile", "percentile"])
@pytest.mark.parametrize("q", [Fraction(1), Fraction(1, 2), [Fraction(1, 4), Fraction(3, 4)]])
@pytest.mark.filterwarnings("ignore::lazytensor.numpy._errors.LazyFallbackWarning")
def test_fraction_q_runs_numpys_object_loop(fn, q) -> None:
    expected = getattr(np, fn)([1, 2, 4], q)
    got = getattr(lnp, fn)(lnp.asarray([1, 2, 4]), q)
    assert type(got) is type(expected) and np.all(got == expected)


_VIEWS = [lambda a: a, lambda a: a[::2], lambda a: a.T, lambda a: a.copy(), lambda a: a[1:],
          lambda a: a.reshape(-1)]


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


@pytest.mark.parametrize("args, kwargs", [
    ((), {}), ((2,), {}), ((None,), {"a_max": 2}), ((), {"a_max": 2}), ((), {"a_min": 1}),
    ((1, 3), {}), ((), {"min": 2}), ((), {"max": 2, "min": 1}), ((1, 3), {"max": 3}),
    ((1, 3), {"min": 1}), ((None, None), {}), ((None, 2), {})])
def test_clip_bounds_positional_or_keyword_as_numpy(args, kwargs) -> None:
    same_outcome(lambda xp: xp.clip(xp.arange(5), *args, **kwargs))
    same_outcome(lambda xp: xp.arange(5).clip(*args, **{k.removeprefix("a_"): v
                                                  for k, v in kwargs.items()}))


@pytest.mark.parametrize("source, destination", [
    (0, 0), (3, -1), ([0, -1], [0, -1]), (range(4), range(4)), (range(2), (3, 2)),
    (np.int64(1), np.array(2)), ([0, 0], [1, 2]), (4, 0), ([0, 1], [2])])
def test_moveaxis_takes_any_sequence_of_axes(source, destination) -> None:
    same_outcome(lambda xp: xp.moveaxis(xp.zeros((1, 2, 3, 4)), source, destination).shape)


def test_reshape_without_a_shape_is_numpys_type_error() -> None:
    with pytest.raises(TypeError) as expected:
        np.reshape(np.arange(12))
    with pytest.raises(TypeError, match=re.escape(expected.value.args[0])):
        lnp.reshape(lnp.arange(12))
    same_outcome(lambda xp: xp.reshape(xp.arange(12), (3, 4), "C"))


def _warned(fn) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        fn()
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("fn", ["nanmean", "nanvar", "nanstd"])
@pytest.mark.parametrize("shape, axis, ddof", [
    ((0, 3), 0, 0), ((0, 3), None, 0), ((0, 3), 1, 0), ((2, 3), 0, 2), ((2, 3), 0, 1),
    ((2, 3), (0, 1), 6), ((2, 0), 1, 0)])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_statistics_warn_where_shapes_leave_too_few_numbers(fn, shape, axis, ddof) -> None:
    kwargs = {} if fn == "nanmean" else {"ddof": ddof}
    expected = _warned(lambda: getattr(np, fn)(np.ones(shape), axis=axis, **kwargs))
    assert _warned(lambda: getattr(lnp, fn)(lnp.ones(shape), axis=axis, **kwargs)) == expected
    same_outcome(lambda xp: getattr(xp, fn)(xp.ones(shape), axis=axis, **kwargs))


@pytest.mark.parametrize("args", [
    (True, None, None), ([True, False], None, 1), ([True, False], 2.5, None), ([True, False],),
    ([True, False], 1), ([[True], [False]], [1, 2], 0.5)])
@pytest.mark.filterwarnings("ignore::lazytensor.numpy._errors.LazyFallbackWarning")
def test_where_tells_none_operands_from_missing_ones(args) -> None:
    def run(xp):
        result = xp.where(xp.asarray(args[0]), *args[1:])
        return result[0] if isinstance(result, tuple) else result
    try:
        expected = run(np)
    except ValueError:
        with pytest.raises(ValueError):
            run(lnp)
        return
    got = np.asarray(run(lnp))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("dtype", [np.dtypes.Float64DType, np.dtypes.Float32DType,
                                   np.dtypes.Int64DType, np.float32, "f8"])
def test_ufunc_dtype_takes_a_dtype_class(dtype) -> None:
    same_outcome(lambda xp: xp.subtract(xp.asarray([5.0, 1.5]), xp.asarray(2.0), dtype=dtype,
                                 casting="unsafe"))
