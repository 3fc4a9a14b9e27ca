"""In-place ops, views and writes through views keep PyTorch's semantics;
unlowered ops fall back to eager, counted and warned once."""

from __future__ import annotations

import warnings

import lazytensor.torch as lt
import pytest
import torch
from lazytensor.core import get_runtime

from .conftest import DEV, assert_same


def both(fn):
    """Run ``fn(device)`` eagerly and lazily; compare every returned tensor
    and the strides and contiguity torch reports."""
    expected, actual = fn("cpu"), fn(DEV)
    assert_same(list(expected), list(actual))
    for e, a in zip(expected, actual, strict=False):
        assert e.stride() == a.stride() and e.is_contiguous() == a.is_contiguous()
        assert e.storage_offset() == a.storage_offset()


def base(device):
    return torch.arange(24.0, device=device).reshape(4, 6)


@pytest.mark.parametrize("write", [
    lambda x: x[1].fill_(-1),
    lambda x: x[:, 2].mul_(10),
    lambda x: x[1:3, ::2].add_(100),
    lambda x: x.t()[2].zero_(),
    lambda x: x.view(3, 8)[0, 3:].sub_(5),
    lambda x: x.unsqueeze(0)[0, 2, 1:4].copy_(torch.tensor([7.0, 8.0, 9.0], device=x.device)),
    lambda x: x.diagonal().add_(1000),
    lambda x: x[:4, :4].diagonal(1).mul_(-1),
    lambda x: x.as_strided((2, 2), (1, 6), 1).fill_(0.5),
    lambda x: x.unfold(1, 2, 2)[:, :, 0].neg_(),
    lambda x: x.select(1, -1).clamp_(max=10),
    lambda x: x.narrow(0, 2, 2).transpose(0, 1)[3].div_(2),
    lambda x: x.reshape(24)[5::7].pow_(2),
    lambda x: x.split(2, 1)[1].t().mul_(3),
])
def test_writes_through_views_reach_the_base(write):
    def run(device):
        x = base(device)
        keep = x[2]  # another view must see the write too
        write(x)
        return x, keep

    both(run)


def test_base_writes_show_through_views():
    def run(device):
        x = base(device)
        views = [x[1], x.t(), x[:, 1:3], x.view(2, 12), x.diagonal()]
        x.mul_(2)
        x[0, 0] = 99
        return views

    both(run)


def test_aliases_share_storage():
    def run(device):
        p = torch.ones(3, 2, device=device, requires_grad=True)
        with torch.no_grad():
            p.add_(1)
        d = p.detach()
        d[0, 0] = 5
        p.data.mul_(2)
        return p.detach(), d

    both(run)


def test_contiguous_and_reshape_copy_exactly_when_torch_does():
    def run(device):
        x = base(device)
        same = x.contiguous()  # already contiguous: x itself
        copied = x.t().contiguous()  # a copy
        reshaped_view = x.reshape(3, 8)  # a view
        reshaped_copy = x.t().reshape(24)  # a copy
        for t in (same, copied, reshaped_view, reshaped_copy):
            t.add_(1)
        return x, copied, reshaped_view, reshaped_copy

    both(run)


def test_elementwise_results_keep_torchs_layout():
    def run(device):
        x = base(device)
        t = x.t()
        return (t * 2, t + t, torch.exp(t), t.clone(), torch.zeros_like(t), x[:, ::2] + 1,
                t[:, ::2] - 1, t + x.t().contiguous(), x.t().contiguous() + t,
                x[None].transpose(1, 2) * x[:1, :4])

    both(run)


def test_in_place_view_ops_change_metadata():
    def run(device):
        x = base(device).clone()
        y = x[0:2]
        y.t_()
        y.unsqueeze_(0)
        z = torch.ones(1, 3, 1, device=device)
        z.squeeze_()
        y.mul_(-1)  # writes through to x
        return x, y, z

    both(run)


def test_out_arguments_and_resizing():
    def run(device):
        a, b = base(device), torch.ones(4, 6, device=device)
        out = torch.empty(4, 6, device=device)
        torch.add(a, b, alpha=2, out=out)
        grown = torch.empty(0, device=device)
        torch.mul(a, 2, out=grown)
        values, indices = torch.empty(0, device=device), torch.empty(0, dtype=torch.long,
                                                                     device=device)
        torch.max(a, 1, out=(values, indices))
        return out, grown, values, indices

    both(run)


def test_autograd_through_in_place_writes_on_views():
    def run(device):
        w = torch.randn(4, 3, generator=torch.Generator().manual_seed(0)).to(device)
        w.requires_grad_()
        h = w * 2
        h[1].mul_(3)  # CopySlices in backward
        h.t()[0].add_(1)
        (h ** 2).sum().backward()
        return h.detach(), w.grad

    both(run)


def test_in_place_on_leaf_view_raises_like_torch():
    for device in ("cpu", DEV):
        w = torch.ones(3, device=device, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            w[0].add_(1)


def test_fallback_is_counted_and_warned_once():
    metrics = get_runtime().metrics
    x = torch.tensor([0.5, 1.0, 2.0])
    lx = x.to(DEV)
    op = "aten.special_bessel_j0.default"  # no lowering: eager CPU, then lazy again
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = torch.special.bessel_j0(lx) + 1
        second = torch.special.bessel_j0(lx)
    assert_same(torch.special.bessel_j0(x) + 1, first)
    assert_same(torch.special.bessel_j0(x), second)
    named = [w for w in caught if issubclass(w.category, lt.LazyFallbackWarning)
             and op in str(w.message)]
    assert len(named) <= 1  # once per process (an earlier test may have warned)
    assert metrics.fallbacks[op] == 2
    assert metrics.counters["eager_fallbacks"] == 2


def test_in_place_fallback_writes_back():
    def run(device):
        weight = torch.arange(1.0, 13.0, device=device).reshape(4, 3)
        rows = weight[1:]  # a view: the fallback's write must reach the base
        torch.special.bessel_y0(rows, out=rows)  # (runs eagerly)
        return weight, rows

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(run)
    assert get_runtime().metrics.counters["eager_fallbacks"] >= 1
