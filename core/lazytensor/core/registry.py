"""The op registry: one frozen ``OpDef`` per op (arity, attribute names,
shape/dtype rule), made by family factories in ``lazytensor.core.rules``.
Registering an op twice raises.

``make(op, operands, *attrs)`` is the one way to build a non-leaf node: it
runs the rule (so errors point at the caller's line), builds the node and
counts it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

from lazytensor.core.ir import Node
from lazytensor.core.ops import Op

# A rule receives the operand nodes and the attrs tuple and returns
# (shape, dtype); it raises ShapeError / DTypeError for bad input.
Rule = Callable[[tuple, tuple], tuple]


class CoreError(Exception):
    """Base of the core's errors; frontends translate them to their own types."""


class ShapeError(CoreError, ValueError):
    """Operands' shapes do not fit the op."""


class DTypeError(CoreError, TypeError):
    """Operands' dtypes do not fit the op."""


@dataclass(frozen=True, slots=True)
class OpDef:
    op: Op
    arity: int | None  # None: variadic
    attr_names: tuple[str, ...]
    rule: Rule


OPDEFS: dict[Op, OpDef] = {}
# op -> (arity, number of attrs, rule): what ``make`` reads, in one lookup
_MAKE: dict[Op, tuple] = {}


def register(op: Op, arity: int | None, attr_names: tuple[str, ...], rule: Rule) -> OpDef:
    if op in OPDEFS:
        raise KeyError(f"op {op.name} is registered twice")
    opdef = OpDef(op, arity, attr_names, rule)
    OPDEFS[op] = opdef
    _MAKE[op] = (arity, len(attr_names), rule)
    return opdef


def replace_rule(op: Op, rule: Rule) -> None:
    """Give a registered op another rule (a tool wrapping every rule, such as
    ci/reuse_plugin.py's op counter): both tables ``make`` and readers use."""
    opdef = OPDEFS[op]
    OPDEFS[op] = OpDef(op, opdef.arity, opdef.attr_names, rule)
    _MAKE[op] = (opdef.arity, len(opdef.attr_names), rule)


class _Counter(threading.local):
    """Counts recorded ops, per thread: the runtime cuts a thread's graph
    once that thread recorded enough (``lazytensor.core.threads``)."""

    def __init__(self) -> None:
        self.recorded = 0


RECORDED = _Counter()


def make(op: Op, operands: tuple[Node, ...], *attrs) -> Node:
    """Build a node of ``op``; its rule checks the operands and attrs.

    >>> import numpy as np
    >>> from lazytensor.core import rules  # noqa: F401  (registers the ops)
    >>> x = Node(Op.SCALAR, (), (), (), np.dtype("float32"), data=2.0)
    >>> make(Op.BROADCAST_IN_DIM, (x,), (2, 3), ()).shape
    (2, 3)
    """
    arity, n_attrs, rule = _MAKE[op]
    if len(operands) != arity and arity is not None:
        raise CoreError(f"{op.name} takes {arity} operands, got {len(operands)}")
    if len(attrs) != n_attrs:
        raise CoreError(f"{op.name} takes attrs {OPDEFS[op].attr_names}, got {attrs!r}")
    shape, dtype = rule(operands, attrs)
    RECORDED.recorded += 1
    return Node(op, operands, attrs, shape, dtype)
