"""A fixed subset of PyTorch's ModuleInfo database through
``ci/torch_moduleinfo.py``: forward, backward (parameter and input
gradients) and buffers agree with eager for every module input (the full
run is ``make moduleinfo``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from torch.testing._internal.common_modules import module_db

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ci"))
import torch_moduleinfo  # noqa: E402

LOWERED = ["nn.Linear", "nn.Conv2d", "nn.BatchNorm2d", "nn.LayerNorm", "nn.GRUCell",
           "nn.Embedding", "nn.CrossEntropyLoss", "nn.KLDivLoss", "nn.GaussianNLLLoss",
           "nn.AdaptiveMaxPool1d", "nn.AdaptiveMaxPool2d", "nn.AdaptiveMaxPool3d", "nn.Bilinear",
           "nn.Hardshrink", "nn.Softshrink", "nn.MultiMarginLoss", "nn.MultiLabelMarginLoss"]


def _result(name: str):
    info = next(m for m in module_db if m.name == name)
    return torch_moduleinfo.run_module(info, max_samples=6)


@pytest.mark.parametrize("name", LOWERED)
def test_module_lowered(name):
    result = _result(name)
    assert result.samples > 0
    assert result.correct == result.samples, result.failures
    assert not result.fallback_ops, result.fallback_ops


def test_multilabel_margin_loss_skips_slots_after_the_end_marker():
    """Labels after a target's first -1 are not scored, and a 1-d input
    gives a 0-d loss (torch's decomposition got both wrong; the loss is
    lowered on the core's multilabel_margin_loss)."""
    import lazytensor.torch as lt

    torch.manual_seed(1)
    x, y = torch.randn(5), torch.tensor([3, 0, -1, 1, -1])
    expected = torch.nn.functional.multilabel_margin_loss(x, y, reduction="none")
    actual = torch.nn.functional.multilabel_margin_loss(x.to(lt.device()), y.to(lt.device()),
                                                        reduction="none").cpu()
    assert actual.shape == expected.shape == ()
    torch.testing.assert_close(actual, expected)


def test_cross_entropy_gradient_is_zero_when_every_target_is_ignored():
    """The mean over no targets is NaN, its gradient 0 (torch's kernel);
    the lazy gradient was NaN (0 weight divided by a 0 total)."""
    import lazytensor.torch as lt

    x = torch.randn(2, 3, requires_grad=True)
    target = torch.tensor([1, 1])
    loss = torch.nn.CrossEntropyLoss(ignore_index=1)
    loss(x, target).backward()
    lazy_x = x.detach().to(lt.device()).requires_grad_()
    lazy_loss = loss(lazy_x, target.to(lt.device()))
    lazy_loss.backward()
    assert torch.isnan(lazy_loss.cpu())
    torch.testing.assert_close(lazy_x.grad.cpu(), x.grad)
    assert not torch.isnan(x.grad).any()
