"""``lazytensor.numpy.linalg``: numpy.linalg on the core's factorizations
(cholesky, LU, QR, eigh, SVD, triangular solves) and reductions.

Errors that depend on the data (a singular matrix, one that is not positive
definite) cannot be raised lazily: results then hold inf/NaN, as JAX's do.
Singular vectors and eigenvectors are unique only up to sign (phase): they
may differ from LAPACK's while their products agree.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import creation as cc
from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite import matrix as cm
from lazytensor.core.composite import npextra as npx
from lazytensor.core.composite import reduction as cred
from lazytensor.core.composite import shape as cs
from lazytensor.core.composite.linalg import matmul as core_matmul
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.numpy import _math
from lazytensor.numpy._base import node_of, wrap
from lazytensor.numpy._dispatch import implements
from lazytensor.numpy._shape import diagonal, matrix_transpose, trace
from lazytensor.numpy._ufunc_table import UFUNCS

import numpy as np

LinAlgError = np.linalg.LinAlgError
__all__ = [
    "LinAlgError", "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_transpose", "multi_dot", "norm", "outer",
    "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]


class QRResult(NamedTuple):
    Q: object
    R: object


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


def linalg_implements(*names):
    return implements(*names, namespace=np.linalg)


def _float_matrix(a) -> Node:
    """``a`` as a floating (..., n, m) matrix stack (ints become float64)."""
    x = node_of(a)
    if x.ndim < 2:
        raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    return x if dt.is_inexact(x.dtype) else ew.convert(x, dt.float64)


def _square(a) -> Node:
    x = _float_matrix(a)
    if x.shape[-1] != x.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return x


def _get(node: Node, i: int) -> Node:
    return make(Op.TUPLE_GET, (node,), i)


# ----------------------------------------------------------- factorizations

@linalg_implements("cholesky")
def cholesky(a, /, *, upper=False):
    x = _square(a)
    low = make(Op.CHOLESKY, (x,))
    return wrap(_conj_t(low) if upper else low)


def _conj_t(x: Node) -> Node:
    t = cs.swapaxes(x, -1, -2)
    return make(Op.CONJ, (t,)) if dt.is_complex(t.dtype) else t


@linalg_implements("qr")
def qr(a, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    factors = make(Op.QR, (_float_matrix(a),), mode == "complete")
    q, r = wrap(_get(factors, 0)), wrap(_get(factors, 1))
    return r if mode == "r" else QRResult(q, r)


@linalg_implements("eigh")
def eigh(a, UPLO="L"):
    factors = make(Op.EIGH, (_hermitian(_square(a), UPLO),))
    return EighResult(wrap(_get(factors, 1)), wrap(_get(factors, 0)))


def _hermitian(x: Node, uplo: str) -> Node:
    """The full Hermitian matrix numpy reads from one triangle."""
    tri = cm.tril(x) if uplo == "L" else cm.triu(x)
    strict = cm.tril(x, -1) if uplo == "L" else cm.triu(x, 1)
    diag_real = make(Op.SUB, (tri, strict))
    if dt.is_complex(x.dtype):
        diag_real = make(Op.COMPLEX, (make(Op.REAL, (diag_real,)),
                                      npx.const(0.0, make(Op.REAL, (diag_real,)))))
    return make(Op.ADD, (make(Op.ADD, (strict, _conj_t(strict))), diag_real))


@linalg_implements("eigvalsh")
def eigvalsh(a, UPLO="L"):
    return eigh(a, UPLO).eigenvalues


@linalg_implements("svd")
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    factors = make(Op.SVD, (_float_matrix(a),), bool(full_matrices))
    s = wrap(_get(factors, 1))
    if not compute_uv:
        return s
    return SVDResult(wrap(_get(factors, 0)), s, wrap(_get(factors, 2)))


@linalg_implements("svdvals")
def svdvals(x, /):
    return svd(x, full_matrices=False, compute_uv=False)


# ------------------------------------------------------------------- solving

def _lu(x: Node) -> tuple[Node, Node, Node]:
    factors = make(Op.LU, (x,))
    return _get(factors, 0), _get(factors, 1), _get(factors, 2)


def _solve_nodes(a: Node, b: Node) -> Node:
    """x with a @ x = b for (..., n, n) a and (..., n, k) b (via LU)."""
    lu, _, perm = _lu(a)
    batch = cs.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    lu = ew.broadcast_to(lu, batch + lu.shape[-2:])
    b = ew.broadcast_to(b, batch + b.shape[-2:])
    perm = ew.broadcast_to(perm, batch + perm.shape[-1:])
    col = cs.reshape(ew.convert(perm, dt.int64), perm.shape + (1,))
    pb = ew.broadcast_to(col, batch + (perm.shape[-1], b.shape[-1]))
    from lazytensor.core.composite.take import take_along_axis

    b = take_along_axis(b, pb, b.ndim - 2)
    y = make(Op.TRIANGULAR_SOLVE, (lu, b), True, True, False, True)
    return make(Op.TRIANGULAR_SOLVE, (lu, y), True, False, False, False)


@linalg_implements("solve")
def solve(a, b):
    x = _square(a)
    rhs = node_of(b)
    dtype = np.result_type(x.dtype, rhs.dtype, np.float64 if not dt.is_inexact(rhs.dtype)
                           else rhs.dtype)
    x, rhs = ew.convert(x, dtype), ew.convert(rhs, dtype)
    vector = rhs.ndim == 1
    rhs = cs.reshape(rhs, rhs.shape + (1,)) if vector else rhs
    out = _solve_nodes(x, rhs)
    return wrap(cs.reshape(out, out.shape[:-1]) if vector else out)


@linalg_implements("inv")
def inv(a):
    x = _square(a)
    eye = ew.broadcast_to(cc.eye(x.shape[-1], dtype=x.dtype), x.shape)
    return wrap(_solve_nodes(x, eye))


def _det_parts(x: Node) -> tuple[Node, Node]:
    """(sign of the permutation times each diagonal entry's sign, |diag|)."""
    lu, pivots, _ = _lu(x)
    d = cm.diagonal(lu, 0, -2, -1)
    n = x.shape[-1]
    swaps = make(Op.NE, (pivots, ew.broadcast_to(cc.iota((n,), 0, pivots.dtype), pivots.shape)))
    odd = cred.reduce("sum", ew.convert(swaps, dt.int32), -1)
    odd = make(Op.REM, (odd, npx.const(2, odd)))
    parity = make(Op.SUB, (npx.const(1, odd), make(Op.MUL, (odd, npx.const(2, odd)))))
    return ew.convert(parity, x.dtype), d


@linalg_implements("det")
def det(a):
    x = _square(a)
    parity, d = _det_parts(x)
    return wrap(make(Op.MUL, (parity, cred.reduce("prod", d, -1))))


@linalg_implements("slogdet")
def slogdet(a):
    x = _square(a)
    parity, d = _det_parts(x)
    mag = make(Op.ABS, (d,))
    logabs = cred.reduce("sum", make(Op.LOG, (mag,)), -1)
    unit = make(Op.DIV, (d, ew.convert(mag, d.dtype))) if dt.is_complex(d.dtype) else \
        make(Op.SIGN, (d,))
    sign = make(Op.MUL, (parity, cred.reduce("prod", unit, -1)))
    zero = make(Op.EQ, (logabs, npx.const(-math.inf, logabs)))
    sign = make(Op.SELECT, (zero, npx.const(0, sign), sign))
    return SlogdetResult(wrap(sign), wrap(logabs))


@linalg_implements("matrix_power")
def matrix_power(a, n):
    x = node_of(a)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    n = int(n)
    if n < 0:
        x, n = inv(wrap(x))._h.node, -n
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else UFUNCS[np.matmul].fn(result, base)
        base = UFUNCS[np.matmul].fn(base, base) if n > 1 else base
        n >>= 1
    if result is None:
        return wrap(ew.broadcast_to(cc.eye(x.shape[-1], dtype=x.dtype), x.shape))
    return wrap(result)


@linalg_implements("multi_dot")
def multi_dot(arrays, *, out=None):
    result = arrays[0]
    for other in arrays[1:]:
        result = _math.dot(result, other)
    return result


# --------------------------------------------------------------------- norms

def _abs_float(x: Node) -> Node:
    x = x if dt.is_inexact(x.dtype) else ew.convert(x, dt.float64)
    return make(Op.ABS, (x,))


_VECTOR_ORDS = {
    math.inf: lambda m, axes, keep: cred.reduce("max", m, axes, keep),
    -math.inf: lambda m, axes, keep: cred.reduce("min", m, axes, keep),
    0: lambda m, axes, keep: cred.reduce(
        "sum", ew.convert(make(Op.NE, (m, npx.const(0, m))), m.dtype), axes, keep),
    1: lambda m, axes, keep: cred.reduce("sum", m, axes, keep),
}


@linalg_implements("vector_norm")
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    m = _abs_float(node_of(x))
    axes = cred.normalize_axes(axis, m.ndim)
    if ord in _VECTOR_ORDS:
        return wrap(_VECTOR_ORDS[ord](m, axes, keepdims))
    p = float(ord)
    powered = make(Op.POW, (m, npx.const(p, m)))
    total = cred.reduce("sum", powered, axes, keepdims)
    return wrap(make(Op.POW, (total, npx.const(1.0 / p, total))))


def _matrix_ord(x: Node, ord, r: int, c: int, keep: bool) -> Node:
    x = x if dt.is_inexact(x.dtype) else ew.convert(x, dt.float64)
    m = _abs_float(x)
    reduce_rows = {1: ("sum", r, "max", c), -1: ("sum", r, "min", c),
                   math.inf: ("sum", c, "max", r), -math.inf: ("sum", c, "min", r)}
    if ord in reduce_rows:
        first, a1, second, a2 = reduce_rows[ord]
        inner = cred.reduce(first, m, a1, keepdims=True)
        out = cred.reduce(second, inner, a2, keepdims=True)
        return out if keep else cs.squeeze(out, (r, c))
    if ord in ("fro", None):
        return make(Op.SQRT, (cred.reduce("sum", make(Op.MUL, (m, m)), (r, c), keep),))
    moved = cs.moveaxis(x, (r, c), (-2, -1))
    s = _get(make(Op.SVD, (moved,), False), 1)
    kinds = {"nuc": "sum", 2: "max", -2: "min"}
    if ord not in kinds:
        raise ValueError("Invalid norm order for matrices.")
    out = cred.reduce(kinds[ord], s, -1)
    if keep:
        out = cs.expand_dims(cs.expand_dims(out, min(r, c)), max(r, c))
    return out


@linalg_implements("matrix_norm")
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    m = node_of(x)
    return wrap(_matrix_ord(m, ord, m.ndim - 2, m.ndim - 1, keepdims))


@linalg_implements("norm")
def norm(x, ord=None, axis=None, keepdims=False):
    node = node_of(x)
    if axis is None and ord is None:
        m = _abs_float(node)
        return wrap(make(Op.SQRT, (cred.reduce("sum", make(Op.MUL, (m, m)), None, keepdims),)))
    axes = cred.normalize_axes(axis, node.ndim) if axis is not None else tuple(range(node.ndim))
    if isinstance(axis, tuple) and len(axis) == 2 or axis is None and node.ndim == 2:
        r, c = (cred.normalize_axis(a, node.ndim) for a in (axis or (0, 1)))
        return wrap(_matrix_ord(node, ord, r, c, keepdims))
    return vector_norm(wrap(node), axis=axes, keepdims=keepdims, ord=2 if ord is None else ord)


# ------------------------------------------------- re-exported array functions

@linalg_implements("matmul")
def matmul(x1, x2, /):
    return _math._ufuncs.call(np.matmul, (x1, x2), {})


@linalg_implements("outer")
def outer(x1, x2, /):
    return _math.outer(x1, x2)


@linalg_implements("tensordot")
def tensordot(x1, x2, /, *, axes=2):
    return _math.tensordot(x1, x2, axes)


@linalg_implements("vecdot")
def vecdot(x1, x2, /, *, axis=-1):
    a, b = node_of(x1), node_of(x2)
    a, b = cs.moveaxis(a, axis, -1), cs.moveaxis(b, axis, -1)
    return _math._ufuncs.call(np.vecdot, (wrap(a), wrap(b)), {})


@linalg_implements("cross")
def cross(x1, x2, /, *, axis=-1):
    return _math.cross(x1, x2, axis=axis)


_ = (core_matmul, diagonal, matrix_transpose, trace)  # re-exported names


def __getattr__(name: str):
    """numpy.linalg names without a lazy version run eagerly (warned, counted)."""
    target = getattr(np.linalg, name, None)
    if target is None or name.startswith("_"):
        raise AttributeError(f"module 'lazytensor.numpy.linalg' has no attribute {name!r}")
    if callable(target) and not isinstance(target, type):
        from lazytensor.numpy._dispatch import eager

        def fallback(*args, **kwargs):
            return eager(f"numpy.linalg.{name}", target, args, kwargs)

        fallback.__name__ = name
        return fallback
    return target
