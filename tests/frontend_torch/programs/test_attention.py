"""Attention programs: transformer encoders and decoders, GPT/LLaMA/BERT-style
blocks, position encodings (RoPE, ALiBi, T5 buckets), SDPA and multi-head
attention masks, mixture of experts. Each program is written as a PyTorch
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

from ..conftest import DEV
from ..lazy_vs_eager import (
    fallbacks,
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
)


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


def alibi_slopes(heads):
    start = 2 ** (-8 / heads)
    return torch.tensor([start ** (i + 1) for i in range(heads)])


def test_conv1d_text_model_with_multihead_attention_and_causal_mask():
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(20, 8)
            self.conv = nn.Conv1d(8, 8, kernel_size=3, padding=1)
            self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
            self.out = nn.Linear(8, 20)

        def forward(self, tokens):
            h = self.embed(tokens)
            h = F.relu(self.conv(h.transpose(1, 2))).transpose(1, 2)
            n = tokens.size(1)
            causal = torch.triu(torch.ones(n, n, dtype=torch.bool, device=tokens.device), 1)
            h, weights = self.attn(h, h, h, attn_mask=causal)
            return self.out(h), weights

    def program(dev):
        model = Net().to(dev)
        tokens = torch.randint(0, 20, (3, 7)).to(dev)
        logits, attn = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 20), tokens[:, 1:].reshape(-1))
        loss.backward()
        return {"logits": logits, "attn": attn, "loss": loss,
                "grad": model.conv.weight.grad, "embed_grad": model.embed.weight.grad}

    same_on_both(program)


# slow: 17 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_baddbmm_attention_with_pixel_unshuffle_tokens_and_relative_bias():
    img = torch.randn(2, 3, 8, 8)

    class TinyViT(nn.Module):
        def __init__(self, dim=12, heads=2):
            super().__init__()
            self.heads, self.scale = heads, (dim // heads) ** -0.5
            self.to_tokens = nn.Sequential(nn.PixelUnshuffle(2), nn.Conv2d(12, dim, 1))
            self.qkv = nn.Linear(dim, 3 * dim, bias=False)
            self.bias = nn.Parameter(torch.zeros(heads, 16, 16))
            self.proj = nn.Linear(dim, dim)
            self.norm = nn.LayerNorm(dim, elementwise_affine=False)

        def forward(self, x):
            t = self.to_tokens(x).flatten(2).transpose(1, 2)  # (B, 16, dim)
            b, n, d = t.shape
            q, k, v = self.qkv(self.norm(t)).chunk(3, dim=-1)
            split = lambda z: z.view(b, n, self.heads, -1).transpose(1, 2).reshape(  # noqa: E731
                b * self.heads, n, -1)
            q, k, v = split(q), split(k), split(v)
            bias = self.bias.repeat(b, 1, 1)
            att = torch.baddbmm(bias, q, k.transpose(1, 2), alpha=self.scale).softmax(-1)
            y = torch.bmm(att, v).view(b, self.heads, n, -1).transpose(1, 2).reshape(b, n, d)
            return t + self.proj(y), att

    def program(dev):
        torch.manual_seed(12)
        model = TinyViT().to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        x, out = img.to(dev), []
        for _ in range(2):
            y, att = model(x)
            loss = y.pow(2).mean() + 0.1 * (att * att.clamp_min(1e-9).log()).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        return out + [att.detach(), model.bias.grad, model.to_tokens[1].weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


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


def test_transformer_encoder_in_eval_with_a_padding_mask_checks_it_on_the_device():
    """In eval mode without grad, nn.TransformerEncoder asks whether the
    padding mask is left-aligned (torch._nested_tensor_from_mask_left_aligned)
    before its CPU fast path; the lazy device answers it without an eager
    fallback, takes the ordinary path, and agrees with eager torch at the
    valid positions (the fast path leaves zeros at padded ones; the
    ordinary path, torch's own in training, computes them)."""
    def program(dev):
        layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)
        model = nn.TransformerEncoder(layer, 1).to(dev).eval()
        x = torch.randn(3, 5, 16).to(dev)
        pad = (torch.arange(5)[None] >= torch.tensor([5, 2, 4])[:, None]).to(dev)
        with torch.inference_mode():
            h = model(x, src_key_padding_mask=pad)
            pooled = h.masked_fill(pad[..., None], 0.0).sum(1) / (~pad).sum(1, keepdim=True)
        return [h.masked_fill(pad[..., None], 0.0), pooled]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_left_aligned_mask_check_answers_and_raises_as_torch():
    lengths = torch.tensor([6, 3, 0])
    t = torch.randn(3, 6, 4)
    positions = torch.arange(6)[None]
    for mask in [positions < lengths[:, None], positions >= lengths[:, None],
                 torch.zeros(3, 6, dtype=torch.bool), torch.ones(3, 6),
                 torch.ones(6, dtype=torch.bool), torch.ones(3, 5, dtype=torch.bool)]:
        outcomes = []
        for dev in ("cpu", DEV):
            try:
                outcomes.append(torch._nested_tensor_from_mask_left_aligned(t.to(dev),
                                                                            mask.to(dev)))
            except RuntimeError as error:
                outcomes.append(str(error))
        assert outcomes[0] == outcomes[1]
    assert fallbacks() == 0


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


def test_multihead_attention_with_key_padding_and_attn_masks():
    def program(dev):
        out = {}
        for batch_first in (False, True):
            mha = nn.MultiheadAttention(8, 2, kdim=6, vdim=5, batch_first=batch_first).to(dev)
            q = torch.randn(3, 4, 8)
            k, v = torch.randn(5, 4, 6), torch.randn(5, 4, 5)
            if batch_first:
                q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
            pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2,
                                [False] * 4 + [True], [False, True, False, True, False]])
            attn_mask = torch.triu(torch.ones(3, 5, dtype=torch.bool), diagonal=3)
            o, w = mha(q.to(dev), k.to(dev), v.to(dev), key_padding_mask=pad.to(dev),
                       attn_mask=attn_mask.to(dev), average_attn_weights=False)
            o.sum().backward()
            out[batch_first] = [o, w, mha.in_proj_bias.grad if mha.in_proj_bias is not None
                                else None, mha.q_proj_weight.grad]
            fmask = torch.zeros(3, 5).masked_fill(attn_mask, -1e4).to(dev)
            out[f"float{batch_first}"] = mha(q.to(dev), k.to(dev), v.to(dev), attn_mask=fmask,
                                              key_padding_mask=pad.to(dev))
        self_attn = nn.MultiheadAttention(8, 4, dropout=0.0, bias=False).to(dev).eval()
        x = torch.randn(6, 2, 8).to(dev)
        with torch.no_grad():
            out["self"] = self_attn(x, x, x, need_weights=False)[0]
            causal = nn.Transformer.generate_square_subsequent_mask(6, device=dev)
            out["causal"] = self_attn(x, x, x, attn_mask=causal, is_causal=True)
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_scaled_dot_product_attention_causal_and_masks():
    def program(dev):
        q, k, v = (torch.randn(2, 3, 5, 8).to(dev) for _ in range(3))
        bool_mask = (torch.rand(5, 5) > 0.3).to(dev)
        bool_mask[:, 0] = True
        float_mask = torch.randn(2, 1, 5, 5).to(dev)
        return [F.scaled_dot_product_attention(q, k, v, is_causal=True),
                F.scaled_dot_product_attention(q, k, v, attn_mask=bool_mask),
                F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask, scale=0.3),
                F.scaled_dot_product_attention(q, k[:, :, :4], v[:, :, :4], is_causal=True),
                F.scaled_dot_product_attention(q.double(), k.double(), v.double(),
                                               is_causal=True)]

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_multihead_attention_batch_first_padding_mask_and_weights():
    def program(dev):
        mha = nn.MultiheadAttention(16, 4, batch_first=True, dropout=0.0).to(dev)
        x = torch.randn(3, 6, 16).to(dev)
        pad = torch.tensor([[False] * 6, [False] * 4 + [True] * 2,
                            [False] * 2 + [True] * 4]).to(dev)
        out, w = mha(x, x, x, key_padding_mask=pad, need_weights=True)
        out2, w2 = mha(x, x, x, key_padding_mask=pad, need_weights=True,
                       average_attn_weights=False)
        mha.eval()
        with torch.no_grad():
            out3, w3 = mha(x, x, x, key_padding_mask=pad, need_weights=False)
        (out.sum() + out2.pow(2).sum()).backward()
        return [out, w, out2, w2, out3, w3, mha.in_proj_weight.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)
