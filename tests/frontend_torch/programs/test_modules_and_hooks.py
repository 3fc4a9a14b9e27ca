"""Modules and hooks: custom modules, buffers, containers, initialisers,
train/eval switches, forward/backward hooks, parametrizations
(weight/spectral norm, pruning). Each program is written as a PyTorch user
writes it, run eagerly on the CPU and lazily on
``lazytensor.torch.device()`` from the same seed, and compared (values,
dtypes, shapes; see ``programs.py``); training programs also check that
later steps compile nothing new."""


from __future__ import annotations

import math

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from ..conftest import DEV
from ..lazy_vs_eager import (
    fallbacks,
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
    weights,
)


class RunningNorm(nn.Module):
    """Observation normalizer (RL style): running mean/var buffers updated
    in place under no_grad, a non-persistent count, NaN/inf sanitised."""

    def __init__(self, dim, clip=5.0):
        super().__init__()
        self.clip = clip
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))
        self.register_buffer("count", torch.tensor(1e-4), persistent=False)

    @torch.no_grad()
    def update(self, x):
        bm, bv, n = x.mean(0), x.var(0, unbiased=False), x.shape[0]
        delta, total = bm - self.mean, self.count + n
        self.mean += delta * n / total
        m2 = self.var * self.count + bv * n + delta ** 2 * self.count * n / total
        self.var.copy_(m2 / total)
        self.count.fill_(total)

    def forward(self, x):
        x = torch.nan_to_num(x, nan=0.0, posinf=1e3, neginf=-1e3)
        if self.training:
            self.update(x)
        return ((x - self.mean) / torch.sqrt(self.var + 1e-8)).clamp(-self.clip, self.clip)


def test_custom_module_with_buffers_parameters_and_functional_ops():
    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = nn.Parameter(torch.ones(8))
            self.register_buffer("steps", torch.zeros((), dtype=torch.long))
            self.proj = nn.Linear(8, 8, bias=False)

        def forward(self, x):
            self.steps += 1
            h = F.gelu(self.proj(x)) * self.scale
            attn = F.scaled_dot_product_attention(h[:, None], h[:, None], h[:, None],
                                                  is_causal=True)
            return F.normalize(x + attn.squeeze(1), dim=-1)

    def program(dev):
        model = nn.Sequential(Block(), nn.Linear(8, 2)).to(dev)
        optimizer = torch.optim.RMSprop(model.parameters(), lr=0.01)
        x = torch.randn(2, 5, 8).to(dev)
        for _ in range(2):
            optimizer.zero_grad()
            out = model(x)
            loss = out.pow(2).mean() + 0.01 * sum(p.abs().sum() for p in model.parameters())
            loss.backward()
            optimizer.step()
        return {"out": out, "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_running_normalizer_buffers_nan_to_num_and_a_value_head():
    def program(dev):
        norm = RunningNorm(4).to(dev)
        head = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1)).to(dev)
        opt = torch.optim.Adam(head.parameters(), lr=3e-3)
        obs = torch.randn(4, 32, 4) * torch.tensor([1.0, 10.0, 0.1, 3.0]) + 2
        obs[1, 3, 2], obs[2, 5, 0], obs[3, 0, 1] = float("nan"), float("inf"), -float("inf")
        obs, returns = obs.to(dev), torch.randn(4, 32, 1).to(dev)
        out, first = [], None
        for step in range(4):
            v = head(norm(obs[step]))
            err = torch.where(torch.isfinite(v), v - returns[step], torch.zeros_like(v))
            loss = 0.5 * err.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), norm.mean.clone()]
            if step >= 2:
                first = steady(dev, first)
        norm.eval()
        frozen = norm(obs[0])
        return out + [frozen, norm.var, norm.count, sorted(norm.state_dict())]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_initializers_on_lazy_parameters_then_the_same_forward_on_both_devices():
    net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(),
                        nn.Linear(16, 3)).to(DEV)
    start = fallbacks()
    with torch.no_grad():
        nn.init.trunc_normal_(net[0].weight, std=0.5, a=-0.6, b=0.6)
        nn.init.orthogonal_(net[2].weight, gain=2.0)
        nn.init.kaiming_uniform_(net[4].weight, a=math.sqrt(5))
        nn.init.xavier_normal_(net[4].weight, gain=nn.init.calculate_gain("tanh"))
        nn.init.zeros_(net[0].bias)
        nn.init.constant_(net[2].bias, 0.1)
    lt.mark_step()
    assert fallbacks() == start
    w0, w2 = net[0].weight.cpu(), net[2].weight.cpu()
    assert w0.abs().max() <= 0.6 and w0.std() > 0.2
    torch.testing.assert_close(w2 @ w2.T, 4 * torch.eye(16), atol=1e-4, rtol=0)
    state = {k: v.cpu() for k, v in net.state_dict().items()}
    x = torch.randn(4, 8)
    cpu = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(),
                        nn.Linear(16, 3))
    cpu.load_state_dict(state)
    torch.testing.assert_close(net(x.to(DEV)).cpu(), cpu(x), rtol=1e-4, atol=1e-5)
    assert fallbacks() == start


def test_train_eval_switching_with_dropout_batchnorm_flatten_unflatten_and_inference_mode():
    def program(dev):
        model = nn.Sequential(
            nn.Unflatten(1, (1, 8, 8)), nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4),
            nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.0), nn.Linear(64, 10),
            nn.BatchNorm1d(10, momentum=None)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        x, y = torch.randn(5, 16, 64).to(dev), torch.randint(0, 10, (5, 16)).to(dev)
        out, first = [], None
        for step in range(4):
            model.train()
            loss = F.cross_entropy(model(x[step]), y[step])
            first = train_step(opt, loss, dev, out, step, first, settled=2)
            model.eval()
            with torch.inference_mode():
                acc = (model(x[4]).argmax(1) == y[4]).float().mean()
            out.append(acc)
        assert not acc.requires_grad and acc.is_inference()
        return out + [model[2].running_mean, model[2].num_batches_tracked,
                      model[8].running_var, model[8].num_batches_tracked]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_multi_task_heads_in_a_module_dict_with_a_parameter_list_of_task_weights():
    class MultiTask(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
            self.heads = nn.ModuleDict({"cls": nn.Linear(12, 3), "reg": nn.Linear(12, 1)})
            self.log_vars = nn.ParameterList([nn.Parameter(torch.zeros(())) for _ in range(2)])

        def forward(self, x):
            h = self.trunk(x)
            return {name: head(h) for name, head in self.heads.items()}

    def program(dev):
        model = MultiTask().to(dev)
        decay = [p for n, p in model.named_parameters() if n.endswith("weight")]
        rest = [p for n, p in model.named_parameters() if not n.endswith("weight")]
        opt = torch.optim.Adam([{"params": decay, "weight_decay": 1e-2}, {"params": rest}],
                               lr=1e-2)
        x = torch.randn(20, 6).to(dev)
        cls, reg = torch.randint(0, 3, (20,)).to(dev), torch.randn(20, 1).to(dev)
        out, first = [], None
        for step in range(3):
            pred = model(x)
            losses = [F.cross_entropy(pred["cls"], cls), F.mse_loss(pred["reg"], reg)]
            loss = sum(torch.exp(-s) * l + s for s, l in zip(model.log_vars, losses, strict=True))
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [p.detach() for p in model.log_vars] + [model.heads["reg"].bias]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_feature_matching_with_forward_hooks_backward_hooks_and_gradient_scaling():
    def program(dev):
        teacher = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU()).to(dev)
        student = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU()).to(dev)
        teacher.requires_grad_(False)
        feats, grads_seen = {}, []

        def keep(name):
            def hook(module, args, output):
                feats[name] = output
            return hook

        handles = [teacher[1].register_forward_hook(keep("t")),
                   student[1].register_forward_hook(keep("s")),
                   student[2].register_full_backward_hook(
                       lambda m, gin, gout: grads_seen.append(gout[0].norm()))]
        opt = torch.optim.SGD(student.parameters(), lr=0.1)
        x = torch.randn(12, 5).to(dev)
        out = []
        for step in range(3):
            with torch.no_grad():
                target = teacher(x)
            pred = student(x)
            feats["s"].register_hook(lambda g: g * 0.5)
            loss = F.mse_loss(pred, target) + F.mse_loss(feats["s"], feats["t"])
            train_step(opt, loss, dev, out, step, None, settled=9)
        for h in handles:
            h.remove()
        student(x)
        return out + grads_seen + [student[0].weight.grad, len(grads_seen)]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


# slow: 25 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_tabular_embeddings_per_column_with_cross_layers_and_a_seeded_dataloader():
    cardinalities = [5, 7, 3]

    class CrossNet(nn.Module):
        def __init__(self, numeric=4):
            super().__init__()
            self.embeds = nn.ModuleList(nn.Embedding(n, min(4, (n + 1) // 2))
                                        for n in cardinalities)
            width = numeric + sum(e.embedding_dim for e in self.embeds)
            self.cross = nn.ModuleList(nn.Linear(width, width) for _ in range(2))
            self.deep = nn.Sequential(nn.Linear(width, 16), nn.ReLU(), nn.Linear(16, 8))
            self.out = nn.Linear(width + 8, 1)
            self.norm = nn.BatchNorm1d(numeric)

        def forward(self, cats, nums):
            cols = [emb(cats[:, i]) for i, emb in enumerate(self.embeds)]
            x0 = torch.cat([self.norm(nums), *cols], dim=1)
            x = x0
            for layer in self.cross:
                x = x0 * layer(x) + x
            return self.out(torch.cat([x, self.deep(x0)], dim=1)).squeeze(1)

    cats = torch.stack([torch.randint(0, n, (40,)) for n in cardinalities], dim=1)
    nums, target = torch.randn(40, 4), (torch.rand(40) < 0.3).float()
    data = TensorDataset(cats, nums, target)

    def program(dev):
        model = CrossNet().to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
        loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(2.0, device=dev))
        loader = DataLoader(data, batch_size=8, shuffle=True,
                            generator=torch.Generator().manual_seed(3))
        out, first = [], None
        for epoch in range(3):
            total = torch.zeros((), device=dev)
            for step, (c, x, y) in enumerate(loader):
                c, x, y = c.to(dev), x.to(dev), y.to(dev)
                loss = loss_fn(model(c, x), y)
                first = train_step(opt, loss, dev, out, step + 5 * epoch, first, settled=6)
                total += loss.detach() * y.size(0)
            out.append(total / len(data))
        model.eval()
        with torch.no_grad():
            prob = torch.sigmoid(model(cats.to(dev), nums.to(dev)))
        pred = (prob > 0.5).float()
        tp = (pred * target.to(dev)).sum()
        precision = tp / pred.sum().clamp(min=1)
        return out + [prob, precision.item(), model.embeds[1].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_magnitude_pruning_and_weight_norm_spectral_norm_parametrizations():
    import torch.nn.utils.prune as prune
    from torch.nn.utils import parametrizations as P

    def program(dev):
        net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to(dev)
        prune.l1_unstructured(net[0], "weight", amount=0.4)
        prune.random_unstructured(net[2], "bias", amount=0.0)
        sn = P.spectral_norm(nn.Linear(3, 3)).to(dev)
        wn = P.weight_norm(nn.Linear(3, 2), dim=0).to(dev)
        opt = torch.optim.Adam([*net.parameters(), *sn.parameters(), *wn.parameters()], lr=1e-2)
        x = torch.randn(5, 6).to(dev)
        for _ in range(2):
            y = wn(sn(net(x)))
            loss = y.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sparsity = (net[0].weight == 0).float().mean()
        prune.remove(net[0], "weight")
        sn.eval()
        return {"y": y, "sparsity": sparsity, "w": net[0].weight, "mask": net[0].weight != 0,
                "u": sn.parametrizations.weight[0]._u, "sn": sn.weight, "wn": wn.weight,
                "keys": sorted(net.state_dict().keys())}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_full_backward_hooks_parameters_to_vector_and_swa():
    from torch.nn.utils import parameters_to_vector, vector_to_parameters
    from torch.optim.swa_utils import SWALR, AveragedModel, update_bn

    def program(dev):
        model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(),
                              nn.Linear(6, 2)).to(dev)
        seen = []
        model[0].register_full_backward_hook(lambda m, gi, go: seen.append(go[0].sum()))
        model[3].register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
        swa = AveragedModel(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = SWALR(opt, swa_lr=0.05, anneal_epochs=2)
        data = [torch.randn(8, 4).to(dev) for _ in range(3)]
        for x in data:
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type=float("inf"),
                                     foreach=True)
            opt.step()
            swa.update_parameters(model)
            sched.step()
        update_bn(data, swa)
        vec = parameters_to_vector(model.parameters())
        vector_to_parameters(vec * 0.5, model.parameters())
        return {"vec": vec, "seen": torch.stack(seen), "swa": list(swa.parameters()),
                "bn": swa.module[1].running_mean, "n": swa.n_averaged,
                "half": model[0].weight, "lr": opt.param_groups[0]["lr"]}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_hooks_that_modify_inputs_outputs_grads_and_step_in_backward():
    def program(dev):
        model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2)).to(dev)
        log = []
        h1 = model[0].register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        h2 = model[1].register_forward_hook(lambda m, a, out: out.clamp(max=0.5))
        h3 = model[2].register_full_backward_pre_hook(lambda m, g: (g[0] * 3,))
        h4 = model[2].register_forward_hook(
            lambda m, args, kwargs, out: log.append(out.detach().sum()), with_kwargs=True)
        steps = []
        def step(p):
            p.data.sub_(0.1 * p.grad)
            steps.append(p.grad.norm())

        for p in model.parameters():
            p.register_post_accumulate_grad_hook(step)
        x = torch.randn(5, 4).to(dev).requires_grad_()
        x.register_hook(lambda g: g * -1)
        y = model(x)
        y.sum().backward()
        for h in (h1, h2, h3, h4):
            h.remove()
        return [y, x.grad, log, steps, model[0].weight, model(x)]

    same_on_both(program)


def test_parameter_reassignment_requires_grad_toggles_and_detach_():
    def program(dev):
        model = nn.Linear(3, 2).to(dev)
        model.weight = nn.Parameter(torch.ones(2, 3).to(dev))
        model.bias.requires_grad_(False)
        x = torch.randn(4, 3).to(dev)
        model(x).sum().backward()
        g1 = model.weight.grad.clone()
        bias_grad = model.bias.grad
        model.bias.requires_grad_(True)
        h = model(x)
        h2 = h * 2
        h2.detach_()
        model.weight.requires_grad_(False)
        model(x).pow(2).sum().backward()
        return [g1, bias_grad is None, model.bias.grad, h2, h2.requires_grad,
                model.weight.requires_grad,
                isinstance(model.weight, nn.Parameter)]

    same_on_both(program)
