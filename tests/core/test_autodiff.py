"""Core automatic differentiation (lazytensor.core.autodiff) against jax.grad."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from lazytensor.core import DTypeError, Handle, Op, ShapeError, make, use_runtime
from lazytensor.core.autodiff import grad, value_and_grad
from lazytensor.core.composite.elementwise.apply import as_node, broadcast_to
from lazytensor.core.composite.linalg import matmul as linalg
from lazytensor.core.composite.reduce import reduction
from lazytensor.core.runtime import get_runtime

RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def fresh_runtime():
    with use_runtime() as runtime:
        yield runtime


def leaf(value) -> object:
    return get_runtime().from_host(np.asarray(value)).node


def run(*nodes):
    handles = [Handle(n) for n in nodes]
    return [np.asarray(h.value()) for h in handles]


def mlp_loss(x, w, b):
    """sum(log_softmax(tanh(x @ w + b))) written in core composites."""
    h = make(Op.ADD, (linalg.matmul(x, w), broadcast_to(b, (x.shape[0], w.shape[1]))))
    return reduction.reduce("sum", reduction.log_softmax(make(Op.TANH, (h,)), -1))


def mlp_loss_jax(x, w, b):
    return jnp.sum(jax.nn.log_softmax(jnp.tanh(x @ w + b), -1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mlp_gradients_match_jax(dtype):
    xv, wv, bv = (RNG.standard_normal(s).astype(dtype) for s in ((5, 4), (4, 3), (3,)))
    x, w, b = leaf(xv), leaf(wv), leaf(bv)
    gw, gb, gx = grad(mlp_loss(x, w, b), [w, b, x])
    assert (gw.shape, gw.dtype, gb.shape, gx.shape) == ((4, 3), np.dtype(dtype), (3,), (5, 4))
    got = run(gw, gb, gx)
    want = jax.grad(mlp_loss_jax, (1, 2, 0))(xv, wv, bv)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for g, r in zip(got, want, strict=False):
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol)


def test_recording_is_lazy_and_cached_across_steps():
    runtime = get_runtime()
    for step in range(3):
        xv = RNG.standard_normal((5, 4)).astype(np.float32)
        x, w, b = leaf(xv), leaf(np.ones((4, 3), np.float32)), leaf(np.zeros(3, np.float32))
        (gw,) = grad(mlp_loss(x, w, b), [w])
        assert runtime.metrics.counters["graphs_executed"] == step  # nothing ran yet
        run(gw)
    assert runtime.metrics.counters["cache_misses"] == 1
    assert runtime.metrics.counters["cache_hits"] == 2


def test_scalar_parameters_are_operands_not_structure():
    runtime = get_runtime()
    x = leaf(np.arange(3.0, dtype=np.float32))
    for scale in (2.0, 3.0):
        y = reduction.reduce("sum", make(Op.MUL, (x, as_node(scale, np.dtype(np.float32),
                                                               (3,)))))
        (g,) = run(*grad(y, [x]))
        np.testing.assert_allclose(g, np.full(3, scale))
    assert runtime.metrics.counters["cache_misses"] == 1


def test_dependent_wrt_gets_adjoint_and_total_derivative():
    x = leaf(np.array([0.5, -1.0], np.float32))
    h = make(Op.SIN, (x,))
    y = reduction.reduce("sum", make(Op.MUL, (h, h)))
    gx, gh = run(*grad(y, [x, h]))
    xv = np.array([0.5, -1.0], np.float32)
    np.testing.assert_allclose(gh, 2 * np.sin(xv), rtol=1e-6)
    np.testing.assert_allclose(gx, 2 * np.sin(xv) * np.cos(xv), rtol=1e-6)


def test_second_order():
    x = leaf(np.array([0.3, 1.2], np.float64))
    y = reduction.reduce("sum", make(Op.EXP, (make(Op.MUL, (x, x)),)))
    (g,) = grad(y, [x])
    (gg,) = grad(reduction.reduce("sum", g), [x])
    xv = np.array([0.3, 1.2])
    want = jax.grad(lambda v: jnp.sum(jax.grad(lambda u: jnp.sum(jnp.exp(u * u)))(v)))(xv)
    np.testing.assert_allclose(run(gg)[0], want, rtol=1e-12)


def test_cotangent_and_non_scalar_output():
    x = leaf(np.array([1.0, 2.0, 3.0], np.float32))
    y = make(Op.MUL, (x, x))
    (g_ones,) = run(*grad(y, [x]))
    np.testing.assert_allclose(g_ones, [2.0, 4.0, 6.0])
    ct = leaf(np.array([1.0, 0.0, -1.0], np.float32))
    (g,) = run(*grad(y, [x], cotangent=ct))
    np.testing.assert_allclose(g, [2.0, 0.0, -6.0])
    with pytest.raises(DTypeError):
        grad(y, [x], cotangent=leaf(np.ones(2, np.float32)))


def test_gradient_of_a_leaf_itself_and_unconnected():
    x = leaf(np.ones((2, 2), np.float32))
    z = leaf(np.ones(3, np.float32))
    gx, gz = grad(x, [x, z])
    assert gz.shape == (3,)
    np.testing.assert_allclose(run(gx, gz)[0], np.ones((2, 2)))
    np.testing.assert_allclose(run(gz)[0], np.zeros(3))
    assert grad(x, [z], unconnected="none") == [None]


def test_integer_inputs_are_errors():
    xi = leaf(np.arange(3, dtype=np.int32))
    xf = leaf(np.ones(3, np.float32))
    y = reduction.reduce("sum", make(Op.ADD, (make(Op.CONVERT, (xi,), np.dtype(np.float32)), xf)))
    with pytest.raises(DTypeError, match="int32"):
        grad(y, [xi])
    with pytest.raises(DTypeError):
        grad(reduction.reduce("sum", xi), [xf])


def test_non_differentiable_paths_and_multi_output_ops():
    """Sort/top-k/argmax inside the region: JAX's rules apply."""
    xv = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], np.float32)
    x = leaf(xv)
    top = make(Op.TUPLE_GET, (make(Op.TOP_K, (x,), 2),), 0)
    srt = make(Op.SORT, (x,), 1, False, True)
    y = make(Op.ADD, (reduction.reduce("sum", top), reduction.reduce(
        "sum", make(Op.MUL, (srt, srt)))))
    (g,) = run(*grad(y, [x]))
    want = jax.grad(lambda v: jnp.sum(jax.lax.top_k(v, 2)[0]) + jnp.sum(jnp.sort(v, 1) ** 2))(xv)
    np.testing.assert_allclose(g, want, rtol=1e-6)


def test_value_and_grad_needs_scalar():
    x = leaf(np.ones(3, np.float32))
    value, (g,) = value_and_grad(reduction.reduce("sum", x), [x])
    assert value.shape == () and g.shape == (3,)
    with pytest.raises(ShapeError):
        value_and_grad(x, [x])
