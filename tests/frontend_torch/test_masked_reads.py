"""``x[mask]`` reads that reach elementwise ops, casts, whole sums and means,
or a write through the same mask record graphs of x's shape
(``lazytensor.torch.aten.masked_reads``): a padding mask that changes every
batch compiles once. Each case is compared with eager torch (value, dtype,
shape), and gradients through a masked loss too."""

from __future__ import annotations

import lazytensor.torch as lt
import pytest
import torch
from lazytensor.core import metrics

DEV = lt.device()


def _cases():
    def accuracy(pred, y, mask, x):
        return (pred[mask] == y[mask]).float().mean()

    def positive_sum(pred, y, mask, x):
        return x[x > 0].sum()

    def write_back(pred, y, mask, x):
        x = x.clone()
        x[mask] = torch.tanh(x[mask]) * 2 + 1
        return x

    def row_mean(pred, y, mask, x):
        rows = x.sum(1) > 0
        return x[rows].mean(0)

    def scaled_rows(pred, y, mask, x):
        x = x.clone()
        rows = x[:, 0] > 0
        x[rows] = x[rows] - torch.arange(12.0, device=x.device)
        return x

    return [accuracy, positive_sum, write_back, row_mean, scaled_rows]


@pytest.mark.parametrize("program", _cases(), ids=lambda p: p.__name__)
def test_masked_reads_match_eager_and_compile_once(program):
    for seed in range(4):
        g = torch.Generator().manual_seed(seed)
        pred = torch.randint(0, 4, (8, 12), generator=g)
        y = torch.randint(0, 4, (8, 12), generator=g)
        lens = torch.randint(1, 12, (8,), generator=g)
        mask = torch.arange(12)[None] < lens[:, None]
        x = torch.randn(8, 12, generator=g)
        want = program(pred, y, mask, x)
        got = program(pred.to(DEV), y.to(DEV), mask.to(DEV), x.to(DEV)).cpu()
        assert got.dtype == want.dtype and got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
        if seed == 1:
            misses = metrics.as_dict()["counters"]["cache_misses"]
    assert metrics.as_dict()["counters"]["cache_misses"] == misses, \
        metrics.as_dict()["cache_miss_reasons"][-3:]


def test_gradients_through_a_masked_loss_match_eager():
    torch.manual_seed(0)
    out, target = torch.randn(6, 5), torch.randn(6, 5)
    mask = target > 0
    grads = []
    for device in ("cpu", DEV):
        o = out.clone().to(device).requires_grad_()
        t, m = target.to(device), mask.to(device)
        loss = ((o[m] - t[m]) ** 2).mean()
        loss.backward()
        grads.append((loss.detach().cpu(), o.grad.cpu()))
    torch.testing.assert_close(grads[1][0], grads[0][0])
    torch.testing.assert_close(grads[1][1], grads[0][1])


def test_other_masks_and_changed_values_take_the_general_path():
    x = torch.randn(10)
    m = x > 0
    other = torch.roll(m, 1)
    want = x.clone()
    want[other] = x[m] * 2 if int(other.sum()) == int(m.sum()) else want[other]
    xl, ml, ol = x.to(DEV), m.to(DEV), other.to(DEV)
    if int(other.sum()) == int(m.sum()):
        xl[ol] = xl[ml] * 2  # another mask of the same count: torch's compact write
    torch.testing.assert_close(xl.cpu(), want)
    t = xl[ml] + 1
    t[0] = 100.0  # no longer the read's value
    xl[ml] = t
    want[m] = want[m] + 1
    want[torch.nonzero(m)[0]] = 100.0
    torch.testing.assert_close(xl.cpu(), want)
