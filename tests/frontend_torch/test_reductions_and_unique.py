"""Reductions, scans, sorting and counting: unique (every entry point),
bincount with data-dependent lengths, histc/histogram, mode,
bucketize/searchsorted, cumsum/cumprod, logsumexp. Each check compares with
eager torch on the CPU (values, dtypes, shapes, or the exception type and
text)."""


from __future__ import annotations

import re

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import (
    fallbacks,
    same_on_both,
    same_outcomes,
    same_without_fallback,
)
from .lazy_vs_eager import fallbacks as fallbacks_now


def _same_exactly(expected, actual) -> None:
    """Equal dtype, shape, values, NaN places and signs of zero."""
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual, strict=True):
        a = a.cpu()
        assert (a.dtype, a.shape) == (e.dtype, e.shape)
        torch.testing.assert_close(a, e, rtol=0, atol=0, equal_nan=True)
        if e.is_floating_point():
            assert torch.equal(torch.signbit(a), torch.signbit(e))


_INPUTS = {
    "int64 2-d": lambda: torch.randint(0, 3, (4, 3)),
    "float NaN -0": lambda: torch.tensor([1.0, float("nan"), 2.0, float("nan"), 1.0, -0.0, 0.0]),
    "zero signs": lambda: torch.tensor([0.0, -0.0, 1.0, -0.0]),
    "bool": lambda: torch.tensor([True, False, True, True]),
    "0-d": lambda: torch.tensor(5.0),
    "uint8 3-d": lambda: torch.randint(0, 2, (3, 2, 2)).to(torch.uint8),
    "float16 repeats": lambda: torch.randn(5).half().repeat(3),
    "bfloat16": lambda: torch.randint(0, 3, (6,)).to(torch.bfloat16),
}


def _calls(x: torch.Tensor, flags: tuple[bool, bool, bool]):
    """Every unique entry point with these (sorted, inverse, counts) flags."""
    s, ri, rc = flags
    calls = [lambda t: torch.ops.aten._unique2(t, s, ri, rc),
             lambda t: torch.ops.aten._unique(t, s, ri),
             lambda t: torch.ops.aten.unique_consecutive(t, ri, rc),
             lambda t: torch.unique(t, sorted=s, return_inverse=ri, return_counts=rc)]
    for d in range(-x.dim(), x.dim()):
        calls += [lambda t, d=d: torch.ops.aten.unique_dim(t, d, s, ri, rc),
                  lambda t, d=d: torch.ops.aten.unique_consecutive(t, ri, rc, d)]
    return calls


# the n-d inputs compile about 30 small graphs each (~5 s on a CI worker):
# slow; unique rows along a dim of a 2-d tensor stay covered by default by
# test_unique_rows_deduplicate_a_replay_buffer_and_count_visits
_SLOW = {"int64 2-d", "uint8 3-d"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW else n
                                  for n in _INPUTS])
def test_unique_every_entry_point_and_flag_matches_eager_without_fallback(name):
    torch.manual_seed(0)
    x = _INPUTS[name]()
    start = fallbacks()
    for flags in [(True, True, True), (False, False, False)]:
        for call in _calls(x, flags):
            _same_exactly(call(x), call(x.to(DEV)))
    # a sorted dim= unique of rows with NaN runs in torch: unique_dim at dims
    # -1 and 0, for each of the two flag sets
    allowed = 2 * 2 if name == "float NaN -0" else 0
    assert fallbacks() - start == allowed


def test_unique_errors_and_eager_cases_match_torch():
    def calls(dev):
        x = torch.tensor(3.0, device=dev)
        m = torch.tensor([[1, 2], [1, 2]], device=dev)
        return [lambda: torch.unique(x, dim=0), lambda: torch.unique_consecutive(x, dim=-1),
                lambda: torch.unique(m, dim=2), lambda: torch.unique_consecutive(m, dim=-3),
                lambda: torch.unique(torch.zeros(0, 3, device=dev), dim=1),
                lambda: torch.unique(torch.ones(2, device=dev, dtype=torch.complex64)),
                lambda: torch.unique(torch.zeros(0, 3, device=dev), dim=0)]

    outcomes = []
    for dev in (torch.device("cpu"), DEV):
        row = []
        for call in calls(dev):
            try:
                row.append(("value", call().cpu()))
            except (IndexError, RuntimeError, NotImplementedError) as error:
                row.append((type(error), str(error)))
        outcomes.append(row)
    for e, a in zip(*outcomes, strict=True):
        assert a[0] == e[0]
        assert torch.equal(a[1], e[1]) if e[0] == "value" else a[1] == e[1]


# slow: 10 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_class_balanced_loss_from_unique_labels_with_inverse_and_counts():
    """Per-batch class weights from torch.unique(labels, return_inverse,
    return_counts): inverse-frequency weights, a per-class mean embedding by
    index_add over the inverse, and the batch's classes as a Python list."""
    x, y = torch.randn(48, 10), torch.randint(0, 6, (48,))

    def program(dev):
        model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 6)).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        out = []
        for step in range(3):
            xb, yb = x[step * 16:(step + 1) * 16].to(dev), y[step * 16:(step + 1) * 16].to(dev)
            classes, inverse, counts = torch.unique(yb, return_inverse=True, return_counts=True)
            weight = torch.zeros(6, device=dev).index_put_((classes,), counts.float().reciprocal())
            logits = model(xb)
            loss = F.cross_entropy(logits, yb, weight=weight * len(classes))
            opt.zero_grad()
            loss.backward()
            opt.step()
            feats = model[1](model[0](xb)).detach()
            means = torch.zeros(len(classes), 16, device=dev).index_add_(0, inverse, feats)
            means = means / counts.unsqueeze(1)
            out += [loss.item(), classes.tolist(), means, counts]
        runs, run_inverse, run_counts = torch.unique_consecutive(
            torch.sort(y[:16].to(dev)).values, return_inverse=True, return_counts=True)
        return out + [runs, run_inverse, run_counts]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_unique_rows_deduplicate_a_replay_buffer_and_count_visits():
    """Unique states (rows, dim=0) of a replay buffer: the visit count of
    each distinct state and a tabular value estimate averaged over them."""
    def program(dev):
        states = torch.randint(0, 3, (40, 2)).to(dev)
        rewards = torch.randn(40).to(dev)
        uniq, inverse, counts = torch.unique(states, dim=0, return_inverse=True,
                                             return_counts=True)
        value = torch.zeros(len(uniq), device=dev).scatter_add_(0, inverse, rewards) / counts
        best = uniq[value.argmax()]
        visited = torch.unique(states[:, 0], sorted=True)
        cols = torch.unique(states.t().contiguous(), dim=1)
        return [uniq, inverse, counts, value, best, visited, cols]

    same_without_fallback(program, rtol=1e-5, atol=1e-6)


def test_unique_rows_holding_nan_run_in_torch_counted(monkeypatch):
    """A float dim= unique whose rows hold NaN runs in torch, warned and
    counted (torch orders such rows by comparisons NaN leaves undefined)."""
    from lazytensor.core import metrics

    def program(dev):
        x = torch.tensor([[1.0, float("nan")], [1.0, float("nan")], [0.0, 2.0]]).to(dev)
        return list(torch.unique(x, dim=0, return_counts=True))

    monkeypatch.setattr(metrics, "_WARNED", set())
    start = fallbacks()
    with pytest.warns(lt.LazyFallbackWarning, match="aten.unique_dim"):
        same_on_both(program)
    assert fallbacks() == start + 1


def test_bincount_of_positions_is_lowered_where_its_length_is_known():
    """bincount(argmin/argmax/topk indices, minlength >= the axis size) has
    a known length: recorded lazily (int64 counts; float32 weights summed in
    float32, others in float64); a length that depends on the data reads
    the data's max and counts lazily too."""
    def program(dev):
        d = torch.randn(9, 5).to(dev)
        w = torch.randn(9).to(dev)
        return [torch.bincount(d.argmin(1), minlength=5),
                torch.bincount(d.argmax(0).int(), minlength=10),
                torch.bincount(d.topk(2, dim=1).indices.flatten(), minlength=5),
                torch.bincount(d.argmin(1), weights=w, minlength=5),
                torch.bincount(d.argmin(1), weights=w.double(), minlength=6),
                torch.bincount(d.argmin(1), weights=(w * 4).int(), minlength=5),
                torch.bincount(torch.arange(4, device=dev), minlength=4)]

    before = fallbacks_now()
    same_on_both(program)
    assert fallbacks_now() == before
    same_on_both(lambda dev: torch.bincount(torch.randn(9, 5).to(dev).argmin(1), minlength=3))
    assert fallbacks_now() == before


def test_bincount_of_a_length_that_depends_on_the_data_reads_it_and_counts_lazily():
    def program(dev):
        y = torch.tensor([0, 4, 2, 2, 7]).to(dev)
        pred = torch.randn(5, 3).to(dev).argmax(1)
        w = torch.rand(5).to(dev)
        return [torch.bincount(y * 3 + pred, minlength=9), torch.bincount(y, weights=w),
                torch.bincount(y.int(), weights=w.double(), minlength=3),
                torch.bincount(y.to(torch.uint8), minlength=12)]

    same_without_fallback(program)
    for bad in (torch.tensor([1, -1]), torch.tensor([[1]]), torch.tensor([1.0])):
        with pytest.raises((RuntimeError, NotImplementedError)) as cpu:
            torch.bincount(bad)
        with pytest.raises(type(cpu.value), match=re.escape(str(cpu.value))):
            torch.bincount(bad.to(DEV))


def test_nan_handling_of_sign_and_topk():
    def program(dev):
        x = torch.tensor([[1.0, 0.0, 3.0, -1.0], [2.0, 0.0, 0.0, 5.0]])
        nan = torch.zeros(()) / torch.zeros(())  # 0/0 on the CPU: a negative NaN
        x = torch.where(x == 0, nan, x).to(dev)
        logits = torch.tensor([[0.5, float("nan"), 2.0]]).to(dev)
        return {"signbit": torch.signbit(x), "sign": x.sign(), "sgn": x.half().sgn(),
                "topk": x.topk(2, 1), "top1": logits.topk(1), "bf16": x.bfloat16().topk(3)}

    same_on_both(program)


def test_activation_histograms_with_histc_are_lowered():
    """torch.histc (a logging staple: activation / weight histograms) ran
    through the eager CPU fallback."""
    def program(dev):
        torch.manual_seed(3)
        x = torch.randn(10, 100).to(dev) * 3
        out = {}
        for dtype in (torch.float32, torch.float64, torch.float16):
            y = x.to(dtype)
            out[str(dtype)] = [torch.histc(y), torch.histc(y, bins=7, min=-2, max=2),
                               torch.histc(y, 13, min=-1.5, max=1.5), torch.histc(y[:1, :1], 3),
                               torch.histc(y[:0], 4, 1, 1)]
        edges = torch.tensor([1.0, float("nan"), 3, 2, 2, 0, 3]).to(dev)
        out["edges"] = [torch.histc(edges, 3, 0, 3), torch.histc(torch.tensor([2.0, 2]).to(dev), 3),
                        torch.histc(torch.arange(100.0).to(dev) / 10, 33, 0, 9.9)]
        return out

    before = fallbacks()
    same_on_both(program, rtol=0, atol=0)
    assert fallbacks() == before
    from .conftest import DEV

    for args in ((torch.tensor([1, 2]),), (torch.tensor([1.0]), 4, 3, 1),
                 (torch.tensor([1.0]), 4, 0, float("inf"))):
        errors = []
        for dev in (torch.device("cpu"), DEV):
            with pytest.raises(RuntimeError) as info:
                torch.histc(args[0].to(dev), *args[1:])
            errors.append((type(info.value), str(info.value)))
        assert errors[0] == errors[1]


def test_logsumexp_over_an_empty_dim_is_minus_infinity():
    """logsumexp over an empty dim (a batch with no candidates) raised
    numpy's "zero-size array to reduction operation maximum" ValueError;
    torch gives log(0) = -inf."""
    def program(dev):
        x = torch.empty(2, 0, 3).to(dev)
        return {"all": torch.empty(0).to(dev).logsumexp(0), "dim": x.logsumexp(1),
                "keepdim": x.logsumexp(1, keepdim=True), "dims": x.logsumexp((0, 1)),
                "ints": torch.empty(2, 0, dtype=torch.long).to(dev).logsumexp(1),
                "nonempty_dim": x.logsumexp(2)}

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before


def test_mode_is_lowered_with_torchs_tie_rules():
    """torch.mode (majority vote over an ensemble's predictions) ran as an
    eager fallback; its lowering must give torch's smallest value among
    equally frequent ones and the last index where it occurs, and torch's
    errors for an empty dim and complex input."""
    def program(dev):
        votes = torch.tensor([[1, 2, 2, 3, 3, 1], [4, 4, 1, 1, 5, 5], [7, 7, 7, 7, 7, 7],
                              [3, 2, 1, 0, 9, 8]]).to(dev)
        x = torch.randn(4, 6).round().to(dev).requires_grad_()
        value, index = torch.mode(x, 1, keepdim=True)
        (value * torch.arange(4.0).to(dev)[:, None]).sum().backward()
        return [torch.mode(votes, 1), torch.mode(votes, 0, keepdim=True),
                torch.mode(torch.tensor([5, 3, 5, 3, 3, 5]).to(dev)),
                torch.mode(torch.tensor(5.0).to(dev)), torch.mode(torch.zeros(2, 0).to(dev), 0),
                torch.mode(torch.tensor([True, False, True]).to(dev)),
                torch.mode(torch.tensor([1.0, 3, 3, 1], dtype=torch.bfloat16).to(dev)),
                torch.mode(torch.randint(0, 4, (3, 5, 7)).to(dev), 1), value, index, x.grad]

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before

    def errors(dev):
        return [lambda: torch.mode(torch.zeros(2, 0).to(dev), 1)[0],
                lambda: torch.mode(torch.tensor([1 + 1j]).to(dev))[0]]

    same_outcomes(errors)


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


def test_cumsum_cumprod_of_int_and_bool():
    def program(dev):
        m = (torch.rand(4, 6) > 0.5).to(dev)
        i = torch.randint(-3, 4, (4, 6)).to(dev)
        return [m.cumsum(1), m.cumsum(0, dtype=torch.int32), i.cumprod(1), m.cumprod(1),
                i.to(torch.int8).cumsum(1), i.to(torch.uint8).cumsum(0), torch.cummax(i, 1),
                torch.cummin(m, 0), m.sum(1), m.prod(0), i.to(torch.int32).sum(),
                i.to(torch.int16).prod(1), torch.logcumsumexp(i.float(), 1),
                m.long().cumsum(1).diff(dim=1)]

    same_on_both(program)


def test_bool_and_integer_reductions_scans_and_dropout_backward_follow_torch():
    """Found by the OpInfo run in bool and int64: prod/sum(dtype=torch.bool)
    crashed at the barrier (XLA has no bool product: now all/any, torch's
    values); cumsum/cumprod(dtype=bool) and logcumsumexp of integers crashed
    there with jax's TypeError (now torch's NotImplementedError);
    native_dropout_backward of an integer grad kept its dtype (silently
    truncated: torch's float scale promotes to float32) and of a bool grad
    crashed; index_add of bools with alpha crashed (bool multiply);
    special.zeta(0, 0) was inf (torch: NaN for x < 1) and zeta(x, q) at the
    poles q = 0, -1, -2... NaN (torch: inf)."""
    x = torch.tensor([[True, False], [False, False], [True, True]])

    def program(dev):
        b, i = x.to(dev), (x.long() * 3 - 1).to(dev)
        return [lambda: b.prod(1, dtype=torch.bool), lambda: i.prod(0, dtype=torch.bool),
                lambda: b.prod(dtype=torch.bool), lambda: i.sum(1, dtype=torch.bool),
                lambda: (i.float() - 0.5).sum(dtype=torch.bool),
                lambda: b.cumsum(0, dtype=torch.bool), lambda: i.cumprod(1, dtype=torch.bool),
                lambda: i.logcumsumexp(0), lambda: b.logcumsumexp(1), lambda: b.cumsum(0),
                lambda: torch.ops.aten.native_dropout_backward(i, b, 1.25),
                lambda: torch.ops.aten.native_dropout_backward(b, b, 2.0),
                lambda: torch.ops.aten.native_dropout_backward(i.half(), b, 1.25),
                lambda: b.index_add(0, torch.tensor([2, 0]).to(dev), b[:2], alpha=False),
                lambda: b.index_add(1, torch.tensor([1, 1]).to(dev), b, alpha=True)]

    same_outcomes(program)
    same_on_both(lambda dev: [  # (NaNs: compared by same_on_both)
        torch.special.zeta(x.to(dev), x.to(dev)), torch.special.zeta(x.long().to(dev), 2.0),
        torch.special.zeta(torch.tensor([0., 0.5, 1., 2., -1.]).to(dev),
                           torch.tensor([0., 0., 0., 1., 1.]).to(dev)),
        torch.special.zeta(torch.tensor([9, 5, 2, 3, 7]).to(dev),  # poles: inf
                           torch.tensor([-7, 0, -2, -1, 1]).to(dev))])


def test_logsumexp_of_complex_tensors_follows_torch():
    """torch.logsumexp of a complex tensor crashed on the lazy device (the
    core's real logsumexp: 'IS_FINITE: expected a real floating operand');
    now torch's complex rule: shifted by the largest real part (found by the
    complex64 OpInfo run)."""
    g = torch.Generator().manual_seed(4)
    z = torch.randn(3, 4, dtype=torch.complex64, generator=g) * 5
    z[1, 2] = complex(float("-inf"), 0)
    same_on_both(lambda dev: [torch.logsumexp(z.to(dev), 1), torch.logsumexp(z.to(dev), (0, 1)),
                              torch.logsumexp(z.to(dev), 0, keepdim=True),
                              torch.logsumexp(z[:0].to(dev), 0)], rtol=1e-5, atol=1e-5)
