"""Executables: a plan's graph jitted whole and compiled once per signature,
kept in a cache that can say why a signature missed."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import jax
from lazytensor.core.compiler.planning import Plan
from lazytensor.core.compiler.replay import replay_function
from lazytensor.core.ops import Op


@dataclass
class Executable:
    compiled: object
    nodes: int
    compile_seconds: float
    hits: int = 0
    footprint: int | None = None  # bytes a call allocates (``failures.footprint``)


@dataclass
class ExecutableCache:
    """Executables by graph signature; ``explain`` says why a signature missed."""

    entries: dict = field(default_factory=dict)
    interpreted: dict = field(default_factory=dict)  # structure -> seconds run op by op

    def get(self, signature: tuple) -> Executable | None:
        return self.entries.get(signature)

    def interpreted_seconds(self, p: Plan) -> float | None:
        """The seconds the plan's graph structure (which buffers are donated
        or recycled aside) has run op by op so far; None if never."""
        return self.interpreted.get(p.signature[:4])

    def interpreted_for(self, p: Plan, seconds: float) -> None:
        structure = p.signature[:4]
        self.interpreted[structure] = self.interpreted.get(structure, 0.0) + seconds

    def put(self, signature: tuple, executable: Executable) -> None:
        self.entries[signature] = executable

    def __len__(self) -> int:
        return len(self.entries)

    def explain(self, signature: tuple) -> str:
        """Why ``signature`` is not cached: the first difference from the
        closest cached graph (the one sharing the longest prefix)."""
        if not self.entries:
            return "first graph: the cache is empty"
        nodes = signature[0]
        best, best_prefix = None, -1
        for other in self.entries:
            prefix = _common_prefix(nodes, other[0])
            if prefix > best_prefix:
                best, best_prefix = other, prefix
        assert best is not None
        other_nodes = best[0]
        if best_prefix == len(nodes) == len(other_nodes):
            if signature[1] != best[1]:
                return f"same nodes, different outputs: {signature[1]} vs {best[1]}"
            return "same graph, different donated parameters"
        if best_prefix >= min(len(nodes), len(other_nodes)):
            return f"graph has {len(nodes)} nodes, closest cached graph has {len(other_nodes)}"
        return (
            f"node {best_prefix} differs from the closest cached graph: "
            f"{_describe(nodes[best_prefix])} vs {_describe(other_nodes[best_prefix])}"
        )


def _common_prefix(a: tuple, b: tuple) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _describe(entry: tuple) -> str:
    op = entry[0]
    if op is Op.DATA:
        layout = f" sharded {entry[4][0]!r}" if entry[4] else ""
        return f"parameter {entry[2]}{list(entry[1])}{layout}"
    if op is Op.SCALAR:
        return f"scalar parameter {entry[2]}{list(entry[1])}"
    if op is Op.CONST:
        return f"constant {entry[2]}{list(entry[1])} (by value)"
    return f"{op.name} attrs={entry[1]} operands={entry[2]}"


def _jitted(p: Plan):
    """The jitted replay of the plan's graph and the arguments to call it with."""
    replay, n_args = replay_function(p)
    donated = p.donate + tuple(range(n_args, n_args + len(p.scratch)))
    # scratch buffers are unused inputs, kept (keep_unused) only so that XLA
    # writes an output into their memory instead of faulting in fresh pages
    jitted = jax.jit(lambda *args: replay(*args[:n_args]), donate_argnums=donated,
                     keep_unused=True)
    return jitted, (*p.data_args, *p.scalar_banks, *p.scratch)


def build(p: Plan) -> Executable:
    """Trace the plan's graph with the lowering table, jit and compile it."""
    start = time.perf_counter()
    jitted, args = _jitted(p)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
        compiled = jitted.lower(*args).compile()
    return Executable(compiled, len(p.order), time.perf_counter() - start)


def lower_text(p: Plan) -> str:
    """The StableHLO module text of the plan's graph."""
    jitted, args = _jitted(p)
    return jitted.lower(*args).as_text()


def run(executable: Executable, p: Plan) -> list:
    return executable.compiled(*p.data_args, *p.scalar_banks, *p.scratch)

