"""tnp's array functions (creation, shape, joins and splits, rearranging,
matrices) as a table over the core's composites. What is here is tnp's own:
argument conventions and default dtypes (``ones(dtype=None)`` is float32,
``linspace`` takes its dtype from its end points, ``tri`` is float64...).
"""

from __future__ import annotations

import math

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation import arrays as creation
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.promotion import TNP, result_type
from lazytensor.core.composite.indexing import take
from lazytensor.core.composite.indexing import take as ctake
from lazytensor.core.composite.linalg import einsum, matrix
from lazytensor.core.composite.movement import padding as padding
from lazytensor.core.composite.movement import rearrange
from lazytensor.core.composite.movement import shape as core_shape
from lazytensor.core.composite.reduce.numerics import vander
from lazytensor.core.composite.sorting import sort as sorting
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make
from lazytensor.tf import _tf
from lazytensor.tf._array import lift, ndarray, node_of, operand, weak_joined, wrap
from lazytensor.tf.numpy._lower import float_of, promoted, same_dtype


def _dtype(dtype, default=None):
    return _tf.as_np_dtype(dtype, default)


def _shape_arg(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if isinstance(shape, float) or (isinstance(shape, (list, tuple))
                                    and any(isinstance(s, float) for s in shape)):
        # tnp converts the shape to an int32 tensor: a Python float is refused
        raise TypeError(f"Cannot convert {shape!r} to EagerTensor of dtype int32")
    return tuple(int(s) for s in _tf.host_value(shape).ravel())


def _value_dtype(a) -> np.dtype:
    """tnp's result_type_unary(a): an array's dtype, a Python scalar's default."""
    return node_of(a).dtype


# ---------------------------------------------------------------- creation

def _zeros(shape, dtype=float):
    return creation.zeros(_shape_arg(shape), _dtype(dtype, _tf.default_float()))


def _ones(shape, dtype=float):
    if dtype is None:  # tnp hands None on to tf.ones, which refuses it
        raise TypeError("Cannot convert the argument `type_value`: None to a TensorFlow DType.")
    return creation.ones(_shape_arg(shape), _dtype(dtype))


def _like(value: int):
    def impl(a, dtype=None):
        return creation.full(node_of(a).shape, value, _dtype(dtype) or _value_dtype(a))

    return impl


def _full(shape, fill_value, dtype=None):
    fill = lift(fill_value, _dtype(dtype))
    return core_shape.broadcast_to(fill, _shape_arg(shape) or ())


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    x = node_of(a)
    return core_shape.broadcast_to(lift(fill_value, _dtype(dtype) or x.dtype), x.shape)


def _eye(N, M=None, k=0, dtype=float):  # noqa: N803  (tnp's names)
    return creation.eye(int(N), int(M) if M else int(N), int(k), _dtype(dtype, dt.float32))


def _identity(n, dtype=float):
    return _eye(n, n, 0, dtype)


def _same(a, dtype) -> bool:
    """``a`` is a lazy array that tnp would return itself for (no cast asked)."""
    return isinstance(a, ndarray) and (dtype is None or _dtype(dtype) == a._node().dtype)


def _asarray(a, dtype=None):
    return a if _same(a, dtype) else lift(a, _dtype(dtype))


def _array(val, dtype=None, copy=True, ndmin=0):
    if not copy and _same(val, dtype) and ndmin <= val.ndim:
        return val
    x = lift(val, _dtype(dtype))
    return core_shape.reshape(x, (1,) * (ndmin - x.ndim) + x.shape) if ndmin > x.ndim else x


def _arange(start, stop=None, step=1, dtype=None):
    if not step:
        raise ValueError("step must be non-zero.")
    if dtype is None:
        values = (start, step) if stop is None else (start, step, stop)
        dtype = ew.promote(TNP, *(operand(v) for v in values))
    if dt.is_complex(_dtype(dtype)):  # tf.range has no complex kernel: tnp casts a float64 range
        return ew.convert(_arange(start, stop, step, np.float64), _dtype(dtype))
    own = _range_dtypes(start, stop, step)
    if own is not None and any(d.kind == "f" for d in own):
        return ew.convert(_tf_float_range(start, stop, step, own), _dtype(dtype))
    return creation.arange(start, stop, step, _dtype(dtype), wrap=True)  # (wraps, as tf.cast)


def _size(x, axis=None):
    if axis is not None:
        raise NotImplementedError(
            "axis argument is not supported in the current `np.size` implementation")
    return np.int64(core_shape.size(node_of(x)))


def _range_dtypes(*values) -> list[np.dtype] | None:
    """The dtypes tf.range (which tnp's arange calls before casting) gives
    its host-scalar arguments: Python ints int32, Python floats float32,
    numpy scalars their own. None for other arguments."""
    found = []
    for v in values:
        if type(v) is float:
            found.append(dt.float32)
        elif type(v) is int:
            found.append(dt.int32)
        elif isinstance(v, (np.integer, np.floating)):
            found.append(np.dtype(type(v)))
        elif v is not None:
            return None
    return found


def _tf_float_range(start, stop, step, own: list[np.dtype]) -> Node:
    """tf.range over floats: each argument rounded to its own dtype, then
    ``ceil(|stop - start| / step)`` values ``start + i * step`` in the widest
    float dtype (tnp's ``arange(0, 1, 0.1)`` carries float32 rounding even
    when cast to float64)."""
    compute = max((d for d in own if d.kind == "f"), key=lambda d: d.itemsize)
    args = [v for v in (start, stop, step) if v is not None]
    rounded = [np.asarray(v, d).astype(compute) for v, d in zip(args, own, strict=True)]
    first, last, delta = rounded if stop is not None else (compute.type(0), *rounded)
    if (delta > 0 and first > last) or (delta < 0 and first < last):
        return creation.zeros((0,), compute)
    n = int(np.ceil(np.abs((last - first) / delta)))
    steps = make(Op.MUL, (creation.iota((n,), 0, compute), creation.const(float(delta), compute,
                                                                          (n,))))
    return make(Op.ADD, (steps, creation.const(float(first), compute, (n,))))


def _end_points_dtype(start, stop) -> np.dtype:
    """tnp (numpy 2): result_type([start * 1.0, stop * 1.0])."""
    kinds = [operand(start * 1.0), operand(stop * 1.0)]
    if any(isinstance(k, Node) for k in kinds):
        return ew.promote(TNP, *kinds)
    default = _tf.default_float()  # Python numbers: complex ones make it complex
    return np.result_type(default, np.complex64) if complex in map(type, kinds) else default


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    if num < 0:
        raise ValueError(f"Argument `num` (number of samples) must be a non-negative integer. "
                         f"Received: num={num}")
    out_dtype = _end_points_dtype(start, stop) if dtype else None
    compute = out_dtype if out_dtype is not None and dt.is_inexact(out_dtype) else dt.float64
    return creation.linspace(_end(start, compute), _end(stop, compute), int(num), endpoint,
                             retstep, out_dtype, axis, compute)


def _end(value, dtype: np.dtype):
    """An end point: Python numbers as they are, arrays (lazy, numpy, tf) as nodes."""
    return value if type(value) in (int, float, complex, bool) else ew.convert(lift(value), dtype)


def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    out = _end_points_dtype(start, stop)
    return creation.logspace(_end(start, out), _end(stop, out), int(num), endpoint, base, out,
                             axis, out)


def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    kinds = [ew.weak_type(v) if isinstance(v, (int, float)) else node_of(v).dtype
             for v in (start, stop)]
    num_kind = dt.float32 if _tf.prefer_float32() else float
    out = _dtype(dtype) or result_type(TNP, *kinds, num_kind, _tf.default_float())
    compute = np.promote_types(out, dt.float32)
    if all(type(v) in (int, float) for v in (start, stop)):
        result = creation.geomspace(float(start), float(stop), int(num), endpoint, out, compute)
        return core_shape.moveaxis(result, 0, axis) if axis else result
    return _geomspace_arrays(_end(start, compute), _end(stop, compute), int(num), endpoint,
                             out, axis, compute)


def _geomspace_arrays(start, stop, num, endpoint, out, axis, compute):
    """geomspace of array end points (tnp's): a base-10 logspace between
    log10(|start|) and log10(|stop|) (signs taken from start), the end samples
    set to the end points exactly, the sample axis moved to ``axis``."""
    lo, hi = core_shape.broadcast_arrays(*(v if isinstance(v, Node) else ew.as_node(v, compute)
                                           for v in (start, stop)))
    zero = ew.as_node(0, compute, lo.shape)
    sign = make(Op.SELECT, (make(Op.LT, (lo, zero)), ew.as_node(-1, compute, lo.shape),
                            ew.as_node(1, compute, lo.shape)))
    lo, hi = make(Op.MUL, (lo, sign)), make(Op.MUL, (hi, sign))
    y = creation.logspace(_log10(lo), _log10(hi), num, endpoint, 10.0, compute, 0, compute)
    if num > 0:
        rows = [core_shape.reshape(lo, (1, *lo.shape))]
        end = num - 1 if endpoint and num > 1 else num
        if end > 1:
            rows.append(make(Op.SLICE, (y,), (1,) + (0,) * lo.ndim, (end, *lo.shape),
                             (1,) * y.ndim))
        if end < num:
            rows.append(core_shape.reshape(hi, (1, *hi.shape)))
        y = make(Op.CONCATENATE, tuple(rows), 0) if len(rows) > 1 else rows[0]
    y = make(Op.MUL, (y, core_shape.broadcast_to(sign, y.shape)))
    y = core_shape.moveaxis(y, 0, axis) if y.ndim > 1 and axis else y
    return ew.convert(y, out)


def _log10(x):
    return make(Op.DIV, (make(Op.LOG, (x,)), ew.as_node(math.log(10.0), x.dtype, x.shape)))


def _tri(N, M=None, k=0, dtype=None):  # noqa: N803
    return creation.tri(int(N), None if M is None else int(M), int(k), _dtype(dtype, dt.float64))


def _meshgrid(*xi, **kwargs):
    """tnp's meshgrid is TensorFlow's: grid i is ``x_i * ones(dtype of x_0)``,
    so it promotes ``x_i`` with the first input's dtype (tf's Mul: without
    numpy behaviour, differing dtypes are an error)."""
    for flag, refused in (("sparse", True), ("copy", False)):
        if kwargs.get(flag, not refused) == refused:
            raise ValueError(f"Function `meshgrid` does not support {flag}={refused}")
    nodes = [node_of(x) for x in xi]
    if nodes:
        first = nodes[0].dtype
        if not _tf.numpy_behavior() and any(n.dtype != first for n in nodes):
            raise _tf.tf().errors.InvalidArgumentError(
                None, None, f"meshgrid: inputs of dtypes {[n.dtype.name for n in nodes]} "
                            f"(TensorFlow's Mul needs one dtype)")
        nodes = [ew.convert(n, result_type(TNP, n.dtype, first)) for n in nodes]
    return creation.meshgrid(*nodes, indexing=kwargs.get("indexing", "xy"))


def _vander(x, N=None, increasing=False):  # noqa: N803
    return vander(node_of(x), None if N is None else int(N), increasing, by_powers=True)


def _diag_indices(n, ndim=2):
    if n < 0 or ndim < 0:
        raise ValueError(f"n and ndim arguments to diag_indices must be nonnegative, got {n}")
    return (creation.arange(0, int(n), 1, dt.int32),) * ndim


CREATION = {
    "zeros": _zeros, "empty": _zeros, "ones": _ones, "zeros_like": _like(0),
    "empty_like": _like(0), "ones_like": _like(1), "full": _full, "full_like": _full_like,
    "eye": _eye, "identity": _identity, "asarray": _asarray, "asanyarray": _asarray,
    "array": _array, "ascontiguousarray": lambda a, dtype=None: _array(a, dtype, ndmin=1),
    "copy": lambda a: node_of(a), "arange": _arange, "linspace": _linspace,
    "logspace": _logspace, "geomspace": _geomspace, "tri": _tri, "meshgrid": _meshgrid,
    "vander": _vander, "diag_indices": _diag_indices,
}


# ------------------------------------------------------------------- shape

def _reshape(a, newshape, order="C"):
    if order not in ("C", "F"):
        raise ValueError(f"Unsupported order argument {order}")
    x = node_of(a)
    if order == "C":
        return core_shape.reshape(x, _shape_arg(newshape))
    # Fortran order, as tnp does it: reverse the axes, reshape to the reversed
    # shape in C order, reverse back
    shape = core_shape.reshape(x, _shape_arg(newshape)).shape  # resolves -1
    flipped = core_shape.reshape(core_shape.transpose(x, tuple(reversed(range(x.ndim)))),
                                 shape[::-1])
    return core_shape.transpose(flipped, tuple(reversed(range(len(shape)))))


def _atleast(n: int):
    fn = {1: core_shape.atleast_1d, 2: core_shape.atleast_2d, 3: core_shape.atleast_3d}[n]

    def impl(*arys):
        out = [fn(node_of(a)) for a in arys]
        return out[0] if len(out) == 1 else out

    return impl


def _nodes(arrays) -> list[Node]:
    return [node_of(a) for a in arrays]


def _concatenate(arys, axis=0):
    if not isinstance(arys, (list, tuple)):
        arys = [arys]
    if not arys:
        raise ValueError(f"Need at least one array to concatenate. Received empty input: "
                         f"arys={arys}")
    return core_shape.concatenate(weak_joined(arys), axis, None, TNP)


def _stack(arrays, axis=0):
    if hasattr(arrays, "_node"):
        x = arrays._node()
        return x if axis == 0 else core_shape.swapaxes(x, 0, axis)
    return core_shape.stack(weak_joined(arrays), axis, None, TNP)


def _joiner(fn):  # hstack/vstack/dstack: tnp makes each input an array first
    return lambda tup: fn(_nodes(tup), None, TNP)


def _sections(indices_or_sections):
    if isinstance(indices_or_sections, (int, np.integer)):
        return int(indices_or_sections)
    return [int(i) for i in indices_or_sections]


def _split(ary, indices_or_sections, axis=0):
    return core_shape.split(node_of(ary), _sections(indices_or_sections), axis)


def _split_on(axis: int):
    def impl(ary, indices_or_sections):
        x = node_of(ary)
        return core_shape.split(x, _sections(indices_or_sections),
                                0 if axis == 1 and x.ndim == 1 else axis)

    return impl


def _append(arr, values, axis=None):
    if axis is None:
        return _concatenate([core_shape.ravel(node_of(arr)), core_shape.ravel(node_of(values))])
    return _concatenate([arr, values], axis)


def _broadcast_to(array, shape):
    x, shape = node_of(array), _shape_arg(shape)
    pairs = zip(x.shape[::-1], shape[::-1], strict=False)
    if x.ndim > len(shape) or any(a not in (1, b) for a, b in pairs):
        raise _tf.tf().errors.InvalidArgumentError(
            None, None, f"Unable to broadcast tensor of shape [{','.join(map(str, x.shape))}] "
                        f"to tensor of shape [{','.join(map(str, shape))}]")
    return core_shape.broadcast_to(x, shape)


def _broadcast_arrays(*args, **kwargs):
    return core_shape.broadcast_arrays(*_nodes(args))


def _flatten(a, order="C"):
    return core_shape.ravel(node_of(a))


def _transpose(a, axes=None):
    return core_shape.transpose(node_of(a), None if axes is None else _shape_arg(axes))


SHAPE = {
    "reshape": _reshape, "ravel": lambda a: core_shape.ravel(node_of(a)), "flatten": _flatten,
    "expand_dims": lambda a, axis: core_shape.expand_dims(node_of(a), axis),
    "squeeze": lambda a, axis=None: core_shape.squeeze(node_of(a), axis),
    "transpose": _transpose,
    "swapaxes": lambda a, axis1, axis2: core_shape.swapaxes(node_of(a), axis1, axis2),
    "moveaxis": lambda a, source, destination: core_shape.moveaxis(node_of(a), source,
                                                                   destination),
    "broadcast_to": _broadcast_to, "broadcast_arrays": _broadcast_arrays,
    "atleast_1d": _atleast(1), "atleast_2d": _atleast(2), "atleast_3d": _atleast(3),
    "concatenate": _concatenate, "stack": _stack, "hstack": _joiner(core_shape.hstack),
    "vstack": _joiner(core_shape.vstack), "dstack": _joiner(core_shape.dstack),
    "split": _split, "vsplit": _split_on(0), "hsplit": _split_on(1), "dsplit": _split_on(2),
    "append": _append,
    "shape": lambda a: _tf.tf().TensorShape(node_of(a).shape),
    "ndim": lambda a: node_of(a).ndim, "size": _size,
    "isscalar": lambda num: node_of(num).ndim == 0,
}


# ------------------------------------------------------------- rearranging

def _flip(m, axis=None):
    if axis is not None and not isinstance(axis, (int, np.integer)):
        raise TypeError(f"flip: axis must be an int or None, got {axis!r}")
    return rearrange.flip(node_of(m), axis)


def _pad(array, pad_width, mode, **kwargs):
    if mode not in ("constant", "reflect", "symmetric"):
        raise ValueError("Unsupported padding mode: " + mode)
    widths = _tf.host_value(pad_width)
    x = node_of(array)
    if widths.shape != (x.ndim, 2):  # tnp hands pad_width to tf.pad unchanged
        raise ShapeError(f"paddings must be a matrix with 2 columns and {x.ndim} rows, got "
                         f"shape {widths.shape}")
    return padding.pad(x, widths.tolist(), mode,
                         kwargs.get("constant_values", 0))


def _where(condition, x=None, y=None):
    if x is None and y is None:
        return _nonzero(condition)
    if x is None or y is None:
        raise ValueError("Both x and y must be ndarrays, or both must be None.")
    cond = ew.convert(node_of(condition), dt.bool_)
    a, b = promoted(x, y)
    return ew.where(cond, a, b, TNP)


def _select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    default, *choices = same_dtype(default, *choicelist)
    return ctake.select([node_of(c) for c in condlist], choices, default)


def _nonzero(a):
    """Data-dependent shape: the mask is computed lazily, then read (a barrier)."""
    x = core_shape.atleast_1d(node_of(a))
    mask = wrap(make(Op.NE, (x, ew.as_node(0, x.dtype, x.shape)))).numpy()
    return [lift(np.asarray(i, np.int64)) for i in np.nonzero(mask)]


def _compress(condition, a, axis=None):
    """The core's compress on the host condition; tnp's own ValueErrors (the
    core's ShapeError would surface as TensorFlow's InvalidArgumentError):
    its boolean_mask pads a short condition with False, refuses a long one."""
    cond = np.asarray(_nonzero_mask(condition))  # first: the read-back may donate buffers
    x = node_of(a)  # that a node taken before it reads
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array.")
    if axis is None or x.ndim == 0:
        x, axis = core_shape.ravel(x), 0
    if cond.shape[0] > x.shape[axis]:
        raise ValueError(f"Shapes ({x.shape[axis]},) and {cond.shape} are incompatible")
    return take.compress(cond, x, axis)


def _nonzero_mask(condition):
    return wrap(ew.convert(node_of(condition), dt.bool_)).numpy()


def _ix(*args):
    nodes = [node_of(a) for a in args]
    for i, x in enumerate(nodes):
        if not (dt.is_int(x.dtype) or dt.is_bool(x.dtype)) or x.ndim != 1:
            raise ValueError(f"Arguments must be 1-d integer or bool arrays, got arg {i}: "
                             f"{x.dtype}{list(x.shape)}")
    return ctake.ix(*(_nonzero(x)[0] if dt.is_bool(x.dtype) else x for x in nodes))


def _diff(a, n=1, axis=-1):
    x = node_of(a)
    if n < 0 or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"Argument `axis` (received axis={axis}) or `order` (n={n}) is out of "
                         f"bounds for input of rank {x.ndim}.")
    return sorting.diff(x, n, axis)


def _take(a, indices, axis=None, out=None, mode="clip"):
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in ("raise", "clip", "wrap"):
        raise ValueError(f"Invalid mode '{mode}' for take")
    if mode == "raise":
        raise ValueError("The 'raise' mode to take is not supported.")
    return take.take(node_of(a), _index(indices), axis, mode)


def _index(indices):
    """An index argument: a lazy array's node, else a static host array."""
    return indices._node() if hasattr(indices, "_node") else _tf.host_value(indices)


def _take_along_axis(arr, indices, axis):
    return take.take_along_axis(node_of(arr), node_of(indices), axis)


def _sort_args(kind, order, kinds):
    if kind not in kinds:
        raise ValueError(f"Invalid value for argument `kind`. Only kind in {kinds} is "
                         f"supported. Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")


def _sort(a, axis=-1, kind="quicksort", order=None):
    _sort_args(kind, order, ("quicksort",))
    return sorting.sort(node_of(a), axis)


def _argsort(a, axis=-1, kind="quicksort", order=None):
    _sort_args(kind, order, ("quicksort", "stable"))
    x = node_of(a)
    if dt.is_complex(x.dtype):
        raise TypeError(f"argsort does not support complex64/complex128 dtypes. Received "
                        f"dtype: {x.dtype}")
    if x.ndim == 0:
        return creation.zeros((1,), dt.int64)
    return sorting.argsort(x, axis, index_dtype=dt.int64)


def _einsum(subscripts, *operands, **kwargs):
    casting = kwargs.get("casting", "safe")
    if casting not in ("safe", "no"):
        raise ValueError(f"Invalid value for argument `casting`. Expected casting=\"safe\" or "
                         f"casting=\"no\". Received: casting={casting}")
    nodes = same_dtype(*operands) if casting == "safe" else [node_of(x) for x in operands]
    return einsum.einsum(subscripts, *nodes)


REARRANGE = {
    "flip": _flip, "flipud": lambda m: rearrange.flip(node_of(m), 0),
    "fliplr": lambda m: rearrange.flip(node_of(m), 1),
    "roll": lambda a, shift, axis=None: rearrange.roll(node_of(a), shift, axis),
    "rot90": lambda m, k=1, axes=(0, 1): rearrange.rot90(node_of(m), k, axes),
    "tile": lambda a, reps: rearrange.tile(node_of(a), reps),
    "repeat": lambda a, repeats, axis=None: rearrange.repeat(node_of(a), repeats, axis),
    "pad": _pad, "where": _where, "select": _select, "nonzero": _nonzero,
    "compress": _compress, "ix_": _ix, "diff": _diff, "take": _take,
    "take_along_axis": _take_along_axis, "sort": _sort, "argsort": _argsort,
    "einsum": _einsum,
}


# ---------------------------------------------------------------- matrices

def _trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """tnp: tf.linalg.trace (dtype kept) for the main diagonal of the last
    two axes, else sum(diagonal) (small integers accumulate as int64)."""
    x = lift(a, _dtype(dtype))
    last_two = axis1 in (-2, x.ndim - 2) and axis2 in (-1, x.ndim - 1)
    small = dt.is_bool(x.dtype) or (dt.is_int(x.dtype) and x.dtype.itemsize < 8)
    acc = x.dtype if (offset == 0 and last_two) or dtype is not None or not small else dt.int64
    return matrix.trace(x, offset, axis1, axis2, acc)


def _diag(v, k=0):
    x = node_of(v)
    if x.ndim not in (1, 2):
        raise ValueError(f"Input to diag must be 1-d or 2-d. Received: v of rank {x.ndim}")
    return matrix.diag(x, k)


MATRIX = {
    "tril": lambda m, k=0: matrix.tril(node_of(m), k),
    "triu": lambda m, k=0: matrix.triu(node_of(m), k),
    "diag": _diag, "diagflat": lambda v, k=0: matrix.diagflat(node_of(v), k),
    "diagonal": lambda a, offset=0, axis1=0, axis2=1: matrix.diagonal(node_of(a), offset,
                                                                      axis1, axis2),
    "trace": _trace,
}

ARRAYS = {**CREATION, **SHAPE, **REARRANGE, **MATRIX}

__all__ = ["ARRAYS", "ShapeError", "float_of"]
