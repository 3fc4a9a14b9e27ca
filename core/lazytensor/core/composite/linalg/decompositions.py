"""numpy.linalg's semantics on the core's factorizations (CHOLESKY, QR,
EIGH, SVD, LU, TRIANGULAR_SOLVE): solves, inverses, determinants, matrix
powers and the vector and matrix norms.

Operands are floating (..., n, m) stacks (the frontend converts integers and
checks ranks, with its own error types); factorizations return tuples of
nodes. Errors that depend on the data (a singular matrix) cannot be raised
lazily: results then hold inf/NaN.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> a = constant(np.eye(3) * 2.0, np.dtype("float64"))
>>> det(a).shape, inv(a).shape, solve(a, constant(np.ones((3, 1)), a.dtype)).shape
((), (3, 3), (3, 1))
>>> vector_norm(a, (0, 1), False, 2).shape, matrix_norm(a, "nuc", 0, 1, True).shape
((), (1, 1))
"""

from __future__ import annotations

import math
from collections.abc import Callable

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation import arrays as cc
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.apply import const
from lazytensor.core.composite.elementwise.ufuncs import matmul
from lazytensor.core.composite.indexing.take import take_along_axis
from lazytensor.core.composite.linalg import matmul as cl
from lazytensor.core.composite.linalg import matrix as cm
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce.axes import normalize_axes, normalize_axis
from lazytensor.core.composite.reduce.reduction import reduce
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make


def _get(node: Node, i: int) -> Node:
    return make(Op.TUPLE_GET, (node,), i)


def conj_t(x: Node) -> Node:
    """The conjugate transpose of the last two axes."""
    t = cs.swapaxes(x, -1, -2)
    return make(Op.CONJ, (t,)) if dt.is_complex(t.dtype) else t


# ----------------------------------------------------------- factorizations

def cholesky(x: Node, upper: bool = False) -> Node:
    """L with x = L L^H (or U = L^H with ``upper``); shape and dtype of x."""
    low = make(Op.CHOLESKY, (x,))
    return conj_t(low) if upper else low


def qr(x: Node, complete: bool = False) -> tuple[Node, Node]:
    """(Q, R) of a (..., m, n) stack (reduced, or complete with ``complete``)."""
    factors = make(Op.QR, (x,), bool(complete))
    return _get(factors, 0), _get(factors, 1)


def hermitian(x: Node, uplo: str = "L") -> Node:
    """The full Hermitian matrix numpy reads from one triangle ('L' or 'U')."""
    tri = cm.tril(x) if uplo == "L" else cm.triu(x)
    strict = cm.tril(x, -1) if uplo == "L" else cm.triu(x, 1)
    diag_real = make(Op.SUB, (tri, strict))
    if dt.is_complex(x.dtype):
        re = make(Op.REAL, (diag_real,))
        diag_real = make(Op.COMPLEX, (re, const(0.0, re)))
    return make(Op.ADD, (make(Op.ADD, (strict, conj_t(strict))), diag_real))


def eigh(x: Node, uplo: str = "L") -> tuple[Node, Node]:
    """(eigenvalues (..., n) ascending, eigenvectors (..., n, n)) of the
    Hermitian matrix read from ``uplo``."""
    factors = make(Op.EIGH, (hermitian(x, uplo),))
    return _get(factors, 1), _get(factors, 0)


def svd(x: Node, full_matrices: bool = True) -> tuple[Node, Node, Node]:
    """(U, S, Vh) of a (..., m, n) stack; S is real, descending."""
    factors = make(Op.SVD, (x,), bool(full_matrices))
    return _get(factors, 0), _get(factors, 1), _get(factors, 2)


# ------------------------------------------------------------------- solving

def _lu(x: Node) -> tuple[Node, Node, Node]:
    factors = make(Op.LU, (x,))
    return _get(factors, 0), _get(factors, 1), _get(factors, 2)


def lu_factor(x: Node) -> tuple[Node, Node]:
    """(LU, pivots) of each (..., m, n) matrix with partial pivoting, as
    LAPACK's getrf packs them: L (unit diagonal, below) and U in one matrix,
    and the 0-based row swapped with row i at step i (int32, (..., min(m, n))).
    """
    lu, pivots, _ = _lu(x)
    return lu, pivots


def lu_solve(lu: Node, pivots: Node, b: Node, adjoint: bool = False) -> Node:
    """x with A @ x = b (A^H @ x = b with ``adjoint``), for A given by
    :func:`lu_factor`'s (lu, 0-based pivots); batch dims broadcast.

    Shape rule: (..., n, n), (..., n), (..., n, k) -> (..., n, k).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> lu, piv = lu_factor(constant(np.eye(3) * 2.0, np.dtype("float64")))
    >>> lu_solve(lu, piv, constant(np.ones((2, 3, 1)), lu.dtype), adjoint=True).shape
    (2, 3, 1)
    """
    n = lu.shape[-1]
    perm = make(Op.LU_PIVOTS_TO_PERMUTATION, (pivots,), n)
    batch = cs.broadcast_shapes(lu.shape[:-2], perm.shape[:-1], b.shape[:-2])
    lu = ew.broadcast_to(lu, batch + lu.shape[-2:])
    b = ew.broadcast_to(b, batch + b.shape[-2:])
    perm = ew.broadcast_to(ew.convert(perm, dt.int64), batch + (n,))
    if adjoint:  # U^H L^H (P^T x) = b, with (P^T x)[i] = x[perm[i]]
        y = cl.triangular_solve(lu, b, lower=False, transpose=True, conjugate=True)
        z = cl.triangular_solve(lu, y, lower=True, transpose=True, conjugate=True, unit=True)
        perm = make(Op.ARGSORT, (perm,), perm.ndim - 1, False, False, dt.int64)
    else:  # L U x = P^T b
        z = b
    rows = ew.broadcast_to(cs.reshape(perm, perm.shape + (1,)), batch + (n, b.shape[-1]))
    z = take_along_axis(z, rows, z.ndim - 2)
    if adjoint:
        return z
    y = cl.triangular_solve(lu, z, lower=True, unit=True)
    return cl.triangular_solve(lu, y, lower=False)


def lu_unpack(lu: Node, pivots: Node) -> tuple[Node, Node, Node]:
    """(P, L, U) with A = P @ L @ U from :func:`lu_factor`'s (lu, 0-based
    pivots): P (..., m, m) in lu's dtype, L (..., m, k) unit lower, U
    (..., k, n) upper, k = min(m, n)."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = cs.slice_axis(lu, lu.ndim - 1, 0, k)
    eye = ew.broadcast_to(cc.eye(m, k, dtype=lu.dtype), low.shape)
    lower = make(Op.ADD, (cm.tril(low, -1), eye))
    upper = cm.triu(cs.slice_axis(lu, lu.ndim - 2, 0, k))
    perm = make(Op.LU_PIVOTS_TO_PERMUTATION, (pivots,), m)  # A[perm] = L @ U
    cols = ew.broadcast_to(cs.reshape(perm, perm.shape[:-1] + (1, m)), perm.shape + (m,))
    rows = cc.iota(cols.shape, cols.ndim - 2, cols.dtype)
    return ew.convert(make(Op.EQ, (cols, rows)), lu.dtype), lower, upper


def solve(a: Node, b: Node) -> Node:
    """x with a @ x = b for (..., n, n) a and (..., n, k) b (via LU); the
    batch dims broadcast. a and b share a floating dtype."""
    lu, _, perm = _lu(a)
    batch = cs.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    lu = ew.broadcast_to(lu, batch + lu.shape[-2:])
    b = ew.broadcast_to(b, batch + b.shape[-2:])
    perm = ew.broadcast_to(perm, batch + perm.shape[-1:])
    col = cs.reshape(ew.convert(perm, dt.int64), perm.shape + (1,))
    b = take_along_axis(b, ew.broadcast_to(col, batch + (perm.shape[-1], b.shape[-1])),
                        b.ndim - 2)
    y = make(Op.TRIANGULAR_SOLVE, (lu, b), True, True, False, True)
    return make(Op.TRIANGULAR_SOLVE, (lu, y), True, False, False, False)


def solve_vector_or_matrix(a: Node, b: Node) -> Node:
    """numpy.linalg.solve: a 1-d b is one right-hand side vector."""
    if b.ndim != 1:
        return solve(a, b)
    out = solve(a, cs.reshape(b, b.shape + (1,)))
    return cs.reshape(out, out.shape[:-1])


def _eye_like(x: Node) -> Node:
    return ew.broadcast_to(cc.eye(x.shape[-1], dtype=x.dtype), x.shape)


def inv(x: Node) -> Node:
    """The inverse of each (n, n) matrix of the stack."""
    return solve(x, _eye_like(x))


def _det_parts(x: Node) -> tuple[Node, Node]:
    """(the permutation's sign, the diagonal of U) of x's LU factorization."""
    lu, pivots, _ = _lu(x)
    d = cm.diagonal(lu, 0, -2, -1)
    swaps = make(Op.NE, (pivots, ew.broadcast_to(cc.iota((x.shape[-1],), 0, pivots.dtype),
                                                  pivots.shape)))
    odd = reduce("sum", ew.convert(swaps, dt.int32), -1)
    odd = make(Op.REM, (odd, const(2, odd)))
    parity = make(Op.SUB, (const(1, odd), make(Op.MUL, (odd, const(2, odd)))))
    return ew.convert(parity, x.dtype), d


def det(x: Node) -> Node:
    """The determinant of each (n, n) matrix: shape x.shape[:-2]."""
    parity, d = _det_parts(x)
    return make(Op.MUL, (parity, reduce("prod", d, -1)))


def slogdet(x: Node) -> tuple[Node, Node]:
    """(sign, log|det|) of each matrix; sign 0 and -inf for a singular one."""
    parity, d = _det_parts(x)
    mag = make(Op.ABS, (d,))
    logabs = reduce("sum", make(Op.LOG, (mag,)), -1)
    unit = make(Op.DIV, (d, ew.convert(mag, d.dtype))) if dt.is_complex(d.dtype) else \
        make(Op.SIGN, (d,))
    sign = make(Op.MUL, (parity, reduce("prod", unit, -1)))
    singular = make(Op.EQ, (logabs, const(-math.inf, logabs)))
    return make(Op.SELECT, (singular, const(0, sign), sign)), logabs


def cholesky_logdet(x: Node) -> Node:
    """log det of each Hermitian positive definite matrix, from its Cholesky
    factor: 2 * sum(log(real(diag(L)))); real, shape x.shape[:-2].

    >>> from lazytensor.core.leaves import constant
    >>> import numpy as np
    >>> cholesky_logdet(constant(np.eye(3) * 2.0, np.dtype("float64"))).shape
    ()
    """
    d = cm.diagonal(cholesky(x), 0, -2, -1)
    if dt.is_complex(d.dtype):
        d = make(Op.REAL, (d,))
    total = reduce("sum", make(Op.LOG, (d,)), -1)
    return make(Op.MUL, (total, const(2.0, total)))


def matrix_power(x: Node, n: int) -> Node:
    """x @ x @ ... (n times) by squaring; n < 0 inverts first; n == 0 is I."""
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ShapeError("Last 2 dimensions of the array must be square")
    if n < 0:
        x, n = inv(x), -n
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        base = matmul(base, base) if n > 1 else base
        n >>= 1
    return _eye_like(x) if result is None else result


# ------------------------------------------------------- matrix exponential

# Pade coefficients and the 1-norm bound up to which each is accurate
# (Higham, "The scaling and squaring method for the matrix exponential
# revisited", 2005): degree 13 for double precision, 7 for single
_PADE = {
    13: ((64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
          1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
          33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0),
         5.371920351148152),
    7: ((17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
        3.925724783138660),
}
_MAX_SQUARINGS = 24  # scales 1-norms up to theta * 2**24 (beyond, exp overflows)


def _poly(terms: list[tuple[float, Node]]) -> Node:
    """sum(c * p) over (coefficient, power) pairs."""
    out = None
    for c, p in terms:
        t = make(Op.MUL, (p, const(c, p)))
        out = t if out is None else make(Op.ADD, (out, t))
    return out


def expm(x: Node) -> Node:
    """The matrix exponential of each (n, n) matrix: a Pade approximant of
    x / 2**s, squared s times, s chosen per matrix from its 1-norm; shape
    and dtype of x (floating).

    >>> from lazytensor.core.leaves import constant
    >>> import numpy as np
    >>> expm(constant(np.zeros((2, 3, 3)), np.dtype("float64"))).shape
    (2, 3, 3)
    """
    degree = 13 if dt.real_dtype(x.dtype) == dt.float64 else 7
    b, theta = _PADE[degree]
    norm1 = reduce("max", reduce("sum", abs_float(x), -2), -1)  # max column sum
    ratio = make(Op.LOG, (make(Op.DIV, (norm1, const(theta, norm1))),))
    s = make(Op.CEIL, (make(Op.DIV, (ratio, const(math.log(2.0), ratio))),))
    s = make(Op.CLAMP, (const(0.0, s), s, const(float(_MAX_SQUARINGS), s)))
    scale = cs.reshape(make(Op.EXP2, (make(Op.NEG, (s,)),)), s.shape + (1, 1))
    a = make(Op.MUL, (x, ew.broadcast_to(ew.convert(scale, x.dtype), x.shape)))
    eye = _eye_like(a)
    a2 = matmul(a, a)
    a4 = matmul(a2, a2)
    a6 = matmul(a4, a2)
    if degree == 7:
        u = matmul(a, _poly([(b[7], a6), (b[5], a4), (b[3], a2), (b[1], eye)]))
        v = _poly([(b[6], a6), (b[4], a4), (b[2], a2), (b[0], eye)])
    else:
        inner = matmul(a6, _poly([(b[13], a6), (b[11], a4), (b[9], a2)]))
        u = matmul(a, make(Op.ADD, (inner, _poly([(b[7], a6), (b[5], a4), (b[3], a2),
                                                  (b[1], eye)]))))
        v = make(Op.ADD, (matmul(a6, _poly([(b[12], a6), (b[10], a4), (b[8], a2)])),
                          _poly([(b[6], a6), (b[4], a4), (b[2], a2), (b[0], eye)])))
    r = solve(make(Op.SUB, (v, u)), make(Op.ADD, (v, u)))
    times = ew.broadcast_to(cs.reshape(s, s.shape + (1, 1)), r.shape)
    for i in range(_MAX_SQUARINGS):
        more = make(Op.GT, (times, const(float(i), times)))
        r = make(Op.SELECT, (more, matmul(r, r), r))
    return r


# --------------------------------------------------------------------- norms

def abs_float(x: Node) -> Node:
    """|x| as floats (integers in float64, complex magnitudes real)."""
    return make(Op.ABS, (ew.float_or_float64(x),))


_VECTOR_ORDS: dict[float, Callable[[Node, tuple, bool], Node]] = {
    math.inf: lambda m, axes, keep: reduce("max", m, axes, keep),
    -math.inf: lambda m, axes, keep: reduce("min", m, axes, keep),
    0: lambda m, axes, keep: reduce("sum", ew.convert(make(Op.NE, (m, const(0, m))), m.dtype),
                                    axes, keep),
    1: lambda m, axes, keep: reduce("sum", m, axes, keep),
}


def vector_norm(x: Node, axes: tuple[int, ...] | None, keepdims: bool, ord=2) -> Node:
    """(sum |x|**ord)**(1/ord) over ``axes`` (inf/-inf: max/min, 0: count)."""
    m = abs_float(x)
    if ord in _VECTOR_ORDS:
        return _VECTOR_ORDS[ord](m, axes, keepdims)
    powered = make(Op.POW, (m, const(float(ord), m)))
    total = reduce("sum", powered, axes, keepdims)
    return make(Op.POW, (total, const(1.0 / float(ord), total)))


def frobenius(x: Node, axes: tuple[int, ...] | None, keepdims: bool) -> Node:
    """sqrt(sum |x|**2) over ``axes`` (all when None)."""
    m = abs_float(x)
    return make(Op.SQRT, (reduce("sum", make(Op.MUL, (m, m)), axes, keepdims),))


_ROW_COL = {1: ("sum", 0, "max", 1), -1: ("sum", 0, "min", 1),
            math.inf: ("sum", 1, "max", 0), -math.inf: ("sum", 1, "min", 0)}
_SINGULAR = {"nuc": "sum", 2: "max", -2: "min"}


def matrix_norm(x: Node, ord, r: int, c: int, keepdims: bool) -> Node:
    """numpy's matrix norms over axes (r, c): 'fro'/None, 1/-1 (column
    sums), inf/-inf (row sums), 'nuc'/2/-2 (singular values)."""
    m = abs_float(x)
    if ord in _ROW_COL:
        first, i, second, j = _ROW_COL[ord]
        axes = (r, c)
        out = reduce(second, reduce(first, m, axes[i], True), axes[j], True)
        return out if keepdims else cs.squeeze(out, (r, c))
    if ord in ("fro", None):
        return frobenius(x, (r, c), keepdims)
    if ord not in _SINGULAR:
        raise ShapeError("Invalid norm order for matrices.")
    moved = cs.moveaxis(ew.float_or_float64(x), (r, c),
                        (-2, -1))
    out = reduce(_SINGULAR[ord], svd(moved, False)[1], -1)
    if keepdims:
        out = cs.expand_dims(cs.expand_dims(out, min(r, c)), max(r, c))
    return out


def norm(x: Node, ord=None, axis: int | tuple[int, ...] | None = None,
         keepdims: bool = False) -> Node:
    """numpy.linalg.norm (and torch.linalg.norm): the Frobenius norm of
    everything when ``axis`` and ``ord`` are None; a matrix norm over a pair
    of axes (or a 2-d ``x`` with ``axis`` None); else a vector norm (``ord``
    None: 2) over ``axis``.

    >>> from lazytensor.core.leaves import constant
    >>> import numpy as np
    >>> x = constant(np.ones((2, 3)), np.dtype("float64"))
    >>> norm(x).shape, norm(x, 1, (0, 1), True).shape, norm(x, 3, 1).shape
    ((), (1, 1), (2,))
    """
    if axis is None and ord is None:
        return frobenius(x, None, keepdims)
    axes = normalize_axes(axis, x.ndim) if axis is not None else tuple(range(x.ndim))
    if isinstance(axis, tuple) and len(axis) == 2 or axis is None and x.ndim == 2:
        r, c = (normalize_axis(a, x.ndim) for a in (axis or (0, 1)))
        return matrix_norm(x, ord, r, c, keepdims)
    return vector_norm(x, axes, keepdims, 2 if ord is None else ord)
