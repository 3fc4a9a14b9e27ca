"""Compile step: a cut graph becomes a jitted function over its parameters,
compiled once per graph signature and kept in an executable cache.

The signature is the graph's exact structure: per node in topological order
its op, attrs and operand positions; per parameter its shape and dtype;
constants by value; plus which parameters are donated. It never contains
device data, so new data of the same shapes reuses the executable.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from dataclasses import dataclass, field

import jax
import numpy as np
from lazytensor.core.ir import Node, toposort
from lazytensor.core.lowering import LOWERINGS, OP_BY_OP_LOWERINGS, lower_scalar, unpack_bank
from lazytensor.core.ops import Op

_CACHE_DIR_ENV = "LAZYTENSOR_CACHE_DIR"

# numpy, torch and tnp all have real 64-bit types; JAX narrows them unless told.
jax.config.update("jax_enable_x64", True)


@dataclass(slots=True)
class Plan:
    """What one execution needs: the signature and the arguments, in order."""

    signature: tuple
    order: list  # the graph's nodes, operands first (only for building on a miss)
    data_args: list  # jax arrays of the DATA leaves, in parameter order
    scalar_banks: list  # per scalar dtype: one bank array, or one 0-d array each
    bank_dtypes: tuple
    roots: tuple  # positions of the outputs
    donate: tuple  # parameter positions that may be donated
    scratch: list = field(default_factory=list)  # buffers for outputs (recycled, or fresh)
    bank_sizes: tuple = ()  # scalars per bank dtype
    recycled: int = 0  # how many of ``scratch`` came from the pool


@dataclass
class Executable:
    compiled: object
    nodes: int
    compile_seconds: float
    hits: int = 0


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
        return f"parameter {entry[2]}{list(entry[1])}"
    if op is Op.SCALAR:
        return f"scalar parameter {entry[2]}{list(entry[1])}"
    if op is Op.CONST:
        return f"constant {entry[2]}{list(entry[1])} (by value)"
    return f"{op.name} attrs={entry[1]} operands={entry[2]}"


def plan(roots: list[Node], donatable=None, pool: RecyclePool | None = None) -> Plan:
    """Walk the graph below ``roots`` and collect its signature and arguments.
    ``donatable(leaf, uses)`` decides per DATA leaf whether its buffer may be
    donated (``uses``: how often the graph's nodes name it as an operand);
    by default, when nothing outside this graph (``pool`` aside: a parameter
    updated every step is pooled output of the last step) can reach it,
    and no operation held outside the graph reads it (``_kept_leaves``)."""
    if donatable is None:
        donatable = is_unreferenced if pool is None else pool.donatable
    computed: dict = {}
    order = toposort(roots, computed)
    walk = _walk(order, computed)
    root_pos = tuple(walk.index[r] for r in roots)
    # only the lists named here hold the leaves now (see _calibrate)
    donate = _choose_donations(order, walk, root_pos, donatable)
    bank_dtypes = tuple(walk.banks)
    scalar_banks = [a for d in bank_dtypes for a in _scalar_args(walk.banks[d], d)]
    signature = (tuple(walk.entries), root_pos, donate, bank_dtypes)
    return Plan(signature, order, walk.data_args, scalar_banks, bank_dtypes, root_pos, donate,
                bank_sizes=tuple(len(walk.banks[d]) for d in bank_dtypes))


# Above this many scalars of one dtype, each is a parameter of its own: XLA
# compiles a long graph that reads hundreds of slices of one bank array
# superlinearly (300 steps of a two-variable update loop, 600 scalars: 13.6 s;
# 0.6 s with separate parameters), while a separate parameter costs about
# 2 us per call and a bank about nothing.
BANK_LIMIT = 32


def _scalar_args(values: list, dtype) -> list:
    """One dtype's scalars as call arguments: one bank, or a 0-d array each."""
    if len(values) <= BANK_LIMIT:
        return [np.asarray(values, dtype=dtype)]
    return [np.asarray(v, dtype=dtype) for v in values]


def add_scratch(p: Plan, pool: RecyclePool) -> None:
    """Attach dead pooled buffers for outputs that no donated input covers;
    where the pool has none (the first steps), a fresh buffer, so that the
    graph's signature -- and its executable -- is the same from the first
    step on (without them, the second step compiled the graph again)."""
    covered: dict = {}
    for position in p.donate:
        array = p.data_args[position]
        covered[(array.shape, array.dtype)] = covered.get((array.shape, array.dtype), 0) + 1
    wanted = []
    for position in p.roots:
        node = p.order[position]
        aval = (node.shape, node.dtype)
        if covered.get(aval, 0):
            covered[aval] -= 1
        elif node.dtype.itemsize * _size(node.shape) >= pool.min_bytes:
            wanted.append(aval)
    if wanted:
        taken = pool.take(wanted)
        p.recycled = len(taken)
        p.scratch = [_pop_aval(taken, aval) for aval in wanted]
        p.signature = p.signature + (tuple(wanted),)


def _pop_aval(arrays: list, aval: tuple) -> jax.Array:
    """The first of ``arrays`` with shape and dtype ``aval``, removed; a
    fresh buffer if there is none."""
    for i in range(len(arrays)):
        if _aval(arrays, i) == aval:
            return arrays.pop(i)
    shape, dtype = aval
    return jax.numpy.zeros(shape, dtype)


def _size(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


@dataclass(slots=True)
class _Walk:
    index: dict = field(default_factory=dict)  # node (hashed by identity) -> position
    entries: list = field(default_factory=list)
    data_args: list = field(default_factory=list)
    data_leaves: list = field(default_factory=list)  # positions of the DATA leaves
    banks: dict = field(default_factory=dict)  # dtype -> scalar values
    uses: list = field(default_factory=list)  # position -> operand references


def _walk(order: list[Node], computed: dict) -> _Walk:
    """One pass over the graph: signature entries, parameters, operand uses.
    This runs on every execution, cache hit or not: keep it lean.
    ``computed`` (from ``toposort``): leaves standing for computed nodes,
    which operands name by the node; they are never donated (their uses
    are not the leaf's references)."""
    w = _Walk()
    index, entries, uses = w.index, w.entries, w.uses
    uses.extend([0] * len(order))
    banks = w.banks
    for i, node in enumerate(order):
        index[node] = i
        operands = node.operands
        if operands:  # an operation (most nodes)
            positions = tuple([index[o] for o in operands])
            for j in positions:
                uses[j] += 1
            entries.append((node.op, node.attrs, positions))
            continue
        op = node.op
        if op is _SCALAR:
            bank = banks.get(node.dtype)
            if bank is None:
                bank = banks[node.dtype] = []
            entries.append((op, node.shape, node.dtype, len(bank)))
            bank.append(node.data)
        elif op is _DATA:
            entries.append((op, node.shape, node.dtype, len(w.data_args)))
            w.data_args.append(node.data)
            if computed and node in computed:
                for stood_for in computed[node]:
                    index[stood_for] = i
            else:
                w.data_leaves.append(i)
        elif op is _CONST:
            entries.append((op, node.shape, node.dtype, np.asarray(node.data).tobytes()))
        else:  # an operation without operands (iota, full)
            entries.append((op, node.attrs, ()))
    return w


_DATA, _SCALAR, _CONST = Op.DATA, Op.SCALAR, Op.CONST


def _choose_donations(order: list[Node], walk: _Walk, root_pos: tuple, donatable) -> tuple:
    wanted: dict[tuple, int] = {}
    for p in root_pos:
        aval = (order[p].shape, order[p].dtype)
        wanted[aval] = wanted.get(aval, 0) + 1
    donate, kept = [], None
    for position, i in enumerate(walk.data_leaves):
        leaf = order[i]
        aval = (leaf.shape, leaf.dtype)
        if wanted.get(aval, 0) and donatable(leaf, walk.uses[i]):
            if kept is None:
                kept = _kept_leaves(order, walk, set(root_pos))
            if i in kept:
                continue
            wanted[aval] -= 1
            donate.append(position)
    return tuple(donate)


def _kept_leaves(order: list[Node], walk: _Walk, roots: set) -> set[int]:
    """Positions of the leaves below an operation that something outside
    the graph holds: a frontend may keep a raw node across a barrier and
    build on it later, replaying it from these leaves, so their buffers must
    outlive this graph. The walk stops at roots: a root's node stands for
    its computed value while that lives (``ir.toposort``), and a view's
    cache (``runtime.ViewHandle``) is always above a root or a held leaf."""
    uses, index = walk.uses, walk.index
    baseline = _interior_baseline()
    measuring = baseline is None
    below = [False] * len(order)
    kept = set()
    for i in range(len(order) - 1, -1, -1):
        node = order[i]
        if not node.operands:
            if below[i]:
                kept.add(i)
            continue
        if i in roots:
            continue
        outside = _outside_references(node, uses[i])
        if measuring:
            _INTERIOR_BASELINE.append(outside)
        elif below[i] or outside > baseline:
            for operand in node.operands:
                below[index[operand]] = True
    return kept


def _outside_references(node: Node, uses: int) -> int:
    return sys.getrefcount(node) - uses


_INTERIOR_BASELINE: list = []  # references to an operation that only the graph holds


def _interior_baseline() -> int:
    """``_outside_references`` of an operation that nothing but the graph
    being planned holds, measured once through a real plan's call path."""
    if not _INTERIOR_BASELINE:
        _INTERIOR_BASELINE.append(None)  # measuring: the plan below keeps every leaf
        leaf = Node(Op.DATA, (), (), (1,), np.dtype("float32"), data=jax.numpy.zeros(1))
        inner = Node(Op.NEG, (leaf,), (), (1,), np.dtype("float32"))
        user = Node(Op.NEG, (inner,), (), (1,), np.dtype("float32"))
        del leaf, inner
        plan([user], lambda leaf, uses: True)
        _INTERIOR_BASELINE[:] = _INTERIOR_BASELINE[1:]  # what the measuring plan found
    return _INTERIOR_BASELINE[0]


def _reference_counts(leaf: Node, uses: int) -> tuple[int, int]:
    return sys.getrefcount(leaf) - uses, sys.getrefcount(leaf.data)


_BASELINE: list = []  # reference counts of a leaf that only the graph holds


def _calibrate() -> tuple[int, int]:
    """Measure, through the same call path as a real plan, the reference
    counts of a DATA leaf that nothing but the graph being planned holds."""
    seen: list = []
    leaf = Node(Op.DATA, (), (), (1,), np.dtype("float32"), data=jax.numpy.zeros(1))
    user = Node(Op.NEG, (leaf,), (), (1,), np.dtype("float32"))
    del leaf
    plan([user], lambda leaf, uses: seen.append(_reference_counts(leaf, uses)) or False)
    return seen[0]


def is_unreferenced(leaf: Node, uses: int) -> bool:
    """True when no live handle, view, user array or other graph holds
    ``leaf`` or its buffer: its memory may be donated to the outputs."""
    return _reference_counts(leaf, uses) == _baseline(0)


def _baseline(pooled: int) -> tuple[int, int]:
    """The counts of an unreferenced leaf whose buffer ``pooled`` more
    references (the recycle pool's) hold."""
    if not _BASELINE:
        _BASELINE.append(_calibrate())
    nodes, buffers = _BASELINE[0]
    return nodes, buffers + pooled


def _replay(p: Plan, op_by_op: bool = False):
    """The replay of the plan's graph (a function of the call arguments, in
    ``jax.lax``) and the number of arguments it reads; ``op_by_op``: each
    operation runs as its own small jitted function (``_kernel``)."""
    # the closure captures only data-free structure, never the plan's buffers;
    # skeleton nodes name their skeleton operands (lowering may match patterns)
    entries, bank_dtypes, n_data, roots = p.signature[0], p.bank_dtypes, len(p.data_args), p.roots
    bank_sizes = p.bank_sizes
    operand_index = [e[2] if e[0] not in (_DATA, _SCALAR, _CONST) else () for e in entries]
    skeleton: list[Node] = []
    for n, index in zip(p.order, operand_index, strict=True):
        skeleton.append(Node(n.op, tuple(skeleton[j] for j in index), n.attrs, n.shape, n.dtype,
                             n.data if n.op is _CONST else None))
    dead_after = _last_uses(operand_index, roots)

    def replay(*args):
        data = args[:n_data]
        banks, k = {}, n_data
        for d, size in zip(bank_dtypes, bank_sizes, strict=True):
            banked = size <= BANK_LIMIT
            banks[d] = unpack_bank(args[k]) if banked else args[k:k + size]
            k += 1 if banked else size
        values: list = [None] * len(skeleton)
        for i, node in enumerate(skeleton):
            op = node.op
            if op is _DATA:
                values[i] = data[entries[i][3]]
            elif op is _SCALAR:
                values[i] = lower_scalar(node, banks[node.dtype][entries[i][3]])
            elif op is _CONST:
                values[i] = np.asarray(node.data, dtype=node.dtype)
            else:
                operands = [values[j] for j in operand_index[i]]
                values[i] = _kernel(node, operands) if op_by_op else LOWERINGS[op](node, *operands)
                for j in dead_after[i]:  # run op by op, an intermediate dies here
                    values[j] = None
        return [values[r] for r in roots]

    return replay, n_data + len(p.scalar_banks)


def _last_uses(operand_index: list, roots: tuple) -> list[tuple]:
    """Per node position, the operand positions whose last use it is (roots
    excluded): what an op-by-op replay can drop once that node is computed."""
    last = {}
    for i, index in enumerate(operand_index):
        for j in index:
            last[j] = i
    for r in roots:
        last.pop(r, None)
    dead: list[list] = [[] for _ in operand_index]
    for j, i in last.items():
        dead[i].append(j)
    return [tuple(d) for d in dead]


def _jitted(p: Plan):
    """The jitted replay of the plan's graph and the arguments to call it with."""
    replay, n_args = _replay(p)
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


def distinct_operations(order: list[Node]) -> int:
    """How many different (op, attrs, shape, dtype) the graph computes: what
    running it op by op makes JAX compile (leaves are arguments, not ops)."""
    return len({(n.op, n.attrs, n.shape, n.dtype) for n in order if n.operands})


def interpret(p: Plan) -> list:
    """Run the plan's graph without compiling it whole: the same replay, op by
    op, each operation a small jitted function of its own (``_kernel``,
    compiled once per op, attrs and operand types). Nothing is donated; an
    output that is an input buffer is copied, as a compiled graph's outputs
    are fresh."""
    replay, _ = _replay(p, op_by_op=True)
    args = (*p.data_args, *p.scalar_banks)
    outputs = []
    for value in replay(*args):
        if not isinstance(value, jax.Array) or any(value is a for a in args):
            value = jax.numpy.array(value, copy=True)
        outputs.append(value)
    return outputs


def _kernel(node: Node, operands: list):
    """``node``'s operation on ``operands``, as a jitted function of its own,
    cached per op, attrs, shape, dtype and operand types: calling a jitted
    function costs JAX about a third of dispatching its ``jax.lax``
    primitives one by one (9 against 26 us for an add, 16 against 46 us for
    a small matmul), and a lowering of several primitives is one call.
    Host constants (CONST leaves) stay constants inside it, as in a whole
    graph (a reduce_window's init value must be known to differentiate it)."""
    constants = tuple((i, v.shape, v.dtype, v.tobytes()) for i, v in enumerate(operands)
                      if isinstance(v, np.ndarray))
    key = (node.op, node.attrs, node.shape, node.dtype, _avals(operands), constants)
    kernel = _KERNELS.get(key)
    if kernel is None:
        if len(_KERNELS) >= _KERNELS_LIMIT:
            _KERNELS.clear()
        kernel = _KERNELS[key] = _jitted_op(node, operands)
    return kernel(*[v for v in operands if not isinstance(v, np.ndarray)])


def _jitted_op(node: Node, operands: list):
    lowering = OP_BY_OP_LOWERINGS[node.op]
    bare = Node(node.op, (), node.attrs, node.shape, node.dtype)
    fixed = [v if isinstance(v, np.ndarray) else None for v in operands]

    def run(*args):
        it = iter(args)
        return lowering(bare, *[next(it) if v is None else v for v in fixed])

    return jax.jit(run)


def _avals(values) -> tuple:
    return tuple(_avals(v) if isinstance(v, (tuple, list)) else (np.shape(v), v.dtype)
                 for v in values)


_KERNELS: dict = {}
_KERNELS_LIMIT = 4096


class RecyclePool:
    """Recent large outputs, kept so that once the program drops them their
    memory can be donated to the next graph's outputs of the same shape and
    dtype (a fresh multi-MB output costs more in page faults than a fused
    elementwise chain costs in arithmetic)."""

    def __init__(self, min_bytes: int = 1 << 18, keep: int = 16) -> None:
        self.min_bytes, self.keep = min_bytes, keep
        self.arrays: list = []

    def take(self, avals: list[tuple]) -> list:
        """Dead pooled buffers matching ``avals`` (each used at most once)."""
        taken = []
        for aval in avals:
            # index, never bind, the pooled arrays: a local name is a reference
            for i in range(len(self.arrays)):
                if _aval(self.arrays, i) == aval and _pool_only(self.arrays, i):
                    taken.append(self.arrays.pop(i))
                    break
        return taken

    def give(self, outputs: list) -> None:
        """Pool the large ``outputs``; forget the buffers donated meanwhile."""
        self.arrays = [a for a in self.arrays if not a.is_deleted()]
        self.arrays += [o for o in outputs if o.nbytes >= self.min_bytes]
        del self.arrays[:-self.keep]

    def holds(self, array) -> int:
        """1 when ``array`` is pooled (the pool's own reference to it), else 0."""
        return int(any(a is array for a in self.arrays))

    def donatable(self, leaf: Node, uses: int) -> bool:
        """``is_unreferenced``, not counting the pool's own reference (same
        call depth as ``is_unreferenced``: frames hold references)."""
        return _reference_counts(leaf, uses) == _baseline(self.holds(leaf.data))


def _aval(arrays: list, i: int) -> tuple:
    return arrays[i].shape, arrays[i].dtype


def _references(arrays: list, i: int) -> int:
    return sys.getrefcount(arrays[i])


def _pool_only(arrays: list, i: int) -> bool:
    """True when nothing but the pool's list references ``arrays[i]``."""
    return _references(arrays, i) == _POOL_BASELINE


_POOL_BASELINE = _references([object()], 0)  # measured through the same path


def enable_persistent_cache(directory: str | None = None) -> str | None:
    """Keep compiled executables on disk across processes (XLA's own cache),
    in ``directory`` or ``$LAZYTENSOR_CACHE_DIR``."""
    directory = directory or os.environ.get(_CACHE_DIR_ENV)
    if directory:
        jax.config.update("jax_compilation_cache_dir", directory)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return directory


def to_device(value) -> jax.Array:
    """A host value as a fresh device array (always a copy: a buffer that we
    may donate later must never alias memory the user holds)."""
    return jax.device_put(np.array(value, copy=True))


def to_host(array: jax.Array) -> np.ndarray:
    """A device array as a fresh, writable host array."""
    return np.array(array, copy=True)


def block(arrays: list) -> None:
    jax.block_until_ready(arrays)
