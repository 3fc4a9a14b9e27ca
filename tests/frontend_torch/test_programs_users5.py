"""More ordinary PyTorch programs (torch.func transforms, parametrizations,
dilated causal convolutions, metric learning, capsule routing, momentum
contrast queues, domain adaptation, word embeddings...) run eagerly on the
CPU and lazily from the same seed and compared (values, dtypes, shapes; see
``programs.py``); where a program marks steps, the later steps must neither
recompile nor fall back."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, jacfwd, jacrev, vmap
from torch.utils.checkpoint import checkpoint

from .conftest import DEV
from .lazy_vs_eager import same_on_both, steady, step_mark, train_step


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


class OrthogonalRNN(nn.Module):
    def __init__(self, inp=3, hidden=8, classes=4):
        super().__init__()
        self.inp = nn.Linear(inp, hidden)
        self.rec = nn.utils.parametrizations.orthogonal(nn.Linear(hidden, hidden, bias=False))
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):                      # (T, B, inp)
        h = torch.zeros(x.shape[1], self.rec.weight.shape[0], device=x.device)
        for t in range(x.shape[0]):
            h = torch.tanh(self.inp(x[t]) + self.rec(h))
        return self.head(h)


def test_rnn_with_an_orthogonal_recurrent_weight_parametrization():
    def program(dev):
        model = OrthogonalRNN().to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        xs, ys = torch.randn(3, 4, 5, 3).to(dev), torch.randint(0, 4, (3, 5)).to(dev)
        out, first = [], None
        for step in range(3):
            loss = F.cross_entropy(model(xs[step]), ys[step])
            first = train_step(opt, loss, dev, out, step, first, 1)
        q = model.rec.weight.detach()
        eye = q @ q.T
        return out + [q, eye, model.rec.parametrizations.weight.original.detach()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


class GatedResidual(nn.Module):
    def __init__(self, channels, dilation):
        super().__init__()
        self.dilation = dilation
        self.conv = nn.Conv1d(channels, 2 * channels, 2, dilation=dilation)
        self.res, self.skip = nn.Conv1d(channels, channels, 1), nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        h = self.conv(F.pad(x, (self.dilation, 0)))   # causal: pad on the left only
        filt, gate = h.chunk(2, dim=1)
        z = torch.tanh(filt) * torch.sigmoid(gate)
        return x + self.res(z), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self, classes=8, channels=8):
        super().__init__()
        self.embed = nn.Embedding(classes, channels)
        self.blocks = nn.ModuleList(GatedResidual(channels, d) for d in (1, 4))
        self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(channels, classes, 1))

    def forward(self, tokens):
        x = self.embed(tokens).transpose(1, 2)
        skips = 0
        for block in self.blocks:
            x, s = block(x)
            skips = skips + s
        return self.out(skips)


def test_wavenet_dilated_causal_convolutions_with_gated_units_and_skips():
    def program(dev):
        model = WaveNet().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        seqs = torch.randint(0, 8, (3, 4, 17)).to(dev)
        out, first = [], None
        for step in range(3):
            x, target = seqs[step, :, :-1], seqs[step, :, 1:]
            loss = F.cross_entropy(model(x), target)
            first = train_step(opt, loss, dev, out, step, first, 1)
        with torch.no_grad():
            probe = seqs[0, :1, :-1].clone()
            base = model(probe)
            probe[0, 10] = (probe[0, 10] + 1) % 8
            changed = (model(probe) - base).abs().amax(dim=1)[0]
        return out + [changed[:10], changed]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_siamese_metric_learning_with_cosine_embedding_and_margin_ranking_losses():
    def program(dev):
        net = nn.Sequential(nn.Linear(10, 16), nn.PReLU(), nn.Linear(16, 6)).to(dev)
        opt = torch.optim.Adamax(net.parameters(), lr=5e-3)
        cos_loss = nn.CosineEmbeddingLoss(margin=0.2)
        rank_loss = nn.MarginRankingLoss(margin=0.5)
        trip = nn.TripletMarginWithDistanceLoss(
            distance_function=lambda a, b: 1 - F.cosine_similarity(a, b), margin=0.3)
        a, b, c = (torch.randn(4, 12, 10).to(dev) for _ in range(3))
        same = (torch.randint(0, 2, (4, 12)) * 2 - 1).float().to(dev)
        out, first = [], None
        for step in range(4):
            ea, eb, ec = net(a[step]), net(b[step]), net(c[step])
            d_ab = F.pairwise_distance(ea, eb)
            d_ac = F.pairwise_distance(ea, ec, p=1.0)
            loss = (cos_loss(ea, eb, same[step]) + rank_loss(d_ac, d_ab, same[step])
                    + trip(ea, eb, ec))
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), d_ab.detach()]
            if step >= 2:
                first = steady(dev, first)
        sims = F.cosine_similarity(ea.unsqueeze(1), eb.unsqueeze(0), dim=-1)
        return out + [sims.detach(), net[1].weight.detach()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def squash(s, dim=-1):
    norm2 = (s ** 2).sum(dim, keepdim=True)
    return norm2 / (1 + norm2) * s / torch.sqrt(norm2 + 1e-8)


class CapsuleLayer(nn.Module):
    def __init__(self, n_in=6, d_in=4, n_out=3, d_out=5, iters=3):
        super().__init__()
        self.W = nn.Parameter(0.1 * torch.randn(n_in, n_out, d_out, d_in))
        self.iters = iters

    def forward(self, u):                      # (B, n_in, d_in)
        u_hat = torch.einsum("ijkl,bil->bijk", self.W, u)
        b = torch.zeros(u_hat.shape[:3], device=u.device)
        for it in range(self.iters):
            c = b.softmax(dim=2)
            v = squash(torch.einsum("bij,bijk->bjk", c, u_hat))
            if it < self.iters - 1:
                b = b + torch.einsum("bijk,bjk->bij", u_hat.detach(), v.detach())
        return v


def test_capsule_dynamic_routing_with_einsum_and_margin_loss():
    def program(dev):
        prim = nn.Linear(12, 24).to(dev)
        caps = CapsuleLayer().to(dev)
        opt = torch.optim.Adam([*prim.parameters(), *caps.parameters()], lr=1e-2)
        xs, ys = torch.randn(3, 8, 12).to(dev), torch.randint(0, 3, (3, 8)).to(dev)
        out, first = [], None
        for step in range(3):
            u = squash(prim(xs[step]).view(8, 6, 4))
            lengths = caps(u).norm(dim=-1)
            t = F.one_hot(ys[step], 3).float()
            loss = (t * F.relu(0.9 - lengths) ** 2
                    + 0.5 * (1 - t) * F.relu(lengths - 0.1) ** 2).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), lengths.detach()]
            if step >= 1:
                first = steady(dev, first)
        return out + [caps.W.detach()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


class MoCoHead(nn.Module):
    def __init__(self, dim=8, queue=32):
        super().__init__()
        self.q_enc = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, dim))
        self.k_enc = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, dim))
        self.k_enc.load_state_dict(self.q_enc.state_dict())
        for p in self.k_enc.parameters():
            p.requires_grad_(False)
        self.register_buffer("queue", F.normalize(torch.randn(queue, dim), dim=1))
        self.register_buffer("ptr", torch.zeros((), dtype=torch.long))
        self.register_buffer("scratch", torch.zeros(dim), persistent=False)

    @torch.no_grad()
    def momentum_update(self, m=0.9):
        qs, ks = list(self.q_enc.parameters()), list(self.k_enc.parameters())
        torch._foreach_mul_(ks, m)
        torch._foreach_add_(ks, qs, alpha=1 - m)

    @torch.no_grad()
    def enqueue(self, keys, start):
        self.queue[start:start + keys.shape[0]] = keys
        self.ptr.fill_((start + keys.shape[0]) % self.queue.shape[0])


def test_moco_momentum_encoder_and_queue_buffers_with_info_nce():
    def program(dev):
        model = MoCoHead().to(dev)
        opt = torch.optim.SGD(model.q_enc.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
        views = torch.randn(4, 2, 8, 12).to(dev)
        out, first, start = [], None, 0
        for step in range(4):
            q = F.normalize(model.q_enc(views[step, 0]), dim=1)
            with torch.no_grad():
                model.momentum_update()
                k = F.normalize(model.k_enc(views[step, 1]), dim=1)
            pos = (q * k).sum(1, keepdim=True)
            neg = q @ model.queue.clone().detach().T
            logits = torch.cat([pos, neg], dim=1) / 0.07
            loss = F.cross_entropy(logits, torch.zeros(8, dtype=torch.long, device=dev))
            opt.zero_grad()
            loss.backward()
            opt.step()
            model.enqueue(k, start)
            start = (start + 8) % 32
            step_mark(dev)
            out.append(loss.detach())
            if step >= 2:
                first = steady(dev, first)
        keys = sorted(model.state_dict())
        return out + [model.queue, model.ptr, keys, model.k_enc[0].weight]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_autocast_regions_leave_lazy_tensors_in_float32_and_say_so(monkeypatch):
    """torch.autocast("cpu") casts CPU tensors only (CUDA tensors under it
    stay float32 too): lazy matmuls and convolutions keep float32 and warn
    once per op; autocast(device_type="lazy") is refused by torch itself."""
    from lazytensor.torch.aten import amp

    monkeypatch.setattr(amp, "_WARNED", set())
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.Flatten(), nn.Linear(16, 3))
    x = torch.randn(2, 1, 4, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        eager = model(x)
    assert eager.dtype == torch.bfloat16
    lazy_model = model.to(DEV)
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # no warning where CPU autocast is off
        with torch.autocast("cpu", enabled=False):
            lazy_model(x.to(DEV))
        checkpoint(lazy_model, x.to(DEV).requires_grad_(), use_reentrant=False).sum().backward()
    with pytest.warns(UserWarning, match="autocast.'cpu'. does not apply to lazy tensors") as seen:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = lazy_model(x.to(DEV))
            (out.sum() * 2).backward()
    named = {str(w.message).split(": ")[2].split(" runs")[0] for w in seen}
    assert named == {"aten.convolution", "aten.addmm", "aten.mm"}  # mm: addmm's backward
    assert out.dtype == torch.float32
    assert lazy_model[2].weight.grad.dtype == torch.float32
    with torch.autocast("cpu", enabled=False):
        expected = model.cpu()(x)
    torch.testing.assert_close(out.cpu(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'lazy'"):
        torch.autocast(device_type=DEV.type, dtype=torch.bfloat16)
    bf = model.to(DEV, torch.bfloat16)(x.to(DEV, torch.bfloat16))
    assert bf.dtype == torch.bfloat16


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam):
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return -ctx.lam * grad, None


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


def test_skip_gram_with_negative_sampling_and_nearest_neighbours():
    def program(dev):
        vocab, dim = 30, 8
        centre, context = nn.Embedding(vocab, dim), nn.Embedding(vocab, dim)
        nn.init.uniform_(centre.weight, -0.5 / dim, 0.5 / dim)   # on the CPU: the same draws
        centre.to(dev)
        nn.init.zeros_(context.to(dev).weight)
        opt = torch.optim.SGD([*centre.parameters(), *context.parameters()], lr=0.5)
        words, ctxs = (torch.randint(0, vocab, (4, 24)).to(dev) for _ in range(2))
        freq = torch.rand(vocab) ** 0.75
        negs = torch.multinomial(freq / freq.sum(), 4 * 24 * 5, replacement=True)
        negs = negs.view(4, 24, 5).to(dev)
        out, first = [], None
        for step in range(4):
            c = centre(words[step])                                # (B, D)
            pos = (c * context(ctxs[step])).sum(-1)
            neg = torch.bmm(context(negs[step]), c.unsqueeze(2)).squeeze(2)
            loss = -(F.logsigmoid(pos) + F.logsigmoid(-neg).sum(1)).mean()
            first = train_step(opt, loss, dev, out, step, first, 1)
        with torch.no_grad():
            emb = F.normalize(centre.weight, dim=1)
            sims = emb[:5] @ emb.T
            sims[torch.arange(5), torch.arange(5)] = -1
            nearest = sims.topk(3, dim=1)
        return out + [nearest.values, nearest.indices]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def alibi_slopes(heads):
    start = 2 ** (-8 / heads)
    return torch.tensor([start ** (i + 1) for i in range(heads)])


def test_alibi_attention_bias_with_sdpa_float_mask_and_causal_masking():
    def program(dev):
        B, H, T, D = 2, 4, 6, 8
        qkv = nn.Linear(H * D, 3 * H * D).to(dev)
        proj = nn.Linear(H * D, H * D).to(dev)
        opt = torch.optim.Adam([*qkv.parameters(), *proj.parameters()], lr=1e-3)
        pos = torch.arange(T, device=dev)
        rel = (pos[None, :] - pos[:, None]).float()
        bias = alibi_slopes(H).to(dev)[:, None, None] * rel          # (H, T, T)
        causal = torch.ones(T, T, dtype=torch.bool, device=dev).tril()
        bias = bias.masked_fill(~causal, float("-inf"))
        xs, ys = torch.randn(3, B, T, H * D).to(dev), torch.randn(3, B, T, H * D).to(dev)
        out, first = [], None
        for step in range(3):
            q, k, v = qkv(xs[step]).view(B, T, 3, H, D).permute(2, 0, 3, 1, 4)
            att = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
            manual = ((q @ k.transpose(-1, -2)) / math.sqrt(D) + bias).softmax(-1) @ v
            y = proj(att.transpose(1, 2).reshape(B, T, H * D))
            loss = F.mse_loss(y, ys[step])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), (att - manual).abs().max().detach()]
            if step >= 1:
                first = steady(dev, first)
        return out + [qkv.weight.detach()]

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


def test_einsum_heavy_bilinear_tensor_contractions_and_traces():
    def program(dev):
        torch.manual_seed(2)
        W = nn.Parameter(torch.randn(3, 5, 4) * 0.3)
        cores = nn.ParameterList([nn.Parameter(torch.randn(1, 4, 3) * 0.5),
                                  nn.Parameter(torch.randn(3, 4, 3) * 0.5),
                                  nn.Parameter(torch.randn(3, 4, 1) * 0.5)])
        params = nn.ParameterList([W, *cores]).to(dev)
        opt = torch.optim.Adagrad(params.parameters(), lr=0.05)
        a, b = torch.randn(6, 5).to(dev), torch.randn(6, 4).to(dev)
        xs = torch.randn(6, 3, 4).to(dev)
        out = []
        for _ in range(3):
            W, c0, c1, c2 = params
            bil = torch.einsum("bi,kij,bj->bk", a, W, b)
            tt = torch.einsum("xja,bj->bxa", c0, xs[:, 0])
            tt = torch.einsum("bxa,ajc,bj->bxc", tt, c1, xs[:, 1])
            tt = torch.einsum("bxc,cjd,bj->b", tt, c2, xs[:, 2])
            gram = torch.einsum("b...i,c...i->bc", xs, xs)
            loss = (bil.logsumexp(-1) - tt).pow(2).mean() + 1e-3 * torch.einsum("ii", gram)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.detach(), bil.detach(), torch.einsum("bii->b", gram.expand(2, 6, 6))]
        outer = torch.einsum("i,j->ij", a[0], b[0])
        return out + [outer, torch.einsum("bij->bji", xs), [p.detach() for p in params]]

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
