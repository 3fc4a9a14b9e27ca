"""Programs that look at their values from Python: printing and formatting,
iterating over rows, .tolist()/.item(), comparisons in `if`/`while`,
results used as list indices, dict keys, range bounds and in sorted()."""

from __future__ import annotations

import numpy
from program_case import Case


def printing(np, x):
    """repr/str of int, float, bool and float32 arrays, f-strings of reduced
    scalars, %-formatting, np.array2string and a printed summary table."""
    ints = np.arange(6).reshape(2, 3)
    lines = [repr(ints), str(ints), repr(x), str(x > 0), repr(x.astype(np.float32)),
             str(x.sum()), repr(ints.sum()), f"{x.mean():.3f}", f"{ints.max()}",
             "%.2f" % x.std(), "{:>8.1f}".format(x.min()), f"{x[0]:.1e}",
             np.array2string(x, precision=2, separator=", "), str(ints[0]),
             repr(x[1:3]), repr(np.zeros(2, dtype=bool)), repr(x.max()), repr((x > 0).any()),
             repr(x.astype(np.float32).mean()), repr(x.argmin()), str([x.min(), ints.max()])]
    for row in ints:
        lines.append(" ".join(f"{v:3d}" for v in row))
    return lines


def _make_printable(rng):
    return numpy.array([0.5, -1.25, 3.0, 2.75, -0.125]),


def python_values(np, X):
    """.tolist(), .item(), int()/float()/bool() of results, iteration over
    rows, zip with Python lists, len(), sorted() on tolist output, results
    as list indices, range bounds and dict keys, max() over array elements."""
    names = ["a", "b", "c", "d"]
    best = names[np.argmax(X.sum(axis=0))]
    rows = [float(row.sum()) for row in X]
    listed = X.round(3).tolist()
    top = sorted(X[:, 0].tolist(), reverse=True)[:2]
    first = X[0, 0].item()
    n_pos = int((X > 0).sum())
    any_big = bool((X > 2).any())
    steps = list(range(np.argmax(X[:, 1]) + 1))
    by_label = {}
    for label, row in zip(np.argmax(X, axis=1).tolist(), X, strict=True):
        by_label.setdefault(label, []).append(round(float(row.max()), 4))
    col_max = max(X[:, 2])
    shape_list = list(X.shape)
    total = sum(X[:, 3])
    return best, rows, listed, top, first, n_pos, any_big, steps, by_label, col_max, \
        shape_list, len(X), total


def _make_table(rng):
    return rng.normal(size=(6, 4)),


def control_flow(np, x):
    """Newton's method for square roots with a `while` on a tolerance,
    bisection with `if f(mid) > 0`, early exit in a `for` loop, and a
    Python-scalar accumulator fed by array reductions."""
    guess = x.copy()
    iters = 0
    while np.max(np.abs(guess * guess - x)) > 1e-10 and iters < 50:
        guess = 0.5 * (guess + x / guess)
        iters += 1
    lo, hi = 0.0, 2.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if np.cos(mid) - mid > 0:
            lo = mid
        else:
            hi = mid
    total = 0.0
    for i, v in enumerate(x):  # noqa: B007  (i is used after the loop)
        if v > 10:
            break
        total += v ** 0.5
    first_big = i
    same = np.array_equal(np.sort(x), x)
    close = np.allclose(guess, np.sqrt(x))
    return guess, iters, round(lo, 6), total, first_big, same, close


def _make_positive(rng):
    return numpy.array([2.0, 3.0, 5.0, 7.0, 11.0, 13.0]),


CASES = [
    Case("printing", printing, _make_printable),
    Case("python_values", python_values, _make_table),
    Case("control_flow", control_flow, _make_positive),
]
