"""The lazy device: tensors and modules moved to and from it, CPU scalars mixed
in, lazy modules initialised on it, and models left on the CPU raising at
their forward. Each check compares with eager torch on the CPU (values,
dtypes, shapes, or the exception type and text)."""


from __future__ import annotations

import copy
import io
import pickle

import lazytensor.torch as lt
import numpy as np
import pytest
import torch
from lazytensor.core import get_runtime
from torch import nn

from .conftest import DEV, assert_same
from .lazy_vs_eager import fallbacks, same_on_both


def test_a_model_left_on_the_cpu_raises_at_its_forward_as_on_cuda():
    """Forgetting model.to(dev): torch raises its same-device error at the
    first layer (as for CUDA inputs), not a confusing error at opt.step."""
    def calls(dev):
        x, img = torch.randn(8, 4).to(dev), torch.randn(1, 1, 5, 5).to(dev)
        return [lambda: nn.Linear(4, 2)(x), lambda: nn.Conv2d(1, 2, 3)(img),
                lambda: x @ torch.randn(4, 3), lambda: torch.bmm(x[None], torch.randn(1, 4, 2)),
                lambda: torch.addmm(torch.zeros(3), x, torch.randn(4, 3).to(dev)),
                lambda: x @ torch.randn(4, 3).to(dev) * torch.tensor(2.0)]

    for call in calls(DEV)[:5]:
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            call()
    same_on_both(lambda dev: calls(dev)[5]())   # a CPU 0-d tensor is still a scalar


def test_lazy_modules_moved_to_the_lazy_device_initialize_at_the_first_forward():
    """nn.LazyLinear / LazyConv2d / LazyBatchNorm2d moved with .to(lazy) failed
    at the first forward ("in_features from self.weight: 0"): torch rewrapped
    the moved UninitializedParameter as an empty Parameter. They now stay
    uninitialized, initialize from torch's CPU generator as eager ones do,
    and move to the lazy device before the forward."""
    from .conftest import DEV

    def make():
        return torch.nn.Sequential(
            torch.nn.LazyConv2d(4, 3), torch.nn.LazyBatchNorm2d(), torch.nn.ReLU(),
            torch.nn.Flatten(), torch.nn.LazyLinear(2)).double()

    x = torch.randn(2, 3, 6, 6, dtype=torch.float64)
    eager, lazy = make(), make().to(DEV)
    assert [type(p) for p in lazy.parameters()] == [torch.nn.UninitializedParameter] * 6
    outs = []
    for model, inp in ((eager, x), (lazy, x.to(DEV))):
        torch.manual_seed(0)  # the parameters are drawn at the first forward
        out = model(inp)
        out.square().sum().backward()
        outs.append((out, [p.grad for p in model.parameters()], list(model.buffers())))
    (out_e, grads_e, bufs_e), (out_l, grads_l, bufs_l) = outs
    assert out_l.device == DEV and out_l.dtype == out_e.dtype == torch.float64
    torch.testing.assert_close(out_l.cpu(), out_e)
    assert all(g.device == DEV for g in grads_l) and all(b.device == DEV for b in bufs_l)
    for lazy_t, eager_t in zip(grads_l + bufs_l, grads_e + bufs_e, strict=True):
        torch.testing.assert_close(lazy_t.cpu(), eager_t)
    assert [n for n, _ in lazy.named_parameters()] == [n for n, _ in eager.named_parameters()]


def test_lazy_modules_built_on_the_lazy_device_initialize_there():
    """nn.LazyLinear(4, device=lazy) (and every lazy module given the lazy
    device) failed in torch's _make_subclass, which cannot rewrap the lazy
    tensor that torch.empty(0, device=lazy) returns."""
    def program(dev):
        model = nn.Sequential(
            nn.LazyConv2d(4, 3, device=dev), nn.LazyBatchNorm2d(device=dev), nn.ReLU(),
            nn.Flatten(), nn.LazyLinear(2, device=dev, dtype=torch.float64))
        model[:2].double()  # a dtype-only move keeps them bound for the device
        x = torch.randn(2, 3, 6, 6, dtype=torch.float64).to(dev)
        out = model(x)
        out.square().sum().backward()
        on_dev = all(t.device == x.device for t in model.state_dict().values())
        cpu = nn.LazyLinear(3, device=dev).cpu()  # moved back before initializing
        cpu_out = cpu(torch.ones(2, 5))
        copied = copy.deepcopy(nn.Sequential(nn.LazyLinear(3, device=dev), nn.Tanh(),
                                             nn.LazyLinear(2, device=dev)))
        copied_out = copied(torch.ones(2, 5).to(dev))
        copied_on_dev = all(t.device == x.device for t in copied.state_dict().values())
        return {"out": out, "grads": [p.grad for p in model.parameters()],
                "buffers": list(model.buffers()), "on_dev": on_dev,
                "cpu_out": cpu_out.to(dev), "cpu_weight": cpu.weight.device.type,
                "copied_out": copied_out, "copied_on_dev": copied_on_dev}

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before


def test_cpu_scalar_tensors_mix_with_lazy_tensors_and_cross_device_copies():
    def program(dev):
        x = torch.randn(3, 4).to(dev)
        scale = torch.tensor(2.5)  # a CPU 0-d tensor, allowed next to device tensors
        out = {"mul": x * scale, "add": torch.add(x, torch.tensor(1), alpha=2),
               "where": torch.where(x > 0, x, torch.tensor(0.0)),
               "clamp": x.clamp(min=torch.tensor(-0.5), max=torch.tensor(0.5)),
               "max": torch.maximum(x, torch.tensor(0.1))}
        dst = torch.zeros(3, 4, device=dev)
        dst[1:].copy_(torch.ones(2, 4))
        dst[0].copy_(torch.tensor(7.0))
        out["dst"] = dst
        cpu = torch.empty(3, 4)
        cpu.copy_(x)
        out["cpu"] = cpu.to(x.device)
        out["lerp"] = torch.lerp(x, torch.zeros_like(x), torch.tensor(0.3))
        return out

    same_on_both(program)


def test_device_is_torch_lazy_device():
    assert DEV == torch.device("lazy", 0)
    x = torch.ones(2, 3, device=DEV)
    assert isinstance(x, torch.Tensor) and isinstance(x, lt.LazyTensor)
    assert x.device == DEV and x.dtype == torch.float32 and x.shape == (2, 3)


@pytest.mark.parametrize("make", [
    lambda d: torch.zeros(2, 3, device=d),
    lambda d: torch.ones(4, dtype=torch.int32, device=d),
    lambda d: torch.full((2, 2), 7.5, device=d),
    lambda d: torch.arange(5, device=d),
    lambda d: torch.arange(1.0, 3.0, 0.5, device=d),
    lambda d: torch.eye(3, device=d),
    lambda d: torch.tensor([[1, 2], [3, 4]], device=d),
    lambda d: torch.linspace(0, 1, 5, device=d),
    lambda d: torch.zeros_like(torch.ones(2, 2, device=d)),
])
def test_factories_match_eager(make):
    assert_same(make("cpu"), make(DEV))


def test_moves_and_observation():
    x = torch.randn(3, 4)
    y = x.to(DEV)
    assert_same(x, y)
    assert torch.equal(y.cpu(), x)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert y.tolist() == x.tolist()
    assert (y.sum() * 0 + 2).item() == 2.0
    assert float(y[0, 0]) == float(x[0, 0]) and bool(y.abs().sum() > 0)
    assert "device='lazy:0'" in repr(y) and "tensor(" in repr(y)
    assert np.asarray(y).shape == (3, 4)


def test_numpy_refuses_tensors_that_require_grad():
    p = torch.ones(2, device=DEV, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        p.numpy()
    assert p.detach().numpy().tolist() == [1.0, 1.0]


def test_module_to_device_keeps_parameters():
    model = nn.Linear(3, 2)
    model.to(DEV)
    assert all(isinstance(p, nn.Parameter) and p.device == DEV for p in model.parameters())
    out = model(torch.ones(1, 3, device=DEV))
    assert out.device == DEV and out.grad_fn is not None


def test_deepcopy_and_pickle_round_trip():
    x = torch.arange(4.0, device=DEV)
    c = copy.deepcopy(x)
    c.add_(1)
    assert x.tolist() == [0, 1, 2, 3] and c.tolist() == [1, 2, 3, 4]
    back = pickle.loads(pickle.dumps(x))
    assert isinstance(back, lt.LazyTensor) and back.tolist() == [0, 1, 2, 3]
    buffer = io.BytesIO()
    torch.save({"w": x}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)  # weights_only, torch's default
    assert loaded["w"].device == DEV and loaded["w"].tolist() == [0, 1, 2, 3]


def test_mark_step_materializes_everything_in_one_graph():
    metrics = get_runtime().metrics
    a = torch.ones(3, device=DEV)
    b, c = a * 2, a + 1
    lt.mark_step()
    assert metrics.counters["graphs_executed"] == 1
    assert b.tolist() == [2, 2, 2] and c.tolist() == [2, 2, 2]
    assert metrics.counters["graphs_executed"] == 1  # values were already there


def test_forgetting_mark_step_is_still_correct():
    x = torch.zeros(2, device=DEV)
    for _ in range(5):
        x = x + 1
    assert x.tolist() == [5, 5]


def test_same_seed_same_random_numbers():
    lt.manual_seed(3)
    a = torch.randn(5, device=DEV).tolist()
    b = torch.nn.functional.dropout(torch.ones(8, device=DEV), 0.5).tolist()
    lt.manual_seed(3)
    assert torch.randn(5, device=DEV).tolist() == a
    assert torch.nn.functional.dropout(torch.ones(8, device=DEV), 0.5).tolist() == b
    torch.manual_seed(3)  # torch's own seeding reaches the lazy streams too
    first = torch.rand(4, device=DEV).tolist()
    torch.manual_seed(3)
    assert torch.rand(4, device=DEV).tolist() == first
    assert torch.rand(4, device=DEV).tolist() != first


def test_random_distributions_are_plausible():
    lt.manual_seed(0)
    u = torch.rand(10000, device=DEV)
    n = torch.randn(10000, device=DEV)
    k = torch.randint(3, 7, (1000,), device=DEV)
    assert 0 <= u.min().item() and u.max().item() < 1 and abs(u.mean().item() - 0.5) < 0.02
    assert abs(n.mean().item()) < 0.05 and abs(n.std().item() - 1) < 0.05
    assert set(k.tolist()) == {3, 4, 5, 6} and k.dtype == torch.int64
    kept = torch.nn.functional.dropout(torch.ones(10000, device=DEV), 0.25)
    assert abs((kept > 0).float().mean().item() - 0.75) < 0.02
    assert set(kept.unique().tolist()) <= {0.0, float(np.float32(1 / 0.75))}


def test_changing_python_scalars_does_not_recompile():
    metrics = get_runtime().metrics
    x = torch.ones(3, device=DEV)
    for scale in (1.0, 2.0, 3.0):
        (x * scale + scale).sum().item()
    assert metrics.counters["cache_misses"] == 1
