"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (sixth batch), each compared with eager torch on the CPU (values,
dtype, shape; see ``lazy_vs_eager.py``)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import fallbacks, same_on_both, same_outcomes


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


def test_custom_autograd_functions_straight_through_and_mark_dirty():
    class RoundSTE(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return torch.round(x * scale) / scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * (x.abs() <= 1).to(grad.dtype), None

    class ClampInPlace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            mask = (x > 0)
            ctx.save_for_backward(mask)
            return x.clamp_(min=0)

        @staticmethod
        def backward(ctx, grad):
            (mask,) = ctx.saved_tensors
            return grad * mask

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            ctx.set_materialize_grads(True)
            return x * w, x.sum()

        @staticmethod
        def backward(ctx, g1, g2):
            x, w = ctx.saved_tensors
            gx = g1 * w + g2 if ctx.needs_input_grad[0] else None
            gw = (g1 * x).sum(0) if ctx.needs_input_grad[1] else None
            return gx, gw

    def program(dev):
        lin = nn.Linear(5, 5).to(dev)
        x = torch.randn(4, 5).to(dev).requires_grad_()
        w = torch.randn(5).to(dev).requires_grad_()
        h = RoundSTE.apply(lin(x), 4.0)
        h2 = ClampInPlace.apply(h.clone())
        y, s = Scale.apply(h2, w)
        (y.pow(2).sum()).backward()
        return {"h": h, "y": y, "s": s, "gx": x.grad, "gw": w.grad, "glin": lin.weight.grad}

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_per_sample_gradients_with_torch_func():
    from torch.func import functional_call, grad, vmap

    def program(dev):
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(dev)
        params = {k: v.detach() for k, v in model.named_parameters()}
        x, y = torch.randn(5, 3).to(dev), torch.tensor([0, 1, 1, 0, 1]).to(dev)

        def loss(p, xi, yi):
            out = functional_call(model, p, (xi[None],))
            return F.cross_entropy(out, yi[None])

        per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
        norms = torch.stack([g.flatten(1).norm(dim=1) for g in per_sample.values()]).norm(dim=0)
        clipped = {k: (g * (1.0 / norms.clamp(min=1.0)).view(-1, *[1] * (g.dim() - 1))).sum(0)
                   for k, g in per_sample.items()}
        return {"per": per_sample, "norms": norms, "clipped": clipped}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_contrastive_nt_xent_loss_with_diagonal_mask():
    def program(dev):
        enc = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 4)).to(dev)
        opt = torch.optim.AdamW(enc.parameters(), lr=1e-2, weight_decay=0.1)
        x = torch.randn(6, 6)
        views = torch.cat([x + 0.1 * torch.randn(6, 6), x * 0.9]).to(dev)
        losses = []
        for _ in range(2):
            z = F.normalize(enc(views), dim=1)
            sim = z @ z.T / 0.5
            sim = sim.masked_fill(torch.eye(12, dtype=torch.bool, device=dev), float("-inf"))
            target = torch.arange(12, device=dev).roll(6)
            loss = F.cross_entropy(sim, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        acc = (sim.argmax(1) == target).float().mean()
        return {"losses": losses, "acc": acc, "w": enc[0].weight, "rm": enc[1].running_var}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_graph_convolution_with_index_add_and_degree_normalisation():
    def program(dev):
        edges = torch.tensor([[0, 1, 1, 2, 3, 4, 4, 0], [1, 0, 2, 1, 4, 3, 0, 4]]).to(dev)
        feats = torch.randn(5, 3).to(dev)
        lin1, lin2 = nn.Linear(3, 8).to(dev), nn.Linear(8, 2).to(dev)
        opt = torch.optim.RMSprop([*lin1.parameters(), *lin2.parameters()], lr=1e-2,
                                  centered=True, momentum=0.5)
        src, dst = edges
        deg = torch.zeros(5, device=dev).index_add_(0, dst, torch.ones(8, device=dev)) + 1
        norm = deg.rsqrt()

        def conv(h, lin):
            h = lin(h)
            msg = h[src] * (norm[src] * norm[dst]).unsqueeze(-1)
            agg = torch.zeros_like(h).index_add(0, dst, msg)
            return agg + h / deg.unsqueeze(-1)

        labels = torch.tensor([0, 1, 1, 0, 1]).to(dev)
        for _ in range(3):
            logits = conv(F.relu(conv(feats, lin1)), lin2)
            loss = F.nll_loss(F.log_softmax(logits, -1), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
        pooled = torch.zeros(2, 2, device=dev).scatter_reduce(
            0, labels[:, None].expand(-1, 2), logits, "amax", include_self=False)
        return {"loss": loss, "logits": logits, "pooled": pooled, "w": lin1.weight}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_distillation_with_temperature_kl_div_batchmean():
    def program(dev):
        teacher = nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.Linear(12, 5)).to(dev).eval()
        student = nn.Sequential(nn.Linear(6, 5)).to(dev)
        opt = torch.optim.NAdam(student.parameters(), lr=1e-2)
        x, y = torch.randn(8, 6).to(dev), torch.randint(0, 5, (8,)).to(dev)
        out = []
        for _ in range(3):
            with torch.no_grad():
                t = teacher(x)
            s = student(x)
            kd = F.kl_div(F.log_softmax(s / 2.0, -1), F.softmax(t / 2.0, -1),
                          reduction="batchmean") * 4.0
            kd2 = F.kl_div(F.log_softmax(s, -1), F.log_softmax(t, -1), reduction="sum",
                           log_target=True)
            loss = 0.7 * kd + 0.3 * F.cross_entropy(s, y, label_smoothing=0.1) + 0.01 * kd2
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.detach())
        return {"losses": torch.stack(out), "w": student[0].weight}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_focal_loss_and_hard_negative_triplet_mining():
    def program(dev):
        logits = torch.randn(6, 4).to(dev).requires_grad_()
        target = torch.tensor([0, 3, 1, 1, 2, 0]).to(dev)
        alpha = torch.tensor([0.25, 0.5, 0.75, 1.0]).to(dev)
        logp = logits.log_softmax(-1).gather(1, target[:, None]).squeeze(1)
        p = logp.exp()
        focal = (-alpha[target] * (1 - p).pow(2.0) * logp).mean()
        emb = F.normalize(torch.randn(6, 3).to(dev).requires_grad_(), dim=-1)
        dist = torch.cdist(emb, emb)
        same = target[:, None] == target[None]
        hardest_pos = (dist * same.float()).max(1).values
        hardest_neg = dist.masked_fill(same, float("inf")).min(1).values
        triplet = F.relu(hardest_pos - hardest_neg + 0.3).mean()
        (focal + triplet).backward()
        return {"focal": focal, "triplet": triplet, "grad": logits.grad,
                "tml": F.triplet_margin_loss(emb[:2], emb[2:4], emb[4:], swap=True)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


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


def test_reduce_lr_on_plateau_warm_restarts_and_sequential_lr():
    def program(dev):
        model = nn.Linear(4, 1).to(dev)
        opt = torch.optim.SGD([{"params": [model.weight], "lr": 0.1},
                               {"params": [model.bias], "lr": 0.05, "momentum": 0.9}])
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)
        opt2 = torch.optim.Adagrad(nn.Linear(4, 1).to(dev).parameters(), lr=0.1)
        seq = torch.optim.lr_scheduler.SequentialLR(opt2, [
            torch.optim.lr_scheduler.LinearLR(opt2, start_factor=0.1, total_iters=2),
            torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt2, T_0=2, T_mult=2)],
            milestones=[2])
        x, y = torch.randn(16, 4).to(dev), torch.randn(16, 1).to(dev)
        lrs, losses = [], []
        for _ in range(5):
            loss = F.mse_loss(model(x), y) + 1.0
            opt.zero_grad()
            loss.backward()
            opt.step()
            plateau.step(loss)  # a lazy 0-d tensor
            opt2.step()
            seq.step()
            lrs.append([g["lr"] for g in opt.param_groups] + seq.get_last_lr())
            losses.append(loss.detach())
        return {"lrs": lrs, "losses": torch.stack(losses), "w": model.weight}

    same_on_both(program, rtol=1e-5, atol=1e-6)


def test_magnitude_pruning_and_weight_norm_spectral_norm_parametrizations():
    import torch.nn.utils.prune as prune
    from torch.nn.utils import parametrizations as P

    def program(dev):
        net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to(dev)
        prune.l1_unstructured(net[0], "weight", amount=0.4)
        prune.random_unstructured(net[2], "bias", amount=0.0)
        sn = P.spectral_norm(nn.Linear(3, 3)).to(dev)
        wn = P.weight_norm(nn.Linear(3, 2), dim=0).to(dev)
        opt = torch.optim.Adam([*net.parameters(), *sn.parameters(), *wn.parameters()], lr=1e-2)
        x = torch.randn(5, 6).to(dev)
        for _ in range(2):
            y = wn(sn(net(x)))
            loss = y.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sparsity = (net[0].weight == 0).float().mean()
        prune.remove(net[0], "weight")
        sn.eval()
        return {"y": y, "sparsity": sparsity, "w": net[0].weight, "mask": net[0].weight != 0,
                "u": sn.parametrizations.weight[0]._u, "sn": sn.weight, "wn": wn.weight,
                "keys": sorted(net.state_dict().keys())}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_lbfgs_with_strong_wolfe_line_search_fits_a_regression():
    def program(dev):
        x = torch.linspace(-1, 1, 20).unsqueeze(1)
        y = (3 * x ** 3 - x + 0.5).to(dev)
        x = x.to(dev)
        model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1)).to(dev)
        opt = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=6, history_size=4,
                                line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            return loss

        losses = [opt.step(closure).detach() for _ in range(2)]
        return {"losses": torch.stack(losses), "w": model[0].weight,
                "n_iter": opt.state[opt._params[0]]["n_iter"]}

    same_on_both(program, rtol=1e-3, atol=1e-4)


def test_stft_spectrogram_model_and_istft_round_trip():
    def program(dev):
        t = torch.linspace(0, 1, 400)
        wave = (torch.sin(2 * torch.pi * 40 * t) + 0.3 * torch.randn(400)).to(dev)
        win = torch.hann_window(64, device=dev)
        spec = torch.stft(wave, n_fft=64, hop_length=16, window=win, return_complex=True)
        mag = spec.abs().clamp(min=1e-5).log()
        conv = nn.Conv1d(33, 4, 3).to(dev)
        feat = conv(mag[None]).mean(-1)
        back = torch.istft(spec, n_fft=64, hop_length=16, window=win, length=400)
        phase = torch.angle(spec[:3, :4])
        return {"mag": mag, "feat": feat, "back": back, "phase": phase,
                "real": torch.view_as_real(spec[:2, :3])}

    same_on_both(program, rtol=1e-4, atol=1e-4)


def test_swin_style_shifted_windows_roll_unfold_and_pixel_shuffle():
    def program(dev):
        x = torch.randn(2, 8, 8, 4).to(dev).requires_grad_()
        shifted = torch.roll(x, shifts=(-2, -2), dims=(1, 2))
        win = shifted.view(2, 2, 4, 2, 4, 4).permute(0, 1, 3, 2, 4, 5).reshape(-1, 16, 4)
        attn = (win @ win.transpose(-2, -1) / 2).softmax(-1) @ win
        back = attn.view(2, 2, 2, 4, 4, 4).permute(0, 1, 3, 2, 4, 5).reshape(2, 8, 8, 4)
        back = torch.roll(back, shifts=(2, 2), dims=(1, 2))
        img = back.permute(0, 3, 1, 2)
        patches = F.unfold(img, kernel_size=2, stride=2)
        up = F.pixel_shuffle(F.pixel_unshuffle(img, 2) * 2, 2)
        out = patches.sum() + up.pow(2).sum()
        out.backward()
        return {"back": back, "patches": patches, "up": up, "grad": x.grad}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_robust_preprocessing_with_quantiles_nanmedian_bucketize():
    def program(dev):
        raw = torch.randn(10, 4) * torch.tensor([1.0, 10.0, 0.1, 5.0])
        raw[2, 1] = float("nan")
        raw[7, 3] = float("nan")
        x = raw.to(dev)
        med = x.nanmedian(0)
        q = torch.nanquantile(x, torch.tensor([0.25, 0.75], device=dev), dim=0)
        filled = torch.where(x.isnan(), med.values, x)
        scaled = (filled - med.values) / (q[1] - q[0]).clamp(min=1e-6)
        clipped = scaled.clamp(-3, 3)
        edges = torch.tensor([-1.0, 0.0, 1.0], device=dev)
        bins = torch.bucketize(clipped, edges, right=True)
        onehot = F.one_hot(bins, 4).float()
        ranks = clipped.argsort(dim=0, stable=True).argsort(dim=0, stable=True)
        mean = torch.nanmean(x, 0)
        qlin = torch.quantile(filled, 0.3, dim=1, keepdim=True, interpolation="midpoint")
        return {"med": med, "q": q, "bins": bins, "onehot": onehot.sum(0), "ranks": ranks,
                "mean": mean, "qlin": qlin, "search": torch.searchsorted(edges, clipped[:, 0])}

    same_on_both(program, rtol=1e-5, atol=1e-5)


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


def test_float64_model_int32_indices_and_bool_masks():
    def program(dev):
        emb = nn.Embedding(10, 4).double().to(dev)
        idx = torch.tensor([[1, 2, 3], [4, 5, 9]], dtype=torch.int32).to(dev)
        mask = idx > 2
        h = emb(idx)
        h = h * mask.unsqueeze(-1)
        pooled = h.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        sel = torch.index_select(emb.weight, 0, idx.flatten())
        lin = nn.Linear(4, 2, dtype=torch.float64).to(dev)
        out = lin(pooled)
        out.sum().backward()
        mixed = pooled.float() + torch.ones(2, 4, device=dev, dtype=torch.float16)
        ints = idx * 3 // 2 + idx.to(torch.int16) - 1
        return {"pooled": pooled, "sel": sel, "grad": emb.weight.grad, "out": out,
                "mixed": mixed, "ints": ints, "where": torch.where(mask, idx, -1),
                "take": emb.weight[idx.long()[:, 0]], "cum": mask.cumsum(1)}

    same_on_both(program, rtol=1e-6, atol=1e-7)


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


def test_kmeans_with_argmin_bincount_and_scatter_add():
    def program(dev):
        pts = torch.cat([torch.randn(10, 2) + 3, torch.randn(10, 2) - 3, torch.randn(5, 2)])
        pts = pts.to(dev)
        centers = pts[torch.tensor([0, 10, 20], device=dev)].clone()
        for _ in range(4):
            assign = torch.cdist(pts, centers).argmin(1)
            counts = torch.bincount(assign, minlength=3)
            sums = torch.zeros_like(centers).scatter_add_(0, assign[:, None].expand(-1, 2), pts)
            centers = sums / counts.clamp(min=1)[:, None]
        inertia = (pts - centers[assign]).pow(2).sum()
        weighted = torch.bincount(assign, weights=pts[:, 0].double(), minlength=4)
        return {"centers": centers, "assign": assign, "counts": counts,
                "inertia": inertia, "weighted": weighted}

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_pooling_and_resampling_variants():
    def program(dev):
        x = torch.randn(2, 3, 9, 7).to(dev).requires_grad_()
        out = {
            "ada": F.adaptive_avg_pool2d(x, (4, 3)),
            "ceil": F.max_pool2d(x, 3, 2, padding=1, ceil_mode=True),
            "avg": F.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True, count_include_pad=False),
            "div": F.avg_pool2d(x, 2, divisor_override=3),
            "lp": F.lp_pool2d(x.abs() + 0.1, 2.0, (2, 3)),
            "exact": F.interpolate(x, size=(5, 11), mode="nearest-exact"),
            "area": F.interpolate(x, size=(4, 3), mode="area"),
            "frac": F.interpolate(x, scale_factor=1.7, mode="bilinear",
                                  recompute_scale_factor=False),
            "bicubic": F.interpolate(x, scale_factor=(0.6, 1.4), mode="bicubic",
                                     align_corners=True),
        }
        pooled, idx = F.max_pool2d(x, 2, return_indices=True)
        out["unpool"] = F.max_unpool2d(pooled, idx, 2, output_size=x.shape[-2:])
        out["tri"] = F.interpolate(x.unsqueeze(2).expand(-1, -1, 2, -1, -1), scale_factor=1.5,
                                   mode="trilinear")
        sum(v.sum() for v in out.values()).backward()
        out["grad"] = x.grad
        return out

    same_on_both(program, rtol=1e-4, atol=1e-4)


def test_full_backward_hooks_parameters_to_vector_and_swa():
    from torch.nn.utils import parameters_to_vector, vector_to_parameters
    from torch.optim.swa_utils import SWALR, AveragedModel, update_bn

    def program(dev):
        model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(),
                              nn.Linear(6, 2)).to(dev)
        seen = []
        model[0].register_full_backward_hook(lambda m, gi, go: seen.append(go[0].sum()))
        model[3].register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
        swa = AveragedModel(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = SWALR(opt, swa_lr=0.05, anneal_epochs=2)
        data = [torch.randn(8, 4).to(dev) for _ in range(3)]
        for x in data:
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type=float("inf"),
                                     foreach=True)
            opt.step()
            swa.update_parameters(model)
            sched.step()
        update_bn(data, swa)
        vec = parameters_to_vector(model.parameters())
        vector_to_parameters(vec * 0.5, model.parameters())
        return {"vec": vec, "seen": torch.stack(seen), "swa": list(swa.parameters()),
                "bn": swa.module[1].running_mean, "n": swa.n_averaged,
                "half": model[0].weight, "lr": opt.param_groups[0]["lr"]}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_foreach_and_fused_style_optimizers():
    def program(dev):
        out = {}
        for name, make_opt in {
            "adam_foreach": lambda p: torch.optim.Adam(p, lr=0.01, foreach=True, amsgrad=True),
            "adamw_max": lambda p: torch.optim.AdamW(p, lr=0.01, maximize=True),
            "radam": lambda p: torch.optim.RAdam(p, lr=0.01, decoupled_weight_decay=True,
                                                 weight_decay=0.1),
            "asgd": lambda p: torch.optim.ASGD(p, lr=0.01, t0=1),
            "rprop": lambda p: torch.optim.Rprop(p, lr=0.01),
            "adadelta": lambda p: torch.optim.Adadelta(p, lr=1.0, foreach=True),
            "sgd_foreach": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1,
                                                     foreach=True, weight_decay=1e-2),
        }.items():
            torch.manual_seed(0)
            model = nn.Linear(3, 2).to(dev)
            opt = make_opt(model.parameters())
            x = torch.randn(6, 3).to(dev)
            for _ in range(3):
                opt.zero_grad()
                model(x).pow(2).sum().backward()
                opt.step()
            out[name] = [model.weight, model.bias]
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_cpu_scalar_tensors_mix_with_lazy_tensors_and_cross_device_copies():
    def program(dev):
        x = torch.randn(3, 4).to(dev)
        scale = torch.tensor(2.5)  # a CPU 0-d tensor, allowed next to device tensors
        out = {"mul": x * scale, "add": torch.add(x, torch.tensor(1), alpha=2),
               "where": torch.where(x > 0, x, torch.tensor(0.0)),
               "clamp": x.clamp(min=torch.tensor(-0.5), max=torch.tensor(0.5)),
               "max": torch.maximum(x, torch.tensor(0.1))}
        dst = torch.zeros(3, 4, device=dev)
        dst[1:].copy_(torch.ones(2, 4))
        dst[0].copy_(torch.tensor(7.0))
        out["dst"] = dst
        cpu = torch.empty(3, 4)
        cpu.copy_(x)
        out["cpu"] = cpu.to(x.device)
        out["lerp"] = torch.lerp(x, torch.zeros_like(x), torch.tensor(0.3))
        return out

    same_on_both(program)


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


def test_bucketize_and_searchsorted_of_nan_follow_torchs_binary_search():
    """bucketize(x, edges) of a NaN feature gave 0 on the lazy device where
    torch gives len(edges) (its binary search compares with ``>=``, false
    for NaN); a NaN in the sorted sequence (where torch.sort puts it)
    also moved the answers. Bool and complex inputs raise torch's error."""
    def program(dev):
        nan = float("nan")
        feats = torch.tensor([[0.3, nan, 2.5], [nan, -1.0, 0.9]]).to(dev)
        edges = torch.tensor([0.0, 1.0, 2.0]).to(dev)
        seq = torch.tensor([[1.0, 2.0, nan], [0.0, nan, nan]]).to(dev)
        vals = torch.tensor([[0.5, 2.0, 3.0, nan], [0.0, 1.0, nan, -1.0]]).to(dev)
        perm = torch.tensor([[2, 0, 1], [1, 2, 0]]).to(dev)
        unsorted = seq.gather(1, perm.argsort(1))
        return [
            lambda: torch.bucketize(feats, edges),
            lambda: torch.bucketize(feats, edges, right=True),
            lambda: torch.searchsorted(seq, vals),
            lambda: torch.searchsorted(seq, vals, right=True),
            lambda: torch.searchsorted(seq[0], vals, side="right", out_int32=True),
            lambda: torch.searchsorted(unsorted, vals, sorter=perm),
            lambda: torch.searchsorted(edges, 1.0), lambda: torch.bucketize(3, edges),
            lambda: torch.searchsorted(edges > 0, vals > 0),
            lambda: torch.searchsorted(edges.to(torch.complex64), vals[0]),
        ]

    same_outcomes(program)


def test_order_statistics_of_bools_and_complex_numbers_raise_as_torch():
    """mask.argmax(1) (to find a first True), topk/median/kthvalue of bools,
    and max/sort/cummax/nansum of complex tensors gave answers on the lazy
    device where torch has no kernel and raises; cummax of bools (which
    torch computes) raised a TypeError."""
    def program(dev):
        mask = torch.tensor([[False, True, True], [True, False, False]]).to(dev)
        z = torch.tensor([1 + 1j, 2j, 3 + 0j]).to(dev)
        return [
            lambda: mask.argmax(1), lambda: mask.argmin(), lambda: mask.int().argmax(1),
            lambda: mask.topk(1), lambda: mask.median(), lambda: mask.median(0).values,
            lambda: mask.kthvalue(1).values, lambda: mask.nanmedian(),
            lambda: mask.cummax(1).values, lambda: mask.cummin(1).indices,
            lambda: mask.max(), lambda: mask.amax(0), lambda: mask.sort(1).values,
            lambda: z.max(), lambda: z.max(0).values, lambda: z.amin(), lambda: z.argmax(),
            lambda: z.sort().values, lambda: z.topk(1).values, lambda: z.cummax(0).values,
            lambda: z.median(), lambda: z.kthvalue(1).values, lambda: z.nansum(),
            lambda: z.real.nansum(), lambda: z.msort(),
        ]

    same_outcomes(program)


def test_integer_division_by_a_host_zero_raises_zero_division_error():
    """ids // 0, ids % 0, fmod and div(rounding_mode=) of integer tensors by
    a Python (or CPU 0-d) zero gave XLA's numbers on the lazy device; torch
    raises RuntimeError('ZeroDivisionError'), also for floor_divide_ (which
    torch's decomposition had turned into a lazy divisor)."""
    def program(dev):
        ids = torch.tensor([7, -3, 2]).to(dev)
        return [
            lambda: ids // 0, lambda: ids % 0, lambda: torch.fmod(ids, 0), lambda: ids // False,
            lambda: torch.div(ids, 0, rounding_mode="floor"),
            lambda: torch.div(ids, 0, rounding_mode="trunc"), lambda: ids // torch.tensor(0),
            lambda: ids.to(torch.uint8).remainder_(0), lambda: ids.clone().floor_divide_(0),
            lambda: (ids > 0) // 0, lambda: ids // 0.0, lambda: ids.float() % 5,
            lambda: ids.clone().floor_divide_(2), lambda: ids.clone().floor_divide_(ids + 5),
            lambda: ids // 2, lambda: ids % torch.tensor(4),
        ]

    same_outcomes(program)


def test_frexp_is_lowered_exactly_for_every_float_dtype():
    """torch.frexp ran as an eager fallback; it is now read from the bits
    (subnormals included, which XLA's CPU float compares flush to zero)."""
    def program(dev):
        out = []
        for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            tiny = torch.finfo(dtype).tiny
            x = torch.tensor([0.0, -0.0, 1.0, -3.5, 6e-8, float("inf"), -float("inf"),
                              float("nan"), tiny, tiny / 4, -tiny / 1024, 1e30],
                             dtype=torch.float64).to(dtype)
            x = torch.cat([x, (torch.randn(64, dtype=torch.float64) * 1e3).to(dtype)]).to(dev)
            mantissa, exponent = torch.frexp(x)
            out += [mantissa, exponent, mantissa.signbit()]
        w = torch.tensor([3.0, -0.2, 1e-3]).to(dev).requires_grad_()
        torch.frexp(w).mantissa.sum().backward()
        return out + [w.grad]

    before = fallbacks()
    same_on_both(program, rtol=0, atol=0)
    assert fallbacks() == before
    same_outcomes(lambda dev: [lambda: torch.frexp(torch.arange(3).to(dev))])


def test_as_strided_scatter_is_lowered_with_torchs_storage_rules():
    """torch.as_strided_scatter ran as an eager fallback, which also lost the
    layout of a strided or offset view (a CPU copy of it is contiguous at
    offset 0), so a view gave other values than torch. It is now one scatter
    at the storage positions of x's clone (x's strides and offset; an
    expanded x is cloned contiguous), with torch's out-of-storage error."""
    def program(dev):
        def base(*shape):
            return torch.arange(float(math.prod(shape))).view(*shape).to(dev)

        inputs = [base(4, 5), base(4, 5).t(), base(2, 3, 4).permute(2, 0, 1), base(4, 6)[:, ::2],
                  base(4, 6)[1:], base(3, 4, 6).transpose(0, 2)[1:, :, 1:],
                  base(3).expand(2, 3), base(4, 5).double()[1:]]
        views = [((2, 2), (1, 2), 3), ((3,), (5,), 1), ((2, 3), (5, 1), None),
                 ((2, 2), (2, 3), None), ((2, 2), (10, 1), 10), ((4,), (1,), 20)]
        calls = []
        for x in inputs:
            for size, stride, offset in views:
                src = -torch.arange(1.0, 1 + math.prod(size)).view(size).to(x)
                calls.append(lambda x=x, s=src, a=(size, stride, offset):
                             torch.as_strided_scatter(x, s, *a))
        calls.append(lambda: torch.as_strided_scatter(base(4, 5), base(3, 2), (2, 2), (1, 2)))
        return calls

    before = fallbacks()
    same_outcomes(program)
    assert fallbacks() == before


def test_unsupported_dtypes_raise_a_clear_type_error():
    """x.chalf(), torch.zeros(..., dtype=torch.complex32, device=lazy) and
    float8 dtypes raised a bare KeyError: torch.complex32."""
    x = torch.randn(3).to(DEV)
    for call in (x.chalf, lambda: x.to(torch.float8_e4m3fn),
                 lambda: torch.zeros(2, dtype=torch.complex32, device=DEV),
                 lambda: torch.zeros(2, dtype=torch.complex32).to(DEV)):
        with pytest.raises(TypeError, match="does not support dtype torch"):
            call()


def test_integer_division_by_a_lazy_zero_dim_tensor_works():
    """ids // torch.tensor(4).to(dev), 7 // n and n % m of lazy 0-d integer
    tensors raised RuntimeError('ZeroDivisionError'): the dtype probe ran
    torch's own op on a 0-d stand-in that was a zero."""
    def program(dev):
        ids, n = torch.arange(10).to(dev), torch.tensor(4).to(dev)
        return [lambda: ids // n, lambda: ids % n, lambda: 7 // n, lambda: torch.fmod(ids, n),
                lambda: n // 0, lambda: torch.div(ids, n, rounding_mode="trunc"),
                lambda: torch.tensor(True).to(dev) // torch.tensor(True).to(dev)]

    same_outcomes(program)


def test_erfcx_and_log_ndtr_are_lowered():
    """torch.special.erfcx (and log_ndtr, which calls it) ran as eager
    fallbacks; erfcx is now lowered in float64 (the product below 25, the
    asymptotic series above), and half precision or complex input raises
    torch's NotImplementedError for both (log_ndtr of half computed)."""
    def program(dev):
        x = torch.cat([torch.linspace(-9, 40, 401), torch.tensor([0.0, float("inf"),
                                                                  -float("inf"), float("nan")])])
        w = torch.linspace(-3, 3, 7).to(dev).requires_grad_()
        torch.special.erfcx(w).sum().backward()
        return [torch.special.erfcx(x.to(dev)), torch.special.erfcx(x.double().to(dev)),
                torch.special.log_ndtr(x.to(dev)), torch.special.erfcx(torch.arange(4).to(dev)),
                w.grad]

    before = fallbacks()
    same_on_both(program, rtol=1e-5, atol=1e-30)
    assert fallbacks() == before
    same_outcomes(lambda dev: [
        lambda: torch.special.erfcx(torch.ones(2, dtype=torch.half).to(dev)),
        lambda: torch.special.log_ndtr(torch.ones(2, dtype=torch.half).to(dev)),
        lambda: torch.special.erfcx(torch.ones(2, dtype=torch.complex64).to(dev))])


def test_histogram_is_lowered_with_torchs_edges_and_errors():
    """torch.histogram (a bin count, or a tensor of edges; weights, density)
    ran as an eager fallback on every call of an activation-logging loop."""
    def program(dev):
        x = torch.randn(2, 50).to(dev)
        w = torch.rand(100).to(dev)
        edges = torch.tensor([-1.0, 0.0, 0.5, 2.0]).to(dev)
        return [lambda: torch.histogram(x, 5),
                lambda: torch.histogram(x, 4, weight=w.view(2, 50), density=True),
                lambda: torch.histogram(x, edges, weight=w),
                lambda: torch.histogram(torch.ones(3).to(dev), 2).bin_edges,
                lambda: torch.histogram(torch.tensor([float("nan"), 1.0]).to(dev), 2, range=(0, 2)),
                lambda: torch.histogram(torch.tensor([float("nan"), 1.0]).to(dev), 2),
                lambda: torch.histogram(x, 0), lambda: torch.histogram(x, 2, range=(2.0, 1.0)),
                lambda: torch.histogram(x.long(), 2), lambda: torch.histogram(x, 2, weight=w[:3]),
                lambda: torch.histogram(x, edges.double())]

    def flat(call):
        out = call()
        return torch.cat([t.flatten() for t in out]) if isinstance(out, tuple) else out

    def values(calls):
        return [lambda c=c: flat(c) for c in calls]

    before = fallbacks()
    torch.manual_seed(0)
    eager = program(torch.device("cpu"))
    torch.manual_seed(0)
    lazy = program(DEV)
    for e, a in zip(values(eager), values(lazy), strict=True):
        try:
            expected = e()
        except (RuntimeError, NotImplementedError) as error:
            with pytest.raises(type(error)):
                a()
            continue
        torch.testing.assert_close(a().cpu(), expected, rtol=1e-5, atol=1e-6)
    assert fallbacks() == before


def test_empty_reductions_name_the_dim_as_torch():
    """amax/amin over an empty dim named it normalized (torch: as given,
    x.amin(-2) says -2) and argmax/argmin named it as given (torch:
    normalized), or 'None' without a dim (torch asks for one)."""
    def program(dev):
        x = torch.zeros(0, 3).to(dev)
        return [lambda: x.amin(-2), lambda: x.amax((1, -2)), lambda: x.argmax(-2),
                lambda: x.argmin(), lambda: x.max(-2).values, lambda: x.amax(1)]

    same_outcomes(program)
