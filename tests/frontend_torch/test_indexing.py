"""Indexing, gather/scatter, put and masked writes on the lazy device: index
dtypes and sizes, duplicates, accumulation, masked_scatter. Each check
compares with eager torch on the CPU (values, dtypes, shapes, or the
exception type and text)."""


from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from .conftest import DEV
from .lazy_vs_eager import fallbacks, same_on_both, same_outcomes


@pytest.mark.parametrize("call", [
    lambda x, t: F.cross_entropy(x, t.float()),     # float class indices
    lambda x, t: F.nll_loss(x.log_softmax(1), t.float()),
    lambda x, t: x.gather(1, t[:, None].float()),
    lambda x, t: x.scatter(1, t[:, None].float(), 1.0),
])
def test_float_indices_raise_as_in_torch(call):
    x, t = torch.randn(3, 4), torch.tensor([0, 3, 1])
    with pytest.raises(RuntimeError):
        call(x, t)
    with pytest.raises(RuntimeError):
        call(x.to(DEV), t.to(DEV))


def test_masked_scatter_fills_selected_slots_in_order_and_back_propagates():
    """masked_scatter (and its backward) ran through the eager CPU fallback."""
    def program(dev):
        x = torch.randn(4, 5).to(dev).requires_grad_()
        src = torch.randn(3, 7).to(dev).requires_grad_()
        mask = (torch.randn(4, 5) > 0).to(dev)
        y = x.masked_scatter(mask, src)
        row = torch.zeros(4, 5, device=dev).masked_scatter(mask[0], src)  # mask broadcast
        z = x.detach().clone()
        z[1:].masked_scatter_(mask[1:], src.detach() * 2)  # in place, through a view
        ints = torch.zeros(2, 4, 5, dtype=torch.long, device=dev).masked_scatter(
            mask, torch.arange(40).to(dev))
        (y * torch.arange(20.0).reshape(4, 5).to(dev)).sum().backward()
        (row.sum() * 3).backward()
        return {"y": y, "row": row, "z": z, "ints": ints, "x_grad": x.grad, "src_grad": src.grad}

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before


@pytest.mark.parametrize("mask,source", [
    (torch.ones(2, 3), torch.ones(6)),                                     # not bool
    (torch.ones(2, 3, dtype=torch.bool), torch.ones(6, dtype=torch.float64)),  # dtype
])
def test_masked_scatter_rejects_what_torch_rejects(mask, source):
    from .conftest import DEV

    for dev in (torch.device("cpu"), DEV):
        with pytest.raises(RuntimeError, match="masked_scatter"):
            torch.zeros(2, 3).to(dev).masked_scatter(mask.to(dev), source.to(dev))


@pytest.mark.parametrize("call", [
    lambda x, i: x.gather(1, i),                                  # index taller than self
    lambda x, i: x.scatter(1, i, torch.ones(3, 3, device=x.device)),
    lambda x, i: x.scatter(1, i, 2.0),
    lambda x, i: x.scatter_add(1, i[:2], torch.ones(1, 3, device=x.device)),  # src too short
    lambda x, i: x.scatter_reduce(1, i, torch.ones(3, 3, device=x.device), "amax"),
])
def test_gather_and_scatter_check_index_sizes_as_torch(call):
    """An index larger than self (apart from dim) or than src was gathered
    or scattered silently (or failed with a core SLICE error)."""
    from .conftest import DEV

    messages = []
    for dev in (torch.device("cpu"), DEV):
        x, i = torch.ones(2, 3).to(dev), torch.zeros(3, 3, dtype=torch.long).to(dev)
        with pytest.raises(RuntimeError) as info:
            call(x, i)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_put_is_lowered_with_torchs_checks():
    """Tensor.put / put_ (writing into the flattened tensor, e.g. a sparse
    update of a parameter) ran as an eager fallback; its lowering must wrap
    negative indices, sum repeated indices with accumulate=True, give its
    gradients, and raise torch's errors (index dtype, source dtype, sizes,
    an out-of-range CPU index)."""
    def program(dev):
        x = torch.randn(2, 3).to(dev).requires_grad_()
        s = torch.randn(3).to(dev).requires_grad_()
        y = x.put(torch.tensor([4, 0, -2]).to(dev), s * 2, accumulate=True)
        (y * torch.arange(6.0).view(2, 3).to(dev)).sum().backward()
        z = torch.zeros(2, 3).to(dev)
        return [y, x.grad, s.grad, z.put(torch.tensor([[0, -1]]).to(dev), torch.ones(2).to(dev)),
                z.clone().put_(torch.tensor([[5, 0], [-1, 1]]).to(dev), torch.arange(4.0).to(dev),
                               accumulate=True),
                z.t().put(torch.tensor([1, 2]).to(dev), torch.tensor([7.0, 8]).to(dev)),
                z.long().put(torch.tensor([1, 1]), torch.tensor([2, 3]).to(dev), accumulate=True),
                torch.tensor(5.0).to(dev).put(torch.tensor([0, -1]).to(dev),
                                              torch.tensor([1.0, 2]).to(dev), accumulate=True)]

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before

    def errors(dev):
        z = torch.zeros(2, 3).to(dev)
        one, two = torch.ones(1).to(dev), torch.ones(2).to(dev)
        return [lambda: z.put(torch.tensor([0], dtype=torch.int32).to(dev), one),
                lambda: z.put(torch.tensor([0]).to(dev), one.double()),
                lambda: z.put(torch.tensor([0, 1, 2]).to(dev), two),
                lambda: z.put(torch.tensor([0, 6]), two),
                lambda: torch.zeros(0).to(dev).put(torch.tensor([0]).to(dev), one)]

    same_outcomes(errors)


def test_accumulating_writes_into_bool_tensors_combine_as_or():
    """index_put_(accumulate=True), index_add, scatter_add, scatter_reduce
    ("sum"/"prod") and put(accumulate=True) into a bool tensor (marking
    visited nodes, coverage masks) crashed when the graph ran (XLA has no
    add or multiply for bools: "add does not accept dtype bool"), or raised
    at once for a single index; torch adds bools as OR and multiplies them
    as AND. index_reduce of bools must raise as torch's."""
    def program(dev):
        seen = torch.zeros(2, 3, dtype=torch.bool).to(dev)
        flags = torch.tensor([True, False, True]).to(dev)
        rows, cols = torch.tensor([1, 1, 0]).to(dev), torch.tensor([2, 2, 1]).to(dev)
        return [
            seen.index_put((rows, cols), flags, accumulate=True),
            seen.index_put((torch.tensor(1).to(dev), torch.tensor(2).to(dev)),
                           torch.tensor(True).to(dev), accumulate=True),
            seen.index_put((torch.tensor(1).to(dev),), torch.tensor(True).to(dev), accumulate=True),
            seen.index_add(1, torch.tensor([0, 0]).to(dev),
                           torch.ones(2, 2, dtype=torch.bool).to(dev)),
            seen[0].scatter_add(0, rows, flags),
            seen[0].scatter_reduce(0, rows, flags, "sum", include_self=False),
            torch.ones(3, dtype=torch.bool).to(dev).scatter_reduce(0, rows, flags, "prod"),
            seen.scatter(1, torch.tensor([[0, 0]]).to(dev), True, reduce="add"),
            seen.put(torch.tensor([4, 4, 0]).to(dev), flags, accumulate=True),
        ]

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before

    def errors(dev):
        index = torch.tensor([0, 0]).to(dev)
        return [lambda: torch.ones(3, dtype=torch.bool).to(dev).index_reduce(
                    0, index, torch.tensor([True, False]).to(dev), "prod"),
                lambda: torch.ones(3, dtype=torch.complex64).to(dev).index_reduce(
                    0, index, torch.ones(2, dtype=torch.complex64).to(dev), "amax")]

    same_outcomes(errors)


def test_int16_and_int8_index_tensors_raise_as_torch():
    """x[int16 tensor] and index_put_ with int8 indices worked on the lazy
    device where torch raises IndexError (only long, int, byte and bool
    tensors index); now the same IndexError. int32 indices still work."""
    def program(dev):
        x = torch.arange(12.).reshape(3, 4).to(dev)
        calls = [lambda t=t: x[torch.tensor([2, 0]).to(t).to(dev)]
                 for t in (torch.int16, torch.int8, torch.int32, torch.int64)]
        calls += [lambda t=t: x.clone().index_put_((torch.tensor([1]).to(t).to(dev),),
                                                   torch.tensor(1.).to(dev))
                  for t in (torch.int16, torch.int8, torch.int32)]
        calls.append(lambda: x[:, torch.tensor([3, 1]).int().to(dev)])
        return calls

    same_outcomes(program)


def test_indexing_writes_with_masks_duplicates_and_scatter_reduce():
    def program(dev):
        x = torch.arange(12.).reshape(3, 4).to(dev)
        x[x > 6] = -1.0
        x[torch.tensor([0, 2]).to(dev), 1] += 5
        y = torch.zeros(5).to(dev)
        y.index_put_((torch.tensor([1, 1, 3]).to(dev),), torch.tensor([1., 2., 3.]).to(dev),
                     accumulate=True)
        z = torch.ones(2, 4).to(dev)
        src = torch.arange(8.).reshape(2, 4).to(dev)
        idx = torch.tensor([[0, 1, 0, 1], [2, 2, 3, 3]]).to(dev)
        sr = [z.scatter_reduce(1, idx, src, r, include_self=inc)
              for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)]
        ir = torch.zeros(3, 2).to(dev).index_reduce_(
            0, torch.tensor([0, 0, 2]).to(dev), torch.arange(6.).reshape(3, 2).to(dev), "amax",
            include_self=False)
        w = torch.arange(10).to(dev)
        w[w % 3 == 0] *= -1
        cl = torch.clamp(torch.randn(6).to(dev), min=torch.zeros(6).to(dev) - 0.5,
                         max=torch.tensor(0.5).to(dev))
        return [x, y, *sr, ir, w, cl, torch.where(w > 2, w, -w), w.masked_fill(w < 0, 100)]

    same_on_both(program)


def test_bool_mask_bookkeeping_in_place():
    def program(dev):
        seen = torch.zeros(8, dtype=torch.bool, device=dev)
        done = torch.zeros(8, dtype=torch.bool).to(dev)
        steps = torch.zeros(8, dtype=torch.long, device=dev)
        for t in range(4):
            hit = torch.tensor([t % 2 == 0, True, False, t > 1, t == 3, False, True, t < 2]).to(dev)
            seen |= hit
            done ^= hit & ~seen.logical_not()
            steps += (~done).long()
            steps[done] -= 1
        m = seen.clone()
        m.logical_not_()
        m.logical_and_(done)
        k = seen.float()
        k.masked_fill_(done, 2.0)
        return [seen, done, steps, m, k, seen.sum(), (seen & done).any(), seen.int().argmax(),
                torch.logical_xor(seen, done), seen.to(torch.uint8) * 200, seen.cumsum(0),
                seen.nonzero(), torch.count_nonzero(done), seen.all(), done.float().mean(),
                seen.eq(done).sum(), seen * done, seen + done, seen.max(), seen.long().sum()]

    same_on_both(program)
