"""What one traced call of a step did, seen from the runtime.

While a step is traced, a ``Recorder`` listens to the runtime
(``Runtime.listener``): an observation inside the body (a barrier: reading
a value, ``print``, ``bool(t)``) is noted with the body's line; the one
graph that the call's closing barrier runs is kept (its plan: signature,
input leaves, scalar values, which handles received which output).
``classify`` then says where each input and scalar of that graph comes
from, given the previous traced call: an argument, live state (a handle
that the previous call wrote), a fixed buffer, a scalar read again at each
call (``note_scalar``: random draws), or a fixed value.
"""

from __future__ import annotations

import sys
import weakref
from dataclasses import dataclass, field

import numpy as np
from lazytensor.core.capture.host import derived_reader
from lazytensor.core.ops import Op

_SMALL = 4096  # elements: a buffer uploaded in the body is compared by value up to this


@dataclass
class Recorder:
    """Listens to the runtime while one call is traced."""

    code: object  # the step function's code object (to find the body's line)
    closing: bool = False
    observations: list = field(default_factory=list)  # (reason, line)
    readers: dict = field(default_factory=dict)  # id(SCALAR node) -> (node, reader)
    graph: object = None  # (handles, nodes, roots, plan) of the closing barrier

    def barrier(self, what: str) -> None:
        if not self.closing:
            self.observations.append((what, _body_line(self.code)))

    def note_scalar(self, node, reader) -> None:
        self.readers[id(node)] = (node, reader)

    def planned(self, handles: list, nodes: list, roots: list, plan) -> None:
        if self.closing:
            self.graph = (handles, nodes, roots, plan)


def _body_line(code) -> str:
    """``file:line`` of the innermost frame running ``code``, else the
    innermost frame outside lazytensor."""
    frame = sys._getframe(2)
    fallback = None
    while frame is not None:
        if frame.f_code is code:
            return f"{code.co_filename}:{frame.f_lineno}"
        name = frame.f_code.co_filename
        if fallback is None and "lazytensor" not in name and "/torch/" not in name \
                and "/tensorflow/" not in name:
            fallback = f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return fallback or "?"


@dataclass
class Trace:
    """One traced call's graph, its inputs and outputs by source."""

    signature: tuple
    inputs: list  # per DATA parameter: ("arg", i) | ("state", ref) | ("fixed", leaf)
    scalars: list  # per SCALAR entry: ("arg", i) | ("read", reader) | ("fixed", value)
    scalar_values: list  # the values this call used (for comparing with the next)
    bank_dtypes: tuple
    bank_sizes: tuple
    sinks: list  # per root: the state handles that received it (weak), or argument positions
    returned: object  # the body's result with each lazy array replaced by its root
    float_values: dict  # float argument position -> the value this call had
    static_floats: dict  # float argument position -> value (until seen to vary)
    leaves: list  # this call's DATA leaves (strong: compared with the next call)
    scalar_entries: list = field(default_factory=list)  # the signature's SCALAR entries
    output_bytes: list = field(default_factory=list)  # per root: its size in bytes
    bank_plan: object = None  # (fixed values per bank, dynamic slots), made at first replay
    bank_arrays: object = None  # the device banks, when every scalar is fixed
    counters: tuple = ()  # (cells, deltas): host counters the call advanced (``host``)
    derived_values: dict = field(default_factory=dict)  # label -> derived float this call


def graph_inputs(plan) -> tuple[list, list]:
    """The plan's DATA leaves (parameter order) and SCALAR nodes (entry order)."""
    data, scalars = [], []
    for node, entry in zip(plan.order, plan.signature[0], strict=True):
        if entry[0] is Op.DATA:
            data.append(node)
        elif entry[0] is Op.SCALAR:
            scalars.append(node)
    return data, scalars


def classify_inputs(data: list, arg_leaves: dict, state: dict, previous) -> list | str:
    """Sources of the graph's DATA leaves; a string says why there is none."""
    inputs = []
    for k, leaf in enumerate(data):
        if id(leaf) in arg_leaves:
            inputs.append(("arg", arg_leaves[id(leaf)]))
        elif id(leaf) in state:
            inputs.append(("state", weakref.ref(state[id(leaf)])))
        else:
            before = previous.leaves[k] if previous is not None else None
            if before is not None and before is not leaf and not _same_value(before, leaf):
                return "data uploaded in the body changes between calls"
            inputs.append(("fixed", leaf))
    return inputs


def _same_value(a, b) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype or a.data is None or b.data is None:
        return False
    if int(np.prod(a.shape)) > _SMALL:
        return False
    return bool(np.array_equal(np.asarray(a.data), np.asarray(b.data), equal_nan=True))


def classify_scalars(nodes: list, readers: dict, floats: dict, previous,
                     derived: list = ()) -> tuple:
    """Sources of the graph's SCALAR nodes and the float arguments still
    static; a string says why a scalar has no source. ``derived``: the
    floats the body may compute from host counters (``host``)."""
    sources, static, used = [], dict(floats), set()
    for k, node in enumerate(nodes):
        if id(node) in readers and readers[id(node)][0] is node:
            sources.append(("read", readers[id(node)][1]))
            continue
        before = previous.scalar_values[k] if previous is not None else node.data
        arg = _float_argument(node.data, before, floats, previous)
        if arg is None and previous is not None and previous.scalars[k][0] == "arg" \
                and _equal(node.data, floats.get(previous.scalars[k][1])):
            arg = previous.scalars[k][1]  # bound before: stays bound
        if arg is not None:
            sources.append(("arg", arg))
            static.pop(arg, None)
        elif _equal(before, node.data):
            sources.append(("fixed", node.data))
        elif (reader := derived_reader(before, node.data, derived, previous.derived_values,
                                       used)) is not None:
            sources.append(("read", reader))
        else:
            return (f"a Python scalar computed in the body changes between calls "
                    f"({before!r}, then {node.data!r})"), None
    return sources, static


def _float_argument(value, before, floats: dict, previous) -> int | None:
    """The float argument that this scalar is, when both calls agree and the
    argument changed between them (else a coincidence cannot be told apart)."""
    if previous is None:
        return None
    for position, now in floats.items():
        then = previous.float_values.get(position)
        if then is not None and now != then and _equal(value, now) and _equal(before, then):
            return position
    return None


def _equal(a, b) -> bool:
    if isinstance(a, bool) is not isinstance(b, bool):
        return False
    try:
        return bool(a == b) or bool(a != a and b != b)
    except (TypeError, ValueError):
        return False
