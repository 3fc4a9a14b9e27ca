"""Neural-network ATen ops (forward and backward) onto the core's shared
NN composites (``lazytensor.core.composite.nn.functional``, ``activations``,
``losses``) and matrix products. Only torch's argument conventions live
here: reduction enums, ``output_mask``s, saved statistics, in-place running
stats, torch's index layout of max pooling."""

from __future__ import annotations

import numpy as np
from lazytensor.core import Node, Op, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import (
    as_node,
    broadcast_shapes,
    broadcast_to,
    convert,
)
from lazytensor.core.composite.linalg.matmul import matmul
from lazytensor.core.composite.nn import activations as act
from lazytensor.core.composite.nn import bags, layers, losses
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.core.composite.nn import normalization as norm
from lazytensor.core.composite.reduce import reduction as R
from lazytensor.torch import _promotion as P
from lazytensor.torch._rng import next_key
from lazytensor.torch._tensor import NUMPY_OF, scalar_type_name, wrap
from lazytensor.torch.aten._common import (
    aten,
    dim,
    elementwise,
    node,
    operand,
    opmath,
)
from lazytensor.torch.aten.checks import (
    bias_dtype,
    check_conv,
    check_pool,
    nll_checks,
    nll_target,
    same_dtype,
)
from lazytensor.torch.aten.indexing import index_checked

import torch

REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _masked(outs, output_mask) -> tuple:
    """Backward results torch asked for (``output_mask``), None for the rest."""
    return tuple(wrap(o) if keep and o is not None else None
                 for o, keep in zip(outs, output_mask, strict=False))


def _opt(x) -> Node | None:
    return None if x is None else node(x)


# ------------------------------------------------------------ products
def _mm_node(a, b) -> Node:
    na, nb = operand(a), operand(b)
    if na.ndim != 2 or nb.ndim != 2:
        raise RuntimeError(f"{'self' if na.ndim != 2 else 'mat2'} must be a matrix")
    if na.shape[1] != nb.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({na.shape[0]}x"
                           f"{na.shape[1]} and {nb.shape[0]}x{nb.shape[1]})")
    same_dtype("mm", na, nb)
    return make(Op.DOT_GENERAL, (na, nb), _MM_DIMS, None)


_MM_DIMS = (((1,), (0,)), ((), ()))


def _mm(a, b):
    return wrap(_mm_node(a, b))


def _bmm(a, b):
    na, nb = operand(a), operand(b)
    if na.ndim != 3 or nb.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if na.ndim != 3
                           else "batch2 must be a 3D tensor")
    if na.shape[0] != nb.shape[0] or na.shape[2] != nb.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{na.shape[0]}, {na.shape[2]}] but got: [{nb.shape[0]}, "
                           f"{nb.shape[1]}].")
    same_dtype("bmm", na, nb)
    return wrap(make(Op.DOT_GENERAL, (na, nb), (((2,), (1,)), ((0,), (0,))), None))


def _addmm(bias, m1, m2, *, beta=1, alpha=1):
    if isinstance(bias, torch.Tensor):
        bias_dtype("addmm", operand(bias), operand(m1), operand(m2))
    return wrap(layers.scaled_sum(operand(bias), _mm_node(m1, m2), beta, alpha))


def _baddbmm(bias, b1, b2, *, beta=1, alpha=1):
    if isinstance(bias, torch.Tensor):
        bias_dtype("baddbmm", operand(bias), operand(b1), operand(b2))
    return wrap(layers.scaled_sum(operand(bias), node(_bmm(b1, b2)), beta, alpha))


def _dot(a, b):
    na, nb = operand(a), operand(b)
    if na.ndim != 1 or nb.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {na.ndim}D and {nb.ndim}D tensors")
    if na.shape != nb.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{na.shape[0]}] and src "
                           f"[{nb.shape[0]}] to have the same number of elements, but got "
                           f"{na.shape[0]} and {nb.shape[0]} elements respectively")
    same_dtype("dot", na, nb)
    return wrap(make(Op.DOT_GENERAL, (na, nb), (((0,), (0,)), ((), ())), None))


def _mv(m, v):
    nm, nv = operand(m), operand(v)
    same_dtype("mv", nm, nv)
    return wrap(matmul(nm, nv))


# ---------------------------------------------------------- convolution
def _convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding,
                 groups):
    nx, nw = operand(x), operand(weight)  # a CPU weight next to a lazy input: torch's error
    if nx.dtype != nw.dtype:  # torch's CPU wording
        raise RuntimeError(f"expected scalar type {scalar_type_name(nx.dtype)} but found "
                           f"{scalar_type_name(nw.dtype)}")

    check_conv(nx, nw, stride, padding, dilation, transposed, groups)

    def conv(a: Node) -> Node:
        out = layers.convolution(a, nw, stride, padding, dilation, transposed, output_padding,
                                 groups)
        return out if bias is None else cnn.bias_add(out, operand(bias), 1)

    return wrap(layers.batched(conv, nx, nw.ndim))


def _convolution_backward(grad, x, weight, bias_sizes, stride, padding, dilation, transposed,
                          output_padding, groups, output_mask):
    g, nx, nw = node(grad), node(x), node(weight)

    def forward(a: Node, b: Node) -> Node:
        return layers.convolution(a, b, stride, padding, dilation, transposed, output_padding,
                                  groups)

    gx, gw = cnn.vjp(forward, (nx, nw), g)
    gb = R.reduce("sum", g, tuple(d for d in range(g.ndim) if d != 1)) if output_mask[2] \
        else None
    return _masked((gx, gw, gb), output_mask)


# --------------------------------------------------------------- pooling
def _adaptive_avg_pool(x, output_size):
    return wrap(cnn.adaptive_avg_pool(node(x), tuple(int(s) for s in output_size)))


def _adaptive_avg_pool_backward(n: int):
    def impl(grad, x):
        g = node(grad)

        def forward(a: Node) -> Node:
            return cnn.adaptive_avg_pool(a, g.shape[-n:])

        return wrap(cnn.vjp(forward, (node(x),), g)[0])

    return impl


def _pool_args(n: int, kernel, stride, padding, dilation=1):
    kernel, stride, pads, dilation = layers.pool_args(n, kernel, stride, padding, dilation)
    for k, (p, _) in zip(kernel, pads, strict=False):
        if p > k // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation=1")
    return kernel, stride, pads, dilation


def _max_pool(n: int):
    def impl(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        nx = node(x)
        k, s, p, d = _pool_args(n, kernel_size, stride, padding, dilation)
        check_pool("max", nx.shape, k, s, p, d, ceil_mode)
        values, indices = cnn.max_pool_with_indices(nx, k, s, p, d, ceil_mode)
        return wrap(values), wrap(indices)

    return impl


def _max_pool_backward(n: int):
    def impl(grad, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
        return wrap(cnn.max_pool_backward(node(grad), node(indices), node(x).shape, n))

    return impl


def _avg_nodes(n, nx, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override) -> Node:
    k, s, p, _ = _pool_args(n, kernel_size, stride, padding)
    return cnn.avg_pool(nx, k, s, p, ceil_mode, count_include_pad, divisor_override)


def _avg_pool(n: int):
    def impl(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
        k, s, p, _ = _pool_args(n, kernel_size, stride, padding)
        check_pool("avg", tuple(x.shape), k, s, p, [1] * n, ceil_mode)
        return wrap(_avg_nodes(n, node(x), kernel_size, stride, padding, ceil_mode,
                               count_include_pad, divisor_override))

    return impl


def _avg_pool_backward(n: int):
    def impl(grad, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
             divisor_override):
        def forward(a: Node) -> Node:
            return _avg_nodes(n, a, kernel_size, stride, padding, ceil_mode, count_include_pad,
                              divisor_override)

        return wrap(cnn.vjp(forward, (node(x),), node(grad))[0])

    return impl


# ----------------------------------------------------------- normalization
def _layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    nx = node(x)
    k = len(normalized_shape)
    for name, p in (("weight", weight), ("bias", bias)):  # torch checks these first
        if p is not None and tuple(p.shape) != tuple(normalized_shape):
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(p.shape)} and normalized_shape = "
                               f"{list(normalized_shape)}")
    if tuple(nx.shape[nx.ndim - k:]) != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*, {', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(nx.shape)}")
    out, mean, rstd = norm.layer_norm(nx, k, _opt(weight), _opt(bias), eps)
    target = _stats_dtype(nx, weight, bias)
    return wrap(out), wrap(convert(mean, target)), wrap(convert(rstd, target))


def _stats_dtype(nx: Node, *params) -> np.dtype:
    """The dtype of the saved statistics of a half-precision norm: torch's
    CPU kernels keep the input's dtype unless a parameter is float32 (mixed
    types), where they keep float32."""
    if nx.dtype not in (dt.float16, dt.bfloat16):
        return nx.dtype
    mixed = any(p is not None and NUMPY_OF[p.dtype] != nx.dtype for p in params)
    return dt.float32 if mixed else nx.dtype


def _layer_norm_backward(grad, x, normalized_shape, mean, rstd, weight, bias, output_mask):
    gx, gw, gb = norm.layer_norm_backward(node(grad), node(x), node(mean), node(rstd),
                                         _opt(weight), len(normalized_shape))
    outs = (gx, gw if weight is not None else None, gb if bias is not None else None)
    return _masked(outs, output_mask)


def _batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    from lazytensor.torch._dispatch import assign

    nx = node(x)
    if training:
        mean, var, invstd = norm.batch_stats(nx, eps)
        if running_mean is not None:
            unbiased = layers.unbiased(var, nx.shape)
            for stat, new in ((running_mean, mean), (running_var, unbiased)):
                assign(stat, layers.update_running(node(stat), new, momentum))
    else:
        mean, invstd = layers.running_stats(node(running_mean), node(running_var), eps,
                                            nx.dtype)
    out = norm.batch_norm(nx, _opt(weight), _opt(bias), mean, invstd)
    target = _stats_dtype(nx, weight, bias, running_mean, running_var)
    if not training:
        empty = as_node(0, target, (0,))
        return wrap(out), wrap(empty), wrap(empty)
    return wrap(out), wrap(convert(mean, target)), wrap(convert(invstd, target))


def _batch_norm_backward(grad, x, weight, running_mean, running_var, save_mean, save_invstd,
                         train, eps, output_mask):
    nx = node(x)
    if train:
        mean, invstd = node(save_mean), node(save_invstd)
    else:
        mean = node(running_mean)
        invstd = layers.inverse_std(node(running_var), eps)
    gx, gw, gb = norm.batch_norm_backward(node(grad), nx, _opt(weight), mean, invstd, train)
    outs = (gx, gw, gb)
    return tuple(wrap(o) if keep else None for o, keep in zip(outs, output_mask, strict=False))


def _with_update(x, weight, bias, running_mean, running_var, momentum, eps):
    """_batch_norm_with_update (what F.batch_norm records in training): the
    statistics in torch's CPU dtypes (torch's decomposition kept float32 for
    half inputs) and its empty uint8 reserve."""
    out = _batch_norm(x, weight, bias, running_mean, running_var, True, momentum, eps)
    return (*out, wrap(as_node(0, dt.uint8, (0,))))


def _legit(x, weight, bias, running_mean, running_var, training, momentum, eps):
    return _batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps)


def _legit_no_stats(x, weight, bias, training, momentum, eps):
    return _batch_norm(x, weight, bias, None, None, True, momentum, eps)


def _legit_no_training(x, weight, bias, running_mean, running_var, momentum, eps):
    return _batch_norm(x, weight, bias, running_mean, running_var, False, momentum, eps)


# ----------------------------------------------------------------- softmax
def _softmax(log: bool):
    def impl(x, d, half_to_float=False):
        nx = node(x)
        if not dt.is_inexact(nx.dtype):
            raise NotImplementedError(f"\"softmax_lastdim_kernel_impl\" not implemented "
                                      f"for '{scalar_type_name(nx.dtype)}'")
        return wrap(act.softmax(nx, dim(d, nx.ndim), log))

    return impl


def _softmax_backward(log: bool):
    def impl(grad, output, d, input_dtype):
        g, y = node(grad), node(output)
        if y.ndim == 0:
            return wrap(as_node(0.0, y.dtype, ()))
        axis = dim(d, y.ndim)
        out = cnn.log_softmax_backward(g, y, axis) if log else cnn.softmax_backward(g, y, axis)
        return wrap(out)

    return impl


def _safe_softmax(x, d, dtype=None):
    nx = node(x)
    if dtype is not None:
        nx = convert(nx, NUMPY_OF[dtype])
    return wrap(cnn.safe_softmax(nx, dim(d, nx.ndim)))


# ------------------------------------------------------------------ losses
def _nll_nodes(x, target, weight, reduction, ignore_index):
    loss, total = losses.nll_loss(node(x), nll_target(node(target), True), _opt(weight),
                                  REDUCTIONS[reduction], ignore_index, 1)
    return wrap(loss), wrap(total)


def _nll(x, target, weight=None, reduction=1, ignore_index=-100):
    nll_checks(x, target, weight)
    return _nll_nodes(x, target, weight, reduction, ignore_index)


def _nll2d(x, target, weight=None, reduction=1, ignore_index=-100):
    nll_target(nll_target(node(target), True), False)
    if weight is not None and weight.numel() != x.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    return _nll_nodes(x, target, weight, reduction, ignore_index)


def _nll_backward(grad, x, target, weight, reduction, ignore_index, total_weight):
    return wrap(losses.nll_loss_backward(node(grad), node(x), node(target), _opt(weight),
                                         REDUCTIONS[reduction], ignore_index,
                                         node(total_weight), 1))


def _mse(x, target, reduction=1):
    def fn(a: Node, b: Node) -> Node:
        return losses.mse_loss(a, b, REDUCTIONS[reduction])

    return elementwise(fn, P.DEFAULT, x, target)


def _mse_backward(grad, x, target, reduction):
    def fn(g: Node, a: Node, b: Node) -> Node:
        return losses.mse_loss_backward(g, a, b, REDUCTIONS[reduction])

    nx = node(x)
    out = fn(node(grad), nx, broadcast_to(convert(node(target), nx.dtype), nx.shape))
    return wrap(out)


# ------------------------------------------------------------- activations
def _unary(fn, policy=P.INT_TO_FLOAT):
    """An activation of one tensor and torch's positional arguments."""
    return lambda x, *args: elementwise(lambda n: fn(n, *args), policy, x)


def _grad_operands(grad, saved) -> tuple[Node, Node]:
    """grad and saved promoted and broadcast together, as torch's pointwise
    backward kernels (TensorIterator ops) do: vmap's batching rules and
    forward-mode AD (``jacfwd``) pass a batched grad with an unbatched saved
    tensor, or the other way round."""
    _, out = P.dtypes_of(P.DEFAULT, grad, saved)
    g, s = node(grad), node(saved)
    shape = broadcast_shapes(g.shape, s.shape)
    return broadcast_to(convert(g, out), shape), broadcast_to(convert(s, out), shape)


def _grad_of(fn):
    """Backward ops (grad, saved, *args), pointwise in grad and saved."""
    def impl(grad, saved, *args):
        return wrap(fn(*_grad_operands(grad, saved), *args))

    return impl


def _gelu(x, *, approximate="none"):
    return elementwise(lambda n: act.gelu(n, approximate), P.INT_TO_FLOAT, x)


def _gelu_backward(grad, x, *, approximate="none"):
    return wrap(act.gelu_backward(*_grad_operands(grad, x), approximate))


def _log_sigmoid_forward(x):
    out = elementwise(act.log_sigmoid, P.DEFAULT, x)
    return out, wrap(as_node(0, node(out).dtype, (0,)))


# ------------------------------------------------------ dropout, embedding
def _native_dropout(x, p, train):
    nx = node(x)
    if not train or p == 0:
        return wrap(nx), wrap(as_node(True, dt.bool_, nx.shape))
    out, keep = cnn.dropout(nx, p, next_key())
    return wrap(out), wrap(keep)


def _native_dropout_backward(grad, mask, scale):
    """torch's ``grad * mask * scale``: an integer or bool grad gives the
    default float dtype (the float scale promotes it); a numeric mask
    multiplies."""
    g, m = node(grad), node(mask)
    if not dt.is_inexact(g.dtype):
        g = convert(g, NUMPY_OF[torch.get_default_dtype()])
    if not dt.is_bool(m.dtype):
        g = make(Op.MUL, (g, convert(m, g.dtype)))
        m = as_node(True, dt.bool_, g.shape)
    return wrap(layers.dropout_backward(g, m, scale))


def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    nw, ni = node(weight), node(indices)
    if nw.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if not dt.is_int(ni.dtype):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {indices.dtype} instead")
    return wrap(cnn.embedding(nw, ni))


def _embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    pad = None if padding_idx < 0 else padding_idx
    g, ni = node(grad), node(indices)
    if scale_grad_by_freq:
        g = bags.by_frequency(g, ni, num_weights)
    return wrap(cnn.embedding_backward(g, ni, num_weights, pad))


TABLE = {
    aten.mm: _mm, aten.bmm: _bmm, aten.addmm: _addmm, aten.baddbmm: _baddbmm, aten.dot: _dot,
    aten.mv: _mv, aten.convolution: _convolution,
    aten.convolution_backward: _convolution_backward,
    aten.max_pool2d_with_indices: _max_pool(2), aten.max_pool3d_with_indices: _max_pool(3),
    aten.max_pool2d_with_indices_backward: _max_pool_backward(2),
    aten.max_pool3d_with_indices_backward: _max_pool_backward(3),
    aten.avg_pool2d: opmath(_avg_pool(2)), aten.avg_pool3d: opmath(_avg_pool(3)),
    aten.avg_pool2d_backward: opmath(_avg_pool_backward(2)),
    aten.avg_pool3d_backward: opmath(_avg_pool_backward(3)),
    aten._adaptive_avg_pool2d: opmath(_adaptive_avg_pool),
    aten._adaptive_avg_pool3d: opmath(_adaptive_avg_pool),
    aten._adaptive_avg_pool2d_backward: opmath(_adaptive_avg_pool_backward(2)),
    aten._adaptive_avg_pool3d_backward: opmath(_adaptive_avg_pool_backward(3)),
    aten.native_layer_norm: _layer_norm, aten.native_layer_norm_backward: _layer_norm_backward,
    aten.native_batch_norm: _batch_norm, aten.native_batch_norm_backward: _batch_norm_backward,
    aten._batch_norm_with_update.default: _with_update,
    aten._native_batch_norm_legit.default: _legit,
    aten._native_batch_norm_legit.no_stats: _legit_no_stats,
    aten._native_batch_norm_legit_no_training: _legit_no_training,
    aten._softmax: opmath(_softmax(False)), aten._log_softmax: opmath(_softmax(True)),
    aten._softmax_backward_data: opmath(_softmax_backward(False)),
    aten._log_softmax_backward_data: opmath(_softmax_backward(True)),
    aten._safe_softmax: opmath(_safe_softmax),
    aten.nll_loss_forward: opmath(_nll), aten.nll_loss_backward: opmath(_nll_backward),
    aten.nll_loss2d_forward: opmath(_nll2d),
    aten.nll_loss2d_backward: opmath(_nll_backward),
    aten.mse_loss: opmath(_mse), aten.mse_loss_backward: opmath(_mse_backward),
    aten.gelu: _gelu, aten.gelu_backward: _gelu_backward,
    aten.silu: _unary(act.silu), aten.silu_backward: _grad_of(act.silu_backward),
    aten.mish: _unary(act.mish), aten.hardswish: _unary(act.hardswish),
    aten.hardsigmoid: _unary(act.hardsigmoid),
    aten.sigmoid_backward: _grad_of(act.sigmoid_backward),
    aten.tanh_backward: _grad_of(act.tanh_backward),
    aten.threshold_backward: _grad_of(lambda g, x, t: act.threshold_backward(g, x, t)),
    aten.hardtanh: _unary(act.hardtanh, P.DEFAULT),
    aten.leaky_relu: _unary(act.leaky_relu, P.DEFAULT), aten.elu: _unary(act.elu, P.DEFAULT),
    aten.softplus: _unary(act.softplus, P.DEFAULT),
    aten.log_sigmoid_forward: _log_sigmoid_forward,
    aten.native_dropout: _native_dropout, aten.native_dropout_backward: _native_dropout_backward,
    aten.embedding: index_checked("embedding", _embedding, 1),
    aten.embedding_dense_backward: _embedding_backward,
}
