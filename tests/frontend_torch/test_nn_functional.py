"""torch.nn.functional on the lazy device: pooling (fractional max pool),
resampling (grid_sample, antialiased resize, upsampling backwards),
embeddings, CTC and less common losses, im2col/fold. Each check compares
with eager torch on the CPU (values, dtypes, shapes, or the exception type
and text)."""


from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import fallbacks, same_on_both, same_outcomes


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


@pytest.mark.parametrize("mode,padding_mode", [("bilinear", "zeros"), ("bilinear", "reflection"),
                                               # ~9 s on a CI worker, and CI's test step is at its
                                               # budget: make test-slow runs bicubic
                                               pytest.param("bicubic", "border",
                                                            marks=pytest.mark.slow),
                                               ("nearest", "zeros")])
def test_spatial_transformer_trains_without_grid_sampler_fallback(mode, padding_mode):
    """grid_sampler_2d_backward ran eagerly on the CPU (a fallback per step)."""
    def program(dev):
        loc = nn.Linear(3 * 5 * 7, 6).to(dev)
        opt = torch.optim.SGD(loc.parameters(), lr=0.1)
        x = torch.randn(2, 3, 5, 7).to(dev).requires_grad_()
        for _ in range(2):
            opt.zero_grad()
            theta = loc(x.flatten(1)).view(2, 2, 3) + torch.eye(2, 3).to(dev)
            grid = F.affine_grid(theta, (2, 3, 4, 6), align_corners=False)
            y = F.grid_sample(x, grid * 1.2, mode=mode, padding_mode=padding_mode,
                              align_corners=False)
            y.pow(2).mean().backward()
            opt.step()
        return {"y": y, "x_grad": x.grad, "w": loc.weight, "b_grad": loc.bias.grad}

    before = fallbacks()
    # theta is a 105-term float32 dot product (rounding ~1e-6, and it differs
    # between CPUs' kernels); grid_sample's backward is discontinuous where a
    # sample crosses a pixel edge (its bilinear weights are piecewise linear,
    # and reflection folds coordinates onto the border), so such a rounding
    # can flip a few samples' cells, and the SGD step (lr 0.1) turns that jump
    # of the gradient into ~1e-4..1e-3 on a few elements of the weights and of y
    same_on_both(program, rtol=1e-3, atol=1e-3)
    assert fallbacks() == before


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialiased_resize_is_lowered_with_its_gradient(mode):
    """F.interpolate(..., antialias=True) (torchvision's Resize default) and
    its backward ran through the eager CPU fallback."""
    def program(dev):
        x = torch.randn(2, 3, 13, 17).to(dev).requires_grad_()
        outs = [F.interpolate(x, size=size, mode=mode, align_corners=corners, antialias=True)
                for size in ((5, 6), (20, 9), (1, 1)) for corners in (False, True)]
        outs.append(F.interpolate(x, scale_factor=(0.5, 1.7), mode=mode, antialias=True))
        outs.append(F.interpolate(x.detach().double(), size=(4, 4), mode=mode, antialias=True))
        weights = [torch.linspace(-1, 1, o.numel()).reshape(o.shape).to(dev) for o in outs[:-1]]
        sum((o * w).sum() for o, w in zip(outs[:-1], weights, strict=True)).backward()
        return {"outs": outs, "grad": x.grad}

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before

    with pytest.raises(NotImplementedError, match="compute_index_ranges_weights"):
        F.interpolate(torch.ones(1, 1, 4, 4).half().to(DEV), size=(2, 2), mode=mode,
                      antialias=True)


def test_ocr_step_with_ctc_loss_is_lowered():
    """F.ctc_loss (_ctc_loss and its backward) ran through the eager CPU
    fallback on every step of a speech / OCR program."""
    def program(dev):
        head = nn.Linear(6, 5).to(dev)
        opt = torch.optim.Adam(head.parameters(), lr=1e-2)
        feats = torch.randn(8, 3, 6).to(dev)  # (T, N, features)
        targets = torch.tensor([[1, 2, 2, 3], [4, 1, 0, 0], [2, 2, 2, 0]]).to(dev)
        in_lens, tgt_lens = torch.tensor([8, 6, 5]).to(dev), torch.tensor([4, 2, 3]).to(dev)
        opt.zero_grad()
        log_probs = head(feats).log_softmax(2)
        loss = F.ctc_loss(log_probs, targets, in_lens, tgt_lens, zero_infinity=True)
        loss.backward()
        opt.step()
        leaf = log_probs.detach().requires_grad_()  # torch's gradient of log_probs itself
        flat = torch.tensor([1, 2, 2, 3, 4, 1, 2, 2, 2]).to(dev)
        per = F.ctc_loss(leaf, flat, (8, 6, 5), (4, 2, 3), reduction="none")
        short = F.ctc_loss(leaf, targets, torch.tensor([3, 6, 5]).to(dev), tgt_lens,
                           reduction="sum", zero_infinity=True)  # an impossible alignment
        (per.sum() + short).backward()
        return {"loss": loss, "w": head.weight, "per": per, "short": short,
                "leaf_grad": leaf.grad}

    before = fallbacks()
    same_on_both(program, rtol=1e-4, atol=1e-5)
    assert fallbacks() == before


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


def test_fractional_max_pool_lowered_values_indices_grads():
    """F.fractional_max_pool2d/3d (nn.FractionalMaxPool2d/3d) ran as eager
    fallbacks, forward and backward; now the core's per-plane windows give
    torch's values and flat indices (first maximum, a NaN wins), unbatched
    inputs too, and the gradient is the max-pool scatter."""
    x2 = torch.randn(2, 3, 9, 8)
    x2[1, 2, 4, 4] = math.nan
    u2 = torch.rand(2, 3, 2)
    x3, u3 = torch.randn(2, 2, 6, 7, 8), torch.rand(2, 2, 3)
    before = fallbacks()

    def program(dev):
        a = x2.clone().to(dev).requires_grad_()
        b = x3.clone().to(dev).requires_grad_()
        out2, idx2 = F.fractional_max_pool2d(a, (2, 3), output_size=(4, 5), return_indices=True,
                                             _random_samples=u2.to(dev))
        out3, idx3 = F.fractional_max_pool3d(b, (2, 3, 2), output_size=(4, 3, 5),
                                             return_indices=True, _random_samples=u3.to(dev))
        flat = F.fractional_max_pool2d(a[0], 3, output_ratio=(0.5, 0.5),
                                       _random_samples=u2[:1].to(dev))
        weights = torch.arange(out2.numel(), dtype=torch.float32).reshape(out2.shape).to(dev)
        ((out2.nan_to_num() * weights).sum() + out3.sum() + flat.sum()).backward()
        return [out2, idx2, out3, idx3, flat, a.grad, b.grad]

    same_on_both(program)
    assert fallbacks() == before


def test_fractional_max_pool_module_and_errors():
    def program(dev):
        pool = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5), return_indices=True).to(dev)
        out, idx = pool(torch.randn(2, 4, 12, 10, device=dev))
        shapes = [(out.shape, out.dtype, idx.dtype)]
        x = torch.randn(1, 2, 5, 5)
        calls = [
            lambda: F.fractional_max_pool2d(x.to(dev), 3, output_size=4),
            lambda: F.fractional_max_pool2d(x[0, 0].to(dev), 2, output_size=3),
            lambda: F.fractional_max_pool2d(x.to(dev), 2, output_size=3,
                                            _random_samples=torch.rand(1, 2, 2).double().to(dev)),
            lambda: F.fractional_max_pool2d(x.to(dev), 2, output_size=3,
                                            _random_samples=torch.rand(1, 3, 2).to(dev)),
            lambda: F.fractional_max_pool2d(x.to(dev), 2, output_size=3,
                                            _random_samples=torch.rand(0, 2, 2).to(dev)),
            lambda: F.fractional_max_pool3d(x.to(dev), 3, output_size=4),
        ]
        assert shapes == [((2, 4, 6, 5), torch.float32, torch.int64)]
        return calls

    same_outcomes(program)


def test_many_upsampling_backwards_in_one_graph_cut_automatically(fresh_runtime):
    """A graph with many bicubic-upsampling backwards crashed with a JAX
    TypeError (gather of None): the automatic graph cut fired while the
    backward's VJP was being traced on stand-in leaves, which have no value.
    The core now holds automatic cuts during that trace."""
    fresh_runtime.node_limit = 300

    def program(dev):
        x = torch.randn(1, 2, 5, 6).to(dev).requires_grad_()
        outs = [F.interpolate(x * (i + 1), size=(7, 4), mode="bicubic", align_corners=i % 2 == 0)
                for i in range(4)]
        sum(o.sum() for o in outs).backward()
        return [outs[-1], x.grad]

    same_on_both(program, rtol=1e-4, atol=1e-4)
    assert fresh_runtime.metrics.counters["auto_cuts"] >= 1


def test_embedding_max_norm_padding_idx_and_max_bag():
    def program(dev):
        emb = nn.Embedding(10, 4, padding_idx=0, max_norm=1.0).to(dev)
        with torch.no_grad():
            emb.weight.mul_(3)
        idx = torch.tensor([[0, 2, 5, 2], [7, 0, 9, 1]]).to(dev)
        out = emb(idx)
        out.sum().backward()
        bag = nn.EmbeddingBag(10, 3, mode="max", padding_idx=2).to(dev)
        b = bag(torch.tensor([1, 2, 4, 5, 2, 8]).to(dev), torch.tensor([0, 2, 2, 5]).to(dev))
        b.sum().backward()
        return [out, emb.weight, emb.weight.grad, b, bag.weight.grad]

    same_on_both(program)


def test_less_common_losses():
    def program(dev):
        a, b = torch.randn(6, 5).to(dev), torch.randn(6, 5).to(dev)
        t = torch.tensor([1, -1, 1, 1, -1, -1]).float().to(dev)
        out = [
            F.cosine_embedding_loss(a, b, t, margin=0.2),
            F.margin_ranking_loss(a[:, 0], b[:, 0], t, margin=0.1),
            F.poisson_nll_loss(a, b.abs(), log_input=True, full=True),
            F.gaussian_nll_loss(a, b, torch.rand(6, 5).to(dev) + 0.1, full=True),
            F.huber_loss(a, b, delta=0.5), F.smooth_l1_loss(a, b, beta=0.3),
            F.triplet_margin_with_distance_loss(a, b, a.flip(0),
                                                distance_function=nn.PairwiseDistance()),
            F.soft_margin_loss(a, t.unsqueeze(1).expand(6, 5)),
            F.multilabel_soft_margin_loss(a, (b > 0).float()),
            F.hinge_embedding_loss(a, t.unsqueeze(1).expand(6, 5)),
            F.kl_div(a.log_softmax(1), b.log_softmax(1), log_target=True, reduction="batchmean"),
            F.binary_cross_entropy_with_logits(a, (b > 0).float(),
                                               pos_weight=torch.rand(5).to(dev)),
            F.nll_loss(a.log_softmax(1), torch.tensor([0, 4, 2, 1, 3, 0]).to(dev),
                       weight=torch.rand(5).to(dev), reduction="sum"),
        ]
        return out

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_one_hot_label_smoothing_ignore_index_and_ctc():
    def program(dev):
        logits = torch.randn(6, 5).to(dev).requires_grad_()
        target = torch.tensor([0, 4, -100, 2, 1, -100]).to(dev)
        l1 = nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=-100)(logits, target)
        l2 = nn.CrossEntropyLoss(label_smoothing=0.2, reduction="none", ignore_index=4)(
            logits, target.clamp(min=0))
        l3 = F.cross_entropy(logits, F.one_hot(target.clamp(min=0), 5).float(),
                             label_smoothing=0.1)
        oh = F.one_hot(target.clamp(min=0))
        (l1 + l2.sum() + l3).backward()
        lp = torch.randn(7, 2, 4).log_softmax(2).to(dev)
        tg = torch.tensor([[1, 2, 2], [3, 1, 0]]).to(dev)
        ctc = nn.CTCLoss(blank=0, zero_infinity=True)(lp, tg, [7, 6], [3, 2])
        return [l1, l2, l3, oh, logits.grad, ctc]

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_pad_sequence_im2col_fold_and_uint8_images():
    def program(dev):
        seqs = [torch.arange(n, dtype=torch.float32).to(dev) for n in (3, 5, 1)]
        padded = nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1.0)
        img = torch.randint(0, 256, (2, 3, 6, 6), dtype=torch.uint8).to(dev)
        x = img.float() / 255
        x = (x - torch.tensor([0.5, 0.4, 0.3], device=dev).view(1, 3, 1, 1)) / 0.25
        cols = F.unfold(x, 3, padding=1, stride=2)
        back = F.fold(cols, (6, 6), 3, padding=1, stride=2)
        q = (x * 40 + 128).clamp(0, 255).to(torch.uint8)
        flipped = img.flip(-1)
        return [padded, cols, back, q, flipped, img.sum(), img.float().mean((2, 3)),
                (img > 128).sum(dtype=torch.int32), img.max(), img // 3, img * 2, img - 200,
                img.to(torch.int8)]

    same_on_both(program, rtol=1e-5, atol=1e-5)
