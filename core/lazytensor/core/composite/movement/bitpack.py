"""numpy's packbits/unpackbits on nodes: bits along one axis packed into
uint8 bytes (most significant bit first, or least with ``little``) and back,
on shifts and sums; the axis is zero-padded to a multiple of 8.
"""

from __future__ import annotations

import numpy as np
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement.padding import pad
from lazytensor.core.composite.movement.shape import reshape, slice_axis
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def _bit_shifts(shape: tuple[int, ...], axis: int, little: bool) -> Node:
    """Each byte's bit positions along ``axis`` (of length 8), as uint8:
    7..0 (most significant first) or 0..7 (``little``)."""
    shifts = make(Op.IOTA, (), np.dtype(np.uint8), shape, axis)
    return shifts if little else make(Op.SUB, (ew.as_node(7, shifts.dtype, shape), shifts))


def packbits(x: Node, axis: int, little: bool = False) -> Node:
    """numpy.packbits along ``axis``: each run of 8 elements (the last one
    padded with zeros) becomes one byte whose bits are their truth values,
    most significant first (``little``: least significant first).

    Shape rule: ``axis`` becomes ceil(n / 8) long; uint8.

    >>> from lazytensor.core.leaves import constant
    >>> packbits(constant(np.ones((2, 11)), np.dtype("bool")), 1).shape
    (2, 2)
    """
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    truth = x if x.dtype == np.bool_ else make(Op.NE, (x, ew.as_node(0, x.dtype, x.shape)))
    bits = ew.convert(truth, np.dtype(np.uint8))
    bits = pad(bits, [(0, -n % 8 if d == axis else 0) for d in range(x.ndim)])
    runs = reshape(bits, x.shape[:axis] + (-(-n // 8), 8) + x.shape[axis + 1:])
    shifted = make(Op.SHIFT_LEFT, (runs, _bit_shifts(runs.shape, axis + 1, little)))
    return make(Op.REDUCE_SUM, (shifted,), (axis + 1,))  # distinct bits: a sum is an OR


def unpackbits(x: Node, axis: int, count: int | None = None, little: bool = False) -> Node:
    """numpy.unpackbits of a uint8 array along ``axis``: each byte becomes its
    8 bits (most significant first, or least with ``little``), as uint8 0/1;
    ``count`` keeps that many (zero-padded past the end; negative: drops
    -count from the end; the caller checks that -count <= 8 n).

    >>> from lazytensor.core.leaves import constant
    >>> unpackbits(constant(np.ones((2, 3)), np.dtype("uint8")), 1, 20).shape
    (2, 20)
    """
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    wide = x.shape[:axis + 1] + (8,) + x.shape[axis + 1:]
    bytes_ = ew.broadcast_to(reshape(x, x.shape[:axis + 1] + (1,) + x.shape[axis + 1:]), wide)
    bits = make(Op.SHIFT_RIGHT_LOGICAL, (bytes_, _bit_shifts(wide, axis + 1, little)))
    bits = make(Op.AND, (bits, ew.as_node(1, bits.dtype, wide)))
    out = reshape(bits, x.shape[:axis] + (8 * n,) + x.shape[axis + 1:])
    if count is None:
        return out
    keep = count if count >= 0 else 8 * n + count
    if keep <= 8 * n:
        return slice_axis(out, axis, 0, keep)
    return pad(out, [(0, keep - 8 * n if d == axis else 0) for d in range(x.ndim)])
