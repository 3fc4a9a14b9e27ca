"""Array functions of the core that the numpy frontend (and
tf.experimental.numpy's) share: one vander (numpy's repeated multiplication or
tnp's powers), lexsort, fill_diagonal, ndarray.resize's zero fill, numpy's
sliding windows, nanmax/nanmin, n-d FFTs with fitting, reduceat's runs, the
angle and heaviside rules, stop_gradient and the tree walk, against numpy
with no frontend."""

from collections import namedtuple

import numpy as np
import pytest
from core_nodes import check, dev, run
from lazytensor.core import Op, make
from lazytensor.core.autodiff import grad, stop_gradient
from lazytensor.core.composite.elementwise import arithmetic
from lazytensor.core.composite.linalg import matrix as cm
from lazytensor.core.composite.movement import rearrange as cr
from lazytensor.core.composite.reduce import numerics as nm
from lazytensor.core.composite.signal import fft as fourier
from lazytensor.core.composite.sorting import sort as cso
from lazytensor.core.registry import ShapeError
from lazytensor.core.trees import leaves, tree_map

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("by_powers", [False, True])
@pytest.mark.parametrize(("n", "increasing"), [(None, False), (4, True), (0, False)])
def test_vander(n, increasing, by_powers):
    x = np.array([1.5, -2.0, 3.0])
    check(nm.vander(dev(x), n, increasing, by_powers), np.vander(x, n, increasing))


def test_vander_errors():
    with pytest.raises(ShapeError, match="one-dimensional"):
        nm.vander(dev(np.ones((2, 2))))
    with pytest.raises(ShapeError, match="nonnegative"):
        nm.vander(dev(np.ones(2)), -1)


def test_lexsort():
    k1, k2 = RNG.integers(0, 3, (4, 7)), RNG.random((4, 7))
    k2[0, 2] = np.nan
    for keys, axis in (((k1[0], k2[0]), -1), ((k2, k1), 0), ((k2, k1), 1)):
        check(cso.lexsort([dev(k) for k in keys], axis), np.lexsort(keys, axis=axis))
    check(cso.lexsort([dev(np.float64(1.0))]), np.lexsort([np.float64(1.0)]))
    with pytest.raises(ShapeError, match="same shape"):
        cso.lexsort([dev(np.arange(2)), dev(np.arange(3))])


@pytest.mark.parametrize(("shape", "wrap", "value"), [
    ((5, 2), True, 7.0), ((5, 2), False, [1.0, 2.0]), ((2, 5), True, 3.0),
    ((3, 3, 3), False, [1.0, 2.0]), ((6, 3), True, [1.0, 2.0, 3.0, 4.0])])
def test_fill_diagonal(shape, wrap, value):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    got = cm.fill_diagonal(dev(a), dev(value) if isinstance(value, list) else value, wrap)
    np.fill_diagonal(a, value, wrap=wrap)
    check(got, a)
    with pytest.raises(ShapeError, match="at least 2-d"):
        cm.fill_diagonal(dev(np.ones(3)), 1.0)


def test_zero_filled_resize_and_sliding_windows():
    x = np.arange(6.0).reshape(2, 3)
    check(cr.resized(dev(x), 4, repeat=False), x.ravel()[:4])
    check(cr.resized(dev(x), 8, repeat=False), np.concatenate([x.ravel(), [0.0, 0.0]]))
    y = RNG.random((5, 6))
    want = np.lib.stride_tricks.sliding_window_view(y, (2, 3), (0, 1))
    check(fourier.sliding_windows(dev(y), (2, 3), (0, 1)), want)
    want = np.lib.stride_tricks.sliding_window_view(y, (2, 2), (1, 1))
    check(fourier.sliding_windows(dev(y), (2, 2), (1, 1)), want)


def test_nan_extremum():
    a = RNG.random((3, 4))
    a[0, 1] = a[2] = np.nan
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        want_max, want_min = np.nanmax(a, 1), np.nanmin(a, 0, keepdims=True)
    check(nm.nan_extremum("max", dev(a), 1), want_max)
    check(nm.nan_extremum("min", dev(a), 0, True), want_min)
    mask = np.ones((3, 4), bool)
    mask[1, :2] = False
    got = run(nm.nan_extremum("max", dev(a), 1, where=dev(mask), initial=-5.0))
    np.testing.assert_array_equal(got, np.nanmax(a, 1, where=mask, initial=-5.0))  # no NaN
    ints = RNG.integers(0, 9, (3, 4))
    check(nm.nan_extremum("min", dev(ints), None), np.min(ints))


def test_fftn_repeated_axes_and_fitting():
    x = RNG.random((4, 6)) + 1j * RNG.random((4, 6))
    check(fourier.fftn(dev(x), (1, 1), (8, None), True), np.fft.fftn(x, (8, 6), (1, 1)),
          rtol=1e-9)
    check(fourier.rfftn(dev(x.real), (0, 1), (None, 5)), np.fft.rfftn(x.real, (4, 5), (0, 1)),
          rtol=1e-9)
    check(fourier.rfftn(dev(x.real), (1, 1), (None, None)),
          np.fft.rfftn(x.real, axes=(1, 1)), rtol=1e-9)
    check(fourier.irfftn(dev(x), (0, 1), (3, None), "n"), np.fft.irfftn(x, (3, 10), (0, 1)),
          rtol=1e-9)


def test_reduce_runs():
    x = RNG.random((4, 6))
    check(nm.reduce_runs("sum", dev(x), [0, 2, 1, 5], 1), np.add.reduceat(x, [0, 2, 1, 5], 1))
    check(nm.reduce_runs("max", dev(x), [3, 0], 0), np.maximum.reduceat(x, [3, 0], 0))
    assert run(nm.reduce_runs("sum", dev(x), [], 0)).shape == (0, 6)


def test_angle_and_heaviside_rules():
    x = np.array([-1.0, -0.0, 0.0, 2.0, np.nan])
    check(arithmetic.angle(dev(x), deg=True), np.angle(x, deg=True))
    check(arithmetic.angle(dev(x), by_sign=True), [np.pi, 0.0, 0.0, 0.0, np.nan])
    check(arithmetic.angle(dev(x), by_sign=True, keep_nan=False), [np.pi, 0.0, 0.0, 0.0, 0.0])
    z = np.array([1j, -1.0 + 0j])
    check(arithmetic.angle(dev(z), by_sign=True), np.angle(z))
    h0 = dev(np.full(5, 0.5))
    check(arithmetic.heaviside(dev(x), h0), np.heaviside(x, 0.5))
    check(arithmetic.heaviside(dev(x), h0, keep_nan=False), [0.0, 0.5, 0.5, 1.0, 0.5])


def test_stop_gradient_cuts_the_path():
    x = dev(np.array([1.0, 2.0]))
    y = make(Op.MUL, (x, x))
    loss = make(Op.REDUCE_SUM, (make(Op.MUL, (stop_gradient(y), x)),), (0,))
    (g,) = grad(loss, [x])
    check(g, [1.0, 4.0])  # d/dx (c * x) with c = x * x held constant
    check(stop_gradient(y), [1.0, 4.0])
    assert stop_gradient(x) is x


def test_trees():
    Pair = namedtuple("Pair", "a b")
    tree = {"p": Pair(1, [2, (3,)]), "q": 4}
    out = tree_map(lambda v: v + 1, tree)
    assert out == {"p": Pair(2, [3, (4,)]), "q": 5} and type(out["p"]) is Pair
    assert list(leaves(tree)) == [1, 2, 3, 4]
