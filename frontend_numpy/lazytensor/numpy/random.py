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

import numpy as np

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import RngState, get_runtime
from lazytensor.numpy._base import lift, ndarray, node_of, wrap
from lazytensor.numpy._errors import guard

__all__ = [
    "Generator", "default_rng", "seed", "rand", "randn", "random", "random_sample",
    "uniform", "normal", "standard_normal", "randint", "permutation", "shuffle",
]


def _shape(size) -> tuple[int, ...]:
    if size is None:
        return ()
    return (int(size),) if isinstance(size, (int, np.integer)) else tuple(int(s) for s in size)


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
