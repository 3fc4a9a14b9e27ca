"""Sharding as data in the IR: a ``Mesh`` of devices with named axes and a
``Sharding`` (mesh + partition spec, one entry per dimension) that lays a
value out over it.

A sharding is an attribute like any other: a DATA leaf whose array is laid
out over several devices carries it in ``attrs`` (so it is part of the
structural key, and a graph whose parameters moved recompiles with the
reason said), and ``Op.SHARD`` is an identity whose value is constrained to
a layout (lowered to ``with_sharding_constraint``). This module is pure
data and checks; ``lazytensor.core.placement`` maps it onto
``jax.sharding`` and moves arrays. Frontends translate ``ShardingError`` to
their own error types.

>>> mesh = Mesh(range(4), (2, 2), ("data", "model"))
>>> s = sharding_of(mesh, ("data", None), ndim=2)
>>> s
Sharding({data=2, model=2}, ('data', None))
>>> sharding_of(mesh, ("data", "batch"), ndim=2)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
lazytensor.core.sharding.ShardingError: partition spec ... names axis 'batch', which the mesh ...
"""

from __future__ import annotations

from dataclasses import dataclass

from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import CoreError, make


class ShardingError(CoreError, ValueError):
    """A mesh or partition spec that does not fit (rank, axis names, devices)."""


class Mesh:
    """Devices (ordinals into the run's device list, over every process) in
    a logical array of ``mesh_shape`` with one name per axis. Immutable and
    hashable: it is part of a graph's key.

    >>> Mesh([0, 1, 2, 3], (4,), ("data",)).axis_size("data")
    4
    >>> Mesh(range(4), (2, 2)).axis_names
    ('axis0', 'axis1')
    """

    __slots__ = ("device_ids", "mesh_shape", "axis_names", "_hash")

    def __init__(self, device_ids, mesh_shape, axis_names=None) -> None:
        ids = tuple(int(i) for i in _flat(device_ids))
        shape = tuple(int(n) for n in mesh_shape)
        names = tuple(f"axis{i}" for i in range(len(shape))) if axis_names is None \
            else tuple(str(n) for n in axis_names)
        size = 1
        for n in shape:
            size *= n
        if size != len(ids):
            raise ShardingError(f"mesh shape {shape} holds {size} devices, got {len(ids)} ids")
        if len(names) != len(shape):
            raise ShardingError(f"mesh has {len(shape)} axes, got names {names}")
        if len(set(names)) != len(names) or len(set(ids)) != len(ids):
            raise ShardingError(f"mesh axis names and device ids must be distinct: {names}, {ids}")
        object.__setattr__(self, "device_ids", ids)
        object.__setattr__(self, "mesh_shape", shape)
        object.__setattr__(self, "axis_names", names)
        object.__setattr__(self, "_hash", hash((ids, shape, names)))

    def __setattr__(self, name, value):
        raise AttributeError("a Mesh is immutable")

    def __eq__(self, other) -> bool:
        return isinstance(other, Mesh) and (self.device_ids, self.mesh_shape, self.axis_names) \
            == (other.device_ids, other.mesh_shape, other.axis_names)

    def __hash__(self) -> int:
        return self._hash

    def axis_size(self, name: str) -> int:
        return self.mesh_shape[self.axis_names.index(name)]

    def __repr__(self) -> str:
        axes = ", ".join(f"{n}={s}" for n, s in zip(self.axis_names, self.mesh_shape, strict=True))
        ids = "" if self.device_ids == tuple(range(len(self.device_ids))) \
            else f" devices {list(self.device_ids)}"
        return f"{{{axes}}}{ids}"


def _flat(values) -> list:
    out = []
    for v in values:
        if hasattr(v, "__iter__"):
            out.extend(_flat(v))
        else:
            out.append(v)
    return out


@dataclass(frozen=True, slots=True)
class Sharding:
    """A value's layout: per dimension ``None`` (whole), an axis name, or a
    tuple of axis names (split over their product)."""

    mesh: Mesh
    spec: tuple

    def __repr__(self) -> str:
        return f"Sharding({self.mesh!r}, {self.spec!r})"

    @property
    def replicated(self) -> bool:
        return all(entry is None for entry in self.spec)


def sharding_of(mesh: Mesh, spec, ndim: int) -> Sharding:
    """``spec`` checked against ``mesh`` and a value of rank ``ndim``: one
    entry per dimension, each ``None``, an axis (by name, or by index as
    torch_xla allows) or a tuple of axes; no axis twice."""
    if not isinstance(mesh, Mesh):
        raise ShardingError(f"expected a Mesh, got {type(mesh).__name__}")
    entries = tuple(spec)
    if len(entries) != ndim:
        raise ShardingError(
            f"partition spec {entries} has {len(entries)} entries for a value of rank {ndim}")
    normal = tuple(_entry(mesh, entry, entries) for entry in entries)
    used = [a for e in normal if e is not None for a in ((e,) if isinstance(e, str) else e)]
    if len(set(used)) != len(used):
        raise ShardingError(f"partition spec {entries} uses a mesh axis twice")
    return Sharding(mesh, normal)


def _entry(mesh: Mesh, entry, spec: tuple):
    if entry is None:
        return None
    if isinstance(entry, (tuple, list)):
        names = tuple(_axis(mesh, a, spec) for a in entry)
        return names[0] if len(names) == 1 else (names or None)
    return _axis(mesh, entry, spec)


def _axis(mesh: Mesh, axis, spec: tuple) -> str:
    if isinstance(axis, int) and not isinstance(axis, bool):
        if not 0 <= axis < len(mesh.axis_names):
            raise ShardingError(
                f"partition spec {spec} names axis {axis}, the mesh has {len(mesh.axis_names)}")
        return mesh.axis_names[axis]
    if axis not in mesh.axis_names:
        raise ShardingError(
            f"partition spec {spec} names axis {axis!r}, which the mesh {mesh.axis_names} lacks")
    return axis


def constrain(node: Node, sharding: Sharding) -> Node:
    """``node``'s value laid out as ``sharding`` (an ``Op.SHARD`` node)."""
    return make(Op.SHARD, (node,), sharding)


def carried(old: Node, new: Node) -> Node:
    """``new`` as the next value of a handle that held ``old``, a placed
    value (a sharded DATA leaf or an ``Op.SHARD`` node): in-place updates
    keep the layout, unless ``new`` states one of its own or changes shape."""
    if new.op is Op.SHARD or new.shape != old.shape:
        return new
    if new.op is Op.DATA and new.attrs == old.attrs:
        return new
    layout = old.attrs[0]
    return make(Op.SHARD, (new,), layout) if isinstance(layout, Sharding) else new


def sharding_attr(node: Node):
    """The layout a DATA leaf or SHARD node states, or None."""
    if node.attrs and (node.op is Op.DATA or node.op is Op.SHARD):
        return node.attrs[0]
    return None
