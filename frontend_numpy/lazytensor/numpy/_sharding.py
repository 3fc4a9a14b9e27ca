"""Sharding lazy arrays over a device mesh (lazytensor's own API; numpy
has none): ``shard(x, mesh, spec)`` and ``Mesh``, the core's.

>>> import lazytensor.numpy as lnp
>>> mesh = lnp.Mesh([0], (1,), ("data",))
>>> x = lnp.ones((4, 2))
>>> lnp.shard(x, mesh, ("data", None)) is x
True
>>> lnp.shard(x, mesh, ("data", "model"))
Traceback (most recent call last):
...
ValueError: partition spec ('data', 'model') names axis 'model', which the mesh ('data',) lacks
"""

from __future__ import annotations

from lazytensor.core import marking
from lazytensor.core.sharding import Mesh, ShardingError
from lazytensor.numpy._base import ndarray
from lazytensor.numpy._dispatch import to_lazy


def shard(x, mesh: Mesh, spec) -> ndarray:
    """Lay ``x`` out over ``mesh``: per dimension ``None`` (whole), a mesh
    axis name or a tuple of them. ``x`` itself is annotated and returned (a
    host array becomes a lazy one); data moves at once, a pending value is
    constrained in its graph, and in-place updates keep the layout."""
    if not isinstance(x, ndarray):
        x = to_lazy(x)
        if not isinstance(x, ndarray):
            raise TypeError(f"shard needs an array, got {type(x).__name__}")
    try:
        marking.mark(x._h, mesh, tuple(spec))
    except ShardingError as exc:
        raise ValueError(str(exc)) from None
    return x


__all__ = ["Mesh", "shard"]
