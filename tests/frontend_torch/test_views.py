"""Views and in-place updates: writes through views reach their base,
expand/as_strided strides are torch's, channels_last is kept, conjugate
views resolve in fallbacks. Each check compares with eager torch on the CPU
(values, dtypes, shapes, or the exception type and text)."""


from __future__ import annotations

import math
import warnings

import lazytensor.torch as lt
import pytest
import torch
from lazytensor.core import get_runtime
from torch import nn

from .conftest import DEV, assert_same
from .lazy_vs_eager import fallbacks, same_on_both, same_outcomes


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


def test_views_in_inference_mode_follow_their_base():
    def program(dev):
        emb = nn.Embedding(10, 4).to(dev)
        pos = nn.Parameter(torch.randn(6, 4).to(dev))
        idx = torch.tensor([[1, 2, 3]]).to(dev)
        with torch.inference_mode():
            out = emb(idx) + pos[:3]
            made = torch.ones(3, 4).to(dev)
            kinds = [t.is_inference() for t in (pos[:3], pos.t(), pos.detach(), out, made[:1])]
        kinds += [made[:1].is_inference(), made.t().is_inference()]
        return {"out": out, "kinds": kinds, "sum": made.t().sum()}

    same_on_both(program)


def test_channels_last_memory_format_is_kept_as_in_torch():
    """.to/.contiguous/.clone(memory_format=torch.channels_last) gave
    contiguous strides on the lazy device (is_contiguous(memory_format=...)
    was False, stride() differed); a wrong rank raised nothing."""
    def program(dev):
        conv = nn.Conv2d(3, 4, 3).to(dev).to(memory_format=torch.channels_last)
        opt = torch.optim.SGD(conv.parameters(), lr=0.1, momentum=0.9)
        x = torch.randn(2, 3, 6, 6).to(dev).contiguous(memory_format=torch.channels_last)
        conv(x).square().mean().backward()
        opt.step()
        w = conv.weight
        vol = torch.zeros(1, 2, 3, 4, 5).to(dev).clone(memory_format=torch.channels_last_3d)
        return {"w": w, "w_cl": w.is_contiguous(memory_format=torch.channels_last),
                "w_strides": w.stride(), "x_strides": x.stride(), "x_plain": x.is_contiguous(),
                "like": torch.empty_like(x).stride(), "vol": vol.stride(),
                "back": x.contiguous(memory_format=torch.contiguous_format).stride()}

    same_on_both(program)
    from .conftest import DEV

    for dev in (torch.device("cpu"), DEV):
        with pytest.raises(RuntimeError, match="required rank 4 tensor"):
            torch.zeros(2, 3, 4).to(dev).contiguous(memory_format=torch.channels_last)


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


def test_in_place_ops_on_views():
    def program(dev):
        x = torch.arange(12.).reshape(3, 4).to(dev)
        x[:, 0].mul_(2)
        x.diagonal().fill_(-1)
        x[1].add_(x[2])
        y = torch.arange(6.).reshape(2, 3).to(dev)
        y.t_()
        y[0].zero_()
        z = torch.arange(8).to(dev)
        z.view(2, 4)[1, ::2] += 10
        w = torch.ones(3, 3).to(dev)
        w.triu_().mul_(3).sub_(1)
        u = torch.zeros(4, 4).to(dev)
        u.diagonal(1).copy_(torch.tensor([1., 2., 3.]))
        u.T[0].fill_(7)
        v = torch.arange(6.).to(dev)
        v.unsqueeze_(0).transpose_(0, 1).squeeze_()
        return [x, y, y.stride(), z, w, u, v, v.shape]

    same_on_both(program)


def test_eager_fallbacks_resolve_conjugate_views_inside_torch_dispatch():
    """torch.linalg.lstsq of complex matrices (an eager fallback) gave wrong
    residuals, some negative: the CPU kernel multiplies by a conj() view, and
    inside __torch_dispatch__ the Conjugate key is excluded, so the view was
    read unconjugated. Silently wrong; the fallback now runs its kernel with
    the Conjugate, Negative and ZeroTensor keys enabled (found by the
    complex64 OpInfo run)."""
    g = torch.Generator().manual_seed(3)
    a = torch.randn(5, 3, dtype=torch.complex64, generator=g)
    b = torch.randn(5, 2, dtype=torch.complex64, generator=g)

    def program(dev):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = torch.linalg.lstsq(a.to(dev), b.to(dev), driver="gelsd")
        return [out.solution, out.residuals, out.rank, out.singular_values]

    same_on_both(program, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("make, size", [
    (lambda d: torch.arange(3.0, device=d), (1, 3)),
    (lambda d: torch.arange(3.0, device=d), (1, 1, 3)),
    (lambda d: torch.arange(3.0, device=d), (2, 1, 3)),
    (lambda d: torch.arange(3.0, device=d), (1, 0, 3)),
    (lambda d: torch.arange(6.0, device=d).reshape(2, 3).t(), (1, 3, 2)),
    (lambda d: torch.arange(3.0, device=d).reshape(3, 1), (1, 3, 4)),
    (lambda d: torch.arange(3.0, device=d).reshape(3, 1), (2, -1, 0)),
    (lambda d: torch.tensor(5.0, device=d), (1,)),
    (lambda d: torch.tensor(5.0, device=d), (1, 1)),
    (lambda d: torch.tensor(5.0, device=d), (2, 3)),
])
def test_expand_strides(make, size):
    eager, lazy = make("cpu").expand(*size), make(DEV).expand(*size)
    assert lazy.stride() == eager.stride() and lazy.shape == eager.shape
    assert lazy.is_contiguous() == eager.is_contiguous()
    assert_same([eager.clone()], [lazy.clone()])


def test_expand_errors_keep_torch_text():
    x = torch.arange(3.0, device=DEV)
    with pytest.raises(RuntimeError, match="must match the existing size"):
        x.expand(2, 4)
    with pytest.raises(RuntimeError, match="leading, non-existing dimension"):
        x.expand(-1, 3)


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
