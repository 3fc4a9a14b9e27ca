"""Shape manipulation against numpy: reshape and ravel orders, joins
(concatenate, block, unstack) and their ``out``, insert/delete, resize,
moveaxis, pad."""


from __future__ import annotations

import re

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import check, same, same_error, same_exactly, same_outcome


def _resized(mod):
    out = []
    for shape in ((2, 4), (3,), ((7,),), ((),)):
        a = mod.arange(6.0).reshape(2, 3).copy()
        a.resize(*shape)
        out.append(a)
    b = mod.arange(4, dtype=np.int8)
    b.resize(6, refcheck=False)
    return [*out, b]


def _block_matrices(mod, a, b, d):
    return (mod.block([[a, b], [mod.zeros((1, 2), np.float32), mod.full((1, 3), 7)]]),
            mod.block([a, a]), mod.block([[a], [a]]), mod.block(d), mod.block([d, 1, 2]),
            mod.block([[[a]], [[a]]]), mod.block([[d], [d]]), mod.block([[[1, 2]], [[3, 4]]]),
            mod.block([d, np.int8(2)]))


def _inserts_and_deletes(mod):
    table = mod.arange(12).reshape(3, 4)
    series = mod.arange(5.0)
    return (mod.insert(series, 0, 0.0), mod.insert(series, [1, 3], [10, 20]),
            mod.insert(series, [1, 1, 4], 7), mod.insert(table, 1, 0, axis=0),
            mod.insert(table, 2, [7, 8, 9], axis=1),
            mod.insert(table, [2], [[7], [8], [9]], axis=1),
            mod.insert(table, [0, 2], mod.asarray([[7], [8], [9]]), axis=1),
            mod.insert(series, slice(0, 4, 2), [10, 20]), mod.insert(table, 5, -1),
            mod.insert(mod.arange(3), 1, 2.7), mod.insert(series, -1, mod.asarray([1, 2])),
            mod.insert(table[:, ::2], 1, -1, axis=1), mod.insert(series, mod.asarray(2), 9.5),
            mod.delete(series, 2), mod.delete(series, [0, 2, -1]), mod.delete(table, 1, axis=1),
            mod.delete(table, [0, 2], axis=0), mod.delete(series, slice(1, 3)),
            mod.delete(series, [True, False, True, False, False]), mod.delete(table, [0, 11]),
            mod.delete(table, mod.asarray([1]), axis=0), mod.delete(table, [0, 1, 2], axis=0))


def _resizes(mod):
    x = mod.arange(6).reshape(2, 3)
    return (mod.resize(x, (3, 4)), mod.resize(x, 4), mod.resize(x, (2, 2, 2)),
            mod.resize(x, (0, 3)), mod.resize(mod.zeros((0,)), (2, 2)),
            mod.resize(mod.asarray([1.5, 2.5], mod.float32), np.int64(5)))


def reshaping_toolkit(np, a, b):
    """einsum with an ellipsis (batched matrix-vector and a trace over the
    last two axes), np.rollaxis and moveaxis, tile and repeat, and np.pad in
    reflect, symmetric, wrap, edge and linear_ramp modes."""
    bmv = np.einsum("...ij,...j->...i", a, b)
    tr = np.einsum("...ii->...", a)
    r = np.rollaxis(a, 2)
    m = np.moveaxis(a, 0, -1)
    t = np.tile(b[0], (2, 3))
    rep = np.repeat(b, [1, 2, 0, 3][: len(b)], axis=0)
    v = b[0]
    pads = [np.pad(v, (2, 3), mode=mode) for mode in ("reflect", "symmetric", "wrap", "edge")]
    ramp = np.pad(a[0], ((1, 1), (2, 0)), mode="linear_ramp", end_values=(-1, 5))
    return bmv, tr, r.shape, m, t, rep, pads, ramp


def border_padding(np, img, sig):
    """Image and signal borders in every numpy.pad mode that computes its
    values: linear_ramp to given end values (an integer image, where the
    ramp is floored as numpy's), maximum/minimum/mean/median over the
    stat_length pixels nearest each border (rounded into integers), then a
    3x3 mean filter over the padded image and a detrended signal padded by
    its edge statistics."""
    ramp = np.pad(img, ((3, 2), (1, 4)), mode="linear_ramp", end_values=((0, 255), (7, -3)))
    stats = [np.pad(img, 2, mode=m, stat_length=s)
             for m, s in (("maximum", None), ("minimum", 2), ("mean", ((1, 3), (2, 2))),
                          ("median", 3))]
    p = np.pad(img.astype(np.float32), 1, mode="mean")
    smooth = sum(p[i:i + img.shape[0], j:j + img.shape[1]] for i in range(3) for j in range(3)) / 9
    s = np.pad(sig - sig.mean(), (4, 4), mode="linear_ramp")
    s2 = np.pad(sig, (2, 3), mode="median", stat_length=(3, 5))
    return ramp, stats, smooth, s, s2, np.pad(sig.astype(np.float16), 3, mode="mean")


def test_ndarray_resize_in_place():
    """``a.resize(shape)`` was missing (AttributeError); it keeps the first
    elements in C order and pads with zeros, and a view cannot be resized."""
    for got, want in zip(_resized(lnp), _resized(np), strict=True):
        same(got, want)
    with pytest.raises(ValueError, match="own its data"):
        lnp.arange(6.0)[1:].resize(3)


@pytest.mark.usefixtures('own_runtime')
def test_block_matrices_record_lazily(runtime):
    """``np.block`` (assembling a KKT or saddle-point matrix from blocks)
    ran eagerly; now lazy concatenations with numpy's rank promotion,
    dtypes and a fresh array even for a single block."""
    a, b, d = np.eye(2), np.ones((2, 3)), np.arange(3, dtype=np.int8)
    got = _block_matrices(lnp, lnp.asarray(a), lnp.asarray(b), lnp.asarray(d))
    for g, w in zip(got, _block_matrices(np, a, b, d), strict=True):
        same(g, w)
    lazy = lnp.asarray(a)
    copy = lnp.block(lazy)
    copy[0, 0] = 9.0
    same(lazy, a)
    with pytest.raises(ValueError):
        lnp.block([[lazy, lazy], [lazy]])


@pytest.mark.usefixtures('own_runtime')
def test_block_errors_are_numpys():
    """Tuples, empty lists and unequal nesting raise numpy's own errors."""
    lazy = lnp.eye(2)
    with pytest.raises(TypeError, match="tuple"):
        lnp.block((lazy, lazy))
    with pytest.raises(ValueError, match="depths are mismatched"):
        lnp.block([[lazy], lazy])
    with pytest.raises(ValueError, match="empty"):
        lnp.block([[], [lazy]])


@pytest.mark.usefixtures('own_runtime')
def test_insert_and_delete_record_lazily(runtime):
    """np.insert and np.delete (padding a running sum with a leading 0,
    dropping a column) were eager fallbacks that materialized the array.
    numpy now places element positions on the host (its broadcasting,
    casting and checks) and one gather records the result; the positions
    are device data, so a loop over the position compiles once."""
    for got, want in zip(_inserts_and_deletes(lnp), _inserts_and_deletes(np), strict=True):
        same(got, want)
    x = lnp.asarray(np.arange(10.0))
    misses = runtime.metrics.counters["cache_misses"]
    for i in range(4):
        assert float(lnp.delete(x, i).sum()) == 45.0 - i
        assert float(lnp.insert(x, i, 1.0).sum()) == 46.0
    assert runtime.metrics.counters["cache_misses"] - misses <= 2


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize(("call", "error"), [
    (lambda m: m.insert(m.arange(3), 5, 1), IndexError),
    (lambda m: m.insert(m.arange(3, dtype=m.uint8), 0, 300), OverflowError),
    (lambda m: m.insert(m.arange(3.0), 0, 1j), TypeError),
    (lambda m: m.insert(m.ones((2, 2)), 0, 1, axis=2), np.exceptions.AxisError),
    (lambda m: m.insert(m.ones((3, 4)), 1, [1, 2], axis=0), ValueError),
    (lambda m: m.delete(m.arange(3), 5), IndexError),
    (lambda m: m.delete(m.arange(3), [True, False]), ValueError),
    (lambda m: m.delete(m.arange(3), 1.0), IndexError),
])
def test_insert_and_delete_errors_are_numpys(call, error):
    with pytest.raises(error):
        call(np)
    with pytest.raises(error):
        call(lnp)


@pytest.mark.usefixtures('own_runtime')
def test_resize_records_lazily(runtime):
    """np.resize (tiling a short pattern to a frame's size) was an eager
    fallback; it records numpy's cyclic repetition (zeros for an empty input)."""
    for got, want in zip(_resizes(lnp), _resizes(np), strict=True):
        same(got, want)
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="non-negative"):
            mod.resize(mod.arange(3), (2, -1))


@pytest.mark.usefixtures('own_runtime')
def test_concatenate_of_more_arrays_than_intc_raises_before_reading_them():
    """numpy refuses more than intc-max arrays up front (ValueError); lazy
    concatenate read every one of the 2**31 tuple entries and ran out of
    memory (numpy's _core test_shape_base, test_huge_list_error)."""
    class Huge(tuple):  # the length of a 16 GiB tuple, without the memory
        def __len__(self):
            return np.iinfo(np.intc).max + 1

    with pytest.raises(ValueError, match="only supports up to"):
        lnp.concatenate(Huge([lnp.asarray([1])]))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("call", [
    lambda m: m.concatenate((m.asarray([1.0]), m.asarray([2.0])), out=m.empty(2), dtype="f8"),
    lambda m: m.stack((m.asarray([1.0]), m.asarray([2.0])), out=m.empty((2, 1)), dtype="f8"),
    lambda m: m.concatenate(([1], [1]), dtype="(2,)i"),
])
def test_join_refuses_out_with_dtype_and_subarray_dtypes(call):
    """numpy raises TypeError for out= together with dtype= and for a
    subarray dtype; lazy concatenate/stack ignored the conflict and the
    subarray dtype reached JAX (numpy's _core test_shape_base)."""
    with pytest.raises(TypeError):
        call(np)
    with pytest.raises(TypeError):
        call(lnp)


@pytest.mark.usefixtures('own_runtime')
def test_unstack_of_a_0d_array_is_numpys_value_error():
    """np.unstack(np.array(0)) raises ValueError; lazy unstack raised IndexError."""
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="at least 1-d"):
            mod.unstack(mod.asarray(0))


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
def test_reshape_still_takes_integer_like_shapes():
    for shape in ((np.int64(2), 3), np.array([3, 2]), lnp.asarray([6]), lnp.int32(6), [-1, 2]):
        same(lnp.reshape(lnp.arange(6), shape), np.reshape(np.arange(6), np.asarray(shape)))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
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


def test_pad_dict_width_kwargs_and_layout() -> None:
    h = np.arange(60.0).reshape(3, 4, 5)
    for width in ({-2: (1, 3)}, {0: (5, 2), -1: (3, 4)}, {1: 5}):
        same_exactly(lnp.pad(lnp.asarray(h), width), np.pad(h, width))
    same_error(ValueError, lambda xp: xp.pad(xp.asarray([1, 2, 3]), 1, "edge",
                                             constant_values=0))
    same_error(ValueError, lambda xp: xp.pad(xp.asarray([1, 2, 3]), 1, "constant",
                                             stat_length=1))
    same_error(ValueError, lambda xp: xp.pad(xp.ones((6, 5)), (((3,), (4,), (5,)),
                                                                ((0,), (1,), (2,)))))
    for mode in ("constant", "edge", "reflect", "wrap", "mean"):
        got = lnp.pad(lnp.ones((5, 10), order="F"), 5, mode)
        assert got.flags.f_contiguous and got.strides == np.pad(np.ones((5, 10), order="F"),
                                                                 5, mode).strides


@pytest.mark.parametrize("join", ["concatenate", "stack"])
@pytest.mark.parametrize("shape", [(4,), (2, 2), (1, 4), (4, 1), (5,), (2, 2, 1), (2, 1, 2)])
def test_joins_never_broadcast_into_out(join, shape) -> None:
    def run(xp):
        out = xp.zeros(shape)
        getattr(xp, join)((xp.array([1.0, 2.0]), xp.array([3.0, 4.0])), out=out)
        return out
    same_outcome(run)


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


@pytest.mark.usefixtures('own_runtime')
def test_einsum_ellipsis_rollaxis_tile_repeat_and_pad_modes():
    rng = np.random.default_rng(165)
    check(reshaping_toolkit, rng.normal(size=(4, 3, 3)), rng.normal(size=(4, 3)))


@pytest.mark.usefixtures('own_runtime')
def test_pad_modes_with_ramps_and_statistics():
    rng = np.random.default_rng(167)
    check(border_padding, rng.integers(-50, 200, (7, 9)), rng.normal(size=21).cumsum())
