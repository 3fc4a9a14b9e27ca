"""Optimizers: hand-written subclasses, fused and foreach variants,
AdamW/AMSGrad/Nesterov/Adagrad options, L-BFGS with line search, SAM, EMA of
parameters, state round trips. Each program is written as a PyTorch user
writes it, run eagerly on the CPU and lazily on
``lazytensor.torch.device()`` from the same seed, and compared (values,
dtypes, shapes; see ``programs.py``); training programs also check that
later steps compile nothing new."""


from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

from ..lazy_vs_eager import (
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
    weights,
)


class ScratchAdam(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["m"], state["v"] = torch.zeros_like(p), torch.zeros_like(p)
                state["step"] += 1
                state["m"].mul_(b1).add_(p.grad, alpha=1 - b1)
                state["v"].mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                m_hat = state["m"] / (1 - b1 ** state["step"])
                v_hat = state["v"] / (1 - b2 ** state["step"])
                p.addcdiv_(m_hat, v_hat.sqrt().add_(group["eps"]), value=-group["lr"])


OPTIMIZERS = {
    "adagrad-lr-decay-single-tensor": lambda p: torch.optim.Adagrad(
        p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, foreach=False),
    "rmsprop-centered-momentum-single-tensor": lambda p: torch.optim.RMSprop(
        p, lr=1e-2, momentum=0.5, centered=True, weight_decay=1e-3, foreach=False),
    "nadam-decoupled": lambda p: torch.optim.NAdam(
        p, lr=1e-2, weight_decay=1e-2, decoupled_weight_decay=True, momentum_decay=3e-3),
    "radam-decoupled-single-tensor": lambda p: torch.optim.RAdam(
        p, lr=1e-2, weight_decay=1e-2, decoupled_weight_decay=True, foreach=False),
    "adamax-maximize": lambda p: torch.optim.Adamax(p, lr=1e-2, maximize=True),
    "adadelta-single-tensor": lambda p: torch.optim.Adadelta(p, lr=1.0, rho=0.8, foreach=False),
    "asgd-foreach": lambda p: torch.optim.ASGD(p, lr=1e-2, t0=2, foreach=True),
    "sgd-nesterov-dampening-maximize": lambda p: torch.optim.SGD(
        p, lr=1e-2, momentum=0.9, nesterov=True, weight_decay=1e-3, maximize=True),
    "adam-amsgrad-single-tensor": lambda p: torch.optim.Adam(
        p, lr=1e-2, amsgrad=True, foreach=False),
    "adamw-param-groups": lambda p: torch.optim.AdamW(
        [{"params": [q for q in p if q.ndim > 1], "weight_decay": 0.1},
         {"params": [q for q in p if q.ndim <= 1], "weight_decay": 0.0, "lr": 3e-3}], lr=1e-2),
}


def test_optimizer_zoo_param_groups_one_cycle_and_state_round_trip():
    def program(dev):
        results = {}
        for name, make in {
            "rmsprop": lambda p: torch.optim.RMSprop(p, lr=1e-2, momentum=0.5, centered=True),
            "nadam": lambda p: torch.optim.NAdam(p, lr=1e-2),
            "radam": lambda p: torch.optim.RAdam(p, lr=1e-2),
            "adamax": lambda p: torch.optim.Adamax(p, lr=1e-2),
            "adadelta": lambda p: torch.optim.Adadelta(p),
        }.items():
            torch.manual_seed(0)
            model = nn.Linear(3, 2).to(dev)
            optimizer = make(model.parameters())
            for _ in range(2):
                optimizer.zero_grad()
                model(torch.ones(4, 3).to(dev)).pow(2).sum().backward()
                optimizer.step()
            results[name] = model.weight.detach()
        model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1)).to(dev)
        optimizer = torch.optim.AdamW([{"params": model[0].parameters(), "lr": 1e-2},
                                       {"params": model[1].parameters()}], lr=1e-3)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=4)
        x = torch.randn(5, 3).to(dev)
        for _ in range(2):
            optimizer.zero_grad()
            model(x).pow(2).mean().backward()
            optimizer.step()
            scheduler.step()
        state = optimizer.state_dict()
        fresh = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1)).to(dev)
        fresh.load_state_dict(model.state_dict())
        again = torch.optim.AdamW([{"params": fresh[0].parameters()},
                                   {"params": fresh[1].parameters()}])
        again.load_state_dict(state)
        again.zero_grad()
        fresh(x).pow(2).mean().backward()
        again.step()
        results["resumed"] = weights(fresh)
        results["exp_avg"] = state["state"][0]["exp_avg"]
        return results

    same_on_both(program, rtol=1e-4, atol=1e-6)


def test_sharpness_aware_minimization_step_through_parameter_vectors():
    x, y = torch.randn(40, 6), torch.randint(0, 3, (40,))

    def program(dev):
        torch.manual_seed(8)
        model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        xs, ys, rho, out = x.to(dev), y.to(dev), 0.05, []
        for _ in range(3):
            F.cross_entropy(model(xs), ys).backward()
            w = parameters_to_vector(model.parameters()).detach()
            g = parameters_to_vector(p.grad for p in model.parameters())
            eps = rho * g / (g.norm() + 1e-12)
            vector_to_parameters(w + eps, model.parameters())  # climb to the sharp point
            opt.zero_grad()
            sharp = F.cross_entropy(model(xs), ys)
            sharp.backward()
            with torch.no_grad():
                vector_to_parameters(w, model.parameters())  # back, keep the sharp grads
            opt.step()
            opt.zero_grad()
            out += [sharp.item(), eps.norm()]
        return out + [parameters_to_vector(model.parameters())]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_hand_written_optimizer_subclass_with_state_and_param_groups():
    def program(dev):
        model = nn.Sequential(nn.Linear(6, 12), nn.ELU(), nn.Linear(12, 1)).to(dev)
        opt = ScratchAdam([{"params": model[0].parameters()},
                           {"params": model[2].parameters(), "lr": 3e-3}], lr=1e-2)
        x, y = torch.randn(32, 6).to(dev), torch.randn(32, 1).to(dev)
        out, first = [], None
        for step in range(5):
            loss = F.huber_loss(model(x), y, delta=0.5)
            first = train_step(opt, loss, dev, out, step, first, 2)
        st = opt.state_dict()
        return out + [st["state"][0]["m"], st["state"][3]["v"], st["state"][1]["step"],
                      [g["lr"] for g in st["param_groups"]]]

    same_on_both(program, rtol=1e-4, atol=1e-6)


def test_optimizer_options_each_training_its_own_small_regression_in_one_step_graph():
    def program(dev):
        x = torch.randn(32, 6).to(dev)
        y = (x[:, :1] * 2 - x[:, 1:2]).sin()
        models, opts = {}, {}
        for name in sorted(OPTIMIZERS):
            models[name] = nn.Linear(6, 1).to(dev)
            opts[name] = OPTIMIZERS[name](list(models[name].parameters()))
        first = None
        for step in range(4):
            for name, opt in opts.items():
                sign = -1.0 if opt.defaults.get("maximize") else 1.0
                opt.zero_grad()
                (sign * F.mse_loss(models[name](x), y)).backward()
                opt.step()
            step_mark(dev)
            first = steady(dev, first) if step >= 2 else first
        state = [v for opt in opts.values() for s in opt.state.values() for v in s.values()
                 if torch.is_tensor(v)]
        return [p.detach() for m in models.values() for p in m.parameters()] + state

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_fused_adamw_amsgrad_sgd_nesterov_and_adagrad_with_a_grad_scaler():
    """fused=True: torch's _fused_adamw_/_fused_sgd_/_fused_adagrad_ kernels as its CPU
    kernels compute them (grads unscaled in place, steps skipped on inf),
    recorded lazily: no fallback, no recompile after the first steps."""
    def program(dev):
        models = [nn.Linear(4, 1).to(dev) for _ in range(3)]
        opts = [torch.optim.AdamW(models[0].parameters(), lr=0.05, weight_decay=0.1,
                                  amsgrad=True, fused=True),
                torch.optim.SGD(models[1].parameters(), lr=0.05, momentum=0.9, nesterov=True,
                                weight_decay=0.01, fused=True),
                torch.optim.Adagrad(models[2].parameters(), lr=0.1, lr_decay=0.01, fused=True)]
        scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
        x, y = torch.randn(16, 4).to(dev), torch.randn(16, 1).to(dev)
        out, first = [], None
        for step in range(4):
            for model, opt in zip(models, opts, strict=True):
                opt.zero_grad()
                loss = F.mse_loss(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                out.append(loss.detach())
            scaler.update()
            step_mark(dev)
            first = steady(dev, first) if step >= 2 else first
        state = [v for opt in opts for s in opt.state.values() for v in s.values()
                 if torch.is_tensor(v)]
        return out + [p.grad for m in models for p in m.parameters()] + state

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_lbfgs_with_strong_wolfe_line_search_fits_a_regression():
    def program(dev):
        x = torch.linspace(-1, 1, 20).unsqueeze(1)
        y = (3 * x ** 3 - x + 0.5).to(dev)
        x = x.to(dev)
        model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1)).to(dev)
        opt = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=6, history_size=4,
                                line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            return loss

        losses = [opt.step(closure).detach() for _ in range(2)]
        return {"losses": torch.stack(losses), "w": model[0].weight,
                "n_iter": opt.state[opt._params[0]]["n_iter"]}

    same_on_both(program, rtol=1e-3, atol=1e-4)


def test_foreach_and_fused_style_optimizers():
    def program(dev):
        out = {}
        for name, make_opt in {
            "adam_foreach": lambda p: torch.optim.Adam(p, lr=0.01, foreach=True, amsgrad=True),
            "adamw_max": lambda p: torch.optim.AdamW(p, lr=0.01, maximize=True),
            "radam": lambda p: torch.optim.RAdam(p, lr=0.01, decoupled_weight_decay=True,
                                                 weight_decay=0.1),
            "asgd": lambda p: torch.optim.ASGD(p, lr=0.01, t0=1),
            "rprop": lambda p: torch.optim.Rprop(p, lr=0.01),
            "adadelta": lambda p: torch.optim.Adadelta(p, lr=1.0, foreach=True),
            "sgd_foreach": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1,
                                                     foreach=True, weight_decay=1e-2),
        }.items():
            torch.manual_seed(0)
            model = nn.Linear(3, 2).to(dev)
            opt = make_opt(model.parameters())
            x = torch.randn(6, 3).to(dev)
            for _ in range(3):
                opt.zero_grad()
                model(x).pow(2).sum().backward()
                opt.step()
            out[name] = [model.weight, model.bias]
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_lbfgs_closure_with_reduce_lr_on_plateau():
    def program(dev):
        torch.manual_seed(0)
        w_true = torch.randn(5, 1)
        x = torch.randn(40, 5)
        y = x @ w_true + 0.01 * torch.randn(40, 1)
        x, y = x.to(dev), y.to(dev)
        lin = nn.Linear(5, 1).to(dev)
        opt = torch.optim.LBFGS(lin.parameters(), lr=0.5, max_iter=5, history_size=4)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)
        losses = []
        for _ in range(3):
            def closure():
                opt.zero_grad()
                loss = F.mse_loss(lin(x), y)
                loss.backward()
                return loss
            loss = opt.step(closure)
            sched.step(loss.item() + 1.0)
            losses.append(loss.item())
        return [lin.weight, losses, opt.param_groups[0]["lr"]]

    same_on_both(program, rtol=1e-3, atol=1e-4)


def test_ema_with_foreach_lerp_and_no_grad_param_updates():
    def program(dev):
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(dev)
        ema = [p.detach().clone() for p in model.parameters()]
        opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1, amsgrad=True)
        x = torch.randn(5, 3).to(dev)
        for _ in range(3):
            model(x).square().sum().backward()
            opt.step()
            opt.zero_grad()
            with torch.no_grad():
                torch._foreach_lerp_(ema, [p.detach() for p in model.parameters()], 0.1)
                for p in model.parameters():
                    p.clamp_(-0.3, 0.3)
        return ema + [p.detach() for p in model.parameters()]

    same_on_both(program, rtol=1e-5, atol=1e-6)
