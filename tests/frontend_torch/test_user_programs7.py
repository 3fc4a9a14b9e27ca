"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (seventh batch: ModuleInfo conformance, eager fallbacks lowered, and
user programs), each compared with eager torch on the CPU (values, dtype,
shape; see ``programs.py``)."""

from __future__ import annotations

import math

import pytest
import torch

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
