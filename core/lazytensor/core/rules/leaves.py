"""Leaves are built directly by the runtime (``Node(Op.DATA, ...)``); they
have no rule to run but are registered so that every op has an entry."""

from lazytensor.core.ops import LEAVES
from lazytensor.core.registry import CoreError, register


def _leaf_rule(operands, attrs):
    raise CoreError("leaves are made by the runtime, not by make()")


for _op in LEAVES:
    register(_op, 0, (), _leaf_rule)
