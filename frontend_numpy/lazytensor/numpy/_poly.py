"""numpy's polynomial helpers on coefficient arrays (highest power first):
``polyder``, ``polyint``, ``polyadd``, ``polysub``, written as numpy writes
them with this frontend's own functions, so dtypes follow numpy's promotion
and nothing is materialized. A ``poly1d`` argument is numpy's object and
numpy's function handles it. ``polymul`` is a convolution of the operands
without their leading zero coefficients (numpy's poly1d trims them): the
result's length depends on the data, so the two counts of leading zeros
(two integers) are read to the host; the coefficients stay lazy.
"""

from __future__ import annotations

from lazytensor.numpy._dispatch import implements

import numpy as np


def _lnp():
    import lazytensor.numpy as lnp  # (the namespace, complete by the time of a call)

    return lnp


def _poly1d(*args) -> bool:
    return any(isinstance(a, np.poly1d) for a in args)


@implements("polyder")
def polyder(p, m=1):
    """The m-th derivative: ``p[:-1] * [n, ..., 1]`` m times."""
    if _poly1d(p):
        return np.polyder(p, m)
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    lnp = _lnp()
    p = lnp.asarray(p)
    len(p)  # numpy's TypeError for a 0-d p, whatever m
    for _ in range(m):
        p = p[:-1] * lnp.arange(len(p) - 1, 0, -1)
    return p


@implements("polyint")
def polyint(p, m=1, k=None):
    """The m-th antiderivative: ``p / [n, ..., 1]`` with the constant
    ``k[i]`` appended at step i (k: a scalar, or m constants)."""
    if _poly1d(p):
        return np.polyint(p, m, k)
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    lnp = _lnp()
    k = lnp.atleast_1d(lnp.zeros(m, float) if k is None else k)
    if len(k) == 1 and m > 1:
        k = k[0] * lnp.ones(m, float)
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = lnp.asarray(p)
    for i in range(m):
        p = lnp.concatenate((p / lnp.arange(len(p), 0, -1), k[i:i + 1]))
    return p


def _aligned(a1, a2):
    """Both coefficient arrays, the shorter padded with leading zeros of its dtype."""
    lnp = _lnp()
    a1, a2 = lnp.atleast_1d(a1), lnp.atleast_1d(a2)
    diff = len(a2) - len(a1)
    if diff > 0:
        a1 = lnp.concatenate((lnp.zeros(diff, a1.dtype), a1))
    elif diff < 0:
        a2 = lnp.concatenate((lnp.zeros(-diff, a2.dtype), a2))
    return a1, a2


@implements("polyadd")
def polyadd(a1, a2):
    if _poly1d(a1, a2):
        return np.polyadd(a1, a2)
    a1, a2 = _aligned(a1, a2)
    return a1 + a2


@implements("polysub")
def polysub(a1, a2):
    if _poly1d(a1, a2):
        return np.polysub(a1, a2)
    a1, a2 = _aligned(a1, a2)
    return a1 - a2


def _leading_zeros(p) -> object:
    """The count of leading zero coefficients of 1-d ``p`` (lazy 0-d int)."""
    lnp = _lnp()
    return lnp.argmax(lnp.concatenate((p != 0, lnp.ones(1, bool))))


def _trimmed(p, zeros: int):
    """``p`` without its ``zeros`` leading zeros; ``[0]`` when none is left (poly1d's)."""
    lnp = _lnp()
    return p[zeros:] if zeros < len(p) else lnp.zeros(1, p.dtype)


@implements("polymul")
def polymul(a1, a2):
    """The product's coefficients: ``convolve`` of the trimmed operands."""
    if _poly1d(a1, a2):
        return np.polymul(a1, a2)
    lnp = _lnp()
    a1, a2 = lnp.atleast_1d(a1), lnp.atleast_1d(a2)
    if a1.ndim > 1 or a2.ndim > 1:
        raise ValueError("Polynomial must be 1d only.")
    zeros = np.asarray(lnp.stack([_leading_zeros(a1), _leading_zeros(a2)]))  # one host read
    return lnp.convolve(_trimmed(a1, int(zeros[0])), _trimmed(a2, int(zeros[1])))
