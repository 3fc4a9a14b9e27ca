"""``tf.linalg`` on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``), on the core's shared linear algebra
(``composite.linalg``: ``matmul``, ``decompositions``, ``lstsq``, ``einsum``).

Only TensorFlow's conventions live here: its argument names and flags
(``adjoint_a``, ``lower``...), its rank and dtype checks, and the order of
its results (``svd`` gives (s, u, v), not numpy's (u, s, vh)). Errors that
depend on the data (a singular matrix) give inf/NaN lazily, as XLA's
kernels do; factors unique only up to signs (QR, eigenvectors, singular
vectors) follow XLA's conventions, which may differ from LAPACK's.

``tf.einsum`` and ``tf.linalg.slogdet`` offer no dispatch in TensorFlow
(no ``dispatch_for_api`` hook): ``_dispatch.install`` wraps their public
names so that lazy arrays reach the implementations here.
"""

from __future__ import annotations

import collections
import math

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing.take import take_along_axis
from lazytensor.core.composite.linalg import decompositions as nl
from lazytensor.core.composite.linalg import einsum as ce
from lazytensor.core.composite.linalg import lstsq as cls
from lazytensor.core.composite.linalg import matmul as cl
from lazytensor.core.composite.linalg import matrix as cm
from lazytensor.core.composite.linalg import products as ts
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce.reduction import reduce as cs_reduce
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make
from lazytensor.tf._tf import host_value
from lazytensor.tf.numpy import _math as tnp_math
from lazytensor.tf.tf_api import _dispatch
from lazytensor.tf.tf_api._dispatch import host_int, operands, tensor

_FLOATING = (dt.float16, dt.float32, dt.float64, dt.complex64, dt.complex128)


def _matrix(x, op: str, square: bool = True) -> Node:
    """One floating (..., n, n) operand of TensorFlow's matrix op ``op``."""
    node = tensor(x)
    if node.dtype not in _FLOATING:
        raise DTypeError(f"Value for attr 'T' of {node.dtype.name} is not in the list of "
                         f"allowed values: half, float, double, complex64, complex128 [Op:{op}]")
    if node.ndim < 2:
        raise ShapeError(f"Input must have rank >= 2, got {node.ndim} [Op:{op}]")
    if square and node.shape[-1] != node.shape[-2]:
        raise ShapeError(f"Input matrix must be square. [Op:{op}]")
    return node


def _pair(a, b, op: str) -> tuple[Node, Node]:
    """Two floating operands of one dtype, each of rank >= 2."""
    x, y = operands(a, b, op=op)
    return _matrix(x, op, square=False), _matrix(y, op, square=False)


def _flip(x: Node, transpose: bool, adjoint: bool) -> Node:
    if adjoint:
        return nl.conj_t(x)
    return cs.swapaxes(x, -1, -2) if transpose else x


# ------------------------------------------------------------- contractions

def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False,
           name=None):
    x, y = operands(a, b, op="MatMul")
    for i, node in enumerate((x, y)):
        if node.ndim < 2:
            raise ShapeError(f"In[{i}] ndims must be >= 2 [Op:MatMul]")
    x, y = _flip(x, transpose_a, adjoint_a), _flip(y, transpose_b, adjoint_b)
    if x.shape[-1] != y.shape[-2]:
        raise ShapeError(f"Matrix size-incompatible: In[0]: {list(x.shape)}, In[1]: "
                         f"{list(y.shape)} [Op:MatMul]")
    out = cl.matmul(x, y)
    return out if output_type is None else ew.convert(out, np.dtype(output_type.as_numpy_dtype))


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    x, v = operands(a, b, op="MatMul")
    if v.ndim < 1:
        raise ShapeError("In[1] ndims must be >= 1 [Op:MatMul]")
    out = matmul(x, cs.expand_dims(v, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return cs.squeeze(out, out.ndim - 1)


def tensordot(a, b, axes, name=None):
    x, y = operands(a, b, op="Tensordot")
    return ts.tensordot(x, y, host_int(axes))  # N, or [a's axes, b's axes]


def cross(a, b, name=None):
    x, y = operands(a, b, op="Cross")
    if x.shape != y.shape:
        raise ShapeError(f"Both inputs must be of same shape: {list(x.shape)} vs. "
                         f"{list(y.shape)} [Op:Cross]")
    if x.ndim < 1 or x.shape[-1] != 3:
        raise ShapeError("Trailing dimension must be 3 [Op:Cross]")
    return ts.cross(x, y)


# the dtypes of TensorFlow's CPU Einsum kernel (others: its NotFoundError,
# from TensorFlow itself through the eager fallback)
_EINSUM_DTYPES = (dt.int32, dt.int64, dt.bfloat16, *_FLOATING)
_EINSUM_KWARGS = ("name", "optimize")


def einsum(equation, *inputs, **kwargs):
    unknown = sorted(set(kwargs) - set(_EINSUM_KWARGS))
    if unknown:
        raise TypeError(f"Invalid keyword arguments for einsum: {', '.join(unknown)}. Valid "
                        f"arguments: name, optimize, greedy.")
    for value in inputs:
        if not hasattr(value, "shape"):  # TensorFlow reads each input's shape first
            raise AttributeError(f"'{type(value).__name__}' object has no attribute 'shape'")
    nodes = operands(*inputs, op="Einsum")
    if nodes[0].dtype not in _EINSUM_DTYPES:
        raise NotImplementedError(f"einsum of {nodes[0].dtype.name}")
    return ce.einsum(equation.replace(" ", ""), *nodes)


LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])


def slogdet(input, name=None):  # noqa: A002
    """(sign, log|det|): both of the input's dtype (complex ones too, as
    TensorFlow's kernel gives them); sign 0 and -inf for a singular matrix."""
    sign, logabs = nl.slogdet(_matrix(input, "LogMatrixDeterminant"))
    return LogMatrixDeterminant(sign, ew.convert(logabs, sign.dtype))


# ------------------------------------------------------------ inverses, dets

def inv(input, adjoint=False, name=None):
    x = _matrix(input, "MatrixInverse")
    return nl.inv(nl.conj_t(x) if adjoint else x)


def _rhs(matrix, rhs, op: str) -> tuple[Node, Node]:
    a, b = _pair(matrix, rhs, op)
    if a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"Input matrix must be square. [Op:{op}]")
    if b.shape[-2] != a.shape[-1]:
        raise ShapeError(f"Input matrix and rhs are incompatible. [Op:{op}]")
    return a, b


def solve(matrix, rhs, adjoint=False, name=None):
    a, b = _rhs(matrix, rhs, "MatrixSolve")
    if a.ndim != b.ndim:
        raise ShapeError("All input tensors must have the same rank. [Op:MatrixSolve]")
    if a.shape[:-2] != b.shape[:-2]:
        raise ShapeError("All input tensors must have the same outer dimensions. "
                         "[Op:MatrixSolve]")
    return nl.solve(nl.conj_t(a) if adjoint else a, b)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    a, b = _rhs(matrix, rhs, "MatrixTriangularSolve")
    return cl.triangular_solve(a, b, lower=bool(lower), transpose=bool(adjoint),
                               conjugate=bool(adjoint))


def cholesky_solve(chol, rhs, name=None):
    factor, b = _rhs(chol, rhs, "MatrixTriangularSolve")
    return cl.cholesky_solve(factor, b)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    a, b = _pair(matrix, rhs, "MatrixSolveLs")
    if b.shape[-2] != a.shape[-2]:
        raise ShapeError("Incompatible shapes [Op:MatrixSolveLs]")
    l2 = float(host_value(l2_regularizer))
    if fast:
        return cls.normal_lstsq(a, b, l2)
    if l2:
        raise NotImplementedError("tf.linalg.lstsq(fast=False) with an l2_regularizer")
    return cl.matmul(cls.pinv(a, cls.eps(a.dtype) * max(a.shape[-2:])), b)


def pinv(a, rcond=None, validate_args=False, name=None):
    x = _matrix(a, "Pinv", square=False)
    if x.dtype not in (dt.float32, dt.float64):
        raise DTypeError(f"Input `a` must have `float`-like `dtype` (saw {x.dtype.name}).")
    if rcond is None:
        rcond = 10.0 * max(x.shape[-2:]) * cls.eps(x.dtype)
    return cls.pinv(x, float(host_value(rcond)))


def lu(input, output_idx_type=None, name=None):
    x = _matrix(input, "Lu")
    factors = make(Op.LU, (x,))
    index = np.dtype("int32") if output_idx_type is None else \
        np.dtype(output_idx_type.as_numpy_dtype)
    return Lu(make(Op.TUPLE_GET, (factors,), 0),
              ew.convert(make(Op.TUPLE_GET, (factors,), 2), index))


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """x with A @ x = rhs for A given by tf.linalg.lu's (lu, perm), as
    TensorFlow's composition: rhs's rows gathered by perm, then solved by
    the unit lower and the upper triangle of lu; batch dims broadcast.
    Mismatched dtypes or shapes go to TensorFlow (its errors)."""
    lu, p = tensor(lower_upper), tensor(perm)
    b = tensor(rhs, lu.dtype)
    if (lu.ndim < 2 or lu.shape[-1] != lu.shape[-2] or not dt.is_inexact(lu.dtype)
            or b.dtype != lu.dtype or not dt.is_int(p.dtype) or p.ndim < 1 or b.ndim < 2
            or p.shape[-1] != lu.shape[-1] or b.shape[-2] != lu.shape[-1]):
        raise NotImplementedError("lu_solve of these arguments")  # -> TensorFlow's error
    n, m = b.shape[-2:]
    batch = cs.broadcast_shapes(lu.shape[:-2], p.shape[:-1], b.shape[:-2])
    rows = cs.reshape(ew.broadcast_to(ew.convert(p, dt.int64), batch + (n,)), batch + (n, 1))
    z = take_along_axis(ew.broadcast_to(b, batch + (n, m)),
                        ew.broadcast_to(rows, batch + (n, m)), len(batch))
    y = cl.triangular_solve(lu, z, lower=True, unit=True)
    return cl.triangular_solve(lu, y, lower=False)


# ---------------------------------------------------------- factorizations

def qr(input, full_matrices=False, name=None):
    return Qr(*nl.qr(_matrix(input, "Qr", square=False), bool(full_matrices)))


# TensorFlow's named results
Qr = collections.namedtuple("Qr", ["q", "r"])
Lu = collections.namedtuple("Lu", ["lu", "p"])


def eigh(tensor, name=None):
    x = _matrix(tensor, "SelfAdjointEigV2")
    e, v = nl.eigh(x)
    return ew.convert(e, x.dtype), v  # TensorFlow's eigenvalues keep a complex dtype


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    u, s, vh = nl.svd(_matrix(tensor, "Svd", square=False), bool(full_matrices))
    return (s, u, nl.conj_t(vh)) if compute_uv else s


# ------------------------------------------------------------------- norms

_MATRIX_ORDS = ("euclidean", "fro", 1, 2, math.inf)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    x = _dispatch.tensor(tensor)  # (the parameter's name is TensorFlow's)
    axis = host_int(axis)
    keep = bool(keepdims)
    if isinstance(axis, tuple) and len(axis) == 2:
        if ord not in _MATRIX_ORDS:
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', "
                             f"1, 2, inf], got {ord}")
        _check_float(x, ord)
        r, c = (a % x.ndim for a in axis)
        if ord in ("euclidean", "fro"):
            return _as_input(_euclidean(x, (r, c), keep), x)
        return _as_input(nl.matrix_norm(x, ord, r, c, keep), x)
    if isinstance(ord, str) and ord != "euclidean" or \
            not isinstance(ord, str) and not (isinstance(ord, (int, float)) and ord > 0):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    if isinstance(axis, tuple) and len(axis) != 1:
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                         f"integers, got {axis}")
    _check_float(x, ord)
    axes = tuple(range(x.ndim)) if axis is None else \
        ((axis[0] if isinstance(axis, tuple) else axis) % x.ndim,)
    if ord in ("euclidean", 2):
        return _as_input(_euclidean(x, axes, keep), x)
    return _as_input(nl.vector_norm(x, axes, keep, ord), x)


def _euclidean(x: Node, axes: tuple[int, ...], keep: bool) -> Node:
    """TensorFlow's sqrt(sum(x * conj(x))), its square root with SqrtGrad's
    zero-safe gradient while a tape records (0 where the incoming gradient is
    0: ``tf.where(all_zero, 0, tf.norm(x))`` has a finite gradient)."""
    if dt.is_complex(x.dtype):
        squares = make(Op.REAL, (make(Op.MUL, (x, make(Op.CONJ, (x,)))),))
    else:
        squares = make(Op.MUL, (x, x))
    return tnp_math.zero_safe("SQRT")(cs_reduce("sum", squares, axes, keep))


def normalize(tensor, ord="euclidean", axis=None, name=None):
    """(tensor / norm, norm), the norm kept in the reduced dims (its dtype
    the tensor's)."""
    norm_ = norm(tensor, ord, axis, keepdims=True)
    x = _dispatch.tensor(tensor)
    return make(Op.DIV, (x, ew.broadcast_to(norm_, x.shape))), norm_


def _as_input(out: Node, x: Node) -> Node:
    """TensorFlow's norms keep the input's (complex) dtype."""
    return ew.convert(out, x.dtype)


def _check_float(x: Node, ord) -> None:
    """TensorFlow's integer norms: 1 and inf are computed (eagerly here),
    the others fail on their square root."""
    if not dt.is_inexact(x.dtype) and ord in (1, math.inf):
        raise NotImplementedError("integer 1/inf norms")  # -> eager TensorFlow
    if not dt.is_inexact(x.dtype):
        raise DTypeError(f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                         f"allowed values: bfloat16, half, float, double, complex64, "
                         f"complex128 [Op:Sqrt]")


# -------------------------------------------------------- diagonals, bands

def _rank2(x, what: str) -> Node:
    node = tensor(x)
    if node.ndim < 2:
        raise ShapeError(f"{what} must be at least rank 2, received: {list(node.shape)}")
    return node


def trace(x, name=None):
    node = _rank2(x, "input")
    return cm.trace(node, 0, node.ndim - 2, node.ndim - 1)


def _one_diagonal(k) -> int:
    k = host_int(k)
    if isinstance(k, tuple):
        if len(k) != 2 or k[0] != k[1]:
            raise NotImplementedError("tf.linalg diagonal bands (k = (low, high)) on lazy arrays")
        k = k[0]
    return k


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT"):
    v = tensor(diagonal)
    if v.ndim < 1:
        raise ShapeError("diagonal must be at least 1-dim")
    rows, cols = host_int(num_rows), host_int(num_cols)
    pad = host_value(padding_value).item()
    return cl.diag_embed(v, _one_diagonal(k), None if rows == -1 else rows,
                         None if cols == -1 else cols, pad)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):
    node = _rank2(input, "input")
    return cm.diagonal(node, _one_diagonal(k), node.ndim - 2, node.ndim - 1)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    x, v = operands(input, diagonal, op="MatrixSetDiagV3")
    _rank2(x, "input")
    k = _one_diagonal(k)
    want = x.shape[:-2] + (cm.diagonal_length(x.shape[-2], x.shape[-1], k),)
    if v.shape != want:
        raise ShapeError(f"diagonal must have shape {list(want)}, got {list(v.shape)}")
    return cm.set_diagonal(x, v, k, x.ndim - 2, x.ndim - 1)


def band_part(input, num_lower, num_upper, name=None):
    node = _rank2(input, "input")
    return cl.band_part(node, host_int(num_lower), host_int(num_upper))


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    node = tensor(a)
    if node.ndim < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  "
                         f"Received `a` = {node.shape} with shape: {list(node.shape)}")
    return nl.conj_t(node) if conjugate else cs.swapaxes(node, -1, -2)


APIS = {
    "linalg.matmul": matmul, "linalg.matvec": matvec,
    "linalg.tensordot": tensordot, "linalg.cross": cross,
    "linalg.inv": inv, "linalg.solve": solve, "einsum": einsum, "linalg.slogdet": slogdet,
    "linalg.det": lambda input, name=None: nl.det(  # noqa: A006
        _matrix(input, "MatrixDeterminant")),
    "linalg.logdet": lambda matrix, name=None: nl.cholesky_logdet(_matrix(matrix, "Cholesky")),
    "linalg.cholesky": lambda input, name=None: nl.cholesky(  # noqa: A006
        _matrix(input, "Cholesky")),
    "linalg.triangular_solve": triangular_solve, "linalg.cholesky_solve": cholesky_solve,
    "linalg.lstsq": lstsq, "linalg.pinv": pinv, "linalg.lu": lu,
    "linalg.lu_solve": lu_solve,
    "linalg.qr": qr, "linalg.eigh": eigh, "linalg.svd": svd,
    "linalg.eigvalsh": lambda tensor, name=None: eigh(tensor)[0],
    "linalg.expm": lambda input, name=None: nl.expm(  # noqa: A006
        _matrix(input, "MatrixExponential")),
    "linalg.norm": norm, "linalg.normalize": normalize, "linalg.trace": trace, "linalg.diag": diag,
    "linalg.diag_part": diag_part, "linalg.set_diag": set_diag,
    "linalg.band_part": band_part, "linalg.matrix_transpose": matrix_transpose,
    "linalg.adjoint": lambda matrix, name=None: matrix_transpose(matrix, conjugate=True),
}
