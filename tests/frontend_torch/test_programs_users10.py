"""Ordinary PyTorch programs, round ten, run eagerly on the CPU and lazily
from the same seed and compared (values, dtypes, shapes; see
``programs.py``), and torch.unique / unique_consecutive, which now read
only their count (one barrier) and stay on the device: every flag, dim
and dtype against eager torch, and programs that use them on labels."""

from __future__ import annotations

import math

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import fallbacks, same_on_both, same_outcomes, same_without_fallback


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


def test_cat_shape_errors_are_torch_s():
    """torch.cat's own errors (were numpy's wording from the core): sizes
    that differ outside dim, 0-d tensors, dims out of range, empty 1-d
    tensors skipped (their dtype still promotes)."""
    def program(dev):
        a, b = torch.zeros(2, 3, device=dev), torch.ones(3, 2, device=dev)
        empty = torch.zeros(0, device=dev, dtype=torch.float64)
        scalar = torch.tensor(2.0, device=dev)
        return [lambda: torch.cat([a, b]), lambda: torch.cat([empty, a, b], dim=1),
                lambda: torch.cat([a, b], dim=-1), lambda: torch.cat([a, scalar]),
                lambda: torch.cat([scalar, scalar]), lambda: torch.cat([a, a], dim=2),
                lambda: torch.cat([a, torch.zeros(2, 4, 1, device=dev)]),
                lambda: torch.cat([a, torch.zeros(2, 0, device=dev)]),
                lambda: torch.cat([empty, a.int(), b.T]), lambda: torch.cat([empty, empty], dim=5),
                lambda: torch.cat([torch.zeros(2, 3, 4, device=dev), torch.zeros(2, 5, 3,
                                                                                device=dev)], 1)]

    same_outcomes(program)


def test_broadcast_and_stack_errors_are_torch_s():
    """Shapes that do not broadcast give torch's message (was numpy's
    'operands could not be broadcast together'), naming the last clashing
    dim of the result, operands taken in torch's order (where: condition,
    self, other; masked_fill/masked_select: mask first); copy_ into a
    smaller tensor and stack's size check (crashed on a broadcast in its
    own error path) too."""
    def program(dev):
        def z(*shape):
            return torch.zeros(*shape, device=dev)

        return [lambda: z(2, 3) + z(4), lambda: z(5, 2, 3) * z(4, 1, 3),
                lambda: z(2, 3) + z(4, 3, 2), lambda: torch.addcmul(z(2, 3), z(4), z(3)),
                lambda: torch.where(z(2, 1) > 0, z(3), z(4)),
                lambda: torch.lerp(z(2, 3), z(4), 0.5),
                lambda: z(2, 3).masked_fill(z(4) > 0, 1.0),
                lambda: torch.masked_select(z(2, 3), z(4) > 0),
                lambda: z(3).copy_(z(2, 3)), lambda: z(2, 3).copy_(z(4)),
                lambda: z(3).add_(z(2, 3)), lambda: torch.stack([z(2), z(3)]),
                lambda: torch.stack([z(2), z(2), z(2, 1)]), lambda: z(2, 3) + z(1, 3)]

    same_outcomes(program)


def test_product_dtype_errors_are_torch_s():
    """A float32 product with an operand of another dtype raises torch's
    error of that op (mm/matmul/linear, bmm, mv, dot, conv); addmm and
    F.linear with a bias of another dtype raise (they computed silently),
    as does baddbmm."""
    def program(dev):
        calls = []
        for other in (torch.float64, torch.float16, torch.bfloat16, torch.int64,
                      torch.complex64):
            def z(*shape, dtype=torch.float32):
                return torch.ones(*shape, dtype=dtype, device=dev)

            calls += [lambda o=other: z(2, 3) @ z(3, 2, dtype=o),
                      lambda o=other: z(2, 3, dtype=o) @ z(3, 2),
                      lambda o=other: z(1, 2, 3) @ z(1, 3, 2, dtype=o),
                      lambda o=other: z(2, 3) @ z(3, dtype=o),
                      lambda o=other: z(3) @ z(3, dtype=o),
                      lambda o=other: z(2, 2, 3) @ z(3, 2, dtype=o),
                      lambda o=other: F.linear(z(2, 3), z(4, 3, dtype=o)),
                      lambda o=other: F.linear(z(2, 3), z(4, 3), z(4, dtype=o)),
                      lambda o=other: torch.addmm(z(2, 2, dtype=o), z(2, 3), z(3, 2)),
                      lambda o=other: torch.addmm(z(2, 2), z(2, 3, dtype=o), z(3, 2)),
                      lambda o=other: torch.baddbmm(z(1, 2, 2, dtype=o), z(1, 2, 3), z(1, 3, 2)),
                      lambda o=other: torch.baddbmm(z(1, 2, 2), z(1, 2, 3), z(1, 3, 2, dtype=o)),
                      lambda o=other: F.conv2d(z(1, 1, 3, 3), z(1, 1, 2, 2, dtype=o))]
        return calls

    same_outcomes(program)


def test_conv_and_reflection_pad_shape_errors_are_torch_s():
    """A kernel larger than the padded input (the lazy result was empty),
    input channels that do not fit the weight, a zero stride, and a
    reflection pad as large as its dim (read out of range silently: wrong
    values) raise torch's errors; valid edge cases still compute."""
    def program(dev):
        def z(*shape):
            return torch.arange(float(math.prod(shape)), device=dev).view(shape)

        return [lambda: F.conv2d(z(1, 1, 3, 3), z(1, 1, 5, 5)),
                lambda: F.conv2d(z(1, 1, 3, 3), z(1, 1, 2, 2), dilation=3),
                lambda: F.conv1d(z(1, 1, 3), z(1, 1, 5), padding=1),
                lambda: F.conv2d(z(1, 2, 8, 8), z(4, 3, 3, 3)),
                lambda: F.conv2d(z(1, 4, 3, 3), z(2, 1, 2, 2), groups=2),
                lambda: F.conv_transpose2d(z(1, 2, 3, 3), z(3, 1, 2, 2)),
                lambda: F.conv1d(z(1, 1, 3), z(1, 1, 3), stride=0),
                lambda: F.conv_transpose2d(z(1, 1, 3, 3), z(1, 1, 5, 5)),
                lambda: F.conv2d(z(2, 3, 3), z(4, 2, 2, 2)),
                lambda: F.pad(z(1, 2, 3), (3, 0), mode="reflect"),
                lambda: F.pad(z(1, 2, 3), (0, 3), mode="reflect"),
                lambda: F.pad(z(1, 2, 3), (2, 2), mode="reflect"),
                lambda: F.pad(z(1, 1, 3, 4), (1, 1, 3, 0), mode="reflect"),
                lambda: F.pad(z(1, 1, 3, 4), (4, 1, 0, 0), mode="reflect"),
                lambda: F.pad(z(1, 1, 2, 2, 2), (1, 1, 1, 1, 2, 0), mode="reflect"),
                lambda: F.pad(z(1, 2, 3), (5, 0), mode="replicate")]

    same_outcomes(program)


def test_pooling_argument_errors_are_torch_s():
    """A pool whose output would be empty (avg_pool2d/3d returned an empty
    tensor, max_pool2d/3d raised a core slice error), a zero stride (a
    Python ZeroDivisionError) and a zero dilation (computed) raise torch's
    errors; valid ceil_mode/padding/dilation cases still compute."""
    def program(dev):
        def ones(*shape):
            return torch.ones(*shape, device=dev)

        return [lambda: F.max_pool2d(ones(1, 1, 2, 2), 3),
                lambda: F.max_pool2d(ones(1, 1, 2, 2), 0),
                lambda: F.max_pool2d(ones(1, 1, 2, 2), 2, stride=0),
                lambda: F.avg_pool2d(ones(1, 1, 2, 2), 3),
                lambda: F.avg_pool2d(ones(1, 1, 2, 2), 0),
                lambda: F.avg_pool1d(ones(1, 2, 3), 0), lambda: F.avg_pool1d(ones(1, 2, 3), 4),
                lambda: F.max_pool2d(ones(1, 1, 2, 2), 2, dilation=0),
                lambda: F.max_pool3d(ones(1, 1, 2, 2, 2), 3),
                lambda: F.avg_pool3d(ones(1, 1, 2, 2, 2), 3),
                lambda: F.max_pool2d(ones(1, 2, 5, 4), 3, stride=2, padding=1, ceil_mode=True),
                lambda: F.max_pool2d(ones(3, 7, 7), 3, stride=2, padding=1, ceil_mode=True),
                lambda: F.avg_pool2d(ones(1, 1, 5, 5), 2, stride=2, padding=1, ceil_mode=True),
                lambda: F.max_pool2d(ones(1, 1, 4, 4), 2, dilation=2),
                lambda: F.avg_pool3d(ones(1, 1, 3, 3, 3), 2, padding=1)]

    same_outcomes(program)


def test_permute_and_mask_dtype_errors_are_torch_s():
    """permute with a wrong number of dims or a repeated dim, and masks of
    a non-bool dtype, word their errors as torch does."""
    def program(dev):
        x = torch.zeros(2, 3, device=dev)
        calls = [lambda: x.permute(0), lambda: x.permute(0, 0), lambda: x.permute(0, 5, 1),
                 lambda: x.permute(0, 2), lambda: x.permute(-1, 0)]
        for dtype in (torch.float32, torch.float64, torch.uint8, torch.int64, torch.float16):
            mask = torch.zeros(2, 3, dtype=dtype, device=dev)
            calls += [lambda m=mask: x.masked_fill(m, 1.0),
                      lambda m=mask: x.masked_scatter(m, torch.ones(6, device=dev))]
        return calls

    same_outcomes(program)


def test_static_argument_errors_torch_raises_are_raised():
    """Arguments torch rejects before computing: flip with a repeated dim
    and roll with shifts and dims of different lengths (both computed
    silently), F.embedding with a weight that is not 2-d (computed),
    grid_sample with a grid of the wrong shape (PyTorch decomposition's
    AssertionError or a reshape error), factories with a negative size
    (an integer overflow error), and an indexed write whose value does
    not fit (numpy's wording)."""
    def program(dev):
        x = torch.arange(6.0, device=dev).view(2, 3)
        idx = torch.tensor([0], device=dev)
        img = torch.ones(1, 1, 4, 4, device=dev)
        return [lambda: x.flip(0, -2), lambda: x.flip(1, 0), lambda: x.roll((1, 2), (0,)),
                lambda: x.roll(1, (0, 1)), lambda: x.roll((1, 2)), lambda: x.roll(1),
                lambda: x.roll((1, -1), (0, 1)),
                lambda: F.embedding(idx, torch.zeros(3, device=dev)),
                lambda: F.embedding(idx, torch.zeros(3, 2, 2, device=dev)),
                lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 3, device=dev),
                                      align_corners=False),
                lambda: F.grid_sample(torch.ones(2, 1, 4, 4, device=dev),
                                      torch.zeros(1, 2, 2, 2, device=dev), align_corners=False),
                lambda: torch.grid_sampler_2d(img, torch.zeros(1, 2, 2, device=dev), 0, 0, False),
                lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 2, device=dev),
                                      align_corners=True),
                lambda: torch.full((2, -1), 1.0, device=dev),
                lambda: torch.ones((3, -1), device=dev),
                lambda: torch.empty(2, -3, device=dev), lambda: torch.rand(-1, device=dev),
                lambda: x.index_put((idx,), torch.ones(3, 3, device=dev)),
                lambda: x.index_put((torch.tensor([True, False], device=dev),),
                                    torch.ones(2, 3, device=dev)),
                lambda: x.index_put((idx,), torch.ones(1, 1, 3, device=dev))]

    same_outcomes(program)


def test_layer_norm_and_nll_argument_errors_are_torch_s():
    """layer_norm with a weight or bias not of normalized_shape (a core
    broadcast error), and nll_loss/cross_entropy with a weight of the wrong
    size, a 2-d target or a batch size mismatch, in torch's order and
    wording; the target-dtype error still comes where torch puts it."""
    def program(dev):
        x = torch.ones(2, 3, device=dev)

        def long(*shape):
            return torch.zeros(*shape, dtype=torch.long, device=dev)

        nll = torch.ops.aten.nll_loss_forward
        return [lambda: F.layer_norm(x, (3,), weight=torch.ones(4, device=dev)),
                lambda: F.layer_norm(x, (3,), bias=torch.ones(4, device=dev)),
                lambda: F.layer_norm(x, (3,), torch.ones(3, device=dev), torch.ones(2, device=dev)),
                lambda: F.layer_norm(x, (4,)), lambda: F.layer_norm(x, (2, 3, 4)),
                lambda: F.nll_loss(x, long(2), weight=torch.ones(5, device=dev)),
                lambda: F.cross_entropy(x, long(2), weight=torch.ones(2, device=dev)),
                lambda: F.cross_entropy(x, torch.zeros(2, 2, device=dev)),
                lambda: nll(torch.ones(2, 3, 4, device=dev), long(2), None, 1, -100),
                lambda: nll(x, long(2, 2), None, 1, -100), lambda: nll(x, long(3), None, 1, -100),
                lambda: nll(x, torch.zeros(3, device=dev), torch.ones(5, device=dev), 1, -100),
                lambda: nll(torch.ones(3, device=dev), long(), torch.ones(2, device=dev), 1, -100),
                lambda: nll(x, long(2), torch.ones(1, 3, device=dev), 1, -100),
                lambda: F.nll_loss(torch.ones(2, 3, 4, 4, device=dev), long(2, 4, 4),
                                   weight=torch.ones(5, device=dev))]

    same_outcomes(program)
