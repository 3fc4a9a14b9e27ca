"""ATen ops through the lazy device against eager PyTorch: values, dtypes,
shapes, gradients, and the errors torch raises."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from .conftest import DEV, assert_same, lazy

G = torch.Generator().manual_seed(0)


def rand(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape, generator=G).to(dtype)
    if dtype == torch.bool:
        return torch.randn(*shape, generator=G) > 0
    return torch.randint(-5, 6, shape, generator=G).to(dtype)


F32, I64, I32, B = torch.float32, torch.int64, torch.int32, torch.bool

# (name, function, inputs): each runs eagerly and lazily
CASES = [
    ("add", lambda a, b: a + b, (rand(3, 4), rand(4))),
    ("add_alpha", lambda a, b: torch.add(a, b, alpha=2.5), (rand(3, 4), rand(3, 4))),
    ("int_plus_float_scalar", lambda a: a + 1.5, (rand(3, dtype=I64),)),
    ("int32_plus_int64", lambda a, b: a + b, (rand(3, dtype=I32), rand(3, dtype=I64))),
    ("zero_dim_promotion", lambda a, b: a * b, (rand(3, dtype=I32), torch.tensor(2.5))),
    ("bool_and_int", lambda a, b: a + b, (rand(4, dtype=B), rand(4, dtype=I64))),
    ("true_divide_ints", lambda a, b: a / b, (rand(4, dtype=I64), torch.tensor([1, 2, 3, 4]))),
    ("floor_divide", lambda a, b: torch.div(a, b, rounding_mode="floor"),
     (torch.tensor([-7, 7, -8]), torch.tensor([2, -2, 3]))),
    ("trunc_divide", lambda a, b: torch.div(a, b, rounding_mode="trunc"),
     (rand(5), rand(5).abs() + 0.5)),
    ("remainder", lambda a, b: a % b, (rand(5), rand(5).abs() + 0.5)),
    ("pow_scalar", lambda a: a.abs() ** 0.5 + a ** 2, (rand(6),)),
    ("pow_int", lambda a: a ** 3, (rand(6, dtype=I64),)),
    ("compare", lambda a, b: (a < b) & (a != 0), (rand(5), rand(5))),
    ("where", lambda c, a: torch.where(c, a, 0.5), (rand(4, dtype=B), rand(4))),
    ("clamp", lambda a: a.clamp(-0.5, 0.5), (rand(10),)),
    ("unary_float", lambda a: a.sin() + a.exp() + a.tanh() + torch.sigmoid(a), (rand(8),)),
    ("int_to_float_unary", lambda a: torch.sqrt(a.abs()), (rand(4, dtype=I64),)),
    ("rounding", lambda a: (a * 3).round() + (a * 3).floor() + (a * 3).trunc(), (rand(8),)),
    ("lerp", lambda a, b: torch.lerp(a, b, 0.3) + torch.lerp(a, b, 0.8), (rand(4), rand(4))),
    ("addcmul_addcdiv", lambda a, b, c: torch.addcdiv(torch.addcmul(a, b, c, value=0.5), b,
                                                     c.abs() + 1, value=2), (rand(3),) * 3),
    ("sum_dims", lambda a: a.sum((0, 2), keepdim=True), (rand(2, 3, 4),)),
    ("sum_int_is_int64", lambda a: a.sum(), (rand(5, dtype=I32),)),
    ("mean_var_std", lambda a: (a.mean(1), a.var(1), a.std(0, correction=0)), (rand(3, 5),)),
    ("amax_argmax", lambda a: (a.amax(-1), a.argmax(0), a.max(1)), (rand(4, 5),)),
    ("cumsum", lambda a: a.cumsum(1), (rand(3, 4),)),
    ("logsumexp_softmax", lambda a: (a.logsumexp(1), a.softmax(-1), a.log_softmax(0)),
     (rand(3, 4),)),
    ("norm", lambda a: (a.norm(), torch.linalg.vector_norm(a, 1, dim=1)), (rand(3, 4),)),
    ("sort_topk", lambda a: (a.sort(1), a.topk(2, dim=1)), (rand(3, 5),)),
    ("matmul_batched", lambda a, b: a @ b, (rand(2, 3, 4), rand(4, 5))),
    ("matmul_vector", lambda a, b: a @ b, (rand(4), rand(4, 3))),
    ("addmm_bmm", lambda a, b, c: (torch.addmm(a, b, c, beta=0.5, alpha=2), torch.bmm(
        b[None], c[None])), (rand(3, 5), rand(3, 4), rand(4, 5))),
    ("cat_stack", lambda a, b: (torch.cat([a, b], 1), torch.stack([a, b])), (rand(2, 3),) * 2),
    ("flip_roll_pad", lambda a: (a.flip(1), a.roll(1, 0), F.pad(a, (1, 2, 0, 1), value=3.0)),
     (rand(3, 4),)),
    ("tril_repeat", lambda a: (a.tril(), a.triu(1), a.repeat(2, 1)), (rand(3, 3),)),
    ("indexing", lambda a, i: (a[i], a[:, i], a[1:, ::2], a[..., -1], a[a > 0]),
     (rand(4, 5), torch.tensor([0, 3, 1]))),
    ("gather_scatter", lambda a, i: (a.gather(1, i), a.new_zeros(3, 4).scatter_add(1, i, a),
                                     a.index_select(0, i[:, 1])),
     (rand(3, 4), torch.tensor([[0, 1, 1, 3], [2, 2, 0, 1], [3, 0, 0, 0]]))),
    ("masked_fill", lambda a: a.masked_fill(a > 0, -1.0), (rand(3, 4),)),
    ("type_conversion", lambda a: (a.int(), a.to(torch.float64), a.bool(), a.half().float()),
     (rand(4) * 10,)),
    ("views_then_math", lambda a: a.t().reshape(-1) + a.view(4, 3).sum(1).repeat(3),
     (rand(3, 4),)),
]


@pytest.mark.parametrize("name,fn,inputs", CASES, ids=[c[0] for c in CASES])
def test_op_matches_eager(name, fn, inputs):
    assert_same(fn(*inputs), fn(*lazy(inputs)))


NN_CASES = [
    ("linear_relu", lambda x, w: F.relu(F.linear(x, w)), (rand(4, 6), rand(5, 6))),
    ("conv1d", lambda x, w: F.conv1d(x, w, stride=2, padding=1), (rand(2, 3, 9), rand(4, 3, 3))),
    ("conv2d_groups", lambda x, w: F.conv2d(x, w, padding=1, groups=2, dilation=2),
     (rand(1, 4, 7, 7), rand(6, 2, 3, 3))),
    ("conv_transpose2d", lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1,
                                                         output_padding=1),
     (rand(1, 3, 5, 5), rand(3, 2, 3, 3))),
    ("max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), (rand(2, 3, 8, 8),)),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
     (rand(2, 3, 8, 8),)),
    ("max_pool1d", lambda x: F.max_pool1d(x, 2), (rand(2, 3, 9),)),
    ("batch_norm_train", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
     (rand(4, 3, 5, 5), rand(3), rand(3))),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (6,), w, b), (rand(3, 4, 6), rand(6), rand(6))),
    ("activations", lambda x: (F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.elu(x),
                               F.leaky_relu(x, 0.2), F.hardtanh(x), F.softplus(x), F.mish(x)),
     (rand(5, 4),)),
    ("losses", lambda x, t, y: (F.cross_entropy(x, t), F.nll_loss(F.log_softmax(x, 1), t,
                                                                   reduction="sum"),
                                F.cross_entropy(x, t, label_smoothing=0.1),
                                F.mse_loss(x, y)),
     (rand(6, 4), torch.tensor([0, 3, 1, 1, 2, 0]), rand(6, 4))),
    ("embedding", lambda w, i: F.embedding(i, w), (rand(10, 3), torch.tensor([[1, 4], [9, 0]]))),
    ("sdpa", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
     (rand(2, 3, 5, 4), rand(2, 3, 5, 4), rand(2, 3, 5, 4))),
]


@pytest.mark.parametrize("name,fn,inputs", NN_CASES, ids=[c[0] for c in NN_CASES])
def test_nn_forward_and_gradients_match_eager(name, fn, inputs):
    def run(tensors):
        leaves = [t.detach().requires_grad_(t.is_floating_point()) for t in tensors]
        out = fn(*leaves)
        outs = out if isinstance(out, tuple) else (out,)
        total = sum(o.float().sum() for o in outs)
        total.backward()
        return outs, [t.grad for t in leaves if t.requires_grad]

    eager_out, eager_grads = run(inputs)
    lazy_out, lazy_grads = run(lazy(inputs))
    assert_same(eager_out, lazy_out, rtol=1e-5, atol=1e-5)
    assert_same(eager_grads, lazy_grads, rtol=1e-4, atol=1e-5)


def test_transformer_encoder_layer_matches_eager():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    x = rand(2, 5, 8)
    expected = layer(x)
    layer.to(DEV)
    assert_same(expected, layer(x.to(DEV)), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------ errors
ERRORS = [
    ("shape mismatch", lambda a, b: a + b, (rand(2, 3), rand(4)), RuntimeError),
    ("matmul shapes", lambda a, b: a @ b, (rand(2, 3), rand(4, 5)), RuntimeError),
    ("dim out of range", lambda a: a.sum(5), (rand(2, 3),), IndexError),
    ("bad view", lambda a: a.view(5), (rand(2, 3),), RuntimeError),
    ("view of transposed", lambda a: a.t().view(6), (rand(2, 3),), RuntimeError),
    ("int mean", lambda a: a.mean(), (rand(3, dtype=I64),), RuntimeError),
    ("bool subtraction", lambda a: a - a, (rand(3, dtype=B),), RuntimeError),
    ("in-place cast", lambda a: a.add_(1.5), (rand(3, dtype=I64),), RuntimeError),
    ("in-place broadcast", lambda a, b: a.add_(b), (rand(3), rand(2, 3)), RuntimeError),
    ("select out of range", lambda a: a[7], (rand(3),), IndexError),
    ("where condition", lambda a: torch.where(a, a, a), (rand(3),), RuntimeError),
    ("write to expanded", lambda a: a.expand(3, 4).add_(1), (rand(1, 4),), RuntimeError),
    ("index out of range", lambda a: a[torch.tensor([5])], (rand(3),), IndexError),
]


@pytest.mark.parametrize("name,fn,inputs,error", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, fn, inputs, error):
    with pytest.raises(error):
        fn(*inputs)
    with pytest.raises(error):
        fn(*lazy(inputs))


def test_cpu_and_lazy_operands_do_not_mix():
    with pytest.raises(RuntimeError, match="same device"):
        torch.ones(3, device=DEV) + torch.ones(3)
    assert_same(torch.ones(3) + torch.tensor(2.0), torch.ones(3, device=DEV) + torch.tensor(2.0))
