"""Random fills and factories. torch's factory functions allocate with
``empty`` (the Lazy-key kernel in ``_device``) and then fill in place, so
the fills (``uniform_``, ``normal_``, ``random_``, ``bernoulli_``,
``exponential_``) are what records the random numbers, from keys seeded by
torch's generator (``lazytensor.torch._rng``).

A factory without tensor arguments (``full``, ``zeros``, ``randperm``...)
never reaches ``__torch_dispatch__`` (no tensor carries the Python key):
those that need their own kernel (``empty``, ``empty_strided``) are
registered on the Lazy key in ``_device``; the TABLE holds the ones with a
tensor argument (``*_like``, ``new_*``, fills, ``out=`` overloads)."""

from __future__ import annotations

import numpy as np
from lazytensor.core import Node, Op, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import as_node, convert
from lazytensor.core.composite.random import sampling
from lazytensor.torch._rng import next_key
from lazytensor.torch._tensor import NUMPY_OF, scalar_type_name, to_lazy, wrap
from lazytensor.torch.aten import value_errors
from lazytensor.torch.aten._common import aten, dense_strides, node

import torch


def _assign(self, value: Node):
    from lazytensor.torch._dispatch import assign

    assign(self, convert(value, node(self).dtype))
    return self


def _sample_dtype(x: Node) -> np.dtype:
    return x.dtype if dt.is_float(x.dtype) and x.dtype != dt.float16 and \
        x.dtype != dt.bfloat16 else dt.float32


def _sampled(sample, kernel: str):
    """uniform_/normal_/exponential_: self filled by the core's
    ``sample(key, shape, dtype, *params)`` (its defaults are torch's).
    Integer and bool tensors raise as torch's ``kernel`` does."""
    def impl(self, *params, generator=None):
        x = node(self)
        if not dt.is_inexact(x.dtype):
            name = scalar_type_name(x.dtype)
            if kernel == "exponential":
                raise RuntimeError("Exponential distribution is a continuous probability "
                                   "distribution. dtype must be a floating point but you "
                                   f"specified {name}")
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
        return _assign(self, sample(next_key(generator), x.shape, _sample_dtype(x), *params))

    return impl


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    return _sampled(sampling.normal, "normal_kernel_cpu")(self, mean, std,
                                                          generator=generator)


def _uniform_(self, low=0.0, high=1.0, *, generator=None):
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={low:g} > to={high:g}")
    return _sampled(sampling.uniform, "check_uniform_bounds")(self, low, high,
                                                              generator=generator)


def _exponential_(self, lambd=1.0, *, generator=None):
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return _sampled(sampling.exponential, "exponential")(self, lambd, generator=generator)


def _random_(self, low=None, high=None, *, generator=None):
    x = node(self)
    if low is not None and high is None:
        low, high = 0, low
    if high is None:  # every integer the dtype holds exactly (floats: 2**digits)
        high = 2 ** (dt.finfo(x.dtype).nmant + 1) + 1 if dt.is_float(x.dtype) else \
            (2 if dt.is_bool(x.dtype) else int(dt.iinfo(x.dtype).max) + 1)
    low = low or 0
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}")
    return _assign(self, sampling.integers(next_key(generator), x.shape, low, high))


def _bernoulli_(self, p=0.5, *, generator=None):
    if not isinstance(p, torch.Tensor) and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    x = node(self)
    u = make(Op.RNG_UNIFORM, (next_key(generator),), x.shape, dt.float32)
    prob = as_node(node(p) if isinstance(p, torch.Tensor) else p, dt.float32, x.shape)
    return _assign(self, make(Op.LT, (u, prob)))


def _bernoulli(x, p=None, *, generator=None):
    """bernoulli(probabilities) -> samples of x's dtype."""
    n = node(x)
    probs = n if p is None else as_node(p, n.dtype, n.shape)
    u = make(Op.RNG_UNIFORM, (next_key(generator),), n.shape, _sample_dtype(n))
    return wrap(convert(make(Op.LT, (u, convert(probs, u.dtype))), n.dtype))


def _gamma_like(sample, kernel: str, dtypes=(dt.float32, dt.float64)):
    """_standard_gamma/_sample_dirichlet/poisson: the core's sampler on a
    float tensor of parameters (concentrations, rates); other dtypes raise
    as torch's kernel. Lazy rates cannot be checked for negative values."""
    def impl(alpha, generator=None):
        n = node(alpha)
        if n.dtype not in dtypes:
            raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                      f"'{scalar_type_name(n.dtype)}'")
        return wrap(sample(next_key(generator), n))

    return impl


def _multinomial(x, num_samples, replacement=False, *, generator=None):
    """Category indices drawn from (unnormalized) probabilities along the
    last dim: without replacement, the top ``num_samples`` of log(p) plus
    Gumbel noise; with replacement, inverse-CDF sampling. Invalid
    probabilities raise torch's error at the barrier that computes them."""
    p = node(x)
    n = p.shape[-1] if p.ndim else 0
    if p.ndim not in (1, 2) or not dt.is_float(p.dtype):
        raise RuntimeError("prob_dist must be 1 or 2 dim floating point")
    if num_samples <= 0 or (not replacement and num_samples > n):
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement" if num_samples > 0 else "cannot sample n_sample <= 0")
    p = convert(p, dt.float64 if p.dtype == dt.float64 else dt.float32)
    value_errors.check_multinomial(p, num_samples == 1 or not replacement)
    draw = sampling.categorical_with if replacement else sampling.categorical_without
    return wrap(draw(p, num_samples, next_key(generator)))


# ------------------------------------------------------------ fresh tensors
# (torch's layout=, device= and pin_memory= options have one meaning on the
# lazy device, so each factory takes them as ``**_``)
def _target(dtype, like=None) -> np.dtype:
    """torch's ``dtype=``, else the dtype of ``like``, else the default dtype."""
    if dtype is not None:
        return NUMPY_OF[dtype]
    return node(like).dtype if like is not None else NUMPY_OF[torch.get_default_dtype()]


def _fresh(shape, dtype: np.dtype, value, strides=None):
    shape = tuple(int(v) for v in shape)
    for v in shape:  # torch's check (its tensor subclass would report an overflow)
        if v < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {v}: "
                               f"{list(shape)}")
    return wrap(as_node(value, dtype, shape), strides)


def _full_like(x, fill_value, *, dtype=None, memory_format=None, **_):
    return _fresh(x.shape, _target(dtype, x), fill_value, dense_strides(x, memory_format))


def _new_full(x, size, fill_value, *, dtype=None, **_):
    return _fresh(size, _target(dtype, x), fill_value)


def _new_empty_strided(x, size, stride, *, dtype=None, **_):
    return _fresh(size, _target(dtype, x), 0, tuple(stride))


def empty(size, *, dtype=None, memory_format=None, **_):
    """The Lazy-key allocator of torch's factories (zeros: lazy tensors
    have no uninitialized memory)."""
    return _fresh(size, _target(dtype), 0)


def empty_strided(size, stride, *, dtype=None, **_):
    return _fresh(size, _target(dtype), 0, tuple(int(s) for s in stride))


def _linspace_out(start, end, steps, *, out):
    """linspace(..., out=), which torch.linspace's own kernel calls on the
    lazy device. An integer ``out``: made on the host, as torch's CPU kernel
    does it (start and end truncated to integers, each double sample
    truncated; torch's decomposition samples in float32 from the untruncated
    ends: linspace(4.3, 0, 50, dtype=int64) was off by one in 15 places).
    Other dtypes: torch's decomposition."""
    if out.dtype.is_floating_point or out.dtype.is_complex or \
            any(isinstance(v, torch.Tensor) for v in (start, end)):
        from torch._decomp import decomposition_table

        return decomposition_table[aten.linspace.out](start, end, steps, out=out)
    return _written_out(to_lazy(torch.linspace(start, end, steps, dtype=out.dtype)), out)


def _written_out(result, out):
    from lazytensor.torch._dispatch import resize_out, write

    if tuple(out.shape) != tuple(result.shape):
        resize_out(out, tuple(result.shape))
    write(out, result)
    return out


def _geometric(self, p, *, generator=None):
    """geometric: torch's decomposition, sampled in float32 for an integer
    tensor (torch fills integer tensors too; the decomposition's uniform_
    refused them with a NotImplementedError)."""
    from torch._decomp import decomposition_table

    sample = decomposition_table[aten.geometric.default]
    if self.dtype.is_floating_point:
        return sample(self, p, generator=generator)
    return sample(self.to(torch.float32), p, generator=generator).to(self.dtype)


def _filled(factory, value: float):
    """zeros/ones/empty_like and new_zeros/ones/empty: ``factory`` with its
    fill value given."""
    return lambda *args, **kwargs: factory(*args, value, **kwargs)


def _randperm(n, *, generator=None, dtype=None, **_):
    """A random permutation of range(n): the stable order of n random words
    (deterministic under torch.manual_seed; not torch's CPU sequence)."""
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    order = sampling.permutation(next_key(generator), n)
    target = NUMPY_OF[dtype or torch.int64]
    return wrap(order if target == dt.int64 else convert(order, target))


def _randperm_out(n, *, generator=None, out):
    """randperm(..., out=): the permutation in ``out``'s dtype (resized)."""
    return _written_out(_randperm(n, generator=generator, dtype=out.dtype), out)


TABLE = {
    aten.full_like: _full_like, aten.zeros_like: _filled(_full_like, 0.0),
    aten.ones_like: _filled(_full_like, 1.0), aten.empty_like: _filled(_full_like, 0.0),
    aten.new_full: _new_full, aten.new_zeros: _filled(_new_full, 0.0),
    aten.new_ones: _filled(_new_full, 1.0), aten.new_empty: _filled(_new_full, 0.0),
    aten.new_empty_strided: _new_empty_strided,
    aten.uniform_: _uniform_,
    aten.normal_: _normal_, aten.random_: _random_,
    aten.bernoulli_.float: _bernoulli_, aten.bernoulli_.Tensor: _bernoulli_,
    aten.bernoulli.default: _bernoulli, aten.bernoulli.p: _bernoulli,
    aten.exponential_: _exponential_,
    aten.multinomial: _multinomial, aten.linspace.out: _linspace_out,
    aten.geometric.default: _geometric,
    aten._standard_gamma.default: _gamma_like(sampling.gamma, "gamma_cpu"),
    aten._sample_dirichlet.default: _gamma_like(sampling.dirichlet, "dirichlet"),
    aten.poisson.default: _gamma_like(sampling.poisson, "poisson_cpu",
                                      (dt.float16, dt.bfloat16, dt.float32, dt.float64)),
    aten._standard_gamma_grad.default: lambda alpha, x: wrap(sampling.gamma_grad(node(alpha),
                                                                                 node(x))),
    aten.randperm.out: _randperm_out, aten.randperm.generator_out: _randperm_out,
}
