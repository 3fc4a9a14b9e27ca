"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (fourth batch), each compared with eager torch on the CPU (values,
dtype, shape; see ``programs.py``)."""

from __future__ import annotations

import torch
from torch import nn

from .programs import fallbacks, same_on_both


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
        return {"out": out, "grads": [p.grad for p in model.parameters()],
                "buffers": list(model.buffers()), "on_dev": on_dev,
                "cpu_out": cpu_out.to(dev), "cpu_weight": cpu.weight.device.type}

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before


def test_forward_mode_jacobians_through_activations_broadcast_grad_and_saved():
    """torch.func.jacfwd / hessian of a network with tanh, sigmoid, silu, gelu
    or relu crashed ("MUL: operand shapes differ: (4, 4) vs (4,)"): vmap's
    batching rules call tanh_backward & co with a batched grad and an
    unbatched saved tensor, which torch's kernels broadcast."""
    from torch.func import hessian, jacfwd, jacrev, vmap

    def program(dev):
        w = torch.randn(4, 3, dtype=torch.float64).to(dev)
        acts = [torch.tanh, torch.sigmoid, nn.functional.silu, nn.functional.relu,
                nn.functional.gelu, lambda v: nn.functional.gelu(v, approximate="tanh")]
        out = {}
        for i, act in enumerate(acts):
            def f(x, act=act):
                return act(act(x) @ w)
            x = torch.randn(4, dtype=torch.float64).to(dev)
            out[f"jacfwd{i}"] = jacfwd(f)(x)
            out[f"hessian{i}"] = hessian(lambda v, f=f: f(v).sum())(x)
            out[f"vmap_jacrev{i}"] = vmap(jacrev(f))(x.expand(2, 4) * torch.arange(
                1.0, 3.0, dtype=torch.float64).to(dev)[:, None])
        grad = torch.ones(2, 3, dtype=torch.float64).to(dev)
        saved = torch.rand(3).to(dev)  # float32, broadcast along grad's rows
        out["promoted"] = torch.ops.aten.tanh_backward(grad, saved)
        out["threshold"] = torch.ops.aten.threshold_backward(saved, grad, 0.5)
        return out

    before = fallbacks()
    same_on_both(program, rtol=1e-6, atol=1e-8)
    assert fallbacks() == before
