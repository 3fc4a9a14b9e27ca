"""Sorting, searching and scan composites against numpy: stable order with
NaN last, searchsorted sides, top-k, cumulative ops, diff and clip."""

import numpy as np
import pytest
from lazytensor.core import Handle, Op, make
from lazytensor.core.composite.sorting import sort as so
from lazytensor.core.runtime import get_runtime

RNG = np.random.default_rng(2)


def dev(a, dtype=None):
    return get_runtime().from_host(np.asarray(a, dtype=dtype)).node


def run(*nodes):
    handles = [Handle(make(Op.CONVERT, (n,), n.dtype) if n.is_leaf else n) for n in nodes]
    return [h.numpy() for h in handles]


def check(pairs, rtol=0.0):
    labels, nodes, wants = zip(*pairs, strict=False)
    for label, got, want in zip(labels, run(*nodes), wants, strict=False):
        want = np.asarray(want)
        assert got.shape == want.shape, (label, got.shape, want.shape)
        assert got.dtype == want.dtype, (label, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=label)


F = np.array([[3.0, np.nan, 1.0, -0.0, 0.0, 2.0, np.nan, -1.0],
              [1.0, 1.0, -np.inf, np.inf, 5.0, 1.0, 0.0, -2.0]])
I = RNG.integers(-5, 5, (3, 7)).astype(np.int32)


@pytest.mark.parametrize("a", [F, F.astype(np.float32), I, I.astype(np.uint8), I > 0],
                         ids=["f64", "f32", "i32", "u8", "bool"])
def test_sort_argsort_partition(a):
    x = dev(a)
    pairs = [(f"sort {axis}", so.sort(x, axis), np.sort(a, axis)) for axis in (-1, 0, None)]
    pairs += [(f"argsort {axis}", so.argsort(x, axis), np.argsort(a, axis, kind="stable"))
              for axis in (-1, 0, None)]
    pairs += [("partition", so.partition(x, 2), np.sort(a, -1)),
              ("argpartition", so.argpartition(x, (0, 1), 0), np.argsort(a, 0, kind="stable")),
              ("sort 0-size", so.sort(dev(a[:, :0])), np.sort(a[:, :0]))]
    check(pairs)


def test_top_k_and_searchsorted():
    x = dev(F)
    ints = dev(I)
    sorted_f = np.sort(F[0])
    probes = np.array([[np.nan, 0.0, 2.5], [-5.0, 3.0, -0.0]])
    sorter = np.argsort(F[1], kind="stable")
    pairs = [
        ("top_k values", so.top_k(ints, 3)[0], -np.sort(-I, -1)[:, :3]),
        ("top_k axis 0", so.top_k(ints, 2, axis=0)[0], -np.sort(-I, 0)[:2]),
        ("bottom_k values", so.top_k(x, 4, largest=False)[0], np.sort(F, -1)[:, :4]),
        ("bottom_k indices", so.top_k(x, 4, largest=False)[1],
         np.argsort(F, -1, kind="stable")[:, :4]),
        ("top_k 0", so.top_k(ints, 0)[0], I[:, :0]),
    ]
    for side in ("left", "right"):
        pairs += [
            (f"searchsorted {side}", so.searchsorted(dev(sorted_f), dev(probes), side),
             np.searchsorted(sorted_f, probes, side)),
            (f"searchsorted int {side}", so.searchsorted(dev(np.sort(I[0])), dev(I), side),
             np.searchsorted(np.sort(I[0]), I, side)),
            (f"searchsorted sorter {side}",
             so.searchsorted(dev(F[1]), dev(probes), side, sorter=dev(sorter)),
             np.searchsorted(F[1], probes, side, sorter=sorter)),
            (f"searchsorted empty {side}", so.searchsorted(dev(sorted_f[:0]), dev(probes), side),
             np.searchsorted(sorted_f[:0], probes, side)),
            (f"searchsorted 0-d {side}", so.searchsorted(dev(sorted_f), dev(np.float64(1.0)), side),
             np.searchsorted(sorted_f, 1.0, side)),
        ]
    for n in (1, 2, 3, 5, 8, 33):  # every search depth
        a = np.sort(RNG.integers(0, 6, n))
        v = np.arange(-1, 8)
        pairs += [(f"searchsorted n={n} {side}", so.searchsorted(dev(a), dev(v), side),
                   np.searchsorted(a, v, side)) for side in ("left", "right")]
    check(pairs)


def test_scans_diff_clip():
    f, i = dev(F), dev(I)
    small = dev(I.astype(np.int8))
    b = dev(I > 0)
    i64 = np.dtype("int64")
    pairs = [
        ("cumsum", so.cumsum(f, 1), np.cumsum(F, 1)),
        ("cumsum none", so.cumsum(i, None, i64), np.cumsum(I)),
        ("cumsum int8->int64", so.cumsum(small, 0, i64), np.cumsum(I.astype(np.int8), 0)),
        ("cumsum bool", so.cumsum(b, 1, i64), np.cumsum(I > 0, 1)),
        ("cumprod", so.cumprod(i, -1, i64), np.cumprod(I, -1)),
        ("cummax", so.cummax(f, 1), np.maximum.accumulate(F, 1)),
        ("cummin", so.cummin(i, 0), np.minimum.accumulate(I, 0)),
        ("cumsum 0-d", so.cumsum(dev(np.float32(2.0))), np.cumsum(np.float32(2.0))),
        ("diff", so.diff(f), np.diff(F)), ("diff 2 axis 0", so.diff(i, 2, 0), np.diff(I, 2, 0)),
        ("diff 3", so.diff(i, 3), np.diff(I, 3)), ("diff 0", so.diff(i, 0), np.diff(I, 0)),
        ("diff big n", so.diff(i, 9), np.diff(I, 9)), ("diff bool", so.diff(b), np.diff(I > 0)),
        ("diff prepend", so.diff(i, 1, prepend=0, append=dev(I[:, :2])),
         np.diff(I, 1, prepend=np.int32(0), append=I[:, :2])),
        ("clip", so.clip(f, -0.5, 2.0), np.clip(F, -0.5, 2.0)),
        ("clip lo only", so.clip(i, 0), np.clip(I, 0, None)),
        ("clip nodes", so.clip(i, dev(np.int32(-1)), dev(np.arange(7, dtype=np.int32))),
         np.clip(I, np.int32(-1), np.arange(7, dtype=np.int32))),
        ("clip crossed", so.clip(i, 3, 1), np.clip(I, 3, 1)),
        ("clip promoted", so.clip(i, 0.5, 2.5, np.dtype("float64")), np.clip(I, 0.5, 2.5)),
    ]
    check(pairs)


def test_errors():
    with pytest.raises(IndexError, match="axis -1 is out of bounds for array of dimension 0"):
        so.sort(dev(np.float32(1.0)))
    with pytest.raises(ValueError, match=r"kth\(=8\) out of bounds \(8\)"):
        so.partition(dev(F), 8)
    with pytest.raises(ValueError, match="order must be non-negative"):
        so.diff(dev(F), -1)
    with pytest.raises(ValueError, match="at least one dimensional"):
        so.diff(dev(np.float32(1.0)))
