"""``tf.math``, ``tf.bitwise`` and TensorFlow's top-level array ops on lazy
arrays (the table ``APIS``; see ``lazytensor.tf.tf_api``).

Only TensorFlow's own choices live here: which dtypes an op accepts (its
kernel's type list: ``tf.math.sin`` refuses int32 with InvalidArgumentError),
how its operands are converted (``_dispatch.operands``), TensorFlow's
argument conventions (``axis=None`` of argmax is 0, ``exclusive`` and
``reverse`` cumulative sums, integer ``reduce_mean`` dividing in integers)
and its result dtypes (argsort and shape give int32). The arithmetic is the
core's composites, shared with tnp (``lazytensor.tf.numpy``), whose
node-level helpers (TensorFlow's gradients under a tape, true division)
are reused. These APIs follow TensorFlow's rules in both of tnp's modes:
numpy behaviour changes tf.Tensor's operators, not ``tf.math`` (except
``tf.math.divide``, which is the ``/`` operator).
"""

from __future__ import annotations

import collections
import math

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite import creation, npextra, pointwise, rearrange, reduction, sorting
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite import shape as core_shape
from lazytensor.core.composite.ufuncs import UFUNCS, conj
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make
from lazytensor.core.runtime import get_runtime
from lazytensor.tf import _tf
from lazytensor.tf._array import RECORDING, wrap
from lazytensor.tf.numpy import _math as tnp_math
from lazytensor.tf.numpy._arrays import _tf_float_range
from lazytensor.tf.tf_api._dispatch import (
    broadcast,
    dtype_arg,
    host_int,
    is_tensor,
    natural_dtype,
    operands,
    tensor,
)

# kernel type lists, by dtype category (dt.category): what TensorFlow accepts
FLOAT, INEXACT, REAL = "f", "fc", "iuf"
NUMBER, INT, BOOL, ANY = "iufc", "iu", "b", "biufc"


def _check(node: Node, kinds: str, api: str) -> Node:
    """``node`` when its dtype is in ``kinds``, else TensorFlow's error."""
    if dt.category(node.dtype) not in kinds:
        raise DTypeError(f"Value for attr 'T' of {node.dtype.name} is not in the list of "
                         f"allowed values for {api}")
    return node


def _const(value, like: Node) -> Node:
    return npextra.const(value, like)


def _select(pred: Node, a: Node, b: Node) -> Node:
    return make(Op.SELECT, (pred, a, b))


# -------------------------------------------------------------- elementwise

def _unary(fn, kinds: str):
    def impl(x, name=None):
        return fn(_check(tensor(x), kinds, impl.__name__))

    return impl


def _prim(op: Op):
    return lambda x: make(op, (x,))


def _round(x: Node) -> Node:
    return make(Op.ROUND_EVEN, (x,)) if dt.is_inexact(x.dtype) else x


def _imag(x: Node) -> Node:
    return make(Op.IMAG, (x,)) if dt.is_complex(x.dtype) else ew.zeros_like(x)


def _reciprocal(x: Node) -> Node:
    return make(Op.DIV, (_const(1, x), x))


UNARY = {  # tf.math name: (node function, kernel dtypes)
    **{name: (_prim(op), INEXACT) for name, op in (
        ("sqrt", Op.SQRT), ("rsqrt", Op.RSQRT), ("exp", Op.EXP), ("expm1", Op.EXPM1),
        ("log", Op.LOG), ("log1p", Op.LOG1P), ("sin", Op.SIN), ("cos", Op.COS),
        ("tan", Op.TAN), ("asin", Op.ASIN), ("acos", Op.ACOS), ("atan", Op.ATAN),
        ("sinh", Op.SINH), ("cosh", Op.COSH), ("tanh", Op.TANH), ("asinh", Op.ASINH),
        ("acosh", Op.ACOSH), ("atanh", Op.ATANH))},
    **{name: (_prim(op), FLOAT) for name, op in (
        ("floor", Op.FLOOR), ("ceil", Op.CEIL), ("rint", Op.ROUND_EVEN), ("erf", Op.ERF),
        ("erfc", Op.ERFC), ("erfinv", Op.ERF_INV), ("lgamma", Op.LGAMMA),
        ("digamma", Op.DIGAMMA), ("bessel_i0e", Op.BESSEL_I0E),
        ("bessel_i1e", Op.BESSEL_I1E))},
    "abs": (tnp_math._abs, NUMBER), "negative": (_prim(Op.NEG), NUMBER),
    "sign": (npextra.sign, NUMBER), "square": (npextra.square, NUMBER),
    "reciprocal": (_reciprocal, INEXACT), "round": (_round, REAL),
    "ndtri": (pointwise.ndtri, FLOAT),
    "is_finite": (npextra.isfinite, FLOAT), "is_nan": (npextra.isnan, FLOAT),
    "is_inf": (npextra.isinf, FLOAT), "logical_not": (_prim(Op.NOT), BOOL),
    "real": (lambda x: make(Op.REAL, (x,)) if dt.is_complex(x.dtype) else x, NUMBER),
    "imag": (_imag, NUMBER), "conj": (conj, NUMBER), "angle": (tnp_math._angle, INEXACT),
}
BITWISE_UNARY = {"invert": (_prim(Op.NOT), INT)}


def _binary(fn, kinds: str, strict: bool = True, first: bool = False):
    """A TensorFlow binary op: operands converted and broadcast by TF's
    rules, checked against the kernel's dtypes, then ``fn``."""
    def impl(x, y, name=None):
        a, b = broadcast(x, y, op=impl.__name__, first=first, strict=strict)
        return fn(_check(a, kinds, impl.__name__), b)

    return impl


def _truncatediv(a: Node, b: Node) -> Node:
    """C division: integers truncate; floats trunc(a / b)."""
    out = make(Op.DIV, (a, b))
    return npextra.trunc(out) if dt.is_float(a.dtype) else out


def _squared_difference(a: Node, b: Node) -> Node:
    d = make(Op.SUB, (a, b))
    return make(Op.MUL, (d, conj(d)))


def _unless_zero(test_of, fn):
    """0 where ``test_of(x, y)`` is zero, else fn(x, y) (xdivy, div_no_nan...)."""
    def impl(a: Node, b: Node) -> Node:
        out = fn(a, b)
        zero = _const(0, out)
        return _select(make(Op.EQ, (ew.convert(test_of(a, b), out.dtype), zero)), zero, out)

    return impl


def _div(a: Node, b: Node) -> Node:
    return make(Op.DIV, (a, b))


def _mul(a: Node, b: Node) -> Node:
    return make(Op.MUL, (a, b))


def _power(a: Node, b: Node) -> Node:
    return UFUNCS["power"].fn(a, b)


def _logical_xor(a: Node, b: Node) -> Node:
    return make(Op.XOR, (a, b))


BINARY = {  # API path: (node function, kernel dtypes); TF's TypeError on a misfit value
    "math.subtract": (lambda a, b: make(Op.SUB, (a, b)), NUMBER),
    "math.multiply": (_mul, NUMBER), "math.pow": (_power, NUMBER),
    "math.maximum": (tnp_math._maximum, REAL), "math.minimum": (tnp_math._minimum, REAL),
    "math.floordiv": (npextra.floor_divide, REAL), "math.floormod": (npextra.remainder, REAL),
    "truncatediv": (_truncatediv, REAL), "truncatemod": (lambda a, b: make(Op.REM, (a, b)), REAL),
    "math.squared_difference": (_squared_difference, NUMBER),
    "math.equal": (lambda a, b: make(Op.EQ, (a, b)), ANY),
    "math.not_equal": (lambda a, b: make(Op.NE, (a, b)), ANY),
    "math.less": (lambda a, b: make(Op.LT, (a, b)), REAL),
    "math.less_equal": (lambda a, b: make(Op.LE, (a, b)), REAL),
    "math.greater": (lambda a, b: make(Op.GT, (a, b)), REAL),
    "math.greater_equal": (lambda a, b: make(Op.GE, (a, b)), REAL),
    "math.atan2": (lambda y, x: make(Op.ATAN2, (y, x)), FLOAT),
    "math.xlogy": (pointwise.xlogy, INEXACT),
    "math.xdivy": (_unless_zero(lambda a, b: a, _div), INEXACT),
    "math.multiply_no_nan": (_unless_zero(lambda a, b: b, _mul), INEXACT),
    "math.igamma": (lambda a, x: make(Op.IGAMMA, (a, x)), FLOAT),
    "math.igammac": (lambda a, x: make(Op.IGAMMAC, (a, x)), FLOAT),
    "math.zeta": (lambda x, q: make(Op.ZETA, (x, q)), FLOAT),
    "math.nextafter": (lambda a, b: make(Op.NEXTAFTER, (a, b)), FLOAT),
    "math.logical_and": (lambda a, b: make(Op.AND, (a, b)), BOOL),
    "math.logical_or": (lambda a, b: make(Op.OR, (a, b)), BOOL),
    "math.logical_xor": (_logical_xor, BOOL),
    "bitwise.bitwise_and": (lambda a, b: make(Op.AND, (a, b)), INT),
    "bitwise.bitwise_or": (lambda a, b: make(Op.OR, (a, b)), INT),
    "bitwise.bitwise_xor": (lambda a, b: make(Op.XOR, (a, b)), INT),
    "bitwise.left_shift": (lambda a, b: make(Op.SHIFT_LEFT, (a, b)), INT),
    "bitwise.right_shift": (npextra.right_shift, INT),
}


def _add(x, y, name=None):
    """tf.math.add converts x, then y with x's dtype as a hint only."""
    a, b = broadcast(x, y, op="AddV2", first=True)
    return make(Op.ADD, (_check(a, NUMBER, "AddV2"), b))


def _truediv_of(a: Node, b: Node) -> Node:
    if dt.is_bool(a.dtype):
        raise TypeError(f"Invalid dtype {a.dtype.name} in __truediv__")
    return tnp_math._true_divide(a, b)


def _truediv(x, y, name=None):
    """Integers in float32 (8/16 bit) or float64; x and y of one dtype
    (TypeError otherwise, as TensorFlow's Python check)."""
    a, b = (tensor(x), tensor(y, natural_dtype(x)))
    if a.dtype != b.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {a.dtype.name} != "
                        f"{b.dtype.name}.")
    return _truediv_of(*ew.coerce([a, b], a.dtype))


def _divide(x, y, name=None):
    """``x / y``: a non-tensor x takes y's dtype; then the ``/`` operator,
    which promotes as numpy under tnp's numpy behaviour (else truediv)."""
    if not is_tensor(x):
        x = tensor(x, natural_dtype(y) if is_tensor(y) else None)
    if not _tf.numpy_behavior():
        return _truediv(x, y)
    return _truediv_of(*tnp_math.promoted(x, y))


def _div_no_nan(x, y, name=None):
    a, b = broadcast(x, y, op="DivNoNan", strict=True)
    out = _truediv_of(a, b)
    zero = _const(0, out)
    return _select(make(Op.EQ, (ew.convert(b, out.dtype), zero)), zero, out)


def _scalar_mul(scalar, x, name=None):
    a, b = broadcast(x, scalar, op="Mul", strict=True)
    return make(Op.MUL, (b, a))


def _add_n(inputs, name=None):
    nodes = operands(*inputs, op="AddN")
    if len({n.shape for n in nodes}) > 1:
        raise ShapeError(f"AddN: inputs must have one shape, got {[n.shape for n in nodes]}")
    total = nodes[0]
    for node in nodes[1:]:
        total = make(Op.ADD, (total, node))
    return total


def _cast(x, dtype, name=None):
    return ew.convert(tensor(x), dtype_arg(dtype))


def _saturate_cast(value, dtype, name=None):
    """Clamp into ``dtype``'s range (where the input's is wider), then cast."""
    x, target = tensor(value), dtype_arg(dtype)
    if dt.is_inexact(target) or dt.is_bool(target) or dt.is_complex(x.dtype):
        return ew.convert(x, target)
    info = dt.iinfo(target)
    source = dt.finfo(x.dtype) if dt.is_float(x.dtype) else dt.iinfo(x.dtype)
    if source.min < info.min:
        x = make(Op.MAX, (x, _const(info.min, x)))
    if source.max > info.max:
        hi = np.asarray(info.max).astype(x.dtype)
        if dt.is_float(x.dtype) and hi > info.max:  # int64 max rounds up in floats
            hi = np.nextafter(hi, x.dtype.type(0))
        x = make(Op.MIN, (x, _const(hi.item(), x)))
    return ew.convert(x, target)


def _clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """min(t, hi), then max(., lo) (TensorFlow's order and gradient); the
    bounds may not grow t's shape."""
    x, lo, hi = operands(t, clip_value_min, clip_value_max, op="ClipByValue", strict=True)
    shape = ew.broadcast_shapes(x.shape, lo.shape, hi.shape)
    if shape != x.shape:
        raise ShapeError(f"clip_by_value: bounds of shape {lo.shape}/{hi.shape} broadcast "
                         f"t {x.shape} to {shape}")
    lo, hi = ew.broadcast_to(lo, shape), ew.broadcast_to(hi, shape)
    return tnp_math._maximum(tnp_math._minimum(x, hi), lo)


# --------------------------------------------------------------- reductions

def _axes(axis, ndim: int) -> tuple[int, ...] | None:
    axis = host_int(axis)
    return None if axis is None else reduction.normalize_axes(axis, ndim)


def _reducer(kind: str, kinds: str):
    def impl(input_tensor, axis=None, keepdims=False, name=None):
        x = _check(tensor(input_tensor), kinds, impl.__name__)
        return reduction.reduce(kind, x, _axes(axis, x.ndim), bool(keepdims))

    return impl


def _reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Integers divide in integers (TensorFlow's Mean kernel)."""
    x = _check(tensor(input_tensor), NUMBER, "reduce_mean")
    axes = _axes(axis, x.ndim)
    if dt.is_inexact(x.dtype):
        return reduction.mean(x, axes, bool(keepdims))
    total = reduction.reduce("sum", x, axes, bool(keepdims))
    count = reduction.count(x, reduction.normalize_axes(axes, x.ndim))
    return make(Op.DIV, (total, _const(max(count, 1), total)))


def _moment(std: bool):
    def impl(input_tensor, axis=None, keepdims=False, name=None):
        x = tensor(input_tensor)
        if not dt.is_inexact(x.dtype):
            raise TypeError(f"Input must be either real or complex. Received integer type "
                            f"{x.dtype.name}.")
        fn = reduction.std if std else reduction.var
        return fn(x, _axes(axis, x.ndim), bool(keepdims))

    return impl


def _reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    x = _check(tensor(input_tensor), FLOAT, "reduce_logsumexp")
    return reduction.logsumexp(x, _axes(axis, x.ndim), bool(keepdims))


def _euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(|x|^2)); integers take the truncated root, as TensorFlow's."""
    x = _check(tensor(input_tensor), NUMBER, "reduce_euclidean_norm")
    work = x if dt.is_inexact(x.dtype) else ew.convert(x, dt.float64)
    squares = make(Op.MUL, (work, conj(work)))
    out = make(Op.SQRT, (reduction.reduce("sum", squares, _axes(axis, x.ndim), bool(keepdims)),))
    return out if dt.is_inexact(x.dtype) else ew.convert(make(Op.FLOOR, (out,)), x.dtype)


def _argreduce(kind: str):
    def impl(input, axis=None, output_type=None, name=None):  # noqa: A002  (TF's names)
        x = _check(tensor(input), REAL, kind)
        out = dtype_arg(output_type) or dt.int64
        return reduction.argreduce(kind, x, 0 if axis is None else host_int(axis), False, out)

    return impl


def _scan(op: Op, identity):
    """TF's cumulative ops: ``exclusive`` shifts in the identity, ``reverse``
    runs from the end."""
    def impl(x, axis=0, exclusive=False, reverse=False, name=None):
        node = _check(tensor(x), FLOAT if op is Op.CUMLOGSUMEXP else NUMBER, op.name)
        ax = reduction.normalize_axis(host_int(axis), node.ndim)
        out = make(op, (node,), ax, bool(reverse))
        n = node.shape[ax]
        if exclusive and n:
            edge = ew.full(node.shape[:ax] + (1,) + node.shape[ax + 1:], identity, node.dtype)
            kept = core_shape.slice_axis(out, ax, *((1, n) if reverse else (0, n - 1)))
            out = core_shape.concatenate([kept, edge] if reverse else [edge, kept], ax)
        return out

    return impl


def _count_nonzero(input, axis=None, keepdims=None, dtype=None, name=None):  # noqa: A002
    x = tensor(input)
    nonzero = make(Op.NE, (x, _const(0, x)))
    return reduction.reduce("sum", nonzero, _axes(axis, x.ndim), bool(keepdims),
                            dtype_arg(dtype) or dt.int64)


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def _top_k(input, k=1, sorted=True, index_type=None, name=None):  # noqa: A002
    x = _check(tensor(input), REAL, "TopKV2")
    values, indices = sorting.top_k(x, host_int(k), -1, True, dtype_arg(index_type) or dt.int32)
    return TopKV2(values, indices)


def _unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    x, ids = tensor(data), tensor(segment_ids)
    n = host_int(num_segments)
    out = ew.full((n,) + x.shape[ids.ndim:], 0, x.dtype)
    coords = core_shape.reshape(ew.convert(ids, dt.int64), ids.shape + (1,))
    window = tuple(range(ids.ndim, x.ndim))
    return make(Op.SCATTER, (out, coords, x), window, (0,), (0,), (), (), "add", "fill")


def _segment_sum(data, segment_ids, name=None):
    """The segment count is the largest id + 1: read back (a barrier)."""
    ids = tensor(segment_ids)
    top = reduction.reduce("max", ids) if ids.shape[0] else None
    n = 0 if top is None else int(wrap(top).numpy()) + 1
    return _unsorted_segment_sum(data, ids, n)


# ----------------------------------------------------------------- array ops

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
    ax = reduction.normalize_axis(host_int(axis), x.ndim)
    if num is not None and num != x.shape[ax]:
        raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return [core_shape.squeeze(core_shape.slice_axis(x, ax, i, i + 1), ax)
            for i in range(x.shape[ax])]


def _split(value, num_or_size_splits, axis=0, num=None, name="split"):
    x = tensor(value)
    ax = reduction.normalize_axis(host_int(axis), x.ndim)
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
    axes = _axes(axis, x.ndim)
    if axes is not None and any(x.shape[a] != 1 for a in axes):
        raise ShapeError(f"Can not squeeze dim of shape {x.shape} at {axes}")
    return core_shape.squeeze(x, axes)


def _tile(input, multiples, name=None):  # noqa: A002
    x = tensor(input)
    reps = _shape_arg(multiples)
    if len(reps) != x.ndim:
        raise ShapeError(f"Expected multiples argument to be a vector of length {x.ndim} but "
                         f"got length {len(reps)}")
    return rearrange.tile(x, reps)


def _pad(tensor_, paddings, mode="CONSTANT", constant_values=0, name=None):
    x = tensor(tensor_)
    widths = np.asarray(paddings.numpy() if hasattr(paddings, "numpy") else paddings)
    if widths.shape != (x.ndim, 2):
        raise ShapeError(f"The first dimension of paddings must be the rank of inputs "
                         f"{x.ndim}, got paddings of shape {widths.shape}")
    kind = mode.lower()
    if kind not in ("constant", "reflect", "symmetric"):
        raise ValueError(f"Value of argument `mode` expected to be one of \"CONSTANT\", "
                         f"\"REFLECT\", or \"SYMMETRIC\". Received `mode` = {mode}")
    fill = tensor(constant_values, x.dtype) if kind == "constant" else 0
    return rearrange.pad(x, widths.tolist(), kind, fill)


def _gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """lax.gather along ``axis`` with the first ``batch_dims`` dims of params
    and indices paired (StableHLO batching dims); out-of-range indices clamp
    (TensorFlow raises on CPU)."""
    x, idx = tensor(params), _check(tensor(indices), INT, "GatherV2")
    b = host_int(batch_dims)
    b = b + idx.ndim if b < 0 else b
    a = reduction.normalize_axis(b if axis is None else host_int(axis), x.ndim)
    if x.shape[:b] != idx.shape[:b] or a < b:
        raise ShapeError(f"gather: batch dims {b} of params {x.shape} and indices {idx.shape}")
    coords = core_shape.reshape(idx, idx.shape + (1,))
    rank = x.ndim - 1 - b + idx.ndim
    offsets = tuple(range(b, a)) + tuple(range(a + idx.ndim - b, rank))
    sizes = tuple(1 if d == a or d < b else s for d, s in enumerate(x.shape))
    batch = tuple(range(b))
    return make(Op.GATHER, (x, coords), offsets, (a,), (a,), batch, batch, sizes, "clip")


def _gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    x, idx = tensor(params), _check(tensor(indices), INT, "GatherNd")
    b, k = host_int(batch_dims), idx.shape[-1]
    dims = tuple(range(b, b + k))
    sizes = tuple(1 if d < b + k else s for d, s in enumerate(x.shape))
    rank = idx.ndim - 1 + x.ndim - b - k
    batch = tuple(range(b))
    return make(Op.GATHER, (x, idx), tuple(range(idx.ndim - 1, rank)), dims, dims, batch, batch,
                sizes, "clip")


def _scatter_nd(kind: str):
    def impl(tensor_, indices, updates, name=None, bad_indices_policy=""):
        x, idx = tensor(tensor_), _check(tensor(indices), INT, "TensorScatter")
        upd = tensor(updates, x.dtype)
        if upd.dtype != x.dtype:
            raise DTypeError(f"tensor_scatter: updates of {upd.dtype.name} into {x.dtype.name}")
        k = idx.shape[-1]
        window = tuple(range(idx.ndim - 1, upd.ndim))
        return make(Op.SCATTER, (x, idx, upd), window, tuple(range(k)), tuple(range(k)), (), (),
                    kind, "fill")

    return impl


def _where(condition, x=None, y=None, name=None):
    cond = _check(tensor(condition), BOOL, "SelectV2") if x is not None else tensor(condition)
    if x is None and y is None:  # coordinates of the true elements: read back (a barrier)
        mask = wrap(make(Op.NE, (cond, _const(0, cond)))).numpy()
        return get_runtime().from_host(np.argwhere(mask).astype(np.int64)).node
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    a, b = operands(x, y, op="SelectV2", strict=True)
    shape = ew.broadcast_shapes(cond.shape, a.shape, b.shape)
    return _select(*(ew.broadcast_to(n, shape) for n in (cond, a, b)))


def _one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    idx = _check(tensor(indices), INT, "OneHot")
    given = [v for v in (on_value, off_value) if v is not None]
    out = dtype_arg(dtype) or (natural_dtype(given[0]) if given else dt.float32)
    on = tensor(1 if on_value is None else on_value, out)
    off = tensor(0 if off_value is None else off_value, out)
    n = host_int(depth)
    ax = idx.ndim if axis is None or axis == -1 else host_int(axis)
    shape = idx.shape[:ax] + (n,) + idx.shape[ax:]
    hot = make(Op.EQ, (ew.broadcast_to(core_shape.expand_dims(ew.convert(idx, dt.int64), ax),
                                       shape), creation.iota(shape, ax, dt.int64)))
    return _select(hot, ew.broadcast_to(on, shape), ew.broadcast_to(off, shape))


def _range(start, limit=None, delta=1, dtype=None, name="range"):
    """tf.range: Python ints int32, floats float32, tensors their dtype (read
    back); computed in the widest of them, then cast to ``dtype``."""
    args = [v for v in (start, limit, delta) if v is not None]
    inferred = max((natural_dtype(v) for v in args),
                   key=lambda d: ("biufc".index(dt.category(d)), d.itemsize))

    def host(v):
        return np.asarray(v.numpy() if hasattr(v, "numpy") else v).astype(inferred)[()]

    stop = None if limit is None else host(limit)
    if dt.is_float(inferred):
        out = _tf_float_range(host(start), stop, host(delta), [inferred] * len(args))
    else:
        lo, hi = (0, host(start)) if stop is None else (host(start), stop)
        out = creation.arange(int(lo), int(hi), int(host(delta)), inferred)
    return ew.convert(out, dtype_arg(dtype) or inferred)


def _fill(dims, value, name=None, layout=None):
    return ew.broadcast_to(tensor(value), _shape_arg(dims))


def _like(fill: int):
    def impl(input, dtype=None, name=None, layout=None):  # noqa: A002
        x = tensor(input)
        return ew.full(x.shape, fill, dtype_arg(dtype) or x.dtype)

    return impl


def _reverse(tensor_, axis, name=None):
    x = tensor(tensor_)
    return rearrange.flip(x, tuple(reduction.normalize_axes(host_int(axis), x.ndim)))


def _shape_of(value: int | tuple, out_type) -> Node:
    out = dtype_arg(out_type) or dt.int32
    return get_runtime().from_host(np.asarray(value, out)).node


def _stop_gradient(input, name=None):  # noqa: A002
    """The same values with no gradient: while a tape records, a float
    tensor passes a bit-cast round trip (whose derivative is zero), so the
    tape's graph has no differentiable path through it."""
    x = tensor(input)
    if RECORDING.active is None or not dt.is_inexact(x.dtype):
        return x
    if dt.is_complex(x.dtype):
        parts = [_stop_gradient(make(op, (x,))) for op in (Op.REAL, Op.IMAG)]
        return make(Op.COMPLEX, tuple(parts))
    bits = {2: dt.int16, 4: dt.int32, 8: dt.int64}[x.dtype.itemsize]
    return make(Op.BITCAST_CONVERT, (make(Op.BITCAST_CONVERT, (x,), bits),), x.dtype)


def _direction(direction: str) -> bool:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"`direction` should be one of {{'ASCENDING', 'DESCENDING'}}. "
                         f"Received: direction={direction}")
    return direction == "DESCENDING"


def _sort(values, axis=-1, direction="ASCENDING", name=None):
    x = _check(tensor(values), REAL, "sort")
    return sorting.sort(x, host_int(axis), _direction(direction))


def _argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    x = _check(tensor(values), REAL, "argsort")
    return sorting.argsort(x, host_int(axis), _direction(direction), dt.int32)


def _boolean_mask(tensor_, mask, axis=None, name="boolean_mask"):
    """The mask is read back (the result's size depends on it, a barrier);
    the mask's dims (from ``axis``) are flattened and the kept rows taken."""
    x, m = tensor(tensor_), tensor(mask)
    if not dt.is_bool(m.dtype):
        raise DTypeError(f"boolean_mask: mask must be bool, got {m.dtype.name}")
    ax = 0 if axis is None else reduction.normalize_axis(host_int(axis), x.ndim)
    if x.shape[ax:ax + m.ndim] != m.shape:
        raise ValueError(f"Shapes {x.shape[ax:ax + m.ndim]} and {m.shape} are incompatible")
    keep = np.flatnonzero(wrap(m).numpy())
    flat = core_shape.reshape(x, x.shape[:ax] + (-1,) + x.shape[ax + m.ndim:])
    rows = get_runtime().from_host(keep.astype(np.int64)).node
    return make(Op.GATHER, (flat, core_shape.reshape(rows, (keep.size, 1))),
                tuple(d for d in range(flat.ndim) if d != ax), (ax,), (ax,), (), (),
                tuple(1 if d == ax else s for d, s in enumerate(flat.shape)), "clip")


def _linspace(start, stop, num, name=None, axis=0):
    """Float start/stop keep their dtype; integers compute in float64."""
    lo, hi = operands(start, stop, op="LinSpace", first=True)
    out = lo.dtype if dt.is_inexact(lo.dtype) else dt.float64
    return creation.linspace(ew.convert(lo, out), ew.convert(hi, out), host_int(num), True,
                             False, out, host_int(axis), out)


ARRAYS = {
    "reshape": _reshape, "transpose": _transpose, "concat": _concat, "stack": _stack,
    "unstack": _unstack, "split": _split,
    "expand_dims": lambda input, axis, name=None: core_shape.expand_dims(  # noqa: A006
        tensor(input), host_int(axis)),
    "squeeze": _squeeze, "tile": _tile, "pad": _pad, "gather": _gather,
    "gather_nd": _gather_nd, "where": _where, "one_hot": _one_hot, "range": _range,
    "zeros_like": _like(0), "ones_like": _like(1), "fill": _fill,
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
    "identity": lambda input, name=None: tensor(input),  # noqa: A006
    "stop_gradient": _stop_gradient, "sort": _sort, "argsort": _argsort,
    "boolean_mask": _boolean_mask, "tensor_scatter_nd_update": _scatter_nd("set"),
    "tensor_scatter_nd_add": _scatter_nd("add"), "linspace": _linspace,
}

APIS = {
    **{f"math.{name}": _unary(fn, kinds) for name, (fn, kinds) in UNARY.items()},
    **{f"bitwise.{name}": _unary(fn, kinds) for name, (fn, kinds) in BITWISE_UNARY.items()},
    **{path: _binary(fn, kinds) for path, (fn, kinds) in BINARY.items()},
    "math.add": _add, "math.truediv": _truediv, "math.divide": _divide,
    "math.divide_no_nan": _div_no_nan, "math.scalar_mul": _scalar_mul, "math.add_n": _add_n,
    "cast": _cast, "dtypes.saturate_cast": _saturate_cast, "clip_by_value": _clip_by_value,
    **{f"math.reduce_{kind}": _reducer(kind, kinds) for kind, kinds in (
        ("sum", NUMBER), ("prod", NUMBER), ("max", REAL), ("min", REAL), ("all", BOOL),
        ("any", BOOL))},
    "math.reduce_mean": _reduce_mean, "math.reduce_std": _moment(True),
    "math.reduce_variance": _moment(False), "math.reduce_logsumexp": _reduce_logsumexp,
    "math.reduce_euclidean_norm": _euclidean_norm,
    "math.argmax": _argreduce("argmax"), "math.argmin": _argreduce("argmin"),
    "math.cumsum": _scan(Op.CUMSUM, 0), "math.cumprod": _scan(Op.CUMPROD, 1),
    "math.cumulative_logsumexp": _scan(Op.CUMLOGSUMEXP, -math.inf),
    "math.count_nonzero": _count_nonzero, "math.top_k": _top_k,
    "math.unsorted_segment_sum": _unsorted_segment_sum, "math.segment_sum": _segment_sum,
    **ARRAYS,
}

__all__ = ["APIS"]
