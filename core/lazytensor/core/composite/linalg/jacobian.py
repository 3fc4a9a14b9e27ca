"""Gradients of a value read through several nodes, and Jacobians stacked
from per-element gradients, on the core's autodiff
(``lazytensor.core.autodiff.grad``). A frontend that reads a variable
through fresh alias nodes (TensorFlow's tape gives each read its own)
differentiates with respect to the variable by summing its aliases'
gradients; a Jacobian is one such gradient per element of the target (a
one-hot cotangent), stacked in the target's shape.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.ones(3), np.dtype("float32"))
>>> y = make(Op.MUL, (x, x))
>>> [g.shape for g in grouped_grads(y, [[x], []]) if g is not None]
[(3,)]
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from lazytensor.core import dtypes as dt
from lazytensor.core.autodiff import grad
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def grouped_grads(output: Node | None, groups: Sequence[Sequence[Node]]) -> list[Node | None]:
    """d sum(output) / d each group: the sum of the gradients of the group's
    nodes (one recorded VJP for all of them). None for a group with no
    floating node that ``output`` depends on, and for every group when
    ``output`` is None.

    Shape/dtype rule: a group's gradient has its nodes' shape and dtype."""
    flat = [n for nodes in groups for n in nodes if dt.is_inexact(n.dtype)]
    results = grad(output, flat, unconnected="none") if output is not None and flat else []
    by_id = {id(n): g for n, g in zip(flat, results, strict=False)}
    out = []
    for nodes in groups:
        parts = [by_id[id(n)] for n in nodes if by_id.get(id(n)) is not None]
        out.append(functools.reduce(lambda a, b: make(Op.ADD, (a, b)), parts) if parts
                   else None)
    return out


def stack_rows(rows: Sequence[Node | None], lead: Sequence[int], like: Node,
               zeros: bool) -> Node | None:
    """One source's Jacobian from its per-element gradients (each of
    ``like``'s shape and dtype; None: unconnected, zeros here): shape
    ``lead + like.shape``. All rows None gives None, or zeros with
    ``zeros``."""
    shape = (*lead, *like.shape)
    if all(r is None for r in rows):
        return ew.full(shape, 0, like.dtype) if zeros else None
    parts = [ew.full(like.shape, 0, like.dtype) if r is None else r for r in rows]
    return cs.reshape(cs.stack(parts, 0), shape)


__all__ = ["grouped_grads", "stack_rows"]
