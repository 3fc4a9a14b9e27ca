"""Evenly spaced sequences whose samples are computed from both ends.

numpy's ``linspace`` (``creation.linspace``) steps forward from ``start``
and sets the last sample to ``stop``. A kernel that fills the first half
forward from ``start`` and the second half backward from ``end`` (torch's
``linspace``) rounds its middle samples differently in single precision;
that arithmetic lives here, so the frontend keeps only its dtype policy.

>>> import numpy as np
>>> y = linspace_two_sided(0.0, 1.0, 5, np.dtype("float32"), np.dtype("float32"))
>>> y.shape, y.dtype
((5,), dtype('float32'))
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation import iota
from lazytensor.core.composite.elementwise import as_node, convert
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def linspace_two_sided(start: float, end: float, steps: int, dtype: np.dtype,
                       compute_dtype: np.dtype) -> Node:
    """``steps`` (>= 0) samples from ``start`` to ``end``, both included,
    computed in ``compute_dtype``: sample i is ``start + i * step`` in the
    first half (i < steps // 2) and ``end - (steps - 1 - i) * step`` in the
    second, with ``step = (end - start) / (steps - 1)``. An integer
    ``dtype`` floors increasing sequences (decreasing ones truncate in the
    conversion). Shape (steps,); start and end are scalar parameters."""
    if steps == 1:
        return as_node(start, dtype, (1,))
    shape = (steps,)
    step = (end - start) / (steps - 1)
    i = iota(shape, 0, compute_dtype)
    step_n = as_node(step, compute_dtype, shape)
    lo = make(Op.ADD, (as_node(start, compute_dtype, shape), make(Op.MUL, (i, step_n))))
    back = make(Op.SUB, (as_node(float(steps - 1), compute_dtype, shape), i))
    hi = make(Op.SUB, (as_node(end, compute_dtype, shape), make(Op.MUL, (back, step_n))))
    first = make(Op.LT, (i, as_node(float(steps // 2), compute_dtype, shape)))
    out = make(Op.SELECT, (first, lo, hi))
    if dt.is_int(dtype) and step >= 0:
        out = make(Op.FLOOR, (out,))
    return convert(out, dtype)
