"""Graph and point-set programs: message passing, graph convolution and
attention, PointNet. Each program is written as a PyTorch user writes it,
run eagerly on the CPU and lazily on ``lazytensor.torch.device()`` from the
same seed, and compared (values, dtypes, shapes; see ``programs.py``);
training programs also check that later steps compile nothing new."""


from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ..conftest import DEV
from ..lazy_vs_eager import (
    same_on_both,
    same_outcomes,
    same_without_fallback,
    train_step,
)


def test_message_passing_with_compact_index_dtypes_follows_torchs_checks():
    """Edge lists stored compactly (int32, int16, uint8) or as floats: each
    gather/scatter/index_*/take/embedding accepts the index dtypes torch
    accepts and raises torch's error otherwise (the lazy ops computed with
    any integer index, and raised IndexError for float or bool indices);
    torch.where still takes a uint8 condition, with torch's warning."""
    def program(dev):
        h = torch.arange(12.0).reshape(4, 3).to(dev)
        calls = []
        for dtype in (torch.int64, torch.int32, torch.int16, torch.uint8, torch.float32,
                      torch.bool):
            src = torch.tensor([0, 1, 3, 1]).to(dtype).to(dev)
            dst = torch.tensor([1, 2, 0, 0]).to(dtype).to(dev)
            # (contiguous: eager CPU gather misreads an expanded int32 index)
            rows = src.view(4, 1).expand(4, 3).contiguous()
            calls += [lambda s=src: h.index_select(0, s),
                      lambda s=src, d=dst: torch.zeros_like(h).index_add_(0, d, h[s.long()]),
                      lambda s=src: torch.zeros_like(h).index_copy(0, s[:2], h[:2]),
                      lambda s=src: h.index_fill(0, s[:1], -1.0),
                      lambda r=rows: h.gather(0, r),
                      lambda r=rows: torch.zeros_like(h).scatter_add_(0, r, h),
                      lambda r=rows: torch.zeros_like(h).scatter_reduce(0, r, h, "amax"),
                      lambda r=rows: torch.zeros_like(h).scatter_(0, r, 1.0),
                      lambda s=src: torch.take(h, s)]
            if dtype != torch.bool:  # (torch names a bool tensor's type CPUBoolType there)
                calls.append(lambda s=src: F.embedding(s, h))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # where's uint8 deprecation warning
            calls.append(lambda: torch.where(torch.tensor([0, 2], dtype=torch.uint8).to(dev),
                                             h[0, :2], 0.0))
        return calls

    same_outcomes(program)
    with pytest.warns(UserWarning, match="uint8 condition"):
        torch.where(torch.tensor([1], dtype=torch.uint8).to(DEV), 1.0, 0.0)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_graph_attention_with_scatter_max_softmax_and_index_add_messages():
    class GATLayer(nn.Module):
        def __init__(self, d_in, d_out):
            super().__init__()
            self.lin = nn.Linear(d_in, d_out, bias=False)
            self.att = nn.Parameter(torch.randn(2 * d_out) * 0.1)

        def forward(self, x, src, dst):
            h = self.lin(x)
            e = F.leaky_relu(torch.cat([h[src], h[dst]], 1) @ self.att, 0.2)
            e_max = torch.full((x.shape[0],), float("-inf"), device=x.device).scatter_reduce(
                0, dst, e, reduce="amax", include_self=True)
            w = (e - e_max[dst]).exp()
            denom = torch.zeros(x.shape[0], device=x.device).index_add_(0, dst, w)
            alpha = w / denom[dst]
            return torch.zeros_like(h).index_add_(0, dst, alpha.unsqueeze(1) * h[src])

    def program(dev):
        n = 10
        src = torch.randint(0, n, (30,))
        dst = torch.randint(0, n, (30,))
        loops = torch.arange(n)
        src, dst = torch.cat([src, loops]).to(dev), torch.cat([dst, loops]).to(dev)
        l1, l2 = GATLayer(5, 8).to(dev), GATLayer(8, 3).to(dev)
        params = list(l1.parameters()) + list(l2.parameters())
        opt = torch.optim.Adam(params, lr=1e-2, weight_decay=5e-4)
        x, y = torch.randn(n, 5).to(dev), torch.randint(0, 3, (n,)).to(dev)
        train_mask = (torch.arange(n) % 3 != 0).to(dev)
        out, first = [], None
        for step in range(3):
            logits = l2(F.elu(l1(x, src, dst)), src, dst)
            loss = F.cross_entropy(logits[train_mask], y[train_mask])
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [logits, l1.att.grad]

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
