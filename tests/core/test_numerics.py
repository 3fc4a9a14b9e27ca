"""Core numerical composites (``composite.reduce.numerics``, ``composite.linalg.lstsq``)
against numpy, with no frontend (no torch, tensorflow or lazytensor.numpy)."""

import numpy as np
import pytest
from core_nodes import check as shared_check
from core_nodes import dev, run
from lazytensor.core.composite.linalg import lstsq as ls
from lazytensor.core.composite.reduce import numerics as nm
from lazytensor.core.registry import ShapeError

RNG = np.random.default_rng(3)


def check(node, want, rtol=1e-10):
    shared_check(node, want, rtol)


F = RNG.random((5, 6))
COORDS = np.cumsum(RNG.random(6) + 0.1)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_uniform_and_coordinates(edge_order):
    got = nm.gradient(dev(F), [0.5, dev(COORDS)], [0, 1], edge_order)
    want = np.gradient(F, 0.5, COORDS, edge_order=edge_order)
    for g, w in zip(got, want, strict=True):
        check(g, w)


def test_gradient_errors():
    with pytest.raises(ShapeError):
        nm.gradient(dev(np.ones(2)), [1.0], [0], 2)
    with pytest.raises(ShapeError):
        nm.gradient(dev(np.ones(5)), [1.0], [0], 3)


@pytest.mark.parametrize("bins", [[0.0, 1.0, 2.5], [2.5, 1.0, 0.0]])
@pytest.mark.parametrize("right", [False, True])
def test_digitize(bins, right):
    x = RNG.random(20) * 3
    check(nm.digitize(dev(x), dev(bins), right), np.digitize(x, bins, right))


def test_histogram_uniform_and_given_edges():
    x = RNG.random(50) * 4
    lo, hi = nm.histogram_range(dev(x), x.dtype)
    edges = nm.equal_edges(lo, hi, 6)
    counts, want_edges = np.histogram(x, 6)
    check(edges, want_edges)
    check(nm.histogram(dev(x), edges, uniform=True), counts)
    w = RNG.random(50)
    check(nm.histogram(dev(x), dev([0.0, 1.0, 3.0]), dev(w)),
          np.histogram(x, [0.0, 1.0, 3.0], weights=w)[0])


def test_nan_argreduce_and_index_conversion():
    a = RNG.random((3, 4))
    a[1, 1] = np.nan
    check(nm.nan_argreduce("argmax", dev(a), 1), np.nanargmax(a, 1))
    check(nm.nan_argreduce("argmin", dev(a), None), np.nanargmin(a))
    a[2] = np.nan
    assert run(nm.nan_argreduce("argmax", dev(a), 1))[2] == -1
    idx = np.array([0, 5, 11])
    for got, want in zip(nm.unravel_index(dev(idx), (3, 4), "F"),
                         np.unravel_index(idx, (3, 4), order="F"), strict=True):
        check(got, want)
    coords = [dev([1, 4]), dev([3, -1])]
    check(nm.ravel_multi_index(coords, (3, 4), ("wrap", "clip")),
          np.ravel_multi_index(([1, 4], [3, -1]), (3, 4), mode=("wrap", "clip")))


def test_polyval_and_vander():
    p, x = np.array([2.0, -1.0, 0.5]), RNG.random(5)
    check(nm.polyval(dev(p), dev(x)), np.polyval(p, x))
    check(nm.vander(dev(x), 4), np.vander(x, 4))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_pinv_rank_cond(shape):
    a = RNG.standard_normal(shape)
    check(ls.pinv(dev(a)), np.linalg.pinv(a), 1e-8)
    check(ls.matrix_rank(dev(a)), np.linalg.matrix_rank(a))
    check(ls.cond(dev(a)), np.linalg.cond(a), 1e-8)


def test_lstsq_and_polyfit():
    a, b = RNG.standard_normal((6, 3)), RNG.standard_normal((6, 2))
    fit = ls.lstsq(dev(a), dev(b), 1e-12)
    x, resid, rank, s = np.linalg.lstsq(a, b, rcond=1e-12)
    check(fit.x, x, 1e-8)
    check(fit.residuals, resid, 1e-8)
    check(fit.s, s, 1e-8)
    assert int(run(fit.rank)) == rank
    xs = np.linspace(0, 2, 7)
    ys = xs ** 2 + RNG.random(7)
    check(ls.polyfit(dev(xs), dev(ys), 2, 7 * np.finfo(float).eps).x, np.polyfit(xs, ys, 2), 1e-8)
