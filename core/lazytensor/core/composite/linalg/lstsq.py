"""Least squares and rank on the core's SVD, shared by numpy.linalg
(pinv, matrix_rank, lstsq, cond), numpy.polyfit and torch.linalg
(pinv, matrix_rank, lstsq).

Operands are floating (..., m, n) stacks of one dtype (the caller converts
integers and checks ranks). Singular values below ``rcond`` times the
largest count as zero. The rank is computed on device; a caller whose
result *shape* depends on it (numpy's lstsq residuals) reads it back.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> a = constant(np.arange(6.0).reshape(3, 2), np.dtype("float64"))
>>> pinv(a, 1e-15).shape, matrix_rank(a).shape
((2, 3), ())
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation import arrays as creation
from lazytensor.core.composite.elementwise import apply, predicates
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.ufuncs import matmul
from lazytensor.core.composite.linalg.decompositions import cholesky, conj_t, inv, norm, svd
from lazytensor.core.composite.linalg.matmul import cholesky_solve
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce import numerics
from lazytensor.core.composite.reduce.reduction import reduce
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

Tolerance = float | Node  # a number, or a Node over the batch dims


def eps(dtype: np.dtype) -> float:
    """Machine epsilon of a floating or complex dtype."""
    return float(np.finfo(dtype).eps)


def _kept(s: Node, rcond: Tolerance | None, atol: Node | None = None) -> Node:
    """Which singular values count (s > max(rcond * max(s), atol)), bool."""
    parts = []
    if rcond is not None:
        big = reduce("max", s, -1, keepdims=True)
        scale = apply.const(rcond, big) if not isinstance(rcond, Node) else \
            cs.reshape(ew.convert(rcond, s.dtype), rcond.shape + (1,))
        parts.append(make(Op.MUL, (ew.broadcast_to(scale, ew.broadcast_shapes(
            scale.shape, big.shape)), ew.broadcast_to(big, ew.broadcast_shapes(
                scale.shape, big.shape)))))
    if atol is not None:
        parts.append(cs.reshape(ew.convert(atol, s.dtype), atol.shape + (1,)))
    cut = parts[0]
    for other in parts[1:]:
        shape = ew.broadcast_shapes(cut.shape, other.shape)
        cut = make(Op.MAX, (ew.broadcast_to(cut, shape), ew.broadcast_to(other, shape)))
    shape = ew.broadcast_shapes(s.shape, cut.shape)
    return make(Op.GT, (ew.broadcast_to(s, shape), ew.broadcast_to(cut, shape)))


def _inverted(s: Node, kept: Node, dtype: np.dtype) -> Node:
    """1/s where kept, else 0, in ``dtype``."""
    s = ew.broadcast_to(s, kept.shape)
    safe = make(Op.SELECT, (kept, s, apply.const(1, s)))
    inv_s = make(Op.DIV, (apply.const(1, safe), safe))
    return ew.convert(make(Op.SELECT, (kept, inv_s, apply.const(0, inv_s))), dtype)


def pinv(a: Node, rcond: Tolerance = 1e-15, atol: Node | None = None) -> Node:
    """The Moore-Penrose pseudo-inverse V diag(1/s) U^H of each (m, n)
    matrix, dropping singular values at most max(``rcond`` times the
    largest, ``atol``) (numpy's rcond/rtol; torch's rtol and atol).

    Shape rule: (..., n, m), a's dtype; zeros for an empty matrix.
    """
    if 0 in a.shape[-2:]:
        return ew.full(a.shape[:-2] + (a.shape[-1], a.shape[-2]), 0, a.dtype)
    u, s, vh = svd(a, False)
    inv_s = _inverted(s, _kept(s, rcond, atol), a.dtype)
    scaled = make(Op.MUL, (ew.broadcast_to(cs.expand_dims(inv_s, -1), vh.shape[:-2] + (
        inv_s.shape[-1], u.shape[-2])), conj_t(u)))
    return matmul(conj_t(vh), scaled)


def singular_values(a: Node) -> Node:
    """The singular values (..., min(m, n)), real, descending."""
    return svd(a, False)[1]


def matrix_rank(a: Node, rtol: Tolerance | None = None, atol: Node | None = None) -> Node:
    """The number of singular values above max(rtol * largest, atol) per
    matrix (``rtol`` None and no ``atol``: max(m, n) * eps).

    Shape rule: a.shape[:-2], int64.
    """
    s = singular_values(a)
    if rtol is None and atol is None:
        rtol = max(a.shape[-2:]) * eps(s.dtype)
    return reduce("sum", ew.convert(_kept(s, rtol, atol), dt.int64), -1)


class Lstsq(NamedTuple):
    """The parts of a least-squares solve: ``x`` (n, k), the residual sums
    of squares ``residuals`` (k,) (meaningful when rank == n < m), the
    ``rank`` (0-d int32) and the singular values ``s``."""

    x: Node
    residuals: Node
    rank: Node
    s: Node


def lstsq(a: Node, b: Node, rcond: float) -> Lstsq:
    """The minimum-norm x minimizing |a x - b| for one (m, n) ``a`` and an
    (m, k) ``b`` (one dtype), via the SVD cut at ``rcond`` * largest.

    >>> from lazytensor.core.leaves import constant
    >>> a = constant(np.arange(6.0).reshape(3, 2), np.dtype("float64"))
    >>> [p.shape for p in lstsq(a, constant(np.ones((3, 1)), a.dtype), 1e-15)]
    [(2, 1), (1,), (), (2,)]
    """
    u, s, vh = svd(a, False)
    kept = _kept(s, rcond)
    inv_s = _inverted(s, kept, a.dtype)
    ub = matmul(conj_t(u), b)
    x = matmul(conj_t(vh), make(Op.MUL, (ew.broadcast_to(cs.reshape(inv_s, (-1, 1)), ub.shape),
                                         ub)))
    r = make(Op.ABS, (make(Op.SUB, (b, matmul(a, x))),))
    residuals = reduce("sum", make(Op.MUL, (r, r)), 0)
    rank = reduce("sum", ew.convert(kept, dt.int32), -1)
    return Lstsq(x, residuals, rank, s)


def normal_lstsq(a: Node, b: Node, l2: float = 0.0) -> Node:
    """The (Tikhonov-regularized) least-squares x of a x = b through the
    normal equations and a Cholesky solve, for (..., m, n) stacks a and
    (..., m, k) b of one dtype: x = (a^H a + l2 I)^-1 a^H b when m >= n, else
    the minimum-norm a^H (a a^H + l2 I)^-1 b (tf.linalg.lstsq's fast path).

    Shape rule: (..., n, k), a's dtype.

    >>> from lazytensor.core.leaves import constant
    >>> a = constant(np.arange(6.0).reshape(3, 2), np.dtype("float64"))
    >>> normal_lstsq(a, constant(np.ones((3, 4)), a.dtype), 0.5).shape
    (2, 4)
    """
    tall = a.shape[-2] >= a.shape[-1]
    gram = matmul(conj_t(a), a) if tall else matmul(a, conj_t(a))
    if l2:
        eye = ew.broadcast_to(creation.eye(gram.shape[-1], dtype=gram.dtype), gram.shape)
        gram = make(Op.ADD, (gram, make(Op.MUL, (eye, apply.const(l2, eye)))))
    factor = cholesky(gram)
    if tall:
        return cholesky_solve(factor, matmul(conj_t(a), b))
    return matmul(conj_t(a), cholesky_solve(factor, b))


def _scaled_vander(x: Node, deg: int, w: Node | None) -> tuple[Node, Node]:
    """numpy.polyfit's left-hand side: the (weighted) Vandermonde matrix of
    ``x`` with its columns scaled to unit norm, and the column norms."""
    lhs = numerics.vander(x, deg + 1)
    if w is not None:
        lhs = make(Op.MUL, (lhs, ew.broadcast_to(cs.reshape(w, (-1, 1)), lhs.shape)))
    scale = make(Op.SQRT, (reduce("sum", make(Op.MUL, (lhs, lhs)), 0),))
    return make(Op.DIV, (lhs, ew.broadcast_to(scale, lhs.shape))), scale


def polyfit(x: Node, y: Node, deg: int, rcond: float, w: Node | None = None) -> Lstsq:
    """Least-squares polynomial coefficients (highest power first) of
    degree ``deg`` through (x, y) (numpy.polyfit: columns of the Vandermonde
    matrix scaled to unit norm, optional weights ``w``). x, y, w share one
    floating dtype; y is (m,) or (m, k).

    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.arange(4.0), np.dtype("float64"))
    >>> polyfit(x, x, 1, 1e-12).x.shape
    (2,)
    """
    lhs, scale = _scaled_vander(x, deg, w)
    rhs = y if y.ndim == 2 else cs.reshape(y, (-1, 1))
    if w is not None:
        rhs = make(Op.MUL, (rhs, ew.broadcast_to(cs.reshape(w, (-1, 1)), rhs.shape)))
    fit = lstsq(lhs, rhs, rcond)
    c = make(Op.DIV, (fit.x, ew.broadcast_to(cs.reshape(scale, (-1, 1)), fit.x.shape)))
    if y.ndim == 1:
        c = cs.reshape(c, (-1,))
    return Lstsq(c, fit.residuals, fit.rank, fit.s)


def polyfit_cov(x: Node, deg: int, w: Node | None = None) -> Node:
    """The unscaled covariance of numpy.polyfit's coefficients,
    inv(lhs^T lhs) / outer(scale, scale) over the scaled Vandermonde ``lhs``
    (numpy.polyfit(cov="unscaled")). Shape rule: (deg + 1, deg + 1), x's dtype.

    >>> from lazytensor.core.leaves import constant
    >>> polyfit_cov(constant(np.arange(4.0), np.dtype("float64")), 1).shape
    (2, 2)
    """
    lhs, scale = _scaled_vander(x, deg, w)
    n = deg + 1
    outer = make(Op.MUL, (ew.broadcast_to(cs.reshape(scale, (-1, 1)), (n, n)),
                          ew.broadcast_to(cs.reshape(scale, (1, -1)), (n, n))))
    return make(Op.DIV, (inv(matmul(conj_t(lhs), lhs)), outer))


def cond(x: Node, p=None) -> Node:
    """The condition number of each square (or, for p None/2/-2, any)
    matrix: the ratio of extreme singular values, else
    norm(x, p) * norm(inv(x), p). Real.

    >>> from lazytensor.core.leaves import constant
    >>> cond(constant(np.eye(2), np.dtype("float64"))).shape
    ()
    """
    if p in (None, 2, -2):
        s = singular_values(x)
        n = s.shape[-1]
        big, small = cs.slice_axis(s, s.ndim - 1, 0, 1), cs.slice_axis(s, s.ndim - 1, n - 1, n)
        r = cs.reshape(make(Op.DIV, (big, small) if p != -2 else (small, big)), s.shape[:-1])
    else:
        axes = (x.ndim - 2, x.ndim - 1)
        r = make(Op.MUL, (norm(x, p, axes), norm(inv(x), p, axes)))
    nan_free = make(Op.NOT, (reduce("any", predicates.isnan(x), (x.ndim - 2, x.ndim - 1)),))
    singular = make(Op.AND, (predicates.isnan(r), nan_free))  # numpy: a singular matrix gives inf
    return make(Op.SELECT, (singular, apply.const(np.inf, r), r))
