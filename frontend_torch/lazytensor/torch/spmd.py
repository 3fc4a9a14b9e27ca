"""SPMD sharding of lazy tensors, shaped like torch_xla's
``torch_xla.distributed.spmd`` (``xs``): code written for it ports with an
import change (``import lazytensor.torch.spmd as xs``).

>>> import numpy as np, torch, lazytensor.torch as lt
>>> import lazytensor.torch.spmd as xs
>>> mesh = xs.Mesh(np.arange(1), (1, 1), ("data", "model"))
>>> t = torch.ones(4, 2, device=lt.device())
>>> xs.mark_sharding(t, mesh, ("data", None)) is t
True
>>> xs.mark_sharding(t, mesh, ("data",))
Traceback (most recent call last):
...
RuntimeError: partition spec ('data',) has 1 entries for a value of rank 2
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from lazytensor.core import marking, placement
from lazytensor.core import sharding as core_sharding
from lazytensor.torch._tensor import handle_of

import torch


class Mesh(core_sharding.Mesh):
    """``Mesh(device_ids, mesh_shape, axis_names=None)``: device ordinals
    (over every process) arranged in ``mesh_shape``, as torch_xla's."""

    __slots__ = ()

    def __init__(self, device_ids, mesh_shape, axis_names=None) -> None:
        try:
            super().__init__(np.asarray(device_ids).ravel().tolist(), mesh_shape, axis_names)
        except core_sharding.ShardingError as exc:
            raise RuntimeError(str(exc)) from None

    def size(self) -> int:
        return len(self.device_ids)

    def shape(self) -> OrderedDict:
        return OrderedDict(zip(self.axis_names, self.mesh_shape, strict=True))

    def get_logical_mesh(self) -> np.ndarray:
        return np.array(self.device_ids).reshape(self.mesh_shape)

    def get_axis_name_idx(self, name: str) -> int | None:
        return self.axis_names.index(name) if name in self.axis_names else None


def mark_sharding(t: torch.Tensor, mesh: Mesh, partition_spec) -> torch.Tensor:
    """Lay ``t`` out over ``mesh``: per dimension ``None`` (whole), a mesh
    axis (name or index) or a tuple of axes. Device data moves at once; a
    pending value is constrained in its graph; in-place updates (optimizer
    steps) keep the layout. Returns ``t`` (torch_xla returns a wrapper)."""
    try:
        marking.mark(handle_of(t), mesh, tuple(partition_spec))
    except core_sharding.ShardingError as exc:
        raise RuntimeError(str(exc)) from None
    return t


def clear_sharding(t: torch.Tensor) -> torch.Tensor:
    """Gather ``t`` back onto one device's layout (replicated)."""
    h = handle_of(t)
    layout = core_sharding.sharding_attr(h.node)
    if layout is not None:
        marking.mark(h, layout.mesh, (None,) * t.dim())
    return t


def get_1d_mesh(axis_name: str | None = None) -> Mesh:
    """Every device in one axis."""
    n = global_runtime_device_count()
    return Mesh(range(n), (n,), None if axis_name is None else (axis_name,))


def global_runtime_device_count() -> int:
    """Devices over every process (torch_xla.runtime's name)."""
    return len(placement.devices())


__all__ = ["Mesh", "clear_sharding", "get_1d_mesh", "global_runtime_device_count",
           "mark_sharding"]
