"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (eighth batch: OpInfo in dtypes other than float32, and user
programs), each compared with eager torch on the CPU (values, dtype, shape;
see ``lazy_vs_eager.py``)."""

from __future__ import annotations

import io
import math
import warnings

import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import same_on_both, same_outcomes


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


def test_clip_grad_norm_and_half_bfloat16_parameters():
    def program(dev):
        out = []
        for dtype in (torch.float16, torch.bfloat16):
            torch.manual_seed(1)
            model = nn.Sequential(nn.Linear(5, 7), nn.GELU(), nn.Linear(7, 2)).to(dev).to(dtype)
            opt = torch.optim.SGD(model.parameters(), lr=0.05)
            x = torch.randn(4, 5).to(dev).to(dtype)
            for _ in range(2):
                loss = model(x).float().pow(2).mean()
                opt.zero_grad()
                loss.backward()
                norm = nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                nn.utils.clip_grad_value_(model.parameters(), 0.1)
                opt.step()
                out += [loss.detach(), norm]
            out += [p.detach() for p in model.parameters()]
        return out

    same_on_both(program, rtol=2e-2, atol=2e-2)


def test_state_dict_round_trip_through_torch_save_between_devices():
    def program(dev):
        model = nn.Sequential(nn.Linear(4, 6, bias=False), nn.BatchNorm1d(6),
                              nn.Linear(6, 1)).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        x, y = torch.randn(8, 4).to(dev), torch.randn(8, 1).to(dev)

        def step():
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss.detach()

        losses = [step(), step()]
        buf = io.BytesIO()
        torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, buf)
        buf.seek(0)
        state = torch.load(buf, map_location="cpu")
        cpu_model = nn.Sequential(nn.Linear(4, 6, bias=False), nn.BatchNorm1d(6),
                                  nn.Linear(6, 1))
        cpu_model.load_state_dict(state["model"])
        model2 = cpu_model.to(dev)
        opt2 = torch.optim.Adam(model2.parameters(), lr=0.01)
        opt2.load_state_dict(state["opt"])
        model, opt = model2, opt2
        losses += [step(), step()]
        return [losses, {k: v for k, v in model.state_dict().items()},
                state["model"]["1.num_batches_tracked"].device.type]

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_scaled_dot_product_attention_causal_and_masks():
    def program(dev):
        q, k, v = (torch.randn(2, 3, 5, 8).to(dev) for _ in range(3))
        bool_mask = (torch.rand(5, 5) > 0.3).to(dev)
        bool_mask[:, 0] = True
        float_mask = torch.randn(2, 1, 5, 5).to(dev)
        return [F.scaled_dot_product_attention(q, k, v, is_causal=True),
                F.scaled_dot_product_attention(q, k, v, attn_mask=bool_mask),
                F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask, scale=0.3),
                F.scaled_dot_product_attention(q, k[:, :, :4], v[:, :, :4], is_causal=True),
                F.scaled_dot_product_attention(q.double(), k.double(), v.double(),
                                               is_causal=True)]

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_multihead_attention_batch_first_padding_mask_and_weights():
    def program(dev):
        mha = nn.MultiheadAttention(16, 4, batch_first=True, dropout=0.0).to(dev)
        x = torch.randn(3, 6, 16).to(dev)
        pad = torch.tensor([[False] * 6, [False] * 4 + [True] * 2,
                            [False] * 2 + [True] * 4]).to(dev)
        out, w = mha(x, x, x, key_padding_mask=pad, need_weights=True)
        out2, w2 = mha(x, x, x, key_padding_mask=pad, need_weights=True,
                       average_attn_weights=False)
        mha.eval()
        with torch.no_grad():
            out3, w3 = mha(x, x, x, key_padding_mask=pad, need_weights=False)
        (out.sum() + out2.pow(2).sum()).backward()
        return [out, w, out2, w2, out3, w3, mha.in_proj_weight.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_integer_bookkeeping_confusion_matrix_floor_div_remainder_shifts():
    def program(dev):
        logits = torch.randn(40, 5).to(dev)
        target = torch.randint(0, 5, (40,)).to(dev)
        pred = logits.argmax(1)
        acc = (pred == target).float().mean()
        conf = torch.zeros(5, 5, dtype=torch.long, device=dev)
        conf.index_put_((target, pred), torch.ones(40, dtype=torch.long, device=dev),
                        accumulate=True)
        conf2 = torch.zeros(25, dtype=torch.long, device=dev).scatter_add_(
            0, target * 5 + pred, torch.ones_like(target)).view(5, 5)
        a = torch.tensor([-7, -6, -1, 0, 1, 5, 7, -8]).to(dev)
        b = torch.tensor([2, -4, 3, 5, -3, 2, -2, 3]).to(dev)
        return [acc, conf, conf2,
                torch.div(a, b, rounding_mode="floor"), torch.div(a, b, rounding_mode="trunc"),
                a // b, a % b, a % 3, -7 % b, torch.fmod(a, b), torch.remainder(a, -3),
                a << 2, a >> 1, a.to(torch.int32) >> torch.tensor(2, dtype=torch.int32),
                (a & 6) | (b ^ 1), ~a, a // 2.5, torch.div(a, 2), a.int() // b.short(),
                a.to(torch.uint8) >> 1, a.to(torch.int8) * 40]

    same_on_both(program)


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


def test_where_with_python_scalars_of_other_dtypes():
    def program(dev):
        x = torch.randn(5).to(dev)
        i = torch.arange(5).to(dev)
        c = x > 0
        h = x.half()
        return [torch.where(c, x, 0), torch.where(c, 1, 0), torch.where(c, 1.5, 0),
                torch.where(c, i, 2.5), torch.where(c, i, True), torch.where(c, True, False),
                torch.where(c, h, 2.0), torch.where(c, i.int(), 3), torch.where(c, 2j, x),
                torch.where(c, x.double(), 1), torch.where(c, i.to(torch.uint8), -1),
                torch.where(c, h, x)]

    same_on_both(program)


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


def test_dropout_masks_are_reproducible_across_two_lazy_runs():
    def run():
        torch.manual_seed(123)
        x = torch.ones(64, 32).to(DEV)
        a = F.dropout(x, 0.5)
        b = nn.Dropout(0.3)(x)
        g = torch.Generator().manual_seed(5)
        c = torch.rand(8, generator=g).to(DEV)
        return a.cpu(), b.cpu(), c.cpu(), torch.randn(3).to(DEV).cpu()

    first, second = run(), run()
    for a, b in zip(first, second, strict=True):
        assert torch.equal(a, b)


def test_item_tolist_bool_in_training_loop_control_flow():
    def program(dev):
        model = nn.Linear(3, 1).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(16, 3).to(dev), torch.randn(16, 1).to(dev)
        best, history, steps = float("inf"), [], 0
        while steps < 20:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            if bool(torch.isfinite(loss)) and loss.item() < best:
                best = loss.item()
            if (loss < 0.01) or steps > 6:
                break
            history.append(model.weight.grad.abs().max().tolist())
            opt.step()
            steps += 1
        w = model.weight.detach()
        return [best, history, steps, w.tolist(), int(w.argmax()), float(w.sum()),
                w.shape[1] == 3, (w > 0).any().item(), w.numel()]

    same_on_both(program)


def test_one_hot_label_smoothing_ignore_index_and_ctc():
    def program(dev):
        logits = torch.randn(6, 5).to(dev).requires_grad_()
        target = torch.tensor([0, 4, -100, 2, 1, -100]).to(dev)
        l1 = nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=-100)(logits, target)
        l2 = nn.CrossEntropyLoss(label_smoothing=0.2, reduction="none", ignore_index=4)(
            logits, target.clamp(min=0))
        l3 = F.cross_entropy(logits, F.one_hot(target.clamp(min=0), 5).float(),
                             label_smoothing=0.1)
        oh = F.one_hot(target.clamp(min=0))
        (l1 + l2.sum() + l3).backward()
        lp = torch.randn(7, 2, 4).log_softmax(2).to(dev)
        tg = torch.tensor([[1, 2, 2], [3, 1, 0]]).to(dev)
        ctc = nn.CTCLoss(blank=0, zero_infinity=True)(lp, tg, [7, 6], [3, 2])
        return [l1, l2, l3, oh, logits.grad, ctc]

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_parameter_reassignment_requires_grad_toggles_and_detach_():
    def program(dev):
        model = nn.Linear(3, 2).to(dev)
        model.weight = nn.Parameter(torch.ones(2, 3).to(dev))
        model.bias.requires_grad_(False)
        x = torch.randn(4, 3).to(dev)
        model(x).sum().backward()
        g1 = model.weight.grad.clone()
        bias_grad = model.bias.grad
        model.bias.requires_grad_(True)
        h = model(x)
        h2 = h * 2
        h2.detach_()
        model.weight.requires_grad_(False)
        model(x).pow(2).sum().backward()
        return [g1, bias_grad is None, model.bias.grad, h2, h2.requires_grad,
                model.weight.requires_grad,
                isinstance(model.weight, nn.Parameter)]

    same_on_both(program)


def test_integer_errors_match_torch():
    same_outcomes(lambda dev: [
        lambda: torch.tensor([True]).to(dev) - torch.tensor([True]).to(dev),
        lambda: -torch.tensor([True]).to(dev),
        lambda: torch.tensor([1.5]).to(dev) << 1,
    ])


def test_torch_load_map_location_moves_lazy_tensors_off_the_lazy_device():
    """torch.load(buf, map_location='cpu') of a lazy state dict gave lazy
    tensors (the pickled lazy tensor always came back on the lazy device);
    now map_location (a string, device, dict from 'lazy:0', or a callable
    given the CPU storage and 'lazy:0') applies, as to any tensor, and
    without it they come back lazy."""
    buf = io.BytesIO()
    torch.save({"w": torch.arange(3.).to(DEV), "p": nn.Parameter(torch.ones(2).to(DEV))}, buf)
    for where, device_type in [("cpu", "cpu"), (torch.device("cpu"), "cpu"),
                               ({"lazy:0": "cpu"}, "cpu"), (None, "lazy"), ("lazy", "lazy"),
                               (lambda storage, loc: storage, "cpu"),
                               (lambda storage, loc: None, "lazy")]:
        buf.seek(0)
        state = torch.load(buf, map_location=where)
        assert {v.device.type for v in state.values()} == {device_type}
        assert torch.equal(state["w"].cpu(), torch.arange(3.))
        assert isinstance(state["p"], nn.Parameter) and state["p"].requires_grad


def test_integer_arange_and_linspace_with_float_bounds_follow_torchs_cpu_kernel():
    """arange(0, 3.1, dtype=int64) had 4 elements on the lazy device (numpy's
    length rule on the float bounds; torch's int64 kernel truncates the
    bounds first: 3), and linspace(4.3, 0, 50, dtype=int64) was off by one
    in 15 places (torch's decomposition samples in float32 from the
    untruncated ends; the CPU kernel truncates the ends and each double
    sample). Silently wrong values; now torch's rules."""
    def program(dev):
        calls = [lambda a=a, t=t: torch.arange(*a, dtype=t, device=dev)
                 for a in [(0, 3.1), (0.0, -8.000001, -4.0), (-0.9, 2.1, 2.0), (3.1,),
                           (0.1, -7.9, -4.0), (-3.5, 4, 1.5), (True, 5.5)]
                 for t in (torch.int64, torch.int32, torch.uint8)]
        calls += [lambda a=a, t=t: torch.linspace(*a, dtype=t, device=dev)
                  for a in [(4.3, -3, 50), (4.3, 0, 50), (0, 7, 50), (-2.5, 9.9, 7), (3, 3, 1)]
                  for t in (torch.int64, torch.int16, torch.uint8)]
        out = torch.empty(3, dtype=torch.int32, device=dev)
        calls.append(lambda: torch.linspace(0.5, 10.7, 6, out=out))
        return calls

    same_outcomes(program)


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


def test_logaddexp_of_complex_numbers_follows_torch():
    """torch.logaddexp of complex64 tensors crashed on the lazy device (the
    shared numpy-style logaddexp mixed complex and real parts: 'ADD: operand
    dtypes differ'); now torch's complex kernel, with its NaN and -inf
    cases (found by the complex64 OpInfo run)."""
    inf, nan = float("inf"), float("nan")
    a = torch.tensor([1 + 2j, -3 + 0.5j, 0j, complex(inf, 0), complex(-inf, 0),
                      complex(nan, 1), 3 + 0j, 2 + 1j], dtype=torch.complex64)
    b = torch.tensor([0.5 - 1j, 2 + 2j, 0j, 1 + 0j, complex(-inf, 2), 1 + 0j, complex(1, nan),
                      2 - 1j], dtype=torch.complex64)
    same_on_both(lambda dev: [torch.logaddexp(a.to(dev), b.to(dev)),
                              torch.logaddexp(a.to(dev).to(torch.complex128), b.to(dev))])


def test_lerp_with_a_complex_weight_tensor():
    """torch.lerp(a, b, w) with complex tensors crashed on the lazy device
    (the core compared |w|, a real, with a complex 0.5: 'LT: operand dtypes
    differ'); now torch's value (found by the complex64 OpInfo run)."""
    a = torch.tensor([1 + 2j, -3 + 0.5j, 0j])
    b = torch.tensor([2 - 1j, 0j, 4 + 4j])
    w = torch.tensor([0.3 + 0.1j, 0.8 - 0.5j, -0.2j])
    same_on_both(lambda dev: [torch.lerp(a.to(dev), b.to(dev), w.to(dev)),
                              torch.lerp(a.to(dev), b.to(dev), 0.7),
                              a.clone().to(dev).lerp_(b.to(dev), w.to(dev))])


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


def test_matrix_exp_in_half_precision_is_computed_in_float32():
    """torch.linalg.matrix_exp of a bfloat16 or float16 matrix crashed at the
    barrier on the lazy device (XLA's solve has no half-precision kernel:
    NotImplementedError wrapping a KeyError); now computed in float32 and
    rounded. Eager torch's own CPU kernel gives NaN for these inputs (every
    element of the OpInfo samples), so the reference here is eager float32
    rounded to the half dtype (found by the bfloat16 OpInfo run)."""
    g = torch.Generator().manual_seed(5)
    x = torch.randn(2, 4, 4, generator=g) * 0.7
    for dtype in (torch.bfloat16, torch.float16):
        got = torch.linalg.matrix_exp(x.to(dtype).to(DEV)).cpu()
        want = torch.linalg.matrix_exp(x.to(dtype).float()).to(dtype)
        assert got.dtype == dtype and got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-2, atol=1e-2)


def test_half_precision_norm_statistics_keep_torchs_cpu_dtypes():
    """native_layer_norm, native_batch_norm and _batch_norm_with_update of
    bfloat16/float16 inputs saved their mean and rstd in float32 on the lazy
    device (torch's CPU kernels keep the input's dtype unless a parameter is
    float32); the layer and batch norm backward in half precision now see
    the same statistics as eager (found by the bfloat16 OpInfo run)."""
    g = torch.Generator().manual_seed(6)
    x = torch.randn(4, 3, 5, generator=g)
    w, b = torch.rand(3, generator=g) + 0.5, torch.randn(3, generator=g)

    def program(dev):
        out = []
        for dtype in (torch.bfloat16, torch.float16):
            xd = x.to(dtype).to(dev)
            out += list(torch.ops.aten.native_layer_norm(xd, [5], None, None, 1e-5))
            out += list(torch.ops.aten.native_layer_norm(xd, [5], torch.ones(5).to(dev), None,
                                                         1e-5))
            rm, rv = torch.zeros(3).to(dtype).to(dev), torch.ones(3).to(dtype).to(dev)
            out += list(torch.ops.aten._batch_norm_with_update(
                xd, w.to(dtype).to(dev), b.to(dtype).to(dev), rm, rv, 0.1, 1e-5)) + [rm, rv]
            out += list(torch.ops.aten.native_batch_norm(xd, w.to(dev), None, None, None, True,
                                                         0.1, 1e-5))
        return out

    same_on_both(program, rtol=2e-2, atol=2e-2)


def test_geometric_fills_integer_tensors_as_torch():
    """Tensor.geometric_ of an int64/int32/uint8 tensor raised
    NotImplementedError on the lazy device (torch's decomposition draws with
    uniform_, which has no integer kernel) where torch fills it; now sampled
    in float32 and converted: dtype and shape as eager, values >= 1 with mean
    near 1/p, and torch's error for p outside (0, 1) (found by the int64
    OpInfo run)."""
    for dtype in (torch.int64, torch.int32, torch.uint8):
        got = torch.zeros(4000, dtype=dtype).to(DEV).geometric_(0.25).cpu()
        assert got.dtype == dtype and got.shape == (4000,) and got.min() >= 1
        assert abs(got.double().mean().item() - 4.0) < 0.4
    same_outcomes(lambda dev: [lambda: torch.zeros(3, dtype=torch.long).to(dev).geometric_(1.5)])


# ---- user programs of new kinds that passed when written (cheap coverage)

def test_distributions_log_prob_entropy_kl_and_rsample():
    from torch import distributions as dist

    def program(dev):
        mu = torch.randn(5).to(dev).requires_grad_()
        log_sigma = torch.zeros(5).to(dev).requires_grad_()
        n = dist.Normal(mu, log_sigma.exp())
        x = mu + log_sigma.exp() * torch.randn(5).to(dev)
        c = dist.Categorical(logits=torch.randn(5, 3).to(dev))
        b = dist.Bernoulli(probs=torch.rand(5).to(dev))
        kl = dist.kl_divergence(n, dist.Normal(torch.zeros(5).to(dev), torch.ones(5).to(dev)))
        lp = n.log_prob(x).sum() + c.log_prob(torch.tensor([0, 1, 2, 1, 0]).to(dev)).sum()
        (lp + kl.sum() + n.entropy().sum()).backward()
        mvn = dist.MultivariateNormal(torch.zeros(3).to(dev), scale_tril=torch.eye(3).to(dev) * 2)
        ind = dist.Independent(dist.Normal(mu, 1.0), 1)
        return [x, lp, kl, c.entropy(), b.log_prob(torch.ones(5).to(dev)), mu.grad,
                log_sigma.grad, mvn.log_prob(torch.ones(2, 3).to(dev)), ind.log_prob(mu),
                dist.Beta(torch.tensor([2.]).to(dev), torch.tensor([3.]).to(dev)).log_prob(
                    torch.tensor([0.3]).to(dev)),
                dist.Gamma(torch.tensor([2.]).to(dev), 1.).log_prob(torch.tensor([1.5]).to(dev))]

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_schedulers_one_cycle_cosine_and_grad_hooks():
    def program(dev):
        model = nn.Linear(3, 3).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=6)
        seen = []
        x = torch.randn(4, 3).to(dev)
        out = []
        for _ in range(5):
            h = model(x)
            h.register_hook(lambda g: seen.append(g.abs().sum()) or g * 0.5)
            h.pow(2).mean().backward()
            opt.step()
            opt.zero_grad()
            sched.step()
            out.append(sched.get_last_lr()[0])
        return [out, seen, model.weight.detach()]

    same_on_both(program, rtol=1e-5, atol=1e-6)


def test_pad_sequence_im2col_fold_and_uint8_images():
    def program(dev):
        seqs = [torch.arange(n, dtype=torch.float32).to(dev) for n in (3, 5, 1)]
        padded = nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1.0)
        img = torch.randint(0, 256, (2, 3, 6, 6), dtype=torch.uint8).to(dev)
        x = img.float() / 255
        x = (x - torch.tensor([0.5, 0.4, 0.3], device=dev).view(1, 3, 1, 1)) / 0.25
        cols = F.unfold(x, 3, padding=1, stride=2)
        back = F.fold(cols, (6, 6), 3, padding=1, stride=2)
        q = (x * 40 + 128).clamp(0, 255).to(torch.uint8)
        flipped = img.flip(-1)
        return [padded, cols, back, q, flipped, img.sum(), img.float().mean((2, 3)),
                (img > 128).sum(dtype=torch.int32), img.max(), img // 3, img * 2, img - 200,
                img.to(torch.int8)]

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_ema_with_foreach_lerp_and_no_grad_param_updates():
    def program(dev):
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(dev)
        ema = [p.detach().clone() for p in model.parameters()]
        opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1, amsgrad=True)
        x = torch.randn(5, 3).to(dev)
        for _ in range(3):
            model(x).square().sum().backward()
            opt.step()
            opt.zero_grad()
            with torch.no_grad():
                torch._foreach_lerp_(ema, [p.detach() for p in model.parameters()], 0.1)
                for p in model.parameters():
                    p.clamp_(-0.3, 0.3)
        return ema + [p.detach() for p in model.parameters()]

    same_on_both(program, rtol=1e-5, atol=1e-6)


def test_mixed_dtype_arithmetic_and_conversions():
    def program(dev):
        i = torch.tensor([1, -2, 3, 7]).to(dev)
        i32 = i.int()
        f16 = torch.tensor([0.5, 1.5, -2.5, 3.25]).half().to(dev)
        b = i > 0
        return [i / 2, i / i32, i * 1.5, i + True, b + b, b * 3, b.sum(), b.float().mean(),
                i32 * 2.5, i32 + i, f16 + i, f16 * 2.5, f16 + torch.tensor(1.0).to(dev),
                i.double() + f16, torch.tensor(3).to(dev) * f16, i ** 2, i ** 0.5, 2 ** i,
                i32.to(torch.uint8), torch.tensor([-1.7, 2.9, 300.0]).to(dev).to(torch.int32),
                torch.tensor([0.2, -0.0, 2.0]).to(dev).bool(), i.float().round(),
                torch.tensor([2.5, 3.5, -0.5]).to(dev).round(), i.sign(), b.int().cumsum(0),
                torch.full((2,), 7, device=dev), torch.full((2,), 7.0, device=dev),
                torch.full((2,), True, device=dev),
                torch.zeros(2, dtype=torch.int16, device=dev) + 1.5]

    same_on_both(program)


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


def test_complex64_arithmetic_and_reductions():
    def program(dev):
        z = torch.randn(6, dtype=torch.complex64).to(dev)
        w = torch.randn(6, dtype=torch.complex64).to(dev)
        return [z * w, z / w, z.abs(), z.angle(), z.exp(), z.log(), z.sqrt(), z ** 2, z ** 0.5,
                z.sum(), z.mean(), z.prod(), (z @ w), torch.vdot(z, w), z.real * 2, z.imag,
                torch.sigmoid(z), torch.tanh(z), z.reciprocal(), torch.sgn(z),
                z.conj().resolve_conj(),
                z.cumsum(0), torch.linalg.vector_norm(z), z == w, torch.isclose(z, z + 1e-9),
                z.to(torch.complex128), torch.complex(z.real, z.imag), z * 2, z + 1.5, z * True]

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_python_protocols_on_zero_dim_tensors():
    import copy
    import operator

    def program(dev):
        t = torch.tensor([3.7, -1.2, 2.0]).to(dev)
        i = torch.tensor([2, 0, 1]).to(dev)
        parts = [t[0], t[1], t[2]]
        lst = ["a", "b", "c"]
        out = [max(parts).item(), min(parts).item(), sum(parts), sorted(parts)[0].item(),
               math.sqrt(t[0]), round(float(t[0]), 1), int(t[0]), float(t[1]), lst[i[0]],
               list(range(i[0])), operator.index(i[2]), abs(t[1]).item(), -t[1], t[0] > 1,
               bool(t[0] > 1), f"{t[0]:.2f}", t[2] == 2, complex(t[0]), divmod(7, int(i[0])),
               torch.tensor([t[0].item(), t[1].item()]).to(dev),
               torch.stack([p * 2 for p in parts]), torch.as_tensor([1, 2], device=dev),
               t.new_tensor([1., 2.]), t.new_zeros(2, dtype=torch.int64), len(t), t.tolist(),
               [float(v) for v in t], t[i], i.numel(), t.dim(), t.size(0), t.shape[-1],
               hash(t) is not None, t[0].item().__class__.__name__, i[0].item().__class__.__name__,
               copy.deepcopy(t), t.clone().detach(), torch.tensor(t[0].item() * 2), 3 in i,
               t.any().item(), t.isfinite().all().item()]
        return out

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


def test_autograd_functional_and_double_backward_in_float64():
    def program(dev):
        x = torch.randn(4, dtype=torch.float64).to(dev).requires_grad_()
        f = lambda v: (v.sin() * v.exp()).sum()
        (g,) = torch.autograd.grad(f(x), x, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), x)
        J = torch.autograd.functional.jacobian(lambda v: v.tanh() * 2, x.detach())
        H = torch.autograd.functional.hessian(f, x.detach())
        vjp = torch.autograd.functional.vjp(lambda v: v ** 3, x.detach(),
                                            torch.ones(4, dtype=torch.float64).to(dev))
        return [g, h, J, H, vjp[1]]

    same_on_both(program, rtol=1e-10, atol=1e-10)
