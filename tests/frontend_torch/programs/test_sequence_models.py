"""Sequence programs: RNN/LSTM/GRU models, packed sequences, seq2seq and beam
search, language models, TCN/WaveNet, CRFs, text classifiers. Each program
is written as a PyTorch user writes it, run eagerly on the CPU and lazily on
``lazytensor.torch.device()`` from the same seed, and compared (values,
dtypes, shapes; see ``programs.py``); training programs also check that
later steps compile nothing new."""


from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.parametrizations import weight_norm
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..lazy_vs_eager import (
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
    weights,
)


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


@pytest.mark.parametrize("cell", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers_train_a_step(cell):
    def program(dev):
        rnn = getattr(nn, cell)(input_size=5, hidden_size=7, num_layers=2, batch_first=True)
        head = nn.Linear(7, 3)
        rnn.to(dev)
        head.to(dev)
        params = list(rnn.parameters()) + list(head.parameters())
        optimizer = torch.optim.SGD(params, lr=0.1)
        x = torch.randn(4, 6, 5).to(dev)
        y = torch.tensor([0, 2, 1, 1]).to(dev)
        out, state = rnn(x)
        loss = F.cross_entropy(head(out[:, -1]), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return {"out": out, "state": state, "loss": loss,
                "grad": rnn.weight_ih_l0.grad, "weights": weights(rnn)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_lstm_cell_loop_over_time():
    def program(dev):
        cell = nn.LSTMCell(4, 6).to(dev)
        x = torch.randn(5, 3, 4).to(dev)
        h = torch.zeros(3, 6, device=dev)
        c = torch.zeros(3, 6, device=dev)
        outputs = []
        for t in range(x.size(0)):
            h, c = cell(x[t], (h, c))
            outputs.append(h)
        return torch.stack(outputs)

    same_on_both(program)


def test_gru_classifier_with_hooks_and_eval_metrics():
    def program(dev):
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(20, 8, padding_idx=0)
                self.gru = nn.GRU(8, 12, num_layers=2, batch_first=True, bidirectional=True)
                self.out = nn.Linear(24, 4)

            def forward(self, tokens):
                h, last = self.gru(self.emb(tokens))
                return self.out(h.mean(1)), last

        model = Net().to(dev)
        activations = {}

        def hook(module, inputs, output):
            activations["out"] = output.detach()

        handle = model.out.register_forward_hook(hook)
        tokens = torch.randint(0, 20, (5, 5))
        tokens[:, 4:] = 0
        tokens, target = tokens.to(dev), torch.tensor([0, 1, 2, 3, 1]).to(dev)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        logits, last = model(tokens)
        loss = F.cross_entropy(logits, target)
        loss.backward()
        emb_pad_grad = model.emb.weight.grad[0].clone()
        optimizer.step()
        handle.remove()
        model.eval()
        correct, seen = 0, 0
        with torch.no_grad():
            for i in range(0, 4, 2):
                pred = model(tokens[i:i + 2])[0].argmax(-1)
                correct += (pred == target[i:i + 2]).sum().item()
                seen += len(pred)
        return {"loss": loss, "last": last, "hooked": activations["out"],
                "pad_grad": emb_pad_grad, "acc": correct / seen, "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


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


# slow: 18 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_conv_lstm_next_frame_prediction_unrolled_over_time():
    class ConvLSTMCell(nn.Module):
        def __init__(self, cin, hidden):
            super().__init__()
            self.hidden = hidden
            self.gates = nn.Conv2d(cin + hidden, 4 * hidden, 3, padding=1)

        def forward(self, x, state):
            h, c = state
            i, f, o, g = self.gates(torch.cat([x, h], dim=1)).chunk(4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            return h, c

    def program(dev):
        cell = ConvLSTMCell(1, 4).to(dev)
        head = nn.Conv2d(4, 1, 1).to(dev)
        params = list(cell.parameters()) + list(head.parameters())
        opt = torch.optim.Adam(params, lr=1e-3)
        video = torch.rand(2, 5, 1, 6, 6).to(dev)  # (batch, time, channels, h, w)
        out, first = [], None
        for step in range(3):
            b, t, _, hh, ww = video.shape
            h = torch.zeros(b, 4, hh, ww, device=dev)
            state, preds = (h, torch.zeros_like(h)), []
            for k in range(t - 1):
                state = cell(video[:, k], state)
                preds.append(torch.sigmoid(head(state[0])))
            pred = torch.stack(preds, dim=1)
            loss = F.binary_cross_entropy(pred, video[:, 1:])
            first = train_step(opt, loss, dev, out, step, first, settled=1)
            torch.nn.utils.clip_grad_norm_(params, 1.0)
        return out + [pred, cell.gates.weight.grad]

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
