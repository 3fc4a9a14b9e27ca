"""Output lengths that depend on the data (bincount's largest value + 1, a
confusion matrix's class count, a mask's longest length): the one barrier
that reads them back, shared by every frontend.

A length is known without reading when the values are positions along an
axis (``composite.sets.counting.index_bound``: an argmin, top-k indices...)
that cannot reach the length asked for. Else the extremes are read in one
graph run; those of a materialized vector (a DATA leaf, whose values never
change) are kept while it lives, so ``bincount(labels, weights=w)`` in a
loop over fixed labels reads nothing after the first call.

A read is a barrier: it may donate the buffers that pending nodes taken
before it read, so a caller takes its arguments' nodes again after it.
Each frontend raises its framework's error for a negative value.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> bincount_length(constant(np.array([3, 1]), np.dtype("int64")), minlength=2)
(4, 1)
"""

from __future__ import annotations

import math
import weakref

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import convert
from lazytensor.core.composite.movement.shape import stack
from lazytensor.core.composite.reduce.reduction import reduce
from lazytensor.core.composite.sets.counting import index_bound
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.runtime import Handle

_RANGES: dict[int, tuple] = {}  # id of a DATA leaf -> (weak ref to it, min, max)


def read_ints(*nodes: Node) -> np.ndarray:
    """The 0-d ``nodes`` read back together (one barrier), as int64."""
    return Handle(stack([convert(n, dt.int64) for n in nodes], 0)).numpy()


def value_range(x: Node) -> tuple[int, int]:
    """(min, max) of the integer node ``x``, read in one barrier ((0, -1)
    when x is empty); a DATA leaf's are kept while it lives."""
    if not math.prod(x.shape):
        return 0, -1
    known = _RANGES.get(id(x))
    if known is not None and known[0]() is x:
        return known[1:]
    lo, hi = (int(v) for v in read_ints(reduce("min", x), reduce("max", x)))
    if x.op is Op.DATA:
        key = id(x)
        _RANGES[key] = (weakref.ref(x, lambda _, key=key: _RANGES.pop(key, None)), lo, hi)
    return lo, hi


def bincount_length(x: Node, minlength: int = 0,
                    maxlength: int | None = None) -> tuple[int, int]:
    """``(length, smallest)``: bincount's output length for the integer
    values of ``x`` (their max + 1, at least ``minlength``, at most
    ``maxlength``), and their smallest value (0 when nothing was read), which
    the frontend checks for negatives. Nothing is read when ``maxlength``
    does not exceed ``minlength``, or when ``x`` holds positions that
    cannot reach ``minlength``."""
    if maxlength is not None and minlength >= maxlength:
        return maxlength, 0
    bound = index_bound(x)
    if bound is not None and bound <= minlength:
        lo, hi = 0, minlength - 1
    else:
        lo, hi = value_range(x)
    length = max(hi + 1, minlength)
    return (length if maxlength is None else min(length, maxlength)), lo
