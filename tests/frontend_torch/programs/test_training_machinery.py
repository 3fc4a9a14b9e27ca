"""Training machinery: optimizers (hand-written, fused, foreach, L-BFGS, SAM),
schedulers, gradient clipping and accumulation, freezing, distillation, data
loaders. Each program is written as a PyTorch user writes it, run eagerly on
the CPU and lazily on ``lazytensor.torch.device()`` from the same seed, and
compared (values, dtypes, shapes; see ``programs.py``); training programs
also check that later steps compile nothing new."""


from __future__ import annotations

import lazytensor.torch as lt
import torch
import torch.nn.functional as F
from lazytensor.core import get_runtime
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from ..conftest import DEV
from ..lazy_vs_eager import (
    compare,
    digits,
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
    weights,
)


def test_training_loop_scheduler_clipping_eval_accuracy():
    def program(dev):
        x, y = digits(256)
        model = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10)).to(dev)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
        norms, lrs, history = [], [], []
        for _epoch in range(4):
            model.train()
            for i in range(2):
                xb, yb = x[i * 128:(i + 1) * 128].to(dev), y[i * 128:(i + 1) * 128].to(dev)
                optimizer.zero_grad(set_to_none=True)
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))
                optimizer.step()
                if dev == DEV:
                    lt.mark_step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr()[0])
            model.eval()
            with torch.no_grad():
                pred = model(x.to(dev)).argmax(dim=1)
                correct = (pred == y.to(dev)).sum().item()
            history.append(correct / len(y))
            if dev == DEV:
                misses.append(get_runtime().metrics.counters["cache_misses"])
            if loss.item() < 0.05:  # early stopping on a tensor value
                break
        return {"norms": norms, "lrs": lrs, "accuracy": history, "weights": weights(model)}

    misses: list[int] = []
    same_on_both(program, rtol=1e-4, atol=1e-5)
    # a new learning rate is a graph parameter: nothing compiles after epoch 2
    assert misses[1] == misses[-1], misses


def test_cosine_annealing_adam_and_grad_value_clipping():
    def program(dev):
        model = nn.Sequential(nn.Linear(10, 20), nn.SiLU(), nn.LayerNorm(20), nn.Linear(20, 1))
        model.to(dev)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5)
        x, y = torch.randn(32, 10), torch.randn(32, 1)
        x, y = x.to(dev), y.to(dev)
        losses = []
        for _ in range(5):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            nn.utils.clip_grad_value_(model.parameters(), 0.1)
            optimizer.step()
            scheduler.step()
            losses.append(loss)
        return {"losses": torch.stack(losses), "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_state_dict_round_trip_between_lazy_and_cpu():
    torch.manual_seed(0)
    cpu_model = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    x = torch.randn(8, 6)
    cpu_model(x)  # updates running statistics
    lazy_model = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.Linear(4, 2)).to(DEV)
    lazy_model.load_state_dict(cpu_model.state_dict())
    cpu_model.eval()
    lazy_model.eval()
    compare(cpu_model(x), lazy_model(x.to(DEV)), 1e-5, 1e-6)
    # lazy -> cpu, after training a step lazily
    torch.optim.SGD(lazy_model.parameters(), lr=0.1).zero_grad()
    lazy_model.train()
    lazy_model(x.to(DEV)).sum().backward()
    with torch.no_grad():
        for p in lazy_model.parameters():
            p -= 0.1 * p.grad
    state = lazy_model.state_dict()
    assert all(v.device == DEV for v in state.values())
    back = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    back.load_state_dict({k: v.cpu() for k, v in state.items()})
    compare(back.state_dict(), {k: v.cpu() for k, v in state.items()}, 0, 0)
    assert back.state_dict()["1.num_batches_tracked"].item() == 2


def test_torch_save_and_load_of_a_lazy_state_dict(tmp_path):
    torch.manual_seed(0)
    model = nn.Linear(3, 2).to(DEV)
    torch.save(model.state_dict(), tmp_path / "m.pt")
    loaded = torch.load(tmp_path / "m.pt", map_location="cpu")
    compare({k: v.cpu() for k, v in model.state_dict().items()},
            {k: v.cpu() for k, v in loaded.items()}, 0, 0)


def test_gradient_accumulation_autograd_grad_and_detach():
    def program(dev):
        model = nn.Sequential(nn.Linear(4, 8), nn.Softplus(), nn.Linear(8, 1)).to(dev)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                                    weight_decay=1e-3)
        x, y = torch.randn(16, 4).to(dev), torch.randn(16, 1).to(dev)
        optimizer.zero_grad()
        for xb, yb in zip(x.split(4), y.split(4), strict=True):
            loss = F.huber_loss(model(xb), yb) / 4
            loss.backward()
        optimizer.step()
        # a gradient penalty (double backward)
        xr = x.clone().requires_grad_(True)
        out = model(xr).sum()
        (g,) = torch.autograd.grad(out, xr, create_graph=True)
        penalty = (g.norm(2, dim=1) - 1).pow(2).mean()
        penalty.backward()
        target = model(x).detach()
        return {"grads": [p.grad for p in model.parameters()], "g": g, "penalty": penalty,
                "target": target, "vector": nn.utils.parameters_to_vector(model.parameters())}

    same_on_both(program)


def test_dataloader_epoch_loop_with_shuffle():

    def program(dev):
        x, y = digits(96)
        loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
        model = nn.Sequential(nn.Linear(64, 16), nn.ReLU6(), nn.Dropout(0.0), nn.Linear(16, 10))
        model.to(dev)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
        total = torch.zeros((), device=dev)
        for xb, yb in loader:
            xb, yb = xb.to(dev), yb.to(dev)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.detach() * len(yb)
            if dev == DEV:
                lt.mark_step()
        return {"mean_loss": (total / len(x)).item(), "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_init_functions_and_parametrizations_on_the_lazy_device():
    torch.manual_seed(0)
    layer = nn.Linear(16, 32).to(DEV)
    nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
    nn.init.zeros_(layer.bias)
    nn.init.xavier_uniform_(layer.weight[:4])
    w = layer.weight.detach().cpu()
    assert layer.bias.abs().sum().item() == 0
    assert 0.2 < w[4:].std().item() < 0.5  # sqrt(2 / 16) = 0.354
    bound = (6 / (16 + 4)) ** 0.5
    assert w[:4].abs().max().item() <= bound
    # weight normalization through torch.nn.utils.parametrizations

    def program(dev):
        lin = nn.utils.parametrizations.weight_norm(nn.Linear(5, 3)).to(dev)
        x = torch.randn(4, 5).to(dev)
        out = lin(x)
        out.sum().backward()
        return {"out": out, "g": lin.parametrizations.weight.original0.grad,
                "v": lin.parametrizations.weight.original1.grad}

    same_on_both(program)


def test_activation_checkpointing_replays_the_same_dropout_mask():
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Dropout(0.5), nn.Linear(16, 6))
    lazy_block = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Dropout(0.5),
                               nn.Linear(16, 6)).to(DEV)
    lazy_block.load_state_dict(block.state_dict())
    x = torch.randn(4, 6).to(DEV).requires_grad_()
    state = torch.get_rng_state()
    plain = lazy_block(x)
    plain.sum().backward()
    plain_grads = [x.grad.cpu()] + [p.grad.cpu() for p in lazy_block.parameters()]
    x.grad = None
    lazy_block.zero_grad()
    torch.set_rng_state(state)
    replayed = checkpoint(lazy_block, x, use_reentrant=False)
    replayed.sum().backward()
    # the recomputation saw the same mask: same output, same gradients
    compare(plain.detach().cpu(), replayed, 0, 0)
    compare(plain_grads, [x.grad] + [p.grad for p in lazy_block.parameters()], 1e-6, 1e-7)


def test_frozen_backbone_param_groups_adamw_and_requires_grad_toggling():
    def program(dev):
        backbone = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        head = nn.Linear(8, 3)
        model = nn.Sequential(backbone, head).to(dev)
        for p in backbone.parameters():
            p.requires_grad_(False)
        optimizer = torch.optim.AdamW([
            {"params": head.weight, "weight_decay": 0.1},
            {"params": head.bias, "weight_decay": 0.0, "lr": 0.05},
        ], lr=0.01)
        x, y = torch.randn(10, 6).to(dev), torch.randint(0, 3, (10,)).to(dev)
        losses = []
        for step in range(4):
            if step == 2:  # unfreeze half-way and add the backbone to the optimizer
                for p in backbone.parameters():
                    p.requires_grad_(True)
                optimizer.add_param_group({"params": backbone.parameters(), "lr": 1e-3})
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        grads = [p.grad is None for p in backbone.parameters()]
        return {"losses": losses, "weights": weights(model), "grads_none": grads,
                "lrs": [g["lr"] for g in optimizer.param_groups]}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_multitask_head_with_huber_poisson_multilabel_losses_and_plateau_scheduler():
    x = torch.randn(32, 10)
    reg, counts = torch.randn(32, 1) * 3, torch.poisson(torch.full((32, 1), 2.0))
    tags = (torch.rand(32, 5) < 0.3).float()

    def program(dev):
        torch.manual_seed(7)
        trunk = nn.Sequential(nn.Linear(10, 32), nn.GELU()).to(dev)
        heads = nn.ModuleDict({"reg": nn.Linear(32, 1), "count": nn.Linear(32, 1),
                               "tags": nn.Linear(32, 5)}).to(dev)
        params = list(trunk.parameters()) + list(heads.parameters())
        opt = torch.optim.Adagrad(params, lr=0.05)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)
        losses = {"reg": nn.HuberLoss(delta=1.0), "count": nn.PoissonNLLLoss(log_input=True),
                  "tags": nn.MultiLabelSoftMarginLoss()}
        targets = {"reg": reg.to(dev), "count": counts.to(dev), "tags": tags.to(dev)}
        xs, out = x.to(dev), []
        for epoch in range(4):
            h = trunk(xs)
            parts = {k: losses[k](heads[k](h), targets[k]) for k in heads}
            total = sum(parts.values())
            opt.zero_grad()
            total.backward()
            opt.step()
            sched.step(total.item() if epoch != 2 else 1e9)  # a bad epoch: the LR halves
            out += [{k: v.item() for k, v in parts.items()}, opt.param_groups[0]["lr"]]
        return out + [heads["tags"].weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_gradient_accumulation_with_tensor_dataset_and_dataloader():
    def program(dev):
        torch.manual_seed(3)
        x, y = torch.randn(48, 6), torch.randint(0, 3, (48,))
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8,
                                             shuffle=True,
                                             generator=torch.Generator().manual_seed(5))
        model = nn.Sequential(nn.Linear(6, 24), nn.SiLU(), nn.Dropout(0.0),
                              nn.Linear(24, 3)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        accum, out, first = 3, [], None
        opt.zero_grad()
        for i, (xb, yb) in enumerate(loader):
            xb, yb = xb.to(dev), yb.to(dev)
            loss = F.cross_entropy(model(xb), yb) / accum
            loss.backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.zero_grad(set_to_none=True)
                step_mark(dev)
                if i >= 5:
                    first = steady(dev, first)
            out.append(loss.detach())
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for xb, yb in torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y),
                                                      batch_size=16):
                pred = model(xb.to(dev)).argmax(1)
                correct += (pred == yb.to(dev)).sum().item()
                total += yb.numel()
        return out + [correct / total]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_lambda_multistep_chained_and_cyclic_schedulers_follow_torch():
    def program(dev):
        model = nn.Linear(4, 1).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / 3))
        steps = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[4, 6], gamma=0.5)
        sched = torch.optim.lr_scheduler.ChainedScheduler([warm, steps])
        opt2 = torch.optim.SGD(nn.Linear(4, 1).to(dev).parameters(), lr=0.1, momentum=0.9)
        cyclic = torch.optim.lr_scheduler.CyclicLR(opt2, 0.01, 0.1, step_size_up=2,
                                                   mode="triangular2")
        x = torch.randn(16, 4).to(dev)
        y = x.sum(1, keepdim=True)
        out, lrs, first = [], [], None
        for step in range(8):
            loss = F.smooth_l1_loss(model(x), y, beta=0.5)
            first = train_step(opt, loss, dev, out, step, first, settled=2)
            sched.step()
            cyclic.step()
            lrs.append((opt.param_groups[0]["lr"], opt2.param_groups[0]["lr"]))
        return out + [lrs, model.weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_alternating_freezing_with_requires_grad_and_in_place_detach():
    def program(dev):
        enc, dec = nn.Linear(6, 3).to(dev), nn.Linear(3, 6).to(dev)
        opt = torch.optim.SGD(list(enc.parameters()) + list(dec.parameters()), lr=0.1)
        x = torch.randn(8, 6).to(dev)
        out = []
        for step in range(4):
            train_enc = step % 2 == 0
            enc.requires_grad_(train_enc)
            dec.requires_grad_(not train_enc)
            code = enc(x)
            if not train_enc:
                code.detach_()
            loss = F.mse_loss(dec(code), x)
            opt.zero_grad(set_to_none=False)
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), code.requires_grad,
                    *(m.weight.grad.clone() for m in (enc, dec) if m.weight.grad is not None)]
        return out + [enc.weight, dec.bias]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_distillation_with_log_space_targets_and_a_float64_student_head():
    def program(dev):
        teacher = nn.Sequential(nn.Linear(6, 24), nn.BatchNorm1d(24), nn.ReLU(),
                                nn.Linear(24, 5)).to(dev).eval()
        student = nn.Sequential(nn.Linear(6, 8), nn.ReLU()).to(dev)
        head = nn.Linear(8, 5).to(dev).double()
        opt = torch.optim.SGD([*student.parameters(), *head.parameters()], lr=0.1,
                              momentum=0.9)
        x, y = torch.randn(3, 16, 6).to(dev), torch.randint(0, 5, (3, 16)).to(dev)
        temp, alpha = 3.0, 0.7
        out, first = [], None
        for step in range(3):
            with torch.no_grad():
                t_logp = F.log_softmax(teacher(x[step]) / temp, dim=-1)
            s_logits = head(student(x[step]).double())
            s_logp = F.log_softmax(s_logits / temp, dim=-1)
            kd = F.kl_div(s_logp, t_logp.double(), reduction="batchmean",
                          log_target=True) * temp ** 2
            loss = alpha * kd + (1 - alpha) * F.cross_entropy(s_logits, y[step])
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [s_logits.dtype == torch.float64, head.weight.grad, student[0].weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-6)


def test_distillation_with_temperature_kl_div_batchmean():
    def program(dev):
        teacher = nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.Linear(12, 5)).to(dev).eval()
        student = nn.Sequential(nn.Linear(6, 5)).to(dev)
        opt = torch.optim.NAdam(student.parameters(), lr=1e-2)
        x, y = torch.randn(8, 6).to(dev), torch.randint(0, 5, (8,)).to(dev)
        out = []
        for _ in range(3):
            with torch.no_grad():
                t = teacher(x)
            s = student(x)
            kd = F.kl_div(F.log_softmax(s / 2.0, -1), F.softmax(t / 2.0, -1),
                          reduction="batchmean") * 4.0
            kd2 = F.kl_div(F.log_softmax(s, -1), F.log_softmax(t, -1), reduction="sum",
                           log_target=True)
            loss = 0.7 * kd + 0.3 * F.cross_entropy(s, y, label_smoothing=0.1) + 0.01 * kd2
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.detach())
        return {"losses": torch.stack(out), "w": student[0].weight}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_reduce_lr_on_plateau_warm_restarts_and_sequential_lr():
    def program(dev):
        model = nn.Linear(4, 1).to(dev)
        opt = torch.optim.SGD([{"params": [model.weight], "lr": 0.1},
                               {"params": [model.bias], "lr": 0.05, "momentum": 0.9}])
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)
        opt2 = torch.optim.Adagrad(nn.Linear(4, 1).to(dev).parameters(), lr=0.1)
        seq = torch.optim.lr_scheduler.SequentialLR(opt2, [
            torch.optim.lr_scheduler.LinearLR(opt2, start_factor=0.1, total_iters=2),
            torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt2, T_0=2, T_mult=2)],
            milestones=[2])
        x, y = torch.randn(16, 4).to(dev), torch.randn(16, 1).to(dev)
        lrs, losses = [], []
        for _ in range(5):
            loss = F.mse_loss(model(x), y) + 1.0
            opt.zero_grad()
            loss.backward()
            opt.step()
            plateau.step(loss)  # a lazy 0-d tensor
            opt2.step()
            seq.step()
            lrs.append([g["lr"] for g in opt.param_groups] + seq.get_last_lr())
            losses.append(loss.detach())
        return {"lrs": lrs, "losses": torch.stack(losses), "w": model.weight}

    same_on_both(program, rtol=1e-5, atol=1e-6)


def test_schedulers_one_cycle_cosine_and_grad_hooks():
    def program(dev):
        model = nn.Linear(3, 3).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=6)
        seen = []
        x = torch.randn(4, 3).to(dev)
        out = []
        for _ in range(5):
            h = model(x)
            h.register_hook(lambda g: seen.append(g.abs().sum()) or g * 0.5)
            h.pow(2).mean().backward()
            opt.step()
            opt.zero_grad()
            sched.step()
            out.append(sched.get_last_lr()[0])
        return [out, seen, model.weight.detach()]

    same_on_both(program, rtol=1e-5, atol=1e-6)
