"""Random numbers on the lazy device: generators, seeds and reproducible
dropout masks, random fills and their parameter checks, distributions
(log_prob, entropy, KL, rsample). Each check compares with eager torch on
the CPU (values, dtypes, shapes, or the exception type and text)."""


from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import (
    counters,
    same_on_both,
    same_outcomes,
    steady,
    step_mark,
)
from .lazy_vs_eager import fallbacks as fallbacks_now


def test_explicit_generator_objects():
    def program(dev):
        gen = torch.Generator().manual_seed(123)
        a = torch.randn(3, 4, generator=gen).to(dev)
        idx = torch.randperm(10, generator=gen)[:4].to(dev)
        noise = torch.empty(5).uniform_(-1, 1, generator=gen).to(dev)
        state = gen.get_state()
        b = torch.randn(2, generator=gen).to(dev)
        gen.set_state(state)
        c = torch.randn(2, generator=gen).to(dev)
        table = torch.arange(40.0).view(10, 4).to(dev)
        return {"a": a, "rows": table[idx] + noise.sum(), "same": torch.equal(b.cpu(), c.cpu())}

    same_on_both(program)


def test_distributions_log_prob_entropy_and_rsample():
    def program(dev):
        mu = torch.randn(4, 2).to(dev).requires_grad_()
        log_std = torch.zeros(4, 2).to(dev).requires_grad_()
        cat = torch.distributions.Categorical(logits=torch.randn(4, 5).to(dev))
        dist = torch.distributions.Normal(mu, log_std.exp())
        sample = mu.detach() + 0.5  # (rsample draws from the lazy RNG stream)
        drawn = dist.rsample()
        value = dist.log_prob(sample).sum() + dist.entropy().sum()
        value.backward()
        actions = torch.tensor([0, 4, 2, 1]).to(dev)
        indep = torch.distributions.Independent(torch.distributions.Normal(
            torch.zeros(3).to(dev), torch.ones(3).to(dev)), 1)
        kl = torch.distributions.kl_divergence(
            torch.distributions.Normal(mu.detach(), 1.0),
            torch.distributions.Normal(torch.zeros(4, 2).to(dev), 2.0))
        return {"drawn": (drawn.shape, drawn.dtype, drawn.requires_grad), "value": value,
                "mu_grad": mu.grad,
                "log_std_grad": log_std.grad, "cat_lp": cat.log_prob(actions),
                "cat_ent": cat.entropy(), "probs": cat.probs,
                "indep": indep.log_prob(torch.ones(2, 3).to(dev)), "kl": kl}

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_poisson_noise_augmentation_for_a_denoiser_is_lowered():
    """torch.poisson (and Poisson.sample) is recorded, not run eagerly: a
    denoiser trained on shot-noise images marks steps with no fallback and
    no recompile; the noise follows eager torch's distribution (mean and
    variance of 40000 draws at small and large rates; the streams differ)."""
    def program(dev):
        net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                            nn.Conv2d(8, 1, 3, padding=1)).to(dev)
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        clean = torch.rand(4, 1, 8, 8).to(dev)
        first, losses = None, []
        for step in range(3):
            peak = 20.0 + 10 * step
            noisy = torch.poisson(clean * peak) / peak
            loss = F.l1_loss(net(noisy), clean)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            losses.append(loss.detach())
            if step >= 1:
                first = steady(dev, first)
        rates = torch.tensor([0.5, 4.0, 30.0, 5000.0], device=dev)
        counts = torch.distributions.Poisson(rates, validate_args=False).sample((40000,))
        return losses, counts

    torch.manual_seed(0)
    eager_losses, eager = program(torch.device("cpu"))
    torch.manual_seed(0)
    before = counters()["eager_fallbacks"]
    lazy_losses, lazy = program(DEV)
    assert counters()["eager_fallbacks"] == before
    lazy = lazy.cpu()
    assert (lazy.dtype, lazy.shape) == (eager.dtype, eager.shape)
    assert torch.equal(lazy, lazy.round()) and (lazy >= 0).all()
    torch.testing.assert_close(lazy.mean(0), eager.mean(0), rtol=0.02, atol=0.02)
    torch.testing.assert_close(lazy.var(0), eager.var(0), rtol=0.05, atol=0.02)
    assert all(torch.isfinite(t.cpu()) for t in lazy_losses)


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


def test_dropout_masks_are_reproducible_across_two_lazy_runs():
    def run():
        torch.manual_seed(123)
        x = torch.ones(64, 32).to(DEV)
        a = F.dropout(x, 0.5)
        b = nn.Dropout(0.3)(x)
        g = torch.Generator().manual_seed(5)
        c = torch.rand(8, generator=g).to(DEV)
        return a.cpu(), b.cpu(), c.cpu(), torch.randn(3).to(DEV).cpu()

    first, second = run(), run()
    for a, b in zip(first, second, strict=True):
        assert torch.equal(a, b)


def test_geometric_fills_integer_tensors_as_torch():
    """Tensor.geometric_ of an int64/int32/uint8 tensor raised
    NotImplementedError on the lazy device (torch's decomposition draws with
    uniform_, which has no integer kernel) where torch fills it; now sampled
    in float32 and converted: dtype and shape as eager, values >= 1 with mean
    near 1/p, and torch's error for p outside (0, 1) (found by the int64
    OpInfo run)."""
    for dtype in (torch.int64, torch.int32, torch.uint8):
        got = torch.zeros(4000, dtype=dtype).to(DEV).geometric_(0.25).cpu()
        assert got.dtype == dtype and got.shape == (4000,) and got.min() >= 1
        assert abs(got.double().mean().item() - 4.0) < 0.4
    same_outcomes(lambda dev: [lambda: torch.zeros(3, dtype=torch.long).to(dev).geometric_(1.5)])


def test_distributions_log_prob_entropy_kl_and_rsample():
    from torch import distributions as dist

    def program(dev):
        mu = torch.randn(5).to(dev).requires_grad_()
        log_sigma = torch.zeros(5).to(dev).requires_grad_()
        n = dist.Normal(mu, log_sigma.exp())
        x = mu + log_sigma.exp() * torch.randn(5).to(dev)
        c = dist.Categorical(logits=torch.randn(5, 3).to(dev))
        b = dist.Bernoulli(probs=torch.rand(5).to(dev))
        kl = dist.kl_divergence(n, dist.Normal(torch.zeros(5).to(dev), torch.ones(5).to(dev)))
        lp = n.log_prob(x).sum() + c.log_prob(torch.tensor([0, 1, 2, 1, 0]).to(dev)).sum()
        (lp + kl.sum() + n.entropy().sum()).backward()
        mvn = dist.MultivariateNormal(torch.zeros(3).to(dev), scale_tril=torch.eye(3).to(dev) * 2)
        ind = dist.Independent(dist.Normal(mu, 1.0), 1)
        return [x, lp, kl, c.entropy(), b.log_prob(torch.ones(5).to(dev)), mu.grad,
                log_sigma.grad, mvn.log_prob(torch.ones(2, 3).to(dev)), ind.log_prob(mu),
                dist.Beta(torch.tensor([2.]).to(dev), torch.tensor([3.]).to(dev)).log_prob(
                    torch.tensor([0.3]).to(dev)),
                dist.Gamma(torch.tensor([2.]).to(dev), 1.).log_prob(torch.tensor([1.5]).to(dev))]

    same_on_both(program, rtol=1e-5, atol=1e-5)
