"""Ordinary PyTorch programs, round nine (sequences, text, tabular data and
metric code: an EmbeddingBag classifier with offsets, per-column embeddings
with cross layers fed by a seeded DataLoader, a weight-normalised TCN with
gradient accumulation, rotary attention through complex numbers, T5-style
relative position buckets, distillation with log-space targets and a float64
head, prototypical networks, Sinkhorn transport, Poincaré embeddings,
causal linear attention, MAE masking by argsort) run eagerly on the CPU and
lazily from the same seed and compared (values, dtypes, shapes; see
``programs.py``); where a program marks steps, the later steps must neither
recompile nor fall back, and no program falls back."""

from __future__ import annotations

import math
import re

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.parametrizations import weight_norm
from torch.utils.data import DataLoader, TensorDataset

from .conftest import DEV
from .lazy_vs_eager import same_without_fallback, step_mark, train_step


# slow: 10 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_embedding_bag_text_classifier_with_offsets_and_per_epoch_metrics():
    class TextClassifier(nn.Module):
        def __init__(self, vocab=30, dim=8, classes=3):
            super().__init__()
            self.bag = nn.EmbeddingBag(vocab, dim, mode="mean")
            self.fc = nn.Linear(dim, classes)

        def forward(self, text, offsets):
            return self.fc(self.bag(text, offsets))

    lengths = [[3, 5, 2, 4], [4, 4, 1, 6], [2, 2, 7, 3]]
    texts = [torch.randint(1, 30, (sum(ls),)) for ls in lengths]

    def program(dev):
        model = TextClassifier().to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=2.0)
        labels = torch.tensor([[0, 1, 2, 1], [2, 0, 1, 1], [0, 0, 2, 1]])
        out = []
        for _epoch in range(2):
            correct, total, seen = 0, 0, []
            for text, ls, y in zip(texts, lengths, labels, strict=True):
                offsets = torch.tensor([0] + ls[:-1]).cumsum(0)
                text, offsets, y = text.to(dev), offsets.to(dev), y.to(dev)
                logits = model(text, offsets)
                loss = F.cross_entropy(logits, y)
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
                opt.step()
                pred = logits.argmax(1)
                correct += (pred == y).sum().item()
                total += y.size(0)
                seen.append(pred * 3 + y)
            confusion = torch.bincount(torch.cat(seen), minlength=9).view(3, 3)
            out += [correct / total, confusion, loss.item()]
        return out + [model.bag.weight]

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


# slow: 25 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_weight_normalised_tcn_with_dilated_causal_padding_and_gradient_accumulation():
    class TemporalBlock(nn.Module):
        def __init__(self, cin, cout, dilation, k=3):
            super().__init__()
            self.pad = (k - 1) * dilation
            self.conv1 = weight_norm(nn.Conv1d(cin, cout, k, dilation=dilation))
            self.conv2 = weight_norm(nn.Conv1d(cout, cout, k, dilation=dilation))
            self.res = nn.Conv1d(cin, cout, 1) if cin != cout else nn.Identity()

        def forward(self, x):
            h = F.relu(self.conv1(F.pad(x, (self.pad, 0))))
            h = F.relu(self.conv2(F.pad(h, (self.pad, 0))))
            return F.relu(h + self.res(x))

    def program(dev):
        tcn = nn.Sequential(TemporalBlock(2, 6, 1), TemporalBlock(6, 6, 2),
                            TemporalBlock(6, 6, 4)).to(dev)
        head = nn.Conv1d(6, 1, 1).to(dev)
        opt = torch.optim.Adam([*tcn.parameters(), *head.parameters()], lr=2e-3)
        series = torch.randn(2, 4, 3, 2, 24).to(dev)  # (step, micro-batch, batch, ch, t)
        accum, out = 4, []
        for step in range(2):
            opt.zero_grad()
            for micro in range(accum):
                x = series[step, micro]
                pred = head(tcn(x[..., :-1]))
                loss = F.mse_loss(pred, x[:, :1, 1:]) / accum
                loss.backward()
            opt.step()
            step_mark(dev)
            out.append(loss.detach())
        return out + [tcn[1].conv1.parametrizations.weight.original0.grad,
                      tcn[2].conv2.weight, pred]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_rotary_attention_through_polar_complex_frequencies_and_causal_sdpa():
    def rope_freqs(dim, length, theta=10000.0):
        freqs = 1.0 / theta ** (torch.arange(0, dim, 2).float() / dim)
        angles = torch.outer(torch.arange(length).float(), freqs)
        return torch.polar(torch.ones_like(angles), angles)

    def apply_rope(x, freqs):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * freqs).flatten(-2).type_as(x)

    class Attention(nn.Module):
        def __init__(self, dim=16, heads=2):
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(dim, 3 * dim, bias=False)
            self.proj = nn.Linear(dim, dim, bias=False)

        def forward(self, x, freqs):
            b, t, d = x.shape
            q, k, v = self.qkv(x).view(b, t, 3, self.heads, -1).unbind(2)
            q, k = apply_rope(q, freqs[:, None]), apply_rope(k, freqs[:, None])
            y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                               v.transpose(1, 2), is_causal=True)
            return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def program(dev):
        attn = Attention().to(dev)
        freqs = rope_freqs(8, 6).to(dev)
        opt = torch.optim.AdamW(attn.parameters(), lr=1e-2)
        x = torch.randn(3, 2, 6, 16).to(dev)
        out, first = [], None
        for step in range(3):
            y = attn(x[step], freqs)
            loss = (y - x[step].roll(1, dims=1)).pow(2).mean()
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [y, freqs, attn.qkv.weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_t5_relative_position_buckets_as_a_float_attn_mask_per_head():
    def bucket(relative, num_buckets=8, max_distance=16):
        num_buckets //= 2
        ret = (relative > 0).long() * num_buckets
        n = relative.abs()
        max_exact = num_buckets // 2
        is_small = n < max_exact
        large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                             * (num_buckets - max_exact)).long()
        large = torch.min(large, torch.full_like(large, num_buckets - 1))
        return ret + torch.where(is_small, n, large)

    def program(dev):
        heads, t = 2, 10
        bias = nn.Embedding(8, heads).to(dev)
        mha = nn.MultiheadAttention(8, heads, batch_first=True).to(dev)
        opt = torch.optim.Adam([*bias.parameters(), *mha.parameters()], lr=1e-2)
        x = torch.randn(3, 2, t, 8).to(dev)
        pad = torch.zeros(2, t, dtype=torch.bool)
        pad[1, 7:] = True
        pad = pad.to(dev)
        pos = torch.arange(t, device=dev)
        buckets = bucket(pos[None, :] - pos[:, None])
        out, first = [], None
        for step in range(3):
            mask = bias(buckets).permute(2, 0, 1).repeat(2, 1, 1)  # (batch * heads, t, t)
            y, w = mha(x[step], x[step], x[step], attn_mask=mask, key_padding_mask=pad,
                       need_weights=True, average_attn_weights=False)
            loss = y.masked_fill(pad[..., None], 0).pow(2).mean()
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [buckets, w, bias.weight.grad]

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


def test_prototypical_network_episodes_with_squared_cdist_logits():
    def program(dev):
        # no last bias: distances ignore it, its gradient is rounding noise Adam would amplify
        encoder = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 8, bias=False)).to(dev)
        opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
        ways, shots, queries = 3, 2, 4
        support = torch.randn(3, ways, shots, 12).to(dev)
        query = torch.randn(3, ways, queries, 12).to(dev)
        labels = torch.arange(ways, device=dev).repeat_interleave(queries)
        out, first = [], None
        for step in range(3):
            protos = encoder(support[step].reshape(-1, 12)).view(ways, shots, -1).mean(1)
            q = encoder(query[step].reshape(-1, 12))
            logits = -torch.cdist(q, protos).pow(2)
            loss = F.cross_entropy(logits, labels)
            acc = (logits.argmax(1) == labels).float().mean()
            first = train_step(opt, loss, dev, out, step, first, settled=1)
            out.append(acc)
        return out + [protos.detach(), encoder[0].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


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


def test_poincare_embeddings_with_a_riemannian_sgd_step_under_no_grad():
    def distance(u, v, eps=1e-5):
        sq = ((u - v) ** 2).sum(-1)
        alpha = (1 - (u ** 2).sum(-1)).clamp(min=eps)
        beta = (1 - (v ** 2).sum(-1)).clamp(min=eps)
        return torch.acosh(1 + 2 * sq / (alpha * beta))

    def program(dev):
        emb = nn.Embedding(10, 2).to(dev)
        with torch.no_grad():
            emb.weight.mul_(1e-3)
        edges = torch.tensor([[0, 1], [0, 2], [1, 3], [1, 4], [2, 5], [2, 6]]).to(dev)
        negatives = torch.randint(0, 10, (3, 6, 4)).to(dev)
        out = []
        for step in range(3):
            u = emb(edges[:, 0])
            cands = torch.cat([edges[:, 1:], negatives[step]], dim=1)
            d = distance(u[:, None], emb(cands))
            loss = F.cross_entropy(-d, torch.zeros(6, dtype=torch.long, device=dev))
            emb.zero_grad()
            loss.backward()
            with torch.no_grad():
                w = emb.weight
                scale = ((1 - w.pow(2).sum(-1, keepdim=True)) ** 2) / 4
                w.sub_(0.5 * scale * w.grad)
                norm = w.norm(dim=-1, keepdim=True)
                w.copy_(torch.where(norm >= 1, w / norm * (1 - 1e-5), w))
            step_mark(dev)
            out.append(loss.detach())
        return out + [emb.weight, d]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_causal_linear_attention_with_elu_feature_maps_and_cumulative_sums():
    class LinearAttention(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.q, self.k, self.v = (nn.Linear(dim, dim) for _ in range(3))
            self.norm = nn.LayerNorm(dim, elementwise_affine=False)

        def forward(self, x):
            q, k = F.elu(self.q(x)) + 1, F.elu(self.k(x)) + 1
            v = self.v(x)
            kv = torch.einsum("btd,bte->btde", k, v).cumsum(dim=1)
            num = torch.einsum("btd,btde->bte", q, kv)
            den = torch.einsum("btd,btd->bt", q, k.cumsum(dim=1)).unsqueeze(-1)
            return self.norm(x + num / (den + 1e-6))

    def program(dev):
        model = LinearAttention().to(dev)
        opt = torch.optim.Adamax(model.parameters(), lr=1e-2)
        x = torch.randn(3, 2, 7, 8).to(dev)
        out, first = [], None
        for step in range(3):
            y = model(x[step])
            loss = F.smooth_l1_loss(y[:, :-1], x[step][:, 1:], beta=0.5)
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [y, model.q.weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_masked_autoencoder_random_masking_by_argsort_and_gather_unshuffle():
    def program(dev):
        patches, dim, keep = 8, 6, 3
        enc = nn.Sequential(nn.Linear(dim, 12), nn.GELU()).to(dev)
        dec = nn.Linear(12, dim).to(dev)
        mask_token = nn.Parameter(torch.zeros(1, 1, 12, device=dev))
        opt = torch.optim.AdamW([*enc.parameters(), *dec.parameters(), mask_token], lr=1e-2)
        x, noise = torch.randn(3, 2, patches, dim).to(dev), torch.rand(3, 2, patches).to(dev)
        out, first = [], None
        for step in range(3):
            b = x.shape[1]
            ids_shuffle = torch.argsort(noise[step], dim=1)
            ids_restore = torch.argsort(ids_shuffle, dim=1)
            ids_keep = ids_shuffle[:, :keep]
            visible = torch.gather(x[step], 1, ids_keep.unsqueeze(-1).repeat(1, 1, dim))
            mask = torch.ones(b, patches, device=dev)
            mask[:, :keep] = 0
            mask = torch.gather(mask, 1, ids_restore)
            latent = enc(visible)
            full = torch.cat([latent, mask_token.expand(b, patches - keep, -1)], dim=1)
            full = torch.gather(full, 1, ids_restore.unsqueeze(-1).expand(-1, -1, 12))
            per_patch = ((dec(full) - x[step]) ** 2).mean(-1)
            loss = (per_patch * mask).sum() / mask.sum()
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [mask, mask_token.grad, ids_restore]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_bincount_of_a_length_that_depends_on_the_data_reads_it_and_counts_lazily():
    def program(dev):
        y = torch.tensor([0, 4, 2, 2, 7]).to(dev)
        pred = torch.randn(5, 3).to(dev).argmax(1)
        w = torch.rand(5).to(dev)
        return [torch.bincount(y * 3 + pred, minlength=9), torch.bincount(y, weights=w),
                torch.bincount(y.int(), weights=w.double(), minlength=3),
                torch.bincount(y.to(torch.uint8), minlength=12)]

    same_without_fallback(program)
    for bad in (torch.tensor([1, -1]), torch.tensor([[1]]), torch.tensor([1.0])):
        with pytest.raises((RuntimeError, NotImplementedError)) as cpu:
            torch.bincount(bad)
        with pytest.raises(type(cpu.value), match=re.escape(str(cpu.value))):
            torch.bincount(bad.to(DEV))
