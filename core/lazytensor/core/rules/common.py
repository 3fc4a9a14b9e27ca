"""Helpers shared by the rule modules: checks with the op named in the error."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError


def check_axes(op: Op, axes: Sequence[int], ndim: int) -> None:
    for axis in axes:
        if not 0 <= axis < ndim:
            raise ShapeError(f"{op.name}: axis {axis} is out of bounds for rank {ndim}")
    if len(set(axes)) != len(axes):
        raise ShapeError(f"{op.name}: repeated axis in {tuple(axes)}")


def same_shapes(op: Op, operands) -> tuple[int, ...]:
    shape = operands[0].shape
    for other in operands[1:]:
        if other.shape != shape:
            raise ShapeError(f"{op.name}: operand shapes differ: {shape} vs {other.shape}")
    return shape


def same_dtypes(op: Op, operands) -> np.dtype:
    dtype = operands[0].dtype
    for other in operands[1:]:
        if other.dtype != dtype:
            raise DTypeError(f"{op.name}: operand dtypes differ: {dtype} vs {other.dtype}")
    return dtype


def check_dtype(op: Op, dtype: np.dtype, allowed, what: str) -> None:
    if not allowed(dtype):
        raise DTypeError(f"{op.name}: expected {what} operand, got {dtype}")
