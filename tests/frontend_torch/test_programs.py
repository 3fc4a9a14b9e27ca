"""Ordinary PyTorch programs, written the way PyTorch users write them, run
eagerly on the CPU and lazily on ``lazytensor.torch.device()`` from the same
seed: their outputs, losses and final weights agree (float32 tolerance), with
the same dtypes and shapes. This file: model architectures (CNN, RNNs,
transformers, autoencoders, ResNet, VAE, U-Net, policy gradient);
``test_programs_training.py``: the training machinery around them (schedulers,
clipping, state dicts, data loaders, init, checkpointing, optimizers);
``test_programs_tensors.py``: tensor-level programs.

Each program is a function of the device. Data is made on the CPU (as a data
loader gives it) and moved with ``.to(dev)``; models are built on the CPU
after ``torch.manual_seed`` and moved with ``model.to(dev)``.
``same_on_both`` runs a program on both devices and compares what it returned.
"""

from __future__ import annotations

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import compare, digits, fallbacks, same_on_both, weights


class SmallCNN(nn.Module):
    # no conv bias before batch norm (its gradient is zero up to rounding,
    # which Adam would turn into +-lr steps that differ between devices)
    def __init__(self, p: float = 0.25) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.dropout = nn.Dropout(p)
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        x = torch.flatten(x, 1)
        return self.fc(self.dropout(x))


def cnn_program(p: float):
    def program(dev):
        x, y = digits(192)
        images = x.view(-1, 1, 8, 8)
        model = SmallCNN(p).to(dev)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        losses = []
        model.train()
        for i in range(3):
            xb, yb = images[i * 64:(i + 1) * 64].to(dev), y[i * 64:(i + 1) * 64].to(dev)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if dev == DEV:
                lt.mark_step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            logits = model(images.to(dev))
            accuracy = (logits.argmax(dim=1) == y.to(dev)).float().mean().item()
        return {"losses": losses, "logits": logits, "accuracy": accuracy,
                "weights": weights(model)}

    return program


def test_cnn_batchnorm_maxpool_adam_train_and_eval():
    same_on_both(cnn_program(0.0), rtol=1e-4, atol=1e-4)
    assert fallbacks() == 0


@pytest.mark.slow
def test_cnn_with_active_dropout_is_deterministic_under_the_seed():
    torch.manual_seed(3)
    first = cnn_program(0.5)(DEV)
    torch.manual_seed(3)
    second = cnn_program(0.5)(DEV)
    first["logits"] = first["logits"].cpu()
    compare(first, second, rtol=0, atol=0)
    torch.manual_seed(3)
    eager = cnn_program(0.5)(torch.device("cpu"))
    # masks differ from eager torch's, but training still learns alike
    assert abs(first["losses"][0] - eager["losses"][0]) < 0.5
    assert first["logits"].shape == eager["logits"].shape


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


def test_custom_module_with_buffers_parameters_and_functional_ops():
    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = nn.Parameter(torch.ones(8))
            self.register_buffer("steps", torch.zeros((), dtype=torch.long))
            self.proj = nn.Linear(8, 8, bias=False)

        def forward(self, x):
            self.steps += 1
            h = F.gelu(self.proj(x)) * self.scale
            attn = F.scaled_dot_product_attention(h[:, None], h[:, None], h[:, None],
                                                  is_causal=True)
            return F.normalize(x + attn.squeeze(1), dim=-1)

    def program(dev):
        model = nn.Sequential(Block(), nn.Linear(8, 2)).to(dev)
        optimizer = torch.optim.RMSprop(model.parameters(), lr=0.01)
        x = torch.randn(2, 5, 8).to(dev)
        for _ in range(2):
            optimizer.zero_grad()
            out = model(x)
            loss = out.pow(2).mean() + 0.01 * sum(p.abs().sum() for p in model.parameters())
            loss.backward()
            optimizer.step()
        return {"out": out, "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


class Autoencoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.GroupNorm(2, 4), nn.LeakyReLU(0.1),
            nn.Conv2d(4, 8, 3, stride=2, padding=1), nn.AdaptiveAvgPool2d((2, 2)))
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(8, 4, 2, stride=2), nn.ELU(),
            nn.ConvTranspose2d(4, 1, 2, stride=2), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


def test_conv_autoencoder_groupnorm_transpose_conv_adagrad():
    def program(dev):
        x, _ = digits(32)
        images = x.view(-1, 1, 8, 8).to(dev)
        model = Autoencoder().to(dev)
        optimizer = torch.optim.Adagrad(model.parameters(), lr=0.05)
        for _ in range(2):
            optimizer.zero_grad()
            recon = model(images)
            loss = F.binary_cross_entropy(recon, images) + F.smooth_l1_loss(recon, images)
            loss.backward()
            optimizer.step()
        return {"recon": recon, "loss": loss, "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)
    assert fallbacks() == 0  # adaptive pooling and its gradient are lowered


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


class ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)), inplace=True)
        out = self.bn2(self.conv2(out))
        out += x  # in-place residual add
        return F.relu(out)


def test_tiny_resnet_hand_written_sgd_ema_and_deepcopy():
    import copy

    def program(dev):
        model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4),
                              nn.ReLU(inplace=True), ResidualBlock(4), nn.AdaptiveAvgPool2d(1),
                              nn.Flatten(), nn.Linear(4, 10)).to(dev)
        ema = copy.deepcopy(model)
        for p in ema.parameters():
            p.requires_grad_(False)
        x, y = digits(64)
        images, labels = x.view(-1, 1, 8, 8).to(dev), y.to(dev)
        for _ in range(2):
            loss = F.cross_entropy(model(images), labels)
            model.zero_grad()
            loss.backward()
            with torch.no_grad():  # the tutorial's hand-written SGD step
                for p in model.parameters():
                    p -= 0.1 * p.grad
                for p_ema, p in zip(ema.parameters(), model.parameters(), strict=True):
                    p_ema.mul_(0.9).add_(p, alpha=0.1)
        ema.eval()
        with torch.no_grad():
            probs = ema(images).softmax(dim=-1)
        return {"loss": loss, "probs": probs, "weights": weights(model),
                "ema": weights(ema)}

    same_on_both(program, rtol=1e-4, atol=1e-5)
    assert fallbacks() == 0


def test_vae_reparameterization_and_kl_term():
    class VAE(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc = nn.Linear(64, 16)
            self.mu, self.logvar = nn.Linear(16, 4), nn.Linear(16, 4)
            self.dec = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 64))

        def forward(self, x, eps):
            h = F.relu(self.enc(x))
            mu, logvar = self.mu(h), self.logvar(h)
            z = mu + eps * torch.exp(0.5 * logvar)
            return self.dec(z), mu, logvar

    def program(dev):
        model = VAE().to(dev)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        x, _ = digits(32)
        x = x.to(dev)
        eps = torch.randn(32, 4).to(dev)  # noise drawn on the CPU, like a data loader's
        recon, mu, logvar = model(x, eps)
        bce = F.binary_cross_entropy_with_logits(recon, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = (bce + kld) / x.shape[0]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return {"loss": loss.item(), "kld": kld, "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-4)


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


def test_unet_style_decoder_upsampling_and_replication_padding():
    class TinyUNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.down = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
            self.mid = nn.Sequential(nn.ReplicationPad2d(1), nn.Conv2d(4, 4, 3), nn.ReLU())
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
            self.out = nn.Conv2d(5, 1, 1)

        def forward(self, x):
            h = self.up(self.mid(self.down(x)))
            coarse = F.interpolate(F.avg_pool2d(x, 2), size=x.shape[-2:], mode="nearest")
            return self.out(torch.cat([h, coarse], dim=1))

    def program(dev):
        x, _ = digits(16)
        images = x.view(-1, 1, 8, 8).to(dev)
        model = TinyUNet().to(dev)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        optimizer.zero_grad()
        loss = F.mse_loss(model(images), images)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
        optimizer.step()
        return {"loss": loss, "norm": norm, "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)
    assert fallbacks() == 0  # upsampling and replication-padding gradients are lowered


def test_policy_gradient_with_categorical_sampling():
    from torch.distributions import Categorical

    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
    lazy_policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3)).to(DEV)
    lazy_policy.load_state_dict(policy.state_dict())
    states = torch.randn(64, 4)
    torch.manual_seed(1)
    actions = Categorical(logits=lazy_policy(states.to(DEV))).sample()
    torch.manual_seed(1)
    again = Categorical(logits=lazy_policy(states.to(DEV))).sample()
    assert actions.dtype == torch.int64 and actions.shape == (64,)
    assert torch.equal(actions.cpu(), again.cpu())  # same seed, same actions
    assert fallbacks() == 0  # multinomial is lowered

    def program(dev):
        model = policy if dev.type == "cpu" else lazy_policy
        dist = Categorical(logits=model(states.to(dev)))
        returns = torch.linspace(1.0, -1.0, 64).to(dev)
        loss = -(dist.log_prob(actions.to(dev)) * returns).mean() - 0.01 * dist.entropy().mean()
        loss.backward()
        return {"loss": loss, "grads": [p.grad for p in model.parameters()]}

    same_on_both(program)
    torch.manual_seed(2)
    probs = torch.tensor([0.1, 0.0, 0.6, 0.3], device=DEV)
    draws = torch.multinomial(probs.expand(4000, 4), 1, replacement=True).cpu().flatten()
    freq = torch.bincount(draws, minlength=4) / 4000
    torch.testing.assert_close(freq, torch.tensor([0.1, 0.0, 0.6, 0.3]), atol=0.04, rtol=0)
    assert sorted(torch.multinomial(probs, 3).tolist()) == [0, 2, 3]
