"""The replay of a plan's graph with ``jax.lax`` (the lowering table), as a
function of the call arguments: what is jitted whole (``executables``) or
run op by op (``interpreter``)."""

from __future__ import annotations

import numpy as np
from lazytensor.core.compiler.planning import BANK_LIMIT, Plan
from lazytensor.core.ir import Node
from lazytensor.core.lowering import LOWERINGS, lower_scalar, unpack_bank
from lazytensor.core.ops import Op

_DATA, _SCALAR, _CONST = Op.DATA, Op.SCALAR, Op.CONST


def replay_function(p: Plan, kernel=None):
    """The replay of the plan's graph (a function of the call arguments, in
    ``jax.lax``) and the number of arguments it reads; with ``kernel``
    (``kernel(node, operands)``), each operation runs through it instead
    (op by op: the interpreter's small jitted functions)."""
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
                values[i] = (LOWERINGS[op](node, *operands) if kernel is None
                             else kernel(node, operands))
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

