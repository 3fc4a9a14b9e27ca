"""``lazytensor.numpy.random``: numpy's Generator API (``default_rng``) and the
legacy module functions, drawn lazily from the core's explicit-key RNG ops.

The streams are reproducible per seed but are not numpy's bit streams (the
core uses threefry keys). Seeds and step counters are graph parameters:
re-seeding or drawing again never recompiles.

>>> rng = default_rng(0)
>>> rng.normal(size=(2, 3)).shape
(2, 3)
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite import sorting as csort
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import RngState, get_runtime
from lazytensor.numpy._base import as_index, lift, ndarray, node_of, wrap
from lazytensor.numpy._errors import guard

import numpy as np

__all__ = [
    "Generator", "default_rng", "seed", "rand", "randn", "random", "random_sample",
    "uniform", "normal", "standard_normal", "randint", "permutation", "shuffle", "choice",
]


def _shape(size) -> tuple[int, ...]:
    size = as_index(size)
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(as_index(s)) for s in size)


def _param_shape(size, *params) -> tuple[int, ...]:
    """``size``, or the broadcast shape of array-valued parameters."""
    if size is not None:
        return _shape(size)
    shapes = [p.shape for p in (lift(q) for q in params) if hasattr(p, "shape")]
    return ew.broadcast_shapes(*shapes) if shapes else ()


def _affine(u, loc, scale, shape) -> ndarray:
    """loc + scale * u with numpy's float64 parameters broadcast to ``shape``."""
    a = ew.as_node(lift(loc), u.dtype, shape)
    b = ew.as_node(lift(scale), u.dtype, shape)
    return wrap(make(Op.ADD, (a, make(Op.MUL, (b, u)))))


class _Draws:
    """The samplers, over a source of fresh keys (``_key``)."""

    def _key(self):
        raise NotImplementedError

    def random(self, size=None, dtype=np.float64, out=None):
        """Uniform floats in [0, 1)."""
        return wrap(make(Op.RNG_UNIFORM, (self._key(),), _shape(size), dt.canonical(dtype)))

    def uniform(self, low=0.0, high=1.0, size=None):
        shape = _param_shape(size, low, high)
        u = make(Op.RNG_UNIFORM, (self._key(),), shape, dt.float64)
        lo = ew.as_node(lift(low), dt.float64, shape)
        width = make(Op.SUB, (ew.as_node(lift(high), dt.float64, shape), lo))
        return wrap(make(Op.ADD, (lo, make(Op.MUL, (width, u)))))

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        return wrap(make(Op.RNG_NORMAL, (self._key(),), _shape(size), dt.canonical(dtype)))

    def normal(self, loc=0.0, scale=1.0, size=None):
        shape = _param_shape(size, loc, scale)
        z = make(Op.RNG_NORMAL, (self._key(),), shape, dt.float64)
        return _affine(z, loc, scale, shape)

    def exponential(self, scale=1.0, size=None):
        shape = _param_shape(size, scale)
        u = make(Op.RNG_UNIFORM, (self._key(),), shape, dt.float64)
        e = make(Op.NEG, (make(Op.LOG1P, (make(Op.NEG, (u,)),)),))
        return _affine(e, 0.0, scale, shape)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Integers in [low, high) (or [low, high] with ``endpoint``)."""
        if high is None:
            low, high = 0, low
        dtype = dt.canonical(dtype)
        shape = _param_shape(size, low, high)
        lo = ew.as_node(lift(low), dt.int64, shape)
        hi = ew.as_node(lift(high), dt.int64, shape)
        span = make(Op.SUB, (hi, lo))
        if endpoint:
            span = make(Op.ADD, (span, ew.as_node(1, dt.int64, shape)))
        bits = make(Op.RNG_BITS, (self._key(),), shape, dt.uint64)
        offset = make(Op.REM, (bits, ew.convert(span, dt.uint64)))
        return wrap(ew.convert(make(Op.ADD, (lo, ew.convert(offset, dt.int64))), dtype))

    def permutation(self, x):
        """A shuffled copy (or a shuffled ``arange(x)`` for an integer)."""
        from lazytensor.numpy import arange

        a = arange(int(x)) if isinstance(x, (int, np.integer)) else x
        node = node_of(a)
        keys = make(Op.RNG_BITS, (self._key(),), node.shape[:1], dt.uint32)
        order = make(Op.ARGSORT, (keys,), 0, False, True, dt.int64)
        return wrap(node)[wrap(order)]

    def shuffle(self, x) -> None:
        """Shuffle ``x`` in place along its first axis."""
        x[...] = self.permutation(x)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Samples of ``a`` (or of ``arange(a)``), uniform or with weights ``p``."""
        population = None if isinstance(as_index(a), (int, np.integer)) else node_of(a)
        n = int(as_index(a)) if population is None else population.shape[axis]
        shape = _shape(size)
        if p is not None and not replace:
            return eager_draw(self, "choice", a, size, replace, p, axis, shuffle)
        if not replace:
            count = int(np.prod(shape))
            if count > n:
                raise ValueError("Cannot take a larger sample than population when "
                                 "replace=False")
            idx = self.permutation(n)[:count].reshape(shape)
        elif p is None:
            idx = self.integers(0, n, size=shape)
        else:
            cdf = cs_cumsum(node_of(p))
            u = make(Op.RNG_UNIFORM, (self._key(),), shape, dt.float64)
            total = ew.broadcast_to(cs_last(cdf), shape)
            found = csort.searchsorted(cdf, make(Op.MUL, (u, total)), "right")
            idx = wrap(make(Op.MIN, (found, ew.full(shape, n - 1, found.dtype))))
        if population is None:
            return idx
        from lazytensor.numpy import take

        return take(wrap(population), idx, axis=axis)

    def __getattr__(self, name: str):
        """Other numpy Generator methods draw eagerly (numpy's generator,
        seeded from ours), warned and counted as fallbacks."""
        if name.startswith("_") or not hasattr(np.random.Generator, name):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
        return lambda *args, **kwargs: eager_draw(self, name, *args, **kwargs)


def cs_cumsum(p) -> object:
    return make(Op.CUMSUM, (ew.convert(p, dt.float64),), 0, False)


def cs_last(x):
    n = x.shape[0]
    return make(Op.RESHAPE, (make(Op.SLICE, (x,), (n - 1,), (n,), (1,)),), ())


def eager_draw(source, name: str, *args, **kwargs):
    """Draw with numpy's own generator on the host (seeded from ``source``)."""
    from lazytensor.numpy._dispatch import eager

    seed = getattr(getattr(source, "_state", None), "seed_value", None)
    host = np.random.default_rng(seed)
    return eager(f"numpy.random.Generator.{name}", getattr(host, name), args, kwargs)


class Generator(_Draws):
    """numpy's ``Generator`` interface with its own seed key and counter."""

    def __init__(self, seed=None) -> None:
        self._state = RngState(_seed_value(seed))

    def _key(self):
        return self._state.next_key()

    def __repr__(self) -> str:
        return f"Generator(lazytensor threefry, seed={self._state.seed_value})"


def _seed_value(seed) -> int:
    if seed is None:
        return int(np.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF
    return int(np.asarray(seed).ravel()[0]) if np.ndim(seed) else int(seed)


@guard
def default_rng(seed=None) -> Generator:
    return seed if isinstance(seed, Generator) else Generator(seed)


class _Global(_Draws):
    """The legacy module functions: the active runtime's RNG."""

    def _key(self):
        return get_runtime().rng.next_key()


_GLOBAL = _Global()


def seed(seed=None) -> None:
    get_runtime().rng.manual_seed(_seed_value(seed))


def rand(*shape):
    return _GLOBAL.random(shape or None)


def randn(*shape):
    return _GLOBAL.standard_normal(shape or None)


def random(size=None):
    return _GLOBAL.random(size)


random_sample = random


def uniform(low=0.0, high=1.0, size=None):
    return _GLOBAL.uniform(low, high, size)


def normal(loc=0.0, scale=1.0, size=None):
    return _GLOBAL.normal(loc, scale, size)


def standard_normal(size=None):
    return _GLOBAL.standard_normal(size)


def randint(low, high=None, size=None, dtype=int):
    return _GLOBAL.integers(low, high, size, dtype)


def permutation(x):
    return _GLOBAL.permutation(x)


def shuffle(x) -> None:
    _GLOBAL.shuffle(x)


def choice(a, size=None, replace=True, p=None):
    return _GLOBAL.choice(a, size, replace, p)


def __getattr__(name: str):
    """numpy.random names without a lazy version are numpy's own (eager)."""
    target = getattr(np.random, name, None)
    if target is None or name.startswith("_"):
        raise AttributeError(f"module 'lazytensor.numpy.random' has no attribute {name!r}")
    if callable(target) and not isinstance(target, type):
        from lazytensor.numpy._dispatch import eager

        return lambda *args, **kwargs: eager(f"numpy.random.{name}", target, args, kwargs)
    return target
