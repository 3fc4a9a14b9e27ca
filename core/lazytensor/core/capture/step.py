"""``Step``: a step function that is traced lazily until two consecutive
traced calls agree, then replayed without running its Python body while
its guard holds (see the package docstring)."""

from __future__ import annotations

import functools
import math
import weakref

from lazytensor.core import runtime as _runtime
from lazytensor.core.capture import guard as guards
from lazytensor.core.capture import record
from lazytensor.core.capture.host import HostState
from lazytensor.core.capture.replay import GuardMiss, Replayer, Root
from lazytensor.core.ops import Op
from lazytensor.core.trees import leaves as tree_leaves
from lazytensor.core.trees import tree_map

_SCALAR = Op.SCALAR




# A body whose consecutive traces differ this many times is not replayed
# (the first calls may differ: an optimizer creates its state in its first step).
_DISAGREEMENTS = 3


class Adapter:
    """What a frontend tells the capture about its values (defaults: none
    are lazy). ``handle_of`` returns the core handle of a lazy array or
    None; ``wrap(leaf, kind)`` makes a lazy array of the frontend's type
    over a computed leaf, ``kind`` being ``kind_of`` of the traced one."""

    def handle_of(self, value):
        return None

    def array_key(self, value) -> object:
        return None

    def fingerprint(self, value) -> object:
        return None

    def kind_of(self, value) -> object:
        return type(value)

    def counters(self, value) -> list:
        """Host counters in ``value`` that a step may advance outside the
        graph (torch: an optimizer's step counts on the CPU; ``host``)."""
        return []

    def read_counter(self, cell) -> float:
        raise NotImplementedError

    def write_counters(self, cells: list, values: list) -> None:
        raise NotImplementedError

    def derived_scalars(self, value) -> list:
        """``(label, reader)`` pairs: Python floats a body may compute from
        ``value``'s host counters (torch: Adam's bias corrections)."""
        return []

    def wrap(self, leaf, kind):
        raise NotImplementedError


class Step:
    """A captured step function (``capture(fn, adapter)``)."""

    def __init__(self, fn, adapter: Adapter) -> None:
        functools.update_wrapper(self, fn)
        self.fn, self.adapter = fn, adapter
        self.where = f"{fn.__qualname__} ({fn.__code__.co_filename}:{fn.__code__.co_firstlineno})"
        self.last: record.Trace | None = None  # the previous traced call's trace
        self.last_guard: tuple | None = None
        self.captured: tuple | None = None  # (guard, trace, executable)
        self.replayer: Replayer | None = None  # the captured trace, ready to run
        self.quick: tuple = (None, None, None)  # (names, argument keys, Reached): quick guard
        self.refused: dict = {}  # guard -> reason the body is never replayed
        self.disagreements = 0

    def __call__(self, *args, **kwargs):
        runtime = _runtime.ACTIVE.runtime
        values, names = _flatten(args, kwargs)
        replayer = self.replayer
        if replayer is not None:  # the quick guard (``guards.Reached``), then the replay
            quick_names, keys, reached = self.quick
            if names == quick_names and guards.argument_keys(values, self.adapter) == keys \
                    and reached.same(self.adapter) \
                    and (not replayer.static_floats or self._floats_hold(values)):
                if runtime._thread.pending and runtime.pending_handles():
                    runtime.sync()  # state written outside the step: computed first
                try:
                    return replayer(runtime, values)
                except GuardMiss as miss:
                    return self._retrace(runtime, str(miss), args, kwargs, values, names)
        entries, arrays = guards.argument_entries(values, names, self.adapter)
        reached = guards.Reached(self.fn, self.adapter)
        entries += guards.reached_entries(self.fn, self.adapter)
        guard = tuple(entries)
        if self.captured is not None:
            reason = self._mismatch(guard, values)
            if reason is None:
                self.quick = (names, guards.argument_keys(values, self.adapter), reached)
                try:
                    return self._replay(runtime, self.replayer, values)
                except GuardMiss as miss:
                    reason = str(miss)
            self._drop(runtime, reason)
        return self._trace(runtime, guard, reached, args, kwargs, values, arrays, names)

    def _replay(self, runtime, replayer, values: list):
        if runtime._thread.pending and runtime.pending_handles():
            runtime.sync()  # state written outside the step: computed first
        return replayer(runtime, values)

    def _retrace(self, runtime, reason: str, args, kwargs, values, names):
        self._drop(runtime, reason)
        entries, arrays = guards.argument_entries(values, names, self.adapter)
        reached = guards.Reached(self.fn, self.adapter)
        guard = tuple(entries + guards.reached_entries(self.fn, self.adapter))
        return self._trace(runtime, guard, reached, args, kwargs, values, arrays, names)

    def _drop(self, runtime, reason: str) -> None:
        self._note(runtime, f"{self.where}: guard failed, traced again: {reason}")
        self.captured = self.replayer = None

    def _floats_hold(self, values: list) -> bool:
        for position, value in self.captured[1].static_floats.items():
            if values[position] != value:
                return False
        return True

    def _mismatch(self, guard: tuple, values: list) -> str | None:
        captured_guard, trace, _ = self.captured
        if guard != captured_guard:
            return guards.explain(guard, captured_guard)
        for position, value in trace.static_floats.items():
            if values[position] != value:
                return (f"{guard[position][0]}: Python value {values[position]!r} "
                        f"(captured with {value!r})")
        return None

    def _note(self, runtime, text: str) -> None:
        runtime.metrics.capture_note(text)

    def _trace(self, runtime, guard, reached, args, kwargs, values, arrays, names):
        runtime.sync()  # the step's graph holds only the step
        host = HostState(self.adapter, reached, values)
        recorder = record.Recorder(self.fn.__code__)
        arg_leaves, arg_handles = {}, {}
        for position, value in arrays:
            handle = self.adapter.handle_of(value)
            handle.value()
            arg_leaves.setdefault(id(handle.node), position)
            arg_handles.setdefault(id(handle), position)
        state = self._state_handles()
        previous_listener, runtime.listener = runtime.listener, recorder
        try:
            result = self.fn(*args, **kwargs)
            recorder.closing = True
            returned = [h for h in map(self.adapter.handle_of, tree_leaves(result))
                        if h is not None]
            runtime.sync(extra=tuple(returned))
        finally:
            runtime.listener = previous_listener
        runtime.metrics.count("steps_traced")
        host.after()
        self._learn(runtime, (guard, reached, names), recorder, result, returned, values,
                    (arg_leaves, arg_handles, host), state)
        return result

    def _state_handles(self) -> dict:
        """The previous traced call's state handles by the leaf each holds."""
        state = {}
        if self.last is not None:
            for sinks in self.last.sinks:
                for ref in sinks:
                    handle = ref()
                    if handle is not None:
                        state.setdefault(id(handle.node), handle)
        return state

    def _learn(self, runtime, guards_, recorder, result, returned, values, args, state):
        """Keep this call's trace; capture it when it agrees with the last."""
        guard, reached, names = guards_
        if guard in self.refused:
            return
        if recorder.observations:
            what, line = recorder.observations[0]
            return self._refuse(runtime, guard, f"it reads a value ({what}) at {line}")
        previous = self.last if self.last_guard == guard else None
        if previous is not None and not _same_graph(previous, recorder):
            previous = None  # (an optimizer's first step creates its state)
            self.disagreements += 1
        trace = _make_trace(recorder, result, returned, values, args, state, previous,
                            self.adapter)
        if isinstance(trace, str):
            return self._refuse(runtime, guard, trace)
        if self.disagreements >= _DISAGREEMENTS:
            return self._refuse(runtime, guard, "its trace differs between calls")
        self.last, self.last_guard = trace, guard
        if previous is None or trace is None:
            return
        if not _agree(previous, trace):
            self.disagreements += 1
            return
        executable = runtime.cache.get(trace.signature)
        if executable is not None:
            self.disagreements = 0
            self.captured = (guard, trace, executable)
            self.replayer = Replayer(trace, executable, self.adapter)
            self.quick = (names, guards.argument_keys(values, self.adapter), reached)

    def _refuse(self, runtime, guard, reason: str) -> None:
        self.refused[guard] = reason
        self._note(runtime, f"{self.where} is not replayed: {reason}")
        runtime.metrics.count("steps_not_replayable")


_CONTAINERS = (list, tuple, dict)
_FLAT_NAMES: dict = {}  # (arguments, keywords) -> names, for calls without containers


def _flatten(args: tuple, kwargs: dict) -> tuple[list, list[str]]:
    """The call's leaves and where each comes from (``argument 1``)."""
    if _flat(args) and (not kwargs or _flat(kwargs.values())):
        shape = (len(args), tuple(kwargs))
        names = _FLAT_NAMES.get(shape)
        if names is None:
            names = _FLAT_NAMES[shape] = _leaf_names(args, kwargs)
        return [*args, *kwargs.values()], names
    return list(tree_leaves((args, kwargs))), _leaf_names(args, kwargs)


def _flat(values) -> bool:
    for value in values:
        if isinstance(value, _CONTAINERS):
            return False
    return True


def _leaf_names(args: tuple, kwargs: dict) -> list[str]:
    names = []
    for i, a in enumerate(args):
        names += [f"argument {i}"] * sum(1 for _ in tree_leaves(a))
    for k, v in kwargs.items():
        names += [f"keyword {k}"] * sum(1 for _ in tree_leaves(v))
    return names


def _same_graph(trace: record.Trace, recorder: record.Recorder) -> bool:
    if recorder.graph is None:
        return False
    signature = recorder.graph[3].signature
    return trace.signature[0] == signature[0] and trace.signature[1] == signature[1]


def _agree(a: record.Trace, b: record.Trace) -> bool:
    """Same structure (graph, donations aside), same sources, same result."""
    return (a.signature[0] == b.signature[0] and a.signature[1] == b.signature[1]
            and a.signature[3:] == b.signature[3:]
            and [k for k, _ in a.inputs] == [k for k, _ in b.inputs]
            and all(k == j or k == "fixed" and j != "fixed"  # (found to vary in b)
                    for (k, _), (j, _) in zip(a.scalars, b.scalars, strict=True))
            and _same_counters(a.counters, b.counters)
            and len(a.sinks) == len(b.sinks)
            and _shape(a.returned) == _shape(b.returned))


def _same_counters(a: tuple, b: tuple) -> bool:
    if not a or not b:
        return not a and not b
    return len(a[0]) == len(b[0]) and all(x is y for x, y in zip(a[0], b[0], strict=True)) \
        and a[1] == b[1]


def _shape(template) -> object:
    return tree_map(lambda v: ("root", v.index) if isinstance(v, Root) else ("value", repr(v)),
                    template)


def _make_trace(recorder, result, returned, values, args, state, previous, adapter):
    """The Trace of this call, None when it ran no graph, or why it cannot be one."""
    if recorder.graph is None:
        return None
    arg_leaves, arg_handles, host = args
    handles, nodes, roots, plan = recorder.graph
    root_index = {id(r): i for i, r in enumerate(roots)}
    data, scalar_nodes = record.graph_inputs(plan)
    inputs = record.classify_inputs(data, arg_leaves, state, previous)
    if isinstance(inputs, str):
        return inputs
    floats = {i: v for i, v in enumerate(values) if isinstance(v, float)}
    readers = recorder.readers
    scalars, static = record.classify_scalars(scalar_nodes, readers, floats, previous,
                                              host.derived)
    if isinstance(scalars, str):
        return scalars
    returned_ids = {id(h) for h in returned}
    sinks: list = [[] for _ in roots]
    handle_root = {}
    for handle, node in zip(handles, nodes, strict=False):
        if id(handle) in returned_ids:
            handle_root[id(handle)] = root_index[id(node)]
        elif id(handle) in arg_handles:  # an argument written in place
            sinks[root_index[id(node)]].append(arg_handles[id(handle)])
        else:
            sinks[root_index[id(node)]].append(weakref.ref(handle))
    template = _template(result, handle_root, adapter)
    if isinstance(template, str):
        return template
    trace = record.Trace(plan.signature, inputs, scalars, [n.data for n in scalar_nodes],
                         plan.bank_dtypes, plan.bank_sizes, sinks, template, floats, static,
                         data)
    trace.scalar_entries = [e for e in plan.signature[0] if e[0] is _SCALAR]
    trace.counters, trace.derived_values = host.counters(), host.derived_values()
    trace.output_bytes = [r.dtype.itemsize * math.prod(r.shape) for r in roots]
    return trace


def _template(result, handle_root: dict, adapter):
    problems = []

    def replace(value):
        handle = adapter.handle_of(value)
        if handle is None:
            return value
        if id(handle) not in handle_root:
            problems.append(value)
            return value
        return Root(handle_root[id(handle)], adapter.kind_of(value))

    template = tree_map(replace, result)
    if problems:
        return "it returns an array that its graph does not compute (an input or a constant)"
    return template

