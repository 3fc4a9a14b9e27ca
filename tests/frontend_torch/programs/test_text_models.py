"""Text programs: language models (LSTM, tied embeddings, RNN over padded
sequences), seq2seq with teacher forcing, beam search, CRFs, EmbeddingBag
classifiers, skip-gram. Each program is written as a PyTorch user writes it,
run eagerly on the CPU and lazily on ``lazytensor.torch.device()`` from the
same seed, and compared (values, dtypes, shapes; see ``programs.py``);
training programs also check that later steps compile nothing new."""


from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ..lazy_vs_eager import (
    same_on_both,
    same_without_fallback,
    train_step,
    weights,
)


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


def test_tied_embedding_language_model_with_grad_scaler():
    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(11, 6)
            self.norm = nn.LayerNorm(6)
            self.out = nn.Linear(6, 11, bias=False)
            self.out.weight = self.emb.weight  # tied before the move to the device

        def forward(self, tokens):
            return self.out(self.norm(torch.tanh(self.emb(tokens))))

    def program(dev):
        model = TinyLM().to(dev)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8, growth_interval=2)
        tokens = torch.randint(0, 11, (4, 6)).to(dev)
        losses, scales = [], []
        for step in range(5):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, 11), tokens[:, 1:].reshape(-1))
            if step == 2:
                loss = loss * float("inf")  # an overflowing step is skipped, the scale backs off
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            losses.append(loss.detach())
            scales.append(scaler.get_scale())
        return {"tied": model.out.weight is model.emb.weight,
                "n_params": len(list(model.parameters())), "losses": losses,
                "scales": scales, "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


# slow: 17 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_tanh_rnn_language_model_over_padded_sequences_and_row_iteration():
    vocab = 12
    seqs = [torch.randint(1, vocab, (n,)) for n in (7, 4, 6, 3)]

    class CharRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, 8, padding_idx=0)
            self.rnn = nn.RNN(8, 16, num_layers=2, batch_first=True, nonlinearity="tanh")
            self.out = nn.Linear(16, vocab)

        def forward(self, x, h=None):
            y, h = self.rnn(self.embed(x), h)
            return self.out(y), h

    def program(dev):
        torch.manual_seed(6)
        model = CharRNN().to(dev)
        opt = torch.optim.RMSprop(model.parameters(), lr=3e-3)
        batch = nn.utils.rnn.pad_sequence(seqs, batch_first=True).to(dev)
        inputs, targets = batch[:, :-1], batch[:, 1:]
        out = []
        for _ in range(3):
            logits, _ = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1), ignore_index=0)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_value_(model.parameters(), 0.5)
            opt.step()
            out.append(f"loss {loss.item():.5f}")
        with torch.no_grad():
            logits, h = model(inputs[:, :1])
            token, text = logits[:, -1].argmax(-1, keepdim=True), []
            for _ in range(4):  # greedy decoding, one token at a time
                logits, h = model(token, h)
                token = logits[:, -1].argmax(-1, keepdim=True)
                text.append(token)
            text = torch.cat(text, dim=1)
        rows = [row.tolist() for row in text]  # iterating a tensor's rows
        return out + [rows, len(text), h, model.embed.weight[0]]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


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


def test_beam_search_with_flat_topk_and_floor_division():
    def program(dev):
        torch.manual_seed(1)
        table = torch.randn(7, 7).log_softmax(-1).to(dev)
        beams, width = torch.zeros(1, 1, dtype=torch.long, device=dev), 3
        scores = torch.zeros(1, device=dev)
        for _ in range(4):
            cand = scores[:, None] + table[beams[:, -1]]
            top, flat = cand.flatten().topk(min(width, cand.numel()))
            prev = torch.div(flat, 7, rounding_mode="floor")
            tok = flat % 7
            beams = torch.cat([beams[prev], tok[:, None]], 1)
            scores = top
        lengths = (beams != 0).sum(1)
        normed = scores / lengths.clamp(min=1) ** 0.6
        best = beams[normed.argmax()]
        return {"beams": beams, "scores": scores, "best": best, "list": best.tolist()}

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_crf_viterbi_and_forward_algorithm():
    def program(dev):
        torch.manual_seed(3)
        trans = torch.randn(4, 4).to(dev).requires_grad_()
        emis = torch.randn(2, 5, 4).to(dev).requires_grad_()
        tags = torch.tensor([[0, 1, 2, 3, 1], [2, 2, 1, 0, 0]]).to(dev)
        alpha = emis[:, 0]
        score = emis[:, 0].gather(1, tags[:, :1]).squeeze(1)
        best, back = emis[:, 0], []
        for t in range(1, 5):
            alpha = torch.logsumexp(alpha[:, :, None] + trans[None], 1) + emis[:, t]
            score = score + trans[tags[:, t - 1], tags[:, t]] + emis[:, t].gather(
                1, tags[:, t:t + 1]).squeeze(1)
            v, i = (best[:, :, None] + trans[None]).max(1)
            best = v + emis[:, t]
            back.append(i)
        nll = (torch.logsumexp(alpha, 1) - score).sum()
        nll.backward()
        path = [best.argmax(1)]
        for i in reversed(back):
            path.append(i.gather(1, path[-1][:, None]).squeeze(1))
        return {"nll": nll, "gt": trans.grad, "ge": emis.grad,
                "path": torch.stack(path[::-1], 1)}

    same_on_both(program, rtol=1e-4, atol=1e-5)
