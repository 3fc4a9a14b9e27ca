"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (seventh batch: ModuleInfo conformance, eager fallbacks lowered, and
user programs), each compared with eager torch on the CPU (values, dtype,
shape; see ``programs.py``)."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .programs import fallbacks, same_on_both, same_outcomes

SPECIAL_X = [0.0, -0.0, -1.0, -2.0, -3.0, -2.5, -9.75, -12.3, 0.25, 0.5, 1.0, 3.7, 40.0,
             1e-3, -1e-3, math.inf, -math.inf, math.nan]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_polygamma_orders_lowered_with_torch_edge_values(dtype):
    x = torch.tensor(SPECIAL_X) if dtype is not torch.int64 else torch.arange(-3, 5)
    x = x.to(dtype)
    before = fallbacks()
    lx = x.to(DEV)
    lazy = [torch.polygamma(1, lx), torch.special.polygamma(2, lx), lx.polygamma(5)]
    for n, got in zip((1, 2, 5), lazy, strict=True):
        eager, got = torch.polygamma(n, x), got.cpu()
        assert got.dtype == eager.dtype and got.shape == eager.shape
        torch.testing.assert_close(got, eager, rtol=1e-5, atol=0, equal_nan=True)
    assert fallbacks() == before


def test_polygamma_grad_and_negative_order():
    def program(dev):
        x = torch.linspace(-4.3, 6.1, 23).to(dev).requires_grad_()
        y = torch.polygamma(2, x) + x.polygamma(1)
        y.sum().backward()
        return [y, x.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)
    same_outcomes(lambda dev: [lambda: torch.polygamma(-1, torch.ones(3, device=dev))])


POLYNOMIALS = [f"{s}chebyshev_polynomial_{k}" for s in ("", "shifted_") for k in "tuvw"] + [
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p"]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_orthogonal_polynomials_lowered_for_number_and_tensor_degrees(name):
    """torch.special.<poly>(x, 3) with a Python degree raised a RuntimeError on
    the lazy device (torch passes the n_scalar overload's wrapped number to
    the Tensor overload, which the eager fallback refused); tensor degrees
    ran eagerly. Now all are the core's recurrence: degrees truncated,
    negative ones 0, int inputs give float32."""
    f = getattr(torch.special, name)
    x = torch.tensor([-9.5, -2.0, -1.0, -0.7, 0.0, 1e-10, 0.3, 0.5, 0.99, 1.0, 1.5, 4.0,
                      math.inf, -math.inf])
    degrees = torch.tensor([-2.0, 0.0, 1.0, 2.9, 3.0, 7.0, 9.0, 12.0, 5.0, 20.0, 4.0, 6.0,
                            2.0, 3.0])
    before = fallbacks()

    def program(dev):
        return [f(x.to(dev), 3), f(x.double().to(dev), 12), f(x.to(dev), degrees.to(dev)),
                f(0.25, degrees.to(dev)), f(torch.arange(-3, 4).to(dev), 2),
                f(x.to(dev), torch.tensor([2, -1, 0, 5]).repeat(4)[:14].to(dev)),
                f(x.to(dev), 0), f(x.to(dev), -1)]

    same_on_both(program, rtol=1e-5, atol=1e-5)
    assert fallbacks() == before


def test_orthogonal_polynomial_huge_degree_falls_back_counted():
    x = torch.linspace(-1, 1, 7)
    before = fallbacks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lazy = torch.special.legendre_polynomial_p(x.to(DEV), 500.0)
    torch.testing.assert_close(lazy.cpu(), torch.special.legendre_polynomial_p(x, 500.0))
    assert fallbacks() == before + 1


def test_fractional_max_pool_lowered_values_indices_grads():
    """F.fractional_max_pool2d/3d (nn.FractionalMaxPool2d/3d) ran as eager
    fallbacks, forward and backward; now the core's per-plane windows give
    torch's values and flat indices (first maximum, a NaN wins), unbatched
    inputs too, and the gradient is the max-pool scatter."""
    x2 = torch.randn(2, 3, 9, 8)
    x2[1, 2, 4, 4] = math.nan
    u2 = torch.rand(2, 3, 2)
    x3, u3 = torch.randn(2, 2, 6, 7, 8), torch.rand(2, 2, 3)
    before = fallbacks()

    def program(dev):
        a = x2.clone().to(dev).requires_grad_()
        b = x3.clone().to(dev).requires_grad_()
        out2, idx2 = F.fractional_max_pool2d(a, (2, 3), output_size=(4, 5), return_indices=True,
                                             _random_samples=u2.to(dev))
        out3, idx3 = F.fractional_max_pool3d(b, (2, 3, 2), output_size=(4, 3, 5),
                                             return_indices=True, _random_samples=u3.to(dev))
        flat = F.fractional_max_pool2d(a[0], 3, output_ratio=(0.5, 0.5),
                                       _random_samples=u2[:1].to(dev))
        weights = torch.arange(out2.numel(), dtype=torch.float32).reshape(out2.shape).to(dev)
        ((out2.nan_to_num() * weights).sum() + out3.sum() + flat.sum()).backward()
        return [out2, idx2, out3, idx3, flat, a.grad, b.grad]

    same_on_both(program)
    assert fallbacks() == before


def test_fractional_max_pool_module_and_errors():
    def program(dev):
        pool = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5), return_indices=True).to(dev)
        out, idx = pool(torch.randn(2, 4, 12, 10, device=dev))
        shapes = [(out.shape, out.dtype, idx.dtype)]
        x = torch.randn(1, 2, 5, 5)
        calls = [
            lambda: F.fractional_max_pool2d(x.to(dev), 3, output_size=4),
            lambda: F.fractional_max_pool2d(x[0, 0].to(dev), 2, output_size=3),
            lambda: F.fractional_max_pool2d(x.to(dev), 2, output_size=3,
                                            _random_samples=torch.rand(1, 2, 2).double().to(dev)),
            lambda: F.fractional_max_pool2d(x.to(dev), 2, output_size=3,
                                            _random_samples=torch.rand(1, 3, 2).to(dev)),
            lambda: F.fractional_max_pool2d(x.to(dev), 2, output_size=3,
                                            _random_samples=torch.rand(0, 2, 2).to(dev)),
            lambda: F.fractional_max_pool3d(x.to(dev), 3, output_size=4),
        ]
        assert shapes == [((2, 4, 6, 5), torch.float32, torch.int64)]
        return calls

    same_outcomes(program)


def test_many_upsampling_backwards_in_one_graph_cut_automatically(fresh_runtime):
    """A graph with many bicubic-upsampling backwards crashed with a JAX
    TypeError (gather of None): the automatic graph cut fired while the
    backward's VJP was being traced on stand-in leaves, which have no value.
    The core now holds automatic cuts during that trace."""
    fresh_runtime.node_limit = 300

    def program(dev):
        x = torch.randn(1, 2, 5, 6).to(dev).requires_grad_()
        outs = [F.interpolate(x * (i + 1), size=(7, 4), mode="bicubic", align_corners=i % 2 == 0)
                for i in range(4)]
        sum(o.sum() for o in outs).backward()
        return [outs[-1], x.grad]

    same_on_both(program, rtol=1e-4, atol=1e-4)
    assert fresh_runtime.metrics.counters["auto_cuts"] >= 1
