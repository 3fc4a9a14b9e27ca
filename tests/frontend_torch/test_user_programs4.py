"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (fourth batch), each compared with eager torch on the CPU (values,
dtype, shape; see ``lazy_vs_eager.py``)."""

from __future__ import annotations

import copy

import torch
from torch import nn

from .lazy_vs_eager import fallbacks, same_on_both, same_outcomes


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


def test_add_and_sub_alpha_follow_torchs_alpha_check_and_bool_results():
    """A float alpha with integer tensors (add, sub, rsub, add_) was silently
    truncated ([1, 1] + 0.5 * [1, 1] gave [1, 1]) where torch raises; a bool
    tensor plus a bool scalar with an int alpha gave int64 [3, 3] (torch: a
    bool result, a or (b and alpha)), and bool + bool with alpha 2 crashed."""
    def program(dev):
        i = torch.tensor([1, 2]).to(dev)
        b = torch.tensor([True, False]).to(dev)
        return [
            lambda: i.add(i, alpha=0.5), lambda: i.sub(i, alpha=0.5),
            lambda: torch.rsub(i, i, alpha=1.5), lambda: i.add(1, alpha=2.5),
            lambda: i.clone().add_(i, alpha=1.0), lambda: i.add(b, alpha=2.0),
            lambda: i.float().add(i, alpha=1j), lambda: i.float().add(i, alpha=True),
            lambda: i.add(2.5, alpha=2), lambda: i.float().add_(i, alpha=0.5),
            lambda: b.add(b.flip(0), alpha=2), lambda: b.add(True, alpha=2),
            lambda: b.add(True, alpha=0), lambda: b.add(b, alpha=True),
            lambda: b.clone().add_(b.flip(0), alpha=3), lambda: b.add(1, alpha=2),
        ]

    same_outcomes(program)


def test_arange_and_randint_reject_empty_or_reversed_ranges_as_torch():
    """torch.arange(0, 10, -1) gave an empty tensor and arange(0, inf) was
    accepted, and torch.randint(5, 2, ...) / random_(4, 1) drew 64-bit
    garbage, where torch raises."""
    def program(dev):
        return [
            lambda: torch.arange(0, 10, -1, device=dev), lambda: torch.arange(5, 0, device=dev),
            lambda: torch.arange(0, float("inf"), device=dev),
            lambda: torch.arange(0.5, -3, -1, device=dev), lambda: torch.arange(3, 3, device=dev),
            lambda: torch.randint(5, 2, (3,), device=dev),
            lambda: torch.randint(3, 3, (2,), device=dev),
            lambda: torch.empty(2, device=dev).random_(4, 1),
            lambda: torch.randint(0, 1, (2,), device=dev),
        ]

    same_outcomes(program)


def test_integer_powers_with_negative_tensor_exponents_follow_torch():
    """An integer tensor raised to negative integer exponents (a tensor, so
    torch does not raise) gave XLA's wrapped-around POW (3 ** -1 was
    -6148914691236517205); torch gives 1 for 1, +-1 for -1, else 0."""
    def program(dev):
        base = torch.tensor([-3, -2, -1, 0, 1, 2, 3]).to(dev)
        exps = torch.tensor([-1, -2, -3, -1, -5, -1, 2]).to(dev)
        out = {"int64": base ** exps, "by_scalar_base": torch.pow(3, exps),
               "int32": base.int().pow(exps.int()), "int8": base.to(torch.int8) ** exps[:, None],
               "uint8": base.abs().to(torch.uint8) ** exps.abs().to(torch.uint8),
               "float": base.double() ** exps}
        inplace = base.clone()
        inplace.pow_(exps)
        out["inplace"] = inplace
        return out

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before


def test_random_fills_check_their_parameters_as_torch():
    """uniform_(1, 0), exponential_(-1) and bernoulli_(1.5) drew numbers
    (negative ones from exponential_) where torch raises."""
    def program(dev):
        x = torch.empty(3, device=dev)
        return [lambda: x.uniform_(1, 0), lambda: x.uniform_(2.5, -1.5),
                lambda: x.exponential_(-1), lambda: x.exponential_(0),
                lambda: x.bernoulli_(1.5), lambda: x.bernoulli_(-0.1),
                lambda: x.normal_(0, -0.5),
                lambda: x.uniform_(2, 2)]

    same_outcomes(program)


def test_logsumexp_over_an_empty_dim_is_minus_infinity():
    """logsumexp over an empty dim (a batch with no candidates) raised
    numpy's "zero-size array to reduction operation maximum" ValueError;
    torch gives log(0) = -inf."""
    def program(dev):
        x = torch.empty(2, 0, 3).to(dev)
        return {"all": torch.empty(0).to(dev).logsumexp(0), "dim": x.logsumexp(1),
                "keepdim": x.logsumexp(1, keepdim=True), "dims": x.logsumexp((0, 1)),
                "ints": torch.empty(2, 0, dtype=torch.long).to(dev).logsumexp(1),
                "nonempty_dim": x.logsumexp(2)}

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before
