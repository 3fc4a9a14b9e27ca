"""Data-wrangling programs: random walks, standardisation, pairwise
distances, one-hot encoding and confusion matrices, ranking, masks,
in-place updates in loops, split/stack pipelines."""

from __future__ import annotations

import numpy
from program_case import Case


def random_walk(np, steps):
    """A +-1 random walk: cumsum, first passage with argmax on a mask, the
    running maximum and the worst drawdown, a running mean."""
    walk = np.concatenate([[0], np.cumsum(steps)])
    hit = np.abs(walk) >= 5
    first = int(np.argmax(hit)) if hit.any() else -1
    running_max = np.maximum.accumulate(walk)
    drawdown = (running_max - walk).max()
    running_mean = np.cumsum(walk) / np.arange(1, len(walk) + 1)
    returns_to_zero = np.sum(walk[1:] == 0)
    return walk, first, running_max, drawdown, running_mean, returns_to_zero


def _make_walk(rng):
    return rng.choice(numpy.array([-1, 1]), size=60),


def standardize(np, X):
    """Column z-scores with keepdims, min-max scaling with np.ptp, robust
    scaling with the median and percentiles, and NaN-aware statistics
    after knocking out entries with a mask assignment."""
    mu = X.mean(axis=0, keepdims=True)
    sd = X.std(axis=0, ddof=1, keepdims=True)
    Z = (X - mu) / sd
    mm = (X - X.min(axis=0)) / np.ptp(X, axis=0)
    med = np.median(X, axis=0)
    q1, q3 = np.percentile(X, [25, 75], axis=0)
    robust = (X - med) / (q3 - q1)
    Xn = X.copy()
    Xn[Xn > 1.5] = np.nan
    col_means = np.nanmean(Xn, axis=0)
    filled = np.where(np.isnan(Xn), col_means, Xn)
    row_norm = X / np.linalg.norm(X, axis=1, keepdims=True)
    return Z, mm, robust, col_means, filled, row_norm, np.isnan(Xn).sum()


def _make_matrix(rng):
    return rng.normal(size=(25, 4)),


def pairwise(np, X, Y):
    """Pairwise Euclidean distances three ways: broadcasting, the dot
    identity clipped at zero, and a double Python loop filling a matrix."""
    D1 = np.sqrt(((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=-1))
    G = X @ Y.T
    D2 = np.sqrt(np.maximum((X * X).sum(1)[:, np.newaxis] - 2 * G + (Y * Y).sum(1), 0.0))
    D3 = np.empty((len(X), len(Y)))
    for i in range(len(X)):
        for j in range(len(Y)):
            D3[i, j] = np.linalg.norm(X[i] - Y[j])
    closest = D1.argmin(axis=1)
    cos = G / np.outer(np.linalg.norm(X, axis=1), np.linalg.norm(Y, axis=1))
    return D1, D2, D3, closest, cos


def _make_pairs(rng):
    return rng.normal(size=(5, 3)), rng.normal(size=(4, 3))


def one_hot_confusion(np, y_true, y_pred):
    """One-hot rows from np.eye, a confusion matrix three ways (loop with
    +=, np.add.at, bincount of a flat index), per-class precision/recall."""
    k = 4
    onehot = np.eye(k, dtype=int)[y_true]
    cm = np.zeros((k, k), dtype=np.int64)
    for t, p in zip(y_true, y_pred, strict=True):
        cm[t, p] += 1
    cm2 = np.zeros((k, k), dtype=int)
    np.add.at(cm2, (y_true, y_pred), 1)
    cm3 = np.bincount(y_true * k + y_pred, minlength=k * k).reshape(k, k)
    tp = np.diag(cm)
    precision = tp / np.maximum(cm.sum(axis=0), 1)
    recall = tp / cm.sum(axis=1)
    accuracy = np.trace(cm) / cm.sum()
    return onehot, cm, cm2, cm3, precision, recall, accuracy, onehot.argmax(axis=1)


def _make_labels(rng):
    y = rng.integers(0, 4, size=12)
    return y, numpy.where(rng.random(12) < 0.7, y, rng.integers(0, 4, size=12))


def ranking(np, scores):
    """Ranks by argsort of argsort, a stable descending order with ties,
    top-k by argpartition, percentile lookup with searchsorted, and unique
    values with counts."""
    ranks = scores.argsort(kind="stable").argsort(kind="stable")
    order = np.argsort(-scores, kind="stable")
    top3 = np.sort(np.argpartition(scores, -3)[-3:])
    sorted_scores = np.sort(scores)
    pos = np.searchsorted(sorted_scores, [2.0, 5.0, 7.5])
    values, counts = np.unique(scores, return_counts=True)
    most_common = values[np.argmax(counts)]
    dense = np.unique(scores, return_inverse=True)[1]
    return ranks, order, top3, pos, values, counts, most_common, dense


def _make_scores(rng):
    return rng.integers(0, 10, size=20).astype(float),


def masked_ops(np, x):
    """Leaky ReLU with np.where, in-place masked assignment, masked sums,
    np.any/np.all in `if`, np.nonzero, np.clip and a count of sign changes."""
    leaky = np.where(x > 0, x, 0.1 * x)
    y = x.copy()
    y[y < 0] = 0
    y[(x > 0.5) & (x < 1.5)] *= 10
    pos_sum = x[x > 0].sum()
    if np.any(x > 2):
        note = "big"
    elif np.all(x < 1):
        note = "small"
    else:
        note = "normal"
    idx = np.nonzero(x < -1)[0]
    clipped = np.clip(x, -1, 1)
    sign_changes = int((np.diff(np.sign(x)) != 0).sum())
    outliers = np.abs(x - x.mean()) > 2 * x.std()
    return leaky, y, pos_sum, note, idx, clipped, sign_changes, x[~outliers]


def _make_vector(rng):
    return rng.normal(size=40),


def inplace_loops(np, n):
    """Arrays filled element by element and row by row: Pascal's triangle,
    a running update x[i] += x[i-1], column assignment, strided updates,
    Fibonacci in an int64 array, and an edit-distance dynamic programme."""
    n = int(n[0])
    P = np.zeros((n, n), dtype=np.int64)
    P[:, 0] = 1
    for i in range(1, n):
        P[i, 1:i + 1] = P[i - 1, :i] + P[i - 1, 1:i + 1]
    x = np.arange(n, dtype=float)
    for i in range(1, n):
        x[i] += 0.5 * x[i - 1]
    x[::2] *= -1
    x[-1] /= 4
    fib = np.ones(n, dtype=np.int64)
    for i in range(2, n):
        fib[i] = fib[i - 1] + fib[i - 2]
    a, b = "flaw", "lawn"
    D = np.zeros((len(a) + 1, len(b) + 1), dtype=int)
    D[:, 0] = np.arange(len(a) + 1)
    D[0, :] = np.arange(len(b) + 1)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return P, x, fib, int(D[-1, -1])


def _make_n(rng):
    return numpy.array([6]),


def split_stack(np, X):
    """Mini-batches with np.array_split, per-batch statistics stacked back,
    np.concatenate/np.vstack/np.hstack/np.column_stack, np.split at
    indices, np.tile and np.repeat, moveaxis and a reshape round trip."""
    batches = np.array_split(X, 4)
    means = np.stack([b.mean(axis=0) for b in batches])
    sizes = [len(b) for b in batches]
    rejoined = np.concatenate(batches, axis=0)
    left, mid, right = np.split(X, [1, 3], axis=1)
    wide = np.hstack([right, left])
    tall = np.vstack([X[:2], X[-2:]])
    pairs = np.column_stack([X[:, 0], X[:, 1] ** 2])
    tiled = np.tile(X[:2, :2], (2, 3))
    repeated = np.repeat(X[:3, 0], [1, 2, 3])
    cube = X[:9].reshape(3, 3, -1)
    moved = np.moveaxis(cube, -1, 0)
    flat = moved.reshape(moved.shape[0], -1).T
    return means, sizes, rejoined, mid, wide, tall, pairs, tiled, repeated, moved, flat


def _make_split(rng):
    return rng.normal(size=(10, 4)),


CASES = [
    Case("random_walk", random_walk, _make_walk),
    Case("standardize", standardize, _make_matrix),
    Case("pairwise", pairwise, _make_pairs),
    Case("one_hot_confusion", one_hot_confusion, _make_labels, frozenset({"numpy.bincount"})),
    Case("ranking", ranking, _make_scores),
    Case("masked_ops", masked_ops, _make_vector),
    Case("inplace_loops", inplace_loops, _make_n),
    Case("split_stack", split_stack, _make_split),
]
