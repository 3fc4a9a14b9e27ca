"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (third batch), each compared with eager torch on the CPU (values,
dtype, shape; see ``lazy_vs_eager.py``)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .lazy_vs_eager import fallbacks, same_on_both


@pytest.mark.parametrize("mode,padding_mode", [("bilinear", "zeros"), ("bilinear", "reflection"),
                                               # ~9 s on a CI worker, and CI's test step is at its
                                               # budget: make test-slow runs bicubic
                                               pytest.param("bicubic", "border",
                                                            marks=pytest.mark.slow),
                                               ("nearest", "zeros")])
def test_spatial_transformer_trains_without_grid_sampler_fallback(mode, padding_mode):
    """grid_sampler_2d_backward ran eagerly on the CPU (a fallback per step)."""
    def program(dev):
        loc = nn.Linear(3 * 5 * 7, 6).to(dev)
        opt = torch.optim.SGD(loc.parameters(), lr=0.1)
        x = torch.randn(2, 3, 5, 7).to(dev).requires_grad_()
        for _ in range(2):
            opt.zero_grad()
            theta = loc(x.flatten(1)).view(2, 2, 3) + torch.eye(2, 3).to(dev)
            grid = F.affine_grid(theta, (2, 3, 4, 6), align_corners=False)
            y = F.grid_sample(x, grid * 1.2, mode=mode, padding_mode=padding_mode,
                              align_corners=False)
            y.pow(2).mean().backward()
            opt.step()
        return {"y": y, "x_grad": x.grad, "w": loc.weight, "b_grad": loc.bias.grad}

    before = fallbacks()
    # theta is a 105-term float32 dot product (rounding ~1e-6, and it differs
    # between CPUs' kernels); grid_sample's backward is discontinuous where a
    # sample crosses a pixel edge (its bilinear weights are piecewise linear,
    # and reflection folds coordinates onto the border), so such a rounding
    # can flip a few samples' cells, and the SGD step (lr 0.1) turns that jump
    # of the gradient into ~1e-4..1e-3 on a few elements of the weights and of y
    same_on_both(program, rtol=1e-3, atol=1e-3)
    assert fallbacks() == before


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


def test_gaussian_process_solve_det_and_lu_are_lowered_with_their_gradients():
    """linalg.solve, det, slogdet, lu_factor, lu_solve, lu and lu_unpack (and
    so their backwards, which call linalg_lu_solve and lu_unpack) ran through
    the eager CPU fallback."""
    def program(dev):
        out = {}
        for dtype in (torch.float64, torch.complex64):
            x = torch.randn(6, 2, dtype=torch.float64)
            kernel = torch.exp(-torch.cdist(x, x) ** 2) + 0.5 * torch.eye(6)
            base = kernel.to(dtype).to(dev)
            for layout, a in (("contiguous", base.clone()), ("transposed", base.clone().mT)):
                a.requires_grad_()
                y = torch.randn(6, 2, dtype=dtype).to(dev).requires_grad_()
                alpha = torch.linalg.solve(a, y)
                right = torch.linalg.solve(a, y.mT, left=False)
                vec = torch.linalg.solve(a, y[:, 0])
                sign, logdet = torch.linalg.slogdet(a)
                lu, pivots = torch.linalg.lu_factor(a)
                via_lu = torch.linalg.lu_solve(lu, pivots, y, adjoint=True)
                p, low, up = torch.linalg.lu(a)
                nll = ((y.conj() * alpha).sum().real + logdet + torch.linalg.det(a).abs()
                       + right.abs().sum() + vec.abs().sum() + via_lu.abs().sum()
                       + low.abs().sum() + up.abs().sum())
                nll.backward()
                out[f"{dtype}-{layout}"] = {
                    "alpha": alpha, "right": right, "vec": vec, "sign": sign, "logdet": logdet,
                    "lu": lu, "pivots": pivots, "via_lu": via_lu, "p": p, "a_grad": a.grad,
                    "y_grad": y.grad}
        return out

    before = fallbacks()
    same_on_both(program, rtol=1e-4, atol=1e-5)
    assert fallbacks() == before


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


@pytest.mark.parametrize("call", [
    lambda d: torch.randn(2, dtype=torch.long, device=d),
    lambda d: torch.zeros(2, dtype=torch.bool, device=d).uniform_(),
    lambda d: torch.zeros(2, dtype=torch.uint8, device=d).exponential_(),
    lambda d: torch.tensor([1, 2], device=d).softmax(0),
])
def test_sampling_and_softmax_of_integers_raise_torch_errors(call):
    """normal_/uniform_/exponential_ filled integer tensors (with zeros or
    ones); softmax raised RuntimeError naming the dtype as 'torch.int64'."""
    _assert_same_runtime_error(call)


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


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialiased_resize_is_lowered_with_its_gradient(mode):
    """F.interpolate(..., antialias=True) (torchvision's Resize default) and
    its backward ran through the eager CPU fallback."""
    def program(dev):
        x = torch.randn(2, 3, 13, 17).to(dev).requires_grad_()
        outs = [F.interpolate(x, size=size, mode=mode, align_corners=corners, antialias=True)
                for size in ((5, 6), (20, 9), (1, 1)) for corners in (False, True)]
        outs.append(F.interpolate(x, scale_factor=(0.5, 1.7), mode=mode, antialias=True))
        outs.append(F.interpolate(x.detach().double(), size=(4, 4), mode=mode, antialias=True))
        weights = [torch.linspace(-1, 1, o.numel()).reshape(o.shape).to(dev) for o in outs[:-1]]
        sum((o * w).sum() for o, w in zip(outs[:-1], weights, strict=True)).backward()
        return {"outs": outs, "grad": x.grad}

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before
    from .conftest import DEV

    with pytest.raises(NotImplementedError, match="compute_index_ranges_weights"):
        F.interpolate(torch.ones(1, 1, 4, 4).half().to(DEV), size=(2, 2), mode=mode,
                      antialias=True)


def test_ocr_step_with_ctc_loss_is_lowered():
    """F.ctc_loss (_ctc_loss and its backward) ran through the eager CPU
    fallback on every step of a speech / OCR program."""
    def program(dev):
        head = nn.Linear(6, 5).to(dev)
        opt = torch.optim.Adam(head.parameters(), lr=1e-2)
        feats = torch.randn(8, 3, 6).to(dev)  # (T, N, features)
        targets = torch.tensor([[1, 2, 2, 3], [4, 1, 0, 0], [2, 2, 2, 0]]).to(dev)
        in_lens, tgt_lens = torch.tensor([8, 6, 5]).to(dev), torch.tensor([4, 2, 3]).to(dev)
        opt.zero_grad()
        log_probs = head(feats).log_softmax(2)
        loss = F.ctc_loss(log_probs, targets, in_lens, tgt_lens, zero_infinity=True)
        loss.backward()
        opt.step()
        leaf = log_probs.detach().requires_grad_()  # torch's gradient of log_probs itself
        flat = torch.tensor([1, 2, 2, 3, 4, 1, 2, 2, 2]).to(dev)
        per = F.ctc_loss(leaf, flat, (8, 6, 5), (4, 2, 3), reduction="none")
        short = F.ctc_loss(leaf, targets, torch.tensor([3, 6, 5]).to(dev), tgt_lens,
                           reduction="sum", zero_infinity=True)  # an impossible alignment
        (per.sum() + short).backward()
        return {"loss": loss, "w": head.weight, "per": per, "short": short,
                "leaf_grad": leaf.grad}

    before = fallbacks()
    same_on_both(program, rtol=1e-4, atol=1e-5)
    assert fallbacks() == before


@pytest.mark.parametrize("call", [
    lambda d: torch.lerp(torch.ones(2, device=d), torch.ones(2, dtype=torch.float64, device=d),
                         0.5),                                   # mixed dtypes: no promotion
    lambda d: torch.lerp(torch.ones(2, device=d), torch.ones(2, device=d),
                         torch.ones(2, dtype=torch.float64, device=d)),
    lambda d: torch.ones(2, dtype=torch.long, device=d).lerp(
        torch.ones(2, dtype=torch.long, device=d), 0.5),          # integers
    lambda d: torch.maximum(torch.ones(2, dtype=torch.complex64, device=d),
                            torch.ones(2, device=d)),              # no complex kernel
    lambda d: torch.hypot(torch.ones(2, dtype=torch.complex64, device=d),
                          torch.ones(2, dtype=torch.complex64, device=d)),
    lambda d: torch.ones(2, dtype=torch.complex64, device=d) < 1,
    lambda d: torch.ones(2, dtype=torch.bool, device=d).abs(),    # no bool kernel
    lambda d: torch.ones(2, dtype=torch.int64, device=d).frac(),  # no integer kernel
])
def test_lerp_dtypes_and_complex_only_ops_raise_as_torch(call):
    """lerp promoted mixed or integer dtypes (torch raises: an EMA in float64
    against float32 weights went silently float64); maximum, hypot,
    copysign and comparisons of complex tensors returned values."""
    _assert_same_runtime_error(call)


def test_complex32_results_raise_a_clear_error():
    """float16 with a complex scalar tensor (torch: complex32) raised KeyError
    (which ``+`` turned into "unsupported operand type(s)")."""
    from .conftest import DEV

    with pytest.raises(RuntimeError, match="does not support dtype torch.complex32"):
        torch.ones(2, dtype=torch.float16).to(DEV) + torch.tensor(2j).to(DEV)


def test_angle_of_integers_and_digamma_at_zero_follow_torch():
    """angle of integer and bool tensors kept their dtype (torch: float32);
    digamma(+-0) gave NaN (torch: -inf at +0, +inf at -0), also through
    polygamma(0, x) and the Gamma distribution's entropy."""
    def program(dev):
        ints = torch.tensor([0, -1, 2]).to(dev)
        x = torch.tensor([0.0, -0.0, -2.5, 1.0, 3.0]).to(dev)
        return {"angle_int": ints.angle(), "angle_bool": torch.tensor([True]).to(dev).angle(),
                "angle_float": x.angle(), "angle_complex": (x + 1j).angle(),
                "digamma": x.digamma(), "digamma_int": ints.digamma(),
                "polygamma0": torch.polygamma(0, x), "half": x.half().digamma()}

    same_on_both(program)


def _assert_same_runtime_error(call):
    """``call(device)`` raises the same RuntimeError (type and message) on the
    CPU and on the lazy device."""
    from .conftest import DEV

    errors = []
    for dev in (torch.device("cpu"), DEV):
        with pytest.raises(RuntimeError) as info:
            call(dev)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_lazy_modules_moved_to_the_lazy_device_initialize_at_the_first_forward():
    """nn.LazyLinear / LazyConv2d / LazyBatchNorm2d moved with .to(lazy) failed
    at the first forward ("in_features from self.weight: 0"): torch rewrapped
    the moved UninitializedParameter as an empty Parameter. They now stay
    uninitialized, initialize from torch's CPU generator as eager ones do,
    and move to the lazy device before the forward."""
    from .conftest import DEV

    def make():
        return torch.nn.Sequential(
            torch.nn.LazyConv2d(4, 3), torch.nn.LazyBatchNorm2d(), torch.nn.ReLU(),
            torch.nn.Flatten(), torch.nn.LazyLinear(2)).double()

    x = torch.randn(2, 3, 6, 6, dtype=torch.float64)
    eager, lazy = make(), make().to(DEV)
    assert [type(p) for p in lazy.parameters()] == [torch.nn.UninitializedParameter] * 6
    outs = []
    for model, inp in ((eager, x), (lazy, x.to(DEV))):
        torch.manual_seed(0)  # the parameters are drawn at the first forward
        out = model(inp)
        out.square().sum().backward()
        outs.append((out, [p.grad for p in model.parameters()], list(model.buffers())))
    (out_e, grads_e, bufs_e), (out_l, grads_l, bufs_l) = outs
    assert out_l.device == DEV and out_l.dtype == out_e.dtype == torch.float64
    torch.testing.assert_close(out_l.cpu(), out_e)
    assert all(g.device == DEV for g in grads_l) and all(b.device == DEV for b in bufs_l)
    for lazy_t, eager_t in zip(grads_l + bufs_l, grads_e + bufs_e, strict=True):
        torch.testing.assert_close(lazy_t.cpu(), eager_t)
    assert [n for n, _ in lazy.named_parameters()] == [n for n, _ in eager.named_parameters()]
