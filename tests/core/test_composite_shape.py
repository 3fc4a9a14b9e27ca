"""Shape, rearrange and matrix composites against numpy: values, dtype and
shape, over several shapes/dtypes and edge cases (0-d, empty axes)."""

import numpy as np
import pytest
from lazytensor.core import Handle, Op, make
from lazytensor.core.composite.linalg import matrix as mx
from lazytensor.core.composite.movement import padding
from lazytensor.core.composite.movement import rearrange as ra
from lazytensor.core.composite.movement import shape as sh
from lazytensor.core.runtime import get_runtime

RNG = np.random.default_rng(1)


def dev(a, dtype=None):
    return get_runtime().from_host(np.asarray(a, dtype=dtype)).node


def run(*nodes):
    handles = [Handle(make(Op.CONVERT, (n,), n.dtype) if n.is_leaf else n) for n in nodes]
    return [h.numpy() for h in handles]


def check(pairs):
    """pairs: (label, node, expected); all nodes run in one graph."""
    labels, nodes, wants = zip(*pairs, strict=False)
    for label, got, want in zip(labels, run(*nodes), wants, strict=False):
        want = np.asarray(want)
        assert got.shape == want.shape, (label, got.shape, want.shape)
        assert got.dtype == want.dtype, (label, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=label)


A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
S = np.array(5, np.int16)
E = np.zeros((0, 3), np.int64)
V = np.arange(5, dtype=np.int32)


def test_reshape_family():
    a, s, e, v = dev(A), dev(S), dev(E), dev(V)
    check([
        ("reshape -1", sh.reshape(a, (4, -1)), A.reshape(4, -1)),
        ("reshape 0-d", sh.reshape(s, (1, 1)), S.reshape(1, 1)),
        ("reshape empty", sh.reshape(e, (3, 0, 1)), E.reshape(3, 0, 1)),
        ("ravel", sh.ravel(a), A.ravel()), ("ravel 0-d", sh.ravel(s), S.ravel()),
        ("expand", sh.expand_dims(a, (0, -1)), np.expand_dims(A, (0, -1))),
        ("expand 0-d", sh.expand_dims(s, 0), np.expand_dims(S, 0)),
        ("squeeze", sh.squeeze(dev(A[:1, :, None])), A[:1, :, None].squeeze()),
        ("squeeze axis", sh.squeeze(dev(A[:1, :, None]), -2), A[:1, :, None].squeeze(-2)),
        ("transpose", sh.transpose(a), A.T), ("transpose axes", sh.transpose(a, (1, -1, 0)),
                                              A.transpose(1, -1, 0)),
        ("moveaxis", sh.moveaxis(a, (0, 1), (-1, 0)), np.moveaxis(A, (0, 1), (-1, 0))),
        ("swapaxes", sh.swapaxes(a, 0, 2), A.swapaxes(0, 2)),
        ("broadcast_to", sh.broadcast_to(v, (2, 5)), np.broadcast_to(V, (2, 5))),
        ("broadcast_to 0-d", sh.broadcast_to(s, (3,)), np.broadcast_to(S, (3,))),
        ("atleast_1d", sh.atleast_1d(s), np.atleast_1d(S)),
        ("atleast_2d", sh.atleast_2d(v), np.atleast_2d(V)),
        ("atleast_3d v", sh.atleast_3d(v), np.atleast_3d(V)),
        ("atleast_3d 2d", sh.atleast_3d(dev(A[0])), np.atleast_3d(A[0])),
        ("atleast_3d s", sh.atleast_3d(s), np.atleast_3d(S)),
        *[(f"broadcast_arrays {i}", got, want) for i, (got, want) in enumerate(zip(
            sh.broadcast_arrays(dev(A[:, :1]), dev(V[:4])),
            np.broadcast_arrays(A[:, :1], V[:4]), strict=False))],
    ])


def test_joins_and_splits():
    a, v = dev(A), dev(V)
    b = np.ones((2, 1, 4), np.int64)
    w = np.arange(3, dtype=np.float64)
    pairs = [
        ("concat", sh.concatenate([a, dev(b)], 1), np.concatenate([A, b], 1)),
        ("concat None", sh.concatenate([a, v], None), np.concatenate([A, V], None)),
        ("concat empty", sh.concatenate([dev(E), dev(E[:, :]), dev(np.ones((2, 3)))]),
         np.concatenate([E, E, np.ones((2, 3))])),
        ("stack", sh.stack([v, v], -1), np.stack([V, V], -1)),
        ("stack 0-d", sh.stack([dev(S), dev(S)]), np.stack([S, S])),
        ("hstack", sh.hstack([v, dev(w), dev(S)]), np.hstack([V, w, S])),
        ("hstack 2d", sh.hstack([a, dev(A)]), np.hstack([A, A])),
        ("vstack", sh.vstack([v, v]), np.vstack([V, V])),
        ("dstack", sh.dstack([v, v]), np.dstack([V, V])),
        ("column_stack", sh.column_stack([v, dev(np.ones((5, 2), np.int32))]),
         np.column_stack([V, np.ones((5, 2), np.int32)])),
    ]
    for args in [(3,), ([1, 3],), ([-2, 10],), ([2, 1],)]:
        for i, (got, want) in enumerate(zip(sh.array_split(v, *args), np.array_split(V, *args),
                                            strict=False)):
            pairs.append((f"array_split {args} {i}", got, want))
    for i, (got, want) in enumerate(zip(sh.split(a, 2, axis=-1), np.split(A, 2, axis=-1),
                                        strict=False)):
        pairs.append((f"split {i}", got, want))
    check(pairs)


def test_joins_errors():
    a = dev(A)
    with pytest.raises(ValueError, match="along dimension 1, the array at index 0 has size 3"):
        sh.concatenate([a, dev(np.ones((2, 2, 4)))], 0)
    with pytest.raises(ValueError, match="zero-dimensional arrays cannot be concatenated"):
        sh.concatenate([dev(S)])
    with pytest.raises(ValueError, match="must have the same shape"):
        sh.stack([a, dev(V)])
    with pytest.raises(ValueError, match="equal division"):
        sh.split(dev(V), 2)
    with pytest.raises(ValueError, match=r"array of size 24 into shape \(5,newaxis\)"):
        sh.reshape(a, (5, -1))
    with pytest.raises(ValueError, match="size not equal to one"):
        sh.squeeze(a, 0)
    with pytest.raises(IndexError, match="axis 3 is out of bounds for array of dimension 3"):
        sh.moveaxis(a, 3, 0)
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        sh.broadcast_to(a, (3, 4))


def test_rearrange():
    a, v = dev(A), dev(V)
    i8 = RNG.integers(-9, 9, (3, 4)).astype(np.int8)
    pairs = [
        ("flip", ra.flip(a), np.flip(A)), ("flip axis", ra.flip(a, (0, -1)), np.flip(A, (0, -1))),
        ("flip 0-d", ra.flip(dev(S)), np.flip(S)),
        ("roll", ra.roll(v, 2), np.roll(V, 2)), ("roll neg", ra.roll(a, -7, 1), np.roll(A, -7, 1)),
        ("roll none", ra.roll(a, 5), np.roll(A, 5)),
        ("roll multi", ra.roll(a, (1, 2, 3), (0, 2, 2)), np.roll(A, (1, 2, 3), (0, 2, 2))),
        ("roll empty", ra.roll(dev(E), 1, 0), np.roll(E, 1, 0)),
        *[(f"rot90 {k}", ra.rot90(a, k, (2, 0)), np.rot90(A, k, (2, 0))) for k in range(-1, 4)],
        ("tile", ra.tile(v, (2, 2)), np.tile(V, (2, 2))),
        ("tile short", ra.tile(a, 2), np.tile(A, 2)),
        ("tile 0", ra.tile(dev(i8), (0, 1)), np.tile(i8, (0, 1))),
        ("repeat", ra.repeat(a, 2, 1), np.repeat(A, 2, 1)), ("repeat none", ra.repeat(a, 2),
                                                             np.repeat(A, 2)),
        ("repeat list", ra.repeat(v, [0, 2, 1, 3, 0]), np.repeat(V, [0, 2, 1, 3, 0])),
        ("repeat 0-d", ra.repeat(dev(S), 3), np.repeat(S, 3)),
    ]
    for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
        for width in (2, ((1, 0), (0, 3)), ((5, 7), (1, 9))):
            pairs.append((f"pad {mode} {width}", padding.pad(dev(i8), width, mode),
                          np.pad(i8, width, mode)))
    pairs += [
        ("pad values", padding.pad(dev(i8), 1, constant_values=7),
         np.pad(i8, 1, constant_values=7)),
        ("pad pairs", padding.pad(dev(i8), (1, 2), constant_values=((1, 2), (3, 4))),
         np.pad(i8, (1, 2), constant_values=((1, 2), (3, 4)))),
        ("pad 1 elem reflect", padding.pad(dev(V[:1]), 3, "reflect"), np.pad(V[:1], 3, "reflect")),
        ("pad 0-width", padding.pad(a, 0, "edge"), np.pad(A, 0, "edge")),
    ]
    check(pairs)


def test_rearrange_errors():
    with pytest.raises(ValueError, match="can't extend empty axis 0"):
        padding.pad(dev(E), 1, "edge")
    with pytest.raises(ValueError, match="Axes must be different"):
        ra.rot90(dev(A), 1, (1, 1))
    with pytest.raises(NotImplementedError, match="'circular'"):  # not a numpy mode
        padding.pad(dev(A), 1, "circular")


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_matrix(dtype):
    m = (RNG.standard_normal((3, 4, 5)) * 4).astype(dtype)
    q = (RNG.standard_normal((4, 4)) * 4).astype(dtype)
    vec = (RNG.standard_normal(3) * 4).astype(dtype)
    M, Q, W = dev(m), dev(q), dev(vec)
    pairs = [(f"tril {k}", mx.tril(M, k), np.tril(m, k)) for k in (-2, 0, 3)]
    pairs += [(f"triu {k}", mx.triu(M, k), np.triu(m, k)) for k in (-1, 0, 9)]
    pairs += [("tril 1-d", mx.tril(W), np.tril(vec)), ("triu 1-d", mx.triu(W, 1), np.triu(vec, 1))]
    for offset, a1, a2 in [(0, 0, 1), (1, 1, 2), (-2, 2, 1), (7, 0, 2), (-3, 0, 1), (0, -1, 0)]:
        pairs.append((f"diagonal {offset} {a1} {a2}", mx.diagonal(M, offset, a1, a2),
                      np.diagonal(m, offset, a1, a2)))
    pairs += [(f"diag {k}", mx.diag(W, k), np.diag(vec, k)) for k in (0, 2, -1)]
    pairs += [(f"diag 2d {k}", mx.diag(Q, k), np.diag(q, k)) for k in (0, 1, -3, 5)]
    pairs += [("diagflat", mx.diagflat(dev(q[:2]), -1), np.diagflat(q[:2], -1))]
    if dtype != "bool":
        pairs += [("trace", mx.trace(Q), np.trace(q)), ("trace axes", mx.trace(M, 1, 2, 1),
                                                       np.trace(m, 1, 2, 1))]
    check(pairs)
