"""The core's linear algebra and framing shared by tf.linalg / tf.signal
and the numpy and torch frontends, checked against numpy alone (no
framework): complex (adjoint) Cholesky solves, band and diagonal matrices,
the matrix exponential, normal-equation least squares, framing and
overlap-add, transform-length fitting and fftshift."""

from __future__ import annotations

import numpy as np
import pytest
from core_nodes import check, dev
from lazytensor.core.composite.linalg import decompositions as nl
from lazytensor.core.composite.linalg import lstsq as cls
from lazytensor.core.composite.linalg import matmul as cl
from lazytensor.core.composite.signal import fft as fourier

RNG = np.random.default_rng(0)


def _hpd(n, dtype):
    x = RNG.standard_normal((2, n, n)) + (1j * RNG.standard_normal((2, n, n))
                                          if np.dtype(dtype).kind == "c" else 0)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse_use_the_adjoint(dtype, upper):
    a = _hpd(4, dtype)
    low = np.linalg.cholesky(a)
    factor = np.conj(np.swapaxes(low, -1, -2)) if upper else low
    b = RNG.standard_normal((2, 4, 3)).astype(dtype)
    check(cl.cholesky_solve(dev(factor), dev(b), upper), np.linalg.solve(a, b), rtol=1e-10)
    check(cl.cholesky_inverse(dev(factor), upper), np.linalg.inv(a), rtol=1e-10)


def test_triangular_solve_adjoint():
    a = np.tril(RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))) + 3 * np.eye(3)
    b = RNG.standard_normal((3, 2)) + 0j
    got = cl.triangular_solve(dev(a), dev(b), lower=True, transpose=True, conjugate=True)
    check(got, np.linalg.solve(a.conj().T, b), rtol=1e-12)


@pytest.mark.parametrize(("lower", "upper"), [(0, 0), (1, 2), (-1, 0), (0, -1), (-1, -1)])
def test_band_part(lower, upper):
    x = RNG.standard_normal((2, 4, 5))
    i, j = np.arange(4)[:, None], np.arange(5)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    check(cl.band_part(dev(x), lower, upper), np.where(keep, x, 0.0))


@pytest.mark.parametrize(("k", "rows", "cols"), [(0, None, None), (2, None, None),
                                                  (-1, None, None), (1, 3, 6), (-2, 6, 3)])
def test_diag_embed(k, rows, cols):
    v = RNG.standard_normal((2, 3))
    got = cl.diag_embed(dev(v), k, rows, cols, padding=9.0)
    n = 3 + abs(k)
    shape = (rows or n, cols or n)
    want = np.full((2, *shape), 9.0)
    for b in range(2):
        for i in range(3):
            r, c = (i, i + k) if k >= 0 else (i - k, i)
            want[b, r, c] = v[b, i]
    check(got, want)


def test_diag_embed_rejects_a_diagonal_that_does_not_fit():
    from lazytensor.core.registry import ShapeError

    with pytest.raises(ShapeError):
        cl.diag_embed(dev(np.ones(3)), 0, 5, 5)


def _expm_reference(m: np.ndarray) -> np.ndarray:
    """exp(m) in double precision: a 30-term Taylor series of m / 2**s,
    squared s times."""
    s = max(0, int(np.ceil(np.log2(max(np.abs(m).sum(0).max(), 1e-300)))) + 1)
    a = m.astype(np.complex128) / 2.0 ** s
    term, total = np.eye(len(m), dtype=a.dtype), np.eye(len(m), dtype=a.dtype)
    for k in range(1, 30):
        term = term @ a / k
        total = total + term
    for _ in range(s):
        total = total @ total
    return total if np.iscomplexobj(m) else total.real


@pytest.mark.parametrize(("dtype", "scale"), [("float64", 0.1), ("float64", 30.0),
                                              ("float32", 3.0), ("complex128", 5.0)])
def test_expm(dtype, scale):
    x = RNG.standard_normal((2, 4, 4)) * scale / 4
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal((2, 4, 4)) * scale / 4
    x = x.astype(dtype)
    wide = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    want = np.stack([_expm_reference(m) for m in wide]).astype(dtype)
    check(nl.expm(dev(x)), want, rtol=1e-4 if dtype == "float32" else 1e-9,
          atol=(1e-4 if dtype == "float32" else 1e-9) * np.abs(want).max())


def test_cholesky_logdet():
    a = _hpd(3, "complex128")
    check(nl.cholesky_logdet(dev(a)), np.linalg.slogdet(a)[1], rtol=1e-10)


@pytest.mark.parametrize(("shape", "l2"), [((6, 3), 0.0), ((6, 3), 0.7), ((3, 5), 0.0),
                                           ((3, 5), 0.2)])
def test_normal_lstsq(shape, l2):
    a = RNG.standard_normal((2, *shape))
    b = RNG.standard_normal((2, shape[0], 2))
    m, n = shape
    at = np.swapaxes(a, -1, -2)
    want = (np.linalg.solve(at @ a + l2 * np.eye(n), at @ b) if m >= n else
            at @ np.linalg.solve(a @ at + l2 * np.eye(m), b))
    check(cls.normal_lstsq(dev(a), dev(b), l2), want, rtol=1e-9)


@pytest.mark.parametrize(("n", "length", "step", "pad_end"),
                         [(10, 4, 3, False), (10, 4, 3, True), (3, 4, 2, False),
                          (12, 4, 4, True)])
def test_frame(n, length, step, pad_end):
    x = np.arange(2 * n, dtype=np.float64).reshape(2, n)
    count = fourier.frame_count(n, length, step, pad_end)
    padded = np.concatenate([x, np.full((2, length + count * step), -1.0)], 1)
    want = np.stack([padded[:, f * step:f * step + length] for f in range(count)], 1) \
        if count else np.zeros((2, 0, length))
    check(fourier.frame(dev(x), length, step, 1, pad_end, -1.0), want)


@pytest.mark.parametrize(("count", "length", "step"), [(5, 8, 4), (4, 8, 3), (3, 4, 5),
                                                       (1, 6, 2)])
def test_overlap_and_add(count, length, step):
    frames = RNG.standard_normal((2, count, length))
    want = np.zeros((2, (count - 1) * step + length))
    for f in range(count):
        want[:, f * step:f * step + length] += frames[:, f]
    check(fourier.overlap_and_add(dev(frames), step), want)


def test_fit_and_fftshift():
    x = RNG.standard_normal((3, 5))
    check(fourier.fit(dev(x), 1, 7), np.pad(x, ((0, 0), (0, 2))))
    check(fourier.fitted(dev(x), (0, 1), (2, None)), x[:2])
    check(fourier.fftshift(dev(x)), np.fft.fftshift(x))
    check(fourier.fftshift(dev(x), (1,), inverse=True), np.fft.ifftshift(x, axes=1))
