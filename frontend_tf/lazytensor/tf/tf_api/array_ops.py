"""TensorFlow's top-level array ops (``tf.reshape``, ``tf.concat``,
``tf.gather``, ``tf.where``, ``tf.boolean_mask``...) on lazy arrays: a part
of the ``math`` table (``lazytensor.tf.tf_api.math.APIS`` merges ``APIS``).

TensorFlow's conventions only: argument forms (shapes and axes may be
tensors, read back as TensorFlow reads them), int32 shapes and indices,
``gather``'s ``batch_dims`` as StableHLO batching dims; the movement itself
is the core's (``composite.movement.shape``, ``rearrange``, ``sorting``). Results
whose size depends on the data (``tf.where(cond)``, ``tf.boolean_mask``)
read the condition back first (a barrier), as tnp's ``nonzero`` does.
"""

from __future__ import annotations

import math

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation import arrays as creation
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.ufuncs import conj
from lazytensor.core.composite.indexing import along
from lazytensor.core.composite.indexing import subscript as indexing
from lazytensor.core.composite.indexing.take import take, take_along_axis
from lazytensor.core.composite.movement import padding, rearrange
from lazytensor.core.composite.movement import shape as core_shape
from lazytensor.core.composite.nn import layers
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.composite.sorting import sort as sorting
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make
from lazytensor.core.runtime import get_runtime
from lazytensor.tf import _tf
from lazytensor.tf._array import RECORDING, detach, ndarray, wrap
from lazytensor.tf._tf import host_value
from lazytensor.tf.numpy._arrays import _tf_float_range
from lazytensor.tf.numpy._lower import prim
from lazytensor.tf.tf_api import _dispatch
from lazytensor.tf.tf_api._dispatch import (
    axes,
    check,
    dtype_arg,
    host_int,
    is_tensor,
    natural_dtype,
    operands,
    tensor,
)

INT, BOOL, REAL = "iu", "b", "iuf"


_select = prim(Op.SELECT)


def _shape_arg(shape) -> tuple[int, ...]:
    value = host_int(shape)
    return (value,) if isinstance(value, int) else tuple(value)


def _reshape(tensor_, shape, name=None):
    return core_shape.reshape(tensor(tensor_), _shape_arg(shape))


def _transpose(a, perm=None, conjugate=False, name="transpose"):
    x = tensor(a)
    out = core_shape.transpose(x, None if perm is None else _shape_arg(perm))
    return conj(out) if conjugate else out


def _joined(values, op: str) -> list[Node]:
    return operands(*values, op=op, first=True, strict=True)


def _concat(values, axis, name="concat"):
    nodes = [tensor(values)] if is_tensor(values) else _joined(values, "ConcatV2")
    return core_shape.concatenate(nodes, host_int(axis)) if len(nodes) > 1 else nodes[0]


def _stack(values, axis=0, name="stack"):
    if is_tensor(values):  # one tensor: a stack of its rows
        return core_shape.moveaxis(tensor(values), 0, host_int(axis))
    return core_shape.stack(_joined(values, "Pack"), host_int(axis))


def _unstack(value, num=None, axis=0, name="unstack"):
    x = tensor(value)
    ax = caxes.normalize_axis(host_int(axis), x.ndim)
    if num is not None and num != x.shape[ax]:
        raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return [core_shape.squeeze(core_shape.slice_axis(x, ax, i, i + 1), ax)
            for i in range(x.shape[ax])]


def _split(value, num_or_size_splits, axis=0, num=None, name="split"):
    x = tensor(value)
    ax = caxes.normalize_axis(host_int(axis), x.ndim)
    sizes = host_int(num_or_size_splits)
    if isinstance(sizes, int):
        if sizes <= 0 or x.shape[ax] % sizes:
            raise ShapeError(f"Number of ways to split should evenly divide the split "
                             f"dimension, but got split_dim {ax} (size = {x.shape[ax]}) and "
                             f"num_split {sizes}")
        return core_shape.split(x, sizes, ax)
    sizes = list(sizes)
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = x.shape[ax] - (sum(sizes) + 1)
    if sum(sizes) != x.shape[ax] or min(sizes, default=0) < 0:
        raise ShapeError(f"Determined shape must either match input shape along split_dim "
                         f"exactly if fully specified, or be less than the size of the input "
                         f"along split_dim if not fully specified. Got: {sum(sizes)}")
    return core_shape.split(x, list(np.cumsum(sizes[:-1])), ax)


def _squeeze(input, axis=None, name=None):  # noqa: A002
    x = tensor(input)
    dims = axes(axis, x.ndim)
    if dims is not None and any(x.shape[a] != 1 for a in dims):
        raise ShapeError(f"Can not squeeze dim of shape {x.shape} at {dims}")
    return core_shape.squeeze(x, dims)


def _tile(input, multiples, name=None):  # noqa: A002
    x = tensor(input)
    reps = _shape_arg(multiples)
    if len(reps) != x.ndim:
        raise ShapeError(f"Expected multiples argument to be a vector of length {x.ndim} but "
                         f"got length {len(reps)}")
    return rearrange.tile(x, reps)


def _pad(tensor_, paddings, mode="CONSTANT", constant_values=0, name=None):
    x = tensor(tensor_)
    widths = host_value(paddings)
    if widths.shape != (x.ndim, 2):
        raise ShapeError(f"The first dimension of paddings must be the rank of inputs "
                         f"{x.ndim}, got paddings of shape {widths.shape}")
    kind = mode.lower()
    if kind not in ("constant", "reflect", "symmetric"):
        raise ValueError(f"Value of argument `mode` expected to be one of \"CONSTANT\", "
                         f"\"REFLECT\", or \"SYMMETRIC\". Received `mode` = {mode}")
    fill = tensor(constant_values, x.dtype) if kind == "constant" else 0
    return padding.pad(x, widths.tolist(), kind, fill)


def host_indices(indices) -> np.ndarray | None:
    """The values of an ``indices`` argument when the host knows them (Python
    ints and lists, numpy arrays, eager tf.Tensors), else None (a lazy array,
    whose values a recorded op cannot see: out-of-range entries clamp)."""
    if isinstance(indices, ndarray) or (isinstance(indices, (list, tuple))
                                        and _dispatch.holds_lazy(indices)):
        return None
    if _tf.is_tf_value(indices):
        return np.asarray(_tf.eager_value(indices))
    if isinstance(indices, (int, np.integer, list, tuple, np.ndarray)):
        host = np.asarray(indices)
        return host if host.dtype.kind in "iu" else None
    return None


def _out_of_range(message: str):
    """TensorFlow's CPU kernels refuse out-of-range indices with an
    InvalidArgumentError (a core clamp or drop would be a silent answer)."""
    return _tf.tf().errors.InvalidArgumentError(None, None, message)


def check_gather(host: np.ndarray | None, size: int, op: str) -> None:
    """GatherV2's rule: every index in [0, size)."""
    if host is None:
        return
    bad = np.argwhere((host < 0) | (host >= size))
    if len(bad):
        where = "".join(f"[{','.join(map(str, bad[0]))}]") if host.ndim else ""
        raise _out_of_range(f"indices{where} = {host[tuple(bad[0])]} is not in [0, {size}) "
                            f"[Op:{op}]")


def check_nd(host: np.ndarray | None, shape: tuple[int, ...], op: str,
             batch_dims: int = 0) -> None:
    """GatherNd / ScatterNd's rule: each index row (the last axis) inside
    ``shape`` after the batch dims."""
    if host is None or host.ndim == 0:
        return
    dims = np.asarray(shape[batch_dims:batch_dims + host.shape[-1]], dtype=np.int64)
    rows = host.reshape(-1, host.shape[-1])
    if rows.shape[-1] > len(dims):
        return  # the core reports the depth mismatch
    bad = np.flatnonzero(((rows < 0) | (rows >= dims)).any(axis=-1))
    if len(bad):
        position = ",".join(map(str, np.unravel_index(bad[0], host.shape[:-1])))
        row = ", ".join(map(str, rows[bad[0]]))
        raise _out_of_range(f"indices[{position}] = [{row}] does not index into shape "
                            f"{list(shape)} [Op:{op}]")


def _gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """The core's gather along ``axis`` with the first ``batch_dims`` dims of
    params and indices paired; out-of-range host indices raise as
    TensorFlow's CPU kernel, lazy ones clamp."""
    x, idx = tensor(params), check(tensor(indices), INT, "GatherV2")
    b = host_int(batch_dims)
    b = b + idx.ndim if b < 0 else b
    a = caxes.normalize_axis(b if axis is None else host_int(axis), x.ndim)
    if x.shape[:b] != idx.shape[:b] or a < b:
        raise ShapeError(f"gather: batch dims {b} of params {x.shape} and indices {idx.shape}")
    check_gather(host_indices(indices), x.shape[a], "GatherV2")
    return along.gather_batched(x, idx, a, b)


def _gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    x, idx = tensor(params), check(tensor(indices), INT, "GatherNd")
    b = host_int(batch_dims)
    check_nd(host_indices(indices), x.shape, "GatherNd", b)
    return along.gather_nd(x, idx, b)


def scatter_nd(kind: str):
    """tf.tensor_scatter_nd_{update,add,sub,max,min}: the core's scatter_nd
    (``sub`` adds the negated updates, as TensorFlow's kernel subtracts)."""
    def impl(tensor_, indices, updates, name=None, bad_indices_policy=""):
        x, idx = tensor(tensor_), check(tensor(indices), INT, "TensorScatter")
        upd = tensor(updates, x.dtype)
        if upd.dtype != x.dtype:
            raise DTypeError(f"tensor_scatter: updates of {upd.dtype.name} into {x.dtype.name}")
        check_nd(host_indices(indices), x.shape, "TensorScatter")
        if kind == "sub":
            return along.scatter_nd(x, idx, make(Op.NEG, (upd,)), "add")
        return along.scatter_nd(x, idx, upd, kind)

    return impl


def _where(condition, x=None, y=None, name=None):
    cond = check(tensor(condition), BOOL, "SelectV2") if x is not None else tensor(condition)
    if x is None and y is None:  # coordinates of the true elements: read back (a barrier)
        mask = wrap(make(Op.NE, (cond, ew.zeros_like(cond)))).numpy()
        return get_runtime().from_host(np.argwhere(mask).astype(np.int64)).node
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    a, b = operands(x, y, op="SelectV2", strict=True)
    shape = ew.broadcast_shapes(cond.shape, a.shape, b.shape)
    return _select(*(ew.broadcast_to(n, shape) for n in (cond, a, b)))


def _one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    idx = check(tensor(indices), INT, "OneHot")
    given = [v for v in (on_value, off_value) if v is not None]
    out = dtype_arg(dtype) or (natural_dtype(given[0]) if given else dt.float32)
    on = tensor(1 if on_value is None else on_value, out)
    off = tensor(0 if off_value is None else off_value, out)
    n = host_int(depth)
    ax = idx.ndim if axis is None or axis == -1 else host_int(axis)
    return layers.one_hot(idx, n, ax, on, off)


def _range(start, limit=None, delta=1, dtype=None, name="range"):
    """tf.range: Python ints int32, floats float32, tensors their dtype (read
    back); computed in the widest of them, then cast to ``dtype``."""
    args = [v for v in (start, limit, delta) if v is not None]
    inferred = max((natural_dtype(v) for v in args),
                   key=lambda d: ("biufc".index(dt.category(d)), d.itemsize))

    def host(v):
        return host_value(v).astype(inferred)[()]

    stop = None if limit is None else host(limit)
    if dt.is_float(inferred):
        out = _tf_float_range(host(start), stop, host(delta), [inferred] * len(args))
    else:
        lo, hi = (0, host(start)) if stop is None else (host(start), stop)
        out = creation.arange(int(lo), int(hi), int(host(delta)), inferred)
    return ew.convert(out, dtype_arg(dtype) or inferred)


def _eye(num_rows, num_columns=None, batch_shape=None, dtype=None, name=None):
    """tf.eye with sizes that are tensors (``tf.eye(tf.shape(x)[0])``; read
    back), float32 unless ``dtype`` says otherwise; ``batch_shape`` leads."""
    rows = host_int(num_rows)
    columns = rows if num_columns is None else host_int(num_columns)
    if not isinstance(rows, int) or not isinstance(columns, int) or rows < 0 or columns < 0:
        raise ShapeError(f"Arguments `num_rows` and `num_columns` must be non-negative "
                         f"scalars. Received: num_rows={rows}, num_columns={columns}")
    out = creation.eye(rows, columns, 0, dtype_arg(dtype) or dt.float32)
    batch = () if batch_shape is None else _shape_arg(batch_shape)
    return ew.broadcast_to(out, (*batch, rows, columns)) if batch else out


def _fill(dims, value, name=None, layout=None):
    return ew.broadcast_to(tensor(value), _shape_arg(dims))


def _like(fill: int):
    def impl(input, dtype=None, name=None, layout=None):  # noqa: A002
        x = tensor(input)
        return ew.full(x.shape, fill, dtype_arg(dtype) or x.dtype)

    return impl


def _reverse(tensor_, axis, name=None):
    x = tensor(tensor_)
    return rearrange.flip(x, tuple(caxes.normalize_axes(host_int(axis), x.ndim)))


def _shape_of(value: int | tuple, out_type) -> Node:
    out = dtype_arg(out_type) or dt.int32
    return get_runtime().from_host(np.asarray(value, out)).node


def _stop_gradient(input, name=None):  # noqa: A002
    """The same values with no gradient: while a tape records, a float
    tensor is ``detach``ed, so the tape's graph has no differentiable path
    through it."""
    x = tensor(input)
    return x if RECORDING.active is None else detach(x)


def _bitcast(input, type, name=None):  # noqa: A002  (TensorFlow's names)
    """The same bits as ``type`` (StableHLO's bitcast_convert): equal widths
    keep the shape, a narrower ``type`` adds a last axis of the width ratio,
    a wider one consumes a last axis of that size. bool, complex and a last
    axis that does not fit go to TensorFlow (its InvalidArgumentError)."""
    x, to = tensor(input), dtype_arg(type)
    if any(d == dt.bool_ or dt.is_complex(d) for d in (x.dtype, to)):
        raise NotImplementedError("bitcast of bool or complex")  # -> eager TensorFlow
    if to.itemsize > x.dtype.itemsize and (
            not x.shape or x.shape[-1] * x.dtype.itemsize != to.itemsize):
        raise NotImplementedError("bitcast to a wider type without a fitting last axis")
    return make(Op.BITCAST_CONVERT, (x,), to)


def _direction(direction: str) -> bool:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"`direction` should be one of {{'ASCENDING', 'DESCENDING'}}. "
                         f"Received: direction={direction}")
    return direction == "DESCENDING"


def _sort(values, axis=-1, direction="ASCENDING", name=None):
    x = check(tensor(values), REAL, "sort")
    return sorting.sort(x, host_int(axis), _direction(direction))


def _argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    x = check(tensor(values), REAL, "argsort")
    return sorting.argsort(x, host_int(axis), _direction(direction), dt.int32)


def _boolean_mask(tensor_, mask, axis=None, name="boolean_mask"):
    """The mask is read back (the result's size depends on it, a barrier);
    the mask's dims (from ``axis``) are flattened and the kept rows taken."""
    x, m = tensor(tensor_), tensor(mask)
    if not dt.is_bool(m.dtype):
        raise DTypeError(f"boolean_mask: mask must be bool, got {m.dtype.name}")
    ax = 0 if axis is None else caxes.normalize_axis(host_int(axis), x.ndim)
    if x.shape[ax:ax + m.ndim] != m.shape:
        raise ValueError(f"Shapes {x.shape[ax:ax + m.ndim]} and {m.shape} are incompatible")
    keep = np.flatnonzero(wrap(m).numpy())
    x = tensor(tensor_)  # after the barrier: buffers read before may be donated
    flat = core_shape.reshape(x, x.shape[:ax] + (-1,) + x.shape[ax + m.ndim:])
    return take(flat, get_runtime().from_host(keep.astype(np.int64)).node, ax, "clip")


def _linspace(start, stop, num, name=None, axis=0):
    """Float start/stop keep their dtype; integers compute in float64."""
    lo, hi = operands(start, stop, op="LinSpace", first=True)
    out = lo.dtype if dt.is_inexact(lo.dtype) else dt.float64
    return creation.linspace(ew.convert(lo, out), ew.convert(hi, out), host_int(num), True,
                             False, out, host_int(axis), out)



def _slice(input_, begin, size, name=None):
    """``size`` -1 takes the rest of an axis."""
    x = tensor(input_)
    starts, sizes = _shape_arg(begin), _shape_arg(size)
    if len(starts) != x.ndim or len(sizes) != x.ndim:
        raise ShapeError(f"Expected begin and size arguments to be 1-D tensors of size "
                         f"{x.ndim}, but got shapes {len(starts)} and {len(sizes)} instead.")
    stops = tuple(n if k == -1 else b + k for b, k, n in zip(starts, sizes, x.shape, strict=True))
    if any(not 0 <= b <= e <= n for b, e, n in zip(starts, stops, x.shape, strict=True)):
        raise ShapeError(f"slice: begin {starts} and size {sizes} out of bounds for {x.shape}")
    return make(Op.SLICE, (x,), starts, stops, (1,) * x.ndim)


def _strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                   new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """tf.strided_slice as the Python index its arguments spell: bit i of
    begin_mask / end_mask drops that bound of entry i; bit i of
    ellipsis_mask, new_axis_mask or shrink_axis_mask makes entry i ``...``,
    ``None`` or the single index ``begin[i]`` (in that order of precedence)."""
    x = tensor(input_)
    starts, stops = _shape_arg(begin), _shape_arg(end)
    steps = (1,) * len(starts) if strides is None else _shape_arg(strides)
    if not len(starts) == len(stops) == len(steps):
        raise ShapeError(f"Expected begin, end, and strides to be 1D equal size tensors, but got "
                         f"shapes [{len(starts)}], [{len(stops)}], and [{len(steps)}] instead.")
    if 0 in steps:
        raise ShapeError("strides[i] must be non-zero")
    index = []
    for i, (b, e, s) in enumerate(zip(starts, stops, steps, strict=True)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(b)
        else:
            index.append(slice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return indexing.getitem(x, tuple(index))


def _scatter_nd_new(indices, updates, shape, bad_indices_policy="", name=None):
    """Updates summed into zeros of ``shape`` (duplicates add, as TensorFlow's)."""
    upd = tensor(updates)
    return scatter_nd("add")(ew.full(_shape_arg(shape), 0, upd.dtype), indices, upd)


def _repeat(input, repeats, axis=None, name=None):  # noqa: A002
    return rearrange.repeat(tensor(input), host_int(repeats),
                            None if axis is None else host_int(axis))


def _searchsorted(sorted_sequence, values, side="left", out_type=None, name=None):
    seq, v = operands(sorted_sequence, values, op="SearchSorted", strict=True)
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = '{side}'.")
    found = along.searchsorted(seq, v, right=side == "right")
    return ew.convert(found, dtype_arg(out_type) or dt.int32)

def _reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """Each batch entry's first ``seq_lengths[b]`` elements along ``seq_axis``
    reversed: one gather with an index built on the host (the lengths are
    read back, a barrier when lazy, and checked as TensorFlow's kernel)."""
    x = tensor(input)
    if seq_axis is None or x.ndim < 2:
        raise NotImplementedError("reverse_sequence without seq_axis")  # TensorFlow's own
    seq, batch = host_int(seq_axis) % x.ndim, host_int(batch_axis or 0) % x.ndim
    lengths = np.asarray(_tf.host_value(seq_lengths))
    if lengths.dtype.kind not in "iu":
        raise DTypeError(f"Value for attr 'Tlen' of {lengths.dtype.name} is not in the list of "
                         f"allowed values: int32, int64")
    message = None
    if seq == batch:
        message = f"batch_dim == seq_dim == {seq}"
    elif lengths.shape != (x.shape[batch],):
        message = f"Length of seq_lengths != input.dims({batch}), ({lengths.size} vs. " \
                  f"{x.shape[batch]})"
    elif (lengths > x.shape[seq]).any():
        message = f"seq_lens({np.argmax(lengths > x.shape[seq])}) > input.dims({seq})"
    elif (lengths < 0).any():
        message = f"seq_lens({np.argmax(lengths < 0)}) < 0"
    if message:
        raise _out_of_range(f"{message} [Op:ReverseSequence]")
    steps = np.arange(x.shape[seq])
    index = np.where(steps < lengths[:, None], lengths[:, None] - 1 - steps, steps)
    shape = [1] * x.ndim
    shape[batch], shape[seq] = index.shape
    index = (index if batch < seq else index.T).reshape(shape)
    full = core_shape.broadcast_to(tensor(index.astype(np.int64)), x.shape)
    return take_along_axis(x, full, seq)


APIS = {
    "reshape": _reshape, "transpose": _transpose, "concat": _concat, "stack": _stack,
    "unstack": _unstack, "split": _split,
    "expand_dims": lambda input, axis, name=None: core_shape.expand_dims(  # noqa: A006
        tensor(input), host_int(axis)),
    "squeeze": _squeeze, "tile": _tile, "pad": _pad, "gather": _gather,
    "gather_nd": _gather_nd, "where": _where, "one_hot": _one_hot, "range": _range,
    "zeros_like": _like(0), "ones_like": _like(1), "fill": _fill, "eye": _eye,
    "broadcast_to": lambda input, shape, name=None: core_shape.broadcast_to(  # noqa: A006
        tensor(input), _shape_arg(shape)),
    "reverse": _reverse,
    "roll": lambda input, shift, axis, name=None: rearrange.roll(  # noqa: A006
        tensor(input), host_int(shift), host_int(axis)),
    "shape": lambda input, out_type=None, name=None: _shape_of(  # noqa: A006
        tensor(input).shape, out_type),
    "size": lambda input, out_type=None, name=None: _shape_of(  # noqa: A006
        math.prod(tensor(input).shape), out_type),
    "rank": lambda input, name=None: _shape_of(tensor(input).ndim, None),  # noqa: A006
    # the v1 forms TensorFlow's own Python composites call (tf.image.psnr, ssim)
    "compat.v1.size": lambda input, name=None, out_type=None: _shape_of(  # noqa: A006
        math.prod(tensor(input).shape), out_type),
    "compat.v1.shape": lambda input, name=None, out_type=None: _shape_of(  # noqa: A006
        tensor(input).shape, out_type),
    "shape_n": lambda input, out_type=None, name=None: [  # noqa: A006
        _shape_of(tensor(x).shape, out_type) for x in input],
    "identity": lambda input, name=None: tensor(input),  # noqa: A006
    "stop_gradient": _stop_gradient, "sort": _sort, "argsort": _argsort,
    "boolean_mask": _boolean_mask, "tensor_scatter_nd_update": scatter_nd("set"),
    "tensor_scatter_nd_add": scatter_nd("add"), "tensor_scatter_nd_sub": scatter_nd("sub"),
    "tensor_scatter_nd_max": scatter_nd("max"), "tensor_scatter_nd_min": scatter_nd("min"),
    "linspace": _linspace, "slice": _slice, "strided_slice": _strided_slice,
    "scatter_nd": _scatter_nd_new, "repeat": _repeat, "searchsorted": _searchsorted,
    "reverse_sequence": _reverse_sequence, "bitcast": _bitcast,
}


__all__ = ["APIS"]
