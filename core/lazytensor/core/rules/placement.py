"""The placement op: ``SHARD`` keeps its operand's shape and dtype; its
attr is a ``lazytensor.core.sharding.Sharding`` of a matching rank."""

from __future__ import annotations

from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, register
from lazytensor.core.sharding import Sharding


def _shard_rule(operands, attrs):
    (x,), (sharding,) = operands, attrs
    if not isinstance(sharding, Sharding) or len(sharding.spec) != len(x.shape):
        raise ShapeError(f"SHARD: {sharding!r} does not lay out a value of shape {x.shape}")
    return x.shape, x.dtype


register(Op.SHARD, 1, ("sharding",), _shard_rule)
