"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (seventh batch: ModuleInfo conformance, eager fallbacks lowered, and
user programs), each compared with eager torch on the CPU (values, dtype,
shape; see ``lazy_vs_eager.py``)."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import fallbacks, same_on_both, same_outcomes

SPECIAL_X = [0.0, -0.0, -1.0, -2.0, -3.0, -2.5, -9.75, -12.3, 0.25, 0.5, 1.0, 3.7, 40.0,
             1e-3, -1e-3, math.inf, -math.inf, math.nan]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_polygamma_orders_lowered_with_torch_edge_values(dtype):
    x = torch.tensor(SPECIAL_X) if dtype is not torch.int64 else torch.arange(-3, 5)
    x = x.to(dtype)
    before = fallbacks()
    lx = x.to(DEV)
    lazy = [torch.polygamma(1, lx), torch.special.polygamma(2, lx), lx.polygamma(5)]
    for n, got in zip((1, 2, 5), lazy, strict=True):
        eager, got = torch.polygamma(n, x), got.cpu()
        assert got.dtype == eager.dtype and got.shape == eager.shape
        torch.testing.assert_close(got, eager, rtol=1e-5, atol=0, equal_nan=True)
    assert fallbacks() == before


def test_polygamma_grad_and_negative_order():
    def program(dev):
        x = torch.linspace(-4.3, 6.1, 23).to(dev).requires_grad_()
        y = torch.polygamma(2, x) + x.polygamma(1)
        y.sum().backward()
        return [y, x.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)
    same_outcomes(lambda dev: [lambda: torch.polygamma(-1, torch.ones(3, device=dev))])


POLYNOMIALS = [f"{s}chebyshev_polynomial_{k}" for s in ("", "shifted_") for k in "tuvw"] + [
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p"]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_orthogonal_polynomials_lowered_for_number_and_tensor_degrees(name):
    """torch.special.<poly>(x, 3) with a Python degree raised a RuntimeError on
    the lazy device (torch passes the n_scalar overload's wrapped number to
    the Tensor overload, which the eager fallback refused); tensor degrees
    ran eagerly. Now all are the core's recurrence: degrees truncated,
    negative ones 0, int inputs give float32."""
    f = getattr(torch.special, name)
    x = torch.tensor([-9.5, -2.0, -1.0, -0.7, 0.0, 1e-10, 0.3, 0.5, 0.99, 1.0, 1.5, 4.0,
                      math.inf, -math.inf])
    degrees = torch.tensor([-2.0, 0.0, 1.0, 2.9, 3.0, 7.0, 9.0, 12.0, 5.0, 20.0, 4.0, 6.0,
                            2.0, 3.0])
    before = fallbacks()

    def program(dev):
        return [f(x.to(dev), 3), f(x.double().to(dev), 12), f(x.to(dev), degrees.to(dev)),
                f(0.25, degrees.to(dev)), f(torch.arange(-3, 4).to(dev), 2),
                f(x.to(dev), torch.tensor([2, -1, 0, 5]).repeat(4)[:14].to(dev)),
                f(x.to(dev), 0), f(x.to(dev), -1)]

    same_on_both(program, rtol=1e-5, atol=1e-5)
    assert fallbacks() == before


def test_orthogonal_polynomial_huge_degree_falls_back_counted():
    x = torch.linspace(-1, 1, 7)
    before = fallbacks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lazy = torch.special.legendre_polynomial_p(x.to(DEV), 500.0)
    torch.testing.assert_close(lazy.cpu(), torch.special.legendre_polynomial_p(x, 500.0))
    assert fallbacks() == before + 1


def test_fractional_max_pool_lowered_values_indices_grads():
    """F.fractional_max_pool2d/3d (nn.FractionalMaxPool2d/3d) ran as eager
    fallbacks, forward and backward; now the core's per-plane windows give
    torch's values and flat indices (first maximum, a NaN wins), unbatched
    inputs too, and the gradient is the max-pool scatter."""
    x2 = torch.randn(2, 3, 9, 8)
    x2[1, 2, 4, 4] = math.nan
    u2 = torch.rand(2, 3, 2)
    x3, u3 = torch.randn(2, 2, 6, 7, 8), torch.rand(2, 2, 3)
    before = fallbacks()

    def program(dev):
        a = x2.clone().to(dev).requires_grad_()
        b = x3.clone().to(dev).requires_grad_()
        out2, idx2 = F.fractional_max_pool2d(a, (2, 3), output_size=(4, 5), return_indices=True,
                                             _random_samples=u2.to(dev))
        out3, idx3 = F.fractional_max_pool3d(b, (2, 3, 2), output_size=(4, 3, 5),
                                             return_indices=True, _random_samples=u3.to(dev))
        flat = F.fractional_max_pool2d(a[0], 3, output_ratio=(0.5, 0.5),
                                       _random_samples=u2[:1].to(dev))
        weights = torch.arange(out2.numel(), dtype=torch.float32).reshape(out2.shape).to(dev)
        ((out2.nan_to_num() * weights).sum() + out3.sum() + flat.sum()).backward()
        return [out2, idx2, out3, idx3, flat, a.grad, b.grad]

    same_on_both(program)
    assert fallbacks() == before


def test_fractional_max_pool_module_and_errors():
    def program(dev):
        pool = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5), return_indices=True).to(dev)
        out, idx = pool(torch.randn(2, 4, 12, 10, device=dev))
        shapes = [(out.shape, out.dtype, idx.dtype)]
        x = torch.randn(1, 2, 5, 5)
        calls = [
            lambda: F.fractional_max_pool2d(x.to(dev), 3, output_size=4),
            lambda: F.fractional_max_pool2d(x[0, 0].to(dev), 2, output_size=3),
            lambda: F.fractional_max_pool2d(x.to(dev), 2, output_size=3,
                                            _random_samples=torch.rand(1, 2, 2).double().to(dev)),
            lambda: F.fractional_max_pool2d(x.to(dev), 2, output_size=3,
                                            _random_samples=torch.rand(1, 3, 2).to(dev)),
            lambda: F.fractional_max_pool2d(x.to(dev), 2, output_size=3,
                                            _random_samples=torch.rand(0, 2, 2).to(dev)),
            lambda: F.fractional_max_pool3d(x.to(dev), 3, output_size=4),
        ]
        assert shapes == [((2, 4, 6, 5), torch.float32, torch.int64)]
        return calls

    same_outcomes(program)


def test_many_upsampling_backwards_in_one_graph_cut_automatically(fresh_runtime):
    """A graph with many bicubic-upsampling backwards crashed with a JAX
    TypeError (gather of None): the automatic graph cut fired while the
    backward's VJP was being traced on stand-in leaves, which have no value.
    The core now holds automatic cuts during that trace."""
    fresh_runtime.node_limit = 300

    def program(dev):
        x = torch.randn(1, 2, 5, 6).to(dev).requires_grad_()
        outs = [F.interpolate(x * (i + 1), size=(7, 4), mode="bicubic", align_corners=i % 2 == 0)
                for i in range(4)]
        sum(o.sum() for o in outs).backward()
        return [outs[-1], x.grad]

    same_on_both(program, rtol=1e-4, atol=1e-4)
    assert fresh_runtime.metrics.counters["auto_cuts"] >= 1


# ---- user programs (round 7) that pass: new ground, kept as regression tests
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


def test_embedding_max_norm_padding_idx_and_max_bag():
    def program(dev):
        emb = nn.Embedding(10, 4, padding_idx=0, max_norm=1.0).to(dev)
        with torch.no_grad():
            emb.weight.mul_(3)
        idx = torch.tensor([[0, 2, 5, 2], [7, 0, 9, 1]]).to(dev)
        out = emb(idx)
        out.sum().backward()
        bag = nn.EmbeddingBag(10, 3, mode="max", padding_idx=2).to(dev)
        b = bag(torch.tensor([1, 2, 4, 5, 2, 8]).to(dev), torch.tensor([0, 2, 2, 5]).to(dev))
        b.sum().backward()
        return [out, emb.weight, emb.weight.grad, b, bag.weight.grad]

    same_on_both(program)


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


def test_knn_classifier_with_cdist_topk_and_votes():
    def program(dev):
        train = torch.randn(50, 6).to(dev)
        labels = torch.randint(0, 4, (50,)).to(dev)
        query = torch.randn(9, 6).to(dev)
        d = torch.cdist(query, train)
        dist, idx = d.topk(5, largest=False)
        votes = labels[idx]
        pred = torch.mode(votes, dim=1).values
        onehot = F.one_hot(votes, 4).float()
        weighted = (onehot / (dist.unsqueeze(-1) + 1e-6)).sum(1).argmax(1)
        d2 = torch.cdist(query, train, p=1.0)
        dinf = torch.cdist(query, train, p=float("inf"))
        return [dist, idx, pred, weighted, d2.min(1), dinf.argmin(1)]

    same_on_both(program)


def test_fourier_layer_with_complex_weights_trained_by_adam():
    class SpectralConv(nn.Module):
        def __init__(self, c, modes):
            super().__init__()
            self.modes = modes
            self.w = nn.Parameter(torch.randn(c, c, modes, modes, dtype=torch.cfloat) * 0.1)

        def forward(self, x):
            xf = torch.fft.rfft2(x)
            out = torch.zeros_like(xf)
            m = self.modes
            out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, :m, :m], self.w)
            return torch.fft.irfft2(out, s=x.shape[-2:])

    def program(dev):
        layer = SpectralConv(3, 4).to(dev)
        opt = torch.optim.Adam(layer.parameters(), lr=0.01)
        x = torch.randn(2, 3, 8, 10).to(dev)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            y = layer(x)
            loss = (y - x).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        z = torch.polar(x.abs(), x) * (1 + 2j)
        return [losses, layer.w, z.angle(), torch.view_as_real(z), z.conj().imag,
                torch.fft.fftshift(torch.fft.fft(x, dim=-1), dim=-1)]

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


def test_tanh_normal_policy_mixture_and_mvn_log_probs():
    from torch.distributions import (
        Categorical,
        Independent,
        MixtureSameFamily,
        MultivariateNormal,
        Normal,
        TransformedDistribution,
        kl_divergence,
    )
    from torch.distributions.transforms import TanhTransform

    def program(dev):
        net = nn.Linear(3, 4).to(dev)
        obs = torch.randn(6, 3).to(dev)
        mu, log_std = net(obs).chunk(2, -1)
        base = Independent(Normal(mu, log_std.exp()), 1)
        pi = TransformedDistribution(base, [TanhTransform(cache_size=1)])
        a = torch.tensor([[0.3, -0.5]]).expand(6, 2).to(dev)
        lp = pi.log_prob(a)
        kl = kl_divergence(Normal(mu, log_std.exp()), Normal(torch.zeros_like(mu), 1.0))
        mix = MixtureSameFamily(Categorical(logits=mu), Normal(log_std, torch.ones_like(mu)))
        cov = torch.tensor([[1.0, 0.3], [0.3, 2.0]]).to(dev)
        mvn = MultivariateNormal(mu, covariance_matrix=cov)
        loss = -(lp.mean() + mix.log_prob(a[:, 0]).mean()) + kl.sum() + mvn.log_prob(a).sum()
        loss.backward()
        return [lp, kl, mix.log_prob(a[:, 0]), mvn.log_prob(a), mvn.entropy(), net.weight.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_less_common_losses():
    def program(dev):
        a, b = torch.randn(6, 5).to(dev), torch.randn(6, 5).to(dev)
        t = torch.tensor([1, -1, 1, 1, -1, -1]).float().to(dev)
        out = [
            F.cosine_embedding_loss(a, b, t, margin=0.2),
            F.margin_ranking_loss(a[:, 0], b[:, 0], t, margin=0.1),
            F.poisson_nll_loss(a, b.abs(), log_input=True, full=True),
            F.gaussian_nll_loss(a, b, torch.rand(6, 5).to(dev) + 0.1, full=True),
            F.huber_loss(a, b, delta=0.5), F.smooth_l1_loss(a, b, beta=0.3),
            F.triplet_margin_with_distance_loss(a, b, a.flip(0),
                                                distance_function=nn.PairwiseDistance()),
            F.soft_margin_loss(a, t.unsqueeze(1).expand(6, 5)),
            F.multilabel_soft_margin_loss(a, (b > 0).float()),
            F.hinge_embedding_loss(a, t.unsqueeze(1).expand(6, 5)),
            F.kl_div(a.log_softmax(1), b.log_softmax(1), log_target=True, reduction="batchmean"),
            F.binary_cross_entropy_with_logits(a, (b > 0).float(),
                                               pos_weight=torch.rand(5).to(dev)),
            F.nll_loss(a.log_softmax(1), torch.tensor([0, 4, 2, 1, 3, 0]).to(dev),
                       weight=torch.rand(5).to(dev), reduction="sum"),
        ]
        return out

    same_on_both(program, rtol=1e-5, atol=1e-5)
