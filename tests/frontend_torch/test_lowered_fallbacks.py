"""Ops that used to run through the eager fallback and are now lowered:
embedding bags (every mode, offsets, per-sample weights, padding,
include_last_offset, max_norm), adaptive max pooling (uneven windows, the
returned indices), ``_trilinear`` (nn.Bilinear), the shrinkage gradients
and the margin losses. Each is compared with eager torch, forward and
backward (values, dtype, shape), and no eager fallback may be counted."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from lazytensor.core import get_runtime

from .conftest import DEV, assert_same, lazy


def _no_fallback() -> None:
    counters = get_runtime().metrics.counters
    assert counters["eager_fallbacks"] == 0, dict(get_runtime().metrics.fallbacks)


def _leaves(tensors):
    """(eager, lazy) copies of the inputs; floating ones require grad."""
    eager = [t.clone().requires_grad_(t.is_floating_point()) if isinstance(t, torch.Tensor)
             else t for t in tensors]
    moved = [lazy(t.detach()).requires_grad_(t.is_floating_point())
             if isinstance(t, torch.Tensor) else t for t in tensors]
    return eager, moved


def check(fn, *inputs, rtol=1.3e-6, atol=1e-5):
    """fn's outputs and the gradients of their sum (weighted by position,
    so every element's gradient differs) agree with eager torch."""
    results = []
    for args in _leaves(inputs):
        out = fn(*args)
        outs = out if isinstance(out, tuple) else (out,)
        floats = [o for o in outs if o.is_floating_point()]
        torch.manual_seed(0)
        total = sum((o * torch.rand(o.shape).to(o.device)).sum() for o in floats)
        total.backward()
        grads = [a.grad for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()]
        results.append((outs, grads))
    (eager, eager_grads), (got, got_grads) = results
    assert_same(tuple(o.detach() for o in eager), tuple(o.detach() for o in got), rtol, atol)
    assert_same(eager_grads, got_grads, rtol, atol)
    _no_fallback()


# ------------------------------------------------------------ embedding bag
INDICES = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 7, 2, 2])
OFFSETS = torch.tensor([0, 4, 4, 6, 9])  # an empty bag, a bag of padding only (9..10)


@pytest.mark.sweep("include_last_offset", reason="every mode and padding index with one "
                   "offsets convention, in turn; the product is slow")
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_embedding_bag(mode, padding_idx, include_last_offset):
    torch.manual_seed(0)
    weight = torch.randn(10, 3)
    # with include_last_offset the last offset is the end of the indices
    offsets = torch.cat([OFFSETS, torch.tensor([len(INDICES)])]) if include_last_offset \
        else OFFSETS

    def fn(w):
        return F.embedding_bag(lazy_like(INDICES, w), w, lazy_like(offsets, w), mode=mode,
                               padding_idx=padding_idx, include_last_offset=include_last_offset)

    check(fn, weight)


def lazy_like(t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return t.to(like.device)


@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_bag_per_sample_weights(padding_idx):
    torch.manual_seed(1)
    weight, psw = torch.randn(10, 5), torch.rand(len(INDICES))

    def fn(w, s):
        return F.embedding_bag(lazy_like(INDICES, w), w, lazy_like(OFFSETS, w), mode="sum",
                               per_sample_weights=s, padding_idx=padding_idx)

    check(fn, weight, psw)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input_module_and_no_grad(mode):
    """2-d input (one bag per row), the module, and the forward-only kernel."""
    torch.manual_seed(2)
    bag = torch.nn.EmbeddingBag(12, 4, mode=mode)
    x = torch.randint(0, 12, (5, 3))
    expected = bag(x)
    lazy_bag = _lazy_module(bag)
    assert_same(expected.detach(), lazy_bag(lazy(x)).detach())
    with torch.no_grad():
        assert_same(bag(x), lazy_bag(lazy(x)))
    _no_fallback()


def _lazy_module(module):
    return copy.deepcopy(module).to(DEV)


def test_embedding_bag_aux_outputs_match_the_cpu_kernel():
    torch.manual_seed(3)
    weight = torch.randn(10, 3)
    for op in (torch.ops.aten._embedding_bag, torch.ops.aten._embedding_bag_forward_only):
        for mode in (0, 1, 2):
            for last in (False, True):
                offsets = torch.cat([OFFSETS, torch.tensor([len(INDICES)])]) if last else OFFSETS
                args = (INDICES, offsets, False, mode, False, None, last, 2)
                assert_same(op(weight, *args), op(lazy(weight), *lazy(args)))
    _no_fallback()


def test_embedding_scale_grad_by_freq():
    """nn.Embedding's gradient divided by each index's count in the batch
    (it raised NotImplementedError before)."""
    torch.manual_seed(4)
    idx = torch.tensor([[1, 2, 4, 5], [4, 3, 2, 9], [2, 2, 0, 1]])
    check(lambda w: F.embedding(lazy_like(idx, w), w, padding_idx=0, scale_grad_by_freq=True),
          torch.randn(10, 3))


def test_embedding_bag_max_norm_renormalizes_the_looked_up_rows():
    torch.manual_seed(5)
    weight = torch.randn(10, 3) * 2
    eager_w, lazy_w = weight.clone(), lazy(weight)
    expected = F.embedding_bag(INDICES, eager_w, OFFSETS, max_norm=1.5)
    actual = F.embedding_bag(lazy(INDICES), lazy_w, lazy(OFFSETS), max_norm=1.5)
    assert_same(expected, actual)
    assert_same(eager_w, lazy_w)  # rows renormalized in place
    _no_fallback()


def test_text_classification_model_trains_like_eager():
    """The torch text-classification tutorial's model: EmbeddingBag (mean)
    + Linear, trained with SGD on flattened token lists and offsets."""
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = torch.nn.EmbeddingBag(50, 8)
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, text, offsets):
            return self.fc(self.embedding(text, offsets))

    torch.manual_seed(6)
    eager = Model()
    model = _lazy_module(eager)
    text, offsets = torch.randint(0, 50, (40,)), torch.tensor([0, 7, 15, 15, 30])
    labels = torch.randint(0, 4, (5,))
    for m, args in ((eager, (text, offsets, labels)), (model, lazy((text, offsets, labels)))):
        opt = torch.optim.SGD(m.parameters(), lr=5.0)
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(m(*args[:2]), args[2])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(m.parameters(), 0.1)
            opt.step()
    for p, q in zip(eager.parameters(), model.parameters(), strict=True):
        assert_same(p.detach(), q.detach())
    _no_fallback()


# ---------------------------------------------------- adaptive max pooling
@pytest.mark.parametrize(("shape", "size"), [
    ((2, 3, 7, 5), (3, 2)), ((3, 9, 10), (4, 7)), ((1, 2, 8, 8), (1, 1)),
    ((2, 2, 6, 6), (3, 3)), ((2, 5, 4), (5, 4)), ((1, 2, 5, 3), (7, 4)),
])
def test_adaptive_max_pool2d(shape, size):
    torch.manual_seed(7)
    check(lambda x: F.adaptive_max_pool2d(x, size, return_indices=True), torch.randn(shape))


@pytest.mark.parametrize(("shape", "size"), [((2, 3, 5, 7, 4), (2, 3, 3)),
                                             ((2, 4, 6, 5), (1, 4, 2))])
def test_adaptive_max_pool3d(shape, size):
    torch.manual_seed(8)
    check(lambda x: F.adaptive_max_pool3d(x, size, return_indices=True), torch.randn(shape))


def test_adaptive_max_pool1d_and_ties():
    """Ties pick the first maximum in row-major order (integer-valued
    input with many equal values); the gradient goes to that element."""
    torch.manual_seed(9)
    check(lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True), torch.randn(2, 3, 11))
    ties = torch.randint(0, 3, (2, 3, 7, 9)).float()
    check(lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True), ties)


def test_adaptive_max_pool2d_nan_is_the_maximum():
    x = torch.randn(1, 1, 5, 5)
    x[0, 0, 1, 1] = x[0, 0, 1, 2] = float("nan")
    check(lambda t: F.adaptive_max_pool2d(t, (2, 2), return_indices=True), x)


# ---------------------------------------------------------------- bilinear
@pytest.mark.parametrize("batch", [(4,), (2, 3), ()])
def test_bilinear(batch):
    torch.manual_seed(10)
    x1, x2 = torch.randn(*batch, 5), torch.randn(*batch, 3)
    w, b = torch.randn(7, 5, 3), torch.randn(7)
    check(F.bilinear, x1, x2, w, b, rtol=1e-5, atol=1e-5)
    check(lambda a, c, d: F.bilinear(a, c, d), x1, x2, w, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------- shrink gradients
@pytest.mark.parametrize("fn", [F.hardshrink, F.softshrink])
@pytest.mark.parametrize("lambd", [0.5, 1.25])
def test_shrink_backward(fn, lambd):
    x = torch.tensor([-2.0, -1.25, -0.7, -0.5, 0.0, 0.3, 0.5, 1.0, 1.25, 3.0, float("nan")])
    check(lambda t: fn(t, lambd), x)
    check(lambda t: fn(t, lambd), torch.randn(3, 4, 5))


# ------------------------------------------------------------------ losses
@pytest.mark.sweep("weighted", reason="every p and reduction weighted or "
                   "not, in turn; the product is slow")
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_loss(p, reduction, weighted):
    torch.manual_seed(11)
    x, target = torch.randn(6, 5), torch.tensor([0, 4, 2, 2, 1, 3])
    weight = torch.rand(5) if weighted else None

    def fn(t):
        return F.multi_margin_loss(t, lazy_like(target, t), p=p, margin=0.7,
                                   weight=None if weight is None else lazy_like(weight, t),
                                   reduction=reduction)

    check(fn, x)
    check(lambda t: F.multi_margin_loss(t, lazy_like(torch.tensor(3), t), p=p,
                                        reduction=reduction), torch.randn(5))
    check(lambda t: F.multi_margin_loss(t, lazy_like(torch.tensor(0), t), p=p,
                                        reduction=reduction), torch.randn(()))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss(reduction):
    torch.manual_seed(12)
    x = torch.randn(4, 5)
    # slots after the first -1 are ignored; a row may list nothing
    target = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 2, 3, 4],
                           [4, 4, -1, -1, 0]])
    check(lambda t: F.multilabel_margin_loss(t, lazy_like(target, t), reduction=reduction), x)
    check(lambda t: F.multilabel_margin_loss(t, lazy_like(target[0], t), reduction=reduction),
          x[0])


def test_multilabel_margin_loss_forward_outputs():
    """The loss and torch's is_target output, 1-d input with reduction none
    giving a 0-d loss."""
    torch.manual_seed(13)
    x, y = torch.randn(5), torch.tensor([3, 0, -1, 1, -1])
    op = torch.ops.aten.multilabel_margin_loss_forward
    for reduction in (0, 1, 2):
        assert_same(op(x, y, reduction), op(lazy(x), lazy(y), reduction))
        for target in (0, -1):  # a 0-d input: one class
            t = torch.tensor(target)
            assert_same(op(x[0], t, reduction), op(lazy(x[0]), lazy(t), reduction))
    _no_fallback()


# --------------------------------------------------------------- distances
P_NORMS = [0, 0.5, 1, 1.5, 2, 3, float("inf")]


@pytest.mark.parametrize("p", P_NORMS)
def test_pdist(p):
    """Forward and gradient, with two equal rows (distance 0: gradient 0)."""
    torch.manual_seed(14)
    x = torch.randn(6, 4)
    x[4] = x[1]
    check(lambda t: torch.pdist(t, p), x, rtol=1e-5, atol=1e-5)


@pytest.mark.sweep("s1", "s2", reason="every p with one pair of shapes, "
                   "pairs in turn; the product is slow")
@pytest.mark.parametrize("p", P_NORMS)
@pytest.mark.parametrize(("s1", "s2"), [((5, 3), (4, 3)), ((2, 5, 3), (4, 3)),
                                        ((5, 3), (2, 4, 3)), ((30, 3), (27, 3))])
def test_cdist_backward(p, s1, s2):
    """Both gradients (torch's _cdist_backward), batch dims broadcast, the
    matmul form above 25 rows, and (below) a pair at distance 0 (the
    matmul form's gradient there is rounding noise in eager torch)."""
    torch.manual_seed(15)
    x1, x2 = torch.randn(s1), torch.randn(s2)
    if s1[-2] <= 25:
        if x1.ndim >= x2.ndim:
            x1[..., 1, :] = x2[..., 2, :]
        else:
            x2[..., 2, :] = x1[..., 1, :]
    check(lambda a, b: torch.cdist(a, b, p), x1, x2, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------- rrelu
def test_rrelu_eval_is_leaky_relu_with_the_mean_slope():
    torch.manual_seed(16)
    check(lambda t: F.rrelu(t, 0.1, 0.3, training=False), torch.randn(4, 5))


def test_rrelu_training_draws_slopes_and_its_gradient_uses_them():
    torch.manual_seed(17)
    x = torch.randn(6, 7)
    t = lazy(x).requires_grad_()
    out = F.rrelu(t, 0.1, 0.3, training=True)
    out.sum().backward()
    y, grad, negative = out.detach().cpu(), t.grad.cpu(), x <= 0
    slopes = y[negative] / x[negative]
    assert ((slopes >= 0.1) & (slopes <= 0.3)).all() and len(set(slopes.tolist())) > 1
    torch.testing.assert_close(grad[negative], slopes)
    assert (y[~negative] == x[~negative]).all() and (grad[~negative] == 1).all()
    _no_fallback()
