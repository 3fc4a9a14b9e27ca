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
from lazytensor.core.compiler.donation import (
    RecyclePool,
    aval_at,
    choose_donations,
    is_unreferenced,
)
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
    donate = choose_donations(order, walk, root_pos, donatable)
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
    step on (without them, the second step compiled the graph again).
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
        p.scratch = [_pop_aval(taken, aval) for aval in wanted]
        p.signature = p.signature + (tuple(wanted),)


def _pop_aval(arrays: list, aval: tuple) -> jax.Array:
    """The first of ``arrays`` with shape and dtype ``aval``, removed; a
    fresh buffer if there is none."""
    for i in range(len(arrays)):
        if aval_at(arrays, i) == aval:
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
            entries.append((op, node.shape, node.dtype, len(w.data_args), node.attrs))
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
