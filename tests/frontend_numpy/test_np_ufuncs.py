"""numpy ufuncs on lazy arrays: signature/dtype/casting keywords, ``out``
(positional, ellipsis, shapes), ``where``, reduce/accumulate/reduceat/at,
gufunc outs."""


from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import check, same, same_exactly, same_outcome


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


def _into_out(mod, x):
    outs = (mod.zeros(4, bool), np.zeros(4, complex), mod.zeros(3, complex), np.zeros(4),
            np.zeros((2, 2)))
    np.isposinf(x * np.inf, out=outs[0])
    np.fft.fft(x, out=outs[1])
    np.fft.rfft(x, out=outs[2])
    np.fft.irfft(np.fft.rfft(x), n=4, out=outs[3])
    np.linalg.multi_dot([x[:2, None], x[None, 2:], x[:2, None] * x[None, :2]], out=outs[4])
    return outs


def _segment_sums(mod, x, ints):
    return (mod.add.reduceat(ints, [0, 3, 7]), mod.add.reduceat(x, [0, 2, 1, 5], axis=1),
            mod.maximum.reduceat(x, [3, 0]), mod.multiply.reduceat(ints + 1, [1, 4]),
            mod.add.reduceat(ints, [2, 5], dtype=np.float32),
            mod.logical_or.reduceat(ints > 5, [0, 6]),
            mod.add.reduceat(ints, []))


def _subtract_at(mod):
    cash = mod.zeros(4)
    mod.subtract.at(cash, [0, 0, 3], 1.5)
    stock = mod.arange(4, dtype=mod.uint8)
    mod.subtract.at(stock, [0, 0, 1], 1)  # wraps around, as numpy's uint8
    grid = mod.full((2, 3), 10)
    mod.subtract.at(grid, (mod.asarray([0, 0, 1]), mod.asarray([2, 2, 0])), mod.asarray([1, 2, 3]))
    rows = mod.arange(6).reshape(2, 3)
    mod.subtract.at(rows, [1, 1], mod.asarray([1, 2, 3]))
    return cash, stock, grid, rows


def _accumulate(mod, axis):
    return mod.add.accumulate(mod.arange(6.0).reshape(2, 3), axis=axis)


_F = np.arange(3.0) * 0.5


def packet_checksums(np, packets, flags, lengths):
    """Network-style bookkeeping with ufunc methods: XOR checksums per packet
    (np.bitwise_xor.reduce), the union and the common bits of flag words
    (bitwise_or / bitwise_and .reduce), running flag unions and running
    parities (.accumulate), parity of set flags (np.logical_xor.reduce),
    per-message checksums by np.bitwise_xor.reduceat, a byte histogram with
    np.add.at, the running peak with np.maximum.accumulate and the minimum
    of each segment by np.minimum.reduceat."""
    checks = np.bitwise_xor.reduce(packets, axis=1)
    union = np.bitwise_or.reduce(flags)
    common = np.bitwise_and.reduce(flags, axis=0, keepdims=True)
    running = np.bitwise_or.accumulate(flags)
    parity_run = np.bitwise_xor.accumulate(packets, axis=1)
    odd = np.logical_xor.reduce(flags > 7, axis=0)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    per_msg = np.bitwise_xor.reduceat(packets.ravel(), starts)
    hist = np.zeros(16, dtype=np.int64)
    np.add.at(hist, packets.ravel() % 16, 1)
    peak = np.maximum.accumulate(packets.sum(axis=1))
    seg_min = np.minimum.reduceat(packets.ravel(), starts)
    whole = np.bitwise_xor.reduce(packets, axis=None) ^ np.uint8(0x5A)
    return checks, union, common, running, parity_run, odd, per_msg, hist, peak, seg_min, whole


def test_reduction_into_out():
    """``np.sum(lazy, out=host)`` failed ('numpy.ndarray' object has no
    attribute '_h'); reduce/accumulate refused out= of another kind, where
    numpy casts unsafely."""
    host = np.arange(6.0).reshape(2, 3)
    for got, want in zip(_outs(lnp, lnp.asarray(host)), _outs(np, host), strict=True):
        same(got, want, rtol=1e-7)


def test_out_of_another_shape_is_a_value_error():
    """``np.add(x, x, out=wrong_shape)`` leaked the core's ShapeError."""
    x = lnp.asarray(np.ones(6))
    for out in (np.zeros(2), lnp.zeros(2)):
        with pytest.raises(ValueError, match="could not be broadcast"):
            np.add(x, x, out=out)


def test_out_of_fft_isposinf_multi_dot():
    """out= was accepted and silently ignored by np.fft.*, isposinf/isneginf
    and linalg.multi_dot."""
    host = np.array([1.0, -2.0, 3.0, 4.0])
    for got, want in zip(_into_out(lnp, lnp.asarray(host)), _into_out(np, host), strict=True):
        same(got, want, rtol=1e-7)


def test_reduceat_segment_reductions_record_lazily(runtime):
    """``np.add.reduceat`` (per-segment sums) ran eagerly; now one lazy
    reduction per run, with numpy's dtypes (small ints widen), empty runs
    giving the element itself, and numpy's IndexError for a bad index."""
    x, ints = np.arange(24.0).reshape(4, 6), np.arange(10, dtype=np.int8)
    got = _segment_sums(lnp, lnp.asarray(x), lnp.asarray(ints))
    for g, w in zip(got, _segment_sums(np, x, ints), strict=True):
        same(g, w)
    with pytest.raises(IndexError, match="out-of-bounds"):
        lnp.add.reduceat(lnp.asarray(ints), [0, 10])


@pytest.mark.usefixtures('own_runtime')
def test_subtract_at_records_lazily(runtime):
    """np.subtract.at (withdrawals by account, repeated indices accumulate)
    was an eager fallback; it is add.at of the negated values."""
    for got, want in zip(_subtract_at(lnp), _subtract_at(np), strict=True):
        same(got, want)
    with pytest.raises(TypeError):  # numpy: no subtract loop for bools
        lnp.subtract.at(lnp.ones(3, dtype=bool), [0], True)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum"])
def test_ufunc_at_of_floats_into_integers_casts_as_numpy(name):
    """numpy's ufunc.at computes each step in the loop dtype and casts it
    back unsafely (int 10 - 0.6 twice -> 9 -> 8); lazy ufunc.at raised
    numpy's same_kind UFuncTypeError instead. It now runs numpy's loop."""
    got, want = lnp.full(3, 10), np.full(3, 10)
    getattr(lnp, name).at(got, [0, 0, 2], 0.6)
    getattr(np, name).at(want, [0, 0, 2], 0.6)
    same(got, want)


@pytest.mark.usefixtures('own_runtime')
def test_accumulate_axis_is_one_integer():
    """ufunc.accumulate takes one integer axis (or a tuple of one): axis=None
    or two axes raise numpy's ValueError (lazy: a TypeError from comparing
    None), a float axis numpy's TypeError (lazy silently used int(1.5))."""
    same(_accumulate(lnp, (1,)), _accumulate(np, (1,)))
    for axis, error in ((None, ValueError), ((0, 1), ValueError), (1.5, TypeError),
                        ([1], TypeError)):
        with pytest.raises(error):
            _accumulate(np, axis)
        with pytest.raises(error):
            _accumulate(lnp, axis)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_positional_out_errors_are_numpys():
    a, o = lnp.ones(3), lnp.zeros(3)
    for call in (lambda m, a, o: m.add(a, a, o, o), lambda m, a, o: m.add(a, a, o, out=o)):
        with pytest.raises(TypeError):
            call(np, np.ones(3), np.zeros(3))
        with pytest.raises(TypeError):
            call(lnp, a, o)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


@pytest.mark.sweep("operands", reason="every keyword set with one operand set, "
                   "operand sets in turn; the product is slow")
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


@pytest.mark.usefixtures('own_runtime')
def test_ufunc_methods_for_checksums_and_flags():
    """bitwise_and/or/xor and logical_xor .reduce/.accumulate/.reduceat record
    lazily (composite.reduce.folds) instead of running eagerly."""
    rng = np.random.default_rng(173)
    check(packet_checksums, rng.integers(0, 256, (6, 10), dtype=np.uint8),
          rng.integers(0, 2 ** 12, 9).astype(np.int16), np.array([7, 13, 20, 11, 9]))
