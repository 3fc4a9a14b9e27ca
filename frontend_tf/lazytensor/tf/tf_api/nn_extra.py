"""``tf.nn.dropout``, ``tf.nn.pool`` and ``tf.nn.compute_average_loss`` on lazy
arrays (the table ``APIS``; see ``lazytensor.tf.tf_api``), beside ``nn``'s table.

Dropout's mask is drawn by the core's RNG (``composite.nn.functional.dropout_shared``)
from a key that folds in one draw from TensorFlow's own generator
(``lazytensor.tf._rng``): ``tf.random.set_seed`` and ``seed=`` make a
program's masks reproducible, each call gets a fresh mask, and a new key
is a parameter, so a training step never recompiles for it. The masks are
not eager TensorFlow's (its kernels' stream cannot be reproduced lazily);
the kept fraction, the 1 / (1 - rate) scaling and ``noise_shape``
broadcasting are. ``tf.nn.compute_average_loss`` is TensorFlow's composition
of lowered ops. ``tf.nn.pool`` checks TensorFlow's arguments, then is
``nn``'s max/avg pooling, or a dilated window (VALID padding only, as
TensorFlow's). ``tf.nn.ctc_loss`` with dense labels is the core's CTC.
"""

from __future__ import annotations

import numbers

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.nn import ctc
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.core.composite.reduce import reduction
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import get_runtime
from lazytensor.tf import _rng, _tf
from lazytensor.tf._array import wrap
from lazytensor.tf.tf_api import nn
from lazytensor.tf.tf_api._dispatch import host_int, is_tensor, natural_dtype, tensor


def dropout_noise_shape(x: Node, noise_shape) -> tuple[int, ...]:
    """x's shape, or ``noise_shape`` with its None dims taken from x (when
    the ranks agree, as TensorFlow's ``_get_noise_shape``)."""
    if noise_shape is None:
        return x.shape
    dims = noise_shape if isinstance(noise_shape, (list, tuple)) else host_int(noise_shape)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(dims) == x.ndim:
        dims = tuple(n if d is None else d for d, n in zip(dims, x.shape, strict=True))
    return tuple(host_int(d) for d in dims)


def scaled_for_dropout(x, rate) -> tuple[Node, Node | None, Node | None]:
    """tf.nn.dropout's checks of ``x`` and ``rate``: (x's node, x / (1 -
    rate) in TensorFlow's order, rate as a node of x's dtype); (node, None,
    None) for a rate of 0 (x comes back unchanged)."""
    number = isinstance(rate, numbers.Real) and not is_tensor(rate)
    if number and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                         f"Received: rate={rate}")
    node = tensor(x)
    if not dt.is_float(node.dtype):
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x_dtype={_dtype_repr(node.dtype)}")
    if number and rate == 0:
        return node, None, None
    if number:  # x * (1 / (1 - rate)), TensorFlow's order; both numbers are parameters
        r = ew.full((), float(rate), node.dtype)
        return node, make(Op.MUL, (node, ew.full(node.shape, 1 / (1 - float(rate)),
                                                 node.dtype))), r
    if not is_tensor(rate):
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    r = tensor(rate)
    if r.ndim:
        raise ValueError(f"Shape {r.shape} must have rank 0")
    if r.dtype != node.dtype:
        raise ValueError(f"`x.dtype` must be compatible with `rate.dtype`. Received: "
                         f"x.dtype={_dtype_repr(node.dtype)} and "
                         f"rate.dtype={_dtype_repr(r.dtype)}")
    one = ew.full(node.shape, 1, node.dtype)
    return node, make(Op.DIV, (node, make(Op.SUB, (one, ew.broadcast_to(r, node.shape))))), r


def _dropout(x, rate, noise_shape=None, seed=None, name=None):
    node, scaled, r = scaled_for_dropout(x, rate)
    if scaled is None:
        return node
    key = _rng.next_key(None if seed is None else host_int(seed))
    return cnn.dropout_shared(scaled, r, key, dropout_noise_shape(node, noise_shape))


def _dtype_repr(dtype) -> str:
    return repr(_tf.as_tf_dtype(dtype))


def _per_dim(value, n: int, what: str) -> tuple[int, ...]:
    """tf.nn.pool's strides / dilations: None is 1s; else a list of n values >= 1."""
    if value is None:
        return (1,) * n
    value = host_int(value)
    if isinstance(value, int):  # TensorFlow takes len() of it
        raise TypeError("object of type 'int' has no len()")
    out = tuple(value)
    if len(out) != n:
        raise ValueError(f"`len({what})` should be {n}. Received: {what}={list(out)} of "
                         f"length {len(out)}")
    if any(v < 1 for v in out):
        raise ValueError(f"all values of {what} must be positive")
    return out


def _pool(input, window_shape, pooling_type, strides=None, padding="VALID",  # noqa: A002
          data_format=None, dilations=None, name=None):
    window = host_int(window_shape)
    window = (window,) if isinstance(window, int) else tuple(window)
    n = len(window)
    if not 1 <= n <= 3:
        raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: "
                         f"window_shape={list(window)} of length {n}")
    x = tensor(input)
    if x.ndim != n + 2:
        raise ValueError(f"Shape {x.shape} must have rank {n + 2}")
    stride, dilation = _per_dim(strides, n, "strides"), _per_dim(dilations, n, "dilation_rate")
    if max(stride) > 1 and max(dilation) > 1:
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > "
                         f"1`. Received: strides={list(stride)} and "
                         f"dilation_rate={list(dilation)}")
    if padding == "SAME" and max(dilation) > 1:
        raise ValueError(f"pooling with 'SAME' padding is not implemented for "
                         f"`dilation_rate` > 1. Received: padding={padding} and "
                         f"dilation_rate={list(dilation)}")
    if any(s > w for s, w in zip(stride, window, strict=True)):
        raise ValueError(f"`strides` > `window_shape` not supported due to inconsistency "
                         f"between CPU and GPU implementations. Received: "
                         f"strides={list(stride)} and window_shape={list(window)}")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
    if n == 1 and data_format not in (None, "NWC", "NCW"):
        raise ValueError(f"data_format must be either 'NWC' or 'NCW'. Received: "
                         f"data_format={data_format}")
    kind = pooling_type.lower()
    if max(dilation) == 1:
        return nn._pool(kind, n)(x, window, stride, padding, data_format)
    last = not nn._channels_first(data_format)
    if kind == "max":
        return cnn.max_pool(x, window, stride, None, dilation, channels_last=last)
    return cnn.dilated_avg_pool(nn._floating(x, "AvgPool"), window, dilation, channels_last=last)


def _ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True,
              unique=None, blank_index=None, name=None):
    """TensorFlow's dense-label CTC loss (float32 logits): the negative log
    likelihood of each padded label row under log_softmax(logits), by the
    core's forward recursion (``composite.nn.ctc``); its gradient is the
    core's autodiff of it. Sparse labels, ``unique``, lengths TensorFlow
    rejects and labels that no alignment fits in their frames run eagerly in
    TensorFlow (its errors; its finite loss where the core's is inf). The
    lengths and labels are read on the host."""
    x, y = tensor(logits), tensor(labels)
    if unique is not None or label_length is None or x.ndim != 3 or y.ndim != 2 or \
            x.dtype != dt.float32 or not dt.is_int(y.dtype):
        raise NotImplementedError("ctc_loss arguments")  # -> eager TensorFlow
    if not logits_time_major:
        x = cs.transpose(x, (1, 0, 2))
    frames, batch, classes = x.shape
    blank = 0 if blank_index is None else host_int(blank_index)
    blank = blank + classes if blank < 0 else blank
    lengths, label_lengths = (_tf.host_value(v) for v in (logit_length, label_length))
    if (y.shape[0] != batch or lengths.shape != (batch,) or label_lengths.shape != (batch,)
            or not 0 <= blank < classes or (lengths > frames).any() or (lengths < 0).any()
            or (label_lengths > y.shape[1]).any() or (label_lengths < 0).any()):
        raise NotImplementedError("ctc_loss lengths")  # TensorFlow's errors
    rows = _tf.host_value(labels)
    if blank:  # TensorFlow's: the blank's logits first, labels below it one up
        rows = np.where(rows < blank, rows + 1, rows)
        x = cs.concatenate([cs.slice_axis(x, 2, blank, blank + 1), cs.slice_axis(x, 2, 0, blank),
                            cs.slice_axis(x, 2, blank + 1, classes)], 2)
    repeats = [int((r[1:n] == r[:n - 1]).sum()) if n > 1 else 0
               for r, n in zip(rows, label_lengths, strict=True)]
    if (label_lengths + np.asarray(repeats, np.int64) > lengths).any():
        # no alignment fits: TensorFlow's kernel gives its own large finite loss, not inf
        raise NotImplementedError("ctc_loss of an impossible alignment")
    log_probs = reduction.log_softmax(x, 2)
    targets = get_runtime().from_host(rows.astype(np.int64)).node
    nll, _ = ctc.ctc_loss(log_probs, targets, tensor(logit_length), tensor(label_length), 0)
    return nll


def _compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(loss * weight) / global_batch_size (divide_no_nan), TensorFlow's
    composition: a weight of one rank less gets a last axis (one more, of
    size 1, loses it); the batch size defaults to the loss's rows times the
    replicas of the current tf.distribute strategy. Integer losses, a
    0-d loss and a float, negative or cross-replica batch size go to
    TensorFlow (its promotion and errors)."""
    tf = _tf.tf()
    x = tensor(per_example_loss)
    if x.ndim == 0 or not dt.is_float(x.dtype):
        raise NotImplementedError("compute_average_loss of a scalar or integer loss")
    loss = wrap(x)
    if sample_weight is not None:
        w = tensor(sample_weight)
        if w.ndim == x.ndim - 1 and w.ndim:
            w = cs.expand_dims(w, -1)
        elif w.ndim == x.ndim + 1 and w.shape[-1] == 1:
            w = cs.squeeze(w, -1)
        loss = tf.math.multiply(loss, tf.cast(wrap(w), loss.dtype))
    if global_batch_size is None:
        from tensorflow.python.distribute import distribute_lib  # TensorFlow's strategy state

        if distribute_lib.has_strategy() and distribute_lib.in_cross_replica_context():
            raise NotImplementedError("compute_average_loss in cross-replica context")
        batch = x.shape[0] * tf.distribute.get_strategy().num_replicas_in_sync
    else:
        if natural_dtype(global_batch_size).kind not in "iu":
            raise NotImplementedError("a global_batch_size that is not an integer")
        batch = host_int(global_batch_size)
        if not isinstance(batch, int) or batch < 0:
            raise NotImplementedError("a negative or non-scalar global_batch_size")
    return tf.math.divide_no_nan(tf.reduce_sum(loss), tf.cast(batch, loss.dtype))


APIS = {
    "nn.compute_average_loss": _compute_average_loss,
    "nn.dropout": _dropout,
    "nn.pool": _pool,
    "nn.ctc_loss": _ctc_loss,
}

__all__ = ["APIS"]
