"""Fractional max pooling (Graham, 2014) with per-plane random window
starts: torch's ``fractional_max_pool2d/3d``.

For one spatial axis of length L, pool size p and output size o, and a
sample u in [0, 1) per (batch, channel) plane, window i starts at
trunc((i + u) * alpha) - trunc(u * alpha) with alpha = (L - p) / (o - 1)
(computed in the input's dtype, as torch's kernel does), and the last window
starts at L - p. The maximum is picked one axis at a time, innermost first,
carrying flat indices, so ties go to the row-major first maximum and a NaN
wins (the last one), as in ``nn.adaptive_max_pool_with_indices``.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((2, 3, 9, 8)), np.dtype("float32"))
>>> u = constant(np.full((2, 3, 2), 0.5), np.dtype("float32"))
>>> [n.shape for n in fractional_max_pool(x, u, (2, 3), (4, 5))]
[(2, 3, 4, 5), (2, 3, 4, 5)]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import iota
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing.take import take_along_axis
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.composite.nn.functional import window_max
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def _c(value, like: Node) -> Node:
    return ew.as_node(value, like.dtype, like.shape)


def window_starts(u: Node, length: int, pool: int, out: int) -> Node:
    """(N, C) samples -> (N, C, out) int64 window starts along one axis."""
    shape = (*u.shape, out)
    last = ew.full(shape, length - pool, dt.int64)
    if out == 1:
        return last
    alpha = (np.asarray(length - pool, u.dtype) / np.asarray(out - 1, u.dtype)).item()
    ub = make(Op.BROADCAST_IN_DIM, (u,), shape, tuple(range(u.ndim)))
    i = ew.convert(iota(shape, u.ndim), u.dtype)
    scaled = make(Op.MUL, (make(Op.ADD, (i, ub)), _c(alpha, ub)))
    base = make(Op.MUL, (ub, _c(alpha, ub)))
    start = make(Op.SUB, (ew.convert(scaled, dt.int64), ew.convert(base, dt.int64)))
    return make(Op.SELECT, (make(Op.EQ, (iota(shape, u.ndim), _c(out - 1, last))), last, start))


def _pass(value: Node, index: Node | None, axis: int, starts: Node, pool: int,
          plane: int) -> tuple[Node, Node]:
    """The maximum over windows [start, start + pool) of ``axis`` (starts:
    (N, C, out)) and its flat index (position * plane + carried index)."""
    out = starts.shape[-1]
    win_shape = (*starts.shape, pool)
    pos = make(Op.ADD, (make(Op.BROADCAST_IN_DIM, (starts,), win_shape, (0, 1, 2)),
                        iota(win_shape, 3, dt.int64)))
    lead = value.shape[:axis] + (out * pool,) + value.shape[axis + 1:]
    idx = make(Op.BROADCAST_IN_DIM, (reshape(pos, (*starts.shape[:2], out * pool)),), lead,
               (0, 1, axis))
    shape = value.shape[:axis] + (out, pool) + value.shape[axis + 1:]

    def windows(x: Node) -> Node:
        return reshape(take_along_axis(x, idx, axis), shape)

    return window_max(windows(value), reshape(idx, shape),
                      None if index is None else windows(index), axis, plane)


def fractional_max_pool(x: Node, samples: Node, kernel: Sequence[int],
                        output_size: Sequence[int]) -> tuple[Node, Node]:
    """(N, C, *spatial) input, (N, C, nspatial) samples (one per spatial
    axis, outermost first) -> the maxima and their int64 flat indices into
    each input plane, both (N, C, *output_size)."""
    n = len(kernel)
    axes = range(x.ndim - n, x.ndim)
    value, index, plane = x, None, 1
    for j, axis in reversed(list(enumerate(axes))):
        u = reshape(make(Op.SLICE, (samples,), (0, 0, j), (*samples.shape[:2], j + 1),
                         (1, 1, 1)), samples.shape[:2])
        starts = window_starts(u, x.shape[axis], kernel[j], output_size[j])
        value, index = _pass(value, index, axis, starts, kernel[j], plane)
        plane *= x.shape[axis]
    return value, index


__all__ = ["fractional_max_pool", "window_starts"]
