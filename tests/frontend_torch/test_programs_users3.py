"""More ordinary PyTorch programs (reinforcement learning, text generation,
rendering, vision transformers, physics-informed training, flows, graph
networks...) run eagerly on the CPU and lazily from the same seed and
compared (values, dtypes, shapes; see ``lazy_vs_eager.py``)."""

from __future__ import annotations

import copy
import io
import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import fallbacks as fallbacks_now
from .lazy_vs_eager import same_on_both, same_outcomes, steady, step_mark


def test_dqn_with_target_network_gather_and_replay_indices():
    def program(dev):
        q_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3)).to(dev)
        target = copy.deepcopy(q_net)
        opt = torch.optim.Adam(q_net.parameters(), lr=1e-3)
        n = 64
        states, next_states = torch.randn(n, 4).to(dev), torch.randn(n, 4).to(dev)
        actions, rewards = torch.randint(0, 3, (n,)).to(dev), torch.randn(n).to(dev)
        dones = (torch.rand(n) < 0.2).to(dev)
        batches = torch.randint(0, n, (6, 16))
        out, first = [], None
        for step, idx in enumerate(batches):
            idx = idx.to(dev)
            q = q_net(states[idx]).gather(1, actions[idx].unsqueeze(1)).squeeze(1)
            with torch.no_grad():
                next_q = target(next_states[idx]).max(1)[0]
                expected = rewards[idx] + 0.99 * next_q * (1 - dones[idx].float())
            loss = F.smooth_l1_loss(q, expected)
            opt.zero_grad()
            loss.backward()
            for p in q_net.parameters():
                p.grad.data.clamp_(-1, 1)
            opt.step()
            if step % 3 == 2:
                target.load_state_dict(q_net.state_dict())
            step_mark(dev)
            out.append(loss.detach())
            if step >= 3:
                first = steady(dev, first)
        greedy = q_net(states[:8]).argmax(dim=1)
        return out + [greedy, [p.detach() for p in target.parameters()]]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_ppo_clipped_objective_with_gae_written_element_by_element():
    def program(dev):
        actor = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 4)).to(dev)
        critic = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1)).to(dev)
        opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=3e-3, eps=1e-5)
        T = 8
        obs, rewards = torch.randn(T + 1, 3).to(dev), torch.randn(T).to(dev)
        actions, dones = torch.randint(0, 4, (T,)).to(dev), torch.zeros(T, device=dev)
        dones[4] = 1.0
        with torch.no_grad():
            values = critic(obs).squeeze(-1)
            old_logp = torch.distributions.Categorical(logits=actor(obs[:T])).log_prob(actions)
        adv = torch.zeros(T, device=dev)
        last = 0
        for t in reversed(range(T)):
            nonterminal = 1.0 - dones[t]
            delta = rewards[t] + 0.99 * values[t + 1] * nonterminal - values[t]
            last = delta + 0.99 * 0.95 * nonterminal * last
            adv[t] = last
        returns = adv + values[:T]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        out = [adv, returns]
        for _ in range(3):
            dist = torch.distributions.Categorical(logits=actor(obs[:T]))
            ratio = (dist.log_prob(actions) - old_logp).exp()
            surr = torch.min(ratio * adv, torch.clamp(ratio, 0.8, 1.2) * adv)
            v_loss = 0.5 * (critic(obs[:T]).squeeze(-1) - returns).pow(2).mean()
            loss = -surr.mean() + 0.5 * v_loss - 0.01 * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters()], 0.5)
            opt.step()
            clip_frac = ((ratio - 1.0).abs() > 0.2).float().mean()
            out += [loss.detach(), clip_frac, dist.probs.detach()]
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, block):
        super().__init__()
        self.qkv, self.proj, self.heads = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim), heads
        self.register_buffer("bias", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))


class TinyGPT(nn.Module):
    def __init__(self, vocab=16, dim=16, block=8):
        super().__init__()
        self.block = block
        self.tok, self.pos = nn.Embedding(vocab, dim), nn.Embedding(block, dim)
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, 2, block)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * dim, dim))
        self.head = nn.Linear(dim, vocab, bias=False)
        self.tok.weight = self.head.weight

    def forward(self, idx):
        pos = torch.arange(0, idx.size(1), dtype=torch.long, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        x = x + self.attn(self.ln1(x))
        return self.head(x + self.mlp(self.ln2(x)))


def test_tiny_gpt_training_and_top_k_top_p_filtered_generation():
    def program(dev):
        model = TinyGPT().to(dev)
        decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                 {"params": no_decay, "weight_decay": 0.0}], lr=3e-3)
        data = torch.randint(0, 16, (4, 9)).to(dev)
        out = []
        for _ in range(2):
            logits = model(data[:, :-1])
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), data[:, 1:].reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            out.append(loss.detach())
        model.eval()
        idx = data[:2, :3]
        with torch.no_grad():
            for _ in range(4):
                logits = model(idx[:, -model.block:])[:, -1, :] / 0.8
                v, _ = torch.topk(logits, 5)
                logits[logits < v[:, [-1]]] = -float("Inf")
                sorted_logits, sorted_idx = torch.sort(logits, descending=True)
                cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
                remove = cum > 0.9
                remove[..., 1:] = remove[..., :-1].clone()
                remove[..., 0] = 0
                logits[remove.scatter(1, sorted_idx, remove)] = float("-inf")
                out.append(F.softmax(logits, dim=-1))
                idx = torch.cat((idx, torch.argmax(logits, -1, keepdim=True)), dim=1)
        return out + [idx]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_nerf_style_positional_encoding_and_volume_rendering():
    def encode(x, n_freqs=4):
        out = [x]
        for k in range(n_freqs):
            out += [torch.sin((2.0 ** k) * x), torch.cos((2.0 ** k) * x)]
        return torch.cat(out, dim=-1)

    def program(dev):
        mlp = nn.Sequential(nn.Linear(27, 32), nn.ReLU(), nn.Linear(32, 4)).to(dev)
        opt = torch.optim.Adam(mlp.parameters(), lr=5e-3)
        rays_o, rays_d = torch.randn(8, 3).to(dev), F.normalize(torch.randn(8, 3), dim=-1).to(dev)
        target = torch.rand(8, 3).to(dev)
        t_vals = torch.linspace(2.0, 6.0, 12, device=dev)
        out = []
        for _ in range(3):
            z = t_vals.expand(8, 12)
            pts = rays_o[..., None, :] + rays_d[..., None, :] * z[..., :, None]
            raw = mlp(encode(pts))
            rgb, sigma = torch.sigmoid(raw[..., :3]), F.relu(raw[..., 3])
            dists = torch.cat([z[..., 1:] - z[..., :-1], torch.full_like(z[..., :1], 1e10)], -1)
            alpha = 1.0 - torch.exp(-sigma * dists)
            trans = torch.cumprod(torch.cat([torch.ones_like(alpha[..., :1]),
                                             1.0 - alpha + 1e-10], -1), -1)[..., :-1]
            weights = alpha * trans
            color = torch.sum(weights[..., None] * rgb, dim=-2)
            depth = torch.sum(weights * z, -1)
            loss = F.mse_loss(color, target)
            psnr = -10.0 * torch.log10(loss)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.detach(), psnr.detach(), depth.detach()]
        cdf = torch.cumsum(weights.detach() + 1e-5, -1)
        cdf = cdf / cdf[..., -1:]
        u = torch.linspace(0, 1, 5, device=dev).expand(8, 5).contiguous()
        return out + [torch.searchsorted(cdf, u, right=True)]

    same_on_both(program, rtol=1e-4, atol=1e-4)


# ~9 s on a CI worker (XLA compiles of its training step): CI's test step is at its budget
@pytest.mark.slow
def test_vit_patch_embedding_with_unfold_class_token_and_label_smoothing():
    class ViT(nn.Module):
        def __init__(self, patch=4, dim=16):
            super().__init__()
            self.patch = patch
            self.embed = nn.Linear(patch * patch * 3, dim)
            self.cls = nn.Parameter(torch.zeros(1, 1, dim))
            self.pos = nn.Parameter(torch.randn(1, 5, dim) * 0.02)
            self.block = nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True,
                                                    norm_first=True, activation="gelu")
            self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, 5)

        def forward(self, x):
            p = self.patch
            patches = x.unfold(2, p, p).unfold(3, p, p)  # B C h w p p
            patches = patches.permute(0, 2, 3, 1, 4, 5).flatten(3).flatten(1, 2)
            tokens = torch.cat([self.cls.expand(x.shape[0], -1, -1), self.embed(patches)], 1)
            h = self.block(tokens + self.pos)
            return self.head(self.norm(h[:, 0]))

    def program(dev):
        model = ViT().to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        x, y = torch.randn(6, 3, 8, 8).to(dev), torch.randint(0, 5, (6,)).to(dev)
        crit = nn.CrossEntropyLoss(label_smoothing=0.1)
        out, first = [], None
        for step in range(4):
            x_aug = torch.flip(x, dims=[3]) if step % 2 else x
            loss = crit(model(x_aug), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step_mark(dev)
            out += [loss.detach(), opt.param_groups[0]["lr"]]
            if step >= 2:
                first = steady(dev, first)
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_wgan_critic_weight_clipping_and_fgsm_adversarial_examples():
    def program(dev):
        critic = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1)).to(dev)
        gen = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2)).to(dev)
        opt_c = torch.optim.RMSprop(critic.parameters(), lr=5e-3)
        opt_g = torch.optim.RMSprop(gen.parameters(), lr=5e-3)
        real, z = torch.randn(32, 2).to(dev) + 1, torch.randn(32, 3).to(dev)
        out = []
        for step in range(4):
            c_loss = critic(gen(z).detach()).mean() - critic(real).mean()
            opt_c.zero_grad()
            c_loss.backward()
            opt_c.step()
            for p in critic.parameters():
                p.data.clamp_(-0.05, 0.05)
            if step % 2 == 1:
                g_loss = -critic(gen(z)).mean()
                opt_g.zero_grad()
                g_loss.backward()
                opt_g.step()
                out.append(g_loss.detach())
            out.append(c_loss.detach())
        x = real[:8].clone()
        x.requires_grad = True
        loss = critic(x).sum()
        loss.backward()
        x_adv = torch.clamp(x + 0.1 * x.grad.sign(), -3, 3).detach()
        return out + [x.grad, x_adv, critic(x_adv).detach()]

    same_on_both(program, rtol=1e-4, atol=1e-6)


def test_physics_informed_network_with_second_derivatives():
    def program(dev):
        net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                            nn.Linear(16, 1)).to(dev)
        opt = torch.optim.Adam(net.parameters(), lr=1e-2)
        x = torch.linspace(0, math.pi, 20, device=dev).unsqueeze(1).requires_grad_(True)
        x0 = torch.tensor([[0.0], [math.pi]], device=dev)
        out = []
        for _ in range(3):
            u = net(x)
            du = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
            d2u = torch.autograd.grad(du, x, torch.ones_like(du), create_graph=True)[0]
            residual = d2u + torch.sin(x)
            loss = residual.pow(2).mean() + net(x0).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.detach(), du.detach()]
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_realnvp_coupling_flow_log_likelihood():
    class Coupling(nn.Module):
        def __init__(self, flip):
            super().__init__()
            self.flip = flip
            self.net = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 4))

        def forward(self, x):
            a, b = x.chunk(2, dim=1)
            if self.flip:
                a, b = b, a
            s, t = self.net(a).chunk(2, dim=1)
            s = torch.tanh(s)
            b = b * torch.exp(s) + t
            y = torch.cat([b, a], 1) if self.flip else torch.cat([a, b], 1)
            return y, s.sum(1)

    def program(dev):
        flows = nn.ModuleList([Coupling(i % 2 == 1) for i in range(4)]).to(dev)
        opt = torch.optim.Adam(flows.parameters(), lr=1e-2)
        prior = torch.distributions.Normal(torch.zeros(4, device=dev), torch.ones(4, device=dev))
        x = torch.randn(32, 4).to(dev) @ torch.tensor([[1.0, 0.5, 0, 0], [0, 1, 0, 0],
                                                          [0, 0, 2, 0], [0, 0, 0.3, 1]]).to(dev)
        out = []
        for _ in range(3):
            z, log_det = x, torch.zeros(x.size(0), device=dev)
            for f in flows:
                z, ld = f(z)
                log_det = log_det + ld
            nll = -(prior.log_prob(z).sum(1) + log_det).mean()
            opt.zero_grad()
            nll.backward()
            opt.step()
            out += [nll.detach(), z.detach().std(0)]
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_state_dict_bytes_io_round_trip_and_early_stopping_best_weights():
    def program(dev):
        model = nn.Sequential(nn.Linear(3, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 1)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.2)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)
        x, y = torch.randn(20, 3).to(dev), torch.randn(20, 1).to(dev)
        best, best_state, out = float("inf"), None, []
        for _ in range(5):
            loss = F.mse_loss(model(x[:15]), y[:15])
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                val = F.mse_loss(model(x[15:]), y[15:]).item()
            sched.step(val)
            if val < best:
                best, best_state = val, copy.deepcopy(model.state_dict())
            out += [val, opt.param_groups[0]["lr"]]
        buf = io.BytesIO()
        torch.save({"model": best_state, "opt": opt.state_dict()}, buf)
        buf.seek(0)
        ckpt = torch.load(buf, weights_only=True)
        fresh = nn.Sequential(nn.Linear(3, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 1)).to(dev)
        fresh.load_state_dict(ckpt["model"])
        with torch.no_grad():
            restored = F.mse_loss(fresh(x[15:]), y[15:]).item()
        return out + [best, restored, fresh(x).detach()]

    same_on_both(program, rtol=1e-4, atol=1e-6)


def test_mixup_with_beta_and_dirichlet_sampling_is_lowered():
    """Beta, Dirichlet, Gamma and StudentT draws (torch's
    _standard_gamma and _sample_dirichlet kernels) are recorded, not run
    eagerly: the program trains with no fallback; the draws follow the
    same distributions as eager torch's (moments of 20000 draws; the
    streams differ, as for every lazy random op)."""
    def program(dev):
        model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(16, 6).to(dev), torch.randint(0, 3, (16,)).to(dev)
        beta = torch.distributions.Beta(torch.tensor(0.4, device=dev),
                                        torch.tensor(0.4, device=dev), validate_args=False)
        losses = []
        for _ in range(3):
            lam = beta.sample()
            perm = torch.randperm(16, device=dev)
            mixed = lam * x + (1 - lam) * x[perm]
            out = model(mixed)
            loss = lam * F.cross_entropy(out, y) + (1 - lam) * F.cross_entropy(out, y[perm])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        conc, dist = torch.tensor([0.3, 1.0, 4.0], device=dev), torch.distributions
        draws = {  # (argument validation reads values: a barrier per distribution)
            "beta": beta.sample((20000,)),
            "dirichlet": dist.Dirichlet(conc, validate_args=False).sample((20000,)),
            "gamma": dist.Gamma(conc, torch.tensor(2.0, device=dev), validate_args=False)
            .sample((20000,)),
            "student": dist.StudentT(torch.tensor(5.0, dtype=torch.float64, device=dev),
                                     validate_args=False).sample((20000,)),
        }
        return losses, draws

    torch.manual_seed(0)
    eager_losses, eager = program(torch.device("cpu"))
    torch.manual_seed(0)
    fallbacks = fallbacks_now()
    lazy_losses, lazy = program(DEV)
    assert fallbacks_now() == fallbacks
    assert all(torch.isfinite(t.cpu()).all() for t in lazy_losses)
    for name, e in eager.items():
        a = lazy[name].cpu()
        assert (a.dtype, a.shape) == (e.dtype, e.shape), name
        assert (a > 0).all() or name == "student", name
        torch.testing.assert_close(a.mean(0), e.mean(0), rtol=0.05, atol=0.03, msg=name)
        torch.testing.assert_close(a.std(0), e.std(0), rtol=0.08, atol=0.03, msg=name)
    assert torch.allclose(lazy["dirichlet"].sum(1).cpu(), torch.ones(20000))


def test_evaluation_loop_accumulating_predictions_from_an_empty_tensor():
    """torch.cat skips 1-d empty tensors but promotes with their dtype:
    predictions (int64) appended to ``torch.tensor([])`` are float32. The
    lazy cat gave int64 (silently another dtype)."""
    def program(dev):
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(dev)
        x, y = torch.randn(30, 4), torch.randint(0, 3, (30,))
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
        all_preds, all_labels = torch.tensor([], device=dev), torch.tensor([], device=dev)
        all_probs = torch.empty(0, device=dev)
        model.eval()
        with torch.no_grad():
            for xb, yb in loader:
                logits = model(xb.to(dev))
                all_preds = torch.cat((all_preds, logits.argmax(1)))
                all_labels = torch.cat([all_labels, yb.to(dev)])
                all_probs = torch.cat([all_probs, logits.softmax(1).max(1).values])
        acc = (all_preds == all_labels).float().mean()
        confident = all_preds[all_probs > all_probs.median()]
        return [all_preds, all_labels, all_probs, acc, confident,
                torch.cat([torch.tensor([], device=dev), torch.empty(0, dtype=torch.long,
                                                                     device=dev)])]

    same_on_both(program, rtol=1e-5, atol=1e-6)


def test_gamma_reparameterized_gradients_are_lowered():
    """Gamma.rsample's backward (torch's _standard_gamma_grad) is recorded,
    not run eagerly: the pathwise gradient of E[z^2] for z ~ Gamma(a, b) over
    20000 draws matches the exact (2a + 1) / b^2 and eager torch's estimate
    (the draws differ); the kernel itself matches torch's to its 1.3e-4."""
    def program(dev):
        log_a = torch.tensor([0.2, 1.0], device=dev).log().requires_grad_(True)
        rate = torch.tensor([1.0, 2.0], device=dev).requires_grad_(True)
        opt = torch.optim.SGD([log_a, rate], lr=0.0)
        z = torch.distributions.Gamma(log_a.exp(), rate).rsample((20000,))
        loss = z.pow(2).mean(0).sum()
        opt.zero_grad()
        loss.backward()
        a, b = log_a.detach().exp(), rate.detach()
        return log_a.grad / a, (2 * a + 1) / b ** 2, rate.grad, -2 * a * (a + 1) / b ** 3

    torch.manual_seed(0)
    eager = program(torch.device("cpu"))
    torch.manual_seed(0)
    before = fallbacks_now()
    lazy = [t.cpu() for t in program(DEV)]
    assert fallbacks_now() == before
    for got, want in ((lazy[0], lazy[1]), (eager[0], eager[1]), (lazy[2], lazy[3])):
        torch.testing.assert_close(got, want, rtol=0.05, atol=0.01)
    alpha = torch.tensor([0.05, 0.9, 2.5, 30.0, 0.5, 3.0], dtype=torch.float64)
    x = torch.tensor([0.001, 0.7, 2.0, 28.0, 3.0, 0.05], dtype=torch.float64)
    for dtype in (torch.float32, torch.float64):
        want = torch._standard_gamma_grad(alpha.to(dtype), x.to(dtype))
        got = torch._standard_gamma_grad(alpha.to(dtype).to(DEV), x.to(dtype).to(DEV))
        assert got.dtype == dtype
        torch.testing.assert_close(got.cpu(), want, rtol=3e-4, atol=0)


def test_class_index_targets_of_other_integer_dtypes_raise_as_torch():
    """Segmentation masks read from numpy often arrive as int32: torch's
    losses reject them (nll_loss/cross_entropy take int64 or uint8, the 2-d
    form and multi_margin_loss int64 only); the lazy losses computed them."""
    def program(dev):
        logits = torch.arange(24.0).reshape(2, 3, 2, 2).to(dev)
        mask = torch.tensor([[[0, 1], [2, 1]], [[2, 2], [0, 1]]])
        calls = []
        for dtype in (torch.int32, torch.uint8, torch.int16, torch.bool, torch.int64):
            m = mask.to(dtype).to(dev)
            calls += [lambda m=m: F.cross_entropy(logits, m),
                      lambda m=m: F.cross_entropy(logits[..., 0, 0], m[:, 0, 0]),
                      lambda m=m: F.nll_loss(logits[..., 0, 0].log_softmax(1), m[:, 0, 0]),
                      lambda m=m: F.multi_margin_loss(logits[..., 0, 0], m[:, 0, 0])]
        # (values compared exactly: rounded to 3 decimals)
        return [lambda call=call: call().round(decimals=3) for call in calls]

    same_outcomes(program)


def test_message_passing_with_compact_index_dtypes_follows_torchs_checks():
    """Edge lists stored compactly (int32, int16, uint8) or as floats: each
    gather/scatter/index_*/take/embedding accepts the index dtypes torch
    accepts and raises torch's error otherwise (the lazy ops computed with
    any integer index, and raised IndexError for float or bool indices);
    torch.where still takes a uint8 condition, with torch's warning."""
    def program(dev):
        h = torch.arange(12.0).reshape(4, 3).to(dev)
        calls = []
        for dtype in (torch.int64, torch.int32, torch.int16, torch.uint8, torch.float32,
                      torch.bool):
            src = torch.tensor([0, 1, 3, 1]).to(dtype).to(dev)
            dst = torch.tensor([1, 2, 0, 0]).to(dtype).to(dev)
            # (contiguous: eager CPU gather misreads an expanded int32 index)
            rows = src.view(4, 1).expand(4, 3).contiguous()
            calls += [lambda s=src: h.index_select(0, s),
                      lambda s=src, d=dst: torch.zeros_like(h).index_add_(0, d, h[s.long()]),
                      lambda s=src: torch.zeros_like(h).index_copy(0, s[:2], h[:2]),
                      lambda s=src: h.index_fill(0, s[:1], -1.0),
                      lambda r=rows: h.gather(0, r),
                      lambda r=rows: torch.zeros_like(h).scatter_add_(0, r, h),
                      lambda r=rows: torch.zeros_like(h).scatter_reduce(0, r, h, "amax"),
                      lambda r=rows: torch.zeros_like(h).scatter_(0, r, 1.0),
                      lambda s=src: torch.take(h, s)]
            if dtype != torch.bool:  # (torch names a bool tensor's type CPUBoolType there)
                calls.append(lambda s=src: F.embedding(s, h))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # where's uint8 deprecation warning
            calls.append(lambda: torch.where(torch.tensor([0, 2], dtype=torch.uint8).to(dev),
                                             h[0, :2], 0.0))
        return calls

    same_outcomes(program)
    with pytest.warns(UserWarning, match="uint8 condition"):
        torch.where(torch.tensor([1], dtype=torch.uint8).to(DEV), 1.0, 0.0)
