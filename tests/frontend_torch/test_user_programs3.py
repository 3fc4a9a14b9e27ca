"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (third batch), each compared with eager torch on the CPU (values,
dtype, shape; see ``programs.py``)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .programs import fallbacks, same_on_both


@pytest.mark.parametrize("mode,padding_mode", [("bilinear", "zeros"), ("bilinear", "reflection"),
                                               ("bicubic", "border"), ("nearest", "zeros")])
def test_spatial_transformer_trains_without_grid_sampler_fallback(mode, padding_mode):
    """grid_sampler_2d_backward ran eagerly on the CPU (a fallback per step)."""
    def program(dev):
        loc = nn.Linear(3 * 5 * 7, 6).to(dev)
        opt = torch.optim.SGD(loc.parameters(), lr=0.1)
        x = torch.randn(2, 3, 5, 7).to(dev).requires_grad_()
        for _ in range(2):
            opt.zero_grad()
            theta = loc(x.flatten(1)).view(2, 2, 3) + torch.eye(2, 3).to(dev)
            grid = F.affine_grid(theta, (2, 3, 4, 6), align_corners=False)
            y = F.grid_sample(x, grid * 1.2, mode=mode, padding_mode=padding_mode,
                              align_corners=False)
            y.pow(2).mean().backward()
            opt.step()
        return {"y": y, "x_grad": x.grad, "w": loc.weight, "b_grad": loc.bias.grad}

    before = fallbacks()
    # the reflection of the decomposition rounds differently from torch's
    # kernel (~1e-6), which one SGD step grows
    same_on_both(program, rtol=1e-3, atol=1e-4)
    assert fallbacks() == before


def test_masked_scatter_fills_selected_slots_in_order_and_back_propagates():
    """masked_scatter (and its backward) ran through the eager CPU fallback."""
    def program(dev):
        x = torch.randn(4, 5).to(dev).requires_grad_()
        src = torch.randn(3, 7).to(dev).requires_grad_()
        mask = (torch.randn(4, 5) > 0).to(dev)
        y = x.masked_scatter(mask, src)
        row = torch.zeros(4, 5, device=dev).masked_scatter(mask[0], src)  # mask broadcast
        z = x.detach().clone()
        z[1:].masked_scatter_(mask[1:], src.detach() * 2)  # in place, through a view
        ints = torch.zeros(2, 4, 5, dtype=torch.long, device=dev).masked_scatter(
            mask, torch.arange(40).to(dev))
        (y * torch.arange(20.0).reshape(4, 5).to(dev)).sum().backward()
        (row.sum() * 3).backward()
        return {"y": y, "row": row, "z": z, "ints": ints, "x_grad": x.grad, "src_grad": src.grad}

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before


@pytest.mark.parametrize("mask,source", [
    (torch.ones(2, 3), torch.ones(6)),                                     # not bool
    (torch.ones(2, 3, dtype=torch.bool), torch.ones(6, dtype=torch.float64)),  # dtype
])
def test_masked_scatter_rejects_what_torch_rejects(mask, source):
    from .conftest import DEV

    for dev in (torch.device("cpu"), DEV):
        with pytest.raises(RuntimeError, match="masked_scatter"):
            torch.zeros(2, 3).to(dev).masked_scatter(mask.to(dev), source.to(dev))
