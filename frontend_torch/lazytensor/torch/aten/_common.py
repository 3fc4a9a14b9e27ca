"""Helpers every ATen family uses: operands to nodes, torch's dimension
rules and messages, torch dtypes as numpy dtypes, and elementwise
application with torch's promotion."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from lazytensor.core import Node, Op, make, scalar
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import as_node, convert
from lazytensor.core.composite.reduce.accumulate import HALF
from lazytensor.core.layout import permuted_strides
from lazytensor.torch._promotion import ALWAYS_BOOL as ALWAYS_BOOL_KIND
from lazytensor.torch._promotion import DEFAULT as DEFAULT_KIND
from lazytensor.torch._promotion import dtypes, key_of
from lazytensor.torch._tensor import NUMPY_OF, LazyTensor, node_of_host, wrap

import torch

aten = torch.ops.aten


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
    if not isinstance(x, torch.Tensor):
        return x
    if getattr(x, "_h", None) is None and x.dim():
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two "
            f"devices, lazy:0 and {x.device}!"
        )
    return node(x)


# the C++ type names some torch messages print (caffe2::TypeMeta)
_CPP_NAMES = {dt.float32: "float", dt.float64: "double", dt.float16: "c10::Half",
              dt.bfloat16: "c10::BFloat16", dt.int64: "long int", dt.int32: "int",
              dt.int16: "short int", dt.int8: "signed char", dt.uint8: "unsigned char",
              dt.bool_: "bool", dt.complex64: "c10::complex<float>",
              dt.complex128: "c10::complex<double>"}


def cpp_type_name(dtype: np.dtype) -> str:
    """torch's C++ name of a dtype in mm's and masked_fill's messages
    (``float``, ``long int``, ``c10::Half``)."""
    return _CPP_NAMES.get(dtype, str(dtype))


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
    if isinstance(ds, int):
        ds = (ds,)
    if ndim == 0:
        for d in ds or ():
            dim(d, 0)
        return ()
    if not ds:
        return tuple(range(ndim))
    out = tuple(sorted({dim(d, ndim) for d in ds}))
    if len(out) != len(ds):
        raise RuntimeError(f"dim {list(ds)} appears multiple times in the list of dims")
    return out


def size_list(size: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(s) for s in size)


# promotion rank of Python scalars and of the dtypes whose ops torch runs in
# the dtype itself (no float32 "opmath" for them): a scalar of lower or equal
# rank leaves such a tensor's dtype unchanged
_SCALAR_RANK = {bool: 0, int: 1, float: 2, complex: 3}
_FAST_RANK = {np.dtype(d): r for d, r in (
    ("int8", 1), ("int16", 1), ("int32", 1), ("int64", 1), ("uint8", 1),
    ("float32", 2), ("float64", 2), ("complex64", 3), ("complex128", 3))}
_CAST = {1: int, 2: float, 3: complex}


def fast_operands(*xs, float_only: bool = False) -> tuple[Node, ...] | None:
    """The nodes of ``op(*xs)`` when no promotion, broadcast or layout work
    is needed: every tensor has the first operand's shape, dtype (one that
    torch computes in itself; a float one when ``float_only``) and a
    contiguous layout, and no Python scalar promotes it. None otherwise.
    The hot path of training code."""
    first = xs[0]
    h = getattr(first, "_h", None)
    if h is None or not first.is_contiguous():
        return None
    n0 = h.node
    rank = _FAST_RANK.get(n0.dtype)
    if rank is None or (float_only and rank < 2):
        return None
    if len(xs) == 2:  # (unrolled: the commonest case, a binary op)
        x = xs[1]
        hx = getattr(x, "_h", None)
        if hx is not None:
            nx = hx.node
            if nx.shape != n0.shape or nx.dtype is not n0.dtype or not x.is_contiguous():
                return None
            return n0, nx
        srank = _SCALAR_RANK.get(type(x))
        if srank is None or srank > rank:
            return None
        return n0, scalar(_CAST[rank](x), n0.dtype, n0.shape)
    nodes = [n0]
    for x in xs[1:]:
        hx = getattr(x, "_h", None)
        if hx is not None:
            nx = hx.node
            if nx.shape != n0.shape or nx.dtype is not n0.dtype or not x.is_contiguous():
                return None
            nodes.append(nx)
            continue
        srank = _SCALAR_RANK.get(type(x))
        if srank is None or srank > rank:
            return None
        nodes.append(scalar(_CAST[rank](x), n0.dtype, n0.shape))
    return tuple(nodes)


def _infer_size(a: tuple, b: tuple) -> tuple[int, ...]:
    """torch's infer_size: the broadcast of shapes ``a`` and ``b``, or its
    RuntimeError naming the last clashing dimension of the result."""
    ndim = max(len(a), len(b))
    sizes = []
    for i in range(ndim - 1, -1, -1):
        back = ndim - 1 - i
        size_a = a[len(a) - 1 - back] if back < len(a) else 1
        size_b = b[len(b) - 1 - back] if back < len(b) else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(f"The size of tensor a ({size_a}) must match the size of tensor b "
                               f"({size_b}) at non-singleton dimension {i}")
        sizes.append(size_b if size_a == 1 else size_a)
    return tuple(reversed(sizes))


def broadcast_sizes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of ``shapes`` as torch's TensorIterator computes it
    (each shape in turn against the broadcast so far), with torch's error.

    >>> broadcast_sizes((2, 1), (3,))
    (2, 3)
    """
    out: tuple[int, ...] = ()
    for shape in shapes:
        out = _infer_size(out, tuple(shape))
    return out


def elementwise(fn, kind, *xs) -> LazyTensor:
    """``fn(*nodes)`` over operands promoted by torch's rule ``kind`` and
    broadcast; Python scalars become scalar parameters. ``fn`` runs in the
    computation dtype; the result is converted to the result dtype."""
    if kind is DEFAULT_KIND or kind is ALWAYS_BOOL_KIND:
        fast = fast_operands(*xs)
        if fast is not None:
            return wrap(fn(*fast))
    computation, result = dtypes(kind, *[key_of(x) for x in xs])
    values = [operand(x) for x in xs]
    shapes = [v.shape for v in values if isinstance(v, Node)]
    shape = shapes[0] if all(s == shapes[0] for s in shapes) else broadcast_sizes(*shapes)
    nodes = [as_node(v, computation, shape) for v in values]
    out = fn(*nodes)
    if out.dtype != result:
        out = convert(out, result)
    return wrap(out, _strides_like(xs, out.shape))


def _strides_like(xs, shape) -> tuple[int, ...] | None:
    """torch's output layout of an elementwise op (TensorIterator's rule,
    ported): contiguous when the inputs are; else the dims are ordered by
    the inputs' strides, broadcast inputs counting as stride 0. A result of
    lower rank than an input (a loss's mean) is new, so contiguous."""
    tensors = [x for x in xs if isinstance(x, LazyTensor) and x.dim()]
    if all(t.is_contiguous() for t in tensors) or any(t.dim() > len(shape) for t in tensors):
        return None
    shape = tuple(shape)
    order = layout_order([_broadcast_strides(t, shape) for t in tensors], shape)
    return None if order == list(range(len(shape))) else permuted_strides(shape, order)


def _broadcast_strides(t, shape) -> tuple[int, ...]:
    lead = len(shape) - t.dim()
    own = t.stride()
    return (0,) * lead + tuple(0 if t.shape[i] == 1 and shape[lead + i] != 1 else own[i]
                               for i in range(t.dim()))


def layout_order(strides: list, shape) -> list[int]:
    """Dims from outermost to innermost in memory (torch's insertion sort
    with ambiguous comparisons, first operand first)."""
    def should_swap(a: int, b: int) -> int:
        for st in strides:
            sa, sb = st[a], st[b]
            if sa == 0 or sb == 0:
                continue
            if sa == sb:
                if shape[b] >= shape[a]:
                    continue
                return 1
            return -1 if sb > sa else 1
        return 0

    perm = list(reversed(range(len(shape))))
    for i in range(1, len(shape)):
        d1 = i
        for d0 in reversed(range(i)):
            comparison = should_swap(perm[d0], perm[d1])
            if comparison > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif comparison < 0:
                break
    return list(reversed(perm))


_CHANNELS_LAST = {torch.channels_last: (4, "channels_last"),
                  torch.channels_last_3d: (5, "channels_last_3d")}


def dense_strides(x, memory_format=None) -> tuple[int, ...] | None:
    """The strides of a new tensor like ``x`` in ``memory_format``:
    channels_last(_3d) strides (rank 4 or 5, torch's error otherwise);
    for ``preserve_format``, x's strides when they are dense and not
    contiguous; else None (contiguous)."""
    if memory_format in _CHANNELS_LAST:
        rank, name = _CHANNELS_LAST[memory_format]
        if x.dim() != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {name} format")
        from torch._prims_common import make_channels_last_strides_for

        return tuple(make_channels_last_strides_for(x.shape))
    if memory_format not in (None, torch.preserve_format) or x.is_contiguous():
        return None
    from torch._prims_common import is_non_overlapping_and_dense_or_false

    return tuple(x.stride()) if is_non_overlapping_and_dense_or_false(x) else None


_FLOAT32 = np.dtype(np.float32)


def opmath(impl):
    """``impl`` run in float32 when its floating tensors are all float16 (or
    all bfloat16), its floating results rounded back once: torch's kernels of
    softmax, norms, pooling and losses accumulate half inputs in float32
    ("opmath"); every step in half precision drifts by many ulps. A call
    naming a result ``dtype`` runs as it is."""
    @functools.wraps(impl)
    def run(*args, **kwargs):
        values = (*args, *kwargs.values())
        kinds = {x._h.node.dtype for x in values
                 if isinstance(x, LazyTensor) and x.is_floating_point()}
        if (len(kinds) != 1 or (half := kinds.pop()) not in HALF
                or any(isinstance(v, torch.dtype) for v in values)):
            return impl(*args, **kwargs)
        out = impl(*(_retyped(a, half, _FLOAT32) for a in args),
                   **{k: _retyped(v, half, _FLOAT32) for k, v in kwargs.items()})
        if isinstance(out, (tuple, list)):
            return type(out)(_retyped(o, _FLOAT32, half) for o in out)
        return _retyped(out, _FLOAT32, half)

    return run


def _retyped(x, old: np.dtype, new: np.dtype):
    """A lazy tensor of dtype ``old`` as ``new`` (same layout); else ``x``."""
    if not isinstance(x, LazyTensor) or x._h.node.dtype != old:
        return x
    return wrap(convert(x._h.node, new), None if x.is_contiguous() else x.stride())


def unary_op(op: Op):
    return lambda x: make(op, (x,))


def binary_op(op: Op):
    return lambda a, b: make(op, (a, b))
