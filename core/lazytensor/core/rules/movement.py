"""Movement family: broadcast, reshape, transpose, reverse, slices, pad,
concatenate, dynamic slices. Attributes are tuples of Python ints."""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, register
from lazytensor.core.rules.common import check_axes, memoized, same_dtypes


def _broadcast_in_dim(operands, attrs):
    (x,), (shape, dims) = operands, attrs
    if len(dims) != x.ndim:
        raise ShapeError(f"BROADCAST_IN_DIM: {len(dims)} dims for rank {x.ndim}")
    check_axes(Op.BROADCAST_IN_DIM, dims, len(shape))
    for size, dim in zip(x.shape, dims, strict=False):
        if size != 1 and size != shape[dim]:
            raise ShapeError(f"BROADCAST_IN_DIM: cannot broadcast {x.shape} to {shape}")
    return tuple(shape), x.dtype


def _reshape(operands, attrs):
    (x,), (shape,) = operands, attrs
    if math.prod(shape) != math.prod(x.shape) or any(s < 0 for s in shape):
        raise ShapeError(f"RESHAPE: cannot reshape {x.shape} into {shape}")
    return tuple(shape), x.dtype


def _transpose(operands, attrs):
    (x,), (perm,) = operands, attrs
    if sorted(perm) != list(range(x.ndim)):
        raise ShapeError(f"TRANSPOSE: {perm} is not a permutation of rank {x.ndim}")
    return tuple(x.shape[p] for p in perm), x.dtype


def _rev(operands, attrs):
    (x,), (dims,) = operands, attrs
    check_axes(Op.REV, dims, x.ndim)
    return x.shape, x.dtype


def _slice(operands, attrs):
    (x,), (start, limit, strides) = operands, attrs
    if not len(start) == len(limit) == len(strides) == x.ndim:
        raise ShapeError(f"SLICE: start/limit/strides must have rank {x.ndim}")
    out = []
    for lo, hi, st, size in zip(start, limit, strides, x.shape, strict=False):
        if not 0 <= lo <= hi <= size or st < 1:
            raise ShapeError(f"SLICE: [{lo}:{hi}:{st}] out of bounds for size {size}")
        out.append(-(-(hi - lo) // st))
    return tuple(out), x.dtype


def _check_indices(op: Op, indices, ndim: int) -> None:
    if len(indices) != ndim:
        raise ShapeError(f"{op.name}: {len(indices)} start indices for rank {ndim}")
    for index in indices:
        if index.shape != () or not dt.is_int(index.dtype):
            raise DTypeError(f"{op.name}: start indices must be integer scalars")


def _dynamic_slice(operands, attrs):
    x, *indices = operands
    (sizes,) = attrs
    _check_indices(Op.DYNAMIC_SLICE, indices, x.ndim)
    if len(sizes) != x.ndim or any(not 0 <= s <= d for s, d in zip(sizes, x.shape, strict=False)):
        raise ShapeError(f"DYNAMIC_SLICE: sizes {sizes} do not fit {x.shape}")
    return tuple(sizes), x.dtype


def _dynamic_update_slice(operands, attrs):
    x, update, *indices = operands
    _check_indices(Op.DYNAMIC_UPDATE_SLICE, indices, x.ndim)
    same_dtypes(Op.DYNAMIC_UPDATE_SLICE, (x, update))
    if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape, strict=False)):
        raise ShapeError(f"DYNAMIC_UPDATE_SLICE: update {update.shape} does not fit {x.shape}")
    return x.shape, x.dtype


def _concatenate(operands, attrs):
    (dim,) = attrs
    if not operands:
        raise ShapeError("CONCATENATE: needs at least one operand")
    first = operands[0]
    dtype = same_dtypes(Op.CONCATENATE, operands)
    check_axes(Op.CONCATENATE, (dim,), first.ndim)
    total = 0
    for x in operands:
        if x.ndim != first.ndim or any(
            a != b for i, (a, b) in enumerate(zip(x.shape, first.shape, strict=False)) if i != dim
        ):
            raise ShapeError(f"CONCATENATE: shapes {first.shape} and {x.shape} differ off "
                             f"axis {dim}")
        total += x.shape[dim]
    return first.shape[:dim] + (total,) + first.shape[dim + 1:], dtype


def _pad(operands, attrs):
    (x, value), (config,) = operands, attrs
    same_dtypes(Op.PAD, operands)
    if value.shape != () or len(config) != x.ndim:
        raise ShapeError(f"PAD: needs a scalar pad value and {x.ndim} (lo, hi, interior) triples")
    out = []
    for size, (lo, hi, interior) in zip(x.shape, config, strict=False):
        if interior < 0:
            raise ShapeError("PAD: interior padding must be >= 0")
        padded = lo + hi + size + max(size - 1, 0) * interior
        if padded < 0:
            raise ShapeError(f"PAD: negative size for {x.shape} with {config}")
        out.append(padded)
    return tuple(out), x.dtype


register(Op.BROADCAST_IN_DIM, 1, ("shape", "broadcast_dimensions"), memoized(_broadcast_in_dim))
register(Op.RESHAPE, 1, ("new_sizes",), _reshape)
register(Op.TRANSPOSE, 1, ("permutation",), memoized(_transpose))
register(Op.REV, 1, ("dimensions",), memoized(_rev))
register(Op.SLICE, 1, ("start", "limit", "strides"), memoized(_slice))
register(Op.DYNAMIC_SLICE, None, ("slice_sizes",), _dynamic_slice)
register(Op.DYNAMIC_UPDATE_SLICE, None, (), _dynamic_update_slice)
register(Op.CONCATENATE, None, ("dimension",), _concatenate)
register(Op.PAD, 2, ("padding_config",), memoized(_pad))
