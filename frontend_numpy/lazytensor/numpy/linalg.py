"""``lazytensor.numpy.linalg``: numpy.linalg on the core's factorizations
(cholesky, LU, QR, eigh, SVD, triangular solves) and reductions.

Errors that depend on the data (a singular matrix, one that is not positive
definite) cannot be raised lazily: results then hold inf/NaN, as JAX's do.
Singular vectors and eigenvectors are unique only up to sign (phase): they
may differ from LAPACK's while their products agree.
"""

from __future__ import annotations

from typing import NamedTuple

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.linalg import decompositions as nl
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce.axes import normalize_axes
from lazytensor.core.ir import Node
from lazytensor.numpy import _math
from lazytensor.numpy._base import node_of, wrap
from lazytensor.numpy._dispatch import eager
from lazytensor.numpy._numerics import (  # noqa: F401  (cond...pinv: re-exported)
    _float_matrix,
    cond,
    lapack_dtypes,
    linalg_implements,
    lstsq,
    matrix_rank,
    pinv,
)
from lazytensor.numpy._shape import diagonal as _diagonal
from lazytensor.numpy._shape import matrix_transpose
from lazytensor.numpy._shape import trace as _trace

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

LinAlgError = np.linalg.LinAlgError
__all__ = [
    "LinAlgError", "cholesky", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv",
    "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
    "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
    "tensordot", "trace", "vecdot", "vector_norm",
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


def _square(a) -> Node:
    x = _float_matrix(a)
    if x.shape[-1] != x.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return x


# ----------------------------------------------------------- factorizations

@linalg_implements("cholesky")
def cholesky(a, /, *, upper=False):
    return wrap(nl.cholesky(_square(a), upper))


@linalg_implements("qr")
def qr(a, mode="reduced"):
    if mode == "raw":  # LAPACK's Householder reflectors (h, tau): numpy's own, eagerly
        return eager("numpy.linalg.qr (mode='raw')", np.linalg.qr, (a, mode), {})
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    q, r = nl.qr(_float_matrix(a), mode == "complete")
    return wrap(r) if mode == "r" else QRResult(wrap(q), wrap(r))


@linalg_implements("eigh")
def eigh(a, UPLO="L"):
    return EighResult(*(wrap(n) for n in nl.eigh(_square(a), _uplo(UPLO))))


def _uplo(uplo) -> str:
    """numpy's triangle names, either case ('u' read as 'L' was wrong)."""
    upper = uplo.upper() if isinstance(uplo, str) else uplo
    if upper not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return upper


@linalg_implements("eigvalsh")
def eigvalsh(a, UPLO="L"):
    return eigh(a, UPLO).eigenvalues


@linalg_implements("svd")
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    u, s, vh = (wrap(n) for n in nl.svd(_float_matrix(a), full_matrices))
    return SVDResult(u, s, vh) if compute_uv else s


@linalg_implements("svdvals")
def svdvals(x, /):
    return svd(x, full_matrices=False, compute_uv=False)


# ------------------------------------------------------------------- solving

@linalg_implements("solve")
def solve(a, b):
    x, rhs = _square(a), node_of(b)
    lapack_dtypes(rhs)
    vector = rhs.ndim == 1  # numpy 2: only a 1-d b is a vector, else (..., m, n)
    if rhs.ndim == 0 or rhs.shape[-1 if vector else -2] != x.shape[-1]:
        got = rhs.shape[-1 if vector else -2] if rhs.ndim else 0
        raise ValueError(
            f"solve{'1' if vector else ''}: Input operand 1 has a mismatch in its core "
            f"dimension 0, with gufunc signature (m,m),{'(m)->(m)' if vector else '(m,n)->(m,n)'}"
            f" (size {got} is different from {x.shape[-1]})")
    dtype = np.result_type(x.dtype, rhs.dtype, rhs.dtype if dt.is_inexact(rhs.dtype) else
                           np.float64)
    return wrap(nl.solve_vector_or_matrix(ew.convert(x, dtype), ew.convert(rhs, dtype)))


@linalg_implements("inv")
def inv(a):
    return wrap(nl.inv(_square(a)))


@linalg_implements("det")
def det(a):
    return wrap(nl.det(_square(a)))


@linalg_implements("slogdet")
def slogdet(a):
    return SlogdetResult(*(wrap(n) for n in nl.slogdet(_square(a))))


@linalg_implements("matrix_power")
def matrix_power(a, n):
    x = node_of(a)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    if int(n) < 0:  # an inverse: integers invert in float64, as numpy.linalg.inv
        lapack_dtypes(x)
        x = ew.float_or_float64(x)
    return wrap(nl.matrix_power(x, int(n)))


@linalg_implements("multi_dot")
def multi_dot(arrays, *, out=None):
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    result = arrays[0]
    for other in arrays[1:-1]:
        result = _math.dot(result, other)
    return _math.dot(result, arrays[-1], out=out)


# --------------------------------------------------------------------- norms

@linalg_implements("vector_norm")
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    node = node_of(x)
    if ord == np.inf and _empty(node):  # numpy's max of no magnitudes is 0, as the sum's
        ord = 1  # noqa: A001
    return wrap(nl.vector_norm(node, normalize_axes(axis, node.ndim), keepdims, ord))


_ZERO_WHEN_EMPTY = (1, 2, np.inf, "nuc", "fro", None)  # numpy: 0 for an empty matrix


def _empty(node: Node) -> bool:
    return 0 in node.shape


@linalg_implements("matrix_norm")
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    m = node_of(x)
    _singular_value_norm(m, ord, 2)
    if _empty(m) and _is_order(ord, _ZERO_WHEN_EMPTY):
        ord = "fro"  # noqa: A001  (0, as numpy's max/sum of no values)
    return wrap(nl.matrix_norm(m, ord, m.ndim - 2, m.ndim - 1, keepdims))


@linalg_implements("norm")
def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: the Frobenius norm of everything (axis and ord
    None), else a vector norm over one axis or a matrix norm over two (a
    1-d or 2-d x with axis None), with numpy's errors for anything else."""
    node = node_of(x)
    axis = _norm_axis(node.ndim, ord, axis)
    if isinstance(ord, str) and ord == "f":  # numpy's other name of "fro" (matrices)
        ord = "fro"  # noqa: A001
    _singular_value_norm(node, ord, node.ndim if axis is None else np.size(axis))
    if _empty(node) and (axis is not None or node.ndim <= 2) and _is_order(ord, _ZERO_WHEN_EMPTY):
        ord = None  # noqa: A001  (0, as numpy's max/sum of no values)
    return wrap(nl.norm(node, ord, axis, keepdims))


def _norm_axis(ndim: int, ord, axis):  # noqa: A002 (numpy's name)
    """``axis`` as numpy reads it (an int, or a tuple), after numpy's errors:
    a string order for a vector norm, repeated matrix axes, and more than
    two axes (or an order for a >2-d x without axis)."""
    if axis is None:
        if ord is None:
            return None  # the Frobenius norm of everything, any ndim
        axes = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axes = axis
    else:
        try:
            axis = axes = int(axis)
        except Exception as exc:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from exc
        axes = (axis,)
    if len(axes) == 1 and isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if len(axes) not in (1, 2):
        raise ValueError("Improper number of dimensions to norm.")
    if len({normalize_axis_index(a, ndim) for a in axes}) < len(axes):  # (AxisError first)
        raise ValueError("Duplicate axes given.")
    return axis


def _is_order(ord, orders) -> bool:  # noqa: A002 (numpy's name)
    return isinstance(ord, (int, float, str, np.number, type(None))) and ord in orders


def _singular_value_norm(x: Node, ord, axes: int) -> None:
    """Matrix norms 2, -2 and 'nuc' sum or pick singular values: an SVD."""
    if axes == 2 and isinstance(ord, (int, float, str, np.number)) and ord in (2, -2, "nuc"):
        lapack_dtypes(x)


# ------------------------------------------------- re-exported array functions

@linalg_implements("matmul")
def matmul(x1, x2, /):
    return _math._ufuncs.call(np.matmul, (x1, x2), {})


@linalg_implements("outer")
def outer(x1, x2, /):
    if np.ndim(x1) != 1 or np.ndim(x2) != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={np.ndim(x1)} and x2.ndim={np.ndim(x2)}.")
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
    a, b = node_of(x1), node_of(x2)
    if a.ndim == 0 or b.ndim == 0 or a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                         f"are {a.shape[axis] if a.ndim else 0} and "
                         f"{b.shape[axis] if b.ndim else 0} dimensional instead.")
    return _math.cross(x1, x2, axis=axis)


@linalg_implements("diagonal")
def diagonal(x, /, *, offset=0):
    """The array API's diagonal: of the last two axes (numpy.diagonal's
    default is the first two)."""
    return _diagonal(x, offset, -2, -1)


@linalg_implements("trace")
def trace(x, /, *, offset=0, dtype=None):
    """The array API's trace: over the last two axes."""
    return _trace(x, offset, -2, -1, dtype)


_ = matrix_transpose  # re-exported name


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
