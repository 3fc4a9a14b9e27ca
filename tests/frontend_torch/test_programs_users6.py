"""Ordinary PyTorch programs, round six (a BERT-style masked-LM encoder, a
causal transformer decoder, packed bidirectional LSTMs, unrolled recurrent
cells, optimizer options, schedulers, resuming from a state dict...) run
eagerly on the CPU and lazily from the same seed and compared (values,
dtypes, shapes; see ``lazy_vs_eager.py``); where a program marks steps, the later
steps must neither recompile nor fall back, and no program falls back."""

from __future__ import annotations

import io

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from .conftest import DEV
from .lazy_vs_eager import fallbacks, same_without_fallback, steady, step_mark, train_step


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


@pytest.mark.slow  # XLA's CPU compile of this unrolled LSTM backward takes ~10 s of CPU
def test_bidirectional_two_layer_lstm_tagger_with_unsorted_packed_sequences():
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(30, 16, padding_idx=0)
            self.lstm = nn.LSTM(16, 12, num_layers=2, bidirectional=True, batch_first=True)
            self.out = nn.Linear(24, 5)

        def forward(self, ids, lengths):
            packed = pack_padded_sequence(self.emb(ids), lengths, batch_first=True,
                                          enforce_sorted=False)
            h, (hn, _) = self.lstm(packed)
            h, _ = pad_packed_sequence(h, batch_first=True, total_length=ids.shape[1])
            return self.out(h), torch.cat([hn[-2], hn[-1]], dim=1)

    def program(dev):
        model = Tagger().to(dev)
        # foreach on both devices: its nesterov step adds the momentum into .grad in
        # place (the single-tensor step, eager's CPU default, leaves .grad alone)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                              foreach=True)
        lengths = torch.tensor([9, 4, 7, 2, 9])
        ids = torch.randint(1, 30, (5, 9)) * (torch.arange(9) < lengths[:, None])
        tags = torch.randint(0, 5, (5, 9)).masked_fill(ids == 0, -100)
        ids, tags = ids.to(dev), tags.to(dev)
        out, first = [], None
        for step in range(3):
            logits, summary = model(ids, lengths)
            loss = F.cross_entropy(logits.reshape(-1, 5), tags.reshape(-1))
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [summary, logits, model.lstm.weight_hh_l1_reverse.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # XLA's CPU compile of this unrolled RNN backward takes ~10 s of CPU
def test_attention_decoder_unrolled_with_gru_and_lstm_cells():
    class Decoder(nn.Module):
        def __init__(self, vocab=15, d=16):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.gru = nn.GRUCell(2 * d, d)
            self.lstm = nn.LSTMCell(d, d)
            self.out = nn.Linear(d, vocab)

        def forward(self, memory, targets):
            h = memory.mean(1)
            hc = (torch.zeros_like(h), torch.zeros_like(h))
            logits = []
            for t in range(targets.shape[1]):
                scores = torch.bmm(memory, h.unsqueeze(2)).squeeze(2)
                context = (scores.softmax(-1).unsqueeze(2) * memory).sum(1)
                h = self.gru(torch.cat([self.emb(targets[:, t]), context], dim=1), h)
                hc = self.lstm(h, hc)
                logits.append(self.out(hc[0]))
            return torch.stack(logits, 1)

    def program(dev):
        model = Decoder().to(dev)
        opt = torch.optim.RMSprop(model.parameters(), lr=1e-3, momentum=0.9, centered=True)
        memory = torch.randn(3, 6, 16).to(dev)
        targets = torch.randint(0, 15, (3, 5)).to(dev)
        out, first = [], None
        for step in range(3):
            logits = model(memory, targets[:, :-1])
            loss = F.cross_entropy(logits.flatten(0, 1), targets[:, 1:].flatten())
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_value_(model.parameters(), 0.05)
            opt.step()
            step_mark(dev)
            out.append(loss.detach())
            first = steady(dev, first) if step >= 1 else first
        return out + [model.gru.weight_ih.grad, model.lstm.bias_hh]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


OPTIMIZERS = {
    "adagrad-lr-decay-single-tensor": lambda p: torch.optim.Adagrad(
        p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, foreach=False),
    "rmsprop-centered-momentum-single-tensor": lambda p: torch.optim.RMSprop(
        p, lr=1e-2, momentum=0.5, centered=True, weight_decay=1e-3, foreach=False),
    "nadam-decoupled": lambda p: torch.optim.NAdam(
        p, lr=1e-2, weight_decay=1e-2, decoupled_weight_decay=True, momentum_decay=3e-3),
    "radam-decoupled-single-tensor": lambda p: torch.optim.RAdam(
        p, lr=1e-2, weight_decay=1e-2, decoupled_weight_decay=True, foreach=False),
    "adamax-maximize": lambda p: torch.optim.Adamax(p, lr=1e-2, maximize=True),
    "adadelta-single-tensor": lambda p: torch.optim.Adadelta(p, lr=1.0, rho=0.8, foreach=False),
    "asgd-foreach": lambda p: torch.optim.ASGD(p, lr=1e-2, t0=2, foreach=True),
    "sgd-nesterov-dampening-maximize": lambda p: torch.optim.SGD(
        p, lr=1e-2, momentum=0.9, nesterov=True, weight_decay=1e-3, maximize=True),
    "adam-amsgrad-single-tensor": lambda p: torch.optim.Adam(
        p, lr=1e-2, amsgrad=True, foreach=False),
    "adamw-param-groups": lambda p: torch.optim.AdamW(
        [{"params": [q for q in p if q.ndim > 1], "weight_decay": 0.1},
         {"params": [q for q in p if q.ndim <= 1], "weight_decay": 0.0, "lr": 3e-3}], lr=1e-2),
}


def test_optimizer_options_each_training_its_own_small_regression_in_one_step_graph():
    def program(dev):
        x = torch.randn(32, 6).to(dev)
        y = (x[:, :1] * 2 - x[:, 1:2]).sin()
        models, opts = {}, {}
        for name in sorted(OPTIMIZERS):
            models[name] = nn.Linear(6, 1).to(dev)
            opts[name] = OPTIMIZERS[name](list(models[name].parameters()))
        first = None
        for step in range(4):
            for name, opt in opts.items():
                sign = -1.0 if opt.defaults.get("maximize") else 1.0
                opt.zero_grad()
                (sign * F.mse_loss(models[name](x), y)).backward()
                opt.step()
            step_mark(dev)
            first = steady(dev, first) if step >= 2 else first
        state = [v for opt in opts.values() for s in opt.state.values() for v in s.values()
                 if torch.is_tensor(v)]
        return [p.detach() for m in models.values() for p in m.parameters()] + state

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_lambda_multistep_chained_and_cyclic_schedulers_follow_torch():
    def program(dev):
        model = nn.Linear(4, 1).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / 3))
        steps = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[4, 6], gamma=0.5)
        sched = torch.optim.lr_scheduler.ChainedScheduler([warm, steps])
        opt2 = torch.optim.SGD(nn.Linear(4, 1).to(dev).parameters(), lr=0.1, momentum=0.9)
        cyclic = torch.optim.lr_scheduler.CyclicLR(opt2, 0.01, 0.1, step_size_up=2,
                                                   mode="triangular2")
        x = torch.randn(16, 4).to(dev)
        y = x.sum(1, keepdim=True)
        out, lrs, first = [], [], None
        for step in range(8):
            loss = F.smooth_l1_loss(model(x), y, beta=0.5)
            first = train_step(opt, loss, dev, out, step, first, settled=2)
            sched.step()
            cyclic.step()
            lrs.append((opt.param_groups[0]["lr"], opt2.param_groups[0]["lr"]))
        return out + [lrs, model.weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_resume_model_optimizer_and_scheduler_from_bytes_io_matches_uninterrupted_training():
    def make(dev):
        model = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
        model = model.to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        return model, opt, sched

    def train(model, opt, sched, x, y, steps, dev):
        out = []
        for _ in range(steps):
            loss = F.cross_entropy(model(x), y)
            train_step(opt, loss, dev, out, 0, None, settled=1)
            sched.step()
        return out

    def program(dev):
        x, y = torch.randn(16, 5).to(dev), torch.randint(0, 2, (16,)).to(dev)
        torch.manual_seed(1)
        model, opt, sched = make(dev)
        straight = train(model, opt, sched, x, y, 6, dev)
        torch.manual_seed(1)
        model, opt, sched = make(dev)
        resumed = train(model, opt, sched, x, y, 3, dev)
        buf = io.BytesIO()
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict()}, buf)
        buf.seek(0)
        saved = torch.load(buf, weights_only=True)
        model2, opt2, sched2 = make(dev)
        model2.load_state_dict(saved["model"])
        opt2.load_state_dict(saved["opt"])
        sched2.load_state_dict(saved["sched"])
        resumed += train(model2, opt2, sched2, x, y, 3, dev)
        torch.testing.assert_close(torch.stack(resumed).cpu(), torch.stack(straight).cpu())
        return straight + [model2[1].running_var, opt2.state[opt2.param_groups[0]["params"][0]]
                           ["exp_avg_sq"], saved["opt"]["state"][0]["step"]]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


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


def test_fused_adamw_amsgrad_sgd_nesterov_and_adagrad_with_a_grad_scaler():
    """fused=True: torch's _fused_adamw_/_fused_sgd_/_fused_adagrad_ kernels as its CPU
    kernels compute them (grads unscaled in place, steps skipped on inf),
    recorded lazily: no fallback, no recompile after the first steps."""
    def program(dev):
        models = [nn.Linear(4, 1).to(dev) for _ in range(3)]
        opts = [torch.optim.AdamW(models[0].parameters(), lr=0.05, weight_decay=0.1,
                                  amsgrad=True, fused=True),
                torch.optim.SGD(models[1].parameters(), lr=0.05, momentum=0.9, nesterov=True,
                                weight_decay=0.01, fused=True),
                torch.optim.Adagrad(models[2].parameters(), lr=0.1, lr_decay=0.01, fused=True)]
        scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
        x, y = torch.randn(16, 4).to(dev), torch.randn(16, 1).to(dev)
        out, first = [], None
        for step in range(4):
            for model, opt in zip(models, opts, strict=True):
                opt.zero_grad()
                loss = F.mse_loss(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                out.append(loss.detach())
            scaler.update()
            step_mark(dev)
            first = steady(dev, first) if step >= 2 else first
        state = [v for opt in opts for s in opt.state.values() for v in s.values()
                 if torch.is_tensor(v)]
        return out + [p.grad for m in models for p in m.parameters()] + state

    same_without_fallback(program, rtol=1e-4, atol=1e-5)
