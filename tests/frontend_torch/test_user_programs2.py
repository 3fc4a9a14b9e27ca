"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device, each compared with eager torch on the CPU (see ``programs.py``)."""

from __future__ import annotations

import torch
from torch import nn

from .programs import same_on_both


def test_views_in_inference_mode_follow_their_base():
    def program(dev):
        emb = nn.Embedding(10, 4).to(dev)
        pos = nn.Parameter(torch.randn(6, 4).to(dev))
        idx = torch.tensor([[1, 2, 3]]).to(dev)
        with torch.inference_mode():
            out = emb(idx) + pos[:3]
            made = torch.ones(3, 4).to(dev)
            kinds = [t.is_inference() for t in (pos[:3], pos.t(), pos.detach(), out, made[:1])]
        kinds += [made[:1].is_inference(), made.t().is_inference()]
        return {"out": out, "kinds": kinds, "sum": made.t().sum()}

    same_on_both(program)
