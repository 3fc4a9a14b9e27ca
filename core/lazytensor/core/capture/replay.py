"""Running a captured step without its Python body: bind the call's inputs
to the traced graph's parameters, run its cached executable, write the
outputs into the state handles the traced call wrote, and hand back the
body's result over fresh handles. Nothing is written before the executable
has run, so a call that fails leaves every state value as it was."""

from __future__ import annotations

import sys
import time

import jax
import numpy as np
from lazytensor.core import placement
from lazytensor.core.compiler import planning
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op

_DATA = Op.DATA


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


def bind_arrays(trace, arg_values: list, adapter) -> list:
    """``bind_inputs``' device arrays (a graph without donations)."""
    arrays = []
    for kind, source in trace.inputs:
        if kind == "fixed":
            node = source
        elif kind == "arg":
            handle = adapter.handle_of(arg_values[source])
            if handle.node.op is not _DATA:
                handle.value()
            node = handle.node
        else:
            handle = source()
            if handle is None:
                raise GuardMiss("state written by the step was dropped")
            node = handle.node
        data = node.data
        if node.op is not _DATA or data is None or data.is_deleted():
            raise GuardMiss(f"input {kind} {source!r} is not a computed array")
        arrays.append(data)
    return arrays


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


class Replayer:
    """A captured trace made ready to replay: what each call needs is worked
    out once (which outputs are large, where each goes, each output leaf's
    layout, taken from the first replay: one executable, one layout)."""

    def __init__(self, trace, executable, adapter) -> None:
        self.trace, self.executable, self.adapter = trace, executable, adapter
        self.donates = bool(trace.signature[2])
        self.scratch = len(trace.signature) >= 5  # undonated large outputs: buffers passed in
        self.large = None  # positions of the outputs that may serve a later graph
        self.leaf_meta = None  # per output: (attrs, shape, dtype) of its DATA leaf
        self.sinks = [(i, [s for s in sinks if type(s) is int], [s for s in sinks
                       if type(s) is not int]) for i, sinks in enumerate(trace.sinks) if sinks]
        self.single = trace.returned if isinstance(trace.returned, Root) else None
        self.counters = trace.counters  # host counters the step advances (``Adapter``)
        self.static_floats = trace.static_floats  # float arguments guarded by value

    def __call__(self, runtime, arg_values: list):
        """Replay for this call; returns the body's result. Under the
        runtime's lock, as a graph of ``Runtime.sync`` (``threads``)."""
        trace, adapter = self.trace, self.adapter
        with runtime.lock:
            before = _advance(self.counters, adapter) if self.counters else None
            try:
                if self.donates:
                    arrays = donated_arrays(trace, bind_inputs(trace, arg_values, adapter),
                                            runtime.pool)
                else:
                    arrays = bind_arrays(trace, arg_values, adapter)
                banks = bind_scalars(trace, arg_values)
                scratch = scratch_buffers(trace, runtime.pool) if self.scratch else ()
                start = time.perf_counter()
                outputs = self.executable.compiled(*arrays, *banks, *scratch)
            except BaseException:
                if before is not None:
                    adapter.write_counters(self.counters[0], before)
                raise
            metrics = runtime.metrics
            metrics.add_time("execute", time.perf_counter() - start)
            counters = metrics.counters
            counters["graphs_executed"] += 1
            counters["steps_replayed"] += 1
            self.executable.hits += 1
            if self.large is None:
                self.large = [i for i, size in enumerate(trace.output_bytes)
                              if size >= runtime.pool.min_bytes]
            if runtime.donate and self.large:  # they may serve the next graph's outputs
                runtime.pool.give([outputs[i] for i in self.large])
            return self.write_back(outputs, arg_values)

    def write_back(self, outputs: list, arg_values: list):
        """Point the state handles (and arguments written in place) at their
        new values; the body's result."""
        meta = self.leaf_meta
        if meta is None:
            meta = self.leaf_meta = [(placement.attrs_of(out), tuple(out.shape),
                                      np.dtype(out.dtype)) for out in outputs]
        leaves = [Node(_DATA, (), attrs, shape, dtype, data=out)
                  for out, (attrs, shape, dtype) in zip(outputs, meta, strict=True)]
        handle_of = self.adapter.handle_of
        for i, positions, refs in self.sinks:
            leaf = leaves[i]
            for position in positions:
                handle_of(arg_values[position])._materialized(leaf)
            for ref in refs:
                handle = ref()
                if handle is not None:
                    handle._materialized(leaf)
        if self.single is not None:
            return self.adapter.wrap(leaves[self.single.index], self.single.kind)
        return _rebuild(self.trace.returned, leaves, self.adapter)


def _advance(counters: tuple, adapter) -> list:
    """Advance the host counters as the traced call did; their values before."""
    cells, deltas = counters
    before = [adapter.read_counter(cell) for cell in cells]
    adapter.write_counters(cells, [b + d for b, d in zip(before, deltas, strict=True)])
    return before


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
