"""Ordinary PyTorch programs, written the way PyTorch users write them, run
eagerly on the CPU and lazily on ``lazytensor.torch.device()`` from the same
seed: their outputs, losses and final weights agree (float32 tolerance), with
the same dtypes and shapes.

Each program is a function of the device. Data is made on the CPU (as a data
loader gives it) and moved with ``.to(dev)``; models are built on the CPU
after ``torch.manual_seed`` and moved with ``model.to(dev)``. A program
returns a structure of tensors and Python values; ``same_on_both`` runs it
on both devices and compares everything it returned.
"""

from __future__ import annotations

import warnings

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from lazytensor.core import get_runtime
from torch import nn

from .conftest import DEV


# ------------------------------------------------------------------ helpers
def compare(expected, actual, rtol: float, atol: float, where: str = "out") -> None:
    """``actual`` (from the lazy run) equals ``expected`` (eager), recursively:
    tensors by dtype, shape and value; everything else by ==."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and expected.keys() == actual.keys(), where
        for key in expected:
            compare(expected[key], actual[key], rtol, atol, f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), where
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            compare(e, a, rtol, atol, f"{where}[{i}]")
    elif isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor), f"{where}: {type(actual)}"
        got = actual.detach().cpu()
        assert got.dtype == expected.dtype, f"{where}: {got.dtype} != {expected.dtype}"
        assert got.shape == expected.shape, f"{where}: {got.shape} != {expected.shape}"
        torch.testing.assert_close(got, expected.detach(), rtol=rtol, atol=atol,
                                   equal_nan=True, msg=lambda m: f"{where}: {m}")
    elif isinstance(expected, float):
        assert isinstance(actual, float), f"{where}: {type(actual)}"
        assert abs(actual - expected) <= atol + rtol * abs(expected), (where, actual, expected)
    else:
        assert type(actual) is type(expected) and actual == expected, (where, actual, expected)


def same_on_both(program, rtol: float = 1e-5, atol: float = 1e-5, seed: int = 0):
    """Run ``program(device)`` eagerly and lazily from the same seed and
    compare; returns the lazy result."""
    torch.manual_seed(seed)
    eager = program(torch.device("cpu"))
    torch.manual_seed(seed)
    lazy = program(DEV)
    compare(eager, lazy, rtol, atol)
    return lazy


def fallbacks() -> int:
    return get_runtime().metrics.counters["eager_fallbacks"]


def digits(n: int = 256):
    from sklearn.datasets import load_digits

    data = load_digits()
    x = torch.tensor(data.data[:n], dtype=torch.float32) / 16.0
    return x, torch.tensor(data.target[:n])


def weights(model: nn.Module) -> dict:
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}


# ------------------------------------------------------------ CNN + Adam
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


def test_dropout_mask_keeps_expected_scale():
    torch.manual_seed(0)
    x = torch.ones(4000, device=DEV)
    y = F.dropout(x, p=0.25, training=True).cpu()
    kept = y != 0
    assert 0.7 < kept.float().mean().item() < 0.8
    torch.testing.assert_close(y[kept], torch.full_like(y[kept], 1 / 0.75))
    assert torch.equal(F.dropout(x, p=0.25, training=False).cpu(), torch.ones(4000))


# --------------------------------------------------------------- RNNs
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


# ------------------------------------------- embedding + transformer encoder
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
        losses = []
        for _ in range(2):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(tokens), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return {"losses": losses, "embed_grad": model.embed.weight.grad}

    same_on_both(program, rtol=1e-4, atol=1e-5)


# ------------------------------------ a complete training loop with extras
def test_training_loop_scheduler_clipping_eval_accuracy():
    def program(dev):
        x, y = digits(256)
        model = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10)).to(dev)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
        norms, lrs, history = [], [], []
        for epoch in range(4):
            model.train()
            for i in range(2):
                xb, yb = x[i * 128:(i + 1) * 128].to(dev), y[i * 128:(i + 1) * 128].to(dev)
                optimizer.zero_grad(set_to_none=True)
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))
                optimizer.step()
                if dev == DEV:
                    lt.mark_step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr()[0])
            model.eval()
            with torch.no_grad():
                pred = model(x.to(dev)).argmax(dim=1)
                correct = (pred == y.to(dev)).sum().item()
            history.append(correct / len(y))
            if dev == DEV:
                misses.append(get_runtime().metrics.counters["cache_misses"])
            if loss.item() < 0.05:  # early stopping on a tensor value
                break
        return {"norms": norms, "lrs": lrs, "accuracy": history, "weights": weights(model)}

    misses: list[int] = []
    same_on_both(program, rtol=1e-4, atol=1e-5)
    # a new learning rate is a graph parameter: nothing compiles after epoch 2
    assert misses[1] == misses[-1], misses


def test_cosine_annealing_adam_and_grad_value_clipping():
    def program(dev):
        model = nn.Sequential(nn.Linear(10, 20), nn.SiLU(), nn.LayerNorm(20), nn.Linear(20, 1))
        model.to(dev)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5)
        x, y = torch.randn(32, 10), torch.randn(32, 1)
        x, y = x.to(dev), y.to(dev)
        losses = []
        for _ in range(5):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            nn.utils.clip_grad_value_(model.parameters(), 0.1)
            optimizer.step()
            scheduler.step()
            losses.append(loss)
        return {"losses": torch.stack(losses), "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


# --------------------------------------------------- state_dict round trips
def test_state_dict_round_trip_between_lazy_and_cpu():
    torch.manual_seed(0)
    cpu_model = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    x = torch.randn(8, 6)
    cpu_model(x)  # updates running statistics
    lazy_model = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.Linear(4, 2)).to(DEV)
    lazy_model.load_state_dict(cpu_model.state_dict())
    cpu_model.eval()
    lazy_model.eval()
    compare(cpu_model(x), lazy_model(x.to(DEV)), 1e-5, 1e-6)
    # lazy -> cpu, after training a step lazily
    torch.optim.SGD(lazy_model.parameters(), lr=0.1).zero_grad()
    lazy_model.train()
    lazy_model(x.to(DEV)).sum().backward()
    with torch.no_grad():
        for p in lazy_model.parameters():
            p -= 0.1 * p.grad
    state = lazy_model.state_dict()
    assert all(v.device == DEV for v in state.values())
    back = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    back.load_state_dict({k: v.cpu() for k, v in state.items()})
    compare(back.state_dict(), {k: v.cpu() for k, v in state.items()}, 0, 0)
    assert back.state_dict()["1.num_batches_tracked"].item() == 2


def test_torch_save_and_load_of_a_lazy_state_dict(tmp_path):
    torch.manual_seed(0)
    model = nn.Linear(3, 2).to(DEV)
    torch.save(model.state_dict(), tmp_path / "m.pt")
    loaded = torch.load(tmp_path / "m.pt", map_location="cpu")
    compare({k: v.cpu() for k, v in model.state_dict().items()},
            {k: v.cpu() for k, v in loaded.items()}, 0, 0)


# ---------------------------------------------- in-place ops, slicing writes
def test_in_place_ops_and_slice_writes():
    def program(dev):
        x = torch.randn(4, 5).to(dev)
        x[:, 0] = 0
        x[1] = torch.arange(5, dtype=torch.float32).to(dev)
        x[2:, 3:] *= 2
        x.add_(1.5)
        x.mul_(torch.linspace(0.5, 1.5, 5).to(dev))
        x.masked_fill_(x > 3, -1.0)
        acc = torch.zeros(3, 5, device=dev)
        acc.index_add_(0, torch.tensor([0, 2, 0, 1]).to(dev), x)
        y = x.clone()
        y.clamp_(min=-0.5).sub_(0.25).div_(2)
        row = x[3]
        row.zero_()  # through a view
        x[x < 0] = 7.0
        z = torch.zeros(6, device=dev)
        z[[1, 3]] = torch.tensor([1.0, 2.0]).to(dev)
        z[4:] += 1
        return {"x": x, "acc": acc, "y": y, "z": z}

    same_on_both(program)


def test_joining_splitting_masks_where():
    def program(dev):
        a, b = torch.randn(3, 4).to(dev), torch.randn(3, 4).to(dev)
        cat = torch.cat([a, b], dim=0)
        stack = torch.stack([a, b], dim=-1)
        parts = torch.split(cat, [2, 4], dim=0)
        chunks = cat.chunk(3, dim=1)
        positive = cat[cat > 0]
        rows = cat[torch.tensor([True, False, True, False, True, True]).to(dev)]
        where = torch.where(a > b, a, b * 0.5)
        where_scalar = torch.where(a > 0, a, 0.0)
        nonzero = torch.nonzero(a > 0)
        return {"cat": cat, "stack": stack, "parts": parts, "chunks": chunks,
                "positive": positive, "rows": rows, "where": where,
                "where_scalar": where_scalar, "nonzero": nonzero,
                "count": (a > 0).sum().item(), "any": bool((a > 2).any())}

    same_on_both(program)


def test_scans_sorting_gather_scatter():
    def program(dev):
        x = torch.randn(4, 6).to(dev)
        values, indices = torch.topk(x, k=3, dim=1)
        sorted_values, order = torch.sort(x, dim=0, descending=True)
        index = torch.tensor([[0, 5], [1, 1], [2, 3], [4, 0]]).to(dev)
        gathered = torch.gather(x, 1, index)
        scattered = torch.zeros(4, 6, device=dev).scatter_(1, index, 1.0)
        scatter_add = torch.zeros(4, 6, device=dev).scatter_add(1, index, gathered)
        return {"cumsum": torch.cumsum(x, dim=1), "cumprod": x.cumprod(0),
                "topk": (values, indices), "sort": (sorted_values, order),
                "argsort": x.argsort(dim=1), "gathered": gathered, "scattered": scattered,
                "scatter_add": scatter_add, "max": x.max(dim=1), "median": x.median()}

    same_on_both(program)


def test_einsum_interpolate_pad_one_hot():
    def program(dev):
        q, k = torch.randn(2, 3, 4).to(dev), torch.randn(2, 5, 4).to(dev)
        scores = torch.einsum("bqd,bkd->bqk", q, k)
        bilinear = torch.einsum("ij,jk,k->i", torch.randn(3, 4).to(dev),
                                torch.randn(4, 5).to(dev), torch.randn(5).to(dev))
        image = torch.randn(1, 2, 4, 4).to(dev)
        labels = torch.tensor([0, 3, 1]).to(dev)
        return {
            "scores": scores, "bilinear": bilinear,
            "nearest": F.interpolate(image, scale_factor=2, mode="nearest"),
            "bilinear_up": F.interpolate(image, size=(6, 7), mode="bilinear",
                                         align_corners=False),
            "pad": F.pad(image, (1, 2, 0, 1)),
            "reflect": F.pad(image, (1, 1, 1, 1), mode="reflect"),
            "one_hot": F.one_hot(labels, num_classes=5),
            "one_hot_float": F.one_hot(labels).float() * 0.9,
        }

    same_on_both(program)


def test_cross_entropy_label_smoothing_ignore_index_and_weights():
    def program(dev):
        logits = torch.randn(8, 5, requires_grad=True)
        lazy_logits = logits.detach().to(dev).requires_grad_()
        labels = torch.tensor([0, 4, -100, 2, 1, -100, 3, 3]).to(dev)
        weight = torch.tensor([1.0, 2.0, 0.5, 1.0, 1.5]).to(dev)
        smooth = F.cross_entropy(lazy_logits, labels, label_smoothing=0.1, ignore_index=-100)
        weighted = F.cross_entropy(lazy_logits, labels, weight=weight, ignore_index=-100)
        per_item = F.cross_entropy(lazy_logits, labels.clamp(min=0), reduction="none")
        soft = F.cross_entropy(lazy_logits, torch.softmax(torch.randn(8, 5).to(dev), -1))
        nll = F.nll_loss(F.log_softmax(lazy_logits, dim=1), labels, ignore_index=-100)
        bce = F.binary_cross_entropy_with_logits(lazy_logits, (lazy_logits > 0).float().detach())
        (smooth + weighted + per_item.mean() + soft + nll + bce).backward()
        return {"smooth": smooth, "weighted": weighted, "per_item": per_item, "soft": soft,
                "nll": nll, "bce": bce, "grad": lazy_logits.grad}

    same_on_both(program)


def test_mixed_dtypes():
    def program(dev):
        labels = torch.tensor([3, 1, 2]).to(dev)  # int64
        mask = torch.tensor([True, False, True]).to(dev)
        x64 = torch.randn(3, dtype=torch.float64).to(dev)
        x32 = torch.randn(3).to(dev)
        ints = torch.arange(3, dtype=torch.int32).to(dev)
        return {
            "mixed": x64 + x32, "int_float": labels * 0.5, "int_div": labels / 2,
            "floordiv": labels // 2, "int32_int64": ints + labels, "bool_sum": mask.sum(),
            "bool_float": mask * x32, "mask_mean": mask.float().mean(),
            "bool_and": mask & (labels > 1), "half": x32.half() * 2, "to": x64.to(torch.float32),
            "long": (x32 * 10).long(), "int_mean": labels.float().mean(),
            "mean64": x64.mean(), "cmp": x64 > x32, "bf16": x32.bfloat16() + 1,
        }

    same_on_both(program, rtol=1e-2, atol=1e-2)


def test_observation_item_tolist_print_and_control_flow(capsys):
    def program(dev):
        x = torch.tensor([[1.5, -2.0], [0.25, 4.0]]).to(dev)
        total = x.sum()
        steps = 0
        while total.item() > 1.0 and steps < 10:  # Python control flow on tensor values
            total = total * 0.5
            steps += 1
        if (x > 0).all():
            branch = "all positive"
        elif x.max() > 3:
            branch = "big"
        else:
            branch = "other"
        print(x)
        print(x.sum())
        return {"steps": steps, "branch": branch, "list": x.tolist(), "item": x[1, 1].item(),
                "int": int(x.argmax()), "float": float(x.mean()), "total": total,
                "numpy": x.cpu().numpy().tolist(), "len": len(x), "shape": list(x.shape)}

    same_on_both(program)
    printed = capsys.readouterr().out
    assert "device='lazy:0'" in printed and "tensor(3.7500" in printed


def test_manual_seed_determinism_of_lazy_random_ops():
    def program():
        torch.manual_seed(42)
        a = torch.randn(3, 4, device=DEV)
        b = torch.rand(5, device=DEV)
        c = torch.randint(0, 10, (6,), device=DEV)
        d = F.dropout(torch.ones(8, device=DEV), 0.5)
        perm = torch.randperm(7, device=DEV)
        e = torch.empty(4, device=DEV).normal_(0, 2)
        return [a, b, c, d, perm, e]

    first, second = program(), program()
    compare([t.cpu() for t in first], second, 0, 0)
    torch.manual_seed(43)
    assert not torch.equal(torch.randn(3, 4, device=DEV).cpu(), first[0].cpu())
    assert sorted(first[4].tolist()) == list(range(7))


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


def test_fallbacks_are_counted_warned_and_correct(monkeypatch):
    from lazytensor.torch import _fallback

    def program(dev):
        scores = torch.randn(6, 4).to(dev)
        keep = scores.max(dim=1).values > 0
        picked = torch.masked_select(scores, scores > 0.5)  # data-dependent shape
        counts = torch.bincount(scores.argmax(dim=1), minlength=4)
        return {"rows": torch.nonzero(keep).squeeze(1), "picked": picked * 2,
                "counts": counts, "total": counts.sum().item()}

    monkeypatch.setattr(_fallback, "_WARNED", set())
    with pytest.warns(lt.LazyFallbackWarning, match="aten.masked_select"):
        same_on_both(program)
    assert fallbacks() >= 3


# ------------------------------------------------------- more model zoo
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


def test_gradient_accumulation_autograd_grad_and_detach():
    def program(dev):
        model = nn.Sequential(nn.Linear(4, 8), nn.Softplus(), nn.Linear(8, 1)).to(dev)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                                    weight_decay=1e-3)
        x, y = torch.randn(16, 4).to(dev), torch.randn(16, 1).to(dev)
        optimizer.zero_grad()
        for xb, yb in zip(x.split(4), y.split(4), strict=True):
            loss = F.huber_loss(model(xb), yb) / 4
            loss.backward()
        optimizer.step()
        # a gradient penalty (double backward)
        xr = x.clone().requires_grad_(True)
        out = model(xr).sum()
        (g,) = torch.autograd.grad(out, xr, create_graph=True)
        penalty = (g.norm(2, dim=1) - 1).pow(2).mean()
        penalty.backward()
        target = model(x).detach()
        return {"grads": [p.grad for p in model.parameters()], "g": g, "penalty": penalty,
                "target": target, "vector": nn.utils.parameters_to_vector(model.parameters())}

    same_on_both(program)


def test_tensor_creation_and_shape_manipulation():
    def program(dev):
        x = torch.arange(24, device=dev).float().view(2, 3, 4)
        eye = torch.eye(3, device=dev)
        full = torch.full((2, 2), 3.5, device=dev)
        lin = torch.linspace(0, 1, steps=5, device=dev)
        listed = torch.tensor([[1, 2], [3, 4]], device=dev)
        like = torch.zeros_like(x) + torch.ones_like(x) * x.new_tensor(2.0)
        y = x.permute(2, 0, 1).contiguous().view(4, -1)
        return {
            "eye": eye, "full": full, "lin": lin, "listed": listed, "like": like, "y": y,
            "repeat": listed.repeat(2, 3), "expand": lin[None].expand(3, 5),
            "flatten": x.flatten(1), "unflatten": x.unflatten(2, (2, 2)),
            "tril": torch.tril(x[0]), "roll": torch.roll(x, 1, dims=2),
            "flip": x.flip(0), "new_zeros": x.new_zeros(2), "arange": torch.arange(1, 7, 2),
            "movedim": x.movedim(0, -1), "narrow": x.narrow(2, 1, 2),
            "repeat_interleave": listed.repeat_interleave(2, dim=0),
            "meshgrid": torch.meshgrid(lin[:2], lin[:3], indexing="ij"),
            "diag": torch.diag(eye * 2), "outer": torch.outer(lin, lin[:2]),
        }

    same_on_both(program)


def test_reductions_norms_distances_and_losses():
    def program(dev):
        a, b = torch.randn(6, 5).to(dev), torch.randn(6, 5).to(dev)
        std, mean = torch.std_mean(a, dim=0)
        return {
            "std": std, "mean": mean, "var": a.var(dim=1, unbiased=False),
            "norm": a.norm(), "fro": torch.linalg.norm(a, dim=1), "lse": a.logsumexp(1),
            "cos": F.cosine_similarity(a, b), "pdist": F.pairwise_distance(a, b),
            "cdist": torch.cdist(a, b), "kl": F.kl_div(F.log_softmax(a, 1),
                                                       F.softmax(b, 1), reduction="batchmean"),
            "l1": F.l1_loss(a, b), "lerp": torch.lerp(a, b, 0.3),
            "addcmul": torch.addcmul(a, a, b, value=0.5), "clamp": a.clamp(b.min(), b.max()),
            "amax": a.amax(dim=(0, 1)), "prod": a[:2].prod(1), "all": (a > -5).all(dim=1),
            "mode_like": a.argmin(dim=0), "normalize": F.normalize(a, p=1, dim=0),
            "softmin": F.softmin(a, dim=1), "glu": F.glu(torch.cat([a, b], 1), dim=1),
        }

    same_on_both(program)


def test_dataloader_epoch_loop_with_shuffle():
    from torch.utils.data import DataLoader, TensorDataset

    def program(dev):
        x, y = digits(96)
        loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
        model = nn.Sequential(nn.Linear(64, 16), nn.ReLU6(), nn.Dropout(0.0), nn.Linear(16, 10))
        model.to(dev)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
        total = torch.zeros((), device=dev)
        for xb, yb in loader:
            xb, yb = xb.to(dev), yb.to(dev)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.detach() * len(yb)
            if dev == DEV:
                lt.mark_step()
        return {"mean_loss": (total / len(x)).item(), "weights": weights(model)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


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


def test_init_functions_and_parametrizations_on_the_lazy_device():
    torch.manual_seed(0)
    layer = nn.Linear(16, 32).to(DEV)
    nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
    nn.init.zeros_(layer.bias)
    nn.init.xavier_uniform_(layer.weight[:4])
    w = layer.weight.detach().cpu()
    assert layer.bias.abs().sum().item() == 0
    assert 0.2 < w[4:].std().item() < 0.5  # sqrt(2 / 16) = 0.354
    bound = (6 / (16 + 4)) ** 0.5
    assert w[:4].abs().max().item() <= bound
    # weight normalization through torch.nn.utils.parametrizations

    def program(dev):
        lin = nn.utils.parametrizations.weight_norm(nn.Linear(5, 3)).to(dev)
        x = torch.randn(4, 5).to(dev)
        out = lin(x)
        out.sum().backward()
        return {"out": out, "g": lin.parametrizations.weight.original0.grad,
                "v": lin.parametrizations.weight.original1.grad}

    same_on_both(program)


# ------------------------------------------ torch utilities and conventions
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


def test_activation_checkpointing_replays_the_same_dropout_mask():
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Dropout(0.5), nn.Linear(16, 6))
    lazy_block = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Dropout(0.5),
                               nn.Linear(16, 6)).to(DEV)
    lazy_block.load_state_dict(block.state_dict())
    x = torch.randn(4, 6).to(DEV).requires_grad_()
    state = torch.get_rng_state()
    plain = lazy_block(x)
    plain.sum().backward()
    plain_grads = [x.grad.cpu()] + [p.grad.cpu() for p in lazy_block.parameters()]
    x.grad = None
    lazy_block.zero_grad()
    torch.set_rng_state(state)
    replayed = checkpoint(lazy_block, x, use_reentrant=False)
    replayed.sum().backward()
    # the recomputation saw the same mask: same output, same gradients
    compare(plain.detach().cpu(), replayed, 0, 0)
    compare(plain_grads, [x.grad] + [p.grad for p in lazy_block.parameters()], 1e-6, 1e-7)


def test_param_data_assignment_module_dtype_and_set_():
    def program(dev):
        model = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2)).to(dev)
        model[0].weight.data = torch.full((3, 4), 0.1).to(dev)  # hand-written init
        model[1].bias.data.fill_(0.5)
        model.double()  # module.to(dtype) assigns .data
        x = torch.randn(5, 4, dtype=torch.float64).to(dev)
        out = model(x)
        out.sum().backward()
        a, b = torch.zeros(3).to(dev), torch.arange(6.0).view(2, 3).to(dev)
        a.set_(b[1])  # a aliases a row of b
        b.mul_(2)
        return {"out": out, "grad": model[0].weight.grad, "dtype": str(model[1].weight.dtype),
                "a": a, "tri": torch.tril_indices(3, 3, device=dev)}

    same_on_both(program)


def test_optimizer_zoo_param_groups_one_cycle_and_state_round_trip():
    def program(dev):
        results = {}
        for name, make in {
            "rmsprop": lambda p: torch.optim.RMSprop(p, lr=1e-2, momentum=0.5, centered=True),
            "nadam": lambda p: torch.optim.NAdam(p, lr=1e-2),
            "radam": lambda p: torch.optim.RAdam(p, lr=1e-2),
            "adamax": lambda p: torch.optim.Adamax(p, lr=1e-2),
            "adadelta": lambda p: torch.optim.Adadelta(p),
        }.items():
            torch.manual_seed(0)
            model = nn.Linear(3, 2).to(dev)
            optimizer = make(model.parameters())
            for _ in range(2):
                optimizer.zero_grad()
                model(torch.ones(4, 3).to(dev)).pow(2).sum().backward()
                optimizer.step()
            results[name] = model.weight.detach()
        model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1)).to(dev)
        optimizer = torch.optim.AdamW([{"params": model[0].parameters(), "lr": 1e-2},
                                       {"params": model[1].parameters()}], lr=1e-3)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=4)
        x = torch.randn(5, 3).to(dev)
        for _ in range(2):
            optimizer.zero_grad()
            model(x).pow(2).mean().backward()
            optimizer.step()
            scheduler.step()
        state = optimizer.state_dict()
        fresh = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1)).to(dev)
        fresh.load_state_dict(model.state_dict())
        again = torch.optim.AdamW([{"params": fresh[0].parameters()},
                                   {"params": fresh[1].parameters()}])
        again.load_state_dict(state)
        again.zero_grad()
        fresh(x).pow(2).mean().backward()
        again.step()
        results["resumed"] = weights(fresh)
        results["exp_avg"] = state["state"][0]["exp_avg"]
        return results

    same_on_both(program, rtol=1e-4, atol=1e-6)
