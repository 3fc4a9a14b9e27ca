"""Running a captured step without its Python body: bind the call's inputs
to the traced graph's parameters, run its cached executable, write the
outputs into the state handles the traced call wrote, and hand back the
body's result over fresh handles. Nothing is written before the executable
has run, so a call that fails leaves every state value as it was."""

from __future__ import annotations

import sys
import time

import jax
from lazytensor.core.compiler import planning
from lazytensor.core.ops import Op


class GuardMiss(Exception):
    """A replay's precondition failed: the call is traced instead."""


def bind_inputs(trace, arg_values: list, adapter) -> list:
    """The traced graph's DATA arguments for this call, in parameter order."""
    data = []
    for kind, source in trace.inputs:
        if kind == "arg":
            handle = adapter.handle_of(arg_values[source])
            if handle.node.op is not Op.DATA:  # a filled scalar, a view: its own buffer
                handle.value()
            node = handle.node
        elif kind == "state":
            handle = source()
            if handle is None:
                raise GuardMiss("state written by the step was dropped")
            node = handle.node
        else:
            node = source
        if node.op is not Op.DATA or node.data is None or node.data.is_deleted():
            raise GuardMiss(f"input {kind} {source!r} is not a computed array")
        data.append(node)
    return data


def bind_scalars(trace, arg_values: list) -> list:
    """The scalar-parameter call arguments (banks per dtype): the fixed
    values are laid out once; when all are fixed, the banks are uploaded
    once too."""
    if trace.bank_plan is None:
        trace.bank_plan = _bank_plan(trace)
    fixed, dynamic = trace.bank_plan
    if not dynamic:
        if trace.bank_arrays is None:
            trace.bank_arrays = [jax.device_put(a) for a in _bank_args(trace, fixed)]
        return trace.bank_arrays
    banks = {d: list(values) for d, values in fixed.items()}
    for dtype, index, kind, source in dynamic:
        banks[dtype][index] = source() if kind == "read" else arg_values[source]
    return _bank_args(trace, banks)


def _bank_plan(trace) -> tuple[dict, list]:
    fixed = {d: [None] * n for d, n in zip(trace.bank_dtypes, trace.bank_sizes, strict=True)}
    dynamic = []
    for (kind, source), entry in zip(trace.scalars, trace.scalar_entries, strict=True):
        if kind == "fixed":
            fixed[entry[2]][entry[3]] = source
        else:
            dynamic.append((entry[2], entry[3], kind, source))
    return fixed, dynamic


def _bank_args(trace, banks: dict) -> list:
    return [a for d in trace.bank_dtypes for a in planning._scalar_args(banks[d], d)]


def donated_arrays(trace, leaves: list, pool) -> list:
    """The DATA arrays, with a copy in place of a donated buffer that
    something besides its state handle still holds (it must survive)."""
    arrays = [leaf.data for leaf in leaves]
    for position in trace.signature[2]:
        if trace.inputs[position][0] != "state" or not _exclusive(leaves, position, pool):
            arrays[position] = jax.numpy.array(arrays[position], copy=True)
    return arrays


def _counts(leaves: list, position: int) -> tuple[int, int]:
    return sys.getrefcount(leaves[position]), sys.getrefcount(leaves[position].data)


_BASELINE: list = []


def _exclusive(leaves: list, position: int, pool) -> bool:
    """Only the state handle (and this call's lists) hold the leaf and its buffer."""
    if not _BASELINE:
        _BASELINE.append(_calibrate())
    nodes, buffers = _BASELINE[0]
    node_count, buffer_count = _counts(leaves, position)
    return node_count <= nodes and buffer_count <= buffers + pool.holds(leaves[position].data)


def _calibrate() -> tuple[int, int]:
    from lazytensor.core.runtime import Handle, data_leaf

    handle = Handle(data_leaf(jax.numpy.zeros(1)))
    leaves = [handle.node]
    arrays = [leaf.data for leaf in leaves]  # as in donated_arrays
    counts = _counts(leaves, 0)
    del arrays
    return counts


def scratch_buffers(trace, pool) -> list:
    """Output buffers for the graph's undonated large outputs (the pool's
    dead ones, or fresh), as the traced call passed them."""
    if len(trace.signature) < 5:
        return []
    wanted = list(trace.signature[4])
    taken = pool.take(wanted)
    return [planning._pop_aval(taken, aval) for aval in wanted]


def run(trace, executable, runtime, arg_values: list, adapter):
    """Replay ``trace`` for this call; returns the body's result. Under the
    runtime's lock, as a graph of ``Runtime.sync`` (``threads``)."""
    with runtime.lock:
        leaves = bind_inputs(trace, arg_values, adapter)
        banks = bind_scalars(trace, arg_values)
        arrays = donated_arrays(trace, leaves, runtime.pool)
        scratch = scratch_buffers(trace, runtime.pool)
        del leaves
        start = time.perf_counter()
        outputs = executable.compiled(*arrays, *banks, *scratch)
        runtime.metrics.add_time("execute", time.perf_counter() - start)
        runtime.metrics.count("graphs_executed")
        runtime.metrics.count("steps_replayed")
        executable.hits += 1
        if runtime.donate:  # large outputs may serve the next graph's outputs
            large = [out for out, size in zip(outputs, trace.output_bytes, strict=True)
                     if size >= runtime.pool.min_bytes]
            if large:
                runtime.pool.give(large)
        return write_back(trace, outputs, arg_values, adapter)


def write_back(trace, outputs: list, arg_values: list, adapter):
    """Point the state handles (and arguments written in place) at their
    new values; the body's result."""
    from lazytensor.core.runtime import data_leaf

    leaves = [data_leaf(out) for out in outputs]
    for sinks, leaf in zip(trace.sinks, leaves, strict=True):
        for sink in sinks:
            handle = adapter.handle_of(arg_values[sink]) if type(sink) is int else sink()
            if handle is not None:
                handle._materialized(leaf)
    return _rebuild(trace.returned, leaves, adapter)


def _rebuild(template, leaves: list, adapter):
    from lazytensor.core.trees import tree_map

    def fill(value):
        if isinstance(value, Root):
            return adapter.wrap(leaves[value.index], value.kind)
        return value

    return tree_map(fill, template)


class Root:
    """In a captured result: the lazy array computed as root ``index``."""

    __slots__ = ("index", "kind")

    def __init__(self, index: int, kind) -> None:
        self.index, self.kind = index, kind
