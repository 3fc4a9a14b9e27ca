"""Reductions over a set of axes, arg-reductions and cumulative scans."""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.ops import ARG_REDUCE, CUMULATIVE, Op
from lazytensor.core.registry import DTypeError, register
from lazytensor.core.rules.common import check_axes, memoized


def _reduce_rule(op: Op, needs_bool: bool):
    def rule(operands, attrs):
        (x,), (axes,) = operands, attrs
        check_axes(op, axes, x.ndim)
        if needs_bool and x.dtype != dt.bool_:
            raise DTypeError(f"{op.name}: expected a bool operand, got {x.dtype}")
        return tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype

    return rule


def _arg_rule(op: Op):
    def rule(operands, attrs):
        (x,), (axis, index_dtype) = operands, attrs
        check_axes(op, (axis,), x.ndim)
        if x.shape[axis] == 0:
            raise ValueError(f"{op.name}: attempt to get {op.name.lower()} of an empty sequence")
        return x.shape[:axis] + x.shape[axis + 1:], index_dtype

    return rule


def _cumulative_rule(op: Op):
    def rule(operands, attrs):
        (x,), (axis, _reverse) = operands, attrs
        check_axes(op, (axis,), x.ndim)
        return x.shape, x.dtype

    return rule


for _op in (Op.REDUCE_SUM, Op.REDUCE_PROD, Op.REDUCE_MAX, Op.REDUCE_MIN):
    register(_op, 1, ("axes",), memoized(_reduce_rule(_op, needs_bool=False)))
for _op in (Op.REDUCE_AND, Op.REDUCE_OR):
    register(_op, 1, ("axes",), _reduce_rule(_op, needs_bool=True))
for _op in ARG_REDUCE:
    register(_op, 1, ("axis", "index_dtype"), _arg_rule(_op))
for _op in CUMULATIVE:
    register(_op, 1, ("axis", "reverse"), _cumulative_rule(_op))
