"""Sharding lazy tnp arrays and Variables over a device mesh (lazytensor's
own API): ``shard(x, mesh, spec)`` and ``Mesh``, the core's. A bad spec is
TensorFlow's ``InvalidArgumentError``.

>>> import lazytensor.tf as ltf
>>> mesh = ltf.Mesh([0], (1,), ("data",))
>>> x = ltf.numpy.ones((4, 2))
>>> ltf.shard(x, mesh, ("data", None)) is x
True
"""

from __future__ import annotations

from lazytensor.core import marking
from lazytensor.core.sharding import Mesh, ShardingError
from lazytensor.tf import _tf
from lazytensor.tf._array import lift, ndarray, wrap


def shard(x, mesh: Mesh, spec) -> ndarray:
    """Lay ``x`` (a lazy array or Variable) out over ``mesh``: per dimension
    ``None``, a mesh axis name or a tuple of them. ``x`` itself is annotated
    and returned (other values become a lazy array first); data moves at
    once, a pending value is constrained in its graph, and assignments keep
    the layout."""
    if not isinstance(x, ndarray):
        x = wrap(lift(x))
    try:
        marking.mark(x._h, mesh, tuple(spec))
    except ShardingError as exc:
        _tf.raise_as_tf(exc, {ShardingError: _tf.INVALID_ARGUMENT})
    return x


__all__ = ["Mesh", "shard"]
