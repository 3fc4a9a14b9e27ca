"""Numerical programs: Conway's game of life with np.roll, power iteration,
scaled dot-product attention with a causal mask, einsum contractions,
polynomial fitting with a Vandermonde matrix, moving averages and a
finite-difference heat equation."""

from __future__ import annotations

import numpy
from program_case import Case


def game_of_life(np, board):
    """Five generations on a torus: neighbour counts from eight np.roll
    shifts, the birth/survival rule with boolean logic, population history."""
    grid = board.astype(bool)
    history = []
    for _ in range(5):
        n = sum(np.roll(np.roll(grid, dy, axis=0), dx, axis=1).astype(np.int8)
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
        grid = (n == 3) | (grid & (n == 2))
        history.append(int(grid.sum()))
    return grid, history, n.dtype.name, np.argwhere(grid)


def _make_board(rng):
    return (rng.random((10, 10)) < 0.35).astype(numpy.uint8),


def power_iteration(np, A):
    """Dominant eigenpair by power iteration with a `while` on convergence,
    the Rayleigh quotient, deflation and a comparison against eigvalsh."""
    A = (A + A.T) / 2
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam, it = 0.0, 0
    while it < 200:
        w = A @ v
        v_new = w / np.linalg.norm(w)
        lam_new = v_new @ A @ v_new
        it += 1
        if abs(lam_new - lam) < 1e-12:
            break
        v, lam = v_new, lam_new
    v = v_new * np.sign(v_new[np.argmax(np.abs(v_new))])
    deflated = A - lam_new * np.outer(v, v)
    top = np.linalg.eigvalsh(A)[-1]
    return v, float(lam_new), bool(abs(top - lam_new) < 1e-8), np.linalg.eigvalsh(deflated)


def _make_spd(rng):
    M = rng.normal(size=(5, 5))
    return M @ M.T + numpy.diag([10.0, 0, 0, 0, 0]),


def attention(np, Q, K, V):
    """Scaled dot-product attention in float32 with a causal mask from
    np.triu, -inf filling via np.where, a stable softmax, multi-head
    reshapes with transpose, and einsum for the same scores."""
    b, t, d = Q.shape
    h = 2
    Q, K, V = (a.astype(np.float32) for a in (Q, K, V))
    q = Q.reshape(b, t, h, d // h).transpose(0, 2, 1, 3)
    k = K.reshape(b, t, h, d // h).transpose(0, 2, 1, 3)
    v = V.reshape(b, t, h, d // h).transpose(0, 2, 1, 3)
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d // h)
    mask = np.triu(np.ones((t, t), dtype=bool), k=1)
    scores = np.where(mask, -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    out = (weights @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
    scores2 = np.einsum("bhqd,bhkd->bhqk", q, k) / np.float32(np.sqrt(d // h))
    return out, weights, np.isinf(scores).sum(), scores2[..., 0, 0]


def _make_qkv(rng):
    return tuple(rng.normal(size=(2, 5, 4)) for _ in range(3))


def einsum_contractions(np, A, B, v):
    """The einsum spellings people use, checked against their direct forms."""
    return (
        np.einsum("ij,jk->ik", A, B), A @ B,
        np.einsum("ii->", A[:, :3][:3]), np.trace(A[:3, :3]),
        np.einsum("ii->i", A[:3, :3]),
        np.einsum("i,j->ij", v, v),
        np.einsum("ij->ji", A),
        np.einsum("ij->", A), np.einsum("ij->j", A),
        np.einsum("i,ij,j->", v, A[:3, :3], v),
        np.einsum("bij,bjk->bik", np.stack([A, A]), np.stack([B, 2 * B])),
        np.einsum("...i,...i->...", A, A),
        np.einsum(A, [0, 1], B, [1, 2], [0, 2]),
        np.einsum("ij,ij->i", A, A, optimize=True),
    )


def _make_einsum(rng):
    return rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=3)


def polynomial_fit(np, x, y):
    """Least-squares polynomial fit through np.vander and the normal
    equations, Horner evaluation in a loop, np.polyfit/np.polyval, and the
    R^2 of the fit."""
    V = np.vander(x, 3)
    coef = np.linalg.solve(V.T @ V, V.T @ y)
    fit = np.zeros_like(x)
    for c in coef:
        fit = fit * x + c
    coef2 = np.polyfit(x, y, 2)
    fit2 = np.polyval(coef2, x)
    ss_res = np.sum((y - fit) ** 2)
    ss_tot = np.sum((y - y.mean()) ** 2)
    return coef, fit, coef2, fit2, 1 - ss_res / ss_tot


def _make_poly(rng):
    x = numpy.linspace(-1, 1, 15)
    return x, 2 * x**2 - x + 0.5 + 0.05 * rng.normal(size=15)


def smoothing(np, signal):
    """Moving averages by cumsum differences and np.convolve, exponential
    smoothing in a loop with element writes, np.diff/np.gradient and local
    maxima found with boolean logic on shifted slices."""
    w = 4
    c = np.cumsum(np.insert(signal, 0, 0.0))
    ma = (c[w:] - c[:-w]) / w
    ma2 = np.convolve(signal, np.ones(w) / w, mode="valid")
    ema = np.empty_like(signal)
    ema[0] = signal[0]
    for i in range(1, len(signal)):
        ema[i] = 0.3 * signal[i] + 0.7 * ema[i - 1]
    d = np.diff(signal)
    g = np.gradient(signal)
    peaks = np.flatnonzero((signal[1:-1] > signal[:-2]) & (signal[1:-1] > signal[2:])) + 1
    return ma, ma2, ema, d, g, peaks


def _make_signal(rng):
    t = numpy.linspace(0, 4 * numpy.pi, 16)
    return numpy.sin(t) + 0.2 * rng.normal(size=16),


def heat_equation(np, u0):
    """Explicit finite differences for u_t = u_xx with fixed ends: slice
    arithmetic on u[1:-1], in-place updates, a 2-D Laplacian with np.pad,
    and total heat tracked each step."""
    u = u0.copy()
    totals = []
    for _ in range(20):
        u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
        totals.append(u.sum())
    grid = np.outer(u0, u0)
    for _ in range(3):
        p = np.pad(grid, 1)
        grid = grid + 0.1 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * grid)
    return u, np.array(totals), grid


def _make_heat(rng):
    u = numpy.zeros(16)
    u[6:10] = 1.0
    return u,


def mandelbrot(np, c):
    """The numpy tutorial's Mandelbrot set: complex arithmetic, a boolean
    mask from z * conj(z), masked assignment of the iteration count and of
    z itself, in a loop."""
    maxit = 12
    z = c.copy()
    divtime = maxit + np.zeros(z.shape, dtype=int)
    for i in range(maxit):
        z = z**2 + c
        diverge = z * np.conj(z) > 2**2
        div_now = diverge & (divtime == maxit)
        divtime[div_now] = i
        z[diverge] = 2
    return divtime, np.abs(z).round(6), (divtime == maxit).mean()


def _make_grid(rng):
    y, x = numpy.ogrid[-1.4:1.4:9j, -2:0.8:11j]
    return x + y * 1j,


CASES = [
    Case("mandelbrot", mandelbrot, _make_grid),
    Case("game_of_life", game_of_life, _make_board),
    Case("power_iteration", power_iteration, _make_spd, rtol=1e-7),
    Case("attention", attention, _make_qkv),
    Case("einsum_contractions", einsum_contractions, _make_einsum),
    Case("polynomial_fit", polynomial_fit, _make_poly,
         frozenset({"numpy.vander", "numpy.polyfit", "numpy.polyval"}), rtol=1e-7),
    Case("smoothing", smoothing, _make_signal,
         frozenset({"numpy.insert", "numpy.convolve", "numpy.gradient"})),
    Case("heat_equation", heat_equation, _make_heat),
]
