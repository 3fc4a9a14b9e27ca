"""A sixteenth round of ordinary numpy programs, checked as in
test_np_user_programs9.py. This round: table wrangling (lexsort, stable
argsort, unique rows, splits, set operations), the game of life and rule
110 with np.roll, in-place updates in loops (masks, fancy +=, put, place,
copyto with where, out=), numpy 2 promotion across small integer, float16
and complex64 arrays with wrap-around, Python glue around lazy values,
einsum with ellipsis next to rollaxis/tile/repeat/pad modes, and random
walks drawn on the host and processed lazily."""

from __future__ import annotations

import numpy as np
import pytest
from np_compare import check

pytestmark = pytest.mark.usefixtures("own_runtime")


def table_wrangling(np, keys, vals):
    """A column-stacked table sorted by two keys with np.lexsort, a stable
    argsort of one column, unique rows with counts, groups cut by np.split
    where the key changes, np.array_split into chunks, and set operations
    (isin, setdiff1d, intersect1d, union1d) on the key columns."""
    table = np.column_stack([keys, vals])
    order = np.lexsort((table[:, 1], table[:, 0]))
    sorted_t = table[order]
    stable = np.argsort(keys[:, 1], kind="stable")
    rows, counts = np.unique(keys, axis=0, return_counts=True)
    cut = np.nonzero(np.diff(sorted_t[:, 0]))[0] + 1
    groups = np.split(sorted_t[:, 2], cut)
    sums = np.array([g.sum() for g in groups])
    chunks = np.array_split(sorted_t, 4)
    a, b = keys[:, 0], keys[:, 1]
    return (sorted_t, stable, rows, counts, sums, [c.shape for c in chunks], np.isin(a, [1, 3]),
            np.setdiff1d(a, b), np.intersect1d(a, b), np.union1d(a, b))


def test_table_wrangling_with_lexsort_unique_rows_and_splits():
    rng = np.random.default_rng(160)
    check(table_wrangling, rng.integers(0, 5, (30, 2)), rng.integers(0, 100, 30))


def life_and_rule110(np, board, row, steps):
    """Conway's game of life by summing the eight np.roll shifts of a
    toroidal int8 board, the live count per generation, and an elementary
    rule 110 automaton where each cell's 3-bit neighbourhood indexes the rule
    table (a uint8 bit shift)."""
    counts = []
    for _ in range(steps):
        n = sum(np.roll(np.roll(board, i, 0), j, 1)
                for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
        board = ((n == 3) | ((board == 1) & (n == 2))).astype(np.int8)
        counts.append(int(board.sum()))
    history = [row]
    for _ in range(steps):
        code = (np.roll(row, 1) << 2) | (row << 1) | np.roll(row, -1)
        row = (np.uint8(110) >> code) & 1
        history.append(row)
    return board, counts, np.stack(history), board.dtype.name


def test_game_of_life_and_rule_110_with_roll():
    rng = np.random.default_rng(161)
    board = (rng.random((12, 12)) < 0.35).astype(np.int8)
    row = np.zeros(24, np.uint8)
    row[-1] = 1
    check(life_and_rule110, board, row, 5)


def inplace_updates(np, a, idx, m):
    """In-place updates in a loop: a[mask] = 0, fancy a[idx] += 1 (repeated
    indices count once, as numpy's buffered +=), np.put with mode="wrap",
    np.place, np.copyto with where=, and ufuncs writing into out=."""
    a = a.copy()
    hits = np.zeros(8, dtype=np.int64)
    acc = np.empty_like(a)
    for step in range(3):
        a[a > 0.8] = 0
        hits[idx] += 1
        np.put(a, [step, -1, 40], [9.0, 8.0, 7.0], mode="wrap")
        np.place(a, a < 0.05, [0.5, 0.25])
        np.copyto(a, m, where=m > a)
        np.multiply(a, 0.9, out=acc)
        np.add(acc, step, out=a)
    out = np.zeros(3)
    np.sum(a.reshape(3, -1), axis=1, out=out)
    return a, hits, out


def test_in_place_updates_in_a_loop():
    rng = np.random.default_rng(162)
    check(inplace_updates, rng.random(36), np.array([1, 3, 3, 7, 0]), rng.random(36) * 0.3)


def mixed_dtypes(np, i8, i16, u32, f16, c64):
    """numpy 2 promotion: int8 + int16, uint32 with a Python int and with an
    int8 array, float16 with int8 and with a Python float, complex64 with
    float16 and a float64 0-d array; wrap-around of int8 and uint32
    arithmetic, np.float32 and np.int8 scalars."""
    s = i8 + i16
    wrap = i8 * np.int8(3)
    u = u32 - 5
    ui = u32 + i8
    h = f16 * i8
    hf = f16 + 1.5
    z = c64 * f16
    zf = c64 + np.float32(0.5)
    zd = c64 * np.array(2.0)
    neg = -u32
    return s, wrap, u, ui, h, hf, z, zf, zd, neg, (i8 // np.int8(7)), (i16 % 5), np.abs(i8)


def test_mixed_small_integer_float16_complex64_promotion():
    rng = np.random.default_rng(163)
    check(mixed_dtypes, rng.integers(-128, 128, 10, dtype=np.int8),
          rng.integers(-3000, 3000, 10, dtype=np.int16),
          rng.integers(0, 2**32, 10, dtype=np.uint32),
          rng.normal(size=10).astype(np.float16),
          (rng.normal(size=10) + 1j * rng.normal(size=10)).astype(np.complex64))


def python_glue_over_rows(np, x):
    """Python around lazy values: len, iteration over rows, .tolist(),
    .item(), truth tests with any()/all(), a while loop on a lazy
    condition, max() over lazy scalars and a dict keyed by ints read
    from the array."""
    total = 0.0
    best = []
    for row in x:
        if row.any():
            total += row.sum().item()
            best.append(row.argmax().item())
    y = x.copy()
    halvings = 0
    while (np.abs(y) > 1).any():
        y = y / 2
        halvings += 1
    maxes = [r.max() for r in x]
    top = float(max(maxes))
    tally = {}
    for v in (x[:, 0] > 0).astype(int).tolist():
        tally[v] = tally.get(v, 0) + 1
    return len(x), total, best, halvings, top, tally, x[1].tolist(), bool(x.all()), y


def test_python_glue_around_lazy_values():
    rng = np.random.default_rng(164)
    x = rng.normal(scale=3, size=(6, 4))
    x[2] = 0
    check(python_glue_over_rows, x)


def reshaping_toolkit(np, a, b):
    """einsum with an ellipsis (batched matrix-vector and a trace over the
    last two axes), np.rollaxis and moveaxis, tile and repeat, and np.pad in
    reflect, symmetric, wrap, edge and linear_ramp modes."""
    bmv = np.einsum("...ij,...j->...i", a, b)
    tr = np.einsum("...ii->...", a)
    r = np.rollaxis(a, 2)
    m = np.moveaxis(a, 0, -1)
    t = np.tile(b[0], (2, 3))
    rep = np.repeat(b, [1, 2, 0, 3][: len(b)], axis=0)
    v = b[0]
    pads = [np.pad(v, (2, 3), mode=mode) for mode in ("reflect", "symmetric", "wrap", "edge")]
    ramp = np.pad(a[0], ((1, 1), (2, 0)), mode="linear_ramp", end_values=(-1, 5))
    return bmv, tr, r.shape, m, t, rep, pads, ramp


def test_einsum_ellipsis_rollaxis_tile_repeat_and_pad_modes():
    rng = np.random.default_rng(165)
    check(reshaping_toolkit, rng.normal(size=(4, 3, 3)), rng.normal(size=(4, 3)))


def host_drawn_random_walks(np, steps, barrier):
    """Random walks drawn on the host and processed lazily: positions by
    cumsum, running maxima by np.maximum.accumulate, the first step past a
    barrier (argmax of a mask, -1 when never crossed), the mean squared
    displacement and the histogram of final positions."""
    pos = np.cumsum(steps, axis=1)
    runmax = np.maximum.accumulate(pos, axis=1)
    crossed = pos >= barrier
    first = np.where(crossed.any(axis=1), crossed.argmax(axis=1), -1)
    msd = (pos.astype(np.float64) ** 2).mean(axis=0)
    hist, edges = np.histogram(pos[:, -1], bins=5)
    drawdown = (runmax - pos).max(axis=1)
    return pos[:, -1], first, msd, hist, edges, drawdown, int((first >= 0).sum())


def test_random_walks_drawn_on_the_host():
    rng = np.random.default_rng(166)
    check(host_drawn_random_walks, rng.choice(np.array([-1, 1]), size=(20, 50)), 6)


def border_padding(np, img, sig):
    """Image and signal borders in every numpy.pad mode that computes its
    values: linear_ramp to given end values (an integer image, where the
    ramp is floored as numpy's), maximum/minimum/mean/median over the
    stat_length pixels nearest each border (rounded into integers), then a
    3x3 mean filter over the padded image and a detrended signal padded by
    its edge statistics."""
    ramp = np.pad(img, ((3, 2), (1, 4)), mode="linear_ramp", end_values=((0, 255), (7, -3)))
    stats = [np.pad(img, 2, mode=m, stat_length=s)
             for m, s in (("maximum", None), ("minimum", 2), ("mean", ((1, 3), (2, 2))),
                          ("median", 3))]
    p = np.pad(img.astype(np.float32), 1, mode="mean")
    smooth = sum(p[i:i + img.shape[0], j:j + img.shape[1]] for i in range(3) for j in range(3)) / 9
    s = np.pad(sig - sig.mean(), (4, 4), mode="linear_ramp")
    s2 = np.pad(sig, (2, 3), mode="median", stat_length=(3, 5))
    return ramp, stats, smooth, s, s2, np.pad(sig.astype(np.float16), 3, mode="mean")


def test_pad_modes_with_ramps_and_statistics():
    rng = np.random.default_rng(167)
    check(border_padding, rng.integers(-50, 200, (7, 9)), rng.normal(size=21).cumsum())
