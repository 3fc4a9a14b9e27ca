"""``tf.nn`` on lazy arrays (the table ``APIS``; see ``lazytensor.tf.tf_api``):
activations, losses, normalization, convolution (and its transpose),
pooling, block rearrangement (space_to_depth) and embedding
lookup. The math is the core's (``composite.nn.activations``, ``losses``,
``nn``, ``layers``); only TensorFlow's conventions live here: argument
names, per-dim arguments given as 1, N or N+2 values, channels-last
layouts with ``data_format``, explicit padding pairs, dtype rules and
TensorFlow's error types.

Values a lazy graph cannot check (a class label or an embedding id out of
range: eager TensorFlow on CPU raises) give NaN (a NaN loss, as TensorFlow
on GPU, and NaN rows of a floating table, where TensorFlow on GPU reads
zeros): never a plausible number. ``tf.nn.dropout`` and ``tf.nn.pool`` are in
``nn_extra``.
"""

from __future__ import annotations

import collections

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import broadcast_shapes, broadcast_to, convert
from lazytensor.core.composite.movement.shape import moveaxis, reshape
from lazytensor.core.composite.nn import activations as act
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.core.composite.nn import layers, losses
from lazytensor.core.composite.nn import normalization as norm
from lazytensor.core.composite.reduce import accumulate as accumulate
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make
from lazytensor.tf import _tf
from lazytensor.tf.tf_api import array_ops
from lazytensor.tf.tf_api._dispatch import (
    dtype_arg,
    host_int,
    is_tensor,
    natural_dtype,
    operands,
    tensor,
)

_FLOATS = "half, bfloat16, float, double"


def _invalid(message: str):
    """TensorFlow's InvalidArgumentError (what its kernels raise)."""
    return _tf.tf().errors.InvalidArgumentError(None, None, message)


def _floating(value, op: str) -> Node:
    """``value`` as a node of a real floating dtype (TensorFlow's kernels
    accept no other)."""
    node = tensor(value)
    if not dt.is_inexact(node.dtype) or dt.is_complex(node.dtype):
        raise DTypeError(f"Value for attr 'T' of {node.dtype} is not in the list of allowed "
                         f"values: {_FLOATS} [Op:{op}]")
    return node


def _first(args, kwargs, param: str):
    return args[0] if args else kwargs[param]


# ------------------------------------------------------------- activations
def _unary(fn, op: str, param: str = "features", floating: bool = True):
    """An activation of one tensor argument (named ``param``, TensorFlow's name)."""
    def impl(*args, name=None, **kwargs):
        value = _first(args, kwargs, param)
        return fn(_floating(value, op) if floating else tensor(value))

    return impl


def _relu6(features, name=None):
    return act.kinked_relu(tensor(features), 6)


def _leaky_relu(features, alpha=0.2, name=None):
    node = tensor(features)
    if dt.is_int(node.dtype):  # TensorFlow computes integer inputs in float32
        node = convert(node, dt.float32)
    return act.leaky_relu(node, float(alpha))


def _gelu(features, approximate=False, name=None):
    node = tensor(features)
    if not dt.is_inexact(node.dtype):
        raise ValueError("`features.dtype` must be a floating point tensor."
                         f"Received:features.dtype={_tf.as_tf_dtype(node.dtype)}")
    return act.gelu(node, "tanh" if approximate else "none")


def _silu(features, beta=1.0):
    node = _floating(features, "Sigmoid")
    return act.silu(node, tensor(beta, node.dtype) if is_tensor(beta) else beta)


def _softmax(log: bool):
    def impl(logits, axis=None, name=None):
        node = _floating(logits, "LogSoftmax" if log else "Softmax")
        axis = -1 if axis is None else host_int(axis)
        if node.ndim == 0:
            raise ShapeError("logits must have >= 1 dimension, got shape []")
        if not -node.ndim <= axis < node.ndim:
            raise _invalid(f"`dim` must be in the range [{-node.ndim}, {node.ndim}) where "
                           f"{node.ndim} is the number of dimensions in the input. "
                           f"Received: dim={axis}")
        return act.softmax(node, axis, log)

    return impl


# ------------------------------------------------------------------ losses
def _softmax_cross_entropy(labels, logits, axis=-1, name=None):
    x = _floating(logits, "SoftmaxCrossEntropyWithLogits")
    z = convert(tensor(labels, x.dtype), x.dtype)
    try:
        shape = broadcast_shapes(x.shape, z.shape)
    except ShapeError:
        raise _invalid(f"logits and labels must be broadcastable: logits_size={list(x.shape)} "
                       f"labels_size={list(z.shape)}") from None
    x, z = broadcast_to(x, shape), broadcast_to(z, shape)
    axis = caxes.normalize_axis(host_int(axis), x.ndim)
    return losses.cross_entropy(x, z, reduction="none", class_axis=axis)


def _sparse_softmax_cross_entropy(labels, logits, name=None):
    x = _floating(logits, "SparseSoftmaxCrossEntropyWithLogits")
    t = tensor(labels)
    if t.dtype not in (dt.int32, dt.int64):
        raise DTypeError(f"Value for attr 'Tlabels' of {t.dtype} is not in the list of "
                         "allowed values: int32, int64")
    if x.ndim == 0 or t.shape != x.shape[:-1]:
        raise ValueError("`labels.shape` must equal `logits.shape` except for the last "
                         f"dimension. Received: labels.shape={t.shape} and "
                         f"logits.shape={x.shape}")
    host = array_ops.host_indices(labels)  # known labels: checked as TensorFlow's CPU kernel
    if host is not None and ((host < 0) | (host >= x.shape[-1])).any():
        bad = host[(host < 0) | (host >= x.shape[-1])].flat[0]
        raise _invalid(f"Received a label value of {bad} which is outside the valid range of "
                       f"[0, {x.shape[-1]}).")
    return losses.sparse_cross_entropy(x, t, -1)


def _same_shape(x: Node, z: Node, names: str = "`logits` and `labels`") -> None:
    if x.shape != z.shape:
        raise ValueError(f"{names} must have the same shape, received "
                         f"({x.shape} vs {z.shape}).")


def _sigmoid_cross_entropy(labels=None, logits=None, name=None):
    x, z = operands(logits, labels, op="Mul")
    _floating(x, "Sigmoid")
    _same_shape(x, z)
    return losses.sigmoid_cross_entropy(x, z)


def _weighted_cross_entropy(labels, logits, pos_weight, name=None):
    x, z = operands(logits, labels, op="Mul")
    _floating(x, "Exp")
    _same_shape(x, z)
    q = tensor(pos_weight, x.dtype)
    if q.dtype != x.dtype:
        raise DTypeError(f"cannot compute Mul as input #1(zero-based) was expected to be a "
                         f"{x.dtype} tensor but is a {q.dtype} tensor")
    return losses.sigmoid_cross_entropy(x, z, broadcast_to(q, broadcast_shapes(q.shape, x.shape)))


def _l2_loss(t, name=None):
    return losses.l2_loss(_floating(t, "L2Loss"))


def _log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    x, t = operands(log_input, targets, op="Mul")
    _floating(x, "Exp")
    _same_shape(x, t, "`log_input` and `targets`")
    return losses.poisson_nll(x, t, bool(compute_full_loss))


# ---------------------------------------------------- normalization, moments
def _l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    node = tensor(x)
    if not dt.is_inexact(node.dtype) or dt.is_complex(node.dtype):
        raise TypeError(f"Cannot convert {epsilon} to EagerTensor of dtype {node.dtype}")
    axis = dim if axis is None else axis
    axes = caxes.normalize_axes(host_int(axis), node.ndim)
    return layers.l2_normalize(node, axes, float(epsilon))


def _moments(x, axes, shift=None, keepdims=False, name=None):
    node = tensor(x)
    if not dt.is_inexact(node.dtype):
        raise NotImplementedError("integer moments")  # TensorFlow truncates: eager, counted
    mean, var = norm.moments(node, host_int(axes), bool(keepdims))
    return convert(mean, node.dtype), convert(var, node.dtype)


def _weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    node = _floating(x, "Mul")
    moments = norm.weighted_moments(node, host_int(axes), tensor(frequency_weights, node.dtype),
                                   bool(keepdims))
    return tuple(convert(m, node.dtype) for m in moments)


def _sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    node = _floating(x, "Sum")
    shift = None if shift is None else tensor(shift, node.dtype)
    return *norm.sufficient_statistics(node, host_int(axes), shift, bool(keepdims)), shift


def _normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    count, m_ss, v_ss = operands(counts, mean_ss, variance_ss, op="Mul")
    _floating(count, "Reciprocal")
    return norm.moments_from_sums(count, m_ss, v_ss,
                                  None if shift is None else tensor(shift, count.dtype))


def _batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    node = _floating(x, "Rsqrt")
    stats = [None if v is None else tensor(v, node.dtype) for v in (mean, variance, offset,
                                                                     scale)]
    return layers.normalize(node, *stats, float(variance_epsilon))


def _channels_first(data_format) -> bool:
    return data_format is not None and str(data_format).startswith("NC")


def _channel_axis(ndim: int, data_format) -> int:
    return 1 if _channels_first(data_format) else ndim - 1


def _bias_add(value, bias, data_format=None, name=None):
    x, b = operands(value, bias, op="BiasAdd")
    if x.ndim < 2:
        raise _invalid(f"Input tensor must be at least 2D: {list(x.shape)}")
    if b.ndim != 1:
        raise _invalid(f"Biases must be 1D: {list(b.shape)}")
    axis = _channel_axis(x.ndim, data_format)
    if b.shape[0] != x.shape[axis]:
        raise _invalid(f"Must provide as many biases as the channel dimension of the input "
                       f"tensor: {list(b.shape)} vs. {list(x.shape)}")
    return cnn.bias_add(x, b, axis)


# ------------------------------------------------------ convolution, pooling
def _per_dim(value, n: int, channels_first: bool, what: str, default: int = 1,
             ) -> tuple[int, ...]:
    """A per-spatial-dim argument given as one value or 1, n or n + 2 values
    (the n + 2 form names the batch and channel dims too)."""
    value = host_int(value)
    value = default if value is None else value
    if not isinstance(value, int) and len(value) == n + 2:
        return tuple(value[2:] if channels_first else value[1:-1])
    out = layers.expand_per_dim(value, n)
    if len(out) != n:
        raise ValueError(f"{what} should be of length 1, {n} or {n + 2}. Received: "
                         f"{what}={list(value)} of length {len(value)}")
    return out


def _padding(padding, n: int, channels_first: bool):
    """'SAME', 'VALID', or explicit (low, high) pairs of the spatial dims
    (given for all n + 2 dims, the batch and channel pairs zero)."""
    if isinstance(padding, str):
        if padding not in ("SAME", "VALID"):
            raise _invalid(f"Value for attr 'padding' of \"{padding}\" is not in the list of "
                           "allowed values: \"SAME\", \"VALID\", \"EXPLICIT\"")
        return padding
    pairs = tuple(tuple(int(v) for v in pair) for pair in host_int(padding))
    if len(pairs) != n + 2 or any(len(p) != 2 for p in pairs):
        raise ValueError(f"When padding is explicit, it must be a list of {n + 2} pairs "
                         f"(one per dimension). Received: padding={padding}")
    outer = (pairs[0], pairs[1]) if channels_first else (pairs[0], pairs[-1])
    if any(outer_pair != (0, 0) for outer_pair in outer):
        raise ValueError(f"Padding of the batch and channel dimensions must be zero. "
                         f"Received: padding={padding}")
    return pairs[2:] if channels_first else pairs[1:-1]


def _conv_nodes(input, filters, strides, padding, data_format, dilations, op: str) -> Node:
    x, w = operands(input, filters, op=op)
    n = w.ndim - 2
    first = _channels_first(data_format)
    if n < 1 or x.ndim < n + 2:
        raise ValueError(f"`input` must have at least {n + 2} dimensions for a {n}-d "
                         f"convolution. Received: input.shape={x.shape}")
    channels = x.shape[x.ndim - n - 1 if first else -1]
    depth, out = w.shape[-2:]
    if depth == 0 or channels % depth or out % (channels // depth):
        raise _invalid(f"input depth must be evenly divisible by filter depth: {channels} vs "
                       f"{depth}")
    stride = _per_dim(strides, n, first, "strides")
    dilation = _per_dim(dilations, n, first, "dilations")
    return layers.conv_hwio(x, w, stride, _padding(padding, n, first), dilation, first)


def _conv(n: int | None, op: str):
    """conv1d / conv2d / conv3d (``n`` spatial dims) and convolution (any)."""
    def impl(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,
             name=None):
        w = tensor(filters, natural_dtype(input) if is_tensor(input) else None)
        if n is not None and w.ndim != n + 2:
            raise ValueError(f"`filters` must be a {n + 2}-d tensor for {op}. Received: "
                             f"filters.shape={w.shape}")
        return _conv_nodes(input, w, strides, padding, data_format, dilations, op)

    return impl


def _conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    return _conv(1, "Conv1D")(input, filters, stride, padding, data_format, dilations)


def _depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None,
                      name=None):
    w = tensor(filter)
    if w.ndim != 4:
        raise ValueError(f"`filter` must be 4-d for depthwise_conv2d. Received: {w.shape}")
    x = tensor(input)
    channels = x.shape[1 if _channel_axis(x.ndim, data_format) == 1 else -1]
    if w.shape[2] != channels:
        raise _invalid(f"input and filter must have the same depth: {channels} vs {w.shape[2]}")
    flat = reshape(w, (*w.shape[:2], 1, w.shape[2] * w.shape[3]))
    return _conv_nodes(x, flat, strides, padding, data_format, dilations,
                       "DepthwiseConv2dNative")


def _conv_transpose(n: int | None, op: str):
    """conv{1,2,3}d_transpose and conv_transpose: the gradient of the
    convolution (filters (*K, out, in)) whose input has ``output_shape``."""
    def impl(input, filters, output_shape, strides, padding="SAME", data_format=None,
             dilations=None, name=None):
        x, w = operands(input, filters, op=op)
        dims = w.ndim - 2
        first = _channels_first(data_format)
        if (n is not None and dims != n) or x.ndim != dims + 2:
            raise ValueError(f"`input` must be {dims + 2}-d and `filters` {n or dims + 2}-d for "
                             f"{op}. Received: {x.shape} and {w.shape}")
        out = host_int(output_shape)
        out = (out,) if isinstance(out, int) else tuple(out)
        spatial = _per_dim(out, dims, first, "output_shape")
        if not first:
            x = moveaxis(x, -1, 1)
        if x.shape[1] != w.shape[-1]:
            raise _invalid(f"input depth {x.shape[1]} does not match the filter's "
                           f"{w.shape[-1]}")
        stride = _per_dim(strides, dims, first, "strides")
        dilation = _per_dim(dilations, dims, first, "dilations")
        try:
            pads, extra = layers.transpose_padding(x.shape[2:], spatial, w.shape[:dims], stride,
                                                   _padding(padding, dims, first), dilation)
        except ShapeError as error:
            raise _invalid(f"{op}: {error}") from None
        torch_layout = make(Op.TRANSPOSE, (w,), (dims + 1, dims, *range(dims)))
        y = cnn.conv_transpose(x, torch_layout, stride, pads, extra, dilation)
        return y if first else moveaxis(y, 1, -1)

    return impl


def _separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,
                      data_format=None, dilations=None, name=None):
    depthwise = _depthwise_conv2d(input, depthwise_filter, strides, padding, data_format,
                                  dilations)
    return _conv_nodes(depthwise, pointwise_filter, 1, "VALID", data_format, None, "Conv2D")


def _crelu(features, axis=-1, name=None):
    return act.crelu(tensor(features), host_int(axis))


def _pool(kind: str, n: int | None):
    """max/avg pooling over ``n`` spatial dims (None: the input's rank - 2)."""
    def impl(input, ksize, strides, padding, data_format=None, name=None):
        x = tensor(input)
        if kind == "avg":
            x = _floating(x, "AvgPool")
        dims = x.ndim - 2 if n is None else n
        if x.ndim != dims + 2 or dims < 1:
            raise _invalid(f"Input must be {dims + 2}-dimensional: {list(x.shape)}")
        first = _channels_first(data_format)
        kernel = _per_dim(ksize, dims, first, "ksize")
        stride = _per_dim(strides, dims, first, "strides")
        sizes = x.shape[2:] if first else x.shape[1:-1]
        pads = cnn.explicit_padding(_padding(padding, dims, first), sizes, kernel, stride,
                                    (1,) * dims)
        if any(s + lo + hi < k for s, k, (lo, hi) in zip(sizes, kernel, pads, strict=True)):
            raise _invalid(f"Computed output size would be negative: window {kernel} over "
                           f"{sizes}")
        if kind == "max":
            return cnn.max_pool(x, kernel, stride, pads, channels_last=not first)
        return cnn.avg_pool(x, kernel, stride, pads, count_include_pad=False,
                            channels_last=not first)

    return impl


def _blocks(fn, op: str):
    """space_to_depth / depth_to_space (NHWC; TensorFlow's CPU kernels have
    no other layout)."""
    def impl(input, block_size, data_format="NHWC", name=None):
        x = tensor(input)
        block = host_int(block_size)
        if data_format != "NHWC" or x.ndim != 4 or block < 2:
            raise _invalid(f"{op} takes a 4-d NHWC input and a block size >= 2; got "
                           f"{list(x.shape)}, {data_format}, {block}")
        return fn(x, block)

    return impl


def _local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    x = _floating(input, "LRN")
    if x.ndim != 4:
        raise _invalid("in must be 4-dimensional")
    return layers.local_response_norm(x, host_int(depth_radius), float(bias), float(alpha),
                                      float(beta))


def _zero_fraction(value, name=None):
    return accumulate.zero_fraction(tensor(value))


def _in_top_k(targets, predictions, k, name=None):
    p, t = _floating(predictions, "InTopKV2"), tensor(targets)
    if t.dtype not in (dt.int32, dt.int64):
        raise DTypeError(f"Value for attr 'T' of {t.dtype} is not in the list of allowed "
                         "values: int32, int64")
    if p.ndim != 2 or t.shape != p.shape[:1]:
        raise _invalid(f"predictions must be 2-d and targets 1-d of its length: "
                       f"{list(p.shape)} vs {list(t.shape)}")
    return cnn.in_top_k(p, t, host_int(k))


def _max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",
                          output_dtype=None, include_batch_in_index=False, name=None):
    """Max pooling (NHWC) with each maximum's flat index into the input:
    ((b * H + y) * W + x) * C + c, the batch term only when asked (the
    core's)."""
    x = tensor(input)
    if data_format != "NHWC":
        raise ValueError("`data_format` values other  than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")
    if x.ndim != 4:
        raise _invalid(f"input must be 4-dimensional: {list(x.shape)}")
    kernel, stride = _per_dim(ksize, 2, False, "ksize"), _per_dim(strides, 2, False, "strides")
    pads = cnn.explicit_padding(_padding(padding, 2, False), x.shape[1:3], kernel, stride,
                                (1, 1))
    values, index = cnn.max_pool_flat_argmax(x, kernel, stride, pads,
                                             bool(include_batch_in_index))
    return MaxPoolWithArgmax(values, convert(index, dtype_arg(output_dtype) or dt.int64))


MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def _atrous_conv2d(value, filters, rate, padding, name=None):
    return _conv_nodes(value, filters, 1, padding, None, host_int(rate), "Conv2D")


def _embedding_lookup(params, ids, max_norm=None, name=None):
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("sharded tables")  # eager TensorFlow, counted
        params = params[0]
    table, index = tensor(params), tensor(ids)
    if not dt.is_int(index.dtype):
        raise DTypeError(f"Value for attr 'Tindices' of {index.dtype} is not in the list of "
                         "allowed values: int16, int32, int64")
    array_ops.check_gather(array_ops.host_indices(ids), table.shape[0], "GatherV2")
    rows = cnn.embedding(table, index, "fill")
    if max_norm is None:
        return rows
    return layers.clip_by_norm(rows, float(max_norm), tuple(range(index.ndim, rows.ndim)))


APIS = {
    "nn.relu": _unary(act.kinked_relu, "Relu", floating=False),
    "nn.relu6": _relu6,
    "nn.crelu": _crelu,
    "nn.elu": _unary(act.elu, "Elu"),
    "nn.selu": _unary(act.selu, "Selu"),
    "nn.gelu": _gelu,
    "nn.leaky_relu": _leaky_relu,
    "nn.silu": _silu,  # is tf.nn.swish
    "math.sigmoid": _unary(lambda x: make(Op.LOGISTIC, (x,)), "Sigmoid", "x"),  # tf.nn.sigmoid
    "math.softplus": _unary(act.softplus, "Softplus"),  # is tf.nn.softplus
    "nn.softsign": _unary(act.softsign, "Softsign"),  # is tf.math.softsign
    "math.log_sigmoid": _unary(act.log_sigmoid, "Softplus", "x"),
    "nn.softmax": _softmax(False),  # is tf.math.softmax
    "nn.log_softmax": _softmax(True),  # is tf.math.log_softmax
    "nn.softmax_cross_entropy_with_logits": _softmax_cross_entropy,
    "nn.sparse_softmax_cross_entropy_with_logits": _sparse_softmax_cross_entropy,
    "nn.sigmoid_cross_entropy_with_logits": _sigmoid_cross_entropy,
    "nn.weighted_cross_entropy_with_logits": _weighted_cross_entropy,
    "nn.l2_loss": _l2_loss,
    "nn.log_poisson_loss": _log_poisson_loss,
    "nn.l2_normalize": _l2_normalize,  # is tf.math.l2_normalize, tf.linalg.l2_normalize
    "nn.moments": _moments,
    "nn.weighted_moments": _weighted_moments,
    "nn.sufficient_statistics": _sufficient_statistics,
    "nn.normalize_moments": _normalize_moments,
    "nn.batch_normalization": _batch_normalization,
    "nn.bias_add": _bias_add,
    "nn.conv1d": _conv1d,
    "nn.conv2d": _conv(2, "Conv2D"),
    "nn.conv3d": _conv(3, "Conv3D"),
    "nn.convolution": _conv(None, "Conv"),
    "nn.depthwise_conv2d": _depthwise_conv2d,
    "nn.separable_conv2d": _separable_conv2d,
    "nn.atrous_conv2d": _atrous_conv2d,
    "nn.conv1d_transpose": _conv_transpose(1, "Conv1DBackpropInput"),
    "nn.conv2d_transpose": _conv_transpose(2, "Conv2DBackpropInput"),
    "nn.conv3d_transpose": _conv_transpose(3, "Conv3DBackpropInputV2"),
    "nn.conv_transpose": _conv_transpose(None, "ConvBackpropInput"),
    "nn.max_pool": _pool("max", None),
    "nn.max_pool1d": _pool("max", 1),
    "nn.max_pool2d": _pool("max", 2),
    "nn.max_pool3d": _pool("max", 3),
    "nn.max_pool_with_argmax": _max_pool_with_argmax,
    "nn.avg_pool": _pool("avg", None),
    "nn.avg_pool1d": _pool("avg", 1),
    "nn.avg_pool2d": _pool("avg", 2),
    "nn.avg_pool3d": _pool("avg", 3),
    "nn.embedding_lookup": _embedding_lookup,
    "nn.space_to_depth": _blocks(layers.space_to_depth, "SpaceToDepth"),
    "nn.depth_to_space": _blocks(layers.depth_to_space, "DepthToSpace"),
    "nn.local_response_normalization": _local_response_normalization,
    "nn.zero_fraction": _zero_fraction,
    "math.in_top_k": _in_top_k,  # is tf.nn.in_top_k
}

__all__ = ["APIS"]
