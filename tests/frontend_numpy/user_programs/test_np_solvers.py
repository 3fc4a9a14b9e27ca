"""Numerical solvers (iterative and direct linear solvers, Newton,
interpolation, decompositions). Each test writes an ordinary numpy program
once, runs it with numpy and with ``lazytensor.numpy`` on the same data and
compares (``np_compare.check``: values with a dtype-fitting tolerance,
dtype, shape, Python types; a third run compiles nothing; no eager fallback
but the ones a program names)."""


from __future__ import annotations

import numpy as np
import pytest
from np_compare import check


def markov_chain(np, P, seed):
    """A Markov chain's stationary distribution three ways: the eigenvector
    of P^T for eigenvalue 1 (np.linalg.eig, complex results made real),
    np.linalg.matrix_power, and a least-squares solve of (P^T - I) pi = 0
    with sum(pi) = 1; then a simulated path's visit frequencies."""
    P = P / P.sum(axis=1, keepdims=True)
    w, v = np.linalg.eig(P.T)
    k = np.argmin(np.abs(w - 1))
    pi_eig = np.real(v[:, k]) / np.real(v[:, k]).sum()
    pi_pow = np.linalg.matrix_power(P, 64)[0]
    n = P.shape[0]
    A = np.vstack([P.T - np.eye(n), np.ones((1, n))])
    b = np.zeros(n + 1)
    b[-1] = 1
    pi_lsq = np.linalg.lstsq(A, b, rcond=None)[0]
    rng = np.random.default_rng(seed)
    cum = np.cumsum(P, axis=1)
    state, visits = 0, np.zeros(n, dtype=np.int64)
    for u in rng.random(300):
        state = int(np.searchsorted(cum[state], u))
        visits[state] += 1
    return pi_eig, pi_pow, pi_lsq, visits, bool(np.allclose(pi_eig, pi_lsq))


def vectorized_newton(np, a):
    """Cube roots of many numbers at once by Newton's method, iterating
    while any point has not converged and freezing the converged ones."""
    x = np.where(a > 1, a / 3, 1.0)
    done = np.zeros(a.shape, dtype=bool)
    iters = 0
    while not np.all(done) and iters < 60:
        fx = x ** 3 - a
        step = fx / (3 * x ** 2)
        x = np.where(done, x, x - step)
        done |= np.abs(step) < 1e-12 * np.abs(x)
        iters += 1
    return x, iters, float(np.max(np.abs(x - np.cbrt(a))))


def csr_matvec(np, dense, x):
    """Sparse matrix times vector in CSR form built by hand: np.nonzero for
    the pattern, row pointers from np.bincount + np.cumsum, products summed
    per row with np.add.reduceat and with np.repeat + np.bincount; a few
    Jacobi iterations on the same matrix."""
    rows, cols = np.nonzero(dense)
    data = dense[rows, cols]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=dense.shape[0]))])
    prod = data * x[cols]
    y1 = np.add.reduceat(prod, indptr[:-1])
    row_of = np.repeat(np.arange(dense.shape[0]), np.diff(indptr))
    y2 = np.bincount(row_of, weights=prod, minlength=dense.shape[0])
    diag = np.diag(dense)
    u = np.zeros_like(x)
    for _ in range(10):
        Au = np.bincount(row_of, weights=data * u[cols], minlength=dense.shape[0])
        u = u + (x - Au) / diag
    return y1, y2, indptr, u, float(np.linalg.norm(dense @ u - x))


def svd_compression(np, img):
    """Low-rank approximation of a float32 image with the SVD: the energy
    captured per rank (cumsum of squared singular values), the smallest rank
    keeping 95%, relative Frobenius errors, and the result as uint8."""
    U, s, Vt = np.linalg.svd(img, full_matrices=False)
    energy = np.cumsum(s ** 2) / np.sum(s ** 2)
    k = int(np.searchsorted(energy, 0.95) + 1)
    errors = []
    for r in (1, 2, 4, k):
        approx = (U[:, :r] * s[:r]) @ Vt[:r]
        errors.append(float(np.linalg.norm(img - approx) / np.linalg.norm(img)))
    approx = (U[:, :k] * s[:k]) @ Vt[:k]
    return s, energy, k, np.round(errors, 4), np.clip(approx, 0, 255).astype(np.uint8).dtype.str


def jacobi_and_gauss_seidel(np, A, b):
    """A diagonally dominant system solved three ways: Jacobi with the
    diagonal split off (np.diag, np.diagflat), Gauss-Seidel row by row with
    a Python loop over rows, and np.linalg.solve; iteration counts stop on a
    residual norm read as a float."""
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for it_j in range(200):  # noqa: B007  (returned)
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x, ord=np.inf) < 1e-10:
            break
        x = x_new
    xg = np.zeros_like(b)
    n = len(b)
    for it_g in range(200):  # noqa: B007  (returned)
        for i in range(n):
            xg[i] = (b[i] - A[i, :i] @ xg[:i] - A[i, i + 1:] @ xg[i + 1:]) / A[i, i]
        if np.linalg.norm(A @ xg - b) < 1e-10:
            break
    exact = np.linalg.solve(A, b)
    return x_new, xg, exact, it_j, it_g, bool(np.allclose(xg, exact))


def sor_poisson(np, rhs, omega):
    """Successive over-relaxation for the Poisson equation on a grid, row
    by row with slice writes (each row uses the row above it as already
    updated), stopping on the max change; the residual of the final grid."""
    n = rhs.shape[0]
    h2 = (1.0 / (n - 1)) ** 2
    u = np.zeros_like(rhs)
    for sweep in range(60):  # noqa: B007  (returned)
        old = u.copy()
        for i in range(1, n - 1):
            gs = 0.25 * (u[i - 1, 1:-1] + u[i + 1, 1:-1] + u[i, :-2] + u[i, 2:] - h2 * rhs[i, 1:-1])
            u[i, 1:-1] = (1 - omega) * u[i, 1:-1] + omega * gs
        change = np.abs(u - old).max()
        if change < 1e-6:
            break
    res = np.zeros_like(u)
    res[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                       - 4 * u[1:-1, 1:-1]) / h2 - rhs[1:-1, 1:-1]
    return u, sweep, float(change), float(np.sqrt(np.mean(res ** 2)))


def factorizations(np, A, b):
    """Least squares by QR (np.linalg.qr, then a triangular solve done with
    np.linalg.solve), normal equations by Cholesky, determinant two ways
    (np.linalg.det and slogdet), the inverse checked with np.allclose, the
    condition number and the matrix rank."""
    Q, R = np.linalg.qr(A)
    x_qr = np.linalg.solve(R, Q.T @ b)
    G = A.T @ A
    L = np.linalg.cholesky(G)
    z = np.linalg.solve(L, A.T @ b)
    x_ch = np.linalg.solve(L.T, z)
    sign, logdet = np.linalg.slogdet(G)
    det = np.linalg.det(G)
    inv_ok = np.allclose(np.linalg.inv(G) @ G, np.eye(G.shape[0]))
    cond = np.linalg.cond(A)
    rank = np.linalg.matrix_rank(A)
    resid = b - A @ x_qr
    return (x_qr, x_ch, float(sign * np.exp(logdet)), float(det), inv_ok,
            float(cond), int(rank), np.abs(Q.T @ resid).max() < 1e-10)


def newton_system(np, x0):
    """Newton's method for a nonlinear system with a forward-difference
    Jacobian built column by column (np.eye columns as steps), damped by a
    backtracking line search on the residual norm read as a float."""
    def F(v):
        x, y, z = v
        return np.array([x ** 2 + y ** 2 + z ** 2 - 3.0, x * y * z - 1.0, np.exp(x - 1) - y])

    v = x0.astype(float)
    history = []
    for it in range(30):  # noqa: B007  (returned)
        f = F(v)
        norm = float(np.linalg.norm(f))
        history.append(norm)
        if norm < 1e-12:
            break
        J = np.empty((3, 3))
        for j, e in enumerate(np.eye(3)):
            J[:, j] = (F(v + 1e-7 * e) - f) / 1e-7
        step = np.linalg.solve(J, -f)
        t = 1.0
        while np.linalg.norm(F(v + t * step)) > (1 - 1e-4 * t) * norm and t > 1e-3:
            t *= 0.5
        v = v + t * step
    return v, it, np.array(history)


def chebyshev_interpolation(np, f_samples, x_eval):
    """Barycentric interpolation on Chebyshev points: the weights with
    alternating signs, the formula with np.subtract.outer, exact hits
    patched with np.isclose and np.where, and the max error against the
    function on a fine grid compared with equispaced nodes."""
    n = len(f_samples) - 1
    k = np.arange(n + 1)
    nodes = np.cos(np.pi * k / n)
    w = (-1.0) ** k
    w[[0, -1]] *= 0.5
    d = np.subtract.outer(x_eval, nodes)
    hit = np.isclose(d, 0, atol=1e-14)
    d = np.where(hit, 1.0, d)
    c = w / d
    p = (c @ f_samples) / c.sum(axis=1)
    exact_idx = np.argmax(hit, axis=1)
    p = np.where(hit.any(axis=1), f_samples[exact_idx], p)
    runge = 1 / (1 + 25 * x_eval ** 2)
    equi = np.linspace(-1, 1, n + 1)
    V = np.vander(equi, increasing=True)
    coef = np.linalg.solve(V, 1 / (1 + 25 * equi ** 2))
    p_equi = np.vander(x_eval, n + 1, increasing=True) @ coef
    return p, float(np.max(np.abs(p - runge))), float(np.max(np.abs(p_equi - runge))), nodes


def simplex(np, A, b, c):
    """Maximise c x subject to A x <= b, x >= 0 by the tableau simplex
    method: slack columns by np.hstack with np.eye, the entering column by
    argmin of the objective row, the ratio test with np.where and np.inf,
    and pivoting by in-place row operations; then Gauss-Jordan inversion."""
    m, n = A.shape
    T = np.zeros((m + 1, n + m + 1))
    T[:m, :n] = A
    T[:m, n:n + m] = np.eye(m)
    T[:m, -1] = b
    T[-1, :n] = -c
    basis = list(range(n, n + m))
    pivots = 0
    while T[-1, :-1].min() < -1e-12 and pivots < 20:
        col = int(np.argmin(T[-1, :-1]))
        up = T[:m, col] > 1e-12
        ratios = np.where(up, T[:m, -1] / np.where(up, T[:m, col], 1), np.inf)
        row = int(np.argmin(ratios))
        T[row] /= T[row, col]
        for i in range(m + 1):
            if i != row:
                T[i] -= T[i, col] * T[row]
        basis[row] = col
        pivots += 1
    x = np.zeros(n + m)
    x[basis] = T[:m, -1]
    S = A @ A.T + np.eye(m)
    M = np.hstack([S, np.eye(m)])
    for k in range(m):
        p = k + int(np.argmax(np.abs(M[k:, k])))
        M[[k, p]] = M[[p, k]]
        M[k] /= M[k, k]
        M[np.arange(m) != k] -= np.outer(M[np.arange(m) != k, k], M[k])
    return x[:n], T[-1, -1], pivots, basis, M[:, m:]


def conjugate_gradient(np, A, b, tol):
    """Conjugate gradient for a symmetric positive definite system with a
    Python loop that stops when the residual norm falls below tol (read from
    the lazy value), returning the solution, the residual history and the
    error against np.linalg.solve."""
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    history = []
    for _ in range(len(b)):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        history.append(float(np.sqrt(rs_new)))
        if np.sqrt(rs_new) < tol:
            break
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x, len(history), np.linalg.norm(x - np.linalg.solve(A, b)) < 1e-6


def gauss_seidel_rows(np, A, b, sweeps):
    """Gauss-Seidel with a Python loop over the rows, each row updated in
    place from the newest values (x[i] = ...), and the residual norm after
    each sweep."""
    n = len(b)
    x = np.zeros(n)
    res = []
    for _ in range(sweeps):
        for i in range(n):
            s = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
            x[i] = (b[i] - s) / A[i, i]
        res.append(np.linalg.norm(A @ x - b))
    return x, np.array(res)


def polynomials_and_linalg(np, coeffs, M):
    """Horner evaluation by np.polyval against a hand-written Horner loop,
    the roots' product against the constant term, and linalg identities:
    det of a product, inv, matrix_power, QR reconstruction and lstsq."""
    xs = np.linspace(-2, 2, 9)
    horner = np.zeros_like(xs)
    for c in coeffs:
        horner = horner * xs + c
    pv = np.polyval(coeffs, xs)
    det_prod = np.linalg.det(M @ M.T)
    inv = np.linalg.inv(M)
    p3 = np.linalg.matrix_power(M, 3)
    q, r = np.linalg.qr(M)
    sol, resid, rank, sv = np.linalg.lstsq(M[:, :3], xs[:5], rcond=None)
    return (horner, pv, det_prod, np.linalg.det(M) ** 2, inv @ M, p3, q @ r,
            np.allclose(q.T @ q, np.eye(5)), sol, resid, int(rank), sv)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_markov_chain_stationary_distribution():
    rng = np.random.default_rng(21)
    # np.linalg.eig (a general eigenproblem) has no core op: it runs numpy's
    check(markov_chain, rng.random((4, 4)) + 0.1, 5, rtol=1e-8,
          fallbacks={"numpy.linalg.eig"})


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_vectorized_newton_cube_roots():
    check(vectorized_newton, np.geomspace(0.01, 1e6, 25), rtol=1e-12)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_csr_matvec_and_jacobi():
    rng = np.random.default_rng(26)
    A = np.where(rng.random((12, 12)) < 0.25, rng.normal(size=(12, 12)), 0.0)
    A += np.diag(np.abs(A).sum(axis=1) + 1.0)
    check(csr_matvec, A, rng.normal(size=12))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_svd_image_compression():
    rng = np.random.default_rng(32)
    y, x = np.mgrid[0:24, 0:32]
    img = (100 + 60 * np.sin(x / 5.0) * np.cos(y / 7.0) + rng.normal(0, 5, (24, 32)))
    check(svd_compression, img.astype(np.float32), rtol=2e-4)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_jacobi_and_gauss_seidel_solvers():
    rng = np.random.default_rng(112)
    n = 6
    A = rng.normal(size=(n, n))
    A += np.diag(np.abs(A).sum(axis=1) + 1)
    check(jacobi_and_gauss_seidel, A, rng.normal(size=n), rtol=1e-8)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_sor_with_row_slice_writes():
    n = 10
    y, x = np.mgrid[0:1:n * 1j, 0:1:n * 1j]
    check(sor_poisson, np.sin(np.pi * x) * np.sin(np.pi * y), 1.5, rtol=1e-8)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_qr_cholesky_least_squares_and_determinants():
    rng = np.random.default_rng(113)
    A = rng.normal(size=(12, 4))
    check(factorizations, A, A @ np.arange(1.0, 5.0) + 0.01 * rng.normal(size=12), rtol=1e-8)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_newton_for_a_nonlinear_system():
    check(newton_system, np.array([2, 0.5, 1.5]), rtol=1e-6)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_chebyshev_barycentric_interpolation():
    n = 16
    nodes = np.cos(np.pi * np.arange(n + 1) / n)
    check(chebyshev_interpolation, 1 / (1 + 25 * nodes ** 2),
          np.concatenate([np.linspace(-1, 1, 41), nodes[:3]]), rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.slow  # a graph per pivot and per shrinking slice: ~10 s of compile
def test_simplex_tableau_and_gauss_jordan_pivots():
    rng = np.random.default_rng(154)
    check(simplex, rng.uniform(1, 5, (4, 3)), rng.uniform(5, 10, 4), rng.uniform(1, 3, 3))


@pytest.mark.usefixtures('own_runtime')
def test_conjugate_gradient_until_converged():
    rng = np.random.default_rng(156)
    M = rng.normal(size=(12, 12))
    check(conjugate_gradient, M @ M.T + 12 * np.eye(12), rng.normal(size=12), 1e-10)


@pytest.mark.usefixtures('own_runtime')
def test_gauss_seidel_over_rows_in_place():
    rng = np.random.default_rng(157)
    A = rng.uniform(-1, 1, (6, 6)) + 8 * np.eye(6)
    check(gauss_seidel_rows, A, rng.normal(size=6), 4)


@pytest.mark.usefixtures('own_runtime')
def test_polyval_horner_and_linalg_identities():
    rng = np.random.default_rng(158)
    check(polynomials_and_linalg, rng.normal(size=5), rng.normal(size=(5, 5)) + 2 * np.eye(5))
