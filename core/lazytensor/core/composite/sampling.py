"""Random samples from a key node (``Op.RNG_*``), for every frontend's
random API (torch's in-place fills, ``numpy.random``, ``tnp.random``):
scaled uniforms and normals, exponentials, integers in a range, Bernoulli
draws, categorical draws with or without replacement, permutations, and
Gamma and Dirichlet draws.
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
from lazytensor.core import autodiff
from lazytensor.core import dtypes as dt
from lazytensor.core.composite import reduction as R
from lazytensor.core.composite.elementwise import as_node, broadcast_to, convert
from lazytensor.core.composite.shape import expand_dims, reshape, slice_axis
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


def _fold(key: Node, i: int) -> Node:
    return make(Op.RNG_FOLD, (key, as_node(i, dt.uint32, ())))


def gamma(key: Node, alpha: Node, tries: int = 16) -> Node:
    """Gamma(alpha, 1) samples of alpha's (float) dtype, one per element:
    Marsaglia and Tsang's method with ``tries`` candidates per element, the
    first accepted kept (each is accepted with probability above 0.95, so
    all fail with probability below 1e-20; then d = alpha - 1/3 is used);
    alpha < 1 is boosted, Gamma(alpha + 1) * u ** (1 / alpha). Like torch's
    CPU kernel, results below the dtype's smallest normal (and NaN, from
    alpha <= 0 or NaN) are that smallest normal."""
    shape, dtype = alpha.shape, alpha.dtype

    def c(v, s=shape):
        return as_node(v, dtype, s)

    small = make(Op.LT, (alpha, c(1.0)))
    a = make(Op.SELECT, (small, make(Op.ADD, (alpha, c(1.0))), alpha))
    d = make(Op.SUB, (a, c(1.0 / 3.0)))
    many = (tries, *shape)
    db = broadcast_to(expand_dims(d, 0), many)
    cb = broadcast_to(expand_dims(make(Op.RSQRT, (make(Op.MUL, (d, c(9.0))),)), 0), many)
    x = make(Op.RNG_NORMAL, (_fold(key, 0),), many, dtype)
    u = make(Op.RNG_UNIFORM, (_fold(key, 1),), many, dtype)
    t = make(Op.ADD, (c(1.0, many), make(Op.MUL, (cb, x))))
    v = make(Op.MUL, (make(Op.MUL, (t, t)), t))
    dv = make(Op.MUL, (db, v))
    bound = make(Op.ADD, (make(Op.MUL, (c(0.5, many), make(Op.MUL, (x, x)))),
                          make(Op.ADD, (make(Op.SUB, (db, dv)),
                                        make(Op.MUL, (db, make(Op.LOG, (v,))))))))
    ok = make(Op.AND, (make(Op.GT, (v, c(0.0, many))), make(Op.LT, (make(Op.LOG, (u,)), bound))))
    first = make(Op.AND, (ok, make(Op.EQ, (cumsum(convert(ok, dt.int32), 0),
                                           as_node(1, dt.int32, many)))))
    picked = R.reduce("sum", make(Op.SELECT, (first, dv, c(0.0, many))), (0,), False)
    any_ok = R.reduce("any", ok, (0,), False)
    sample = make(Op.SELECT, (any_ok, picked, d))
    boost = make(Op.EXP, (make(Op.DIV, (make(Op.LOG, (make(Op.RNG_UNIFORM, (_fold(key, 2),),
                                                             shape, dtype),)), alpha)),))
    sample = make(Op.SELECT, (small, make(Op.MUL, (sample, boost)), sample))
    tiny = c(float(dt.finfo(dtype).tiny))
    return make(Op.SELECT, (make(Op.GT, (sample, tiny)), sample, tiny))


def gamma_grad(alpha: Node, x: Node) -> Node:
    """The reparameterization gradient d x / d alpha of Gamma(alpha, 1)
    samples ``x`` (alpha's shape and dtype), by implicit differentiation of
    the CDF: -(d/d alpha P(alpha, x)) / pdf(x; alpha), P the regularized
    lower incomplete gamma function."""
    x = autodiff.stop_gradient(x)
    (dp,) = autodiff.grad(make(Op.IGAMMA, (alpha, x)), [alpha])
    one = as_node(1.0, alpha.dtype, alpha.shape)
    log_pdf = make(Op.SUB, (make(Op.SUB, (make(Op.MUL, (make(Op.SUB, (alpha, one)),
                                                         make(Op.LOG, (x,)))), x)),
                            make(Op.LGAMMA, (alpha,))))
    return make(Op.NEG, (make(Op.DIV, (dp, make(Op.EXP, (log_pdf,)))),))


def dirichlet(key: Node, alpha: Node) -> Node:
    """Dirichlet(alpha) samples along alpha's last axis, of alpha's dtype:
    Gamma(alpha) draws in float64 over their sum (as torch's CPU kernel,
    which also keeps each in [smallest normal, largest value below 1])."""
    g = gamma(key, convert(alpha, dt.float64))
    total = R.reduce("sum", g, (g.ndim - 1,), True)
    share = convert(make(Op.DIV, (g, broadcast_to(total, g.shape))), alpha.dtype)
    lo = as_node(float(dt.finfo(alpha.dtype).tiny), alpha.dtype, alpha.shape)
    hi = as_node(float(np.nextafter(alpha.dtype.type(1), alpha.dtype.type(0))), alpha.dtype,
                 alpha.shape)
    return make(Op.MIN, (make(Op.MAX, (share, lo)), hi))
