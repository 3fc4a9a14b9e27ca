"""The runtime: lazy handles, the live registry, graph cutting, execution.

A ``Handle`` holds either device data (a DATA leaf) or a pending node. Every
handle that receives a pending node is registered (weakly) with the active
``Runtime``; ``Runtime.sync()`` materializes all live pending handles in one
compiled graph (mark_step semantics) and re-points them at their results.
Observing a value (``Handle.value()``) is a barrier too. A ``ViewHandle``
computes its node from its base, so writes through it reach the base.

All state lives on a ``Runtime`` object; ``use_runtime`` swaps in a fresh one.
"""

from __future__ import annotations

import gc
import os
import threading
import time
import weakref
from contextlib import contextmanager
from typing import Callable

import numpy as np
from lazytensor.core import compiler, deferred, dtypes, failures, host_read, placement
from lazytensor.core.counters import Metrics
from lazytensor.core.ir import Node
from lazytensor.core.leaves import data_leaf, scalar
from lazytensor.core.ops import LEAVES, Op
from lazytensor.core.registry import RECORDED, make
from lazytensor.core.sharding import carried
from lazytensor.core.threads import PerThread, ThreadState

# A graph is cut once this many nodes were recorded since the last barrier
# and more than half of them are still held by live values (``track``).
# XLA's compile time grows about quadratically with a long elementwise chain
# (a numpy loop that never observes a value: 1.6 s at 4,000 nodes, 20 s at
# 12,000), while a 4-layer transformer's training step records about 1,800.
DEFAULT_NODE_LIMIT = 5_000


# A graph structure with at least INTERPRET_NODES nodes that repeats its
# operations (at most one distinct op, attrs and shape per INTERPRET_REPEATS
# nodes: the cuts of a loop that never observes a value) runs op by op
# (``compiler.interpret``) the first time it is seen, and again until the
# time spent so reaches what compiling it is expected to cost (ski rental:
# never more than twice the better choice); then it is compiled. XLA
# compiles such a graph at 0.5-10 ms a node; op by op, each distinct
# operation costs JAX one small compile (5 ms for an elementwise op, up to
# 80 ms for a matmul or a loaded machine) and every node about 20 us, so a
# graph of mostly distinct operations (a training step) compiles at once,
# and so does one that repeats each a few times only (an RNN unrolled over
# 6 steps with matrix_exp, 2,533 nodes and 134 distinct operations: 13.4 s
# op by op at 10 repeats, 6.3 s compiled).
# LAZYTENSOR_INTERPRET_NODES sets the size (a huge number: never).
DEFAULT_INTERPRET_NODES = 2_500  # half the automatic cut
INTERPRET_REPEATS = 40
# The expected cost of compiling a graph: seconds a node, from the last
# compile of a graph as large as INTERPRET_NODES; before one, XLA's CPU rate
# on a long training step (a 4,800-node LSTM step: 1.3 ms a node; the
# 5,000-node cuts of a numpy minibatch loop: 4-10 ms).
DEFAULT_COMPILE_SECONDS_PER_NODE = 2e-3


def _interpret_nodes() -> int:
    return int(os.environ.get("LAZYTENSOR_INTERPRET_NODES", DEFAULT_INTERPRET_NODES))


class Handle:
    """A lazy tensor's storage: ``node`` is its current value."""

    __slots__ = ("node", "__weakref__")

    def __init__(self, node: Node) -> None:
        self.node = node
        if node.op not in LEAVES:
            ACTIVE.runtime.track(self)

    def assign(self, node: Node) -> None:
        """In-place update: this handle now holds ``node`` (laid out as its
        old value was, if that was sharded: ``sharding.carried``)."""
        old = self.node
        if old.attrs and (old.op is _DATA or old.op is _SHARD):
            node = carried(old, node)
        self.node = node
        if node.op not in LEAVES:
            ACTIVE.runtime.track(self)

    def _materialized(self, leaf: Node) -> None:
        self.node = leaf

    def value(self):
        """The device array (a ``jax.Array``); runs what is pending."""
        node = self.node
        if node.op is Op.DATA:
            return node.data
        if node.op in LEAVES:  # a scalar parameter or constant: host values
            host = np.broadcast_to(np.asarray(node.data, dtype=node.dtype), node.shape)
            self._materialized(data_leaf(compiler.to_device(host)))
        else:
            ACTIVE.runtime.sync(extra=(self,))
        return self.node.data

    def numpy(self) -> np.ndarray:
        """A fresh host copy of the value (blocks until it is computed). A
        value that only moves computed data (an element, a row) is read on
        the host without running a graph (``host_read``) and kept as a
        parameter (0-d) or uploaded."""
        node = self.node
        listener = ACTIVE.runtime.listener
        if listener is not None:
            listener.barrier("a value read on the host")
        if node.operands:
            host = host_read.read(node)
            if host is not None:  # keep the value: it leaves the next barrier's graph
                ACTIVE.runtime.metrics.count("host_reads")
                self._materialized(scalar(host[()], host.dtype) if not host.ndim
                                   else data_leaf(compiler.to_device(host)))
                return host
        data = self.value()
        ACTIVE.runtime.metrics.count("transfers_to_host")
        return placement.to_host(data) if self.node.attrs else compiler.to_host(data)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.node.shape

    @property
    def dtype(self) -> np.dtype:
        return self.node.dtype


Forward = Callable[[Node], Node]
Backward = Callable[[Node, Node], Node]


class ViewHandle(Handle):
    """A view of a base handle: its node is ``forward(base.node)``; assigning
    to it writes ``backward(base.node, value)`` into the base. ``backward``
    is None for views that cannot be written (e.g. broadcasts)."""

    __slots__ = ("base", "forward", "backward", "_cached", "_seen")

    def __init__(self, base: Handle, forward: Forward, backward: Backward | None) -> None:
        if isinstance(base, ViewHandle):  # compose onto the root base
            parent, inner_b = base, base.backward
            outer_f, outer_b = forward, backward
            # through the parent's cached node, so that a view of a view
            # shares the parent's nodes (same graph as the same ops unviewed)
            forward = lambda n: outer_f(parent.node_over(n))  # noqa: E731
            backward = None if inner_b is None or outer_b is None else (
                lambda b, v: inner_b(b, outer_b(parent.node_over(b), v))
            )
            base = base.base
        self.base, self.forward, self.backward = base, forward, backward
        self._cached: Node | None = None
        self._seen: Node | None = None

    def node_over(self, base_node: Node) -> Node:
        """This view's node over ``base_node`` (cached while the base is unchanged)."""
        if self._seen is not base_node:
            self._cached, self._seen = self.forward(base_node), base_node
        return self._cached

    @property
    def node(self) -> Node:  # type: ignore[override]
        return self.node_over(self.base.node)

    def assign(self, node: Node) -> None:
        if self.backward is None:
            raise ValueError("this view cannot be written to (it repeats elements of its base)")
        written = self.backward(self.base.node, node)
        self.base.assign(written)
        if self.base.node is written:
            self._cached, self._seen = node, written
        # else an automatic cut inside the base's assign computed the base,
        # and ``node`` (over the old base) no longer stands for the view: it
        # reads its value from the new base

    def _materialized(self, leaf: Node) -> None:
        self._cached, self._seen = leaf, self.base.node


_DATA, _SHARD = Op.DATA, Op.SHARD


class RngState:
    """Explicit-key random numbers: key_i = fold_in(seed key, i), with the
    seed key as device data and ``i`` as a scalar parameter, so neither a new
    seed nor a new step recompiles. Same seed, same sequence."""

    def __init__(self, seed: int = 0) -> None:
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> None:
        seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        raw = np.array([seed >> 32, seed & 0xFFFFFFFF], dtype=np.uint32)
        self.seed_value = seed
        self.key = data_leaf(compiler.to_device(raw))
        self.counter = 0

    def next_key(self) -> Node:
        counter = scalar(self._advance(), np.dtype(np.uint32))
        listener = ACTIVE.runtime.listener
        if listener is not None:  # a captured step draws new numbers at each replay
            listener.note_scalar(counter, self._advance)
        return make(Op.RNG_FOLD, (self.key, counter))

    def _advance(self) -> int:
        self.counter += 1
        return self.counter


def _operations_held(handles: list[Handle], cap: int) -> int:
    """Operations (non-leaf nodes not computed yet) that ``handles`` hold,
    counted up to ``cap + 1``."""
    seen: set[Node] = set()
    stack = [handle.node for handle in handles]
    count = 0
    while stack and count <= cap:
        node = stack.pop()
        if node in seen or not node.operands:
            continue
        seen.add(node)
        if node.memo is not None and node.memo() is not None:
            continue  # computed by an earlier graph: its leaf stands for it
        count += 1
        stack.extend(node.operands)
    return count


class Runtime:
    """Live registry, graph cutting, executable cache, metrics and RNG."""

    def __init__(self, node_limit: int = DEFAULT_NODE_LIMIT, donate: bool = True,
                 interpret_nodes: int | None = None,
                 compile_seconds_per_node: float = DEFAULT_COMPILE_SECONDS_PER_NODE) -> None:
        self.metrics = Metrics()
        self.interpret_nodes = _interpret_nodes() if interpret_nodes is None else interpret_nodes
        self.compile_seconds_per_node = compile_seconds_per_node
        self.cache = compiler.ExecutableCache()
        self.plans = compiler.PlanCache()  # graph structure -> its plan (``structures``)
        self.rng = RngState()
        self.node_limit = node_limit
        self.donate = donate
        self.pool = compiler.RecyclePool()
        # per thread: pending handles, recorded-op marks (``threads``)
        self._threads = PerThread()
        self.lock = threading.RLock()  # graphs are planned and run one at a time
        self.checks = deferred.Checks()

    @property
    def listener(self):
        """The step this thread is tracing for capture (``capture.record``), or None."""
        return self._threads.state.listener

    @listener.setter
    def listener(self, recorder) -> None:
        self._threads.state.listener = recorder

    @property
    def _thread(self) -> ThreadState:
        """The calling thread's recording state."""
        return self._threads.state

    def track(self, handle: Handle) -> None:
        state = self._threads.state
        state.pending.append(weakref.ref(handle))
        if not state.cuts_held and RECORDED.recorded - state.cut_mark > self.node_limit:
            self._cut_if_large()

    def _cut_if_large(self) -> None:
        """Cut the graph when the live values hold more than half the node
        limit; otherwise most of what was recorded since the barrier is dead
        (values dropped, the full-shape side of a masked read never used), and
        only the live part counts toward the next check (at least half the
        limit of recording away, so the walk costs at most about one node a
        recorded op). Counting dead nodes cut programs at points that depended
        on what they had thrown away, giving graphs (and compiles) that an
        unchanged step did not have before."""
        half = self.node_limit // 2
        handles = self.pending_handles()
        self._thread.pending = [weakref.ref(handle) for handle in handles]
        live = _operations_held(handles, half)
        if live > half:
            self.metrics.count("auto_cuts")
            # without donations: a cut comes in the middle of an op, whose
            # nodes not yet in handles (the other outputs of a backward) may
            # read the buffers below it in the next graph
            with self.checks.held():  # raised at the next barrier, not mid-op
                self.sync(donate=False)
        else:
            self._thread.cut_mark = RECORDED.recorded - live

    @contextmanager
    def holding_cuts(self):
        """No automatic graph cut inside: for tracing a function on stand-in
        leaves (``nn.vjp``), whose handles cannot be materialized."""
        state = self._thread
        state.cuts_held += 1
        try:
            yield
        finally:
            state.cuts_held -= 1

    def pending_handles(self) -> list[Handle]:
        """Live handles whose value is still a pending node (recorded by
        this thread)."""
        handles, seen = [], set()
        for ref in self._thread.pending:
            handle = ref()
            if handle is None or id(handle) in seen:
                continue
            seen.add(id(handle))
            if handle.node.op not in LEAVES:
                handles.append(handle)
        return handles

    def sync(self, extra: tuple = (), donate: bool = True) -> None:
        """Materialize every live pending handle that this thread recorded
        (and ``extra``, which another thread may have recorded) in one graph;
        ``donate=False``: give no input buffer to the outputs. A sync that
        fails changes no value: what was pending stays pending, for the next
        barrier (``_execute`` donates nothing before it can finish)."""
        if self.listener is not None:
            self.listener.barrier("a barrier")
        state = self._thread
        handles = self.pending_handles()
        state.pending = []
        for handle in extra:  # observed leaves too: a shaped SCALAR or CONST has no buffer yet
            if handle.node.op is not Op.DATA and handle not in handles:
                handles.append(handle)
        recorded = RECORDED.recorded
        self.metrics.count("ops_recorded", recorded - state.recorded_mark)
        state.recorded_mark = state.cut_mark = recorded
        if handles:
            try:
                with self.lock:
                    self._execute(handles, donate and self.donate)
            except BaseException:
                state.pending[:0] = [weakref.ref(h) for h in handles if h.node.op not in LEAVES]
                raise
        self.checks.raise_failed(Handle.numpy, lambda node: Handle(node).numpy())

    def defer(self, flag: Node, make_error: deferred.MakeError, detail: Node | None = None,
              site: str = "") -> None:
        """Raise ``make_error(flag, detail, site)`` (host values) at the barrier
        that computes ``flag``, if any element of it is set (``deferred``)."""
        if self.listener is not None:  # a replay would skip the check: never replay it
            self.listener.barrier("a check of a computed value")
        self.checks.add(deferred.Check(Handle(flag), detail, make_error, site))
        if flag.op in LEAVES:  # known already: raise now
            self.checks.raise_failed(Handle.numpy, lambda node: Handle(node).numpy())

    def _execute(self, handles: list[Handle], donate: bool) -> None:
        _freeze_startup_objects()
        roots: list[Node] = []
        position: dict[int, int] = {}
        nodes = [handle.node for handle in handles]  # once: a view recomputes its node
        for node in nodes:
            if id(node) not in position:
                position[id(node)] = len(roots)
                roots.append(node)
        start = time.perf_counter()
        plan = compiler.plan(roots, None if donate else (lambda leaf, uses: False), self.pool,
                             self.plans)
        if self.donate:
            compiler.add_scratch(plan, self.pool)
        self.metrics.add_time("trace_plan", time.perf_counter() - start)
        self.metrics.count("plans_cached" if plan.structure is not None and plan.structure.hits
                           else "plans_walked")
        if self.listener is not None:
            self.listener.planned(handles, nodes, roots, plan)
        executable = self._cached_executable(plan)
        if executable is None and self._interpret_first(plan):
            executable = None  # run op by op (donates nothing)
        else:
            self._fill_scratch(plan)
            executable = self._compiled(plan, executable)
            if plan.donate and not failures.fits_in_memory(executable, plan.data_args):
                # it would fail for memory after XLA consumed its donated inputs
                self.metrics.count("undonated_for_memory")
                return self._execute(handles, False)
        with failures.interrupts_deferred():  # from dispatch to the last re-pointed handle
            if executable is None:
                outputs = self._interpret(plan)
            else:
                outputs = self._run_compiled(plan, executable)
            plan.scratch = []
            if self.donate:
                self.pool.give(outputs)
            _commit(handles, nodes, roots, [position[id(node)] for node in nodes], outputs)
        return None

    def _cached_executable(self, plan: compiler.Plan):
        """The plan's executable if compiled: found through its structure's
        entry in the plan cache (no signature to hash), else by signature."""
        structure = plan.structure
        if structure is None:
            return self.cache.get(plan.signature)
        executable = structure.executables.get(plan.signature[2:])
        if executable is None:
            executable = self.cache.get(plan.signature)
            if executable is not None:
                structure.executables[plan.signature[2:]] = executable
        return executable

    def _fill_scratch(self, plan: compiler.Plan) -> None:
        """Fresh output buffers where the pool had no dead one (the first
        steps): a memset of their size, timed apart from planning."""
        if plan.missing:
            start = time.perf_counter()
            self.metrics.count("scratch_allocated", compiler.fill_scratch(plan))
            self.metrics.add_time("scratch", time.perf_counter() - start)

    def _interpret(self, plan: compiler.Plan) -> list:
        start = time.perf_counter()
        outputs = compiler.interpret(plan)
        seconds = time.perf_counter() - start
        self.cache.interpreted_for(plan, seconds)
        self.metrics.add_time("interpret", seconds)
        self.metrics.count("graphs_interpreted")
        self.metrics.count("graphs_executed")
        self.metrics.count("nodes_executed", len(plan.order))
        return outputs

    def _interpret_first(self, plan: compiler.Plan) -> bool:
        """Whether this uncached graph runs op by op (see INTERPRET_NODES)."""
        order = plan.order
        if len(order) < self.interpret_nodes \
                or compiler.distinct_operations(order) * INTERPRET_REPEATS > len(order):
            return False
        spent = self.cache.interpreted_seconds(plan)
        return spent is None or spent < len(order) * self.compile_seconds_per_node

    def _compiled(self, plan: compiler.Plan, executable):
        """The plan's executable: ``executable`` (a cache hit), or loaded from
        the persistent cache, or compiled (and stored there)."""
        if executable is None:
            self.metrics.miss(self.cache.explain(plan.signature))
            disk = compiler.persistent_cache()
            executable = None if disk is None else self._loaded(plan, disk)
            if executable is None:
                executable = compiler.build(plan)
                self.metrics.add_time("compile", executable.compile_seconds)
                if len(plan.order) >= self.interpret_nodes:
                    self.compile_seconds_per_node = executable.compile_seconds / len(plan.order)
                if disk is not None and disk.store(plan.signature, executable.compiled,
                                                   executable.compile_seconds):
                    self.metrics.count("persistent_cache_writes")
            self.cache.put(plan.signature, executable)
            if plan.structure is not None:
                plan.structure.executables[plan.signature[2:]] = executable
        else:
            executable.hits += 1
            self.metrics.count("cache_hits")
        return executable

    def _loaded(self, plan: compiler.Plan, disk) -> compiler.Executable | None:
        start = time.perf_counter()
        loaded = disk.load(plan.signature)
        if loaded is None:
            self.metrics.count("persistent_cache_misses")
            return None
        self.metrics.add_time("persistent_cache_load", time.perf_counter() - start)
        self.metrics.count("persistent_cache_hits")
        return compiler.Executable(loaded[0], len(plan.order), loaded[1])

    def _run_compiled(self, plan: compiler.Plan, executable) -> list:
        start = time.perf_counter()
        outputs = compiler.run(executable, plan)
        self.metrics.add_time("execute", time.perf_counter() - start)
        self.metrics.count("graphs_executed")
        self.metrics.count("nodes_executed", executable.nodes)
        self.metrics.count("donated_buffers", len(plan.donate))
        self.metrics.count("recycled_buffers", plan.recycled)
        return outputs

    def from_host(self, value, dtype: np.dtype | None = None) -> Handle:
        """Device data copied from a host value (numpy array or scalar)."""
        array = np.asarray(value, dtype=dtype)
        if array.dtype.kind in "biufc":  # native byte order; refuse longdouble
            array = array.astype(dtypes.canonical(array.dtype), copy=False)
        self.metrics.count("transfers_to_device")
        return Handle(data_leaf(compiler.to_device(array)))


def _commit(handles: list[Handle], nodes: list[Node], roots: list[Node], positions: list[int],
            outputs: list) -> None:
    """Re-point each handle at its output (``positions``: its root's index)."""
    leaves = [data_leaf(out) for out in outputs]
    for handle, i in zip(handles, positions, strict=True):
        handle._materialized(leaves[i])
    for root, leaf in zip(roots, leaves, strict=True):
        if root.operands:  # stands for its value while the leaf lives
            root.memo = weakref.ref(leaf)


def _freeze_startup_objects() -> None:
    """Before the first graph runs, move the objects alive so far (the
    modules of jax, torch, TensorFlow: 10^5-10^6 objects) to the collector's
    permanent generation. A lazy program keeps thousands of IR nodes alive
    until each sync, which triggers full collections; each one walked that
    whole heap (about 60 ms with jax alone: 2 us per recorded op of a
    1000-op step). Frozen objects are still freed by reference counting;
    only a reference cycle among them would stay. LAZYTENSOR_GC_FREEZE=0
    turns this off."""
    if _FROZE or os.environ.get("LAZYTENSOR_GC_FREEZE", "1") == "0":
        return
    _FROZE.append(True)
    gc.freeze()


_FROZE: list = []


class _Active:
    __slots__ = ("runtime",)

    def __init__(self) -> None:
        self.runtime = Runtime()


ACTIVE = _Active()


def get_runtime() -> Runtime:
    return ACTIVE.runtime


@contextmanager
def use_runtime(runtime: Runtime | None = None):
    """Run a block with ``runtime`` (a fresh one by default) as the active one."""
    previous = ACTIVE.runtime
    ACTIVE.runtime = runtime or Runtime()
    try:
        yield ACTIVE.runtime
    finally:
        ACTIVE.runtime = previous


def sync() -> None:
    """Materialize all live pending values in one graph (a step marker)."""
    ACTIVE.runtime.sync()
