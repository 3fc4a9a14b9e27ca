"""Small programs of the kinds ordinary PyTorch users write (custom autograd
functions, double backward and torch.func, explicit generators, integer
arithmetic, data-dependent shapes, frozen layers and param groups, hooks,
distributions, linear algebra, sliding windows, NaN handling, checkpoints
through io.BytesIO, Python number protocols, tied embeddings with a
GradScaler, half precision), run eagerly on the CPU and lazily from the same
seed and compared by value, dtype and shape (see ``lazy_vs_eager.py``)."""

from __future__ import annotations

import copy
import io

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import same_on_both, weights


class _ClampedExp(torch.autograd.Function):
    """exp(x) with a hand-written backward that clips the incoming gradient."""

    @staticmethod
    def forward(ctx, x, limit):
        out = x.exp()
        ctx.save_for_backward(out)
        ctx.limit = limit
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad.clamp(-ctx.limit, ctx.limit) * out, None


def test_custom_autograd_function_and_tensor_hooks():
    def program(dev):
        x = torch.randn(4, 3).to(dev).requires_grad_()
        w = torch.randn(3, 2).to(dev).requires_grad_()
        seen = []
        w.register_hook(lambda g: seen.append(g.sum().item()))
        h = x @ w
        h.retain_grad()
        y = _ClampedExp.apply(h, 0.5)
        (y * torch.linspace(-2, 2, 8).view(4, 2).to(dev)).sum().backward()
        return {"y": y, "x_grad": x.grad, "w_grad": w.grad, "h_grad": h.grad,
                "seen": seen, "is_leaf": (x.is_leaf, h.is_leaf, y.requires_grad)}

    same_on_both(program)


def test_double_backward_gradient_penalty():
    def program(dev):
        critic = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1)).to(dev)
        optimizer = torch.optim.Adam(critic.parameters(), lr=1e-2)
        real, fake = torch.randn(6, 3).to(dev), torch.randn(6, 3).to(dev)
        penalties = []
        for _ in range(2):
            alpha = torch.rand(6, 1).to(dev)
            mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
            score = critic(mixed)
            (grad,) = torch.autograd.grad(score.sum(), mixed, create_graph=True)
            penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
            loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            penalties.append(penalty.detach())
        x = torch.linspace(-1, 1, 5).to(dev).requires_grad_()
        (d1,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
        (d2,) = torch.autograd.grad(d1.sum(), x)
        v = x.detach()
        value, tangent = torch.func.jvp(lambda t: (t.exp() * t).sum(), (v,), (torch.ones_like(v),))
        return {"penalties": penalties, "weights": weights(critic), "d1": d1, "d2": d2,
                "jvp": (value, tangent), "jacrev": torch.func.jacrev(torch.sin)(v),
                "hessian": torch.func.hessian(lambda t: (t ** 3).sum())(v)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_explicit_generator_objects():
    def program(dev):
        gen = torch.Generator().manual_seed(123)
        a = torch.randn(3, 4, generator=gen).to(dev)
        idx = torch.randperm(10, generator=gen)[:4].to(dev)
        noise = torch.empty(5).uniform_(-1, 1, generator=gen).to(dev)
        state = gen.get_state()
        b = torch.randn(2, generator=gen).to(dev)
        gen.set_state(state)
        c = torch.randn(2, generator=gen).to(dev)
        table = torch.arange(40.0).view(10, 4).to(dev)
        return {"a": a, "rows": table[idx] + noise.sum(), "same": torch.equal(b.cpu(), c.cpu())}

    same_on_both(program)


def test_integer_division_remainder_and_rounding_semantics():
    def program(dev):
        a = torch.tensor([-7, -3, 0, 3, 7, 9]).to(dev)
        b = torch.tensor([2, -2, 5, -4, 3, 4]).to(dev)
        f = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.7]).to(dev)
        u = torch.tensor([250, 10, 3], dtype=torch.uint8).to(dev)
        return {
            "floordiv": a // b, "true": a / b, "floor": torch.div(a, b, rounding_mode="floor"),
            "trunc": torch.div(a, b, rounding_mode="trunc"), "rem": a % b,
            "remainder": torch.remainder(a, -3), "fmod": torch.fmod(a, 3),
            "round": torch.round(f), "round2": torch.round(f * 1.234, decimals=2),
            "to_int": f.to(torch.int32), "ceil": f.ceil(), "trunc_f": f.trunc(),
            "frac": f.frac(), "sign": f.sign(), "uint8_wrap": u + 10, "uint8_mul": u * 2,
            "shift": a << 2, "rshift": a >> 1, "xor": a ^ b, "bit_not": ~a,
            "pow_int": a ** 2, "int_pow_float": a ** 0.5, "abs": a.abs(),
            "int_floordiv_scalar": a // 2.0, "sum_int32": a.int().sum(),
            "prod_int": b.prod(), "cumsum_bool": (a > 0).cumsum(0), "float_mod": f % 1.0,
            "clamp_int": a.clamp(-2, 4), "max_int": torch.maximum(a, b),
        }

    same_on_both(program, rtol=0, atol=1e-6)


def test_data_dependent_shapes_unique_and_masks():
    def program(dev):
        labels = torch.tensor([3, 1, 3, 0, 1, 3, 7]).to(dev)
        values, inverse, counts = torch.unique(labels, return_inverse=True, return_counts=True)
        consecutive = torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 2, 1]).to(dev))
        x = torch.randn(7, 3).to(dev)
        keep = labels != 3
        picked = x[keep]
        rows, cols = torch.where(x > 0.5)
        sums = torch.zeros(values.numel(), 3, device=dev).index_add_(0, inverse, x)
        return {"values": values, "inverse": inverse, "counts": counts,
                "consecutive": consecutive, "picked": picked, "rows": rows, "cols": cols,
                "class_means": sums / counts.unsqueeze(1),
                "n": int(keep.sum()), "bucket": torch.bucketize(x[:, 0], torch.tensor(
                    [-1.0, 0.0, 1.0]).to(dev)),
                "searchsorted": torch.searchsorted(torch.tensor([0.0, 1, 2, 3]).to(dev),
                                                   torch.tensor([0.5, 2.0, 9.0]).to(dev))}

    same_on_both(program)


def test_frozen_backbone_param_groups_adamw_and_requires_grad_toggling():
    def program(dev):
        backbone = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        head = nn.Linear(8, 3)
        model = nn.Sequential(backbone, head).to(dev)
        for p in backbone.parameters():
            p.requires_grad_(False)
        optimizer = torch.optim.AdamW([
            {"params": head.weight, "weight_decay": 0.1},
            {"params": head.bias, "weight_decay": 0.0, "lr": 0.05},
        ], lr=0.01)
        x, y = torch.randn(10, 6).to(dev), torch.randint(0, 3, (10,)).to(dev)
        losses = []
        for step in range(4):
            if step == 2:  # unfreeze half-way and add the backbone to the optimizer
                for p in backbone.parameters():
                    p.requires_grad_(True)
                optimizer.add_param_group({"params": backbone.parameters(), "lr": 1e-3})
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        grads = [p.grad is None for p in backbone.parameters()]
        return {"losses": losses, "weights": weights(model), "grads_none": grads,
                "lrs": [g["lr"] for g in optimizer.param_groups]}

    same_on_both(program, rtol=1e-4, atol=1e-5)


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


def test_distributions_log_prob_entropy_and_rsample():
    def program(dev):
        mu = torch.randn(4, 2).to(dev).requires_grad_()
        log_std = torch.zeros(4, 2).to(dev).requires_grad_()
        cat = torch.distributions.Categorical(logits=torch.randn(4, 5).to(dev))
        dist = torch.distributions.Normal(mu, log_std.exp())
        sample = mu.detach() + 0.5  # (rsample draws from the lazy RNG stream)
        drawn = dist.rsample()
        value = dist.log_prob(sample).sum() + dist.entropy().sum()
        value.backward()
        actions = torch.tensor([0, 4, 2, 1]).to(dev)
        indep = torch.distributions.Independent(torch.distributions.Normal(
            torch.zeros(3).to(dev), torch.ones(3).to(dev)), 1)
        kl = torch.distributions.kl_divergence(
            torch.distributions.Normal(mu.detach(), 1.0),
            torch.distributions.Normal(torch.zeros(4, 2).to(dev), 2.0))
        return {"drawn": (drawn.shape, drawn.dtype, drawn.requires_grad), "value": value,
                "mu_grad": mu.grad,
                "log_std_grad": log_std.grad, "cat_lp": cat.log_prob(actions),
                "cat_ent": cat.entropy(), "probs": cat.probs,
                "indep": indep.log_prob(torch.ones(2, 3).to(dev)), "kl": kl}

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_small_linear_algebra():
    def program(dev):
        a = torch.randn(4, 4, dtype=torch.float64)
        spd = (a @ a.T + 4 * torch.eye(4, dtype=torch.float64)).to(dev)
        b = torch.randn(4, 2, dtype=torch.float64).to(dev)
        chol = torch.linalg.cholesky(spd)
        return {"solve": torch.linalg.solve(spd, b), "inv": torch.linalg.inv(spd),
                "det": torch.linalg.det(spd), "slogdet": torch.linalg.slogdet(spd),
                "chol": chol, "chol_solve": torch.cholesky_solve(b, chol),
                "eigvalsh": torch.linalg.eigvalsh(spd), "trace": spd.trace(),
                "tri": torch.linalg.solve_triangular(chol, b, upper=False),
                "matrix_norm": torch.linalg.matrix_norm(spd), "pinv_shape":
                torch.linalg.pinv(spd[:, :3]).shape, "kron": torch.kron(b[:2], b[:2])}

    same_on_both(program, rtol=1e-7, atol=1e-8)


def test_sliding_windows_unfold_fold_and_grid_sample():
    def program(dev):
        image = torch.randn(2, 3, 6, 6).to(dev)
        patches = F.unfold(image, kernel_size=2, stride=2)  # (2, 12, 9)
        back = F.fold(patches, output_size=(6, 6), kernel_size=2, stride=2)
        seq = torch.arange(10.0).to(dev)
        windows = seq.unfold(0, 4, 2)
        theta = torch.tensor([[[0.8, 0.1, 0.0], [-0.1, 0.9, 0.1]]]).repeat(2, 1, 1).to(dev)
        grid = F.affine_grid(theta, (2, 3, 4, 4), align_corners=False)
        warped = F.grid_sample(image, grid, align_corners=False)
        pooled = F.adaptive_avg_pool2d(image, (4, 3))
        shuffled = F.pixel_shuffle(torch.randn(1, 8, 2, 2).to(dev), 2)
        return {"patches": patches, "back": back, "windows": windows, "grid": grid,
                "warped": warped, "pooled": pooled, "shuffled": shuffled,
                "max_idx": F.max_pool2d(image, 2, return_indices=True),
                "lp": F.lp_pool2d(image.abs(), 2, 2), "avg3d": F.avg_pool1d(seq.view(1, 1, 10), 3)}

    same_on_both(program)


def test_nan_inf_handling_and_numerics():
    def program(dev):
        x = torch.tensor([1.0, float("nan"), -float("inf"), 0.0, 2.5, float("inf")]).to(dev)
        return {"isnan": x.isnan(), "isinf": x.isinf(), "isfinite": x.isfinite(),
                "nan_to_num": torch.nan_to_num(x, nan=0.0, posinf=9.0, neginf=-9.0),
                "nansum": x.nansum(), "nanmean": x[:2].nanmean(), "max": x.max(),
                "argmax": x.argmax(), "sort": x.sort().values, "clamp": x.clamp(-1, 1),
                "where": torch.where(x.isnan(), torch.zeros_like(x), x),
                "log0": torch.log(x[3:4]), "div0": x / 0, "sigmoid": torch.sigmoid(x),
                "relu": F.relu(x), "softmax_inf": torch.softmax(torch.tensor(
                    [0.0, -float("inf"), 1.0]).to(dev), 0),
                "minimum": torch.minimum(x, torch.zeros(6).to(dev)), "fmax": torch.fmax(
                    x, torch.zeros(6).to(dev)), "log1p": torch.log1p(x.abs()),
                "eq_nan": (x == x), "any_nan": bool(x.isnan().any()),
                "errors": [_error(lambda: torch.ones(0, device=dev).max()),
                           _error(lambda: torch.ones(0, 3, device=dev).amax(0)),
                           _error(lambda: torch.ones(0, 3, device=dev).amax(1).shape)]}

    same_on_both(program)


def _error(thunk):
    """The type name of what ``thunk()`` raises (its value when it does not)."""
    try:
        return thunk()
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return type(exc).__name__


def test_checkpoint_save_load_resume_training_through_bytes_io():
    def program(dev):
        model = nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7), nn.GELU(), nn.Linear(7, 2))
        model.to(dev)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
        x, y = torch.randn(16, 5).to(dev), torch.randn(16, 2).to(dev)

        def step():
            optimizer.zero_grad()
            loss = F.smooth_l1_loss(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            return loss.detach()

        losses = [step(), step()]
        buffer = io.BytesIO()
        torch.save({"model": model.state_dict(), "opt": optimizer.state_dict(),
                    "sched": scheduler.state_dict(), "epoch": 2}, buffer)
        buffer.seek(0)
        ckpt = torch.load(buffer, map_location=dev, weights_only=True)
        model2 = nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7), nn.GELU(), nn.Linear(7, 2))
        model2.to(dev)
        model2.load_state_dict(ckpt["model"])
        model, optimizer = model2, torch.optim.SGD(model2.parameters(), lr=0.1, momentum=0.9,
                                                   nesterov=True)
        optimizer.load_state_dict(ckpt["opt"])
        scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
        scheduler.load_state_dict(ckpt["sched"])
        losses += [step(), step()]
        whole = io.BytesIO()
        torch.save(model, whole)  # the module itself, pickled
        whole.seek(0)
        clone = torch.load(whole, weights_only=False)
        clone[0].weight = clone[0].weight  # only a Parameter may take a parameter's slot
        return {"losses": losses, "weights": weights(model), "epoch": ckpt["epoch"],
                "clone": weights(clone), "clone_params": [
                    isinstance(p, nn.Parameter) and p.requires_grad for p in clone.parameters()],
                "running_mean": model[1].running_mean, "batches": model[1].num_batches_tracked,
                "lr": optimizer.param_groups[0]["lr"]}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_repr_str_format_and_python_number_protocols():
    def program(dev):
        x = torch.tensor([[1.5, -2.0, 3.25]]).to(dev)
        i = torch.tensor([4, 5]).to(dev)
        leaf = torch.ones(3).to(dev).requires_grad_()
        (leaf * torch.arange(3.0).to(dev)).sum().backward()
        return {"repr": repr(x).replace(", device='lazy:0'", ""), "str": str(i.sum()).replace(
            ", device='lazy:0'", ""), "format": f"{x.sum().item():.3f}", "fmt": f"{x[0, 0]:.2f}",
            "index": [10, 20, 30, 40, 50, 60][i[0]], "range": list(range(i[0])),
            "bool": bool(x[0, 0] > 1), "float": float(x[0, 1]), "int": int(i[1]),
            "round": round(float(x[0, 2]), 1), "complex": complex(x[0, 0]).real,
            "contains": 5 in i, "iter": [int(v) for v in i], "eq_list": (i == 4).tolist(),
            "numpy_dtype": str(x.cpu().numpy().dtype), "abs": abs(x).tolist(),
            "neg": (-i).tolist(), "dlist": x.double().tolist(), "bool_list": (x > 0).tolist(),
            "from_0d_list": torch.tensor([x.sum(), x.max(), i[0]]),  # .item() each, in C++
            "param_repr": repr(nn.Parameter(x[0, :2].clone())).replace(", device='lazy:0'", ""),
            "percent": "%.2f|%d" % (x[0, 0], i[1]), "deepcopy_grad": copy.deepcopy(leaf).grad}

    same_on_both(program)


def test_mark_step_every_iteration_keeps_views_and_aliases_consistent():
    def program(dev):
        buf = torch.zeros(4, 6).to(dev)
        window = buf[1:3, 2:]
        col = buf.select(1, 0)
        flat = buf.view(-1)
        out = []
        for step in range(3):
            window.add_(step + 1)
            col.copy_(torch.arange(4.0).to(dev) * step)
            flat[step] = -1.0
            buf.t()[5].mul_(2)
            if dev == DEV:
                lt.mark_step()
            out.append(buf.clone())
        return {"snapshots": out, "window": window, "col": col, "flat": flat,
                "data_ptr_same": window.storage_offset() == 8}

    same_on_both(program)


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


def test_half_precision_classifier_matches_torch_accumulation():
    def program(dev):
        out = {}
        for dtype, name in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
            model = nn.Sequential(nn.Conv1d(3, 8, 3, padding=1), nn.AvgPool1d(2), nn.Flatten(),
                                  nn.Linear(32, 5)).to(dev).to(dtype)
            x = (torch.randn(16, 3, 8) * 3).to(dev).to(dtype)
            y = torch.randint(0, 5, (16,)).to(dev)
            logits = model(x)
            loss = F.cross_entropy(logits, y) + F.mse_loss(logits, logits.detach().flip(0))
            loss.backward()
            wide = (torch.arange(300.0) * 0.1).to(dev).to(dtype)
            out[name] = {"logits": logits, "log_softmax": logits.log_softmax(-1),
                         "softmax": logits.softmax(0), "loss": loss,
                         "grad": model[0].weight.grad, "mean": wide.mean(), "sum": wide.sum(),
                         "cumsum": wide.cumsum(0), "var": wide.var(), "norm": wide.norm()}
        return out

    # one or two units in the last place of each format, not more
    same_on_both(program, rtol=1.6e-2, atol=1e-2)


def test_sparse_gradients_raise_a_clear_error():
    model = nn.Embedding(5, 2, sparse=True).to(DEV)
    loss = model(torch.tensor([1, 3]).to(DEV)).sum()
    with pytest.warns(lt.LazyFallbackWarning), pytest.raises(NotImplementedError,
                                                             match="sparse=False"):
        loss.backward()


def test_lazy_checkpoint_loads_onto_the_cpu_with_map_location_cpu():
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(3.0).to(DEV)}, buffer)
    buffer.seek(0)
    assert torch.load(buffer, map_location="cpu")["w"].device.type == "cpu"
