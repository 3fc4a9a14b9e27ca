"""dtype semantics as torch's: integer division and powers, half/bfloat16 and
complex arithmetic, mixed dtypes and Python scalars, autocast. Each check
compares with eager torch on the CPU (values, dtypes, shapes, or the
exception type and text)."""


from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from .conftest import DEV
from .lazy_vs_eager import (
    fallbacks,
    same_on_both,
    same_outcomes,
    same_without_fallback,
    train_step,
)


def _error(thunk):
    """The type name of what ``thunk()`` raises (its value when it does not)."""
    try:
        return thunk()
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return type(exc).__name__


def test_integer_division_remainder_and_rounding_semantics():
    def program(dev):
        a = torch.tensor([-7, -3, 0, 3, 7, 9]).to(dev)
        b = torch.tensor([2, -2, 5, -4, 3, 4]).to(dev)
        f = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.7]).to(dev)
        u = torch.tensor([250, 10, 3], dtype=torch.uint8).to(dev)
        return {
            "floordiv": a // b, "true": a / b, "floor": torch.div(a, b, rounding_mode="floor"),
            "trunc": torch.div(a, b, rounding_mode="trunc"), "rem": a % b,
            "remainder": torch.remainder(a, -3), "fmod": torch.fmod(a, 3),
            "round": torch.round(f), "round2": torch.round(f * 1.234, decimals=2),
            "to_int": f.to(torch.int32), "ceil": f.ceil(), "trunc_f": f.trunc(),
            "frac": f.frac(), "sign": f.sign(), "uint8_wrap": u + 10, "uint8_mul": u * 2,
            "shift": a << 2, "rshift": a >> 1, "xor": a ^ b, "bit_not": ~a,
            "pow_int": a ** 2, "int_pow_float": a ** 0.5, "abs": a.abs(),
            "int_floordiv_scalar": a // 2.0, "sum_int32": a.int().sum(),
            "prod_int": b.prod(), "cumsum_bool": (a > 0).cumsum(0), "float_mod": f % 1.0,
            "clamp_int": a.clamp(-2, 4), "max_int": torch.maximum(a, b),
        }

    same_on_both(program, rtol=0, atol=1e-6)


def test_nan_inf_handling_and_numerics():
    def program(dev):
        x = torch.tensor([1.0, float("nan"), -float("inf"), 0.0, 2.5, float("inf")]).to(dev)
        return {"isnan": x.isnan(), "isinf": x.isinf(), "isfinite": x.isfinite(),
                "nan_to_num": torch.nan_to_num(x, nan=0.0, posinf=9.0, neginf=-9.0),
                "nansum": x.nansum(), "nanmean": x[:2].nanmean(), "max": x.max(),
                "argmax": x.argmax(), "sort": x.sort().values, "clamp": x.clamp(-1, 1),
                "where": torch.where(x.isnan(), torch.zeros_like(x), x),
                "log0": torch.log(x[3:4]), "div0": x / 0, "sigmoid": torch.sigmoid(x),
                "relu": F.relu(x), "softmax_inf": torch.softmax(torch.tensor(
                    [0.0, -float("inf"), 1.0]).to(dev), 0),
                "minimum": torch.minimum(x, torch.zeros(6).to(dev)), "fmax": torch.fmax(
                    x, torch.zeros(6).to(dev)), "log1p": torch.log1p(x.abs()),
                "eq_nan": (x == x), "any_nan": bool(x.isnan().any()),
                "errors": [_error(lambda: torch.ones(0, device=dev).max()),
                           _error(lambda: torch.ones(0, 3, device=dev).amax(0)),
                           _error(lambda: torch.ones(0, 3, device=dev).amax(1).shape)]}

    same_on_both(program)


def test_half_precision_classifier_matches_torch_accumulation():
    def program(dev):
        out = {}
        for dtype, name in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
            model = nn.Sequential(nn.Conv1d(3, 8, 3, padding=1), nn.AvgPool1d(2), nn.Flatten(),
                                  nn.Linear(32, 5)).to(dev).to(dtype)
            x = (torch.randn(16, 3, 8) * 3).to(dev).to(dtype)
            y = torch.randint(0, 5, (16,)).to(dev)
            logits = model(x)
            loss = F.cross_entropy(logits, y) + F.mse_loss(logits, logits.detach().flip(0))
            loss.backward()
            wide = (torch.arange(300.0) * 0.1).to(dev).to(dtype)
            out[name] = {"logits": logits, "log_softmax": logits.log_softmax(-1),
                         "softmax": logits.softmax(0), "loss": loss,
                         "grad": model[0].weight.grad, "mean": wide.mean(), "sum": wide.sum(),
                         "cumsum": wide.cumsum(0), "var": wide.var(), "norm": wide.norm()}
        return out

    # one or two units in the last place of each format, not more
    same_on_both(program, rtol=1.6e-2, atol=1e-2)


def test_autocast_regions_leave_lazy_tensors_in_float32_and_say_so(monkeypatch):
    """torch.autocast("cpu") casts CPU tensors only (CUDA tensors under it
    stay float32 too): lazy matmuls and convolutions keep float32 and warn
    once per op; autocast(device_type="lazy") is refused by torch itself."""
    from lazytensor.torch.aten import amp

    monkeypatch.setattr(amp, "_WARNED", set())
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.Flatten(), nn.Linear(16, 3))
    x = torch.randn(2, 1, 4, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        eager = model(x)
    assert eager.dtype == torch.bfloat16
    lazy_model = model.to(DEV)
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # no warning where CPU autocast is off
        with torch.autocast("cpu", enabled=False):
            lazy_model(x.to(DEV))
        checkpoint(lazy_model, x.to(DEV).requires_grad_(), use_reentrant=False).sum().backward()
    with pytest.warns(UserWarning, match="autocast.'cpu'. does not apply to lazy tensors") as seen:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = lazy_model(x.to(DEV))
            (out.sum() * 2).backward()
    named = {str(w.message).split(": ")[2].split(" runs")[0] for w in seen}
    assert named == {"aten.convolution", "aten.addmm", "aten.mm"}  # mm: addmm's backward
    assert out.dtype == torch.float32
    assert lazy_model[2].weight.grad.dtype == torch.float32
    with torch.autocast("cpu", enabled=False):
        expected = model.cpu()(x)
    torch.testing.assert_close(out.cpu(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'lazy'"):
        torch.autocast(device_type=DEV.type, dtype=torch.bfloat16)
    bf = model.to(DEV, torch.bfloat16)(x.to(DEV, torch.bfloat16))
    assert bf.dtype == torch.bfloat16


def test_float64_binned_features_with_bucketize_and_long_targets():
    def program(dev):
        boundaries = torch.linspace(-2, 2, 7, dtype=torch.float64).to(dev)
        emb = nn.EmbeddingBag(8 * 3, 4, mode="sum").double().to(dev)
        head = nn.Linear(4 + 3, 2).double().to(dev)
        opt = torch.optim.Adamax(list(emb.parameters()) + list(head.parameters()), lr=1e-2)
        x = torch.randn(16, 3, dtype=torch.float64).to(dev)
        y = (x.sum(1) > 0).long()
        bins = torch.bucketize(x, boundaries, right=True)
        ids = bins + 8 * torch.arange(3, device=dev)
        out, first = [], None
        for step in range(3):
            logits = head(torch.cat([emb(ids), x], 1))
            loss = F.nll_loss(F.log_softmax(logits, 1), y, weight=torch.tensor(
                [1.0, 2.0], dtype=torch.float64, device=dev))
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [bins, logits.argmax(1), emb.weight.grad]

    same_without_fallback(program, rtol=1e-9, atol=1e-10)


def test_add_and_sub_alpha_follow_torchs_alpha_check_and_bool_results():
    """A float alpha with integer tensors (add, sub, rsub, add_) was silently
    truncated ([1, 1] + 0.5 * [1, 1] gave [1, 1]) where torch raises; a bool
    tensor plus a bool scalar with an int alpha gave int64 [3, 3] (torch: a
    bool result, a or (b and alpha)), and bool + bool with alpha 2 crashed."""
    def program(dev):
        i = torch.tensor([1, 2]).to(dev)
        b = torch.tensor([True, False]).to(dev)
        return [
            lambda: i.add(i, alpha=0.5), lambda: i.sub(i, alpha=0.5),
            lambda: torch.rsub(i, i, alpha=1.5), lambda: i.add(1, alpha=2.5),
            lambda: i.clone().add_(i, alpha=1.0), lambda: i.add(b, alpha=2.0),
            lambda: i.float().add(i, alpha=1j), lambda: i.float().add(i, alpha=True),
            lambda: i.add(2.5, alpha=2), lambda: i.float().add_(i, alpha=0.5),
            lambda: b.add(b.flip(0), alpha=2), lambda: b.add(True, alpha=2),
            lambda: b.add(True, alpha=0), lambda: b.add(b, alpha=True),
            lambda: b.clone().add_(b.flip(0), alpha=3), lambda: b.add(1, alpha=2),
        ]

    same_outcomes(program)


def test_integer_powers_with_negative_tensor_exponents_follow_torch():
    """An integer tensor raised to negative integer exponents (a tensor, so
    torch does not raise) gave XLA's wrapped-around POW (3 ** -1 was
    -6148914691236517205); torch gives 1 for 1, +-1 for -1, else 0."""
    def program(dev):
        base = torch.tensor([-3, -2, -1, 0, 1, 2, 3]).to(dev)
        exps = torch.tensor([-1, -2, -3, -1, -5, -1, 2]).to(dev)
        out = {"int64": base ** exps, "by_scalar_base": torch.pow(3, exps),
               "int32": base.int().pow(exps.int()), "int8": base.to(torch.int8) ** exps[:, None],
               "uint8": base.abs().to(torch.uint8) ** exps.abs().to(torch.uint8),
               "float": base.double() ** exps}
        inplace = base.clone()
        inplace.pow_(exps)
        out["inplace"] = inplace
        return out

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before


def test_float64_model_int32_indices_and_bool_masks():
    def program(dev):
        emb = nn.Embedding(10, 4).double().to(dev)
        idx = torch.tensor([[1, 2, 3], [4, 5, 9]], dtype=torch.int32).to(dev)
        mask = idx > 2
        h = emb(idx)
        h = h * mask.unsqueeze(-1)
        pooled = h.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        sel = torch.index_select(emb.weight, 0, idx.flatten())
        lin = nn.Linear(4, 2, dtype=torch.float64).to(dev)
        out = lin(pooled)
        out.sum().backward()
        mixed = pooled.float() + torch.ones(2, 4, device=dev, dtype=torch.float16)
        ints = idx * 3 // 2 + idx.to(torch.int16) - 1
        return {"pooled": pooled, "sel": sel, "grad": emb.weight.grad, "out": out,
                "mixed": mixed, "ints": ints, "where": torch.where(mask, idx, -1),
                "take": emb.weight[idx.long()[:, 0]], "cum": mask.cumsum(1)}

    same_on_both(program, rtol=1e-6, atol=1e-7)


def test_integer_division_by_a_host_zero_raises_zero_division_error():
    """ids // 0, ids % 0, fmod and div(rounding_mode=) of integer tensors by
    a Python (or CPU 0-d) zero gave XLA's numbers on the lazy device; torch
    raises RuntimeError('ZeroDivisionError'), also for floor_divide_ (which
    torch's decomposition had turned into a lazy divisor)."""
    def program(dev):
        ids = torch.tensor([7, -3, 2]).to(dev)
        return [
            lambda: ids // 0, lambda: ids % 0, lambda: torch.fmod(ids, 0), lambda: ids // False,
            lambda: torch.div(ids, 0, rounding_mode="floor"),
            lambda: torch.div(ids, 0, rounding_mode="trunc"), lambda: ids // torch.tensor(0),
            lambda: ids.to(torch.uint8).remainder_(0), lambda: ids.clone().floor_divide_(0),
            lambda: (ids > 0) // 0, lambda: ids // 0.0, lambda: ids.float() % 5,
            lambda: ids.clone().floor_divide_(2), lambda: ids.clone().floor_divide_(ids + 5),
            lambda: ids // 2, lambda: ids % torch.tensor(4),
        ]

    same_outcomes(program)


def test_integer_division_by_a_lazy_zero_dim_tensor_works():
    """ids // torch.tensor(4).to(dev), 7 // n and n % m of lazy 0-d integer
    tensors raised RuntimeError('ZeroDivisionError'): the dtype probe ran
    torch's own op on a 0-d stand-in that was a zero."""
    def program(dev):
        ids, n = torch.arange(10).to(dev), torch.tensor(4).to(dev)
        return [lambda: ids // n, lambda: ids % n, lambda: 7 // n, lambda: torch.fmod(ids, n),
                lambda: n // 0, lambda: torch.div(ids, n, rounding_mode="trunc"),
                lambda: torch.tensor(True).to(dev) // torch.tensor(True).to(dev)]

    same_outcomes(program)


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
