"""The ATen table: ``{aten overload or packet: implementation}``, the one
mapping from PyTorch's operators onto the core. It is assembled from one
module per op family; an op named by two families is an error.

A packet key (``aten.add``) serves every overload of the packet except the
``out=`` ones; an overload key (``aten.max.dim``) serves only itself.
In-place, ``out=`` and ``_foreach_`` overloads are derived from the
functional entries by ``lazytensor.torch._dispatch``; ops not named here go
to PyTorch's decompositions, then to the eager fallback.
"""

from __future__ import annotations

from lazytensor.torch.aten import (
    amp,
    distinct,
    elementwise,
    factories,
    grads,
    indexing,
    linalg,
    movement,
    nn,
    nn_extra,
    optim,
    reduction,
    special,
    spectral,
    views,
)

FAMILIES = (elementwise, reduction, views, movement, indexing, linalg, nn, nn_extra, factories,
            spectral, special, grads, amp, optim, distinct)


def _merge() -> dict:
    table: dict = {}
    for family in FAMILIES:
        for op, impl in family.TABLE.items():
            if op in table:
                raise KeyError(f"{op} is mapped twice (again in {family.__name__})")
            table[op] = impl
    return table


TABLE = _merge()
TABLE.update({op: amp.unapplied_cpu_autocast(op, TABLE[op]) for op in amp.LOWERED_BY_CPU_AUTOCAST})
INPLACE_NODES = elementwise.INPLACE_NODES  # in-place fast paths (see elementwise.py)
