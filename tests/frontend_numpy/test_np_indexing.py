"""Indexing on lazy arrays against numpy: index conversion and its errors,
put/take/place/putmask/choose, flat iterators and flat writes,
fill_diagonal, lazy slice bounds and masks."""


from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core.runtime import get_runtime
from np_compare import same, same_error, same_exactly, same_outcome


def _flat_writes(mod):
    a, b, c = mod.zeros((2, 3)), mod.zeros((2, 3)).T, mod.zeros((2, 2), dtype=np.int32)
    a.flat = 5
    a.flat[1:5] = [7, 8, 9]
    b.flat = [1, 2, 3, 4]
    c.flat[:] = mod.asarray([1.7, 2.2, 3.9])
    d = mod.arange(6.0)
    d.flat[::2] = [[1.0], [2.0], [3.0]]
    d.flat[[0, 5]] = [-1]
    return a, b, c, d


def _nditer_writes(mod):
    a, b, c = mod.arange(6.0).reshape(2, 3), mod.arange(4.0), mod.zeros(4)
    with mod.nditer(a, op_flags=["readwrite"]) as it:
        for x in it:
            x[...] = 2 * x
    with mod.nditer([b, c], op_flags=[["readonly"], ["writeonly"]]) as it:
        for x, y in it:
            y[...] = x * x
    d = mod.arange(6).reshape(2, 3)
    it = mod.nditer(d, flags=["multi_index"], op_flags=["readwrite"])
    for x in it:  # no with-block: the loop running out writes back
        x[...] = it.multi_index[0] * 10 + it.multi_index[1]
    e = mod.arange(4.0)
    with mod.nditer(e[::2], op_flags=["readwrite"]) as it:  # a view: writes reach e
        for x in it:
            x[...] = -1
    return a, c, d, e


_HALF_MAX = np.iinfo(np.intp).max // 2


MASK = np.array([[1, 0, 1], [1, 1, 0]], bool)


def test_lazy_mask_read_after_a_pending_write():
    """``a[a > 1]`` reads the mask (a barrier) after a pending write to ``a``:
    the pending node taken before the barrier named a donated buffer
    ('Array has been deleted')."""
    for mod in (np, lnp):
        a = mod.asarray(np.arange(24.0).reshape(6, 4))
        c = a[:, 0]
        c[c > 1] = 9
        a[0, 1] = 5
        got = a[a > 1]
        b = a.copy()
        b[b > 4] = a[a > 4] * 2  # the same in a write, with a lazy value
        c = a * 1
        mod.add.at(c, c > 5, 1)  # and in ufunc.at
        if mod is np:
            want = got, b, c
    for g, w in zip((got, b, c), want, strict=True):
        same(g, w, rtol=1e-7)


def test_choose_method():
    """``idx.choose(choices)`` was missing (AttributeError), np.choose is lazy."""
    host, choices = np.array([0, 2, 1, 0]), np.arange(12).reshape(3, 4)
    same(lnp.asarray(host).choose(lnp.asarray(choices)), host.choose(choices), rtol=1e-7)


def test_flat_assignment_repeats_short_values():
    """``x.flat = values`` raised AttributeError (no setter) and
    ``x.flat[...] = short`` a broadcast ValueError, where numpy repeats the
    values in C order over the written positions (and uses the first ones
    of a longer value)."""
    for got, want in zip(_flat_writes(lnp), _flat_writes(np), strict=True):
        same(got, want)


def test_nditer_readwrite_writes_reach_the_lazy_array():
    """``np.nditer(a, op_flags=['readwrite'])`` iterated a host copy of a lazy
    array and silently dropped every write; the written operands now get
    the host copy back when the iteration ends."""
    for got, want in zip(_nditer_writes(lnp), _nditer_writes(np), strict=True):
        same(got, want)
    with pytest.raises(ValueError, match="read-only"):
        lnp.nditer(lnp.broadcast_to(lnp.zeros(3), (2, 3)), op_flags=["readwrite"])


@pytest.mark.usefixtures('own_runtime')
def test_take_and_put_along_axis_shape_mismatch_is_an_index_error():
    """Indices whose other axes do not broadcast against the array's raised
    ValueError (numpy indexes with them: IndexError)."""
    a = lnp.eye(4)
    with pytest.raises(IndexError, match="shape mismatch"):
        lnp.take_along_axis(a, np.ones((3, 1), int), 1)
    with pytest.raises(IndexError, match="shape mismatch"):
        lnp.take_along_axis(a, lnp.ones((3, 2), int), 0)
    with pytest.raises(IndexError, match="shape mismatch"):
        lnp.put_along_axis(a, np.ones((3, 1), int), 1.0, 1)
    with pytest.raises(ValueError, match="same number of dimensions"):
        lnp.take_along_axis(a, np.ones(4, int), 1)


@pytest.mark.usefixtures('own_runtime')
def test_place_from_no_values_raises():
    """``np.place(a, mask, [])`` filled the masked elements with zeros;
    numpy raises ValueError when the mask selects any element."""
    a = lnp.arange(3.0)
    with pytest.raises(ValueError, match="empty array"):
        lnp.place(a, a > 1, [])
    lnp.place(a, a > 5, [])  # selects nothing: no error, no change
    same(a, np.arange(3.0))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("call", [
    lambda m: m.unravel_index(1, (2**32 - 1, 2**31 + 1)),
    lambda m: m.unravel_index(m.asarray([0]), ()),
    lambda m: m.unravel_index(m.zeros(1, dtype=m.intp), (2, 1, 0)),
    lambda m: m.ravel_multi_index(m.zeros((3, 1), dtype=m.intp), (2, 1, 0), mode="clip"),
    lambda m: m.ravel_multi_index(m.zeros((3, 1), dtype=m.intp), (2, 1, 0), mode="wrap"),
    lambda m: m.ravel_multi_index(([0], [0]), (_HALF_MAX + 1, 2)),
])
def test_index_conversion_errors_that_the_shape_alone_decides(call):
    """A shape larger than intp, several indices into a 0-d shape and any
    index into an empty shape are errors whatever the index values: numpy
    raises ValueError; lazy unravel_index/ravel_multi_index returned
    wrapped-around or -1 coordinates (found by numpy's test_index_tricks)."""
    with pytest.raises(ValueError):
        call(np)
    with pytest.raises(ValueError):
        call(lnp)


@pytest.mark.usefixtures('own_runtime')
def test_index_conversion_of_an_empty_list_is_numpys_type_error():
    """An empty list is a float array in numpy: TypeError with numpy's hint."""
    for mod in (np, lnp):
        with pytest.raises(TypeError, match="the provided empty sequence was"):
            mod.unravel_index([], (10, 3, 5))
        with pytest.raises(TypeError, match="the provided empty sequence was"):
            mod.ravel_multi_index(([], []), (10, 3))


@pytest.mark.usefixtures('own_runtime')
def test_index_conversion_near_the_limits(runtime):
    for mod in (np, lnp):
        assert mod.unravel_index(0, ()) == ()
    same(lnp.ravel_multi_index(([0], [0]), (_HALF_MAX, 2)),
         np.ravel_multi_index(([0], [0]), (_HALF_MAX, 2)))
    same(lnp.ravel_multi_index(lnp.zeros((3, 0), dtype=lnp.intp), (2, 1, 0)),
         np.ravel_multi_index(np.zeros((3, 0), dtype=np.intp), (2, 1, 0)))


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


def test_slice_bounds_that_are_lazy_arrays() -> None:
    data = lnp.zeros((3, 4))
    start, stop = lnp.asarray([1, 0]), lnp.asarray([2, 3])
    data[slice(start[0], stop[0]), slice(start[1], stop[1])] = 1 + lnp.ones((1, 3))
    expected = np.zeros((3, 4))
    expected[1:2, 0:3] = 2
    same_exactly(data[slice(start[0], stop[0]), :], expected[1:2])
    same_exactly(data, expected)


@pytest.mark.parametrize("shape,val,wrap", [
    ((5, 3), [1, 2], True), ((7, 3), 5, True), ((3, 5), [1, 2], True), ((3, 3, 3), 4, False),
    ((4, 4, 4, 4), [1, 2, 3], False), ((4, 6), [1, 2], False)])
def test_fill_diagonal_nd_and_wrap(shape, val, wrap) -> None:
    a, h = lnp.zeros(shape), np.zeros(shape)
    lnp.fill_diagonal(a, val, wrap)
    np.fill_diagonal(h, val, wrap)
    same_exactly(a, h)
    same_error(ValueError, lambda xp: xp.fill_diagonal(xp.zeros((2, 3, 3)), 1))
    same_error(ValueError, lambda xp: xp.fill_diagonal(xp.zeros(3), 1))


@pytest.mark.parametrize("conditions", [
    [np.array([1, 0, 1])], [[True, False, True]], [np.array([True, False]), np.array([1, 0], "u1")],
    [True], [np.array(1.0)], [np.array([True, False]), np.array([False, True])]])
def test_select_wants_boolean_conditions(conditions) -> None:
    choices = [np.arange(2.0) + i for i in range(len(conditions))]
    same_outcome(lambda xp: xp.select([xp.asarray(c) for c in conditions], choices, default=-1))
    same_outcome(lambda xp: xp.select(conditions, choices))


@pytest.mark.sweep("index", reason="every index count and rank with one index "
                   "kind, kinds in turn; the product is slow")
@pytest.mark.parametrize("index", [True, False, np.array([0]), 0, None])
@pytest.mark.parametrize("num", [32, 63, 64, 80])
@pytest.mark.parametrize("ndim", [0, 1, 64])
def test_indices_past_numpys_64_limit_raise_index_error(index, num, ndim) -> None:
    def read(xp):
        return xp.ones((1,) * ndim)[(index,) * num]

    def write(xp):
        a = xp.ones((1,) * ndim)
        a[(index,) * num] = 2.0
        return a
    same_outcome(read)
    same_outcome(write)


@pytest.mark.parametrize("index", [(..., [1, 2], slice(None)), ([0, 1], ..., 0),
                                   (..., [1, 2], [1, 2]), (slice(1, 3),)])
def test_write_shape_mismatch_reports_shapes_as_numpy(index) -> None:
    messages = []
    for xp in (np, lnp):
        a = xp.zeros((3, 4, 5, 6, 7))
        with pytest.raises(ValueError) as info:
            a[index] = xp.zeros((100, 100))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("write", [False, True])
def test_flat_index_by_a_list_of_floats_is_deprecated_and_truncated(write) -> None:
    def run(xp):
        a = xp.arange(9).reshape((3, 3))
        with pytest.warns(DeprecationWarning, match="Invalid non-array indices"):
            if not write:
                return a.flat[[1.0, 2.7]]
            a.flat[[1.0, 2.7]] = 20
        return a
    same_outcome(run)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same_outcome(lambda xp: xp.arange(4).flat[[]])


@pytest.mark.sweep("lazy_ind", "method", reason="every index/value pair in one of the four "
                   "host/lazy x function/method modes, in turn; all four are slow")
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


@pytest.mark.parametrize("values", [[1.0, 2.0], [], np.ones((2, 3)), 5, np.arange(4)])
def test_putmask_repeats_values_by_position(values):
    want, got = np.zeros((2, 3)), lnp.zeros((2, 3))
    np.putmask(want, MASK, values)
    np.putmask(got, lnp.asarray(MASK), np.asarray(values))
    np.testing.assert_array_equal(np.asarray(got), want)


def test_place_and_put_repeat_values_in_order():
    want, got = np.zeros(7), lnp.zeros(7)
    np.place(want, want == 0, [1, 2, 3])
    np.place(got, np.ones(7, bool), np.array([1, 2, 3]))
    np.testing.assert_array_equal(np.asarray(got), want)
    np.put(want, [0, 3, -1], [9, 8])
    np.put(got, [0, 3, -1], np.array([9, 8]))
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("value", [7, [1, 2, 3], np.array([4.0, 5.0, 6.0, 7.0, 8.0])])
def test_fill_diagonal_repeats_values(value):
    want, got = np.zeros((4, 4)), lnp.zeros((4, 4))
    np.fill_diagonal(want, value)
    np.fill_diagonal(got, value if np.isscalar(value) else lnp.asarray(np.asarray(value)))
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_ix_of_lazy_index_vectors_is_lazy():
    """np.ix_ of lazy vectors (correlation_pairs' ``C[np.ix_(top, top)]``)
    fell back to numpy (counted); integer vectors are now reshaped lazily,
    boolean ones and lists are numpy's own on host."""
    import lazytensor.numpy as lnp

    rows, mask = np.array([2, 0]), np.array([True, False, True])
    M = np.arange(12.0).reshape(4, 3)
    metrics = get_runtime().metrics
    runs = metrics.counters.get("graphs_executed", 0)
    r, c = lnp.ix_(lnp.asarray(rows) * 1, lnp.asarray(np.array([1, 2])))
    assert metrics.counters.get("graphs_executed", 0) == runs
    for got, want in ((r, rows[:, None]), (lnp.asarray(M)[r, c], M[np.ix_(rows, [1, 2])])):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)
    got = lnp.ix_(lnp.asarray(rows), lnp.asarray(mask), [1])
    for g, w in zip(got, np.ix_(rows, mask, [1]), strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)
        assert g.shape == w.shape and g.dtype == w.dtype
    with pytest.raises(ValueError, match="1 dimensional"):
        lnp.ix_(lnp.ones((2, 2), dtype=int))
    assert not metrics.fallbacks
