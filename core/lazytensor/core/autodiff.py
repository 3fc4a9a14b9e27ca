"""Automatic differentiation, owned by the core so every frontend shares it.

``grad(output, wrt)`` records, lazily, one ``Op.VJP`` node whose outputs are
the gradients of ``output`` with respect to each node in ``wrt``; nothing
runs until a barrier, and the gradient graph compiles and caches like any
other graph.

Why differentiate the lowered graph with JAX (one VJP op) rather than keep a
table of per-op gradient rules written in core ops:

- coverage: every op that has a lowering is differentiable the day it is
  added (gather/scatter, sort, cumulative ops, linear algebra, conv and
  reduce_window included), with JAX's own tested rules; a rule table would
  need ~100 hand-written, separately tested entries that drift from the
  lowering table;
- higher order: the VJP lowering is itself traced by JAX, so a VJP node
  inside another differentiated graph differentiates again (grad of grad);
- caching: the VJP node's attrs hold only the sub-graph's *structure*
  (ops, attrs, avals, operand refs), never data; everything outside the
  differentiated region (data, Python-scalar parameters, constants, RNG
  keys) enters as an operand, so a training step's gradient graph hashes
  the same every step and is compiled once.

The price: the forward sub-graph appears twice in the lowered program (once
for the user's own values, once inside ``jax.vjp``); XLA's common
subexpression elimination merges the copies, so the compiled step does the
forward work once (measured in bench/tf_train.py).

Semantics: ``wrt`` nodes are identified by object identity. A ``wrt`` node
that depends on another one stays inside the replayed program and receives
a zero perturbation, so both its own gradient (the adjoint at that node)
and the total derivative through it are right. Gradients of integer or bool
values raise ``DTypeError`` (frontends that return zeros or ``None`` instead
filter them out before calling).

>>> import numpy as np
>>> from lazytensor.core import composite  # noqa: F401
>>> from lazytensor.core.runtime import get_runtime
>>> x = get_runtime().from_host(np.array([1.0, 2.0, 3.0], np.float32)).node
>>> y = make(Op.REDUCE_SUM, (make(Op.MUL, (x, x)),), (0,))
>>> [g.shape for g in grad(y, [x])]
[(3,)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import full
from lazytensor.core.ir import Node, toposort
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make

Unconnected = Literal["zeros", "none"]


def stop_gradient(node: Node) -> Node:
    """``node``'s value with no gradient (a frontend's ``stop_gradient`` /
    ``detach``): a float node passes a bit-cast round trip, whose derivative
    is zero, so no differentiable path leads through it; leaves and
    non-float nodes have none to cut. Shape and dtype of ``node``."""
    if not node.operands or not dt.is_inexact(node.dtype):
        return node
    if dt.is_complex(node.dtype):
        parts = [stop_gradient(make(op, (node,))) for op in (Op.REAL, Op.IMAG)]
        return make(Op.COMPLEX, tuple(parts))
    bits = {2: dt.int16, 4: dt.int32, 8: dt.int64}[node.dtype.itemsize]
    return make(Op.BITCAST_CONVERT, (make(Op.BITCAST_CONVERT, (node,), bits),), node.dtype)


def grad(output: Node, wrt: Sequence[Node], cotangent: Node | None = None,
         unconnected: Unconnected = "zeros") -> list[Node | None]:
    """Gradients of ``output`` with respect to each node in ``wrt``, recorded
    lazily as one multi-output VJP node.

    Shape/dtype rule: gradient ``i`` has ``wrt[i]``'s shape and dtype.
    ``cotangent`` (default: ones, i.e. the gradient of ``sum(output)``) must
    have ``output``'s shape and dtype. ``wrt`` nodes that ``output`` does not
    depend on get zeros, or ``None`` with ``unconnected="none"``.
    """
    _check_inexact("output", output)
    for node in wrt:
        _check_inexact("wrt", node)
    if cotangent is None:
        cotangent = full(output.shape, 1, output.dtype)
    program, inputs, refs, out_ref = _trace(output, wrt)
    diff = tuple(dict.fromkeys(r for r in refs if r is not None))
    vjp = make(Op.VJP, (*inputs, cotangent), program, diff, out_ref) if diff else None
    grads: list[Node | None] = []
    for node, ref in zip(wrt, refs, strict=False):
        if ref is not None:
            grads.append(make(Op.TUPLE_GET, (vjp,), diff.index(ref)))
        else:
            grads.append(full(node.shape, 0, node.dtype) if unconnected == "zeros" else None)
    return grads


def value_and_grad(output: Node, wrt: Sequence[Node]) -> tuple[Node, list[Node | None]]:
    """``(output, grad(output, wrt))`` for a scalar ``output``."""
    if output.shape != ():
        raise ShapeError(f"value_and_grad needs a scalar output, got shape {output.shape}")
    return output, grad(output, wrt)


def reachable(output: Node, stops=lambda node: False) -> set[int]:
    """Ids of the nodes ``output`` depends on, walking operands but not past
    a node (other than ``output``) for which ``stops`` holds; such a node is
    itself included. A frontend whose framework differentiates fewer paths
    than the core (TensorFlow stops at integer values and some ops) asks
    which sources an output reaches this way.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.ones(2), np.dtype("float32"))
    >>> y = make(Op.NEG, (x,))
    >>> id(x) in reachable(y), id(x) in reachable(y, lambda n: n is not y)
    (True, True)
    """
    seen = {id(output)}
    stack = [output]
    while stack:
        node = stack.pop()
        if node is not output and stops(node):
            continue
        for operand in node.operands:
            if id(operand) not in seen:
                seen.add(id(operand))
                stack.append(operand)
    return seen


def _check_inexact(what: str, node: Node) -> None:
    if not dt.is_inexact(node.dtype):
        raise DTypeError(
            f"grad requires floating-point or complex {what} values, got {node.dtype}"
        )


def _trace(output: Node, wrt: Sequence[Node]):
    """Split the graph below ``output`` into the region that depends on
    ``wrt`` (replayed inside the VJP: ``program``) and its inputs.

    Returns ``(program, inputs, refs, out_ref)``; ``refs[i]`` is the ref of
    ``wrt[i]`` (None when ``output`` does not depend on it). One pass over
    the graph in topological order; runs on every training step."""
    targets = {id(n) for n in wrt}
    dependent: set[int] = set()  # ids of nodes that depend on a wrt node
    roots: set[int] = set()  # wrt nodes with nothing differentiated below: inputs
    replayed: list[Node] = []
    for node in toposort([output]):
        nid = id(node)
        below = False
        for o in node.operands:
            if id(o) in dependent:
                below = True
                break
        if below:
            dependent.add(nid)
            replayed.append(node)
        elif nid in targets:
            dependent.add(nid)
            roots.add(nid)
    inputs: list[Node] = []
    input_ref: dict[int, int] = {}
    for node in [n for n in wrt if id(n) in roots] + [
            o for n in replayed for o in n.operands if id(o) not in dependent or id(o) in roots]:
        if id(node) not in input_ref:
            input_ref[id(node)] = len(inputs)
            inputs.append(node)
    n_inputs = len(inputs)
    local = {id(n): n_inputs + j for j, n in enumerate(replayed)}
    program = tuple(
        (node.op, node.attrs, node.shape, node.dtype,
         tuple(local[id(o)] if id(o) in local else input_ref[id(o)] for o in node.operands))
        for node in replayed)

    def ref(node: Node) -> int | None:
        if id(node) in local:
            return local[id(node)]
        return input_ref.get(id(node)) if id(node) in dependent else None

    return program, inputs, [ref(n) for n in wrt], ref(output)


