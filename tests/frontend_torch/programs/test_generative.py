"""Generative programs: GANs, VAEs, flows, diffusion, vector quantisation,
mixture density networks, PixelCNN. Each program is written as a PyTorch
user writes it, run eagerly on the CPU and lazily on
``lazytensor.torch.device()`` from the same seed, and compared (values,
dtypes, shapes; see ``programs.py``); training programs also check that
later steps compile nothing new."""


from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import (
    Bernoulli,
    Categorical,
    Independent,
    MixtureSameFamily,
    Normal,
    kl_divergence,
)

from ..lazy_vs_eager import (
    digits,
    fallbacks,
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
    weights,
)


class Autoencoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.GroupNorm(2, 4), nn.LeakyReLU(0.1),
            nn.Conv2d(4, 8, 3, stride=2, padding=1), nn.AdaptiveAvgPool2d((2, 2)))
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(8, 4, 2, stride=2), nn.ELU(),
            nn.ConvTranspose2d(4, 1, 2, stride=2), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


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


class MDN(nn.Module):
    def __init__(self, k=3, hidden=24):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh())
        self.pi, self.mu, self.sigma = (nn.Linear(hidden, k) for _ in range(3))

    def forward(self, x):
        h = self.body(x)
        return F.log_softmax(self.pi(h), -1), self.mu(h), F.softplus(self.sigma(h)) + 1e-3


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


def test_conv_autoencoder_groupnorm_transpose_conv_adagrad():
    def program(dev):
        x, _ = digits(32)
        images = x.view(-1, 1, 8, 8).to(dev)
        model = Autoencoder().to(dev)
        optimizer = torch.optim.Adagrad(model.parameters(), lr=0.05)
        for _ in range(2):
            optimizer.zero_grad()
            recon = model(images)
            loss = F.binary_cross_entropy(recon, images) + F.smooth_l1_loss(recon, images)
            loss.backward()
            optimizer.step()
        return {"recon": recon, "loss": loss, "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)
    assert fallbacks() == 0  # adaptive pooling and its gradient are lowered


def test_vae_reparameterization_and_kl_term():
    class VAE(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc = nn.Linear(64, 16)
            self.mu, self.logvar = nn.Linear(16, 4), nn.Linear(16, 4)
            self.dec = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 64))

        def forward(self, x, eps):
            h = F.relu(self.enc(x))
            mu, logvar = self.mu(h), self.logvar(h)
            z = mu + eps * torch.exp(0.5 * logvar)
            return self.dec(z), mu, logvar

    def program(dev):
        model = VAE().to(dev)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        x, _ = digits(32)
        x = x.to(dev)
        eps = torch.randn(32, 4).to(dev)  # noise drawn on the CPU, like a data loader's
        recon, mu, logvar = model(x, eps)
        bce = F.binary_cross_entropy_with_logits(recon, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = (bce + kld) / x.shape[0]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return {"loss": loss.item(), "kld": kld, "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-4)


def test_mixture_density_network_with_mixture_same_family_log_prob():
    x = torch.linspace(-1, 1, 32).unsqueeze(1)
    y = torch.sin(3 * x) + 0.1 * torch.randn(32, 1)

    class MDN(nn.Module):
        def __init__(self, k=3):
            super().__init__()
            self.k = k
            self.body = nn.Sequential(nn.Linear(1, 24), nn.Tanh())
            self.head = nn.Linear(24, 3 * k)

        def forward(self, x):
            logits, mu, log_sigma = self.head(self.body(x)).chunk(3, dim=-1)
            comp = Independent(Normal(mu.unsqueeze(-1), log_sigma.exp().unsqueeze(-1)), 1)
            return MixtureSameFamily(Categorical(logits=logits), comp)

    def program(dev):
        torch.manual_seed(3)
        model = MDN().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=5e-3)
        xs, ys = x.to(dev), y.to(dev)
        out = []
        for _ in range(3):
            dist = model(xs)
            nll = -dist.log_prob(ys).mean()
            opt.zero_grad()
            nll.backward()
            opt.step()
            out.append(nll.item())
        with torch.no_grad():
            dist = model(xs)
            out += [dist.mean, dist.variance, dist.mixture_distribution.entropy(),
                    dist.component_distribution.base_dist.scale]
        return out

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_gan_with_two_optimizers_and_detach():
    def program(dev):
        gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2)).to(dev)
        disc = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)).to(dev)
        opt_g = torch.optim.Adam(gen.parameters(), lr=2e-3, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(disc.parameters(), lr=2e-3, betas=(0.5, 0.999))
        bce = nn.BCEWithLogitsLoss()
        real = (torch.randn(64, 2) * 0.5 + torch.tensor([2.0, -1.0])).to(dev)
        noise = torch.randn(5, 64, 4).to(dev)
        ones, zeros = torch.ones(64, 1, device=dev), torch.zeros(64, 1, device=dev)
        out, first = [], None
        for step in range(5):
            fake = gen(noise[step])
            d_loss = bce(disc(real), ones) + bce(disc(fake.detach()), zeros)
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = bce(disc(fake), ones)
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            step_mark(dev)
            out += [d_loss.detach(), g_loss.detach()]
            if step >= 1:
                first = steady(dev, first)
        return out + [p.detach() for p in gen.parameters()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_dcgan_generator_and_discriminator_blocks():
    def program(dev):
        gen = nn.Sequential(
            nn.ConvTranspose2d(8, 16, 4, 1, 0, bias=False), nn.BatchNorm2d(16), nn.ReLU(True),
            nn.ConvTranspose2d(16, 8, 4, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(True),
            nn.ConvTranspose2d(8, 1, 4, 2, 1, bias=False), nn.Tanh())
        disc = nn.Sequential(
            nn.Conv2d(1, 8, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(8, 16, 4, 2, 1, bias=False), nn.BatchNorm2d(16),
            nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(16, 1, 4, 1, 0, bias=False),
            nn.Flatten(), nn.Sigmoid())

        def init(m):
            if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
                nn.init.normal_(m.weight, 0.0, 0.02)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.normal_(m.weight, 1.0, 0.02)
                nn.init.zeros_(m.bias)

        # initialised on the CPU: lazy random fills draw other numbers
        gen, disc = gen.apply(init).to(dev), disc.apply(init).to(dev)
        opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4, betas=(0.5, 0.999))
        real = torch.rand(4, 1, 16, 16).to(dev) * 2 - 1
        out = []
        for _ in range(2):
            z = torch.randn(4, 8, 1, 1, device="cpu").to(dev)
            fake = gen(z)
            label = torch.full((4, 1), 1.0, device=dev)
            opt_d.zero_grad()
            d_real = F.binary_cross_entropy(disc(real), label)
            d_real.backward()
            d_fake = F.binary_cross_entropy(disc(fake.detach()), label.fill_(0.0))
            d_fake.backward()
            opt_d.step()
            g_loss = F.binary_cross_entropy(disc(fake), label.fill_(1.0))
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            out += [d_real.detach(), d_fake.detach(), g_loss.detach(), fake.detach()]
        return out + [gen[1].running_mean, gen[1].running_var, disc[3].num_batches_tracked]

    same_on_both(program, rtol=1e-4, atol=1e-4)


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


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_r1_gradient_penalty_through_a_convolutional_discriminator():
    def program(dev):
        disc = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.Softplus(),
                             nn.Conv2d(4, 4, 3, stride=2, padding=1), nn.Softplus(),
                             nn.Flatten(), nn.Linear(16, 1)).to(dev)
        opt = torch.optim.Adam(disc.parameters(), lr=1e-3, betas=(0.0, 0.99))
        real, fake = torch.randn(6, 1, 8, 8).to(dev), torch.randn(6, 1, 8, 8).to(dev)
        out, first = [], None
        for step in range(3):
            real.requires_grad_(True)
            d_real = disc(real)
            (grad,) = torch.autograd.grad(d_real.sum(), real, create_graph=True)
            r1 = grad.pow(2).flatten(1).sum(1).mean()
            loss = F.softplus(-d_real).mean() + F.softplus(disc(fake)).mean() + 5.0 * r1
            first = train_step(opt, loss, dev, out, step, first, settled=1)
            real = real.detach_()
        return out + [disc[0].weight, real.requires_grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_bernoulli_vae_with_normal_posterior_and_kl_divergence():
    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(16, 2 * 3)
            self.dec = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 16))

        def forward(self, x, eps):
            mu, log_std = self.enc(x).chunk(2, dim=1)
            q = Normal(mu, log_std.exp())
            z = q.loc + q.scale * eps
            recon = Bernoulli(logits=self.dec(z)).log_prob(x).sum(1)
            kl = kl_divergence(q, Normal(torch.zeros_like(mu), torch.ones_like(mu))).sum(1)
            return (kl - recon).mean(), q.log_prob(z).sum(1)

    def program(dev):
        model = VAE().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        x = (torch.rand(10, 16) > 0.5).float().to(dev)
        out, first = [], None
        for step in range(3):
            eps = torch.randn(10, 3).to(dev)
            loss, log_q = model(x, eps)
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        z = Normal(torch.zeros(4, 3, device=dev), 1.0).sample()
        assert z.shape == (4, 3) and z.device == x.device
        return out + [log_q, model.enc.weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)
