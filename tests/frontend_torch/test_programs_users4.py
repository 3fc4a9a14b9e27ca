"""More ordinary PyTorch programs (diffusion, vector quantization, mixture
density networks, U-Nets, mixture-of-experts routing, neural ODEs, masked
convolutions, hand-written optimizers...) run eagerly on the CPU and lazily
from the same seed and compared (values, dtypes, shapes; see
``programs.py``); where a program marks steps, the later steps must neither
recompile nor fall back."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import fallbacks as fallbacks_now
from .lazy_vs_eager import same_on_both, steady, step_mark, train_step


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.sin(args), torch.cos(args)], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, dim=2, hidden=32, temb=8):
        super().__init__()
        self.temb = temb
        self.net = nn.Sequential(nn.Linear(dim + temb, hidden), nn.SiLU(),
                                 nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.net(torch.cat([x, timestep_embedding(t, self.temb)], dim=-1))


def test_ddpm_training_step_and_ancestral_sampling_with_schedule_buffers():
    def program(dev):
        T = 50
        betas = torch.linspace(1e-4, 0.02, T, device=dev)
        alphas = 1.0 - betas
        alphas_cumprod = torch.cumprod(alphas, dim=0)
        sqrt_ab, sqrt_1mab = alphas_cumprod.sqrt(), (1.0 - alphas_cumprod).sqrt()
        model = Denoiser().to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        data = (torch.randn(5, 32, 2) * torch.tensor([1.0, 0.3])).to(dev)
        ts, noises = torch.randint(0, T, (5, 32)), torch.randn(5, 32, 2)
        out, first = [], None
        for step in range(5):
            x0, t, noise = data[step], ts[step].to(dev), noises[step].to(dev)
            xt = sqrt_ab[t, None] * x0 + sqrt_1mab[t, None] * noise
            loss = F.mse_loss(model(xt, t), noise)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step_mark(dev)
            out.append(loss.detach())
            if step >= 2:
                first = steady(dev, first)
        x = torch.randn(16, 2).to(dev)
        zs = torch.randn(4, 16, 2)
        with torch.no_grad():
            for i, t in enumerate(reversed(range(T - 4, T))):
                tt = torch.full((16,), t, dtype=torch.long, device=dev)
                eps = model(x, tt)
                mean = (x - betas[t] / sqrt_1mab[t] * eps) / alphas[t].sqrt()
                x = mean + betas[t].sqrt() * zs[i].to(dev) if t > 0 else mean
        return out + [x, alphas_cumprod]

    same_on_both(program, rtol=1e-4, atol=1e-5)


class VectorQuantizer(nn.Module):
    def __init__(self, codes=16, dim=4, beta=0.25):
        super().__init__()
        self.codebook = nn.Embedding(codes, dim)
        self.codebook.weight.data.uniform_(-1.0 / codes, 1.0 / codes)
        self.beta = beta

    def forward(self, z):                      # z: (B, C, H, W)
        zf = z.permute(0, 2, 3, 1).reshape(-1, z.shape[1])
        idx = torch.cdist(zf, self.codebook.weight).argmin(dim=1)
        zq = self.codebook(idx).view(z.shape[0], z.shape[2], z.shape[3], -1).permute(0, 3, 1, 2)
        loss = F.mse_loss(zq, z.detach()) + self.beta * F.mse_loss(z, zq.detach())
        zq = z + (zq - z).detach()             # straight-through estimator
        usage = torch.bincount(idx, minlength=self.codebook.num_embeddings).float()
        probs = usage / usage.sum()
        perplexity = torch.exp(-(probs * torch.log(probs + 1e-10)).sum())
        return zq, loss, perplexity, idx


def test_vq_vae_straight_through_cdist_argmin_and_perplexity():
    def program(dev):
        enc = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 1))
        dec = nn.Sequential(nn.ConvTranspose2d(4, 8, 4, stride=2, padding=1), nn.ReLU(),
                            nn.Conv2d(8, 1, 3, padding=1))
        vq = VectorQuantizer()
        for m in (enc, dec, vq):
            m.to(dev)
        params = [*enc.parameters(), *dec.parameters(), *vq.parameters()]
        opt = torch.optim.Adam(params, lr=2e-3)
        images = torch.rand(4, 8, 1, 8, 8).to(dev)
        out, first = [], None
        for step in range(4):
            x = images[step]
            zq, vq_loss, perplexity, idx = vq(enc(x))
            recon = dec(zq)
            loss = F.mse_loss(recon, x) + vq_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), perplexity, idx]
            if step >= 2:
                first = steady(dev, first)
        return out + [vq.codebook.weight.detach()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


class MDN(nn.Module):
    def __init__(self, k=3, hidden=24):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh())
        self.pi, self.mu, self.sigma = (nn.Linear(hidden, k) for _ in range(3))

    def forward(self, x):
        h = self.body(x)
        return F.log_softmax(self.pi(h), -1), self.mu(h), F.softplus(self.sigma(h)) + 1e-3


def test_mixture_density_network_negative_log_likelihood_and_mode_sampling():
    def program(dev):
        x = torch.linspace(-1, 1, 64).unsqueeze(1)
        branch = torch.where(torch.rand(64, 1) < 0.5, torch.sin(3 * x), -torch.sin(3 * x))
        y = branch + 0.05 * torch.randn(64, 1)
        x, y = x.to(dev), y.to(dev)
        model = MDN().to(dev)
        opt = torch.optim.RMSprop(model.parameters(), lr=5e-3, alpha=0.9)
        out, first = [], None
        for step in range(6):
            log_pi, mu, sigma = model(x)
            comp = torch.distributions.Normal(mu, sigma)
            nll = -torch.logsumexp(log_pi + comp.log_prob(y), dim=-1).mean()
            first = train_step(opt, nll, dev, out, step, first, 2)
        with torch.no_grad():
            log_pi, mu, sigma = model(x)
            best = log_pi.argmax(-1, keepdim=True)
            mode = mu.gather(-1, best).squeeze(-1)
            D = torch.distributions
            mix = D.MixtureSameFamily(D.Categorical(logits=log_pi), D.Normal(mu, sigma))
            density = mix.log_prob(y.squeeze(-1)).exp()
        return out + [mode, best, density, mix.mean, mix.variance]

    same_on_both(program, rtol=1e-4, atol=1e-5)


class UNet(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.inc = nn.Sequential(nn.Conv2d(1, c, 3, padding=1, bias=False), nn.BatchNorm2d(c),
                                 nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.side = nn.Conv2d(2 * c, c, 1)
        self.outc = nn.Conv2d(3 * c, 2, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down(F.max_pool2d(x1, 2))
        side = F.interpolate(self.side(x2), scale_factor=2, mode="bilinear", align_corners=True)
        return self.outc(torch.cat([x1, self.up(x2), side], dim=1))


def dice_loss(logits, target, eps=1.0):
    probs = logits.softmax(1)
    onehot = F.one_hot(target, 2).permute(0, 3, 1, 2).float()
    inter = (probs * onehot).sum((0, 2, 3))
    union = probs.sum((0, 2, 3)) + onehot.sum((0, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def test_unet_segmentation_with_skip_concat_transpose_conv_and_dice_loss():
    def program(dev):
        model = UNet().to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True,
                              weight_decay=1e-4)
        images = torch.randn(3, 2, 1, 16, 16)
        masks = (images[:, :, 0] > 0.3).long()
        out, first = [], None
        for step in range(3):
            x, m = images[step].to(dev), masks[step].to(dev)
            logits = model(x)
            loss = F.cross_entropy(logits, m) + dice_loss(logits, m)
            first = train_step(opt, loss, dev, out, step, first, 1)
        model.eval()
        with torch.no_grad():
            pred = model(images[0].to(dev)).argmax(1)
            fg = masks[0].to(dev) == 1
            iou = ((pred == 1) & fg).sum() / ((pred == 1) | fg).sum()
        return out + [pred, iou, model.inc[1].running_var]

    same_on_both(program, rtol=2e-4, atol=2e-5)


class MoE(nn.Module):
    def __init__(self, dim=8, experts=4, k=2):
        super().__init__()
        self.k, self.n = k, experts
        self.gate = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(dim, 16), nn.GELU(), nn.Linear(16, dim))
            for _ in range(experts))

    def forward(self, x):
        probs = self.gate(x).softmax(-1)
        topv, topi = probs.topk(self.k, dim=-1)
        topv = topv / topv.sum(-1, keepdim=True)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            weight = (topv * (topi == e)).sum(-1, keepdim=True)
            out = out + weight * expert(x)
        load = F.one_hot(topi[:, 0], self.n).float().mean(0)
        aux = self.n * (load * probs.mean(0)).sum()
        return out, aux


def test_mixture_of_experts_top_k_routing_with_load_balancing_loss():
    def program(dev):
        model = nn.ModuleDict({"moe": MoE(), "head": nn.Linear(8, 3)}).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        xs, ys = torch.randn(4, 32, 8).to(dev), torch.randint(0, 3, (4, 32)).to(dev)
        out, first = [], None
        for step in range(4):
            h, aux = model["moe"](xs[step])
            loss = F.cross_entropy(model["head"](h), ys[step]) + 0.01 * aux
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), aux.detach()]
            if step >= 2:
                first = steady(dev, first)
        return out + [model["moe"].gate.weight.detach()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))

    def forward(self, t, y):
        return self.net(torch.cat([y, t.expand(y.shape[0], 1)], dim=1))


def rk4(func, y0, ts):
    ys = [y0]
    y = y0
    for t0, t1 in zip(ts[:-1], ts[1:], strict=True):
        h = t1 - t0
        k1 = func(t0, y)
        k2 = func(t0 + h / 2, y + h / 2 * k1)
        k3 = func(t0 + h / 2, y + h / 2 * k2)
        k4 = func(t1, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        ys.append(y)
    return torch.stack(ys)


def test_neural_ode_trained_through_a_hand_written_rk4_integrator():
    def program(dev):
        ts = torch.linspace(0, 1, 6, device=dev).unsqueeze(-1)
        y0 = torch.tensor([[1.0, 0.0], [0.5, 0.5]], device=dev)
        true = torch.stack([torch.cos(3 * ts), -torch.sin(3 * ts)], dim=-1).squeeze(-2)
        func = ODEFunc().to(dev)
        opt = torch.optim.Adam(func.parameters(), lr=1e-2)
        out, first = [], None
        for step in range(4):
            traj = rk4(func, y0, ts)
            loss = (traj[:, 0] - true).abs().mean()
            first = train_step(opt, loss, dev, out, step, first, 2)
        return out + [traj.detach(), func.net[0].weight.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)


class MaskedConv2d(nn.Conv2d):
    def __init__(self, kind, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _, _, h, w = self.weight.shape
        mask = torch.ones_like(self.weight)
        mask[:, :, h // 2, w // 2 + (kind == "B"):] = 0
        mask[:, :, h // 2 + 1:] = 0
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x):
        return F.conv2d(x, self.weight * self.mask, self.bias, self.stride, self.padding)


def test_pixelcnn_masked_convolutions_with_a_non_persistent_mask_buffer():
    def program(dev):
        model = nn.Sequential(MaskedConv2d("A", 1, 8, 5, padding=2), nn.ReLU(),
                              MaskedConv2d("B", 8, 8, 3, padding=1), nn.ReLU(),
                              nn.Conv2d(8, 4, 1)).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        images = torch.randint(0, 4, (3, 4, 1, 8, 8))
        out, first = [], None
        for step in range(3):
            target = images[step].to(dev)
            loss = F.cross_entropy(model(target.float() / 3), target.squeeze(1))
            first = train_step(opt, loss, dev, out, step, first, 1)
        x = torch.zeros(2, 1, 4, 4, device=dev)
        gen = torch.Generator().manual_seed(3)
        with torch.no_grad():
            for i in range(4):
                for j in range(4):
                    probs = model(x / 3)[:, :, i, j].softmax(-1).cpu()
                    pick = torch.multinomial(probs, 1, generator=gen).squeeze(1)
                    x[:, 0, i, j] = pick.float().to(dev)
        keys = sorted(model.state_dict().keys())
        return out + [x, keys, model[0].mask]

    same_on_both(program, rtol=1e-4, atol=1e-5)


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


def test_bincount_of_positions_is_lowered_where_its_length_is_known():
    """bincount(argmin/argmax/topk indices, minlength >= the axis size) has
    a known length: recorded lazily (int64 counts; float32 weights summed in
    float32, others in float64); a length that depends on the data reads
    the data's max and counts lazily too."""
    def program(dev):
        d = torch.randn(9, 5).to(dev)
        w = torch.randn(9).to(dev)
        return [torch.bincount(d.argmin(1), minlength=5),
                torch.bincount(d.argmax(0).int(), minlength=10),
                torch.bincount(d.topk(2, dim=1).indices.flatten(), minlength=5),
                torch.bincount(d.argmin(1), weights=w, minlength=5),
                torch.bincount(d.argmin(1), weights=w.double(), minlength=6),
                torch.bincount(d.argmin(1), weights=(w * 4).int(), minlength=5),
                torch.bincount(torch.arange(4, device=dev), minlength=4)]

    before = fallbacks_now()
    same_on_both(program)
    assert fallbacks_now() == before
    same_on_both(lambda dev: torch.bincount(torch.randn(9, 5).to(dev).argmin(1), minlength=3))
    assert fallbacks_now() == before


class SqueezeExcite(nn.Module):
    def __init__(self, c, r=4):
        super().__init__()
        self.fc = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c, c // r, 1), nn.ReLU(),
                                nn.Conv2d(c // r, c, 1), nn.Hardsigmoid())

    def forward(self, x):
        return x * self.fc(x)


class SeparableBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.dw = nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False)
        self.pw = nn.Conv2d(cin, cout, 1, bias=False)
        self.norm1, self.norm2 = nn.GroupNorm(2, cin), nn.GroupNorm(2, cout)
        self.se = SqueezeExcite(cout)
        same = cin == cout and stride == 1
        self.short = nn.Identity() if same else nn.Conv2d(cin, cout, 1, stride)

    def forward(self, x):
        h = F.hardswish(self.norm1(self.dw(x)))
        return self.short(x) + self.se(self.norm2(self.pw(h)))


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.GroupNorm):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


def test_depthwise_separable_groupnorm_squeeze_excite_net_with_apply_init():
    def program(dev):
        torch.manual_seed(1)
        model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), SeparableBlock(8, 16, 2),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5))
        model.apply(init_weights)          # on the CPU: the same draws on both devices
        model.to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        xs, ys = torch.randn(3, 4, 3, 8, 8).to(dev), torch.randint(0, 5, (3, 4)).to(dev)
        out, first = [], None
        for step in range(3):
            loss = F.cross_entropy(model(xs[step]), ys[step], label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step_mark(dev)
            out += [loss.detach(), sched.get_last_lr()[0]]
            if step >= 1:
                first = steady(dev, first)
        return out + [model[1].dw.weight.detach(), model[1].se.fc[1].bias.grad]

    same_on_both(program, rtol=2e-4, atol=2e-5)


class HyperConv(nn.Module):
    """A hypernetwork: per-sample conv kernels from a conditioning vector,
    applied in one grouped convolution (the batch folded into channels)."""

    def __init__(self, cond=4, cin=2, cout=3, k=3):
        super().__init__()
        self.shape = (cout, cin, k, k)
        self.hyper = nn.Sequential(nn.Linear(cond, 16), nn.ReLU(),
                                   nn.Linear(16, cout * cin * k * k))

    def forward(self, x, z):
        B, C, H, W = x.shape
        kernels = self.hyper(z).view(B * self.shape[0], *self.shape[1:])
        y = F.conv2d(x.reshape(1, B * C, H, W), kernels, padding=1, groups=B)
        return y.view(B, self.shape[0], H, W)


def test_hypernetwork_per_sample_kernels_through_a_grouped_convolution():
    def program(dev):
        model = HyperConv().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        xs, zs, ts = torch.randn(3, 4, 2, 6, 6), torch.randn(3, 4, 4), torch.randn(3, 4, 3, 6, 6)
        out, first = [], None
        for step in range(3):
            y = model(xs[step].to(dev), zs[step].to(dev))
            loss = F.l1_loss(y, ts[step].to(dev))
            first = train_step(opt, loss, dev, out, step, first, 1)
        return out + [y.detach(), model.hyper[2].weight.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_cutmix_boxes_written_by_slices_with_mixed_label_targets():
    def program(dev):
        model = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool2d(2),
                              nn.Flatten(), nn.Linear(24, 4)).to(dev)
        opt = torch.optim.NAdam(model.parameters(), lr=2e-3)
        images, labels = torch.rand(3, 6, 3, 12, 12).to(dev), torch.randint(0, 4, (3, 6)).to(dev)
        boxes = [(2, 8, 1, 7), (0, 6, 4, 10), (3, 9, 5, 11)]   # one size: no recompile
        out, first = [], None
        for step in range(3):
            x, y = images[step].clone(), labels[step]
            perm = torch.randperm(6, generator=torch.Generator().manual_seed(step)).to(dev)
            r0, r1, c0, c1 = boxes[step]
            x[:, :, r0:r1, c0:c1] = x[perm, :, r0:r1, c0:c1]
            lam = 1 - (r1 - r0) * (c1 - c0) / 144
            logits = model(x)
            loss = lam * F.cross_entropy(logits, y) + (1 - lam) * F.cross_entropy(logits, y[perm])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), x[0, 0]]
            if step >= 1:
                first = steady(dev, first)
        return out + [model[0].weight.detach()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


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
