"""Linear-algebra programs: Gram-Schmidt with column writes, QR, Cholesky
solves, determinants and inverses of batches, integer matrix powers, the
matrix exponential by a truncated series, word-count style ranking."""

from __future__ import annotations

import numpy
from program_case import Case


def gram_schmidt(np, A):
    """Classical Gram-Schmidt filling Q column by column, checked against
    np.linalg.qr up to signs, plus orthogonality as a Python bool."""
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for j in range(n):
        v = A[:, j].copy()
        for i in range(j):
            R[i, j] = Q[:, i] @ A[:, j]
            v -= R[i, j] * Q[:, i]
        R[j, j] = np.linalg.norm(v)
        Q[:, j] = v / R[j, j]
    Q2, R2 = np.linalg.qr(A)
    signs = np.sign(np.diag(R2))
    orthogonal = bool(np.allclose(Q.T @ Q, np.eye(n)))
    return Q, R, Q2 * signs, (R2.T * signs).T, orthogonal


def _make_tall(rng):
    return rng.normal(size=(6, 3)),


def solves(np, M, b):
    """An SPD system by Cholesky and two triangular solves (via solve),
    batched determinants, inverses and log-determinants, integer matrix
    powers (Fibonacci), and the matrix exponential by a series."""
    S = M @ M.T + 4 * np.eye(4)
    L = np.linalg.cholesky(S)
    y = np.linalg.solve(L, b)
    x = np.linalg.solve(L.T, y)
    residual = np.abs(S @ x - b).max()
    batch = np.stack([S, 2 * S, S + np.eye(4)])
    dets = np.linalg.det(batch)
    sign, logdet = np.linalg.slogdet(batch)
    invs = np.linalg.inv(batch)
    fib = np.linalg.matrix_power(np.array([[1, 1], [1, 0]]), 20)
    E = np.eye(2)
    term = np.eye(2)
    G = np.array([[0.0, 1.0], [-1.0, 0.0]])
    for k in range(1, 15):
        term = term @ G / k
        E = E + term
    return x, residual < 1e-10, dets, sign, logdet, invs, fib, fib.dtype.name, E


def _make_solve(rng):
    return rng.normal(size=(4, 4)), rng.normal(size=4)


def token_counts(np, tokens, vocab_size):
    """Bag-of-words counting on integer tokens: np.unique with counts,
    the top-k by argsort of negated counts, np.isin filtering of stop
    tokens, tf-idf style weights over a (docs x vocab) count matrix."""
    vocab_size = int(vocab_size[0])
    values, counts = np.unique(tokens, return_counts=True)
    top = values[np.argsort(-counts, kind="stable")[:3]]
    stop = np.array([0, 1])
    kept = tokens[~np.isin(tokens, stop)]
    docs = tokens.reshape(4, -1)
    tf = np.zeros((4, vocab_size))
    for d in range(4):
        for t in docs[d]:
            tf[d, t] += 1
    df = (tf > 0).sum(axis=0)
    idf = np.log((1 + 4) / (1 + df)) + 1
    tfidf = tf * idf
    tfidf /= np.linalg.norm(tfidf, axis=1, keepdims=True)
    return values, counts, top, kept, tf, idf, tfidf


def _make_tokens(rng):
    return rng.integers(0, 6, size=12), numpy.array([6])


CASES = [
    Case("gram_schmidt", gram_schmidt, _make_tall),
    Case("solves", solves, _make_solve, rtol=1e-8),
    Case("token_counts", token_counts, _make_tokens),
]
