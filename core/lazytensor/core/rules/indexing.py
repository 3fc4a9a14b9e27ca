"""Gather and scatter, with StableHLO's dimension numbers. The index vector
is always the last dimension of ``indices`` (as in ``jax.lax``).

Gather attrs: offset_dims, collapsed_slice_dims, start_index_map,
operand_batching_dims, start_indices_batching_dims, slice_sizes, mode.
Scatter attrs: update_window_dims, inserted_window_dims,
scatter_dims_to_operand_dims, operand_batching_dims,
scatter_indices_batching_dims, kind ('set'|'add'|'mul'|'min'|'max'), mode.
``mode`` is 'clip', 'fill' (out-of-bounds reads give XLA's fill value: NaN
for floats, the lowest value for signed ints, the highest for unsigned,
True for bools; out-of-bounds writes are dropped) or 'promise_in_bounds'.
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, register
from lazytensor.core.rules.common import same_dtypes

MODES = ("clip", "fill", "promise_in_bounds")
SCATTER_KINDS = ("set", "add", "mul", "min", "max")


def _check_indices(op: Op, indices, mode: str) -> None:
    if not dt.is_int(indices.dtype):
        raise DTypeError(f"{op.name}: indices must be integers, got {indices.dtype}")
    if indices.ndim < 1:
        raise ShapeError(f"{op.name}: indices need an index-vector dimension")
    if mode not in MODES:
        raise ShapeError(f"{op.name}: mode must be one of {MODES}, got {mode!r}")


def _gather(operands, attrs):
    x, indices = operands
    offset_dims, collapsed, start_map, op_batch, idx_batch, slice_sizes, mode = attrs
    _check_indices(Op.GATHER, indices, mode)
    if len(slice_sizes) != x.ndim or len(start_map) != indices.shape[-1]:
        raise ShapeError(
            f"GATHER: slice_sizes {slice_sizes} / start_index_map {start_map} do not fit "
            f"operand {x.shape} and indices {indices.shape}"
        )
    if any(not 0 <= s <= d for s, d in zip(slice_sizes, x.shape, strict=False)):
        raise ShapeError(f"GATHER: slice_sizes {slice_sizes} exceed operand {x.shape}")
    if any(slice_sizes[d] > 1 for d in (*collapsed, *op_batch)):
        raise ShapeError("GATHER: collapsed and batching dims must have slice size <= 1")
    dropped = set(collapsed) | set(op_batch)
    offsets = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    if len(offsets) != len(offset_dims):
        raise ShapeError(f"GATHER: {len(offset_dims)} offset_dims for {len(offsets)} window dims")
    batch = list(indices.shape[:-1])
    rank = len(batch) + len(offsets)
    out, offsets_iter, batch_iter = [], iter(offsets), iter(batch)
    for i in range(rank):
        out.append(next(offsets_iter) if i in offset_dims else next(batch_iter))
    return tuple(out), x.dtype


def _scatter(operands, attrs):
    x, indices, updates = operands
    window_dims, inserted, to_operand, op_batch, idx_batch, kind, mode = attrs
    _check_indices(Op.SCATTER, indices, mode)
    same_dtypes(Op.SCATTER, (x, updates))
    if kind not in SCATTER_KINDS:
        raise ShapeError(f"SCATTER: kind must be one of {SCATTER_KINDS}, got {kind!r}")
    if len(to_operand) != indices.shape[-1]:
        raise ShapeError(f"SCATTER: {len(to_operand)} index dims for indices {indices.shape}")
    scatter_dims = [d for d in range(updates.ndim) if d not in window_dims]
    if [updates.shape[d] for d in scatter_dims] != list(indices.shape[:-1]):
        raise ShapeError(
            f"SCATTER: updates {updates.shape} do not match indices {indices.shape}"
        )
    if len(window_dims) + len(inserted) + len(op_batch) != x.ndim:
        raise ShapeError(f"SCATTER: window dims do not cover operand rank {x.ndim}")
    return x.shape, x.dtype


register(Op.GATHER, 2, (
    "offset_dims", "collapsed_slice_dims", "start_index_map", "operand_batching_dims",
    "start_indices_batching_dims", "slice_sizes", "mode",
), _gather)
register(Op.SCATTER, 3, (
    "update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
    "operand_batching_dims", "scatter_indices_batching_dims", "kind", "mode",
), _scatter)
