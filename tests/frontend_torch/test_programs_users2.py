"""Ordinary PyTorch programs (GANs, sequence models, reinforcement learning,
contrastive and graph learning, schedulers...) written as a user writes
them, run eagerly on the CPU and lazily from the same seed and compared
(values, dtypes, shapes; see ``lazy_vs_eager.py``); where a program marks steps,
the later steps must neither recompile nor fall back."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import counters, same_on_both, steady, step_mark


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


class Encoder(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, src):
        outputs, h = self.gru(self.emb(src))
        return outputs, h


class Decoder(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden * 2, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, token, h, enc):
        scores = torch.bmm(enc, h.transpose(0, 1).transpose(1, 2)).squeeze(2)
        context = (scores.softmax(-1).unsqueeze(2) * enc).sum(1, keepdim=True)
        x = torch.cat([self.emb(token).unsqueeze(1), context], dim=2)
        output, h = self.gru(x, h)
        return self.out(output.squeeze(1)), h


# ~9 s on a CI worker (XLA compiles of its unrolled steps): CI's test step is at its budget
@pytest.mark.slow
def test_seq2seq_gru_teacher_forcing_and_greedy_decoding():
    def program(dev):
        vocab, hidden, sos = 12, 16, 0
        enc, dec = Encoder(vocab, hidden).to(dev), Decoder(vocab, hidden).to(dev)
        params = list(enc.parameters()) + list(dec.parameters())
        opt = torch.optim.RMSprop(params, lr=3e-3)
        src = torch.randint(1, vocab, (4, 4)).to(dev)
        tgt = src.flip(1)
        out = []
        for epoch in range(2):
            enc_out, h = enc(src)
            token = torch.full((4,), sos, dtype=torch.long, device=dev)
            loss = 0
            for t in range(tgt.size(1)):
                logits, h = dec(token, h, enc_out)
                loss = loss + F.cross_entropy(logits, tgt[:, t])
                token = tgt[:, t] if epoch == 0 else logits.argmax(-1).detach()
            opt.zero_grad()
            (loss / tgt.size(1)).backward()
            nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            out.append(loss.item())
        with torch.no_grad():
            enc_out, h = enc(src)
            token = torch.zeros(4, dtype=torch.long, device=dev)
            decoded = []
            for _ in range(4):
                logits, h = dec(token, h, enc_out)
                token = torch.argmax(logits, dim=-1)
                decoded.append(token)
            decoded = torch.stack(decoded, 1)
        return out + [decoded, (decoded == tgt).float().mean()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


# ~9 s on a CI worker (XLA compiles of its unrolled steps): CI's test step is at its budget
@pytest.mark.slow
def test_lstm_language_model_packed_tied_weights_and_clipping():
    class LM(nn.Module):
        def __init__(self, vocab=20, dim=12):
            super().__init__()
            self.emb = nn.Embedding(vocab, dim, padding_idx=0)
            self.lstm = nn.LSTM(dim, dim, batch_first=True)
            self.head = nn.Linear(dim, vocab)
            self.head.weight = self.emb.weight

        def forward(self, x, lengths):
            packed = nn.utils.rnn.pack_padded_sequence(self.emb(x), lengths, batch_first=True,
                                                       enforce_sorted=False)
            out, _ = self.lstm(packed)
            out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True,
                                                      total_length=x.size(1))
            return self.head(out)

    def program(dev):
        model = LM().to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        lengths = torch.tensor([5, 3, 6, 2])
        x = torch.randint(1, 20, (4, 6))
        x = x.masked_fill(torch.arange(6)[None] >= lengths[:, None], 0).to(dev)
        out = []
        for _ in range(2):
            logits = model(x[:, :-1], (lengths - 1).clamp(min=1))
            loss = F.cross_entropy(logits.reshape(-1, 20), x[:, 1:].reshape(-1), ignore_index=0)
            opt.zero_grad()
            loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.25)
            opt.step()
            out += [loss.detach(), norm, torch.exp(loss.detach())]
        return out + [model.emb.weight.detach(), model.head.weight is model.emb.weight]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_reinforce_with_normal_policy_discounted_returns_and_entropy_bonus():
    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(3, 32), nn.Tanh())
            self.mu = nn.Linear(32, 2)
            self.log_std = nn.Parameter(torch.zeros(2))

        def forward(self, s):
            h = self.body(s)
            return torch.distributions.Normal(self.mu(h), self.log_std.exp())

    def program(dev):
        policy = Policy().to(dev)
        opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
        gamma, out = 0.9, []
        # the exploration noise comes from the CPU (lazy draws differ from eager's)
        noise = torch.randn(2, 6, 2).to(dev)
        for episode in range(2):
            state = torch.randn(3).to(dev)
            log_probs, rewards, entropies = [], [], []
            for t in range(6):
                dist = policy(state)
                action = (dist.mean + dist.stddev * noise[episode, t]).detach()
                log_probs.append(dist.log_prob(action).sum())
                entropies.append(dist.entropy().sum())
                rewards.append(-(action ** 2).sum().item())
                state = torch.cat([state[1:], action[:1]]).detach()
            returns, g = [], 0.0
            for r in reversed(rewards):
                g = r + gamma * g
                returns.insert(0, g)
            returns = torch.tensor(returns, device=dev)
            returns = (returns - returns.mean()) / (returns.std() + 1e-8)
            loss = -(torch.stack(log_probs) * returns).sum() - 0.01 * torch.stack(entropies).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.detach(), returns, sum(rewards)]
        return out + [p.detach() for p in policy.parameters()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_clip_style_contrastive_loss_with_learned_temperature():
    def program(dev):
        img_enc = nn.Sequential(nn.Linear(10, 16), nn.GELU(), nn.Linear(16, 8)).to(dev)
        txt_enc = nn.Sequential(nn.Embedding(30, 8), nn.Flatten(), nn.Linear(24, 8)).to(dev)
        logit_scale = nn.Parameter(torch.tensor(2.0).log().to(dev))
        opt = torch.optim.AdamW(list(img_enc.parameters()) + list(txt_enc.parameters())
                                + [logit_scale], lr=1e-2, weight_decay=0.05)
        images, texts = torch.randn(6, 10).to(dev), torch.randint(0, 30, (6, 3)).to(dev)
        labels = torch.arange(6, device=dev)
        out = []
        for _ in range(3):
            a = F.normalize(img_enc(images), dim=-1)
            b = F.normalize(txt_enc(texts), p=2, dim=1)
            logits = logit_scale.exp().clamp(max=100) * a @ b.t()
            loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
            opt.zero_grad()
            loss.backward()
            opt.step()
            acc = (logits.argmax(1) == labels).float().mean()
            out += [loss.detach(), acc, logit_scale.detach().clone()]
        return out

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


def test_gradient_accumulation_with_tensor_dataset_and_dataloader():
    def program(dev):
        torch.manual_seed(3)
        x, y = torch.randn(48, 6), torch.randint(0, 3, (48,))
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8,
                                             shuffle=True,
                                             generator=torch.Generator().manual_seed(5))
        model = nn.Sequential(nn.Linear(6, 24), nn.SiLU(), nn.Dropout(0.0),
                              nn.Linear(24, 3)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        accum, out, first = 3, [], None
        opt.zero_grad()
        for i, (xb, yb) in enumerate(loader):
            xb, yb = xb.to(dev), yb.to(dev)
            loss = F.cross_entropy(model(xb), yb) / accum
            loss.backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.zero_grad(set_to_none=True)
                step_mark(dev)
                if i >= 5:
                    first = steady(dev, first)
            out.append(loss.detach())
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for xb, yb in torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y),
                                                      batch_size=16):
                pred = model(xb.to(dev)).argmax(1)
                correct += (pred == yb.to(dev)).sum().item()
                total += yb.numel()
        return out + [correct / total]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_ema_buffer_teacher_and_functional_call():
    class EMA(nn.Module):
        def __init__(self, model, decay=0.9):
            super().__init__()
            self.decay = decay
            for name, p in model.named_parameters():
                self.register_buffer(name.replace(".", "_"), p.detach().clone())

        @torch.no_grad()
        def update(self, model):
            for name, p in model.named_parameters():
                buf = getattr(self, name.replace(".", "_"))
                buf.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)

        def params(self, model):
            return {n: getattr(self, n.replace(".", "_")) for n, _ in model.named_parameters()}

    def program(dev):
        model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)).to(dev)
        ema = EMA(model).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        x, y = torch.randn(16, 5).to(dev), torch.randn(16, 1).to(dev)
        out = []
        for _ in range(4):
            loss = F.smooth_l1_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            ema.update(model)
            with torch.no_grad():
                teacher = torch.func.functional_call(model, ema.params(model), (x,))
            out += [loss.detach(), F.mse_loss(teacher, y)]
        return out + [dict(ema.state_dict())]

    same_on_both(program, rtol=1e-5, atol=1e-6)


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
