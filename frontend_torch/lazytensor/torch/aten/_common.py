"""Helpers every ATen family uses: operands to nodes, torch's dimension
rules and messages, torch dtypes as numpy dtypes, and elementwise
application with torch's promotion."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lazytensor.core import Node, Op, make, scalar
from lazytensor.core.composite.elementwise import as_node, broadcast_shapes, convert
from lazytensor.torch._promotion import dtypes, key_of
from lazytensor.torch._tensor import NUMPY_OF, LazyTensor, node_of_host, wrap

import torch

aten = torch.ops.aten
Scalar = bool | int | float | complex


def node(x) -> Node:
    """The node of a lazy tensor; a CPU tensor becomes a parameter (a
    zero-dim one as a scalar parameter) or device data."""
    h = getattr(x, "_h", None)
    if h is not None:
        return h.node
    if isinstance(x, torch.Tensor):
        if x.dim() == 0:
            return scalar(x.item(), NUMPY_OF[x.dtype])
        return node_of_host(x)
    raise TypeError(f"expected a Tensor, got {type(x).__name__}")


def operand(x):
    """A node for tensors, the Python value for scalars (a zero-dim CPU
    tensor becomes a scalar parameter of its dtype)."""
    h = getattr(x, "_h", None)
    if h is not None:
        return h.node
    if isinstance(x, torch.Tensor):
        if x.dim() == 0:
            return scalar(x.item(), NUMPY_OF[x.dtype])
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two "
            f"devices, lazy:0 and {x.device}!"
        )
    return x


def np_dtype(dtype: torch.dtype | None, default: np.dtype | None = None) -> np.dtype | None:
    return default if dtype is None else NUMPY_OF[dtype]


def dim(d: int, ndim: int) -> int:
    """A torch dimension argument made non-negative (IndexError as torch)."""
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
        )
    return d % n if ndim else 0


def dims(ds, ndim: int) -> tuple[int, ...]:
    """Dimension list (None or [] meaning all) as sorted non-negative dims
    (a 0-dim tensor has none: its dim 0 / -1 names the tensor itself)."""
    if ndim == 0:
        if ds is not None and not isinstance(ds, int):
            for d in ds:
                dim(d, 0)
        elif isinstance(ds, int):
            dim(ds, 0)
        return ()
    if ds is None or (isinstance(ds, (list, tuple)) and len(ds) == 0):
        return tuple(range(ndim))
    if isinstance(ds, int):
        ds = (ds,)
    out = tuple(sorted({dim(d, ndim) for d in ds}))
    if len(out) != len(ds):
        raise RuntimeError(f"dim {list(ds)} appears multiple times in the list of dims")
    return out


def size_list(size: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(s) for s in size)


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def elementwise(fn, kind, *xs) -> LazyTensor:
    """``fn(*nodes)`` over operands promoted by torch's rule ``kind`` and
    broadcast; Python scalars become scalar parameters. ``fn`` runs in the
    computation dtype; the result is converted to the result dtype."""
    computation, result = dtypes(kind, *[key_of(x) for x in xs])
    values = [operand(x) for x in xs]
    shapes = [v.shape for v in values if isinstance(v, Node)]
    shape = shapes[0] if all(s == shapes[0] for s in shapes) else broadcast_shapes(*shapes)
    nodes = [as_node(v, computation, shape) for v in values]
    out = fn(*nodes)
    if out.dtype != result:
        out = convert(out, result)
    return wrap(out, _strides_like(xs, out.shape))


def _strides_like(xs, shape) -> tuple[int, ...] | None:
    """torch's output strides of an elementwise op: contiguous unless an
    input is not (then torch's layout-preserving rule decides)."""
    tensors = [x for x in xs if isinstance(x, LazyTensor)]
    if all(t.is_contiguous() for t in tensors):
        return None
    same = [t for t in tensors if tuple(t.shape) == tuple(shape)]
    if not same:
        return None
    from torch._prims_common import compute_elementwise_output_strides

    return tuple(compute_elementwise_output_strides(*same))


def dense_strides(x, memory_format=None) -> tuple[int, ...] | None:
    """torch's ``preserve_format`` for a new tensor like ``x``: x's strides
    when they are dense and not contiguous, else None (contiguous)."""
    if memory_format not in (None, torch.preserve_format) or x.is_contiguous():
        return None
    from torch._prims_common import is_non_overlapping_and_dense_or_false

    return tuple(x.stride()) if is_non_overlapping_and_dense_or_false(x) else None


def unary_op(op: Op):
    return lambda x: make(op, (x,))


def binary_op(op: Op):
    return lambda a, b: make(op, (a, b))


def full_like_node(x: Node, value: Scalar, dtype: np.dtype | None = None) -> Node:
    return as_node(value, dtype or x.dtype, x.shape)
