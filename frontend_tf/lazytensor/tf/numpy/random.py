"""``tnp.random`` on the core's explicit-key RNG (``get_runtime().rng``):
lazy, recompile-free (the key is data, the step a scalar parameter), and
deterministic under ``seed`` — but not TensorFlow's bit stream, which no
other generator reproduces."""

from __future__ import annotations

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import get_runtime
from lazytensor.tf import _tf
from lazytensor.tf._array import lift
from lazytensor.tf.numpy._lower import fallback, lowered


def _size(size) -> tuple[int, ...]:
    if size is None:
        return ()
    return (int(size),) if np.ndim(size) == 0 else tuple(int(s) for s in size)


def _seed(s) -> None:
    try:
        s = int(s)
    except TypeError:
        raise ValueError(f"Argument `s` got an invalid value {s}. Only integers are "
                         f"supported.") from None
    get_runtime().rng.manual_seed(s)


def _standard_normal(size=None):
    return make(Op.RNG_NORMAL, (get_runtime().rng.next_key(),), _size(size), dt.float64)


def _uniform(low=0.0, high=1.0, size=None):
    lo, hi = lift(low, dt.float64), lift(high, dt.float64)
    shape = _size(size) if size is not None else ew.broadcast_shapes(lo.shape, hi.shape)
    unit = make(Op.RNG_UNIFORM, (get_runtime().rng.next_key(),), shape, dt.float64)
    lo, hi = ew.broadcast_to(lo, shape), ew.broadcast_to(hi, shape)
    return make(Op.ADD, (lo, make(Op.MUL, (unit, make(Op.SUB, (hi, lo))))))


def _randint(low, high=None, size=None, dtype=np.int64):
    low = int(low)
    if high is None:
        low, high = 0, low
    target = _tf.as_np_dtype(dtype)
    if target not in (dt.int32, dt.int64):
        raise ValueError(f"Argument `dtype` got an invalid value {dtype}. Only those "
                         f"convertible to (int32, int64) are supported.")
    unit = _uniform(0.0, 1.0, size)
    span = ew.as_node(float(int(high) - low), dt.float64, unit.shape)
    drawn = make(Op.FLOOR, (make(Op.MUL, (unit, span)),))
    shifted = make(Op.ADD, (ew.convert(drawn, target), ew.as_node(low, target, unit.shape)))
    return make(Op.MIN, (shifted, ew.as_node(int(high) - 1, target, unit.shape)))


seed = _seed
standard_normal = lowered("standard_normal", _standard_normal)
randn = lowered("randn", lambda *args: _standard_normal(args))
uniform = lowered("uniform", _uniform)
random = lowered("random", lambda size=None: _uniform(0.0, 1.0, size))
rand = lowered("rand", lambda *size: _uniform(0.0, 1.0, size))
randint = lowered("randint", _randint)


def __getattr__(name: str):
    """Anything else in tnp.random (``poisson``) runs eagerly."""
    target = getattr(_tf.tnp().random, name)
    fn = fallback(f"random.{name}", target)
    globals()[name] = fn
    return fn


LOWERED = ("seed", "standard_normal", "randn", "uniform", "random", "rand", "randint")
