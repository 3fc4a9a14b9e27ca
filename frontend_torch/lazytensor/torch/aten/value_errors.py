"""torch's errors that depend on computed values: the LinAlgError of a
singular or indefinite matrix, multinomial's invalid probabilities. Lazily
the values are not known when the op is recorded, so each op records a
check (``lazytensor.core.deferred``): the barrier that computes the result
(``mark_step``, ``.cpu()``, ``.item()``, printing) raises torch's exception
type with torch's message, followed by the op and the line that recorded it.
The results themselves are computed as the factorizations leave them (NaN).
"""

from __future__ import annotations

import weakref

import numpy as np
from lazytensor.core import Node, Op, make
from lazytensor.core.composite.elementwise.apply import as_node, zeros_like
from lazytensor.core.composite.linalg import factor_info
from lazytensor.core.composite.reduce.reduction import reduce
from lazytensor.core.deferred import recording_site
from lazytensor.core.runtime import get_runtime

import torch

# The cheap failure flag of an info node whose exact value costs more to
# compute (a Cholesky's, see factor_info.cholesky_info): torch.linalg.cholesky
# hands linalg_cholesky_ex's info to _linalg_check_errors and drops it, so
# only the flag runs unless the factorization failed.
_FLAG_OF_INFO: weakref.WeakKeyDictionary[Node, Node] = weakref.WeakKeyDictionary()

# torch's _linalg_check_errors: the first word found in the API's name picks
# the message (cholesky_inverse is an "inv"); lu_factor raises RuntimeError
_LINALG_MESSAGES = (
    ("solve", "The solver failed because the input matrix is singular."),
    ("inv", "The diagonal element {info} is zero, the inversion could not be completed "
            "because the input matrix is singular."),
    ("cholesky", "The factorization could not be completed because the input is not "
                 "positive-definite (the leading minor of order {info} is not "
                 "positive-definite)."),
    ("svd", "The algorithm failed to converge because the input matrix is ill-conditioned "
            "or has too many repeated singular values (error code: {info})."),
    ("eig", "The algorithm failed to converge because the input matrix is ill-conditioned "
            "or has too many repeated eigenvalues (error code: {info})."),
    ("lstsq", "The least squares solution could not be computed because the input matrix "
              "does not have full rank (error code: {info})."),
    ("lu_factor", "U[{info},{info}] is zero and using it on lu_solve would result in a "
                  "division by zero. If you still want to perform the factorization, "
                  "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"),
)


def linalg_error(api: str, info: np.ndarray, is_matrix: bool, site: str) -> Exception:
    """torch's exception for the first nonzero ``info`` (of a batch)."""
    flat = np.asarray(info).reshape(-1)
    first = int(np.flatnonzero(flat)[0]) if flat.any() else 0
    where = "" if is_matrix else f": (Batch element {first})"
    for word, message in _LINALG_MESSAGES:
        if word in api:
            kind = RuntimeError if word == "lu_factor" else torch.linalg.LinAlgError
            return kind(f"{api}{where}: {message.format(info=int(flat[first]))}\n  ({site})")
    return RuntimeError(f"{api}{where}: Unknown error code: {int(flat[first])}.\n  ({site})")


def check_linalg(info: Node, api: str, is_matrix: bool, flag: Node | None = None) -> None:
    """Raise torch's error for ``api`` at the barrier that computes a nonzero
    ``info`` (``flag``: a cheaper node set exactly where info is nonzero)."""
    if flag is None:
        flag = _FLAG_OF_INFO.get(info)
    if flag is None:
        flag = make(Op.NE, (info, zeros_like(info)))
    get_runtime().defer(flag, lambda _, values, site: linalg_error(api, values, is_matrix, site),
                        info, recording_site(api, ("torch",)))


def cholesky_info(x: Node, low: Node) -> Node:
    """potrf's info for ``x`` (factored as ``low``), computed only when it is
    kept or a check finds the factorization failed."""
    info = factor_info.cholesky_info(x)
    _FLAG_OF_INFO[info] = factor_info.cholesky_failed(low)
    return info


def check_errors(info, api_name: str, *, is_matrix: bool) -> None:
    """aten._linalg_check_errors, deferred to the barrier."""
    from lazytensor.torch.aten._common import node

    check_linalg(node(info), api_name, is_matrix)


# ------------------------------------------------------------- multinomial
def _multinomial_message(p: np.ndarray, fast: bool) -> str:
    """torch's first complaint about the probabilities ``p`` (rows), from
    its fast path (one sample, or without replacement) or its sampler."""
    rows = p.reshape(-1, p.shape[-1]) if p.ndim else p.reshape(1, 1)
    if fast:
        if not (np.all(rows < np.inf) and np.all(rows >= 0)):
            return "probability tensor contains either `inf`, `nan` or element < 0"
        return "invalid multinomial distribution (sum of probabilities <= 0)"
    for row in rows:
        for value in row:
            if not value >= 0:
                return "invalid multinomial distribution (encountering probability entry < 0)"
            if not np.isfinite(value):
                return ("invalid multinomial distribution (encountering probability entry = "
                        "infinity or NaN)")
        if not row.sum() > 0:
            break
    return "invalid multinomial distribution (sum of probabilities <= 0)"


def check_multinomial(p: Node, fast: bool) -> None:
    """Raise torch's RuntimeError at the barrier that computes an invalid
    ``p`` (an entry negative, NaN or infinite, or a row summing to 0)."""
    bad = make(Op.OR, (make(Op.NOT, (make(Op.GE, (p, zeros_like(p))),)),  # < 0 or NaN
                       make(Op.EQ, (p, as_node(np.inf, p.dtype, p.shape)))))
    total = reduce("sum", p, -1)
    empty = make(Op.LE, (total, zeros_like(total)))
    flag = make(Op.OR, (reduce("any", bad), reduce("any", empty)))

    def error(_, values, site):
        return RuntimeError(f"{_multinomial_message(values, fast)}\n  ({site})")

    get_runtime().defer(flag, error, p, recording_site("multinomial", ("torch",)))
