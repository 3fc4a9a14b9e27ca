"""einsum against numpy.einsum: explicit and implicit subscripts, traces
and diagonals, ellipsis broadcasting, size-1 broadcasting, bool/int dtypes
and numpy's error messages."""

import numpy as np
import pytest
from lazytensor.core import Handle
from lazytensor.core.composite.linalg.einsum import einsum
from lazytensor.core.runtime import get_runtime

RNG = np.random.default_rng(3)


def dev(a):
    return get_runtime().from_host(np.asarray(a)).node


A = RNG.standard_normal((2, 3))
B = RNG.standard_normal((3, 4))
C = RNG.standard_normal((3, 3))
D = RNG.standard_normal((2, 3, 3))
T = RNG.standard_normal((2, 3, 4, 3))

CASES = [
    ("ij,jk->ik", A, B), ("ij,jk", A, B), ("ij->ji", A), ("ji", A), ("ij->", A), ("ij", A),
    ("ii", C), ("ii->i", C), ("iji->j", RNG.standard_normal((3, 2, 3))), ("...ii->...i", D),
    ("bij,bjk->bik", D, D), ("ij,ij", A, A), ("ij,ij->ij", A, A), ("i,j->ij", A[0], B[0]),
    ("ij,j", A, np.ones(1)), ("i,i->i", np.ones(1), B[:, 0]), ("...j,jk->...k", D, B),
    ("ijk,jl,lk->i", D, B, B.T), ("bijk,bkj->bi", T[:, :, :3], D), ("i...k,k->i...", T, T[0, 0, 0]),
    ("...,...", A, B[0, :1]), ("ab,cd->abcd", A, C), ("iijj->", RNG.standard_normal((2, 2, 3, 3))),
    ("a b, b c -> a c", A, B), ("ij,kl,jk->il", A, B, C[:, :3].T), ("i->", np.ones(0)),
    ("ij,jk->ik", A[:, :0], B[:0]),
]


def test_einsum_matches_numpy():
    nodes = [einsum(spec, *map(dev, ops)) for spec, *ops in CASES]
    handles = [Handle(n) for n in nodes]
    for (spec, *ops), handle in zip(CASES, handles, strict=False):
        want = np.asarray(np.einsum(spec, *ops))
        got = handle.numpy()
        assert got.shape == want.shape and got.dtype == want.dtype, (spec, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=spec)


def test_einsum_int_and_bool():
    ints = RNG.integers(-4, 4, (3, 3)).astype(np.int32)
    bools = ints > 0
    cases = [("ij,jk->ik", ints, ints), ("ii", ints), ("ij,jk", bools, bools), ("i,i", bools[0],
                                                                                  bools[1])]
    handles = [Handle(einsum(spec, *map(dev, ops))) for spec, *ops in cases]
    for (spec, *ops), handle in zip(cases, handles, strict=False):
        want = np.asarray(np.einsum(spec, *ops))
        got = handle.numpy()
        assert got.dtype == want.dtype and got.shape == want.shape, spec
        np.testing.assert_array_equal(got, want, err_msg=spec)


@pytest.mark.parametrize("spec, operands, message", [
    ("ij", (A, A), "fewer operands provided"),
    ("ij,jk,kl", (A, A), "more operands provided"),
    ("i->ii", (A,), "operand has more dimensions than subscripts"),
    ("...i->i", (A,), "output has more dimensions than subscripts"),
    ("ij->k", (A,), "output subscript 'k' which never appeared"),
    ("ij->ii", (A,), "includes output subscript 'i' multiple times"),
    ("i.j", (A,), "contains a '.' that is not part of an ellipsis"),
    ("ijk", (A,), "too many subscripts for operand 0"),
    ("ij,ij", (A, B), "could not be broadcast"),
    ("ii", (A,), "dimensions in operand 0 for collapsing index 'i' don't match"),
])
def test_einsum_errors(spec, operands, message):
    with pytest.raises(ValueError, match=message):
        np.einsum(spec, *operands)
    with pytest.raises(ValueError, match=message):
        einsum(spec, *map(dev, operands))
