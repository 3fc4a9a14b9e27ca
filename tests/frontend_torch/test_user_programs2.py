"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device, each compared with eager torch on the CPU (see ``lazy_vs_eager.py``)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import fallbacks, same_on_both


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


def test_nan_handling_of_sign_and_topk():
    def program(dev):
        x = torch.tensor([[1.0, 0.0, 3.0, -1.0], [2.0, 0.0, 0.0, 5.0]])
        nan = torch.zeros(()) / torch.zeros(())  # 0/0 on the CPU: a negative NaN
        x = torch.where(x == 0, nan, x).to(dev)
        logits = torch.tensor([[0.5, float("nan"), 2.0]]).to(dev)
        return {"signbit": torch.signbit(x), "sign": x.sign(), "sgn": x.half().sgn(),
                "topk": x.topk(2, 1), "top1": logits.topk(1), "bf16": x.bfloat16().topk(3)}

    same_on_both(program)


@pytest.mark.parametrize("call", [
    lambda x, t: F.cross_entropy(x, t.float()),     # float class indices
    lambda x, t: F.nll_loss(x.log_softmax(1), t.float()),
    lambda x, t: x.gather(1, t[:, None].float()),
    lambda x, t: x.scatter(1, t[:, None].float(), 1.0),
])
def test_float_indices_raise_as_in_torch(call):
    x, t = torch.randn(3, 4), torch.tensor([0, 3, 1])
    with pytest.raises(RuntimeError):
        call(x, t)
    with pytest.raises(RuntimeError):
        call(x.to(DEV), t.to(DEV))


def test_inverse_and_matrix_exp_are_lowered_with_their_gradients():
    def program(dev):
        a = (torch.randn(2, 4, 4) + 4 * torch.eye(4)).to(dev).requires_grad_()
        ortho = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3)).to(dev)
        inv, exp = torch.linalg.inv(a), torch.linalg.matrix_exp(a / 4)
        (inv.sum() + exp.pow(2).sum()).backward()
        return {"inv": inv, "exp": exp, "grad": a.grad, "info": torch.linalg.inv_ex(a)[1],
                "gram": ortho.weight @ ortho.weight.T}

    before = fallbacks()
    same_on_both(program, rtol=1e-4, atol=1e-4)
    assert fallbacks() == before
