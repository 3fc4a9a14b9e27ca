"""TensorFlow's stateless random APIs that take data (``tf.image.
stateless_random_flip_left_right``, ``stateless_random_crop``,
``tf.nn.experimental.stateless_dropout``, ``tf.random.experimental.
stateless_shuffle``) on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``).

A stateless draw is a function of its shape, seed and algorithm only,
never of the data: TensorFlow itself draws it (eagerly, from host seeds;
the same kernels as the eager program, so the results are TensorFlow's
bit for bit) and the data's part (flip, slice, mask, gather) records
lazily, the data never leaving the device. A draw enters the graph as
device data (a parameter), so a new seed does not recompile; a flip or
crop decided on the host does, once per distinct decision.
"""

from __future__ import annotations

import numpy as np
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing.take import take
from lazytensor.core.composite.movement import rearrange
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import get_runtime
from lazytensor.tf import _tf
from lazytensor.tf.tf_api import nn_extra
from lazytensor.tf.tf_api._dispatch import host_int, is_tensor, tensor


def _seed(seed) -> tuple[int, ...]:
    """A seed argument on the host (a lazy seed is read back, as TensorFlow
    reads a seed tensor)."""
    value = host_int(seed)
    return (value,) if isinstance(value, int) else tuple(value)


def _uniform(shape, seed, **kwargs) -> np.ndarray:
    """TensorFlow's own ``stateless_random_uniform`` draw, on the host."""
    tf = _tf.tf()
    return tf.random.stateless_uniform(list(shape), seed=list(_seed(seed)), **kwargs).numpy()


def _image(image, api: str) -> Node:
    x = tensor(image)
    if x.ndim not in (3, 4):
        raise NotImplementedError(f"{api} of rank {x.ndim}")  # -> TensorFlow's ValueError
    return x


def _flip(axis: int):
    """TensorFlow's ``_random_flip`` with a stateless uniform: one image
    flips when its draw is < 0.5; a batch mixes, per image, the flipped and
    the original by the rounded draw (``f * flipped + (1 - f) * x``, its
    arithmetic, so NaNs propagate as TensorFlow's)."""

    def impl(image, seed, name=None):
        x = _image(image, "stateless_random_flip")
        if x.ndim == 3:
            flip = _uniform((), seed, minval=0, maxval=1.0) < 0.5
            return rearrange.flip(x, (axis,)) if flip else x
        rounded = np.round(_uniform((x.shape[0],), seed, minval=0, maxval=1.0))
        host = rounded.reshape(-1, 1, 1, 1).astype(x.dtype)
        flips = cs.broadcast_to(get_runtime().from_host(host).node, x.shape)
        keeps = cs.broadcast_to(get_runtime().from_host(1 - host).node, x.shape)
        flipped = rearrange.flip(x, (axis + 1,))
        return make(Op.ADD, (make(Op.MUL, (flips, flipped)), make(Op.MUL, (keeps, x))))

    return impl


def _crop(value, size, seed, name=None):
    """A window of ``size`` at TensorFlow's stateless offset (an int32 draw
    modulo the room left on each axis)."""
    x = tensor(value)
    sizes = host_int(size)
    sizes = (sizes,) if isinstance(sizes, int) else tuple(sizes)
    if len(sizes) != x.ndim or any(not 0 <= k <= n for k, n in zip(sizes, x.shape, strict=True)):
        raise NotImplementedError("a crop larger than the value")  # -> TensorFlow's error
    tf = _tf.tf()
    draw = _uniform((x.ndim,), seed, dtype=tf.int32, maxval=tf.int32.max)
    starts = tuple(int(d) % (n - k + 1) for d, n, k in zip(draw, x.shape, sizes, strict=True))
    stops = tuple(b + k for b, k in zip(starts, sizes, strict=True))
    return make(Op.SLICE, (x,), starts, stops, (1,) * x.ndim)


def _dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """tf.nn.dropout's checks and scaling (``nn_extra.scaled_for_dropout``);
    the kept elements are those whose stateless uniform draw (of the noise
    shape, in x's dtype) is >= rate."""
    node, scaled, r = nn_extra.scaled_for_dropout(x, rate)
    if scaled is None:
        return node
    shape = nn_extra.dropout_noise_shape(node, noise_shape)
    kwargs = {} if rng_alg is None else {"alg": rng_alg}
    draw = _uniform(shape, seed, dtype=_tf.as_tf_dtype(node.dtype), **kwargs)
    noise = cs.broadcast_to(get_runtime().from_host(draw).node, node.shape)
    keep = make(Op.GE, (noise, cs.broadcast_to(r, node.shape)))
    return make(Op.SELECT, (keep, scaled, ew.zeros_like(scaled)))


def _shuffle(value, seed, alg="auto_select", name=None):
    """The rows of ``value`` in TensorFlow's stateless order: the order it
    gives the row numbers (its shuffle never looks at the values)."""
    x = tensor(value)
    if not x.ndim or is_tensor(alg):
        raise NotImplementedError("stateless_shuffle of a scalar")  # -> TensorFlow's error
    tf = _tf.tf()
    rows = tf.range(x.shape[0], dtype=tf.int32)
    order = tf.random.experimental.stateless_shuffle(rows, seed=list(_seed(seed)), alg=alg)
    return take(x, get_runtime().from_host(order.numpy()).node, axis=0)


APIS = {
    "image.stateless_random_flip_left_right": _flip(1),
    "image.stateless_random_flip_up_down": _flip(0),
    "image.stateless_random_crop": _crop,
    "nn.experimental.stateless_dropout": _dropout,
    "random.experimental.stateless_shuffle": _shuffle,
}

__all__ = ["APIS"]
