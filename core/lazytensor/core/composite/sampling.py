"""Random samples from a key node (``Op.RNG_*``), for every frontend's
random API (torch's in-place fills, ``numpy.random``, ``tnp.random``):
scaled uniforms and normals, exponentials, integers in a range, Bernoulli
draws, categorical draws with or without replacement, and permutations.
The frontend owns its generator (how keys are made) and its dtype policy.

>>> import numpy as np
>>> from lazytensor.core.runtime import constant
>>> key = constant(np.zeros(2, np.uint32), np.dtype("uint32"))
>>> uniform(key, (3,), np.dtype("float32"), -1.0, 1.0).shape
(3,)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite import reduction as R
from lazytensor.core.composite.elementwise import as_node, broadcast_to, convert
from lazytensor.core.composite.shape import reshape, slice_axis
from lazytensor.core.composite.sorting import cumsum, top_k
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def uniform(key: Node, shape: Sequence[int], dtype: np.dtype, low=0.0, high=1.0) -> Node:
    """Uniform samples in [low, high)."""
    shape = tuple(shape)
    u = make(Op.RNG_UNIFORM, (key,), shape, dtype)
    if (low, high) != (0, 1):
        u = make(Op.ADD, (make(Op.MUL, (u, as_node(high - low, dtype, shape))),
                          as_node(low, dtype, shape)))
    return u


def normal(key: Node, shape: Sequence[int], dtype: np.dtype, mean=0.0, std=1.0) -> Node:
    """Normal samples with ``mean`` and ``std``."""
    shape = tuple(shape)
    z = make(Op.RNG_NORMAL, (key,), shape, dtype)
    if std != 1:
        z = make(Op.MUL, (z, as_node(std, dtype, shape)))
    if mean != 0:
        z = make(Op.ADD, (z, as_node(mean, dtype, shape)))
    return z


def exponential(key: Node, shape: Sequence[int], dtype: np.dtype, rate=1.0) -> Node:
    """Exponential samples -log1p(-u) / rate."""
    u = uniform(key, shape, dtype)
    return make(Op.DIV, (make(Op.NEG, (make(Op.LOG1P, (make(Op.NEG, (u,)),)),)),
                         as_node(rate, u.dtype, u.shape)))


def integers(key: Node, shape: Sequence[int], low: int, high: int) -> Node:
    """int64 samples in [low, high) (64 random bits modulo the span)."""
    shape = tuple(shape)
    bits = make(Op.RNG_BITS, (key,), shape, dt.uint64)
    offset = make(Op.REM, (bits, as_node(high - low, dt.uint64, shape)))
    return make(Op.ADD, (convert(offset, dt.int64), as_node(low, dt.int64, shape)))


def categorical_without(p: Node, k: int, key: Node) -> Node:
    """``k`` distinct category indices per row of unnormalized
    probabilities ``p`` (last axis): the top ``k`` of log(p) + Gumbel noise."""
    u = make(Op.RNG_UNIFORM, (key,), p.shape, p.dtype)
    gumbel = make(Op.NEG, (make(Op.LOG, (make(Op.NEG, (make(Op.LOG, (u,)),)),)),))
    keys = make(Op.ADD, (make(Op.LOG, (p,)), gumbel))
    return top_k(keys, k, -1)[1]


def categorical_with(p: Node, k: int, key: Node) -> Node:
    """``k`` category indices per row of ``p`` drawn independently
    (inverse-CDF sampling)."""
    lead, n = p.shape[:-1], p.shape[-1]
    cdf = cumsum(p, -1)
    total = reshape(slice_axis(cdf, cdf.ndim - 1, n - 1, n), (*lead, 1, 1))
    u = make(Op.RNG_UNIFORM, (key,), (*lead, k, 1), p.dtype)
    target = make(Op.MUL, (u, broadcast_to(total, u.shape)))
    shape = (*lead, k, n)
    below = make(Op.LE, (broadcast_to(reshape(cdf, (*lead, 1, n)), shape),
                         broadcast_to(target, shape)))
    count = R.reduce("sum", convert(below, dt.int64), (len(shape) - 1,), False)
    return make(Op.MIN, (count, as_node(n - 1, dt.int64, count.shape)))


def permutation(key: Node, n: int) -> Node:
    """A random permutation of range(n) (int64): the stable order of n
    random words."""
    words = make(Op.RNG_BITS, (key,), (int(n),), dt.uint32)
    return make(Op.ARGSORT, (words,), 0, False, True, dt.int64)
