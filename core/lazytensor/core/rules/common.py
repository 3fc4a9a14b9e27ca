"""Helpers shared by the rule modules: checks with the op named in the error."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError

MEMO_LIMIT = 8192  # entries per rule before its memo starts afresh


def memoized(rule: Callable[[tuple, tuple], tuple]) -> Callable[[tuple, tuple], tuple]:
    """``rule`` with its answers remembered by (attrs, operand shapes and
    dtypes), for rules that read nothing else and validate tuples element by
    element (movement, contractions, reductions): a training step asks them
    the same questions every step. Errors are not remembered (they raise
    again); the memo is per rule and starts afresh past ``MEMO_LIMIT``.

    >>> calls = []
    >>> rule = memoized(lambda operands, attrs: calls.append(1) or ((2,), None))
    >>> class Aval: shape, dtype = (2,), None
    >>> rule((Aval(),), ()) == rule((Aval(),), ()) == ((2,), None), len(calls)
    (True, 1)
    """
    memo: dict = {}

    def run(operands, attrs):
        n = len(operands)
        if n == 1:
            x = operands[0]
            key = (attrs, x.shape, x.dtype)
        elif n == 2:  # (no list built: a dtype in third place tells it from the others)
            x, y = operands
            key = (attrs, x.shape, x.dtype, y.shape, y.dtype)
        else:
            key = (attrs, *[(o.shape, o.dtype) for o in operands])
        found = memo.get(key)
        if found is None:
            found = rule(operands, attrs)
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            memo[key] = found
        return found

    run.__wrapped__ = rule  # type: ignore[attr-defined]
    return run


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
