"""Transformer models: encoder classifiers, BERT-style masked LM, GPT and
LLaMA-style blocks with generation, causal decoders, full nn.Transformer.
Each program is written as a PyTorch user writes it, run eagerly on the CPU
and lazily on ``lazytensor.torch.device()`` from the same seed, and compared
(values, dtypes, shapes; see ``programs.py``); training programs also check
that later steps compile nothing new."""


from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ..lazy_vs_eager import (
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
)


class TextClassifier(nn.Module):
    def __init__(self, vocab: int = 50, dim: int = 16, classes: int = 3) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=32, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        pad = tokens == 0
        h = self.encoder(self.embed(tokens), src_key_padding_mask=pad)
        h = h.masked_fill(pad.unsqueeze(-1), 0.0)
        pooled = h.sum(1) / (~pad).sum(1, keepdim=True).clamp(min=1)
        return self.head(pooled)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(dim))

    def forward(self, x):
        h = x.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class DecoderBlock(nn.Module):
    """A Llama-style block: RMSNorm, rotary positions, grouped-query
    attention with an additive padding mask of finfo.min, SwiGLU."""

    def __init__(self, dim=16, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv, self.hd = heads, kv_heads, dim // heads
        self.q = nn.Linear(dim, dim, bias=False)
        self.kv_proj = nn.Linear(dim, 2 * kv_heads * self.hd, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)
        self.n1, self.n2 = RMSNorm(dim), RMSNorm(dim)
        self.gate, self.up = nn.Linear(dim, 32, bias=False), nn.Linear(dim, 32, bias=False)
        self.down = nn.Linear(32, dim, bias=False)

    def forward(self, x, attention_mask):
        B, T, _ = x.shape
        h = self.n1(x)
        q = self.q(h).view(B, T, self.heads, self.hd).transpose(1, 2)
        k, v = self.kv_proj(h).view(B, T, 2 * self.kv, self.hd).transpose(1, 2).chunk(2, dim=1)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2, device=x.device).float() / self.hd))
        freqs = torch.outer(torch.arange(T, device=x.device).float(), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[None, None], emb.sin()[None, None]
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(self.heads // self.kv, dim=1)
        v = torch.repeat_interleave(v, self.heads // self.kv, dim=1)
        causal = torch.triu(torch.full((T, T), float("-inf"), device=x.device), diagonal=1)
        pad = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        att = (q @ k.transpose(2, 3)) / math.sqrt(self.hd) + causal + pad
        att = F.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype)
        x = x + self.o((att @ v).transpose(1, 2).reshape(B, T, -1))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


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


def test_embedding_transformer_encoder_with_padding_mask():
    def program(dev):
        model = TextClassifier().to(dev)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
        tokens = torch.randint(1, 50, (6, 9))
        tokens[0, 5:] = 0
        tokens[3, 2:] = 0
        labels = torch.randint(0, 3, (6,))
        tokens, labels = tokens.to(dev), labels.to(dev)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(tokens), labels)
        loss.backward()
        optimizer.step()
        # (not the key projection's bias: its gradient is zero up to rounding,
        # which AdamW turns into +-lr steps that differ between devices)
        return {"loss": loss.item(), "embed_grad": model.embed.weight.grad,
                "head": model.head.weight, "ff": model.encoder.layers[1].linear1.weight}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_packed_bidirectional_lstm_and_full_transformer():
    def program(dev):
        lstm = nn.LSTM(3, 4, batch_first=True, bidirectional=True).to(dev)
        x = torch.randn(3, 5, 3).to(dev)
        packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor([5, 3, 2]), batch_first=True)
        out, (h, _) = lstm(packed)
        out, lengths = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                               dim_feedforward=16, dropout=0.0, batch_first=True).to(dev)
        src, tgt = torch.randn(2, 5, 8).to(dev), torch.randn(2, 4, 8).to(dev)
        mask = nn.Transformer.generate_square_subsequent_mask(4, device=dev)
        y = model(src, tgt, tgt_mask=mask, tgt_is_causal=True)
        (out.sum() + y.sum()).backward()
        return {"out": out, "h": h, "lengths": lengths, "y": y,
                "lstm_grad": lstm.weight_hh_l0_reverse.grad,
                "tfm_grad": model.decoder.layers[0].linear1.weight.grad}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_transformer_encoder_classifier_with_padding_mask_and_one_cycle():
    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(25, 16, padding_idx=0)
            self.pos = nn.Parameter(torch.randn(1, 10, 16) * 0.02)
            layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0,
                                               batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
            self.head = nn.Linear(16, 3)

        def forward(self, tokens):
            pad = tokens == 0
            h = self.encoder(self.emb(tokens) + self.pos[:, :tokens.size(1)],
                             src_key_padding_mask=pad)
            keep = (~pad).unsqueeze(-1).float()
            return self.head((h * keep).sum(1) / keep.sum(1))

    def program(dev):
        model = Classifier().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=3)
        tokens = torch.randint(1, 25, (5, 10))
        tokens[1, 6:] = 0
        tokens[3, 3:] = 0
        tokens, y = tokens.to(dev), torch.tensor([0, 1, 2, 1, 0]).to(dev)
        out, first = [], None
        for step in range(3):
            loss = F.cross_entropy(model(tokens), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step_mark(dev)
            out += [loss.detach(), sched.get_last_lr()[0]]
            if step >= 1:
                first = steady(dev, first)
        model.eval()
        with torch.no_grad():
            acc = (model(tokens).argmax(-1) == y).float().mean()
        return out + [acc]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_llama_style_block_with_rope_gqa_swiglu_and_kv_free_generation():
    def program(dev):
        emb, block = nn.Embedding(20, 16).to(dev), DecoderBlock().to(dev)
        head = nn.Linear(16, 20, bias=False).to(dev)
        params = [*emb.parameters(), *block.parameters(), *head.parameters()]
        opt = torch.optim.AdamW(params, lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1)
        ids = torch.randint(0, 20, (2, 7)).to(dev)
        mask = torch.ones(2, 7, dtype=torch.long, device=dev)
        mask[1, :2] = 0  # left padding
        out = []
        for _ in range(2):
            logits = head(block(emb(ids[:, :-1]), mask[:, :-1]))
            labels = ids[:, 1:].masked_fill(mask[:, 1:] == 0, -100)
            loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            out.append(loss.detach())
        with torch.no_grad():
            seq = ids[:, :3]
            for _ in range(2):
                nxt = head(block(emb(seq), torch.ones_like(seq)))[:, -1].argmax(-1, keepdim=True)
                seq = torch.cat([seq, nxt], 1)
        return out + [seq]

    same_on_both(program, rtol=1e-4, atol=1e-5)


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


@pytest.mark.slow  # XLA's CPU compile of this transformer backward takes ~10 s of CPU
def test_bert_style_masked_lm_with_norm_first_encoder_and_ignore_index():
    class Bert(nn.Module):
        def __init__(self, vocab=40, d=32, length=12):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Parameter(torch.zeros(1, length, d))
            layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, activation="gelu",
                                               batch_first=True, norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(d),
                                                 enable_nested_tensor=False)
            self.head = nn.Linear(d, vocab)
            self.head.weight = self.tok.weight

        def forward(self, ids, pad_mask):
            h = self.encoder(self.tok(ids) + self.pos, src_key_padding_mask=pad_mask)
            return self.head(h)

    def program(dev):
        model = Bert().to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
        ids = torch.randint(4, 40, (4, 6, 12))
        lengths = torch.tensor([12, 9, 7, 12, 10, 12])
        pad = torch.arange(12)[None, :] >= lengths[:, None]
        out, first = [], None
        for step in range(4):
            x = ids[step].clone()
            picked = (torch.rand(x.shape) < 0.25) & ~pad
            labels = torch.where(picked, x, torch.full_like(x, -100))
            x[picked] = 3  # [MASK]
            logits = model(x.to(dev), pad.to(dev))
            loss = F.cross_entropy(logits.reshape(-1, 40), labels.to(dev).reshape(-1),
                                   ignore_index=-100)
            first = train_step(opt, loss, dev, out, step, first, settled=2)
        return out + [model.pos.grad, model.tok.weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # XLA's CPU compile of this transformer backward takes ~10 s of CPU
def test_causal_transformer_decoder_with_square_subsequent_mask_and_greedy_decoding():
    class Captioner(nn.Module):
        def __init__(self, vocab=20, d=32):
            super().__init__()
            self.src = nn.Linear(8, d)
            self.emb = nn.Embedding(vocab, d)
            layer = nn.TransformerDecoderLayer(d, 4, 64, dropout=0.1, batch_first=True)
            self.decoder = nn.TransformerDecoder(layer, 2)
            self.out = nn.Linear(d, vocab)

        def forward(self, feats, tokens):
            mask = nn.Transformer.generate_square_subsequent_mask(tokens.shape[1],
                                                                  device=tokens.device)
            h = self.decoder(self.emb(tokens), self.src(feats), tgt_mask=mask, tgt_is_causal=True)
            return self.out(h)

    def program(dev):
        model = Captioner().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=2e-3)
        feats = torch.randn(4, 5, 8).to(dev)
        tokens = torch.randint(2, 20, (4, 7)).to(dev)
        tokens[:, 0] = 1
        out, first = [], None
        model.eval()  # dropout off: masks differ between devices
        for step in range(3):
            logits = model(feats, tokens[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), tokens[:, 1:])
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        with torch.no_grad():
            seq = torch.ones(4, 1, dtype=torch.long, device=dev)
            for _ in range(5):
                nxt = model(feats, seq)[:, -1].argmax(-1, keepdim=True)
                seq = torch.cat([seq, nxt], dim=1)
        return out + [seq, model.training]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_transformer_decoder_norm_first_with_padding_masks():
    def program(dev):
        layer = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                           batch_first=True, norm_first=True,
                                           activation="gelu")
        dec = nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(8)).to(dev)
        tgt, mem = torch.randn(2, 5, 8).to(dev), torch.randn(2, 4, 8).to(dev)
        tgt_pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2]).to(dev)
        mem_pad = torch.tensor([[False] * 4, [False, False, True, True]]).to(dev)
        causal = nn.Transformer.generate_square_subsequent_mask(5, device=dev)
        out = dec(tgt, mem, tgt_mask=causal, tgt_key_padding_mask=tgt_pad,
                  memory_key_padding_mask=mem_pad, tgt_is_causal=True)
        out.masked_fill(tgt_pad.unsqueeze(-1), 0).sum().backward()
        return {"out": out, "g": dec.layers[0].self_attn.in_proj_weight.grad}

    same_on_both(program, rtol=1e-4, atol=1e-5)
