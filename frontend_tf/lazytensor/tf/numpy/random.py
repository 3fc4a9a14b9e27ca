"""``tnp.random``, drawn by TensorFlow itself.

A seeded tnp program (``tnp.random.seed(0); tnp.random.randn(3)``) gets
TensorFlow's own stream, which no other generator reproduces: so each draw
runs tnp's sampler eagerly, in the program's order, and its result becomes
device data (hashed by shape and dtype: fresh draws every step compile
once). Draws are counted as ``host_random_draws`` in the metrics; they are
not fallbacks and do not warn. An int ``size`` is passed on as a 1-tuple
(TensorFlow 2.21's tnp.random.uniform/random raise on it).
"""

from __future__ import annotations

from lazytensor.core.runtime import get_runtime
from lazytensor.tf import _tf
from lazytensor.tf.numpy._lower import fallback, from_eager, to_eager

# the samplers that are TensorFlow's (the rest of tnp.random, e.g. poisson,
# is an ordinary fallback)
DRAWN = ("standard_normal", "randn", "uniform", "random", "rand", "randint")


def _drawing(name: str, size_at: int | None = None):
    """tnp.random.``name``, drawn eagerly; ``size_at``: the position of its
    ``size`` argument (moved to the keyword, an int made a 1-tuple)."""
    def draw(*args, **kwargs):
        if size_at is not None and len(args) > size_at:
            kwargs["size"], args = args[size_at], args[:size_at] + args[size_at + 1:]
        if isinstance(kwargs.get("size"), int):
            kwargs["size"] = (kwargs["size"],)
        get_runtime().metrics.count("host_random_draws")
        target = getattr(_tf.tnp().random, name)  # TensorFlow loads on the first draw
        return from_eager(target(*to_eager(args), **to_eager(kwargs)))

    draw.__name__ = draw.__qualname__ = name
    return draw


def seed(s) -> None:
    """tnp's ``seed``: TensorFlow's global seed (its own errors)."""
    _tf.tnp().random.seed(s)


standard_normal = _drawing("standard_normal", 0)
randn = _drawing("randn")
uniform = _drawing("uniform", 2)
random = _drawing("random", 0)
rand = _drawing("rand")
randint = _drawing("randint", 2)


def __getattr__(name: str):
    """Anything else in tnp.random (``poisson``) runs eagerly, as a fallback."""
    target = getattr(_tf.tnp().random, name)
    fn = fallback(f"random.{name}", target)
    globals()[name] = fn
    return fn
