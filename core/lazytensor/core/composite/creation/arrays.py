"""Array creation with numpy's conventions, written only in core ops: iota
helpers, arange (numpy's length rule and fill arithmetic), linspace,
logspace, geomspace, eye/identity/tri, meshgrid, indices and full/zeros/ones.

Shapes and ranges are static Python values. Fill values given as Python
scalars become SCALAR parameters (changing them never recompiles); values
derived from shapes become constants. The result dtype is the caller's: the
frameworks differ (numpy's float64 default, torch's float32).

>>> import numpy as np
>>> arange(0, 5, 2, np.dtype("int64")).shape, eye(3, 4, 1, np.dtype("float32")).shape
((3,), (3, 4))
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement.shape import as_axes, broadcast_arrays, moveaxis, reshape
from lazytensor.core.ir import Node
from lazytensor.core.leaves import constant
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make

Scalar = bool | int | float | complex


def const(value: Scalar, dtype: np.dtype, shape: Sequence[int] = ()) -> Node:
    """A compile-time constant (hashed by value) filled to ``shape``: for
    numbers derived from static shapes, which never vary between runs."""
    node = constant(value, dtype)
    shape = tuple(shape)
    return node if shape == () else make(Op.BROADCAST_IN_DIM, (node,), shape, ())


def iota(shape: Sequence[int], axis: int = 0, dtype: np.dtype = dt.int64) -> Node:
    """0, 1, 2, ... along ``axis`` of ``shape``, repeated along the others."""
    shape = tuple(shape)
    if not shape:
        return const(0, dtype)
    return make(Op.IOTA, (), dtype, shape, axis)


def _check_shape(shape: int | Sequence[int]) -> tuple[int, ...]:
    shape = as_axes(shape)
    if any(s < 0 for s in shape):
        raise ShapeError("negative dimensions are not allowed")
    return shape


def full(shape: int | Sequence[int], value: Scalar | Node, dtype: np.dtype) -> Node:
    """An array of ``shape`` filled with ``value`` (a scalar parameter, or a
    Node broadcast to ``shape``)."""
    return ew.full(_check_shape(shape), value, dtype)


def zeros(shape: int | Sequence[int], dtype: np.dtype) -> Node:
    return full(shape, 0, dtype)


def ones(shape: int | Sequence[int], dtype: np.dtype) -> Node:
    return full(shape, 1, dtype)


def full_like(x: Node, value: Scalar | Node, dtype: np.dtype | None = None) -> Node:
    return full(x.shape, value, dtype or x.dtype)


# -------------------------------------------------------------------- ranges

def arange_length(start: Scalar, stop: Scalar, step: Scalar) -> int:
    """numpy's length rule: max(0, ceil((stop - start) / step))."""
    if step == 0:
        raise ZeroDivisionError("division by zero")
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        return max(0, -((int(start) - int(stop)) // int(step)))
    return max(0, math.ceil((stop - start) / step))


# the dtype a fill is computed in (numpy computes half precision in double)
_FILL_DTYPE = {dt.float16: dt.float64, dt.bfloat16: dt.float64}


def arange(start: Scalar, stop: Scalar | None = None, step: Scalar = 1,
           dtype: np.dtype | None = None, wrap: bool = False) -> Node:
    """numpy.arange: ``start + i * delta`` for ``i < ceil((stop - start) /
    step)``, where, as in numpy's fill, ``delta = T(start + step) - T(start)``
    in the result dtype T. Default dtype: int64 for integer arguments, else
    float64 (numpy's; other frameworks pass theirs). A start (or start +
    step) outside an integer T raises numpy's OverflowError, or with
    ``wrap`` wraps around as a C cast (torch, TensorFlow)."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) for v in (start, stop, step))
        dtype = dt.int64 if ints else dt.float64
    if not (dt.is_int(dtype) or dt.is_float(dtype)):
        raise DTypeError(f"arange: unsupported dtype {dtype}")
    n = arange_length(start, stop, step)
    fill = _FILL_DTYPE.get(dtype, dtype)
    first = _cast(_cast(start, dtype, wrap), fill) if n else 0
    delta = _cast(_cast(start + step, dtype, wrap), fill) - first if n > 1 else 1
    if dt.is_int(fill):  # numpy's fill subtracts in T: a negative step of unsigned T wraps
        delta = np.asarray(delta).astype(fill).item()
    out = iota((n,), 0, fill)
    if delta != 1:
        out = make(Op.MUL, (out, const(delta, fill, (n,))))
    if first != 0:
        out = make(Op.ADD, (out, const(first, fill, (n,))))
    return ew.convert(out, dtype)


def _cast(value: Scalar, dtype: np.dtype, wrap: bool = False) -> Scalar:
    """A Python number rounded to ``dtype`` as numpy would store it: an
    integer outside an integer dtype's range raises numpy's OverflowError
    (``wrap``: wraps around)."""
    if dt.is_int(dtype) and isinstance(value, (int, np.integer)) and not wrap:
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise OverflowError(f"Python integer {int(value)} out of bounds for {dtype}")
        return int(value)
    return np.asarray(value).astype(dtype).item() if dt.is_int(dtype) else \
        float(np.asarray(value, dtype=dtype).astype(dt.float64))


def linspace(start: Scalar | Node, stop: Scalar | Node, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: np.dtype | None = None, axis: int = 0,
             compute_dtype: np.dtype = dt.float64) -> Node | tuple[Node, Node]:
    """numpy.linspace computed as numpy does it in ``compute_dtype`` (numpy:
    ``result_type(start, stop, float)``): ``y = i * step + start`` (or
    ``i / div * delta`` when any step is 0), the last sample set to ``stop``,
    floored for integer ``dtype``. ``start``/``stop`` may be Nodes: the
    sample axis is inserted at ``axis`` of their broadcast shape."""
    if num < 0:
        raise ShapeError(f"Number of samples, {num}, must be non-negative.")
    div = num - 1 if endpoint else num
    lo, hi = broadcast_arrays(*(ew.convert(v, compute_dtype) if isinstance(v, Node)
                                else ew.as_node(v, compute_dtype) for v in (start, stop)))
    shape = (num, *lo.shape)
    delta = make(Op.SUB, (hi, lo))
    y = iota(shape, 0, compute_dtype)
    if div > 0:
        step = make(Op.DIV, (delta, const(div, compute_dtype, delta.shape)))
        y = _scale_samples(y, step, delta, div)
    else:
        step = const(math.nan, compute_dtype, delta.shape)
        y = make(Op.MUL, (y, ew.broadcast_to(delta, shape)))
    y = make(Op.ADD, (y, ew.broadcast_to(lo, shape)))
    if endpoint and num > 1:
        head = make(Op.SLICE, (y,), (0,) * len(shape), (num - 1, *lo.shape), (1,) * len(shape))
        y = make(Op.CONCATENATE, (head, reshape(hi, (1, *hi.shape))), 0)
    y = moveaxis(y, 0, axis) if lo.ndim else y
    dtype = dtype or compute_dtype
    if dt.is_int(dtype) and dt.is_float(compute_dtype):
        y = make(Op.FLOOR, (y,))
    y = ew.convert(y, dtype)
    return (y, step) if retstep else y


def _scale_samples(y: Node, step: Node, delta: Node, div: int) -> Node:
    """``y * step``, or ``y / div * delta`` when any step is 0 (numpy's rule
    for subnormal steps), decided on device."""
    shape = y.shape
    by_step = make(Op.MUL, (y, ew.broadcast_to(step, shape)))
    scaled = make(Op.DIV, (y, const(div, y.dtype, shape)))
    by_delta = make(Op.MUL, (scaled, ew.broadcast_to(delta, shape)))
    zero = make(Op.EQ, (step, const(0, step.dtype, step.shape)))
    any_zero = make(Op.REDUCE_OR, (zero,), tuple(range(zero.ndim)))
    pick = make(Op.BROADCAST_IN_DIM, (any_zero,), shape, ())
    return make(Op.SELECT, (pick, by_delta, by_step))


def logspace(start: Scalar | Node, stop: Scalar | Node, num: int = 50, endpoint: bool = True,
             base: float = 10.0, dtype: np.dtype | None = None, axis: int = 0,
             compute_dtype: np.dtype = dt.float64) -> Node:
    """``base ** linspace(start, stop, num)``, cast to ``dtype``."""
    y = linspace(start, stop, num, endpoint, axis=axis, compute_dtype=compute_dtype)
    out = make(Op.POW, (ew.as_node(base, compute_dtype, y.shape), y))
    return ew.convert(out, dtype or compute_dtype)


def geomspace(start: float, stop: float, num: int = 50, endpoint: bool = True,
              dtype: np.dtype | None = None, compute_dtype: np.dtype = dt.float64) -> Node:
    """numpy.geomspace for real Python scalars: a logspace between the
    log10 of |start| and |stop|, with the end points exact and start's sign."""
    if start == 0 or stop == 0:
        raise ShapeError("Geometric sequence cannot include zero")
    sign = -1.0 if start < 0 else 1.0
    lo, hi = start * sign, stop * sign
    log_hi = math.log10(hi) if hi > 0 else math.nan
    y = logspace(math.log10(lo), log_hi, num, endpoint, 10.0, compute_dtype,
                 compute_dtype=compute_dtype)
    if num > 0:  # the end points are exact, as in numpy
        end = num - 1 if endpoint and num > 1 else num
        pieces = [const(lo, compute_dtype, (1,)), make(Op.SLICE, (y,), (1,), (end,), (1,))]
        if end < num:
            pieces.append(const(hi, compute_dtype, (1,)))
        y = make(Op.CONCATENATE, tuple(pieces), 0)
    out = make(Op.NEG, (y,)) if sign < 0 else y
    return ew.convert(out, dtype or compute_dtype)


# ------------------------------------------------------------------ matrices

def _diagonal_offsets(n: int, m: int) -> Node:
    """col - row over an (n, m) grid (int64)."""
    return make(Op.SUB, (iota((n, m), 1), iota((n, m), 0)))


def eye(n: int, m: int | None = None, k: int = 0, dtype: np.dtype = dt.float64) -> Node:
    """Ones on the k-th diagonal of an (n, m) matrix, zeros elsewhere."""
    m = n if m is None else m
    _check_shape((n, m))
    mask = make(Op.EQ, (_diagonal_offsets(n, m), const(k, dt.int64, (n, m))))
    return ew.convert(mask, dtype)


def identity(n: int, dtype: np.dtype = dt.float64) -> Node:
    return eye(n, dtype=dtype)


def tri_mask(n: int, m: int, k: int = 0) -> Node:
    """Bool (n, m): True at and below the k-th diagonal (j <= i + k)."""
    return make(Op.LE, (_diagonal_offsets(n, m), const(k, dt.int64, (n, m))))


def tri(n: int, m: int | None = None, k: int = 0, dtype: np.dtype = dt.float64) -> Node:
    """numpy.tri: ones at and below the k-th diagonal."""
    m = n if m is None else m
    _check_shape((n, m))
    return ew.convert(tri_mask(n, m, k), dtype)


# ---------------------------------------------------------------------- grids

def meshgrid(*xs: Node, indexing: str = "xy", sparse: bool = False) -> list[Node]:
    """Coordinate arrays from 1-d coordinate vectors (numpy.meshgrid)."""
    if indexing not in ("xy", "ij"):
        raise ShapeError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xs)
    shapes = [[-1 if j == i else 1 for j in range(ndim)] for i in range(ndim)]
    if indexing == "xy" and ndim > 1:
        shapes[0][:2], shapes[1][:2] = [1, -1], [-1, 1]
    out = [reshape(x, tuple(s)) for x, s in zip(xs, shapes, strict=False)]
    return out if sparse else broadcast_arrays(*out)


def indices(dimensions: Sequence[int], dtype: np.dtype = dt.int64,
            sparse: bool = False) -> Node | tuple[Node, ...]:
    """numpy.indices: the grid of each axis' index, stacked (dense) or as
    a tuple of broadcastable arrays (sparse)."""
    dims = _check_shape(dimensions)
    n = len(dims)
    if sparse:
        return tuple(iota(tuple(d if j == i else 1 for j, d in enumerate(dims)), i, dtype)
                     for i in range(n))
    if n == 0:
        return zeros((0,), dtype)
    grids = [reshape(iota(dims, i, dtype), (1, *dims)) for i in range(n)]
    return grids[0] if n == 1 else make(Op.CONCATENATE, tuple(grids), 0)
