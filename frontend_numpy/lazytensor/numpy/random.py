"""``lazytensor.numpy.random``: numpy's random module, drawn by numpy itself.

numpy users rely on numpy's bit streams: ``np.random.seed(0)`` or
``default_rng(0)`` reproduces a published result, a test's fixture, the
data a script trains on. So every draw runs numpy's own sampler on the host
(the module functions share numpy's global state, exactly as numpy's do)
and its result becomes device data. Device data is hashed by shape and
dtype, never by value, so a graph that reads fresh draws every step
compiles once. Lazy arguments (a ``loc`` array, the array to shuffle) are
materialized first. Draws are counted as ``host_random_draws`` in the
metrics; they are not fallbacks (nothing lazy is missing) and do not warn.

>>> rng = default_rng(0)
>>> rng.normal(size=(2, 3)).shape
(2, 3)
"""

from __future__ import annotations

from collections.abc import Callable

from lazytensor.core.runtime import get_runtime
from lazytensor.numpy._base import ndarray
from lazytensor.numpy._dispatch import to_host, to_lazy

import numpy as np

# numpy.random names that hand back state, not draws: returned as numpy's
_STATE = frozenset({"seed", "get_state", "set_state", "bit_generator", "spawn", "get_bit_generator",
                    "set_bit_generator"})


def _drawing(fn: Callable) -> Callable:
    """``fn`` (a numpy sampler) with lazy arguments materialized and array
    results made lazy (scalar results are numpy's, as numpy returns them)."""
    def draw(*args, **kwargs):
        get_runtime().metrics.count("host_random_draws")
        out = kwargs.pop("out", None)
        result = fn(*to_host(args), **to_host(kwargs))
        if out is None:  # a scalar draw stays numpy's scalar, as numpy returns it
            return result if isinstance(result, np.generic) else to_lazy(result)
        out[...] = result
        return out

    draw.__name__ = draw.__qualname__ = getattr(fn, "__name__", "draw")
    draw.__doc__ = fn.__doc__
    return draw


def _shuffling(fn: Callable) -> Callable:
    """``fn`` (numpy's in-place shuffle) on a lazy array: shuffled on the
    host and written back, so every view of it sees the new order."""
    def shuffle(x, *args, **kwargs):
        if not isinstance(x, ndarray):
            return fn(x, *args, **kwargs)
        get_runtime().metrics.count("host_random_draws")
        host = np.array(x)
        fn(host, *args, **kwargs)
        x[...] = host
        return None

    shuffle.__doc__ = fn.__doc__
    return shuffle


def _wrapped(name: str, target):
    if name == "shuffle":
        return _shuffling(target)
    if name in _STATE or not callable(target) or isinstance(target, type):
        return target
    return _drawing(target)


class _HostSampler:
    """A numpy sampler object (``Generator``, ``RandomState``) whose draws
    become lazy arrays; its state, seeding and streams are numpy's."""

    def __init__(self, host) -> None:
        self._host = host

    def __getattr__(self, name: str):
        return _wrapped(name, getattr(self._host, name))

    def __repr__(self) -> str:
        return f"lazytensor.numpy.random: {self._host!r}"


class Generator(_HostSampler):
    """numpy's ``Generator`` over ``bit_generator``, with lazy results."""

    def __init__(self, bit_generator) -> None:
        super().__init__(bit_generator if isinstance(bit_generator, np.random.Generator)
                         else np.random.Generator(bit_generator))


class RandomState(_HostSampler):
    """numpy's legacy ``RandomState(seed)``, with lazy results."""

    def __init__(self, seed=None) -> None:
        super().__init__(seed if isinstance(seed, np.random.RandomState)
                         else np.random.RandomState(to_host(seed)))


def default_rng(seed=None) -> Generator:
    """numpy's ``default_rng(seed)``: the same stream, lazy results."""
    if isinstance(seed, Generator):
        return seed
    return Generator(np.random.default_rng(to_host(seed)))


def __getattr__(name: str):
    """Every other numpy.random name: numpy's own, its draws made lazy."""
    target = getattr(np.random, name, None)
    if target is None or name.startswith("_"):
        raise AttributeError(f"module 'lazytensor.numpy.random' has no attribute {name!r}")
    return _wrapped(name, target)


def __dir__() -> list[str]:
    return sorted(set(dir(np.random)) | {"Generator", "RandomState", "default_rng"})


__all__ = ["Generator", "RandomState", "default_rng"]
