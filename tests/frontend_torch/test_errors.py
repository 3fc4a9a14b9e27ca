"""Errors raised as torch raises them: argument, shape and dtype checks of ops
and modules, with torch's exception types and messages. Each check compares
with eager torch on the CPU (values, dtypes, shapes, or the exception type
and text)."""


from __future__ import annotations

import math

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import (
    same_outcomes,
)


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


def test_sparse_gradients_raise_a_clear_error():
    model = nn.Embedding(5, 2, sparse=True).to(DEV)
    loss = model(torch.tensor([1, 3]).to(DEV)).sum()
    with pytest.warns(lt.LazyFallbackWarning), pytest.raises(NotImplementedError,
                                                             match="sparse=False"):
        loss.backward()


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


def test_class_index_targets_of_other_integer_dtypes_raise_as_torch():
    """Segmentation masks read from numpy often arrive as int32: torch's
    losses reject them (nll_loss/cross_entropy take int64 or uint8, the 2-d
    form and multi_margin_loss int64 only); the lazy losses computed them."""
    def program(dev):
        logits = torch.arange(24.0).reshape(2, 3, 2, 2).to(dev)
        mask = torch.tensor([[[0, 1], [2, 1]], [[2, 2], [0, 1]]])
        calls = []
        for dtype in (torch.int32, torch.uint8, torch.int16, torch.bool, torch.int64):
            m = mask.to(dtype).to(dev)
            calls += [lambda m=m: F.cross_entropy(logits, m),
                      lambda m=m: F.cross_entropy(logits[..., 0, 0], m[:, 0, 0]),
                      lambda m=m: F.nll_loss(logits[..., 0, 0].log_softmax(1), m[:, 0, 0]),
                      lambda m=m: F.multi_margin_loss(logits[..., 0, 0], m[:, 0, 0])]
        # (values compared exactly: rounded to 3 decimals)
        return [lambda call=call: call().round(decimals=3) for call in calls]

    same_outcomes(program)


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


def test_arange_and_randint_reject_empty_or_reversed_ranges_as_torch():
    """torch.arange(0, 10, -1) gave an empty tensor and arange(0, inf) was
    accepted, and torch.randint(5, 2, ...) / random_(4, 1) drew 64-bit
    garbage, where torch raises."""
    def program(dev):
        return [
            lambda: torch.arange(0, 10, -1, device=dev), lambda: torch.arange(5, 0, device=dev),
            lambda: torch.arange(0, float("inf"), device=dev),
            lambda: torch.arange(0.5, -3, -1, device=dev), lambda: torch.arange(3, 3, device=dev),
            lambda: torch.randint(5, 2, (3,), device=dev),
            lambda: torch.randint(3, 3, (2,), device=dev),
            lambda: torch.empty(2, device=dev).random_(4, 1),
            lambda: torch.randint(0, 1, (2,), device=dev),
        ]

    same_outcomes(program)


def test_bitwise_ops_of_floats_raise_torchs_not_implemented_error():
    """x & y, x | 1, ~x, x << 1, bitwise_not... of float tensors (or an
    integer tensor with a float scalar) raised a RuntimeError from the
    core's type check; torch raises NotImplementedError ("bitwise_and_cpu"
    not implemented for 'Float'), which is what a user's except catches."""
    def program(dev):
        x = torch.randn(3, 4).to(dev)
        i = torch.tensor([1, 2, 3]).to(dev)
        b = torch.tensor([True, False, True]).to(dev)
        return [
            lambda: x & x, lambda: x | 1, lambda: x ^ x, lambda: x << 1,
            lambda: x.clone().bitwise_and_(x), lambda: torch.bitwise_xor(x, 1),
            lambda: x.double() >> 2, lambda: x.bitwise_not(), lambda: x.int() & x,
            lambda: b & x.T, lambda: i & 1.5, lambda: i << 1.5, lambda: 2.0 >> i,
            lambda: x.half() & 1, lambda: torch.bitwise_not(x.bfloat16()), lambda: ~x,
            lambda: i & (1 + 2j), lambda: i.bitwise_and(x.sum()),
            lambda: i | True, lambda: b ^ 1, lambda: b << 1, lambda: 3 << i, lambda: ~b,
        ]

    same_outcomes(program)


def test_ops_without_a_kernel_for_the_dtypes_raise_as_torch():
    """Elementwise ops that torch has no kernel for computed or raised the
    wrong type: bool // bool, bool % bool and clamp of complex numbers
    gave results (torch: NotImplementedError), hypot/logaddexp/igamma of
    integers and fmod of bools raised RuntimeError (torch:
    NotImplementedError), a bool tensor ** True gave int64 (torch: a bool
    copy), addcmul of bools raised RuntimeError."""
    def program(dev):
        b = torch.tensor([True, False, True]).to(dev)
        i = torch.tensor([1, 2, 3]).to(dev)
        z = torch.tensor([1 + 1j, -2j, 3]).to(dev)
        return [
            lambda: b // b, lambda: b % True, lambda: torch.fmod(b, b), lambda: b ** b,
            lambda: b ** True, lambda: b ** False, lambda: b ** 2, lambda: True ** b,
            lambda: torch.hypot(i, i), lambda: torch.logaddexp(i, i.flip(0)),
            lambda: torch.igamma(i, i), lambda: torch.nextafter(i, i),
            lambda: torch.clamp(z, min=0.5), lambda: z.clamp(max=z.flip(0)),
            lambda: b.clamp(min=True), lambda: torch.addcmul(b, b, b),
            lambda: torch.maximum(z, z), lambda: z < z, lambda: z // 2,
            lambda: i // 2, lambda: i % 2, lambda: torch.hypot(i.float(), i.float()),
            lambda: torch.clamp(i, min=1.5), lambda: i ** 2, lambda: torch.addcmul(i, i, i),
        ]

    same_outcomes(program)


def test_order_statistics_of_bools_and_complex_numbers_raise_as_torch():
    """mask.argmax(1) (to find a first True), topk/median/kthvalue of bools,
    and max/sort/cummax/nansum of complex tensors gave answers on the lazy
    device where torch has no kernel and raises; cummax of bools (which
    torch computes) raised a TypeError."""
    def program(dev):
        mask = torch.tensor([[False, True, True], [True, False, False]]).to(dev)
        z = torch.tensor([1 + 1j, 2j, 3 + 0j]).to(dev)
        return [
            lambda: mask.argmax(1), lambda: mask.argmin(), lambda: mask.int().argmax(1),
            lambda: mask.topk(1), lambda: mask.median(), lambda: mask.median(0).values,
            lambda: mask.kthvalue(1).values, lambda: mask.nanmedian(),
            lambda: mask.cummax(1).values, lambda: mask.cummin(1).indices,
            lambda: mask.max(), lambda: mask.amax(0), lambda: mask.sort(1).values,
            lambda: z.max(), lambda: z.max(0).values, lambda: z.amin(), lambda: z.argmax(),
            lambda: z.sort().values, lambda: z.topk(1).values, lambda: z.cummax(0).values,
            lambda: z.median(), lambda: z.kthvalue(1).values, lambda: z.nansum(),
            lambda: z.real.nansum(), lambda: z.msort(),
        ]

    same_outcomes(program)


def test_unsupported_dtypes_raise_a_clear_type_error():
    """x.chalf(), torch.zeros(..., dtype=torch.complex32, device=lazy) and
    float8 dtypes raised a bare KeyError: torch.complex32."""
    x = torch.randn(3).to(DEV)
    for call in (x.chalf, lambda: x.to(torch.float8_e4m3fn),
                 lambda: torch.zeros(2, dtype=torch.complex32, device=DEV),
                 lambda: torch.zeros(2, dtype=torch.complex32).to(DEV)):
        with pytest.raises(TypeError, match="does not support dtype torch"):
            call()


def test_empty_reductions_name_the_dim_as_torch():
    """amax/amin over an empty dim named it normalized (torch: as given,
    x.amin(-2) says -2) and argmax/argmin named it as given (torch:
    normalized), or 'None' without a dim (torch asks for one)."""
    def program(dev):
        x = torch.zeros(0, 3).to(dev)
        return [lambda: x.amin(-2), lambda: x.amax((1, -2)), lambda: x.argmax(-2),
                lambda: x.argmin(), lambda: x.max(-2).values, lambda: x.amax(1)]

    same_outcomes(program)


def test_integer_errors_match_torch():
    same_outcomes(lambda dev: [
        lambda: torch.tensor([True]).to(dev) - torch.tensor([True]).to(dev),
        lambda: -torch.tensor([True]).to(dev),
        lambda: torch.tensor([1.5]).to(dev) << 1,
    ])
