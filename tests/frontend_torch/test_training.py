"""Unchanged PyTorch training loops, eagerly and lazily from the same seed and
weights: the losses and the final weights agree within float32 tolerance,
and after the second step nothing compiles again."""

from __future__ import annotations

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from lazytensor.core import get_runtime
from torch import nn

from .conftest import DEV

STEPS = 6


def digits():
    from sklearn.datasets import load_digits

    data = load_digits()
    x = torch.tensor(data.data, dtype=torch.float32) / 16.0
    return x, torch.tensor(data.target)


def mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def transformer() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 32),
                         nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True))


def train(model: nn.Module, device, batches, loss_fn, make_opt):
    """An ordinary training loop; returns losses, weights and the compile
    count after each step."""
    model.to(device)
    opt = make_opt(model.parameters())
    losses, misses = [], []
    for x, y in batches:
        x, y = x.to(device), y.to(device)
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if device == DEV:
            lt.mark_step()
            misses.append(get_runtime().metrics.counters["cache_misses"])
        losses.append(loss.item())
    return losses, {k: v.detach().cpu() for k, v in model.state_dict().items()}, misses


def check(eager, lazy, skip=lambda name: None) -> None:
    (e_loss, e_weights, _), (l_loss, l_weights, misses) = eager, lazy
    torch.testing.assert_close(torch.tensor(l_loss), torch.tensor(e_loss), rtol=1e-5, atol=1e-5)
    for name, value in e_weights.items():
        got, want = l_weights[name], value
        cut = skip(name)
        if cut is not None:
            got, want = got[cut], want[cut]
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=name)
    assert misses[1] == misses[-1], f"compiled again after step 2: {misses}"


OPTIMIZERS = {
    "sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    "adam": lambda p: torch.optim.Adam(p, lr=1e-3),
}


@pytest.mark.parametrize("opt", OPTIMIZERS)
def test_digits_mlp_parity(opt):
    x, y = digits()
    batches = [(x[i * 64:(i + 1) * 64], y[i * 64:(i + 1) * 64]) for i in range(STEPS)]
    eager = train(mlp(), "cpu", batches, F.cross_entropy, OPTIMIZERS[opt])
    lazy = train(mlp(), DEV, batches, F.cross_entropy, OPTIMIZERS[opt])
    check(eager, lazy)
    assert get_runtime().metrics.counters["eager_fallbacks"] == 0


def test_transformer_parity_adamw():
    g = torch.Generator().manual_seed(1)
    batches = [(torch.randn(4, 5, 8, generator=g), torch.randn(4, 5, 32, generator=g))
               for _ in range(STEPS)]

    def make_opt(params):
        return torch.optim.AdamW(params, lr=1e-3)

    eager = train(transformer(), "cpu", batches, F.mse_loss, make_opt)
    lazy = train(transformer(), DEV, batches, F.mse_loss, make_opt)

    def skip(name):
        # the key projection's bias has a zero gradient (softmax ignores a
        # constant shift); Adam turns its rounding noise into +-lr steps
        return slice(0, 32) if name.endswith("in_proj_bias") else None

    check(eager, lazy, skip)
    assert get_runtime().metrics.counters["eager_fallbacks"] == 0


def cnn() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 6, 3), nn.GELU(), nn.AvgPool2d(2, ceil_mode=True), nn.Flatten(),
        nn.Dropout(0.0), nn.LayerNorm(6), nn.Linear(6, 10),
    )


def test_digits_cnn_parity_with_batch_norm_statistics():
    x, y = digits()
    images = x.reshape(-1, 1, 8, 8)
    batches = [(images[i * 32:(i + 1) * 32], y[i * 32:(i + 1) * 32]) for i in range(STEPS)]

    def make_opt(params):
        return torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-4)

    eager = train(cnn(), "cpu", batches, F.cross_entropy, make_opt)
    lazy = train(cnn(), DEV, batches, F.cross_entropy, make_opt)
    check(eager, lazy)  # state_dict: running_mean, running_var, num_batches_tracked too
    assert get_runtime().metrics.counters["eager_fallbacks"] == 0


def test_training_without_mark_step_cuts_graphs_and_stays_correct():
    from lazytensor.core import Runtime, use_runtime

    x, y = digits()
    batches = [(x[i * 64:(i + 1) * 64], y[i * 64:(i + 1) * 64]) for i in range(STEPS)]
    eager = train(mlp(), "cpu", batches, F.cross_entropy, OPTIMIZERS["sgd_momentum"])
    with use_runtime(Runtime(node_limit=300)) as runtime:
        model = mlp().to(DEV)
        opt = OPTIMIZERS["sgd_momentum"](model.parameters())
        losses = []
        for xb, yb in batches:  # no mark_step, no observation until the end
            opt.zero_grad()
            loss = F.cross_entropy(model(xb.to(DEV)), yb.to(DEV))
            loss.backward()
            opt.step()
            losses.append(loss)
        got = [v.item() for v in losses]
        assert runtime.metrics.counters["auto_cuts"] > 0
    torch.testing.assert_close(torch.tensor(got), torch.tensor(eager[0]), rtol=1e-5, atol=1e-5)
    for name, value in model.state_dict().items():
        torch.testing.assert_close(value.cpu(), eager[1][name], rtol=1e-4, atol=1e-5)


def test_optimizers_use_their_foreach_implementation():
    from torch.optim.optimizer import _default_to_fused_or_foreach

    params = list(nn.Linear(2, 2).to(DEV).parameters())
    assert _default_to_fused_or_foreach(params, differentiable=False) == (False, True)
