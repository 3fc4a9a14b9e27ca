"""Planning: one walk over a cut graph gives its signature and its call
arguments (DATA buffers in parameter order, banks of scalar parameters).

The signature is the graph's exact structure: per node in topological order
its op, attrs and operand positions; per parameter its shape and dtype;
constants by value; plus which parameters are donated. It never contains
device data, so new data of the same shapes reuses the executable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import jax
import numpy as np
from lazytensor.core.compiler import donation, structures
from lazytensor.core.compiler.donation import RecyclePool, aval_at, choose_donations
from lazytensor.core.compiler.structures import PlanCache, Structure
from lazytensor.core.ir import Node, toposort
from lazytensor.core.ops import Op


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
    structure: Structure | None = None  # its entry in the plan cache, if any
    missing: tuple = ()  # scratch positions the pool had no buffer for (``fill_scratch``)


def plan(roots: list[Node], donatable=None, pool: RecyclePool | None = None,
         cache: PlanCache | None = None) -> Plan:
    """Walk the graph below ``roots`` and collect its signature and arguments.
    ``donatable(leaf, uses)`` decides per DATA leaf whether its buffer may be
    donated (``uses``: how often the graph's nodes name it as an operand);
    by default, when nothing outside this graph (``pool`` aside: a parameter
    updated every step is pooled output of the last step) can reach it,
    and no operation held outside the graph reads it (``_kept_leaves``).
    With ``cache``, a graph of a structure planned before costs one walk
    (``structures``); donations are judged anew at every plan."""
    if not _CALIBRATED:
        calibrate()
    if donatable is None:
        donatable = donation.is_unreferenced if pool is None else pool.donatable
    order, walk, structure = _structure(roots, cache)
    # only ``order`` holds the nodes here, as when calibrated (``calibrate``)
    donate = choose_donations(order, walk.uses, walk.data_leaves, walk.roots, donatable,
                              *(() if structure is None else (structure.candidates,
                                                              structure.limits)),
                              params=walk.data_params)
    bank_dtypes = tuple(walk.banks)
    scalar_banks = [a for d in bank_dtypes for a in _scalar_args(walk.banks[d], d)]
    entries = tuple(walk.entries) if structure is None else structure.entries
    signature = (entries, walk.roots, donate, bank_dtypes)
    return Plan(signature, order, walk.data_args, scalar_banks, bank_dtypes, walk.roots, donate,
                bank_sizes=tuple(len(walk.banks[d]) for d in bank_dtypes), structure=structure)


def _structure(roots: list[Node], cache: PlanCache | None) -> tuple[list, _Walk, Structure | None]:
    """The graph's topological order and its walk, from the plan cache when
    its structure is there, else from a full walk (stored, if it can be)."""
    walked = None if cache is None else structures.visit(roots)
    if walked is not None:
        structure = cache.find(roots, walked)
        if structure is not None:
            nodes = walked[0]
            order = [nodes[i] for i in structure.to_order]
            return order, _cached_walk(order, structure), structure
    computed: dict = {}
    order = toposort(roots, computed)
    walk = _walk(order, computed)
    walk.roots = tuple(walk.index[r] for r in roots)
    structure = None
    if walked is not None and not computed:
        structure = _learn(roots, walked, order, walk)
        cache.store(roots, structure)
    walk.index = None  # (a reference to every node: not held while donating)
    return order, walk, structure


def _cached_walk(order: list, s: Structure) -> _Walk:
    """A walk's parameters and scalars, read at a cached structure's positions."""
    banks = {d: [order[i].data for i in positions] for d, positions in s.banks.items()}
    return _Walk(None, None, [order[i].data for i in s.data], s.data_leaves, None, banks,
                 s.uses, s.roots)  # (nothing stands in: parameter k is data leaf k)


def _learn(roots: list[Node], walked: tuple, order: list, walk: _Walk) -> Structure:
    """The structure of a graph just walked in full (nothing stood in)."""
    nodes, record = walked
    described, constants = structures.describe(nodes)
    at = {id(n): i for i, n in enumerate(nodes)}
    banks: dict = {}
    data = []
    for i, entry in enumerate(walk.entries):
        if entry[0] is _SCALAR:
            banks.setdefault(entry[2], []).append(i)
        elif entry[0] is _DATA:
            data.append(i)
    candidates = donation.candidates(order, walk.data_leaves, walk.roots)
    limits = donation.held_limits(order, walk.uses, walk.roots)
    return Structure(record, described, constants, [at[id(n)] for n in order],
                     tuple(walk.entries), walk.roots, data, walk.data_leaves, banks, walk.uses,
                     candidates, limits)


_CALIBRATED = False


def calibrate() -> None:
    """Measure, through a real plan's call path, the reference counts that
    mean "only the graph being planned holds it" (``donation``): of an
    operation below the outputs, and of a DATA leaf and its buffer."""
    global _CALIBRATED
    _CALIBRATED = True  # (the measuring plans below run through ``plan``)
    leaf = Node(Op.DATA, (), (), (1,), np.dtype("float32"), data=jax.numpy.zeros(1))
    inner = Node(Op.NEG, (leaf,), (), (1,), np.dtype("float32"))
    user = Node(Op.NEG, (inner,), (), (1,), np.dtype("float32"))
    del leaf, inner
    donation._INTERIOR_BASELINE[:] = [None]  # measuring: the plan below keeps every leaf
    plan([user], lambda leaf, uses: True)
    donation._INTERIOR_BASELINE[:] = donation._INTERIOR_BASELINE[1:]
    seen: list = []
    leaf = Node(Op.DATA, (), (), (1,), np.dtype("float32"), data=jax.numpy.zeros(1))
    user = Node(Op.NEG, (leaf,), (), (1,), np.dtype("float32"))
    del leaf
    plan([user], lambda leaf, uses: seen.append(donation.reference_counts(leaf, uses)) or False)
    donation._BASELINE[:] = seen[:1]
    assert donation.calibrated()


# Above this many scalars of one dtype, each is a parameter of its own: XLA
# compiles a long graph that reads hundreds of slices of one bank array
# superlinearly (300 steps of a two-variable update loop, 600 scalars: 13.6 s;
# 0.6 s with separate parameters), while a separate parameter costs about
# 2 us per call and a bank about nothing.
BANK_LIMIT = 32


def _scalar_args(values: list, dtype) -> list:
    """One dtype's scalars as call arguments: one bank, or a numpy scalar
    each (made in one conversion: 0-d arrays one by one cost 1 us each)."""
    if len(values) <= BANK_LIMIT:
        return [np.asarray(values, dtype=dtype)]
    return list(np.asarray(values, dtype=dtype))


def add_scratch(p: Plan, pool: RecyclePool) -> None:
    """Attach dead pooled buffers for outputs that no donated input covers;
    where the pool has none (the first steps), mark the place ``missing``:
    ``fill_scratch`` allocates a fresh buffer there, outside planning (a
    fresh buffer costs a memset of its size), so that the graph's signature
    -- and its executable -- is the same from the first step on (without
    them, the second step compiled the graph again).
    None for a graph over sharded (committed) arguments: XLA lays its
    outputs out, the pool keeps no sharded buffer, and a fresh one-device
    buffer would be copied to every device each step."""
    if any(a.committed for a in p.data_args):
        return
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
        p.scratch = [_take_aval(taken, aval) for aval in wanted]
        p.missing = tuple(i for i, buffer in enumerate(p.scratch) if buffer is None)
        p.signature = p.signature + (tuple(wanted),)


def fill_scratch(p: Plan) -> int:
    """Fresh buffers where ``add_scratch`` found no pooled one; how many."""
    for i in p.missing:
        shape, dtype = p.signature[4][i]
        p.scratch[i] = jax.numpy.zeros(shape, dtype)
    return len(p.missing)


def _take_aval(arrays: list, aval: tuple) -> jax.Array | None:
    """The first of ``arrays`` with shape and dtype ``aval``, removed; None
    if there is none."""
    for i in range(len(arrays)):
        if aval_at(arrays, i) == aval:
            return arrays.pop(i)
    return None


def _pop_aval(arrays: list, aval: tuple) -> jax.Array:
    """The first of ``arrays`` with shape and dtype ``aval``, removed; a
    fresh buffer if there is none."""
    found = _take_aval(arrays, aval)
    if found is None:
        shape, dtype = aval
        return jax.numpy.zeros(shape, dtype)
    return found


def _size(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


@dataclass(slots=True)
class _Walk:
    index: dict | None = field(default_factory=dict)  # node (by identity) -> position
    entries: list | None = field(default_factory=list)
    data_args: list = field(default_factory=list)
    data_leaves: list = field(default_factory=list)  # positions of the DATA leaves
    data_params: list | None = field(default_factory=list)  # their parameter positions
    banks: dict = field(default_factory=dict)  # dtype -> scalar values
    uses: list = field(default_factory=list)  # position -> operand references
    roots: tuple = ()  # positions of the outputs


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
            entries.append((op, node.shape, node.dtype, len(w.data_args), node.attrs))
            w.data_args.append(node.data)
            if computed and node in computed:
                for stood_for in computed[node]:
                    index[stood_for] = i
            else:  # (a leaf standing in for a computed node is never donated)
                w.data_leaves.append(i)
                w.data_params.append(len(w.data_args) - 1)
        elif op is _CONST:
            entries.append((op, node.shape, node.dtype, np.asarray(node.data).tobytes()))
        else:  # an operation without operands (iota, full)
            entries.append((op, node.attrs, ()))
    return w



_DATA, _SCALAR, _CONST = Op.DATA, Op.SCALAR, Op.CONST
