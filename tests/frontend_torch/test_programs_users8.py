"""Ordinary PyTorch programs, round eight (vision: a ResNet-18-style network
with label smoothing, a MobileNetV2 inverted residual, super-resolution with
PixelShuffle and bilinear upsampling, style transfer with instance norm and
Gram matrices, Grad-CAM, integrated gradients, PointNet, a ConvLSTM, Barlow
Twins) run eagerly on the CPU and lazily from the same seed and compared
(values, dtypes, shapes; see ``lazy_vs_eager.py``); where a program marks steps,
the later steps must neither recompile nor fall back, and no program falls
back."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .lazy_vs_eager import same_without_fallback, step_mark, train_step


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


def test_integrated_gradients_along_a_straight_path_with_the_trapezoid_rule():
    def program(dev):
        model = nn.Sequential(nn.Linear(6, 16), nn.Softplus(), nn.Linear(16, 3)).to(dev)
        x, baseline = torch.randn(4, 6).to(dev), torch.zeros(6, device=dev)
        target = model(x).argmax(-1)
        alphas = torch.linspace(0, 1, 9, device=dev)
        path = baseline + alphas[:, None, None] * (x - baseline)  # (steps, batch, features)
        path.requires_grad_(True)
        scores = model(path).gather(-1, target.expand(9, -1)[..., None]).sum()
        (grads,) = torch.autograd.grad(scores, path)
        avg = torch.trapezoid(grads, alphas, dim=0)
        attributions = (x - baseline) * avg
        with torch.no_grad():
            gap = model(x).gather(1, target[:, None]) - model(baseline.expand_as(x)).gather(
                1, target[:, None])
        completeness = (attributions.sum(1, keepdim=True) - gap).abs().max()
        assert completeness.item() < 0.05
        return [attributions, gap, target]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


# slow: 16 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_pointnet_with_a_feature_transform_regularizer_and_max_pooled_points():
    class TNet(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k
            self.mlp = nn.Sequential(nn.Conv1d(k, 16, 1), nn.BatchNorm1d(16), nn.ReLU(),
                                     nn.Conv1d(16, 32, 1), nn.ReLU())
            self.fc = nn.Linear(32, k * k)
            nn.init.zeros_(self.fc.weight)
            nn.init.zeros_(self.fc.bias)

        def forward(self, x):
            feat = self.mlp(x).max(dim=2).values
            eye = torch.eye(self.k, device=x.device).flatten()
            return (self.fc(feat) + eye).view(-1, self.k, self.k)

    class PointNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.tnet = TNet(3)
            self.conv = nn.Sequential(nn.Conv1d(3, 16, 1), nn.BatchNorm1d(16), nn.ReLU(),
                                      nn.Conv1d(16, 32, 1))
            self.head = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 3))

        def forward(self, pts):  # (batch, points, 3)
            trans = self.tnet(pts.transpose(2, 1))
            x = torch.bmm(pts, trans).transpose(2, 1)
            x = torch.max(self.conv(x), 2, keepdim=False)[0]
            return self.head(x), trans

    def program(dev):
        model = PointNet().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999))
        pts, y = torch.randn(3, 4, 32, 3).to(dev), torch.randint(0, 3, (3, 4)).to(dev)
        out, first = [], None
        for step in range(3):
            logits, trans = model(pts[step])
            eye = torch.eye(3, device=dev).unsqueeze(0)
            reg = torch.linalg.norm(eye - torch.bmm(trans, trans.transpose(2, 1)), dim=(1, 2))
            loss = F.cross_entropy(logits, y[step]) + 1e-3 * reg.mean()
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [trans, model.tnet.fc.weight.grad]

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


# slow: 10 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_barlow_twins_cross_correlation_with_the_off_diagonal_view_trick():
    def off_diagonal(m):
        n = m.shape[0]
        return m.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()

    def program(dev):
        backbone = nn.Sequential(nn.Linear(10, 16), nn.BatchNorm1d(16), nn.ReLU()).to(dev)
        projector = nn.Sequential(nn.Linear(16, 8, bias=False), nn.BatchNorm1d(8),
                                  nn.ReLU(), nn.Linear(8, 8, bias=False)).to(dev)
        bn = nn.BatchNorm1d(8, affine=False).to(dev)
        opt = torch.optim.SGD([*backbone.parameters(), *projector.parameters()], lr=0.05,
                              momentum=0.9, weight_decay=1e-4)
        x = torch.randn(3, 12, 10)
        views = torch.stack([x + 0.1 * torch.randn_like(x), x * 0.9]).to(dev)
        out, first = [], None
        for step in range(3):
            z1 = projector(backbone(views[0, step]))
            z2 = projector(backbone(views[1, step]))
            c = bn(z1).T @ bn(z2) / z1.shape[0]
            on_diag = torch.diagonal(c).add_(-1).pow_(2).sum()
            off_diag = off_diagonal(c).pow_(2).sum()
            loss = on_diag + 5e-3 * off_diag
            first = train_step(opt, loss, dev, out, step, first, settled=1)
            step_mark(dev)
        return out + [c.detach(), bn.running_mean, projector[0].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-4)
