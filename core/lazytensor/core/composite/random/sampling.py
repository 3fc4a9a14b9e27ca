"""Random samples from a key node (``Op.RNG_*``), for every frontend's
random API (torch's in-place fills, ``numpy.random``, ``tnp.random``):
scaled uniforms and normals, exponentials, integers in a range, Bernoulli
draws, categorical draws with or without replacement, permutations, and
Gamma, Dirichlet and Poisson draws.
The frontend owns its generator (how keys are made) and its dtype policy.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> key = constant(np.zeros(2, np.uint32), np.dtype("uint32"))
>>> uniform(key, (3,), np.dtype("float32"), -1.0, 1.0).shape
(3,)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from lazytensor.core import autodiff
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import iota
from lazytensor.core.composite.elementwise.apply import as_node, broadcast_to, convert
from lazytensor.core.composite.movement.shape import expand_dims, reshape, slice_axis
from lazytensor.core.composite.reduce import reduction as R
from lazytensor.core.composite.sorting.sort import cumsum, top_k
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
    # one uniform draw (each RNG op adds seconds of XLA compile time): per
    # candidate a normal (sqrt(2) erfinv(2u - 1), as jax.random.normal) and
    # a uniform for its test, and one more uniform for the boost
    uniforms = make(Op.RNG_UNIFORM, (key,), (2 * tries + 1, *shape), dtype)
    lowest = float(np.nextafter(dtype.type(-1), dtype.type(0)))
    two_u = make(Op.SUB, (make(Op.MUL, (slice_axis(uniforms, 0, 0, tries), c(2.0, many))),
                          c(1.0, many)))
    x = make(Op.MUL, (make(Op.ERF_INV, (make(Op.MAX, (two_u, c(lowest, many))),)),
                      c(math.sqrt(2.0), many)))
    u = slice_axis(uniforms, 0, tries, 2 * tries)
    t = make(Op.ADD, (c(1.0, many), make(Op.MUL, (cb, x))))
    v = make(Op.MUL, (make(Op.MUL, (t, t)), t))
    dv = make(Op.MUL, (db, v))
    bound = make(Op.ADD, (make(Op.MUL, (c(0.5, many), make(Op.MUL, (x, x)))),
                          make(Op.ADD, (make(Op.SUB, (db, dv)),
                                        make(Op.MUL, (db, make(Op.LOG, (v,))))))))
    ok = make(Op.AND, (make(Op.GT, (v, c(0.0, many))), make(Op.LT, (make(Op.LOG, (u,)), bound))))
    sample = _first_accepted(ok, dv, d)
    last = reshape(slice_axis(uniforms, 0, 2 * tries, 2 * tries + 1), shape)
    boost = make(Op.EXP, (make(Op.DIV, (make(Op.LOG, (last,)), alpha)),))
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


def _first_accepted(ok: Node, values: Node, otherwise: Node) -> Node:
    """Along axis 0 of (tries, ...) candidates: the value of the first one
    accepted (``ok``), else ``otherwise``."""
    first = make(Op.AND, (ok, make(Op.EQ, (cumsum(convert(ok, dt.int32), 0),
                                           as_node(1, dt.int32, ok.shape)))))
    zero = as_node(0, values.dtype, values.shape)
    picked = R.reduce("sum", make(Op.SELECT, (first, values, zero)), (0,), False)
    return make(Op.SELECT, (R.reduce("any", ok, (0,), False), picked, otherwise))


def poisson(key: Node, rate: Node, terms: int = 48, tries: int = 16) -> Node:
    """Poisson(rate) counts, as rate's (float) dtype, computed in float64.
    Rates below 10: inversion over the first ``terms`` counts (a count of
    48 or more has probability below 1e-14 there). Larger rates: Hoermann's
    transformed rejection with squeeze (PTRS, 1993), ``tries`` candidates
    per element, the first accepted kept (each is accepted with probability
    above 0.85; if none is, the rounded rate)."""
    f64 = dt.float64
    lam = convert(rate, f64)
    shape = lam.shape

    def c(v, s=shape):
        return as_node(v, f64, s)

    def ew(op, *xs):
        return make(op, xs)

    # inversion: the count is the number of CDF values below one uniform
    ks = (terms, *shape)
    k = iota(ks, 0, f64)
    lam_k = broadcast_to(expand_dims(lam, 0), ks)
    log_pmf = ew(Op.SUB, ew(Op.SUB, ew(Op.MUL, k, ew(Op.LOG, lam_k)), lam_k),
                 ew(Op.LGAMMA, ew(Op.ADD, k, c(1.0, ks))))
    cdf = cumsum(ew(Op.EXP, log_pmf), 0)
    # one uniform draw (fewer RNG ops compile faster): one for the inversion,
    # two per candidate of the rejection method
    # (float32 draws: float64 ones take several times longer to compile)
    uniforms = convert(make(Op.RNG_UNIFORM, (key,), (1 + 2 * tries, *shape), dt.float32), f64)
    u = broadcast_to(slice_axis(uniforms, 0, 0, 1), ks)
    small = R.reduce("sum", convert(ew(Op.LT, cdf, u), f64), (0,), False)
    # transformed rejection
    many = (tries, *shape)
    lam_t = broadcast_to(expand_dims(lam, 0), many)
    b = ew(Op.ADD, c(0.931, many), ew(Op.MUL, c(2.53, many), ew(Op.SQRT, lam_t)))
    a = ew(Op.ADD, c(-0.059, many), ew(Op.MUL, c(0.02483, many), b))
    inv_alpha = ew(Op.ADD, c(1.1239, many), ew(Op.DIV, c(1.1328, many),
                                                ew(Op.SUB, b, c(3.4, many))))
    v_r = ew(Op.SUB, c(0.9277, many), ew(Op.DIV, c(3.6224, many), ew(Op.SUB, b, c(2.0, many))))
    uu = ew(Op.SUB, slice_axis(uniforms, 0, 1, 1 + tries), c(0.5, many))
    v = slice_axis(uniforms, 0, 1 + tries, 1 + 2 * tries)
    us = ew(Op.SUB, c(0.5, many), ew(Op.ABS, uu))
    kk = ew(Op.FLOOR, ew(Op.ADD, ew(Op.MUL, ew(Op.ADD, ew(Op.DIV, ew(Op.MUL, c(2.0, many), a), us),
                                                b), uu), ew(Op.ADD, lam_t, c(0.43, many))))
    quick = ew(Op.AND, ew(Op.GE, us, c(0.07, many)), ew(Op.LE, v, v_r))
    bad = ew(Op.OR, ew(Op.LT, kk, c(0.0, many)),
             ew(Op.AND, ew(Op.LT, us, c(0.013, many)), ew(Op.GT, v, us)))
    lhs = ew(Op.LOG, ew(Op.DIV, ew(Op.MUL, v, inv_alpha),
                        ew(Op.ADD, ew(Op.DIV, a, ew(Op.MUL, us, us)), b)))
    rhs = ew(Op.SUB, ew(Op.SUB, ew(Op.MUL, kk, ew(Op.LOG, lam_t)), lam_t),
             ew(Op.LGAMMA, ew(Op.ADD, kk, c(1.0, many))))
    ok = ew(Op.OR, quick, ew(Op.AND, ew(Op.NOT, bad), ew(Op.LE, lhs, rhs)))
    large = _first_accepted(ok, kk, ew(Op.ROUND_EVEN, lam))
    out = make(Op.SELECT, (ew(Op.LT, lam, c(10.0)), small, large))
    return convert(out, rate.dtype)
