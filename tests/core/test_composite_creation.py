"""Creation composites against numpy: arange's length rule and fill
arithmetic, linspace/logspace/geomspace, eye/tri, meshgrid, indices, full."""

import numpy as np
import pytest
from lazytensor.core import Handle, Op, make
from lazytensor.core.composite.creation import arrays as cr
from lazytensor.core.runtime import get_runtime


def dev(a, dtype=None):
    return get_runtime().from_host(np.asarray(a, dtype=dtype)).node


def run(*nodes):
    handles = [Handle(make(Op.CONVERT, (n,), n.dtype) if n.is_leaf else n) for n in nodes]
    return [h.numpy() for h in handles]


def check(pairs, exact=True):
    labels, nodes, wants = zip(*pairs, strict=False)
    for label, got, want in zip(labels, run(*nodes), wants, strict=False):
        want = np.asarray(want)
        assert got.shape == want.shape, (label, got.shape, want.shape)
        assert got.dtype == want.dtype, (label, got.dtype, want.dtype)
        if exact:
            np.testing.assert_array_equal(got, want, err_msg=label)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, err_msg=label)


ARANGES = [
    (5,), (2, 9), (9, 2), (2, 9, 3), (9, 2, -2), (-3, 3, 1), (0.0, 1.0, 0.1), (0.3, 7.1, 0.37),
    (1, 2, 0.1), (10.0, -1.0, -0.7), (0.5, 5), (0, 0), (1e10, 1e10 + 5),
]


def test_arange_default_dtypes():
    check([(str(a), cr.arange(*a), np.arange(*a)) for a in ARANGES])


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "uint8", "int64"])
def test_arange_with_dtype(dtype):
    unsigned = np.dtype(dtype).kind == "u"
    cases = [a for a in ARANGES if all(abs(v) < 100 and (v >= 0 or not unsigned) for v in a)]
    check([(str(a), cr.arange(*a, dtype=np.dtype(dtype)), np.arange(*a, dtype=dtype))
           for a in cases])


def test_linspace_family():
    pairs = []
    for num in (0, 1, 2, 7, 50):
        for endpoint in (True, False):
            pairs.append((f"linspace {num} {endpoint}", cr.linspace(-1.5, 4.0, num, endpoint),
                          np.linspace(-1.5, 4.0, num, endpoint)))
    y, step = cr.linspace(2, 10, 5, retstep=True)
    want_y, want_step = np.linspace(2, 10, 5, retstep=True)
    pairs += [("retstep y", y, want_y), ("retstep step", step, np.float64(want_step)),
              ("linspace int", cr.linspace(-3, 8, 9, dtype=np.dtype("int32")),
               np.linspace(-3, 8, 9, dtype="int32")),
              ("linspace same", cr.linspace(3.0, 3.0, 4), np.linspace(3.0, 3.0, 4))]
    lo, hi = np.array([0.0, 1.0]), np.array([[5.0, 2.0], [1.0, -1.0]])
    pairs += [("linspace arrays", cr.linspace(dev(lo), dev(hi), 4, axis=-1),
               np.linspace(lo, hi, 4, axis=-1)),
              ("linspace arrays axis0", cr.linspace(dev(lo), 3.0, 3), np.linspace(lo, 3.0, 3))]
    pairs += [("logspace", cr.logspace(0, 3, 7), np.logspace(0, 3, 7)),
              ("logspace base", cr.logspace(1, -2, 5, False, base=2.0), np.logspace(1, -2, 5, False,
                                                                                    base=2.0))]
    for args in [(1, 1000, 4), (-2, -256, 9), (3, 0.5, 5, False), (2, 5, 1), (1, 8, 0)]:
        pairs.append((f"geomspace {args}", cr.geomspace(*args), np.geomspace(*args)))
    check(pairs, exact=False)


def test_matrices_grids_and_fills():
    f32 = np.dtype("float32")
    pairs = [
        ("eye", cr.eye(3), np.eye(3)), ("eye k", cr.eye(3, 5, 2, f32), np.eye(3, 5, 2, f32)),
        ("eye -k", cr.eye(4, 2, -1, np.dtype(bool)), np.eye(4, 2, -1, bool)),
        ("eye 0", cr.eye(0), np.eye(0)), ("identity", cr.identity(2, f32), np.identity(2, f32)),
        ("tri", cr.tri(3, 4, 1), np.tri(3, 4, 1)), ("tri int", cr.tri(4, k=-2, dtype=np.dtype(int)),
                                                     np.tri(4, k=-2, dtype=int)),
        ("indices", cr.indices((2, 3)), np.indices((2, 3))),
        ("indices 1", cr.indices((4,), np.dtype("int32")), np.indices((4,), "int32")),
        ("full", cr.full((2, 2), 7.5, f32), np.full((2, 2), 7.5, f32)),
        ("zeros", cr.zeros(3, np.dtype(bool)), np.zeros(3, bool)),
        ("ones", cr.ones((0, 2), np.dtype("int8")), np.ones((0, 2), "int8")),
        ("full node", cr.full((2, 3), dev(np.arange(3.0)), f32),
         np.full((2, 3), np.arange(3.0), f32)),
        ("iota", cr.iota((2, 3), 1, np.dtype("int32")), np.indices((2, 3), "int32")[1]),
    ]
    pairs += [(f"sparse indices {i}", got, want) for i, (got, want) in enumerate(zip(
        cr.indices((2, 3, 4), sparse=True), np.indices((2, 3, 4), sparse=True), strict=False))]
    x, y, z = np.arange(3.0), np.arange(4, dtype=np.int32), np.arange(2.0)
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            got = cr.meshgrid(dev(x), dev(y), dev(z), indexing=indexing, sparse=sparse)
            want = np.meshgrid(x, y, z, indexing=indexing, sparse=sparse)
            pairs += [(f"meshgrid {indexing} {sparse} {i}", g, w)
                      for i, (g, w) in enumerate(zip(got, want, strict=False))]
    check(pairs)


def test_creation_errors():
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        cr.zeros((2, -1), np.dtype("float32"))
    with pytest.raises(ValueError, match="must be non-negative"):
        cr.linspace(0, 1, -1)
    with pytest.raises(ValueError, match="cannot include zero"):
        cr.geomspace(0, 1)
