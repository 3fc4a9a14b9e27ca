"""Composites moved from the numpy frontend into the core, checked against
numpy without any frontend: masked mean/var, round at decimals, the
linalg norm dispatch, einsum's sublist form."""

import numpy as np
import pytest
from core_nodes import check as shared_check
from core_nodes import dev
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import arithmetic, rounding
from lazytensor.core.composite.linalg import decompositions as nl
from lazytensor.core.composite.linalg import einsum as ce
from lazytensor.core.composite.reduce import reduction as cred

RNG = np.random.default_rng(7)


def check(node, want, rtol=1e-12):
    shared_check(node, want, rtol, atol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, (0, 2)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_masked_mean_and_var(axis, dtype):
    a = (RNG.normal(size=(3, 4, 5)) + (1j if dtype == "complex128" else 0) *
         RNG.normal(size=(3, 4, 5))).astype(dtype)
    m = RNG.random((3, 4, 5)) > 0.3
    m[:2] = True  # every slice keeps at least two elements (count > ddof)
    x, mask = dev(a), dev(m, dt.bool_)
    check(cred.masked_mean(x, mask, axis, True), np.mean(a, axis, keepdims=True, where=m))
    check(cred.masked_var(x, mask, axis, False, 1), np.var(a, axis, ddof=1, where=m))


@pytest.mark.parametrize("decimals", [-1, 0, 2])
def test_round_decimals(decimals):
    f = np.array([1.25, -2.5, 3.14159, 150.0, 0.5])
    check(rounding.round_decimals(dev(f), decimals), np.round(f, decimals))
    check(rounding.round_decimals(dev(f + 2j * f), decimals), np.round(f + 2j * f, decimals))
    i = np.array([14, 16, 25, 27, -35, -36], np.int32)  # ties round to even
    check(rounding.round_decimals(dev(i), decimals), np.round(i, decimals))


@pytest.mark.parametrize("ord_, axis", [(None, None), ("fro", None), (1, (0, 1)), (3, 1),
                                        (np.inf, 0), ("nuc", (1, 0)), (None, (0, 1))])
def test_norm_dispatch(ord_, axis):
    a = RNG.normal(size=(4, 3))
    check(nl.norm(dev(a), ord_, axis), np.linalg.norm(a, ord_, axis), rtol=1e-10)
    check(nl.norm(dev(a), ord_, axis, True), np.linalg.norm(a, ord_, axis, True), rtol=1e-10)


def test_einsum_sublist_form():
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 4))
    subscripts, arrays = ce.sublist_form([a, [0, 1], b, [1, 2], [0, 2]])
    assert subscripts == "ab,bc->ac" and len(arrays) == 2
    check(ce.einsum(subscripts, dev(a), dev(b)), np.einsum(a, [0, 1], b, [1, 2], [0, 2]))
    assert ce.sublist_form([a, [0, 1]]) == ("ab", [a])


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose(mode):
    from lazytensor.core.composite.indexing import take as ct

    idx = np.array([[0, 1, 2], [2, 1, 0]]) if mode == "raise" else np.array([[0, 4, -1]])
    choices = [RNG.normal(size=3), RNG.normal(size=(2, 3)), RNG.normal(size=(1, 3))]
    want = np.choose(idx, choices, mode=mode)
    check(ct.choose(dev(idx), [dev(c) for c in choices], mode), want)


def test_angle():
    z = np.array([1 + 1j, -1 + 0j, -2j, 0j])
    r = np.array([-1.0, 0.0, 2.0, -0.0, np.nan])
    check(arithmetic.angle(dev(z)), np.angle(z))
    check(arithmetic.angle(dev(r)), np.angle(r))
