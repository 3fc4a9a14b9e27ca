"""Programs that rely on numpy's view semantics: writes through rows,
columns, transposes, reshapes and strided slices reach the base; fancy
indexing copies; swaps through views; a view sees later writes."""

from __future__ import annotations

import numpy
from program_case import Case


def row_col_updates(np, X):
    """Normalise rows in place through row views, scale a column view,
    write through .T, reshape(-1) and a strided slice, and check that a
    fancy-indexed copy does not write back."""
    snapshots = []
    for row in X:  # each row is a view: in-place division reaches X
        row /= row.sum()
    snapshots.append(X.copy())
    col = X[:, 1]
    col *= 10
    X.T[2] = 7
    flat = X.reshape(-1)
    flat[0] = 99
    corners = X[::2, ::2]
    corners += 1000
    snapshots.append(X.copy())
    fancy = X[[0, 1]]
    fancy[:] = 0
    X[X > 500] = -5
    X[1][2] = 42
    snapshots.append(X.copy())
    return snapshots, col, corners


def swaps_and_aliases(np, X):
    """Column and row swaps with fancy indexing and tuple assignment, an
    alias updated in place, a view that sees a later write, and diagonal
    writes through a meshed index."""
    X[:, [0, 2]] = X[:, [2, 0]]
    X[0], X[1] = X[1].copy(), X[0].copy()
    alias = X
    alias += 1
    tail = X[1:]
    tail[...] = tail[::-1]
    first = X[0]
    X[0] = 123
    idx = np.arange(3)
    X[idx, idx] = 0
    X[[0, 0, 0], [1, 1, 1]] = [1, 2, 3]  # the last write wins
    swapped = X.swapaxes(0, 1)
    swapped[3, 2] = -400
    return X, first, tail


def _make(rng):
    return numpy.arange(1.0, 13.0).reshape(3, 4),


CASES = [
    Case("row_col_updates", row_col_updates, _make),
    Case("swaps_and_aliases", swaps_and_aliases, _make),
]
