"""Autograd beyond backward(): custom autograd functions, double backward,
torch.func (grad, jacfwd, vmap, functional_call), MAML, per-sample
gradients, forward-mode jacobians. Each program is written as a PyTorch user
writes it, run eagerly on the CPU and lazily on
``lazytensor.torch.device()`` from the same seed, and compared (values,
dtypes, shapes; see ``programs.py``); training programs also check that
later steps compile nothing new."""


from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, jacfwd, jacrev, vmap

from ..lazy_vs_eager import (
    fallbacks,
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    weights,
)


class _ClampedExp(torch.autograd.Function):
    """exp(x) with a hand-written backward that clips the incoming gradient."""

    @staticmethod
    def forward(ctx, x, limit):
        out = x.exp()
        ctx.save_for_backward(out)
        ctx.limit = limit
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad.clamp(-ctx.limit, ctx.limit) * out, None


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam):
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return -ctx.lam * grad, None


def test_custom_autograd_function_and_tensor_hooks():
    def program(dev):
        x = torch.randn(4, 3).to(dev).requires_grad_()
        w = torch.randn(3, 2).to(dev).requires_grad_()
        seen = []
        w.register_hook(lambda g: seen.append(g.sum().item()))
        h = x @ w
        h.retain_grad()
        y = _ClampedExp.apply(h, 0.5)
        (y * torch.linspace(-2, 2, 8).view(4, 2).to(dev)).sum().backward()
        return {"y": y, "x_grad": x.grad, "w_grad": w.grad, "h_grad": h.grad,
                "seen": seen, "is_leaf": (x.is_leaf, h.is_leaf, y.requires_grad)}

    same_on_both(program)


def test_double_backward_gradient_penalty():
    def program(dev):
        critic = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1)).to(dev)
        optimizer = torch.optim.Adam(critic.parameters(), lr=1e-2)
        real, fake = torch.randn(6, 3).to(dev), torch.randn(6, 3).to(dev)
        penalties = []
        for _ in range(2):
            alpha = torch.rand(6, 1).to(dev)
            mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
            score = critic(mixed)
            (grad,) = torch.autograd.grad(score.sum(), mixed, create_graph=True)
            penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
            loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            penalties.append(penalty.detach())
        x = torch.linspace(-1, 1, 5).to(dev).requires_grad_()
        (d1,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
        (d2,) = torch.autograd.grad(d1.sum(), x)
        v = x.detach()
        value, tangent = torch.func.jvp(lambda t: (t.exp() * t).sum(), (v,), (torch.ones_like(v),))
        return {"penalties": penalties, "weights": weights(critic), "d1": d1, "d2": d2,
                "jvp": (value, tangent), "jacrev": torch.func.jacrev(torch.sin)(v),
                "hessian": torch.func.hessian(lambda t: (t ** 3).sum())(v)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


# second-order gradients through two unrolled inner steps per task: one
# large graph that compiles for ~9 s on a CI worker
@pytest.mark.slow
def test_maml_inner_loop_with_func_grad_and_functional_call():
    tasks = [(torch.randn(10, 1) * 2, torch.rand(1) * 3, torch.rand(1) * 3) for _ in range(2)]

    def program(dev):
        torch.manual_seed(2)
        model = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 1)).to(dev)
        meta_opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        params = dict(model.named_parameters())

        def task_loss(p, xs, ys):
            return F.mse_loss(torch.func.functional_call(model, p, (xs,)), ys)

        out = []
        for _epoch in range(2):
            meta_loss = 0.0
            for xs, amp, phase in tasks:
                xs = xs.to(dev)
                ys = amp.to(dev) * torch.sin(xs + phase.to(dev))
                fast = params
                for _ in range(2):  # inner SGD steps, differentiable
                    grads = torch.func.grad(task_loss)(fast, xs[:5], ys[:5])
                    fast = {k: v - 0.1 * grads[k] for k, v in fast.items()}
                meta_loss = meta_loss + task_loss(fast, xs[5:], ys[5:])
            meta_opt.zero_grad()
            meta_loss.backward()
            meta_opt.step()
            out += [meta_loss.item(), model[0].weight.grad.clone()]
        return out + [model[2].weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_ema_buffer_teacher_and_functional_call():
    class EMA(nn.Module):
        def __init__(self, model, decay=0.9):
            super().__init__()
            self.decay = decay
            for name, p in model.named_parameters():
                self.register_buffer(name.replace(".", "_"), p.detach().clone())

        @torch.no_grad()
        def update(self, model):
            for name, p in model.named_parameters():
                buf = getattr(self, name.replace(".", "_"))
                buf.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)

        def params(self, model):
            return {n: getattr(self, n.replace(".", "_")) for n, _ in model.named_parameters()}

    def program(dev):
        model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)).to(dev)
        ema = EMA(model).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        x, y = torch.randn(16, 5).to(dev), torch.randn(16, 1).to(dev)
        out = []
        for _ in range(4):
            loss = F.smooth_l1_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            ema.update(model)
            with torch.no_grad():
                teacher = torch.func.functional_call(model, ema.params(model), (x,))
            out += [loss.detach(), F.mse_loss(teacher, y)]
        return out + [dict(ema.state_dict())]

    same_on_both(program, rtol=1e-5, atol=1e-6)


def test_maml_inner_loop_with_functional_call_and_create_graph():
    def program(dev):
        model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1)).to(dev)
        meta_opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        amps, phases = torch.rand(3, 4) * 2 + 0.5, torch.rand(3, 4) * math.pi
        xs = torch.rand(3, 4, 10, 1) * 10 - 5
        out, first = [], None
        for step in range(3):
            meta_opt.zero_grad()
            total = 0.0
            for task in range(4):
                x = xs[step, task].to(dev)
                y = amps[step, task] * torch.sin(x + phases[step, task])
                params = dict(model.named_parameters())
                inner = F.mse_loss(functional_call(model, params, (x,)), y)
                grads = torch.autograd.grad(inner, list(params.values()), create_graph=True)
                fast = {k: p - 0.01 * g for (k, p), g in zip(params.items(), grads, strict=True)}
                outer = F.mse_loss(functional_call(model, fast, (x,)), y)
                total = total + outer
            (total / 4).backward()
            meta_opt.step()
            step_mark(dev)
            out.append(total.detach())
            if step >= 1:
                first = steady(dev, first)
        return out + [model[0].weight.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_func_transforms_grad_jacfwd_and_vmapped_hessian_vector_products():
    def program(dev):
        w = torch.randn(5, 3).to(dev)

        def energy(x):
            return (torch.tanh(x @ w.T) ** 2).sum() + 0.5 * (x ** 2).sum()

        xs = torch.randn(6, 3).to(dev)
        g = vmap(grad(energy))(xs)
        jf = vmap(jacfwd(grad(energy)))(xs)
        jr = vmap(jacrev(grad(energy)))(xs)
        vecs = torch.randn(6, 3).to(dev)

        def hvp(x, v):
            return torch.func.jvp(grad(energy), (x,), (v,))[1]

        hv = vmap(hvp)(xs, vecs)
        val, vjp_fn = torch.func.vjp(lambda x: torch.sin(x) * x, xs)
        (ct,) = vjp_fn(torch.ones_like(val))
        batched = vmap(lambda row, scale: row.softmax(-1) * scale, in_dims=(0, None))(xs, 2.0)
        return [g, jf, jr, hv, ct, batched, torch.allclose(jf, jr, atol=1e-5)]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_domain_adversarial_training_with_a_gradient_reversal_function():
    def program(dev):
        feat = nn.Sequential(nn.Linear(5, 16), nn.ReLU()).to(dev)
        label_head, domain_head = nn.Linear(16, 2).to(dev), nn.Linear(16, 1).to(dev)
        params = [*feat.parameters(), *label_head.parameters(), *domain_head.parameters()]
        opt = torch.optim.SGD(params, lr=0.05, momentum=0.5)
        src, tgt = torch.randn(4, 16, 5).to(dev), (torch.randn(4, 16, 5) + 1).to(dev)
        ys = torch.randint(0, 2, (4, 16)).to(dev)
        domains = torch.cat([torch.zeros(16, 1), torch.ones(16, 1)]).to(dev)
        out, first = [], None
        for step in range(4):
            lam = 2.0 / (1.0 + math.exp(-10 * step / 4)) - 1.0
            fs, ft = feat(src[step]), feat(tgt[step])
            cls = F.cross_entropy(label_head(fs), ys[step])
            dom_logits = domain_head(GradReverse.apply(torch.cat([fs, ft]), lam))
            dom = F.binary_cross_entropy_with_logits(dom_logits, domains)
            opt.zero_grad()
            (cls + dom).backward()
            opt.step()
            step_mark(dev)
            out += [cls.detach(), dom.detach()]
            if step >= 2:
                first = steady(dev, first)
        return out + [feat[0].weight.grad, domain_head.weight.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_integrated_gradients_along_a_straight_path_with_the_trapezoid_rule():
    def program(dev):
        model = nn.Sequential(nn.Linear(6, 16), nn.Softplus(), nn.Linear(16, 3)).to(dev)
        x, baseline = torch.randn(4, 6).to(dev), torch.zeros(6, device=dev)
        target = model(x).argmax(-1)
        alphas = torch.linspace(0, 1, 9, device=dev)
        path = baseline + alphas[:, None, None] * (x - baseline)  # (steps, batch, features)
        path.requires_grad_(True)
        scores = model(path).gather(-1, target.expand(9, -1)[..., None]).sum()
        (grads,) = torch.autograd.grad(scores, path)
        avg = torch.trapezoid(grads, alphas, dim=0)
        attributions = (x - baseline) * avg
        with torch.no_grad():
            gap = model(x).gather(1, target[:, None]) - model(baseline.expand_as(x)).gather(
                1, target[:, None])
        completeness = (attributions.sum(1, keepdim=True) - gap).abs().max()
        assert completeness.item() < 0.05
        return [attributions, gap, target]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


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


def test_custom_autograd_functions_straight_through_and_mark_dirty():
    class RoundSTE(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return torch.round(x * scale) / scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * (x.abs() <= 1).to(grad.dtype), None

    class ClampInPlace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            mask = (x > 0)
            ctx.save_for_backward(mask)
            return x.clamp_(min=0)

        @staticmethod
        def backward(ctx, grad):
            (mask,) = ctx.saved_tensors
            return grad * mask

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            ctx.set_materialize_grads(True)
            return x * w, x.sum()

        @staticmethod
        def backward(ctx, g1, g2):
            x, w = ctx.saved_tensors
            gx = g1 * w + g2 if ctx.needs_input_grad[0] else None
            gw = (g1 * x).sum(0) if ctx.needs_input_grad[1] else None
            return gx, gw

    def program(dev):
        lin = nn.Linear(5, 5).to(dev)
        x = torch.randn(4, 5).to(dev).requires_grad_()
        w = torch.randn(5).to(dev).requires_grad_()
        h = RoundSTE.apply(lin(x), 4.0)
        h2 = ClampInPlace.apply(h.clone())
        y, s = Scale.apply(h2, w)
        (y.pow(2).sum()).backward()
        return {"h": h, "y": y, "s": s, "gx": x.grad, "gw": w.grad, "glin": lin.weight.grad}

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_per_sample_gradients_with_torch_func():
    from torch.func import functional_call, grad, vmap

    def program(dev):
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(dev)
        params = {k: v.detach() for k, v in model.named_parameters()}
        x, y = torch.randn(5, 3).to(dev), torch.tensor([0, 1, 1, 0, 1]).to(dev)

        def loss(p, xi, yi):
            out = functional_call(model, p, (xi[None],))
            return F.cross_entropy(out, yi[None])

        per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
        norms = torch.stack([g.flatten(1).norm(dim=1) for g in per_sample.values()]).norm(dim=0)
        clipped = {k: (g * (1.0 / norms.clamp(min=1.0)).view(-1, *[1] * (g.dim() - 1))).sum(0)
                   for k, g in per_sample.items()}
        return {"per": per_sample, "norms": norms, "clipped": clipped}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_ensemble_vmap_jacrev_hessian_with_functional_call():
    from torch.func import functional_call, grad, hessian, jacrev, stack_module_state, vmap

    def program(dev):
        models = [nn.Linear(3, 2).to(dev) for _ in range(4)]
        params, buffers = stack_module_state(models)
        base = nn.Linear(3, 2).to("meta")

        def f(p, b, x):
            return functional_call(base, (p, b), (x,))

        x = torch.randn(6, 3).to(dev)
        ens = vmap(f, in_dims=(0, 0, None))(params, buffers, x)

        def energy(v):
            return (v.sin() * v).sum() + (v @ v) ** 2

        v = torch.randn(3).to(dev)
        out = {"ens": ens, "jac": jacrev(torch.tanh)(v), "hess": hessian(energy)(v),
               "grad": grad(energy)(v), "vm": vmap(lambda r: r.softmax(0) @ r)(x),
               "bvm": vmap(torch.outer)(x, x)}
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_autograd_functional_and_double_backward_in_float64():
    def program(dev):
        x = torch.randn(4, dtype=torch.float64).to(dev).requires_grad_()
        f = lambda v: (v.sin() * v.exp()).sum()
        (g,) = torch.autograd.grad(f(x), x, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), x)
        J = torch.autograd.functional.jacobian(lambda v: v.tanh() * 2, x.detach())
        H = torch.autograd.functional.hessian(f, x.detach())
        vjp = torch.autograd.functional.vjp(lambda v: v ** 3, x.detach(),
                                            torch.ones(4, dtype=torch.float64).to(dev))
        return [g, h, J, H, vjp[1]]

    same_on_both(program, rtol=1e-10, atol=1e-10)
