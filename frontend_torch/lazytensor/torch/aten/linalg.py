"""Linear algebra with unique answers (Cholesky factors, triangular solves,
inverses, matrix exponentials, determinants, LU factors and solves, QR and
Householder products),
batched matrix sums, and whole-tensor comparison. QR is XLA's Householder QR,
LAPACK's (geqrf/orgqr), so its signs are torch's. Factorizations whose
results are defined only up to signs or order (SVD, eigenvectors) fall back
to eager torch, where LAPACK's conventions are kept.

Failures torch reports through errors (a matrix that is not positive
definite, a singular one) are raised by the barrier that computes them
(``value_errors``); the ``*_ex`` ops return LAPACK's ``info``."""

from __future__ import annotations

from lazytensor.core import Node, Op, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation import arrays as creation
from lazytensor.core.composite.elementwise.apply import as_node, broadcast_to, convert
from lazytensor.core.composite.linalg import decompositions as decomp
from lazytensor.core.composite.linalg import distance, factor_info, lstsq
from lazytensor.core.composite.linalg import matmul as cl
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.composite.nn import layers
from lazytensor.torch._tensor import scalar_type_name, wrap
from lazytensor.torch.aten import value_errors
from lazytensor.torch.aten._common import aten, node

import torch


def _square(name: str, x: Node) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{x.shape[-2] if x.ndim > 1 else 1} by {x.shape[-1]} matrices")
    if not dt.is_inexact(x.dtype):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype}")


def _cholesky(x, upper=False):
    n = node(x)
    _square("cholesky", n)
    low = decomp.cholesky(n, upper)
    value_errors.check_linalg(value_errors.cholesky_info(n, low), "cholesky", n.ndim == 2)
    return wrap(low)


def _cholesky_ex(x, *, upper=False, check_errors=False):
    n = node(x)
    _square("linalg.cholesky", n)
    low = decomp.cholesky(n, upper)
    info = value_errors.cholesky_info(n, low)
    if check_errors:
        value_errors.check_linalg(info, "linalg.cholesky_ex", n.ndim == 2)
    return wrap(low), wrap(info)


def _solve_triangular(a, b, *, upper, left=True, unitriangular=False):
    return wrap(cl.triangular_solve(node(a), node(b), left=left, lower=not upper,
                                    unit=unitriangular))


def _triangular_solve(b, a, upper=True, transpose=False, unitriangular=False):
    na, nb = node(a), node(b)
    out = cl.triangular_solve(na, nb, lower=not upper, unit=unitriangular, transpose=transpose)
    return wrap(out), wrap(broadcast_to(na, out.shape[:-2] + na.shape[-2:]))


def _cholesky_solve(b, factor, upper=False):
    return wrap(cl.cholesky_solve(node(factor), node(b), upper))


def _cholesky_inverse(factor, upper=False):
    n = node(factor)
    value_errors.check_linalg(factor_info.first_zero_diagonal(n), "cholesky_inverse",
                              n.ndim == 2)
    return wrap(cl.cholesky_inverse(n, upper))


def _addbmm(x, b1, b2, *, beta=1, alpha=1):
    n1, n2 = node(b1), node(b2)
    if n1.ndim != 3 or n2.ndim != 3:
        raise RuntimeError("batch1 and batch2 must be 3D tensors")
    return wrap(layers.scaled_sum(node(x), layers.batch_sum_product(n1, n2), beta, alpha))


def _cdist(x1, x2, p, compute_mode=None):
    """torch.cdist: p = 2 goes through a matmul when torch's kernel would
    (compute_mode 1, or None/0 with more than 25 rows on either side)."""
    n1, n2 = node(x1), node(x2)
    if n1.ndim < 2 or n2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {n1.ndim}D")
    if n1.shape[-1] != n2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{n1.shape[-1]} X2: {n2.shape[-1]}")
    if not dt.is_inexact(n1.dtype) or p < 0:
        raise RuntimeError("cdist only supports floating-point dtypes and p >= 0, X1 got: "
                           f"{n1.dtype}, p={p}")
    by_matmul = p == 2 and (compute_mode == 1 or (
        compute_mode in (None, 0) and (n1.shape[-2] > 25 or n2.shape[-2] > 25)))
    n2 = convert(n2, n1.dtype)
    return wrap(distance.euclidean_by_matmul(n1, n2) if by_matmul else
                distance.pairwise(n1, n2, p))


def _cdist_backward(grad, x1, x2, p, cdist):
    n1 = node(x1)
    return wrap(distance.pairwise_backward(node(grad), n1, convert(node(x2), n1.dtype), p,
                                           node(cdist)))


def _pdist(x, p=2.0):
    nx = node(x)
    if nx.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {nx.ndim}D")
    if not dt.is_inexact(nx.dtype) or p < 0:
        raise RuntimeError("pdist only supports floating-point dtypes and p >= 0")
    return wrap(distance.condensed(nx, p))


def _pdist_backward(grad, x, p, pdist):
    return wrap(distance.condensed_backward(node(grad), node(x), p, node(pdist)))


def _equal(a, b) -> bool:
    """torch.equal: same shape and every element equal (a host answer)."""
    na, nb = node(a), node(b)
    if na.shape != nb.shape:
        return False
    same = make(Op.EQ, (na, convert(nb, na.dtype)))
    axes = tuple(range(same.ndim))
    return bool(wrap(make(Op.REDUCE_AND, (same,), axes) if axes else same).item())


def _copy(x, src, non_blocking=False):
    """The functional copy: src cast and broadcast to x's shape."""
    n = node(x)
    return wrap(broadcast_to(convert(node(src), n.dtype), n.shape))


def _inv_ex(x, *, check_errors=False):
    """linalg.inv (unique): the core's LU solve; a singular matrix gives
    inf/NaN, and ``info`` getrf's (the first zero pivot)."""
    n = node(x)
    _square("linalg.inv", n)
    lu, pivots = decomp.lu_factor(n)
    eye = broadcast_to(creation.eye(n.shape[-1], dtype=n.dtype), n.shape)
    return wrap(decomp.lu_solve(lu, pivots, eye)), wrap(_info(lu, "linalg.inv_ex", check_errors))


def _info(lu: Node, api: str, check_errors: bool) -> Node:
    """getrf's info of a packed LU; checked (torch's error) with ``check_errors``."""
    info = factor_info.first_zero_diagonal(lu)
    if check_errors:
        value_errors.check_linalg(info, api, lu.ndim == 2)
    return info


def _matrix_exp(x):
    """matrix_exp; float16/bfloat16 computed in float32 (XLA's solve has no
    half-precision kernel: the barrier crashed with a KeyError)."""
    n = node(x)
    _square("linalg.matrix_exp", n)
    if n.dtype in (dt.float16, dt.bfloat16):
        return wrap(convert(decomp.expm(convert(n, dt.float32)), n.dtype))
    return wrap(decomp.expm(n))


def _pinv(x, atol=None, rtol=None, hermitian=False):
    """torch.linalg.pinv: the pseudo-inverse is unique, so the core's SVD
    form serves (singular values at most max(atol, rtol * largest) dropped;
    rtol defaults to eps * max(m, n) without atol, to 0 with it). The
    Hermitian variant reads only one triangle: eager torch keeps that."""
    n = node(x)
    if hermitian:
        from lazytensor.torch._fallback import eager

        return eager(aten.linalg_pinv.atol_rtol_tensor)(x, atol=atol, rtol=rtol, hermitian=True)
    if n.ndim < 2 or not dt.is_inexact(n.dtype):
        raise RuntimeError(f"linalg.pinv({_SCALAR_NAMES.get(x.dtype, x.dtype)}{{{list(n.shape)}}})"
                           ": expected a tensor with 2 or more dimensions of float, double, "
                           "cfloat or cdouble types")
    atol_node = None if atol is None else _tolerance(atol, n)
    if rtol is None:
        rtol = 0.0 if atol is not None else lstsq.eps(n.dtype) * max(n.shape[-2:], default=1)
    return wrap(lstsq.pinv(n, _tolerance(rtol, n) if not isinstance(rtol, float) else rtol,
                           atol_node))


_SCALAR_NAMES = {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short",
                 torch.int8: "Char", torch.uint8: "Byte", torch.bool: "Bool",
                 torch.float16: "Half", torch.bfloat16: "BFloat16", torch.float32: "Float",
                 torch.float64: "Double"}


def _tolerance(value, x: Node) -> Node:
    """A float or tensor tolerance as a node of x's real dtype."""
    real = dt.real_dtype(x.dtype)
    return convert(node(value), real) if hasattr(value, "_h") else as_node(value, real, ())


# LU-based ops return torch's (LU, 1-based pivots) beside their result, so
# that torch's backward formulas (which call linalg_lu_solve on them) run
# lazily too. Partial pivoting picks the same rows as LAPACK's getrf; torch
# factors A^T for a contiguous real A in det and slogdet, and so do these.
def _lu_of(n: Node, transposed: bool) -> tuple[Node, Node]:
    lu, pivots = decomp.lu_factor(decomp.conj_t(n) if transposed else n)
    return lu, make(Op.ADD, (pivots, as_node(1, pivots.dtype, pivots.shape)))


def _det_factors(name: str, x) -> tuple[Node, Node, Node]:
    n = node(x)
    _square(name, n)
    lu, pivots = _lu_of(n, x.is_contiguous() and not x.is_complex())
    return n, lu, pivots


def _linalg_det(x):
    n, lu, pivots = _det_factors("linalg.det", x)
    return wrap(decomp.det(n)), wrap(lu), wrap(pivots)


def _linalg_slogdet(x):
    n, lu, pivots = _det_factors("linalg.slogdet", x)
    sign, logabs = decomp.slogdet(n)
    return wrap(sign), wrap(logabs), wrap(lu), wrap(pivots)


def _lu_solve_node(lu: Node, pivots: Node, b: Node, left: bool, adjoint: bool) -> Node:
    """op(A) X = B (``left``) or X op(A) = B, A given by torch's LU and 1-based
    pivots, op the adjoint with ``adjoint``."""
    zero_based = make(Op.SUB, (pivots, as_node(1, pivots.dtype, pivots.shape)))
    if left:
        return decomp.lu_solve(lu, zero_based, b, adjoint)
    out = decomp.lu_solve(lu, zero_based, decomp.conj_t(b), not adjoint)
    return decomp.conj_t(out)  # X op(A) = B  <=>  op(A)^H X^H = B^H


def _linalg_solve_ex(a, b, *, left=True, check_errors=False):
    """linalg.solve: one LU of A (torch's LU and pivots are returned for the
    backward); B a vector when 1-d or of A's batch shape; info 0."""
    na, nb = node(a), node(b)
    _square("linalg.solve", na)
    if nb.dtype != na.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {_SCALAR_NAMES.get(a.dtype, a.dtype)} and B of type "
                           f"{_SCALAR_NAMES.get(b.dtype, b.dtype)} instead")
    vector = nb.ndim == 1 or (nb.ndim == na.ndim - 1 and nb.shape == na.shape[:-1])
    if vector and not left:
        raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not "
                           "supported for left=False. In this case linalg.solve is equivalent "
                           "to B / A.squeeze(-1)")
    lu, pivots = _lu_of(na, False)
    rhs = reshape(nb, nb.shape + (1,)) if vector else nb
    out = _lu_solve_node(lu, pivots, rhs, left, False)
    out = reshape(out, out.shape[:-1]) if vector else out
    return (wrap(out), wrap(lu), wrap(pivots),
            wrap(_info(lu, "torch.linalg.solve_ex", check_errors)))


def _lu_factor_ex(x, *, pivot=True, check_errors=False):
    n = node(x)
    if not pivot:  # torch's CPU kernel raises; keep its error
        from lazytensor.torch._fallback import eager

        return eager(aten.linalg_lu_factor_ex.default)(x, pivot=pivot,
                                                       check_errors=check_errors)
    if n.ndim < 2 or not dt.is_inexact(n.dtype):
        raise RuntimeError("linalg.lu_factor: Expected a floating point or complex tensor "
                           f"with 2 or more dimensions. Got {x.dtype} of {n.ndim} dimensions")
    lu, pivots = _lu_of(n, False)
    return wrap(lu), wrap(pivots), wrap(_info(lu, "torch.linalg.lu_factor_ex", check_errors))


def _lu_solve(lu, pivots, b, *, left=True, adjoint=False):
    nl, nb = node(lu), node(b)
    _square("linalg.lu_solve", nl)
    return wrap(_lu_solve_node(nl, node(pivots), convert(nb, nl.dtype), left, adjoint))


def _lu_unpack(lu, pivots, unpack_data=True, unpack_pivots=True):
    """torch.lu_unpack: (P, L, U); the parts not asked for are empty."""
    nl, npiv = node(lu), node(pivots)
    if nl.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {tuple(nl.shape)} instead")
    p, low, up = decomp.lu_unpack(
        nl, make(Op.SUB, (npiv, as_node(1, npiv.dtype, npiv.shape))))
    empty = as_node(0, nl.dtype, (0,))
    return (wrap(p if unpack_pivots else empty), wrap(low if unpack_data else empty),
            wrap(up if unpack_data else empty))


def _linalg_lu(x, *, pivot=True):
    """torch.linalg.lu: (P, L, U) of the partially pivoted LU."""
    if not pivot:
        from lazytensor.torch._fallback import eager

        return eager(aten.linalg_lu.default)(x, pivot=pivot)
    lu, pivots, _ = _lu_factor_ex(x)
    return _lu_unpack(lu, pivots)


def _linalg_qr(x, mode="reduced"):
    """torch.linalg.qr: (Q, R); mode 'r' leaves Q empty."""
    n = node(x)
    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    if n.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if not dt.is_inexact(n.dtype):
        raise RuntimeError("linalg.qr: Expected a floating point or complex tensor as input. "
                           f"Got {scalar_type_name(n.dtype)}")
    q, r = decomp.qr(n, mode == "complete")
    return wrap(as_node(0, n.dtype, (0,)) if mode == "r" else q), wrap(r)


def _householder_product(x, tau):
    """torch.linalg.householder_product (orgqr), with torch's checks."""
    n, nt = node(x), node(tau)
    name = "torch.linalg.householder_product"
    if n.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if n.shape[-2] < n.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if nt.ndim != n.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {nt.ndim} and input.ndim is equal to {n.ndim}")
    if n.shape[-1] < nt.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if nt.shape[:-1] != n.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(nt.shape[:-1])}")
    if nt.dtype != n.dtype:
        raise RuntimeError(f"{name}: tau dtype {scalar_type_name(nt.dtype)} does not match "
                           f"input dtype {scalar_type_name(n.dtype)}")
    if not dt.is_inexact(n.dtype):
        raise NotImplementedError(f'"orgqr_cpu" not implemented for '
                                  f"'{scalar_type_name(n.dtype)}'")
    return wrap(cl.householder_product(n, nt))


def _pinv_rcond(x, rcond, hermitian=False):
    return _pinv(x, rtol=rcond, hermitian=hermitian)


TABLE = {
    aten.linalg_pinv.atol_rtol_tensor: _pinv, aten.linalg_pinv.atol_rtol_float: _pinv,
    aten.linalg_pinv.default: _pinv_rcond, aten.linalg_pinv.rcond_tensor: _pinv_rcond,
    aten.cholesky: _cholesky, aten.linalg_cholesky_ex: _cholesky_ex,
    aten.linalg_solve_triangular: _solve_triangular, aten.triangular_solve: _triangular_solve,
    aten.cholesky_solve: _cholesky_solve, aten.cholesky_inverse: _cholesky_inverse,
    aten.addbmm: _addbmm, aten.equal: _equal, aten.copy.default: _copy,
    aten._cdist_forward: _cdist, aten._cdist_backward: _cdist_backward,
    aten._pdist_forward: _pdist, aten._pdist_backward: _pdist_backward,
    aten.linalg_inv_ex: _inv_ex, aten.linalg_matrix_exp: _matrix_exp,
    aten._linalg_det.default: _linalg_det, aten._linalg_slogdet.default: _linalg_slogdet,
    aten._linalg_solve_ex.default: _linalg_solve_ex,
    aten.linalg_lu_factor_ex.default: _lu_factor_ex, aten.linalg_lu_solve.default: _lu_solve,
    aten.lu_unpack.default: _lu_unpack, aten.linalg_lu.default: _linalg_lu,
    aten.linalg_qr.default: _linalg_qr,
    aten._linalg_check_errors.default: value_errors.check_errors,
    aten.linalg_householder_product.default: _householder_product,
}
