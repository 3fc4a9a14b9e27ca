"""More neural-network ATen ops (forward and backward) onto the core's
composites: embedding bags (``composite.nn.bags``), adaptive max pooling,
``_trilinear`` (``nn.Bilinear``) as one einsum, the shrinkage gradients,
``rrelu``, the margin losses, CTC and antialiased resizing. Only torch's
argument conventions live here: mode and reduction enums, ``padding_idx=-1``
for none, the auxiliary outputs of ``_embedding_bag`` as torch's CPU kernel
shapes them."""

from __future__ import annotations

import numpy as np
from lazytensor.core import Node, Op, constant, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.image import resize
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.nn import activations as act
from lazytensor.core.composite.nn import bags, ctc, layers, losses
from lazytensor.core.composite.nn import fractional_pool as fractional
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.torch import _fallback
from lazytensor.torch._rng import next_key
from lazytensor.torch._tensor import LazyTensor, node_of_host, scalar_type_name, wrap
from lazytensor.torch.aten._common import aten, node, opmath, size_list
from lazytensor.torch.aten.nn import REDUCTIONS, _grad_of, _opt

import torch
from torch._decomp import decomposition_table

BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def _padding(padding_idx: int) -> int | None:
    return None if padding_idx < 0 else padding_idx


# ---------------------------------------------------------- embedding bags
def _embedding_bag(forward_only: bool):
    def impl(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
             per_sample_weights=None, include_last_offset=False, padding_idx=-1):
        nw, ni, no = node(weight), node(indices), node(offsets)
        for name, n in (("indices", ni), ("offsets", no)):
            if not dt.is_int(n.dtype) or n.ndim != 1:
                raise RuntimeError(f"_embedding_bag: expected 1-D integer {name}, got "
                                   f"{n.ndim}-D {n.dtype}")
        if per_sample_weights is not None and mode != 0:
            raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                      "per_sample_weights is only supported for mode='sum'")
        count = no.shape[0] - (1 if include_last_offset else 0)
        out, bag, sizes, argmax = bags.embedding_bag(nw, ni, no, count, BAG_MODES[mode],
                                                     _opt(per_sample_weights),
                                                     _padding(padding_idx))
        if mode == 0:  # torch's kernel leaves them zero (one per offset when forward only)
            sizes = argmax = const(0, dt.int64, (no.shape[0] if forward_only else count,))
        elif mode == 1:
            argmax = sizes
        return wrap(out), wrap(bag), wrap(sizes), wrap(argmax)

    return impl


def _bag_backward(grad, indices, offset2bag, bag_size, maximum_indices, num_weights,
                  scale_grad_by_freq, mode, per_sample_weights, padding_idx=-1):
    if scale_grad_by_freq:  # (see _embedding_bag_backward)
        return _fallback.eager(aten._embedding_bag_dense_backward.default)(
            grad, indices, offset2bag, bag_size, maximum_indices, num_weights,
            scale_grad_by_freq, mode, per_sample_weights, padding_idx)
    return wrap(bags.embedding_bag_backward(
        node(grad), node(indices), node(offset2bag), node(bag_size), node(maximum_indices),
        int(num_weights), BAG_MODES[mode], _opt(per_sample_weights), _padding(padding_idx)))


def _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
                            num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights,
                            padding_idx=-1):
    # run eagerly, counted: a sparse gradient (not supported on the lazy
    # device), and scale_grad_by_freq, which torch's CPU kernel computes with
    # the counts of other indices (1/4 for an index seen once, next to one
    # seen four times)
    if sparse or scale_grad_by_freq:
        return _fallback.eager(aten._embedding_bag_backward.default)(
            grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
            scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx)
    return _bag_backward(grad, indices, offset2bag, bag_size, maximum_indices, num_weights,
                         False, mode, per_sample_weights, padding_idx)


def _bag_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx=-1):
    if mode != 0:
        raise RuntimeError("embedding_bag_backward: per_sample_weights only supported for "
                           "mode='sum'")
    return wrap(bags.embedding_bag_weights_backward(node(grad), node(weight), node(indices),
                                                    node(offset2bag), _padding(padding_idx)))


def _embedding_renorm(weight, indices, max_norm, norm_type):
    return wrap(bags.renorm_rows(node(weight), node(indices), max_norm, norm_type))


# ---------------------------------------------------- adaptive max pooling
def _adaptive_max_pool(n: int):
    def impl(x, output_size):
        nx, size = node(x), size_list(output_size)
        name = f"adaptive_max_pool{n}d"
        if len(size) != n:
            raise RuntimeError(f"{name}(): internal error: output_size.size() must be {n}")
        if nx.ndim not in (n + 1, n + 2) or 0 in nx.shape[1:]:
            raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                               f"{list(nx.shape)}")
        if not dt.is_inexact(nx.dtype):
            raise NotImplementedError(f"\"{name}\" not implemented for "
                                      f"'{scalar_type_name(nx.dtype)}'")
        values, indices = cnn.adaptive_max_pool_with_indices(nx, size)
        return wrap(values), wrap(indices)

    return impl


def _adaptive_max_pool_backward(n: int):
    def impl(grad, x, indices):
        return wrap(cnn.max_pool_backward(node(grad), node(indices), node(x).shape, n))

    return impl


# -------------------------------------------------- fractional max pooling
def _meta(t):
    return torch.empty(t.shape, dtype=t.dtype, device="meta")


def _zeros(t):
    return torch.zeros(t.shape, dtype=t.dtype)


def _check_samples(x, samples, n: int) -> None:
    """torch's checks of ``_random_samples`` (it reads the first N rows);
    a wrong input rank is left to the meta kernel's error."""
    if x.dim() not in (n + 1, n + 2):
        return
    if samples.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    if samples.shape[0] < (x.shape[0] if x.dim() == n + 2 else 1):
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != x.shape[-n - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{samples.shape[2]}.")


def _fractional_max_pool(n: int):
    """torch's shape and dtype checks come from its meta kernel; the pooling
    is the core's ``fractional.fractional_max_pool``. torch's samples are
    (W, H) in 2-d, (T, H, W) in 3-d; the core takes them outermost first."""
    op = getattr(aten, f"fractional_max_pool{n}d").default

    def impl(x, kernel_size, output_size, random_samples):
        _check_samples(x, random_samples, n)
        try:
            op(_meta(x), kernel_size, output_size, _meta(random_samples))
        except RuntimeError:  # the CPU kernel's message (the error path only)
            op(_zeros(x), kernel_size, output_size, _zeros(random_samples))
            raise
        nx, ns = node(x), node(random_samples)
        batched = nx.ndim == n + 2
        if not batched:
            nx = cnn.reshape(nx, (1, *nx.shape))
        ns = make(Op.SLICE, (ns,), (0, 0, 0), (nx.shape[0], nx.shape[1], n), (1, 1, 1))
        if n == 2:
            ns = make(Op.REV, (ns,), (2,))
        values, indices = fractional.fractional_max_pool(nx, ns, size_list(kernel_size),
                                                          size_list(output_size))
        if not batched:
            values, indices = (cnn.reshape(v, v.shape[1:]) for v in (values, indices))
        return wrap(values), wrap(indices)

    return impl


def _fractional_max_pool_backward(n: int):
    def impl(grad, x, kernel_size, output_size, indices):
        return wrap(cnn.max_pool_backward(node(grad), node(indices), node(x).shape, n))

    return impl


# ------------------------------------------------------ bilinear products
def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """The core's trilinear product (nn.Bilinear's x1^T W x2 per output)."""
    return wrap(layers.trilinear(node(i1), node(i2), node(i3), expand1, expand2, expand3,
                                 sumdim))


# ------------------------------------------------------------------- rrelu
def _rrelu_with_noise(x, noise, lower=0.125, upper=1 / 3, training=False, generator=None):
    """Eval: leaky_relu with the mean slope. Training: the core's rrelu
    (drawn from the core's RNG), its slopes stored in ``noise``, as torch's
    kernel does."""
    from lazytensor.torch._dispatch import assign

    nx = node(x)
    if not training:
        return wrap(act.leaky_relu(nx, (lower + upper) / 2))
    out, slopes = act.rrelu(nx, lower, upper, next_key())
    assign(noise, ew.convert(slopes, node(noise).dtype))
    return wrap(out)


# ------------------------------------------------------------------ losses
def _multi_margin(x: Node, target, p=1, margin=1, weight=None, reduction=1) -> Node:
    return losses.multi_margin_loss(x, node(target), int(p), float(margin), _opt(weight),
                                    REDUCTIONS[reduction])


def _multi_margin_loss(x, target, p=1, margin=1, weight=None, reduction=1):
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    if target.dtype != torch.int64:
        raise RuntimeError(f"expected scalar type Long but found "
                           f"{scalar_type_name(node(target).dtype)}")
    return wrap(_multi_margin(node(x), target, p, margin, weight, reduction))


def _multi_margin_backward(grad, x, target, p, margin, weight=None, reduction=1):
    def forward(a: Node) -> Node:
        return _multi_margin(a, target, p, margin, weight, reduction)

    return wrap(cnn.vjp(forward, (node(x),), node(grad))[0])


def _multilabel_margin(x, target, reduction):
    nx, nt = node(x), node(target)
    if nx.ndim > 2 or nt.shape != nx.shape:
        raise RuntimeError(f"inconsistent target size: {list(nt.shape)} for input of size: "
                           f"{list(nx.shape)}")
    loss, is_target = losses.multilabel_margin_loss(nx, nt, REDUCTIONS[reduction])
    return wrap(loss), wrap(is_target)


def _multilabel_margin_backward(grad, x, target, reduction, is_target):
    def forward(a: Node) -> Node:
        return losses.multilabel_margin_loss(a, node(target), REDUCTIONS[reduction])[0]

    return wrap(cnn.vjp(forward, (node(x),), node(grad))[0])


# ------------------------------------------------- antialiased resampling
def _upsample_aa(kind: str):
    """_upsample_{bilinear,bicubic}2d_aa: the core's antialiased resampling
    of the last two axes."""
    def impl(x, output_size, align_corners, scales_h=None, scales_w=None):
        n = node(x)
        if n.dtype not in (dt.float32, dt.float64):
            raise NotImplementedError("\"compute_index_ranges_weights\" not implemented for "
                                      f"'{scalar_type_name(n.dtype)}'")
        if n.ndim != 4:
            raise RuntimeError(f"upsample_{kind}2d_aa: expected a 4-d input, got {n.ndim}-d")
        sizes = [int(s) for s in output_size]
        return wrap(resize.resize_antialiased(n, sizes, kind, align_corners,
                                              (scales_h, scales_w)))

    return impl


# ------------------------------------------------------------------- CTC
def _lengths(lengths) -> Node:
    """input/target lengths (a list, a CPU or a lazy tensor) as an int64 node."""
    if isinstance(lengths, torch.Tensor):
        if not (lengths.dtype.is_floating_point or lengths.dtype.is_complex):
            return ew.convert(node(lengths) if isinstance(lengths, LazyTensor)
                              else node_of_host(lengths), dt.int64)
        raise RuntimeError("input_lengths and target_lengths must be integral")
    return constant(np.asarray(list(lengths), dtype=np.int64), dt.int64)


def _ctc_parts(log_probs, targets, input_lengths, target_lengths):
    lp = node(log_probs)
    if lp.ndim != 3 or not dt.is_float(lp.dtype):
        raise RuntimeError(f"ctc_loss: expected 3-d floating log_probs, got {lp.ndim}-d "
                           f"{lp.dtype}")
    lens, labels = _lengths(input_lengths), _lengths(target_lengths)
    padded = ctc.padded_targets(ew.convert(node(targets), dt.int64), labels, lp.shape[1])
    return lp, padded, lens, labels


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
              zero_infinity=False):
    """_ctc_loss: the core's alpha recursion; (nll (N,), log_alpha)."""
    lp, padded, lens, labels = _ctc_parts(log_probs, targets, input_lengths, target_lengths)
    nll, alpha = ctc.ctc_loss(lp, padded, lens, labels, blank)
    return wrap(nll), wrap(alpha)


def _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths,
                       neg_log_likelihood, log_alpha, blank, zero_infinity=False):
    """torch's CTC gradient, the core's (through the log_softmax that torch
    assumes made ``log_probs``); samples of infinite loss get zeros with
    ``zero_infinity``."""
    lp, padded, lens, labels = _ctc_parts(log_probs, targets, input_lengths, target_lengths)
    return wrap(ctc.ctc_loss_backward(node(grad), lp, padded, lens, labels, blank,
                                      node(neg_log_likelihood), zero_infinity))


def _mask_left_aligned(t, mask) -> bool:
    """Whether every row of a (batch, seq) padding mask is its valid (True)
    entries first (nn.TransformerEncoder asks, in eval mode): a host answer,
    computed without moving ``t`` off the device."""
    m, nt = node(mask), node(t)
    if m.dtype != np.bool_:
        raise RuntimeError(f"Expected mask to be of ScalarType Bool, but got "
                           f"{scalar_type_name(m.dtype)} instead.")
    if m.ndim != 2:
        raise RuntimeError("Padding mask should be 2D")
    if nt.ndim < 2 or m.shape != nt.shape[:2]:
        raise RuntimeError("Mask size should match input size")
    gaps = make(Op.AND, (make(Op.NOT, (cs.slice_axis(m, 1, None, -1),)),
                         cs.slice_axis(m, 1, 1, None)))  # a False before a True
    return not bool(wrap(make(Op.REDUCE_OR, (gaps,), (0, 1))).item())


def _reflection_pad(n: int):
    """reflection_pad{n}d after torch's check that each pad is smaller than
    its dim (PyTorch's decomposition, which then runs, reads out of range
    silently): the last dim first, as Argument #4, then #6, #8."""
    op = getattr(aten, f"reflection_pad{n}d").default
    decomposed = decomposition_table[op]

    def impl(x, padding):
        for i in range(min(n, len(padding) // 2)):
            d = x.dim() - 1 - i
            lo, hi = padding[2 * i], padding[2 * i + 1]
            if d >= 0 and (lo >= x.shape[d] or hi >= x.shape[d]):
                raise RuntimeError(
                    f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                    f"input dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                    f"{list(x.shape)}")
        return decomposed(x, padding)

    return impl


def _grid_sampler_2d(x, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sampler_2d after torch's shape checks (PyTorch's decomposition,
    which then runs, asserted or failed in a reshape)."""
    sizes = f"input with sizes {list(x.shape)} and grid with sizes {list(grid.shape)}"
    if x.dim() != 4 or grid.dim() != 4:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of "
                           f"dimensions, but got {sizes}")
    if x.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got {sizes}")
    if grid.shape[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size 2 in last dimension, "
                           f"but got grid with sizes {list(grid.shape)}")
    return decomposition_table[aten.grid_sampler_2d.default](
        x, grid, interpolation_mode, padding_mode, align_corners)


TABLE = {
    aten.grid_sampler_2d.default: _grid_sampler_2d,
    aten.reflection_pad1d.default: _reflection_pad(1),
    aten.reflection_pad2d.default: _reflection_pad(2),
    aten.reflection_pad3d.default: _reflection_pad(3),
    aten._nested_tensor_from_mask_left_aligned.default: _mask_left_aligned,
    aten._ctc_loss.default: _ctc_loss, aten._ctc_loss.Tensor: _ctc_loss,
    aten._ctc_loss_backward.default: _ctc_loss_backward,
    aten._ctc_loss_backward.Tensor: _ctc_loss_backward,
    aten._upsample_bilinear2d_aa.default: _upsample_aa("bilinear"),
    aten._upsample_bicubic2d_aa.default: _upsample_aa("bicubic"),
    aten._embedding_bag: _embedding_bag(False),
    aten._embedding_bag_forward_only: _embedding_bag(True),
    aten._embedding_bag_backward: _embedding_bag_backward,
    aten._embedding_bag_dense_backward: _bag_backward,
    aten._embedding_bag_per_sample_weights_backward: _bag_weights_backward,
    aten.embedding_renorm.default: _embedding_renorm,
    aten.adaptive_max_pool2d: _adaptive_max_pool(2),
    aten.adaptive_max_pool3d: _adaptive_max_pool(3),
    aten.adaptive_max_pool2d_backward: _adaptive_max_pool_backward(2),
    aten.adaptive_max_pool3d_backward: _adaptive_max_pool_backward(3),
    aten.fractional_max_pool2d: _fractional_max_pool(2),
    aten.fractional_max_pool3d: _fractional_max_pool(3),
    aten.fractional_max_pool2d_backward: _fractional_max_pool_backward(2),
    aten.fractional_max_pool3d_backward: _fractional_max_pool_backward(3),
    aten._trilinear: _trilinear, aten.rrelu_with_noise: _rrelu_with_noise,
    aten.hardshrink_backward: _grad_of(act.shrink_backward),
    aten.softshrink_backward: _grad_of(act.shrink_backward),
    aten.multi_margin_loss: opmath(_multi_margin_loss),
    aten.multi_margin_loss_backward: opmath(_multi_margin_backward),
    aten.multilabel_margin_loss_forward: opmath(_multilabel_margin),
    aten.multilabel_margin_loss_backward: opmath(_multilabel_margin_backward),
}
