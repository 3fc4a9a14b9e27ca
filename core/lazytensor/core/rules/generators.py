"""Generators (iota, random numbers from explicit keys), sorting, top-k,
linear-algebra factorizations and the multi-output projection."""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, register
from lazytensor.core.rules.common import check_axes

KEY_SHAPE = (2,)  # raw threefry keys: uint32[2]


def _iota(operands, attrs):
    dtype, shape, dimension = attrs
    check_axes(Op.IOTA, (dimension,), len(shape))
    return tuple(shape), dtype


def _check_key(op: Op, key) -> None:
    if key.shape != KEY_SHAPE or key.dtype != dt.uint32:
        raise DTypeError(f"{op.name}: key must be uint32{list(KEY_SHAPE)}, "
                         f"got {key.dtype}{key.shape}")


def _rng(op: Op):
    def rule(operands, attrs):
        (key,), (shape, dtype) = operands, attrs
        _check_key(op, key)
        return tuple(shape), dtype

    return rule


def _rng_fold(operands, attrs):
    key, data = operands
    _check_key(Op.RNG_FOLD, key)
    if data.shape != () or not dt.is_int(data.dtype):
        raise DTypeError("RNG_FOLD: data must be an integer scalar")
    return KEY_SHAPE, dt.uint32


def _sort(operands, attrs):
    (x,), (axis, _descending, _stable) = operands, attrs
    check_axes(Op.SORT, (axis,), x.ndim)
    return x.shape, x.dtype


def _argsort(operands, attrs):
    (x,), (axis, _descending, _stable, index_dtype) = operands, attrs
    check_axes(Op.ARGSORT, (axis,), x.ndim)
    return x.shape, index_dtype


def _top_k(operands, attrs):
    (x,), (k,) = operands, attrs
    if x.ndim < 1 or not 0 <= k <= x.shape[-1]:
        raise ShapeError(f"TOP_K: k={k} out of range for {x.shape}")
    shape = x.shape[:-1] + (k,)
    return (shape, shape), (x.dtype, dt.int32)


def _square(op: Op, x) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"{op.name}: expected (..., n, n) matrices, got {x.shape}")
    if not dt.is_inexact(x.dtype):
        raise DTypeError(f"{op.name}: expected floating matrices, got {x.dtype}")


def _cholesky(operands, attrs):
    (x,) = operands
    _square(Op.CHOLESKY, x)
    return x.shape, x.dtype


def _triangular_solve(operands, attrs):
    a, b = operands
    _square(Op.TRIANGULAR_SOLVE, a)
    return b.shape, b.dtype


def _eigh(operands, attrs):
    (x,) = operands
    _square(Op.EIGH, x)
    return (x.shape, x.shape[:-1]), (x.dtype, dt.real_dtype(x.dtype))


def _qr(operands, attrs):
    (x,), (full,) = operands, attrs
    *batch, m, n = x.shape
    k = m if full else min(m, n)
    return ((*batch, m, k), (*batch, k, n)), (x.dtype, x.dtype)


def _svd(operands, attrs):
    (x,), (full,) = operands, attrs
    *batch, m, n = x.shape
    k = min(m, n)
    u = (*batch, m, m if full else k)
    vt = (*batch, n if full else k, n)
    return (u, (*batch, k), vt), (x.dtype, dt.real_dtype(x.dtype), x.dtype)


def _lu(operands, attrs):
    (x,) = operands
    *batch, m, n = x.shape
    k = min(m, n)
    return (x.shape, (*batch, k), (*batch, m)), (x.dtype, dt.int32, dt.int32)


def _lu_pivots_to_permutation(operands, attrs):
    (pivots,), (size,) = operands, attrs
    if pivots.ndim < 1 or not dt.is_int(pivots.dtype) or size < pivots.shape[-1]:
        raise ShapeError(f"LU_PIVOTS_TO_PERMUTATION: pivots {pivots.shape} {pivots.dtype} "
                         f"for a permutation of size {size}")
    return (*pivots.shape[:-1], size), pivots.dtype


def _ctc_alpha(operands, attrs):
    emit, skip, lengths = operands
    if (emit.ndim != 3 or not dt.is_float(emit.dtype) or skip.shape != emit.shape[1:]
            or skip.dtype != dt.bool_ or lengths.shape != emit.shape[1:2]
            or not dt.is_int(lengths.dtype)):
        raise ShapeError(f"CTC_ALPHA: expected float (T, N, L) emissions, bool (N, L) skips "
                         f"and int (N,) lengths, got {emit.dtype}{list(emit.shape)}, "
                         f"{skip.dtype}{list(skip.shape)}, {lengths.dtype}{list(lengths.shape)}")
    return emit.shape, emit.dtype


def _tuple_get(operands, attrs):
    (x,), (index,) = operands, attrs
    if not (x.shape and isinstance(x.shape[0], tuple)):
        raise ShapeError("TUPLE_GET: operand is not a multi-output node")
    return x.shape[index], x.dtype[index]


register(Op.IOTA, 0, ("dtype", "shape", "dimension"), _iota)
for _op in (Op.RNG_UNIFORM, Op.RNG_NORMAL, Op.RNG_BITS):
    register(_op, 1, ("shape", "dtype"), _rng(_op))
register(Op.RNG_FOLD, 2, (), _rng_fold)
register(Op.SORT, 1, ("dimension", "descending", "is_stable"), _sort)
register(Op.ARGSORT, 1, ("dimension", "descending", "is_stable", "index_dtype"), _argsort)
register(Op.TOP_K, 1, ("k",), _top_k)
register(Op.CHOLESKY, 1, (), _cholesky)
register(Op.TRIANGULAR_SOLVE, 2, ("left_side", "lower", "transpose_a", "unit_diagonal"),
         _triangular_solve)
register(Op.EIGH, 1, (), _eigh)
register(Op.QR, 1, ("full_matrices",), _qr)
register(Op.SVD, 1, ("full_matrices",), _svd)
register(Op.LU, 1, (), _lu)
register(Op.LU_PIVOTS_TO_PERMUTATION, 1, ("permutation_size",), _lu_pivots_to_permutation)
register(Op.CTC_ALPHA, 3, (), _ctc_alpha)
register(Op.TUPLE_GET, 1, ("index",), _tuple_get)
