"""numpy.linalg and einsum on lazy arrays: solve, norms, rank, diagonal/trace,
float16 inputs, einsum arguments, paths and sublists."""


from __future__ import annotations

import re

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core import metrics
from np_compare import check, same, same_error, same_exactly, same_outcome

_HALF = (np.eye(3) * 2 + 0.5).astype(np.float16)


def _linalg_axes(mod):
    x = mod.arange(60).reshape((3, 4, 5))
    k = mod.asarray([[0.0, 1.0], [0.0, 0.0]])
    m = mod.asarray([[2, 1], [1, 3]], dtype=mod.int8)
    return (mod.linalg.diagonal(x), mod.linalg.diagonal(x, offset=1), mod.linalg.trace(x),
            mod.linalg.trace(x, offset=-1, dtype=mod.float32),
            mod.linalg.eigh(k, UPLO="u")[0], mod.linalg.eigvalsh(k, UPLO="U"),
            mod.linalg.eigvalsh(k.T, UPLO="l"), mod.linalg.matrix_power(m, -1),
            mod.linalg.matrix_power(m.astype(mod.float32), -2))


def _empty_norms(mod):
    out = [mod.linalg.matrix_rank(mod.zeros(s)) for s in ((0, 0), (0, 5), (3, 0, 4))]
    for shape in ((0, 2), (2, 0), (0, 0)):
        x = mod.zeros(shape, dtype=mod.float32)
        out += [mod.linalg.matrix_norm(x, ord=o) for o in ("fro", "nuc", 1, 2, np.inf)]
        out += [mod.linalg.norm(x, ord=np.inf), mod.linalg.norm(x, ord=2, axis=0)]
    x = mod.zeros(0, dtype=mod.int32)
    out += [mod.linalg.vector_norm(x, ord=o) for o in (1, 2, np.inf)]
    return out


def contractions(np, a, b, c, v):
    """einsum with optimize=True / "greedy" / "optimal" and a precomputed
    np.einsum_path: a chain of three matrices, a bilinear form per batch,
    a trace of a product, an outer-product sum, and the same chains by
    np.linalg.multi_dot and @."""
    chain = np.einsum("ij,jk,kl->il", a, b, c, optimize=True)
    greedy = np.einsum("ij,jk,kl->il", a, b, c, optimize="greedy")
    path, _ = np.einsum_path("ij,jk,kl->il", a, b, c, optimize="optimal")
    planned = np.einsum("ij,jk,kl->il", a, b, c, optimize=path)
    bilinear = np.einsum("ni,ij,nj->n", v, b @ b.T, v, optimize=True)
    tr = np.einsum("ij,jk,ki->", a, b, c, optimize="optimal")
    outer = np.einsum("ni,nj->ij", v, v, optimize=True)
    md = np.linalg.multi_dot([a, b, c])
    return chain, greedy, planned, bilinear, tr, outer, md, a @ b @ c


def norms(np, t, m, v):
    """np.linalg.norm everywhere it is used: vector p-norms (0, 1, 2, 3,
    inf, -inf), matrix norms of a stack over axis tuples (fro, nuc, 1, -1,
    2, -2, inf, -inf), keepdims, a row normalization and pairwise
    distances."""
    vec = [np.linalg.norm(v, ord=p) for p in (None, 0, 1, 2, 3, np.inf, -np.inf)]
    mats = [np.linalg.norm(t, ord=p, axis=(1, 2)) for p in
            (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)]
    other = np.linalg.norm(t, ord="fro", axis=(2, 0), keepdims=True)
    rows = m / np.linalg.norm(m, axis=1, keepdims=True)
    dist = np.linalg.norm(m[:, None, :] - m[None, :, :], axis=-1)
    return vec, mats, other, rows, dist, np.linalg.norm(m), np.linalg.norm(m, 2)


_NORM_ARGS = [dict(ord="fro", axis=1), dict(ord="nuc", axis=-1), dict(axis=(0, 1, 2)),
              dict(ord=2), dict(ord="fro"), dict(ord=1, axis=(1, 1)), dict(axis=()),
              dict(ord=1, axis=(0, -2)), dict(axis=1.5), dict(ord="f"),
              dict(ord="f", axis=(0, 1)), dict(ord="f", axis=0), dict(axis=np.int64(0)),
              dict(ord=3, axis=(1, 2)), dict(ord=-np.inf), dict(ord=2, axis=(1, 0))]


@pytest.mark.usefixtures('own_runtime')
def test_solve_checks_the_right_hand_side_rows():
    """``np.linalg.solve(A, b)`` with b's rows not matching A (a batch of
    vectors passed as a (k, m) array, which numpy 2 reads as one (m, n)
    matrix) gave garbage from a clipped gather; numpy raises ValueError."""
    a = lnp.asarray(np.eye(4) * 2.0)
    for b in (np.ones(3), np.ones((3, 2)), np.ones((3, 4))):
        with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
            lnp.linalg.solve(lnp.stack([a] * 3) if b.shape == (3, 4) else a, lnp.asarray(b))
    batch = np.eye(4) * 2.0 + np.arange(16.0).reshape(4, 4) / 10
    rhs = np.arange(8.0).reshape(4, 2)
    same(lnp.linalg.solve(lnp.asarray(np.stack([batch] * 3)), lnp.asarray(rhs)),
          np.linalg.solve(np.stack([batch] * 3), rhs))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("call", [
    lambda la: la.inv(_HALF), lambda la: la.det(_HALF), lambda la: la.slogdet(_HALF),
    lambda la: la.solve(_HALF, np.ones(3)), lambda la: la.solve(np.eye(3), _HALF[0]),
    lambda la: la.cholesky(_HALF), lambda la: la.qr(_HALF), lambda la: la.eigh(_HALF),
    lambda la: la.svd(_HALF), lambda la: la.pinv(_HALF), lambda la: la.matrix_rank(_HALF),
    lambda la: la.lstsq(_HALF, np.ones(3), rcond=None), lambda la: la.cond(_HALF),
    lambda la: la.norm(_HALF, 2), lambda la: la.norm(_HALF, "nuc", axis=(0, 1)),
    lambda la: la.matrix_norm(_HALF, ord=-2), lambda la: la.matrix_power(_HALF, -1),
])
def test_linalg_of_float16_raises_numpys_type_error(call):
    """numpy's LAPACK routines refuse float16 (TypeError: array type float16
    is unsupported in linalg). Lazy linalg recorded the graph and XLA failed
    only when it compiled, with a NotImplementedError."""
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        call(np.linalg)
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        call(lnp.linalg)


@pytest.mark.usefixtures('own_runtime')
def test_linalg_of_float16_without_lapack_still_runs(runtime):
    """Norms that need no factorization, and positive matrix powers, keep float16."""
    lazy = lnp.asarray(_HALF)
    same(lnp.linalg.norm(lazy), np.linalg.norm(_HALF), rtol=2e-3)
    same(lnp.linalg.norm(lazy, 1), np.linalg.norm(_HALF, 1), rtol=2e-3)
    same(lnp.linalg.norm(lazy[0], 2), np.linalg.norm(_HALF[0], 2), rtol=2e-3)
    same(lnp.linalg.matrix_power(lazy, 2), np.linalg.matrix_power(_HALF, 2), rtol=2e-3)


@pytest.mark.usefixtures('own_runtime')
def test_linalg_diagonal_trace_uplo_and_inverse_powers(runtime):
    """numpy.linalg.diagonal/trace work on the last two axes; lazy ones were
    numpy.diagonal/trace (the first two: silently wrong, shape (5, 3) for
    (3, 4, 5)). eigh(UPLO='u') read the lower triangle (eigenvalues 0, 0
    instead of -1, 1); UPLO='lrong' raises ValueError. matrix_power(int
    matrix, -1) inverts in float64 (lazy: TypeError from the solver)."""
    for got, want in zip(_linalg_axes(lnp), _linalg_axes(np), strict=True):
        same(got, want, rtol=1e-5)
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="UPLO"):
            mod.linalg.eigh(mod.eye(2), UPLO="lrong")


@pytest.mark.usefixtures('own_runtime')
def test_norms_and_rank_of_empty_matrices(runtime):
    """numpy's max/inf/2/nuc norms of empty matrices and vectors are 0 and
    the rank of an empty matrix is 0; lazy ones raised ValueError (zero-size
    reduction to maximum). linalg.cross of 2-vectors raises numpy's
    ValueError (lazy: a 2-d cross product)."""
    for got, want in zip(_empty_norms(lnp), _empty_norms(np), strict=True):
        same(got, want)
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="3-dimensional vectors"):
            mod.linalg.cross(mod.ones((2, 2)), mod.ones((2, 2)))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize(("error", "call"), [
    (ValueError, lambda m: m.einsum()),
    (ValueError, lambda m: m.einsum("")),
    (TypeError, lambda m: m.einsum("i", m.ones(2), out="test")),
    (ValueError, lambda m: m.einsum("i", m.ones(2), order="W")),
    (ValueError, lambda m: m.einsum("i", m.ones(2), casting="blah")),
])
def test_einsum_argument_errors(error, call):
    """numpy's einsum errors for missing operands and bad out=/order=/casting=
    (numpy's _core test_einsum); lazy einsum raised IndexError, an
    AttributeError from out='test', or ignored order and casting."""
    with pytest.raises(error):
        call(np)
    with pytest.raises(error):
        call(lnp)


@pytest.mark.usefixtures('own_runtime')
def test_einsum_sublist_labels_out_of_range_raise(runtime):
    """Sublist labels must lie in [0, 52): numpy raises ValueError; lazy
    einsum read label -1 as 'Z' (silently computing another contraction)
    and 52 raised IndexError (numpy's _core test_einsum test_subscript_range)."""
    a, b = np.ones((2, 3)), np.ones((3, 4))
    same(lnp.einsum(lnp.asarray(a), [0, 51], lnp.asarray(b), [51, 2], [0, 2]),
         np.einsum(a, [0, 51], b, [51, 2], [0, 2]))
    for labels in ([0, 52], [-1, 5]):
        for mod in (np, lnp):
            with pytest.raises(ValueError, match="valid range"):
                mod.einsum(mod.asarray(a), labels, mod.asarray(b), [labels[1], 2],
                           [labels[0], 2])


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("optimize", ["greedy", "optimal", True])
def test_einsum_path_plans_on_shapes_without_reading_the_arrays(optimize):
    """np.einsum_path of lazy arrays ran as an eager fallback (every operand
    read back to the host, counted) though the plan depends on shapes only;
    numpy now plans it on zero-strided stand-ins: the same path and report,
    no fallback, nothing transferred."""
    rng = np.random.default_rng(6)
    a, b, c = rng.random((3, 4)), rng.random((4, 5)), rng.random((5, 2))
    lazy = [lnp.asarray(v) for v in (a, b, c)]
    counters = dict(metrics.as_dict()["counters"])
    got = np.einsum_path("ij,jk,kl->il", *lazy, optimize=optimize)
    assert got == np.einsum_path("ij,jk,kl->il", a, b, c, optimize=optimize)
    after = metrics.as_dict()["counters"]
    assert after["eager_fallbacks"] == counters["eager_fallbacks"]
    assert after["transfers_to_host"] == counters["transfers_to_host"]
    assert np.einsum_path(lazy[0], [0, 1], lazy[1], [1, 2], [0, 2]) == \
        np.einsum_path(a, [0, 1], b, [1, 2], [0, 2])


def test_linalg_outer_needs_vectors() -> None:
    same_error(ValueError, lambda xp: xp.linalg.outer(xp.ones((3, 1)), xp.ones(3)))
    same_exactly(lnp.linalg.outer(lnp.arange(3), lnp.arange(3)),
                 np.outer(np.arange(3), np.arange(3)))


@pytest.mark.parametrize("optimize", [
    ["einsum_path", (0, 1)], ("einsum_path", (0, 1)), ["einsum_path", (0, 1), (0, 1)],
    ["einsum_path", (0, 1, 2)], [(0, 1)], "bogus", 0, "greedy", "optimal", True, False, None])
def test_einsum_checks_an_explicit_path_as_numpy(optimize) -> None:
    # an explicit contraction path that leaves operands uncontracted is
    # numpy's RuntimeError (it was ignored: the einsum ran)
    same_outcome(lambda xp: xp.einsum("ij,jk,kl", xp.ones((2, 3)), xp.ones((3, 4)), xp.ones((4, 2)),
                               optimize=optimize))


@pytest.mark.usefixtures('own_runtime')
def test_einsum_with_optimize_and_paths():
    rng = np.random.default_rng(178)
    check(contractions, rng.normal(size=(3, 5)), rng.normal(size=(5, 5)),
          rng.normal(size=(5, 3)), rng.normal(size=(7, 5)), rtol=1e-9)


@pytest.mark.usefixtures('own_runtime')
def test_linalg_norm_with_axis_tuples_and_orders():
    rng = np.random.default_rng(179)
    check(norms, rng.normal(size=(4, 3, 5)), rng.normal(size=(6, 3)),
          np.array([0.0, 1.5, -2.0, 0.0, 3.0]))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("shape", [(2, 3, 4), (3,), (), (2, 3)])
def test_linalg_norm_argument_errors_are_numpys(shape):
    """A string order for a vector, repeated or too many axes, an order for a
    3-d x without axis: numpy's ValueError/AxisError (a 3-d x with ord=2
    gave a number, ord="fro" on a vector 'could not convert string to
    float'); ord="f" is numpy's Frobenius; a float axis is truncated."""
    import lazytensor.numpy as lnp

    x = np.arange(float(np.prod(shape))).reshape(shape) - 3
    for kw in _NORM_ARGS:
        try:
            want = np.linalg.norm(x, **kw)
        except Exception as exc:  # numpy's error: the same type and message
            with pytest.raises(type(exc), match=f"^{re.escape(str(exc))}$"):
                lnp.linalg.norm(lnp.asarray(x), **kw)
            continue
        got = np.asarray(lnp.linalg.norm(lnp.asarray(x), **kw))
        assert got.dtype == want.dtype and got.shape == np.shape(want), kw
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=str(kw))
