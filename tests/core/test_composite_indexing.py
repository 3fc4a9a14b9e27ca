"""numpy indexing composites (getitem/setitem, views, take family) against
numpy itself: values, dtype and shape. Many checks share one compiled graph."""

import numpy as np
import pytest
from lazytensor.core import Handle, Op, make
from lazytensor.core.composite.indexing import subscript as ix
from lazytensor.core.composite.indexing import take as tk
from lazytensor.core.composite.movement import views
from lazytensor.core.runtime import ViewHandle, get_runtime

RNG = np.random.default_rng(0)


def dev(a, dtype=None):
    return get_runtime().from_host(np.asarray(a, dtype=dtype)).node


def run(*nodes):
    """Evaluate nodes in one graph (leaves go through a no-op convert)."""
    handles = [Handle(make(Op.CONVERT, (n,), n.dtype) if n.is_leaf else n) for n in nodes]
    return [h.numpy() for h in handles]


def check(got_nodes, wants, labels):
    for got, want, label in zip(run(*got_nodes), wants, labels, strict=True):
        want = np.asarray(want)
        assert got.shape == want.shape, (label, got.shape, want.shape)
        assert got.dtype == want.dtype, (label, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=str(label))


def host(index):
    """The index with device nodes replaced by their host values."""
    items = index if isinstance(index, tuple) else (index,)
    out = tuple(Handle(i).numpy() if isinstance(i, ix.Node) else i for i in items)
    return out if isinstance(index, tuple) else out[0]


X = np.arange(120, dtype=np.float32).reshape(4, 5, 6)
BASIC = [
    0, -1, (1, 2, 3), (-4, -5, -6), (), Ellipsis, (Ellipsis, 0), (None,), (0, None, 1),
    slice(None, None, -1), (slice(1, 3), slice(None, None, 2), slice(5, 0, -2)),
    (slice(10, None),), (slice(3, 1),), (slice(None, None, -3), Ellipsis, None),
    (None, Ellipsis, slice(-2, None), None), (slice(-100, 100, 3), 2),
    (np.int64(1), slice(None), np.int32(-1)),
]
ADVANCED = [
    [0, 2], ([0, -1], slice(None), [1, 2]), (0, slice(None), [1, 2]), ([0, 2], slice(1, 3), 0),
    (np.array([[0, 1], [2, 3]]),), (Ellipsis, [0, -1], [1, 2]), (slice(None), [1, 0], None, [0, 5]),
    ([1, 0], None, [0, 4]), (slice(None, None, -1), [[0], [4]], [1, 2, 3]), ([],),
    (True,), (False,), (True, [0, 1]), (X[:, 0, 0] > 30,), (X[..., 0] > 40,), (X > 100,),
    (slice(1, None), X[0] > 50), (np.array(2), slice(None), [0, 0, 5]),
]


@pytest.mark.parametrize("group", ["basic", "advanced"])
def test_getitem_matches_numpy(group):
    cases = BASIC if group == "basic" else ADVANCED
    x = dev(X)
    check([ix.getitem(x, c) for c in cases], [X[c] for c in cases], cases)


def test_getitem_with_device_indices_and_dtypes():
    x = dev(X)
    i32 = np.array([[3], [-1]], np.int32)
    u8 = np.array([0, 4, 2], np.uint8)
    cases = [(dev(i32),), (slice(None), dev(u8)), (dev(i32), dev(u8), 1), (dev(np.array(-2)),),
             (Ellipsis, dev(np.array([5, -6])))]
    check([ix.getitem(x, c) for c in cases], [X[host(c)] for c in cases], cases)
    ints = np.arange(24, dtype=np.int8).reshape(2, 3, 4)
    bools = ints % 3 == 0
    zero_d = np.array(7, np.int16)
    pairs = [(ints, (1, slice(None, None, -1))), (bools, ([1, 0], 2)), (zero_d, ()),
             (zero_d, None), (zero_d, Ellipsis), (np.zeros((0, 3), np.float64), (slice(None), 1)),
             (np.zeros((0, 3), np.float64), ([], [])), (np.zeros((2, 0)), (1, [])),
             (np.arange(6.0).reshape(2, 3), ([1, 1, 0],))]
    check([ix.getitem(dev(a), c) for a, c in pairs], [a[c] for a, c in pairs], pairs)


def test_getitem_dynamic_out_of_bounds_clips():
    x = dev(np.arange(5.0))
    (got,) = run(ix.getitem(x, dev(np.array([7, -9]))))
    np.testing.assert_array_equal(got, [4.0, 0.0])


@pytest.mark.parametrize("index, error, message", [
    (5, IndexError, "index 5 is out of bounds for axis 0 with size 4"),
    ((0, -7), IndexError, "index -7 is out of bounds for axis 1 with size 5"),
    ((slice(None), [1, 5]), IndexError, "index 5 is out of bounds for axis 1 with size 5"),
    ((0, 0, 0, 0), IndexError, "too many indices for array: array is 3-dimensional, but 4 were"),
    ((Ellipsis, Ellipsis), IndexError, "an index can only have a single ellipsis"),
    (1.0, IndexError, "only integers, slices"),
    (np.array([1.0]), IndexError, "arrays used as indices must be of integer"),
    (np.array([True, False]), IndexError, "boolean index did not match indexed array along "
                                          "axis 0; size of axis is 4 but size of corresponding "
                                          "boolean axis is 2"),
    (([0, 1], [0, 1, 2]), IndexError, "shape mismatch: indexing arrays could not be broadcast"),
    (slice(0.5, 2), TypeError, "slice indices must be integers"),
])
def test_getitem_errors_match_numpy(index, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace("[", r"\[")):
        X[index]
    with pytest.raises(error, match=message.replace("(", r"\(").replace("[", r"\[")):
        ix.getitem(dev(X), index)


def test_getitem_refuses_boolean_nodes_and_offers_host_conversion():
    mask = X[:, 0, 0] > 30
    with pytest.raises(IndexError, match="data-dependent"):
        ix.getitem(dev(X), dev(mask))
    check([ix.getitem(dev(X), ix.bool_indices(mask))], [X[mask]], ["bool_indices"])


@pytest.mark.parametrize("group", ["basic", "advanced"])
def test_setitem_matches_numpy(group):
    cases = BASIC if group == "basic" else ADVANCED
    x = dev(X)
    got, want = [], []
    for c in cases:
        value = RNG.integers(-50, 0, X[c].shape).astype(np.float32)
        expected = X.copy()
        expected[c] = value
        got.append(ix.setitem(x, c, dev(value)))
        want.append(expected)
    check(got, want, cases)


def test_setitem_broadcasts_scalars_converts_and_accumulates():
    x = dev(X)
    cases = [((0,), 7), ((slice(None), 1), dev(np.arange(6, dtype=np.int64))),
             ((slice(None, None, 2), 0, slice(None, None, -2)), -1.5),
             (([3, 0],), dev(np.full((1, 1, 5, 1), 9.0))), ((Ellipsis, [1, 2]), 2.5)]
    got, want = [], []
    for c, value in cases:
        expected = X.copy()
        expected[c] = host(value) if isinstance(value, ix.Node) else value
        got.append(ix.setitem(x, c, value))
        want.append(expected)
    add = X.copy()
    np.add.at(add, ([0, 0, 3], slice(None), [1, 1, 2]), 10.0)
    got.append(ix.setitem(x, ([0, 0, 3], slice(None), [1, 1, 2]), 10.0, kind="add"))
    want.append(add)
    sub = X.copy()
    sub[1:3, ::2] += 4.0
    got.append(ix.setitem(x, (slice(1, 3), slice(None, None, 2)), 4.0, kind="add"))
    want.append(sub)
    check(got, want, [c for c, _ in cases] + ["add.at", "basic +="])


def test_setitem_duplicates_last_write_wins():
    """numpy assigns duplicates in order, so the last one wins; so do we,
    for static and dynamic indices and with other axes sliced."""
    base = np.zeros((6, 3), np.float32)
    idx = np.array([1, 4, 1, 1, 4, 0])
    values = np.arange(1, 7, dtype=np.float32)
    got, want = [], []
    for index in (idx, dev(idx), dev(idx - 6)):
        expected = base.copy()
        expected[idx] = values[:, None]
        got.append(ix.setitem(dev(base), (index,), dev(values[:, None])))
        want.append(expected)
    rows, cols = np.array([[2, 2], [2, 0]]), np.array([1, 1])
    expected = base.copy()
    expected[rows, cols] = np.array([[10, 20], [30, 40]], np.float32)
    got.append(ix.setitem(dev(base), (dev(rows), dev(cols)), dev(expected[rows, cols] * 0 +
                                                                 np.array([[10, 20], [30, 40]]))))
    want.append(expected)
    check(got, want, ["static", "dynamic", "negative", "2-d"])


def test_setitem_errors():
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\)"):
        ix.setitem(dev(X), (0, 0, slice(0, 2)), dev(np.zeros(3, np.float32)))
    with pytest.raises(ValueError, match="shape mismatch: value array of shape"):
        ix.setitem(dev(X), ([0, 1],), dev(np.zeros(3, np.float32)))
    with pytest.raises(IndexError, match="out of bounds"):
        ix.setitem(dev(X), (0, 9), 1.0)


def test_views_write_through_to_their_base():
    data = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    cases = [
        (views.view_of, ((slice(None), 1, slice(None, None, -2)),), lambda a: a[:, 1, ::-2]),
        (views.view_of, ((None, 0, Ellipsis),), lambda a: a[None, 0, ...]),
        (views.transpose_view, ((2, 0, 1),), lambda a: a.transpose(2, 0, 1)),
        (views.transpose_view, (None,), lambda a: a.T),
        (views.swapaxes_view, (0, -1), lambda a: a.swapaxes(0, -1)),
        (views.moveaxis_view, (0, 2), lambda a: np.moveaxis(a, 0, 2)),
        (views.reshape_view, ((4, -1),), lambda a: a.reshape(4, -1)),
        (views.squeeze_view, (None,), lambda a: a.squeeze()),
        (views.expand_dims_view, ((0, 3),), lambda a: np.expand_dims(a, (0, 3))),
        (views.diagonal_view, (1, 1, 2), lambda a: a.diagonal(1, 1, 2)),
        (views.diagonal_view, (-1, 2, 0), lambda a: a.diagonal(-1, 2, 0)),
    ]
    got, want = [], []
    positions = np.arange(data.size).reshape(data.shape)
    for make_view, args, numpy_view in cases:
        base = Handle(dev(data))
        view = ViewHandle(base, *make_view(base.node, *args))
        where = numpy_view(positions)  # the flat base position of each view element
        new = -1.0 - np.arange(where.size).reshape(where.shape)
        written = data.copy()
        written.flat[where.ravel()] = new.ravel()
        got.append(view.node)
        want.append(numpy_view(data))
        view.assign(dev(new))
        got += [base.node, view.node]
        want += [written, new]
    check(got, want, [c[2] for c in cases for _ in range(3)])


def test_view_of_refuses_advanced_indices():
    with pytest.raises(ValueError, match="copy"):
        views.view_of(dev(X), ([0, 1],))


def test_take_family():
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    A = dev(a)
    idx = np.array([[0, -1], [5, 2]])
    along = RNG.integers(-6, 6, (4, 3))
    col = RNG.integers(0, 4, (1, 6))
    got = [tk.take(A, idx), tk.take(A, idx, axis=1), tk.take(A, 3, axis=0),
           tk.take(A, dev(idx), axis=1), tk.take(A, [9, -9], axis=1, mode="wrap"),
           tk.take(A, [9, -9], axis=1, mode="clip"), tk.take(A, dev(np.array([9, -9])), 1, "wrap"),
           tk.take(A, dev(np.array([9, -9])), 1, "clip"),
           tk.take_along_axis(A, dev(along), 1), tk.take_along_axis(A, along, 1),
           tk.take_along_axis(A, dev(col), 0), tk.take_along_axis(A, dev(idx.ravel()), None),
           tk.compress([True, False, True], A, 0), tk.compress([0, 1, 1, 0, 0, 1], A, 1),
           tk.compress(np.array([False, True]), A)]
    want = [np.take(a, idx), np.take(a, idx, 1), np.take(a, 3, 0), np.take(a, idx, 1),
            np.take(a, [9, -9], 1, mode="wrap"), np.take(a, [9, -9], 1, mode="clip"),
            np.take(a, [9, -9], 1, mode="wrap"), np.take(a, [9, -9], 1, mode="clip"),
            np.take_along_axis(a, along, 1), np.take_along_axis(a, along, 1),
            np.take_along_axis(a, col, 0), np.take_along_axis(a, idx.ravel(), None),
            np.compress([True, False, True], a, 0), np.compress([0, 1, 1, 0, 0, 1], a, 1),
            np.compress([False, True], a)]
    puts = []
    zeros = np.zeros((4, 1), np.int64)
    for indices, values, axis in [(along, 100, 1), (zeros, np.arange(4)[:, None], 1),
                                  (col, -np.arange(6)[None], 0)]:
        expected = a.copy()
        np.put_along_axis(expected, indices, values, axis)
        node_values = values if np.ndim(values) == 0 else dev(values)
        puts.append(tk.put_along_axis(A, dev(indices), node_values, axis))
        want.append(expected)
    check(got + puts, want, list(range(len(want))))


def test_take_errors():
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        tk.take(dev(np.arange(6)), [1, 6])
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        tk.compress([0, 0, 0, 1], dev(np.arange(3)))
    with pytest.raises(ValueError, match="same number of dimensions"):
        tk.take_along_axis(dev(X), dev(np.zeros((2, 2), np.int64)), 0)


def test_integer_indices_are_parameters_not_recompiled():
    """x[i] and x[i] = v in a loop over i compile one graph each."""
    from lazytensor.core.runtime import use_runtime

    data = np.arange(12.0).reshape(4, 3)
    with use_runtime() as rt:
        x = rt.from_host(data)
        for i in range(4):
            row, col = Handle(ix.getitem(x.node, i)), Handle(ix.getitem(x.node, (i, [0, 2])))
            np.testing.assert_array_equal(row.numpy(), data[i])
            np.testing.assert_array_equal(col.numpy(), data[i, [0, 2]])
            written = Handle(ix.setitem(x.node, (slice(None), i % 3), -1.0))
            expected = data.copy()
            expected[:, i % 3] = -1.0
            np.testing.assert_array_equal(written.numpy(), expected)
        assert len(rt.cache) == 2  # the two reads share a graph; the write is another


def test_last_write_wins_drops_every_overwritten_update():
    """XLA leaves the order of duplicate scatter writes open, so the losers'
    indices are moved out of bounds (dropped) instead of relying on order."""
    idx = np.array([1, 4, 1, 1, 4, 0])
    plan = ix.plan_index((6, 3), (dev(idx), dev(np.array([2, 2, 0, 2, 2, 1]))))
    y = dev(np.zeros((6, 3)))
    (moved,) = run(ix._last_write_wins(y, plan, ix._stacked_indices(plan)))
    # (row, col) pairs: (1,2) (4,2) (1,0) (1,2) (4,2) (0,1): the first and second lose
    np.testing.assert_array_equal(moved, [[6, 2], [6, 2], [1, 0], [1, 2], [4, 2], [0, 1]])


def test_basic_plans_are_memoized_per_shape_and_index_only():
    """A basic index's plan is reused for the same (shape, index); an index
    that only looks alike (a bool, a numpy integer, another shape) is not
    served from the memo."""
    x = dev(X)
    index = (1, slice(None, 3))
    assert ix.plan_index(X.shape, index) is ix.plan_index(X.shape, (1, slice(None, 3)))
    assert ix.plan_index(X.shape, 1) is ix.plan_index(X.shape, (1,))
    assert ix._basic_key(True) is None and ix._basic_key(np.int64(1)) is None
    assert ix._basic_key((slice(np.int64(1), None),)) is None
    y = dev(X[:2])
    check([ix.getitem(x, index), ix.getitem(y, index), ix.getitem(x, True),
           ix.getitem(x, np.int64(1)), ix.getitem(x, (Ellipsis, None, -1))],
          [X[index], X[:2][index], X[True], X[np.int64(1)], X[..., None, -1]],
          ["x", "other shape", "bool", "numpy int", "ellipsis"])
