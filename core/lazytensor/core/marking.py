"""Marking a lazy value with a device layout: the frontends' ``shard`` /
``mark_sharding``. Device data is moved at once (``placement.place``), a
pending value is constrained in its graph (``sharding.constrain``), and the
handle keeps the layout through in-place updates. It takes a runtime handle,
so it sits above the runtime; ``placement`` (below it) only maps layouts
onto JAX devices.
"""

from __future__ import annotations

import jax
from lazytensor.core import placement
from lazytensor.core.leaves import data_leaf
from lazytensor.core.ops import Op
from lazytensor.core.runtime import ViewHandle
from lazytensor.core.sharding import Mesh, Sharding, ShardingError, constrain, sharding_of


def mark(handle, mesh: Mesh, spec) -> Sharding:
    """Lay ``handle``'s value out over ``mesh`` as ``spec``: device data is
    moved now, a pending value is constrained in its graph (its handle then
    keeps the layout through in-place updates: ``sharding.carried``). A
    mesh of the default device alone changes nothing (checks aside), so
    that a script written for N devices runs on one as unsharded code."""
    node = handle.node
    sharding = sharding_of(as_mesh(mesh), spec, len(node.shape))
    if sharding.mesh.device_ids == (0,) and jax.process_count() == 1:
        return sharding  # the default device: where values live anyway
    if node.op in (Op.SCALAR, Op.CONST):  # a host value: upload it first
        handle.value()
        node = handle.node
    if node.op is Op.DATA and not isinstance(handle, ViewHandle):
        if node.attrs != (sharding,):
            handle.node = data_leaf(placement.place(node.data, sharding))
    else:
        handle.assign(constrain(node, sharding))
    return sharding


def as_mesh(mesh) -> Mesh:
    """A core ``Mesh``, or one made from a ``jax.sharding.Mesh``."""
    if isinstance(mesh, Mesh):
        return mesh
    if hasattr(mesh, "devices") and hasattr(mesh, "axis_names"):
        ordinal = {d: i for i, d in enumerate(placement.devices())}
        return Mesh([ordinal[d] for d in mesh.devices.flat], mesh.devices.shape, mesh.axis_names)
    raise ShardingError(f"expected a Mesh, got {type(mesh).__name__}")
