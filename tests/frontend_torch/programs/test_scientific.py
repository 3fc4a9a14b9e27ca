"""Scientific programs: physics-informed networks, neural ODEs, Gaussian
processes, NeRF rendering, Fourier layers, optimal transport, spectrograms,
k-means, finance. Each program is written as a PyTorch user writes it, run
eagerly on the CPU and lazily on ``lazytensor.torch.device()`` from the same
seed, and compared (values, dtypes, shapes; see ``programs.py``); training
programs also check that later steps compile nothing new."""


from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ..lazy_vs_eager import (
    same_on_both,
    same_without_fallback,
    train_step,
)


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


def test_asset_returns_with_diff_cov_corrcoef_kthvalue_and_take_along_dim():
    prices = 100 * torch.exp(torch.cumsum(0.01 * torch.randn(60, 5), dim=0)).double()

    def program(dev):
        p = prices.to(dev)
        log_ret = torch.diff(torch.log(p), dim=0)
        simple = torch.diff(p, dim=0, prepend=p[:1]) / p
        cov = torch.cov(log_ret.T)
        corr = torch.corrcoef(log_ret.T)
        weights = torch.linalg.solve(cov, torch.ones(5, dtype=p.dtype, device=dev))
        weights = weights / weights.sum()  # minimum-variance portfolio
        port = log_ret @ weights
        median, where = torch.kthvalue(log_ret, 30, dim=0)
        best = torch.topk(log_ret, 3, dim=0).indices
        best_ret = torch.take_along_dim(log_ret, best, dim=0)
        drawdown = p / torch.cummax(p, dim=0).values - 1
        window = log_ret.unfold(0, 10, 5).std(dim=-1)  # rolling volatility
        sharpe = port.mean() / port.std() * (252 ** 0.5)
        return [cov, corr, weights, median, where, best_ret, drawdown.min(0).values,
                window, simple, f"{sharpe.item():.6f}"]

    same_without_fallback(program, rtol=1e-7, atol=1e-9)


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


def test_quantile_regression_with_a_pinball_loss_and_monotone_quantiles():
    def program(dev):
        taus = torch.tensor([0.1, 0.5, 0.9], device=dev)
        model = nn.Sequential(nn.Linear(1, 32), nn.Softplus(), nn.Linear(32, 3)).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        x = torch.rand(128, 1) * 4
        y = (torch.sin(x) + (0.1 + 0.2 * x) * torch.randn(128, 1)).to(dev)
        x = x.to(dev)
        out, first = [], None
        for step in range(5):
            raw = model(x)
            q = torch.cat([raw[:, :1], raw[:, :1] + F.softplus(raw[:, 1:]).cumsum(1)], dim=1)
            err = y - q
            loss = torch.maximum(taus * err, (taus - 1) * err).mean()
            first = train_step(opt, loss, dev, out, step, first, 2)
        coverage = ((y >= q[:, :1]) & (y <= q[:, 2:])).float().mean()
        return out + [q.detach(), coverage, torch.quantile(y, taus)]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_gaussian_process_hyperparameters_by_cholesky_marginal_likelihood():
    def program(dev):
        x = torch.linspace(0, 5, 24, dtype=torch.float64).unsqueeze(1)
        y = (torch.sin(2 * x) + 0.1 * torch.randn(24, 1, dtype=torch.float64)).squeeze(1)
        x, y = x.to(dev), y.to(dev)
        log_ls = torch.zeros((), dtype=torch.float64, device=dev, requires_grad=True)
        log_sf = torch.zeros((), dtype=torch.float64, device=dev, requires_grad=True)
        log_sn = torch.full((), -2.0, dtype=torch.float64, device=dev, requires_grad=True)
        opt = torch.optim.Adam([log_ls, log_sf, log_sn], lr=0.05)
        out = []
        for _ in range(4):
            d2 = torch.cdist(x, x).pow(2)
            K = log_sf.exp() ** 2 * torch.exp(-0.5 * d2 / log_ls.exp() ** 2)
            K = K + (log_sn.exp() ** 2 + 1e-6) * torch.eye(24, dtype=torch.float64, device=dev)
            L = torch.linalg.cholesky(K)
            alpha = torch.cholesky_solve(y.unsqueeze(1), L)
            nll = (0.5 * (y @ alpha.squeeze(1)) + L.diagonal().log().sum()
                   + 12 * math.log(2 * math.pi))
            opt.zero_grad()
            nll.backward()
            opt.step()
            out.append(nll.detach())
        xs = torch.linspace(0, 5, 7, dtype=torch.float64, device=dev).unsqueeze(1)
        with torch.no_grad():
            Ks = log_sf.exp() ** 2 * torch.exp(-0.5 * torch.cdist(xs, x).pow(2) / log_ls.exp() ** 2)
            mean = Ks @ alpha.squeeze(1)
            v = torch.linalg.solve_triangular(L, Ks.T, upper=False)
            var = log_sf.exp() ** 2 - (v ** 2).sum(0)
        return out + [mean, var, log_ls.detach(), log_sn.grad]

    same_on_both(program, rtol=1e-7, atol=1e-9)


# slow: 13 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_sinkhorn_optimal_transport_loss_in_log_space_between_point_clouds():
    def sinkhorn(x, y, eps=0.1, iters=20):
        cost = torch.cdist(x, y) ** 2
        n, m = cost.shape[-2:]
        log_a = torch.full((n,), -math.log(n), device=x.device)
        log_b = torch.full((m,), -math.log(m), device=x.device)
        f, g = torch.zeros_like(log_a), torch.zeros_like(log_b)
        for _ in range(iters):
            f = -eps * torch.logsumexp((g[None, :] - cost) / eps + log_b[None, :], dim=1)
            g = -eps * torch.logsumexp((f[:, None] - cost) / eps + log_a[:, None], dim=0)
        plan = torch.exp((f[:, None] + g[None, :] - cost) / eps + log_a[:, None] + log_b)
        return (plan * cost).sum(), plan

    def program(dev):
        gen = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2)).to(dev)
        opt = torch.optim.Adam(gen.parameters(), lr=1e-2)
        target = (torch.randn(24, 2) * 0.3 + 1.0).to(dev)
        noise = torch.randn(24, 2).to(dev)
        out, first = [], None
        for step in range(3):
            loss, plan = sinkhorn(gen(noise), target)
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [plan.sum(0), gen[0].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_stft_spectrogram_model_and_istft_round_trip():
    def program(dev):
        t = torch.linspace(0, 1, 400)
        wave = (torch.sin(2 * torch.pi * 40 * t) + 0.3 * torch.randn(400)).to(dev)
        win = torch.hann_window(64, device=dev)
        spec = torch.stft(wave, n_fft=64, hop_length=16, window=win, return_complex=True)
        mag = spec.abs().clamp(min=1e-5).log()
        conv = nn.Conv1d(33, 4, 3).to(dev)
        feat = conv(mag[None]).mean(-1)
        back = torch.istft(spec, n_fft=64, hop_length=16, window=win, length=400)
        phase = torch.angle(spec[:3, :4])
        return {"mag": mag, "feat": feat, "back": back, "phase": phase,
                "real": torch.view_as_real(spec[:2, :3])}

    same_on_both(program, rtol=1e-4, atol=1e-4)


def test_kmeans_with_argmin_bincount_and_scatter_add():
    def program(dev):
        pts = torch.cat([torch.randn(10, 2) + 3, torch.randn(10, 2) - 3, torch.randn(5, 2)])
        pts = pts.to(dev)
        centers = pts[torch.tensor([0, 10, 20], device=dev)].clone()
        for _ in range(4):
            assign = torch.cdist(pts, centers).argmin(1)
            counts = torch.bincount(assign, minlength=3)
            sums = torch.zeros_like(centers).scatter_add_(0, assign[:, None].expand(-1, 2), pts)
            centers = sums / counts.clamp(min=1)[:, None]
        inertia = (pts - centers[assign]).pow(2).sum()
        weighted = torch.bincount(assign, weights=pts[:, 0].double(), minlength=4)
        return {"centers": centers, "assign": assign, "counts": counts,
                "inertia": inertia, "weighted": weighted}

    same_on_both(program, rtol=1e-5, atol=1e-5)


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
