"""Vision programs: CNN classifiers (ResNet, MobileNet, ViT, Swin, capsules,
squeeze-excite, hypernetworks), augmentation (CutMix), explanations (Grad-
CAM), masked autoencoders. Each program is written as a PyTorch user writes
it, run eagerly on the CPU and lazily on ``lazytensor.torch.device()`` from
the same seed, and compared (values, dtypes, shapes; see ``programs.py``);
training programs also check that later steps compile nothing new."""


from __future__ import annotations

import copy

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ..conftest import DEV
from ..lazy_vs_eager import (
    compare,
    digits,
    fallbacks,
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
    weights,
)


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


class SqueezeExcite(nn.Module):
    def __init__(self, c, r=4):
        super().__init__()
        self.fc = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c, c // r, 1), nn.ReLU(),
                                nn.Conv2d(c // r, c, 1), nn.Hardsigmoid())

    def forward(self, x):
        return x * self.fc(x)


class SeparableBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.dw = nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False)
        self.pw = nn.Conv2d(cin, cout, 1, bias=False)
        self.norm1, self.norm2 = nn.GroupNorm(2, cin), nn.GroupNorm(2, cout)
        self.se = SqueezeExcite(cout)
        same = cin == cout and stride == 1
        self.short = nn.Identity() if same else nn.Conv2d(cin, cout, 1, stride)

    def forward(self, x):
        h = F.hardswish(self.norm1(self.dw(x)))
        return self.short(x) + self.se(self.norm2(self.pw(h)))


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.GroupNorm):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


class HyperConv(nn.Module):
    """A hypernetwork: per-sample conv kernels from a conditioning vector,
    applied in one grouped convolution (the batch folded into channels)."""

    def __init__(self, cond=4, cin=2, cout=3, k=3):
        super().__init__()
        self.shape = (cout, cin, k, k)
        self.hyper = nn.Sequential(nn.Linear(cond, 16), nn.ReLU(),
                                   nn.Linear(16, cout * cin * k * k))

    def forward(self, x, z):
        B, C, H, W = x.shape
        kernels = self.hyper(z).view(B * self.shape[0], *self.shape[1:])
        y = F.conv2d(x.reshape(1, B * C, H, W), kernels, padding=1, groups=B)
        return y.view(B, self.shape[0], H, W)


def squash(s, dim=-1):
    norm2 = (s ** 2).sum(dim, keepdim=True)
    return norm2 / (1 + norm2) * s / torch.sqrt(norm2 + 1e-8)


class CapsuleLayer(nn.Module):
    def __init__(self, n_in=6, d_in=4, n_out=3, d_out=5, iters=3):
        super().__init__()
        self.W = nn.Parameter(0.1 * torch.randn(n_in, n_out, d_out, d_in))
        self.iters = iters

    def forward(self, u):                      # (B, n_in, d_in)
        u_hat = torch.einsum("ijkl,bil->bijk", self.W, u)
        b = torch.zeros(u_hat.shape[:3], device=u.device)
        for it in range(self.iters):
            c = b.softmax(dim=2)
            v = squash(torch.einsum("bij,bijk->bjk", c, u_hat))
            if it < self.iters - 1:
                b = b + torch.einsum("bijk,bjk->bij", u_hat.detach(), v.detach())
        return v


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.down is None else self.down(x)
        out = F.relu(self.bn1(self.conv1(x)), inplace=True)
        return F.relu(self.bn2(self.conv2(out)) + identity)


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


def test_tiny_resnet_hand_written_sgd_ema_and_deepcopy():

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


# ~9 s on a CI worker (XLA compiles of its training step): CI's test step is at its budget
@pytest.mark.slow
def test_vit_patch_embedding_with_unfold_class_token_and_label_smoothing():
    class ViT(nn.Module):
        def __init__(self, patch=4, dim=16):
            super().__init__()
            self.patch = patch
            self.embed = nn.Linear(patch * patch * 3, dim)
            self.cls = nn.Parameter(torch.zeros(1, 1, dim))
            self.pos = nn.Parameter(torch.randn(1, 5, dim) * 0.02)
            self.block = nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True,
                                                    norm_first=True, activation="gelu")
            self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, 5)

        def forward(self, x):
            p = self.patch
            patches = x.unfold(2, p, p).unfold(3, p, p)  # B C h w p p
            patches = patches.permute(0, 2, 3, 1, 4, 5).flatten(3).flatten(1, 2)
            tokens = torch.cat([self.cls.expand(x.shape[0], -1, -1), self.embed(patches)], 1)
            h = self.block(tokens + self.pos)
            return self.head(self.norm(h[:, 0]))

    def program(dev):
        model = ViT().to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        x, y = torch.randn(6, 3, 8, 8).to(dev), torch.randint(0, 5, (6,)).to(dev)
        crit = nn.CrossEntropyLoss(label_smoothing=0.1)
        out, first = [], None
        for step in range(4):
            x_aug = torch.flip(x, dims=[3]) if step % 2 else x
            loss = crit(model(x_aug), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step_mark(dev)
            out += [loss.detach(), opt.param_groups[0]["lr"]]
            if step >= 2:
                first = steady(dev, first)
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_depthwise_separable_groupnorm_squeeze_excite_net_with_apply_init():
    def program(dev):
        torch.manual_seed(1)
        model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), SeparableBlock(8, 16, 2),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5))
        model.apply(init_weights)          # on the CPU: the same draws on both devices
        model.to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        xs, ys = torch.randn(3, 4, 3, 8, 8).to(dev), torch.randint(0, 5, (3, 4)).to(dev)
        out, first = [], None
        for step in range(3):
            loss = F.cross_entropy(model(xs[step]), ys[step], label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step_mark(dev)
            out += [loss.detach(), sched.get_last_lr()[0]]
            if step >= 1:
                first = steady(dev, first)
        return out + [model[1].dw.weight.detach(), model[1].se.fc[1].bias.grad]

    same_on_both(program, rtol=2e-4, atol=2e-5)


def test_hypernetwork_per_sample_kernels_through_a_grouped_convolution():
    def program(dev):
        model = HyperConv().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        xs, zs, ts = torch.randn(3, 4, 2, 6, 6), torch.randn(3, 4, 4), torch.randn(3, 4, 3, 6, 6)
        out, first = [], None
        for step in range(3):
            y = model(xs[step].to(dev), zs[step].to(dev))
            loss = F.l1_loss(y, ts[step].to(dev))
            first = train_step(opt, loss, dev, out, step, first, 1)
        return out + [y.detach(), model.hyper[2].weight.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_cutmix_boxes_written_by_slices_with_mixed_label_targets():
    def program(dev):
        model = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool2d(2),
                              nn.Flatten(), nn.Linear(24, 4)).to(dev)
        opt = torch.optim.NAdam(model.parameters(), lr=2e-3)
        images, labels = torch.rand(3, 6, 3, 12, 12).to(dev), torch.randint(0, 4, (3, 6)).to(dev)
        boxes = [(2, 8, 1, 7), (0, 6, 4, 10), (3, 9, 5, 11)]   # one size: no recompile
        out, first = [], None
        for step in range(3):
            x, y = images[step].clone(), labels[step]
            perm = torch.randperm(6, generator=torch.Generator().manual_seed(step)).to(dev)
            r0, r1, c0, c1 = boxes[step]
            x[:, :, r0:r1, c0:c1] = x[perm, :, r0:r1, c0:c1]
            lam = 1 - (r1 - r0) * (c1 - c0) / 144
            logits = model(x)
            loss = lam * F.cross_entropy(logits, y) + (1 - lam) * F.cross_entropy(logits, y[perm])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), x[0, 0]]
            if step >= 1:
                first = steady(dev, first)
        return out + [model[0].weight.detach()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_capsule_dynamic_routing_with_einsum_and_margin_loss():
    def program(dev):
        prim = nn.Linear(12, 24).to(dev)
        caps = CapsuleLayer().to(dev)
        opt = torch.optim.Adam([*prim.parameters(), *caps.parameters()], lr=1e-2)
        xs, ys = torch.randn(3, 8, 12).to(dev), torch.randint(0, 3, (3, 8)).to(dev)
        out, first = [], None
        for step in range(3):
            u = squash(prim(xs[step]).view(8, 6, 4))
            lengths = caps(u).norm(dim=-1)
            t = F.one_hot(ys[step], 3).float()
            loss = (t * F.relu(0.9 - lengths) ** 2
                    + 0.5 * (1 - t) * F.relu(lengths - 0.1) ** 2).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), lengths.detach()]
            if step >= 1:
                first = steady(dev, first)
        return out + [caps.W.detach()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


# slow: 23 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_resnet18_style_network_with_label_smoothing_nesterov_and_multistep_lr():
    class ResNet(nn.Module):
        def __init__(self, classes=5):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8),
                                      nn.ReLU(inplace=True))
            self.layer1 = nn.Sequential(BasicBlock(8, 8, 1), BasicBlock(8, 8, 1))
            self.layer2 = nn.Sequential(BasicBlock(8, 16, 2), BasicBlock(16, 16, 1))
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(16, classes)

        def forward(self, x):
            x = self.layer2(self.layer1(self.stem(x)))
            return self.fc(torch.flatten(self.pool(x), 1))

    def program(dev):
        model = ResNet().to(dev)
        decay = [p for p in model.parameters() if p.ndim > 1]
        no_decay = [p for p in model.parameters() if p.ndim <= 1]
        opt = torch.optim.SGD([{"params": decay, "weight_decay": 5e-4},
                               {"params": no_decay, "weight_decay": 0.0}],
                              lr=0.1, momentum=0.9, nesterov=True)
        sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2], gamma=0.1)
        x, y = torch.randn(3, 4, 3, 8, 8).to(dev), torch.randint(0, 5, (3, 4)).to(dev)
        out, first = [], None
        for step in range(3):
            model.train()
            loss = F.cross_entropy(model(x[step]), y[step], label_smoothing=0.1)
            first = train_step(opt, loss, dev, out, step, first, settled=1)
            sched.step()
        model.eval()
        with torch.no_grad():
            logits = model(x[0])
        return out + [logits, model.layer2[0].down[1].running_var,
                      model.stem[1].num_batches_tracked, sched.get_last_lr()]

    same_without_fallback(program, rtol=1e-4, atol=1e-4)


# slow: 21 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_mobilenet_v2_inverted_residuals_with_grouped_depthwise_convolutions():
    class InvertedResidual(nn.Module):
        def __init__(self, cin, cout, stride, expand):
            super().__init__()
            hidden = cin * expand
            self.use_res = stride == 1 and cin == cout
            self.block = nn.Sequential(
                nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(True),
                nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
                nn.BatchNorm2d(hidden), nn.ReLU6(True),
                nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            return x + self.block(x) if self.use_res else self.block(x)

    def program(dev):
        model = nn.Sequential(
            nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.Hardswish(),
            InvertedResidual(8, 8, 1, 4), InvertedResidual(8, 12, 2, 4),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.0), nn.Linear(12, 4)).to(dev)
        opt = torch.optim.RMSprop(model.parameters(), lr=1e-3, alpha=0.9, momentum=0.9,
                                  eps=1e-3)
        x, y = torch.randn(3, 4, 3, 12, 12).to(dev), torch.randint(0, 4, (3, 4)).to(dev)
        out, first = [], None
        for step in range(3):
            loss = F.cross_entropy(model(x[step]), y[step])
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [model[4].block[3].weight.grad, model[4].block[4].running_mean]

    same_without_fallback(program, rtol=1e-4, atol=1e-4)


def test_grad_cam_from_hooked_activations_and_gradients_upsampled_to_the_input():
    def program(dev):
        model = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(6, 8, 3, padding=1), nn.ReLU(),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4)).to(dev)
        model.eval()
        saved = {}
        target_layer = model[4]
        handles = [
            target_layer.register_forward_hook(lambda m, i, o: saved.__setitem__("act", o)),
            target_layer.register_full_backward_hook(
                lambda m, gi, go: saved.__setitem__("grad", go[0]))]
        x = torch.rand(2, 3, 10, 10).to(dev).requires_grad_(True)
        logits = model(x)
        cls = logits.argmax(1)
        model.zero_grad()
        logits.gather(1, cls[:, None]).sum().backward()
        weights = saved["grad"].mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * saved["act"]).sum(1, keepdim=True))
        cam = F.interpolate(cam, size=x.shape[-2:], mode="bilinear", align_corners=False)
        lo = cam.amin(dim=(2, 3), keepdim=True)
        hi = cam.amax(dim=(2, 3), keepdim=True)
        cam = (cam - lo) / (hi - lo + 1e-8)
        for h in handles:
            h.remove()
        return [cam.detach(), cls, x.grad, model[0].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_masked_autoencoder_random_masking_by_argsort_and_gather_unshuffle():
    def program(dev):
        patches, dim, keep = 8, 6, 3
        enc = nn.Sequential(nn.Linear(dim, 12), nn.GELU()).to(dev)
        dec = nn.Linear(12, dim).to(dev)
        mask_token = nn.Parameter(torch.zeros(1, 1, 12, device=dev))
        opt = torch.optim.AdamW([*enc.parameters(), *dec.parameters(), mask_token], lr=1e-2)
        x, noise = torch.randn(3, 2, patches, dim).to(dev), torch.rand(3, 2, patches).to(dev)
        out, first = [], None
        for step in range(3):
            b = x.shape[1]
            ids_shuffle = torch.argsort(noise[step], dim=1)
            ids_restore = torch.argsort(ids_shuffle, dim=1)
            ids_keep = ids_shuffle[:, :keep]
            visible = torch.gather(x[step], 1, ids_keep.unsqueeze(-1).repeat(1, 1, dim))
            mask = torch.ones(b, patches, device=dev)
            mask[:, :keep] = 0
            mask = torch.gather(mask, 1, ids_restore)
            latent = enc(visible)
            full = torch.cat([latent, mask_token.expand(b, patches - keep, -1)], dim=1)
            full = torch.gather(full, 1, ids_restore.unsqueeze(-1).expand(-1, -1, 12))
            per_patch = ((dec(full) - x[step]) ** 2).mean(-1)
            loss = (per_patch * mask).sum() / mask.sum()
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [mask, mask_token.grad, ids_restore]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


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


def test_resnet_block_train_then_eval_under_inference_mode():
    def program(dev):
        model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), ResidualBlock(8), ResidualBlock(8),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x, y = torch.randn(6, 3, 8, 8).to(dev), torch.randint(0, 4, (6,)).to(dev)
        losses = []
        for _ in range(3):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        model.eval()
        with torch.inference_mode():
            out = model(x)
            pred = out.argmax(1)
        bn = model[1].bn1
        return [losses, out, pred, bn.running_mean, bn.running_var, bn.num_batches_tracked,
                out.is_inference()]

    same_on_both(program, rtol=1e-4, atol=1e-4)
