"""Debugging views of pending graphs: a text IR dump, graphviz, the lowered
StableHLO, and a structural graph key that is the same for every frontend
that records the same computation.

>>> import numpy as np
>>> from lazytensor.core import Handle, Op, make
>>> from lazytensor.core.runtime import get_runtime
>>> get_runtime().sync()  # (no automatic cut of what ran before at the next op)
>>> x = get_runtime().from_host(np.ones((2, 2), np.float32))
>>> print(dump(Handle(make(Op.NEG, (x.node,)))))
%0 = parameter 0 : float32[2,2]
%1 = NEG(%0) : float32[2,2]
return %1
"""

from __future__ import annotations

from lazytensor.core import compiler
from lazytensor.core.ir import Node, toposort
from lazytensor.core.ops import Op


def _roots(values) -> list[Node]:
    """Nodes of ``values``: core nodes or handles, or any frontend's lazy
    value (numpy array, torch tensor, tnp array: each keeps its handle in
    ``_h``)."""
    roots, seen = [], set()
    for v in values:
        h = getattr(v, "_h", v)
        node = h if isinstance(h, Node) else h.node
        if id(node) not in seen:
            seen.add(id(node))
            roots.append(node)
    return roots


def graph_key(*handles) -> int:
    """A hash of the graph's exact structure below ``handles`` (ops, attrs,
    parameter shapes/dtypes, constants by value), independent of the data,
    of donation and of which frontend recorded it."""
    plan = compiler.plan(_roots(handles), donatable=lambda leaf, uses: False)
    entries, roots, _donate, banks = plan.signature
    return hash((entries, roots, banks))


def _describe(node: Node, names: dict) -> str:
    aval = f"{node.dtype}[{','.join(map(str, node.shape))}]" if isinstance(
        node.shape, tuple) and not (node.shape and isinstance(node.shape[0], tuple)) else "tuple"
    if node.op is Op.DATA:
        layout = f" sharded {node.attrs[0]!r}" if node.attrs else ""
        return f"parameter {names['data']} : {aval}{layout}"
    if node.op is Op.SCALAR:
        return f"scalar parameter = {node.data!r} : {aval}"
    if node.op is Op.CONST:
        return f"constant {node.data.tolist()!r} : {aval}"
    args = ", ".join(f"%{names[id(o)]}" for o in node.operands)
    attrs = f" {node.attrs}" if node.attrs else ""
    return f"{node.op.name}({args}){attrs} : {aval}"


def dump(*handles) -> str:
    """The pending graph below ``handles`` as text, one node a line."""
    order = toposort(_roots(handles))
    names: dict = {"data": 0}
    lines = []
    for i, node in enumerate(order):
        lines.append(f"%{i} = {_describe(node, names)}")
        names[id(node)] = i
        if node.op is Op.DATA:
            names["data"] += 1
    outs = ", ".join(f"%{names[id(r)]}" for r in _roots(handles))
    return "\n".join(lines + [f"return {outs}"])


def to_dot(*handles) -> str:
    """The pending graph below ``handles`` in graphviz dot syntax."""
    order = toposort(_roots(handles))
    index = {id(n): i for i, n in enumerate(order)}
    lines = ["digraph lazytensor {", "  node [shape=box, fontname=monospace];"]
    for i, node in enumerate(order):
        label = f"{node.op.name}\\n{node.dtype}{list(node.shape)}"
        lines.append(f'  n{i} [label="{label}"];')
        lines += [f"  n{index[id(o)]} -> n{i};" for o in node.operands]
    return "\n".join(lines + ["}"])


def stablehlo(*handles) -> str:
    """The StableHLO text that XLA receives for the graph below ``handles``."""
    plan = compiler.plan(_roots(handles), donatable=lambda leaf, uses: False)
    return compiler.lower_text(plan)
