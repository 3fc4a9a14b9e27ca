"""Tensor-level PyTorch programs: in-place writes through views, joining,
masks, scans, sorting, gather/scatter, einsum, creation helpers, Python
protocols and control flow on lazy values. Each program is written as a
PyTorch user writes it, run eagerly on the CPU and lazily on
``lazytensor.torch.device()`` from the same seed, and compared (values,
dtypes, shapes; see ``programs.py``); training programs also check that
later steps compile nothing new."""


from __future__ import annotations

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from lazytensor.core import get_runtime
from torch import nn

from ..conftest import DEV
from ..lazy_vs_eager import (
    compare,
    fallbacks,
    same_on_both,
    same_without_fallback,
)


def test_dropout_mask_keeps_expected_scale():
    torch.manual_seed(0)
    x = torch.ones(4000, device=DEV)
    y = F.dropout(x, p=0.25, training=True).cpu()
    kept = y != 0
    assert 0.7 < kept.float().mean().item() < 0.8
    torch.testing.assert_close(y[kept], torch.full_like(y[kept], 1 / 0.75))
    assert torch.equal(F.dropout(x, p=0.25, training=False).cpu(), torch.ones(4000))


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


def test_boolean_mask_writes_of_one_value_need_no_barrier():
    """``x[mask] = v`` with one value is a select: no host read of the mask
    (a training loop that clips with it stays one graph per step)."""
    def program(dev):
        x = torch.randn(4, 5, 3).to(dev)
        reads = get_runtime().metrics.counters["transfers_to_host"]
        x[x > 0.5] = 0.0
        x[x < -1] = torch.tensor(7.0)
        x[torch.tensor([[True, False, True, False, False]] * 4)] = torch.tensor([2.5])
        x[:, torch.tensor([True, False, True, True, False])] = -3
        x.index_put_((x[..., 0] > 1,), torch.tensor(1.0), accumulate=True)
        ints = torch.arange(20).reshape(4, 5).to(dev)
        ints[ints % 3 == 0] = 100
        flags = torch.zeros(6, dtype=torch.bool).to(dev)
        flags[torch.tensor([1, 0, 1, 0, 0, 1], dtype=torch.bool)] = True
        if dev != torch.device("cpu"):
            assert get_runtime().metrics.counters["transfers_to_host"] == reads
        return {"x": x, "ints": ints, "flags": flags}

    same_on_both(program)
    with pytest.raises(IndexError):  # a mask of the wrong shape: torch's IndexError
        torch.zeros(3, 4, device=DEV)[torch.ones(4, dtype=torch.bool, device=DEV)] = 1.0


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
        # masking with -1e9 (a fully masked row too): log_softmax stays exact
        pad = torch.tensor([[False] * 5, [True] * 5, [False, True, True, False, False]] +
                           [[False] * 5] * 5).to(dev)
        masked = F.log_softmax(lazy_logits.detach().masked_fill(pad, -1e9), dim=-1)
        return {"smooth": smooth, "weighted": weighted, "per_item": per_item, "soft": soft,
                "nll": nll, "bce": bce, "grad": lazy_logits.grad, "masked": masked}

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


def test_randperm_is_lowered_in_every_overload():
    before = fallbacks()
    perm = torch.randperm(6, device=DEV)
    as_float = torch.randperm(4, device=DEV, dtype=torch.float32)
    out = torch.empty(5, dtype=torch.int32, device=DEV)
    torch.randperm(5, out=out)
    empty = torch.randperm(0, device=DEV)
    assert (perm.dtype, as_float.dtype, out.dtype, empty.shape) == (
        torch.int64, torch.float32, torch.int32, torch.Size([0]))
    assert sorted(perm.tolist()) == list(range(6)) and sorted(out.tolist()) == list(range(5))
    assert sorted(as_float.tolist()) == [0.0, 1.0, 2.0, 3.0]
    assert fallbacks() == before


def test_fallbacks_are_counted_warned_and_correct(monkeypatch):
    """An op the core does not lower (the Bessel function J0) runs eagerly,
    warned once and counted; the data-dependent ops that read only their
    mask (masked_select, nonzero), bincount (reads its max) and unique
    (reads its count) stay lazy beside it."""
    from lazytensor.core import metrics

    def program(dev):
        scores = torch.randn(6, 4).to(dev)
        keep = scores.max(dim=1).values > 0
        picked = torch.masked_select(scores, scores > 0.5)  # data-dependent shape
        counts = torch.bincount(scores.argmax(dim=1))  # length: the data's (read, then lazy)
        labels, inverse = torch.unique(scores.argmax(dim=1), return_inverse=True)
        return {"rows": torch.nonzero(keep).squeeze(1), "picked": picked * 2,
                "counts": counts, "total": counts.sum().item(), "labels": labels + 1,
                "inverse": inverse, "j0": torch.special.bessel_j0(scores)}

    monkeypatch.setattr(metrics, "_WARNED", set())
    before = fallbacks()
    with pytest.warns(lt.LazyFallbackWarning, match="aten.special_bessel_j0"):
        same_on_both(program)
    assert fallbacks() == before + 1


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


def test_in_place_updates_as_optimizers_write_them():
    def program(dev):
        p = torch.randn(4, 3).to(dev)
        g = torch.randn(4, 3).to(dev)
        ints = torch.arange(12).view(4, 3).to(dev)
        p.add_(g, alpha=-0.1).mul_(0.9).add_(0.5).sub_(g).div_(1.5)
        p.lerp_(g, 0.3).lerp_(g, 0.8).addcmul_(g, g, value=0.01).addcdiv_(g, g.abs() + 1)
        p.sqrt_() if False else p.abs_().sqrt_()
        row = p[1]  # a contiguous view: the update reaches the base
        row.mul_(10).add_(g[2], alpha=2)
        ints.add_(ints, alpha=2).mul_(3).add_(True)
        mask = (p > 1).logical_and_(p < 5)
        halves = g.half()
        halves.mul_(0.5).add_(halves)
        wide = torch.ones(4, 3, dtype=torch.float64).to(dev)
        wide.add_(p).mul_(p[0])  # promotion and broadcast take the ordinary path
        params, grads = [p.clone(), g.clone()], [g, p]
        torch._foreach_add_(params, grads, alpha=-0.5)
        torch._foreach_mul_(params, 0.5)
        torch._foreach_lerp_(params, grads, 0.25)
        torch._foreach_addcdiv_(params, grads, [t.abs() + 1 for t in grads], [0.1, 0.2])
        errors = []
        for bad in (lambda: ints.div_(2), lambda: ints.add_(1.5), lambda: ints.add_(g)):
            try:
                bad()
                errors.append(None)
            except RuntimeError as exc:
                errors.append(type(exc).__name__)
        return {"p": p, "ints": ints, "mask": mask, "halves": halves, "wide": wide,
                "params": params, "errors": errors}

    same_on_both(program)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("rows", [4, 30])  # torch switches p=2 to a matmul above 25 rows
def test_cdist_is_lowered_and_matches_torch(p, rows):
    torch.manual_seed(0)
    a, b = torch.randn(2, rows, 3), torch.randn(5, 3)
    before = fallbacks()
    for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                 "donot_use_mm_for_euclid_dist"):
        got = torch.cdist(a.to(DEV), b.to(DEV), p, compute_mode=mode)
        compare([torch.cdist(a, b, p, compute_mode=mode)], [got], 1e-5, 1e-5)
    assert fallbacks() == before


def test_pseudo_inverse_is_lowered_with_torch_tolerances():
    def program(dev):
        a = torch.randn(2, 5, 3, dtype=torch.float64).to(dev)
        a[1, :, 2] = a[1, :, 0]  # rank-deficient second matrix
        return {"default": torch.linalg.pinv(a), "atol": torch.linalg.pinv(a, atol=0.5),
                "rtol": torch.linalg.pinv(a, rtol=torch.tensor([0.1, 0.3], dtype=torch.float64)
                                          .to(dev)),
                "pinverse": torch.pinverse(a[0], rcond=0.2),
                "empty": torch.linalg.pinv(torch.ones(0, 3).to(dev)),
                "grad": torch.autograd.grad(torch.linalg.pinv(a.requires_grad_()).sum(), a)[0]}

    before = fallbacks()
    same_on_both(program, rtol=1e-8, atol=1e-8)
    assert fallbacks() == before
    with pytest.raises(RuntimeError, match=r"linalg.pinv\(Long\{\[3, 3\]\}\)"):
        torch.linalg.pinv(torch.ones(3, 3, dtype=torch.int64, device=DEV))


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


def test_evaluation_loop_accumulating_predictions_from_an_empty_tensor():
    """torch.cat skips 1-d empty tensors but promotes with their dtype:
    predictions (int64) appended to ``torch.tensor([])`` are float32. The
    lazy cat gave int64 (silently another dtype)."""
    def program(dev):
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(dev)
        x, y = torch.randn(30, 4), torch.randint(0, 3, (30,))
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
        all_preds, all_labels = torch.tensor([], device=dev), torch.tensor([], device=dev)
        all_probs = torch.empty(0, device=dev)
        model.eval()
        with torch.no_grad():
            for xb, yb in loader:
                logits = model(xb.to(dev))
                all_preds = torch.cat((all_preds, logits.argmax(1)))
                all_labels = torch.cat([all_labels, yb.to(dev)])
                all_probs = torch.cat([all_probs, logits.softmax(1).max(1).values])
        acc = (all_preds == all_labels).float().mean()
        confident = all_preds[all_probs > all_probs.median()]
        return [all_preds, all_labels, all_probs, acc, confident,
                torch.cat([torch.tensor([], device=dev), torch.empty(0, dtype=torch.long,
                                                                     device=dev)])]

    same_on_both(program, rtol=1e-5, atol=1e-6)


def test_einsum_heavy_bilinear_tensor_contractions_and_traces():
    def program(dev):
        torch.manual_seed(2)
        W = nn.Parameter(torch.randn(3, 5, 4) * 0.3)
        cores = nn.ParameterList([nn.Parameter(torch.randn(1, 4, 3) * 0.5),
                                  nn.Parameter(torch.randn(3, 4, 3) * 0.5),
                                  nn.Parameter(torch.randn(3, 4, 1) * 0.5)])
        params = nn.ParameterList([W, *cores]).to(dev)
        opt = torch.optim.Adagrad(params.parameters(), lr=0.05)
        a, b = torch.randn(6, 5).to(dev), torch.randn(6, 4).to(dev)
        xs = torch.randn(6, 3, 4).to(dev)
        out = []
        for _ in range(3):
            W, c0, c1, c2 = params
            bil = torch.einsum("bi,kij,bj->bk", a, W, b)
            tt = torch.einsum("xja,bj->bxa", c0, xs[:, 0])
            tt = torch.einsum("bxa,ajc,bj->bxc", tt, c1, xs[:, 1])
            tt = torch.einsum("bxc,cjd,bj->b", tt, c2, xs[:, 2])
            gram = torch.einsum("b...i,c...i->bc", xs, xs)
            loss = (bil.logsumexp(-1) - tt).pow(2).mean() + 1e-3 * torch.einsum("ii", gram)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.detach(), bil.detach(), torch.einsum("bii->b", gram.expand(2, 6, 6))]
        outer = torch.einsum("i,j->ij", a[0], b[0])
        return out + [outer, torch.einsum("bij->bji", xs), [p.detach() for p in params]]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_mean_losses_of_column_slices_reduce_to_a_contiguous_scalar():
    def program(dev):
        x = torch.randn(8, 5).to(dev)
        pred, target = x[:, :1].sin(), x[:, 1:2].t().t()
        prob = torch.rand(8, 5).to(dev)[:, 2:3]
        return [F.mse_loss(pred, target), F.l1_loss(pred, target),
                F.smooth_l1_loss(pred, target, beta=0.3), F.huber_loss(pred, target),
                F.soft_margin_loss(pred, target.sign()), F.binary_cross_entropy(prob, prob.t().t()),
                F.mse_loss(pred, target, reduction="none").stride(),
                F.mse_loss(pred, target, reduction="sum")]

    same_without_fallback(program)


def test_in_place_updates_on_views_inside_a_training_loop():
    def program(dev):
        model = nn.Linear(6, 4).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(8, 6).to(dev), torch.randn(8, 4).to(dev)
        keep = torch.rand(4, 6) > 0.3
        stats = torch.zeros(3, 4, device=dev)
        for step in range(3):
            loss = F.smooth_l1_loss(model(x), y, beta=0.5)
            opt.zero_grad()
            loss.backward()
            model.weight.grad[:, :2].mul_(0.5)
            model.bias.grad.diagonal().clamp_(-0.1, 0.1) if False else None
            opt.step()
            with torch.no_grad():
                model.weight[~keep.to(dev)] = 0
                model.weight.T[0].add_(0.01)
                model.bias.data.clamp_(max=0.2)
                row = stats[step]
                row.copy_(model.weight.abs().sum(1))
                stats.diagonal()[: step + 1].sub_(1)
        w = model.weight.detach().clone()
        w.t_()
        w.unsqueeze_(0).squeeze_(0)
        w.transpose(0, 1).narrow(1, 1, 2).fill_(7)
        return {"w": model.weight, "b": model.bias, "stats": stats, "wt": w,
                "loss": loss.detach()}

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_creation_helpers_and_structural_ops():
    def program(dev):
        a, b = torch.randn(2, 2).to(dev), torch.randn(3, 1).to(dev)
        out = {
            "block": torch.block_diag(a, b, torch.ones(1, 2, device=dev)),
            "cart": torch.cartesian_prod(torch.arange(3, device=dev), torch.arange(2, device=dev)),
            "tri": torch.tril_indices(4, 3, offset=-1, device=dev),
            "triu": torch.triu_indices(3, 5, 1, device=dev),
            "mesh": torch.meshgrid(torch.arange(3, device=dev), torch.arange(2, device=dev),
                                   indexing="xy"),
            "diag": torch.einsum("ii->i", torch.randn(3, 3).to(dev)),
            "ell": torch.einsum("...ij,...jk->...ik", torch.randn(2, 3, 4).to(dev),
                                torch.randn(4, 2).to(dev)),
            "trace": torch.einsum("bii", torch.randn(2, 3, 3).to(dev)),
            "vander": torch.vander(torch.tensor([1.0, 2.0, 3.0]).to(dev), N=4, increasing=True),
            "shuffle": nn.ChannelShuffle(2)(torch.arange(16.).view(1, 4, 2, 2).to(dev)),
            "unflat": nn.Unflatten(1, (2, 3))(torch.randn(2, 6).to(dev)),
            "fold": F.fold(torch.randn(1, 8, 4).to(dev), (3, 3), (2, 2)),
            "diag_embed": torch.diag_embed(a, offset=1, dim1=0, dim2=2),
            "rot": torch.rot90(torch.arange(6.).view(2, 3).to(dev), 3, (0, 1)),
            "kron": torch.kron(a, b),
            "tensordot": torch.tensordot(torch.randn(2, 3, 4).to(dev), torch.randn(4, 3).to(dev),
                                         dims=([1, 2], [1, 0])),
        }
        return out

    same_on_both(program, rtol=1e-5, atol=1e-5)
