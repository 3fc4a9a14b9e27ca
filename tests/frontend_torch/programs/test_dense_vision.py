"""Dense vision programs: U-Nets and segmentation, super-resolution, style
transfer, denoising with unfold/fold. Each program is written as a PyTorch
user writes it, run eagerly on the CPU and lazily on
``lazytensor.torch.device()`` from the same seed, and compared (values,
dtypes, shapes; see ``programs.py``); training programs also check that
later steps compile nothing new."""


from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ..lazy_vs_eager import (
    digits,
    fallbacks,
    same_on_both,
    same_without_fallback,
    train_step,
    weights,
)


class UNet(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.inc = nn.Sequential(nn.Conv2d(1, c, 3, padding=1, bias=False), nn.BatchNorm2d(c),
                                 nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.side = nn.Conv2d(2 * c, c, 1)
        self.outc = nn.Conv2d(3 * c, 2, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down(F.max_pool2d(x1, 2))
        side = F.interpolate(self.side(x2), scale_factor=2, mode="bilinear", align_corners=True)
        return self.outc(torch.cat([x1, self.up(x2), side], dim=1))


def dice_loss(logits, target, eps=1.0):
    probs = logits.softmax(1)
    onehot = F.one_hot(target, 2).permute(0, 3, 1, 2).float()
    inter = (probs * onehot).sum((0, 2, 3))
    union = probs.sum((0, 2, 3)) + onehot.sum((0, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


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


def test_patch_denoising_with_unfold_and_fold_overlap_average():
    clean = torch.linspace(0, 1, 16 * 16).view(1, 1, 16, 16).repeat(2, 1, 1, 1)
    noisy = clean + 0.1 * torch.randn(2, 1, 16, 16)

    def program(dev):
        torch.manual_seed(5)
        unfold = nn.Unfold(kernel_size=4, stride=2)
        fold = nn.Fold(output_size=(16, 16), kernel_size=4, stride=2)
        denoise = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 16)).to(dev)
        opt = torch.optim.Adam(denoise.parameters(), lr=1e-2)
        x, target = noisy.to(dev), clean.to(dev)
        weight = fold(unfold(torch.ones_like(x)))  # how many patches cover each pixel
        out = [weight]
        for _ in range(3):
            patches = unfold(x).transpose(1, 2)  # (B, L, 16)
            restored = denoise(patches).transpose(1, 2)
            image = fold(restored) / weight
            loss = F.mse_loss(image, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        psnr = 10 * torch.log10(1 / F.mse_loss(image.detach(), target))
        return out + [image.detach(), psnr]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


# Conv3d's backward and trilinear upsampling compile for ~10 s on a CI worker
@pytest.mark.slow
def test_volume_segmentation_with_conv3d_groupnorm_trilinear_upsampling_and_dice():
    vol = torch.randn(2, 1, 8, 8, 8)
    mask = (vol.cumsum(2) > 0).float()

    class Seg3d(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = nn.Sequential(nn.Conv3d(1, 8, 3, padding=1), nn.GroupNorm(4, 8), nn.SiLU(),
                                      nn.Conv3d(8, 8, 3, stride=2, padding=1))
            self.skip = nn.Conv3d(1, 8, 1)
            self.head = nn.Conv3d(8, 1, 1)

        def forward(self, x):
            up = F.interpolate(self.down(x), scale_factor=2, mode="trilinear",
                               align_corners=False)
            return self.head(F.silu(up + self.skip(x)))

    def program(dev):
        torch.manual_seed(9)
        model = Seg3d().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
        bce = nn.BCELoss()
        x, y, out = vol.to(dev), mask.to(dev), []
        for _ in range(3):
            prob = torch.sigmoid(model(x))
            inter = (prob * y).sum(dim=(2, 3, 4))
            dice = 1 - (2 * inter + 1) / (prob.sum(dim=(2, 3, 4)) + y.sum(dim=(2, 3, 4)) + 1)
            loss = bce(prob, y) + dice.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        return out + [prob.detach(), model.down[1].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_unet_segmentation_with_skip_concat_transpose_conv_and_dice_loss():
    def program(dev):
        model = UNet().to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True,
                              weight_decay=1e-4)
        images = torch.randn(3, 2, 1, 16, 16)
        masks = (images[:, :, 0] > 0.3).long()
        out, first = [], None
        for step in range(3):
            x, m = images[step].to(dev), masks[step].to(dev)
            logits = model(x)
            loss = F.cross_entropy(logits, m) + dice_loss(logits, m)
            first = train_step(opt, loss, dev, out, step, first, 1)
        model.eval()
        with torch.no_grad():
            pred = model(images[0].to(dev)).argmax(1)
            fg = masks[0].to(dev) == 1
            iou = ((pred == 1) & fg).sum() / ((pred == 1) | fg).sum()
        return out + [pred, iou, model.inc[1].running_var]

    same_on_both(program, rtol=2e-4, atol=2e-5)


def test_patch_denoiser_with_overlapping_unfold_and_fold_averaging():
    def program(dev):
        patch = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 16)).to(dev)
        opt = torch.optim.NAdam(patch.parameters(), lr=1e-2)
        clean = torch.rand(2, 1, 10, 10).to(dev)
        noisy = clean + 0.1 * torch.randn(3, 2, 1, 10, 10).to(dev)
        ones = torch.ones(1, 1, 10, 10, device=dev)
        counts = F.fold(F.unfold(ones, 4, stride=2), (10, 10), 4, stride=2)
        out, first = [], None
        for step in range(3):
            cols = F.unfold(noisy[step], kernel_size=4, stride=2)
            cols = patch(cols.transpose(1, 2)).transpose(1, 2)
            image = F.fold(cols, (10, 10), kernel_size=4, stride=2) / counts
            loss = F.l1_loss(image, clean)
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [image, counts]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


# slow: 12 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_super_resolution_with_pixel_shuffle_bilinear_skip_and_transpose_conv():
    class SuperRes(nn.Module):
        def __init__(self, scale=2):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(1, 8, 5, padding=2), nn.Tanh(),
                                      nn.Conv2d(8, 8, 3, padding=1), nn.Tanh(),
                                      nn.Conv2d(8, scale ** 2, 3, padding=1))
            self.shuffle = nn.PixelShuffle(scale)
            self.up = nn.Upsample(scale_factor=scale, mode="bilinear", align_corners=False)
            self.refine = nn.ConvTranspose2d(1, 1, 3, stride=1, padding=1)

        def forward(self, x):
            return self.refine(self.shuffle(self.body(x)) + self.up(x))

    def program(dev):
        model = SuperRes().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        hi = torch.rand(3, 2, 1, 12, 12)
        lo = F.avg_pool2d(hi.flatten(0, 1), 2).unflatten(0, (3, 2))
        hi, lo = hi.to(dev), lo.to(dev)
        out, first = [], None
        for step in range(3):
            sr = model(lo[step])
            loss = F.l1_loss(sr, hi[step])
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        with torch.no_grad():
            mse = F.mse_loss(model(lo[0]).clamp(0, 1), hi[0])
            psnr = 10 * torch.log10(1.0 / mse)
        return out + [psnr, model.refine.weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-4)


# slow: 29 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_style_transfer_with_instance_norm_reflection_pad_gram_and_tv_losses():
    def conv(cin, cout, stride=1):
        return nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(cin, cout, 3, stride),
                             nn.InstanceNorm2d(cout, affine=True), nn.ReLU())

    def gram(f):
        b, c, h, w = f.shape
        f = f.view(b, c, h * w)
        return f.bmm(f.transpose(1, 2)) / (c * h * w)

    def program(dev):
        net = nn.Sequential(conv(3, 6), conv(6, 8, 2),
                            nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1),
                            nn.InstanceNorm2d(6, affine=True), nn.ReLU(),
                            nn.ReflectionPad2d(1), nn.Conv2d(6, 3, 3)).to(dev)
        features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(),
                                 nn.AvgPool2d(2), nn.Conv2d(4, 4, 3, padding=1)).to(dev)
        features.requires_grad_(False)
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        content, style = torch.rand(3, 2, 3, 8, 8).to(dev), torch.rand(1, 3, 8, 8).to(dev)
        style_gram = [gram(features[:2](style)), gram(features(style))]
        out, first = [], None
        for step in range(3):
            y = net(content[step])
            c_loss = F.mse_loss(features(y), features(content[step]))
            s_loss = sum(F.mse_loss(gram(f), g.expand_as(gram(f)))
                         for f, g in zip((features[:2](y), features(y)), style_gram, strict=True))
            tv = (y[..., 1:, :] - y[..., :-1, :]).abs().mean() + \
                (y[..., 1:] - y[..., :-1]).abs().mean()
            loss = c_loss + 1e3 * s_loss + 1e-2 * tv
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [net[3].weight.grad, y]

    same_without_fallback(program, rtol=1e-4, atol=1e-4)
