"""A seventeenth round of ordinary numpy programs, checked as in
test_np_user_programs9.py. This round: masked arrays built from lazy arrays,
np.vectorize / frompyfunc / apply_along_axis, saving and loading (np.save,
savez, savetxt, pickle, tofile), np.testing with lazy arguments, Python
builtins on lazy values, ufunc methods (at, accumulate, reduceat and the
bitwise reductions), einsum with optimize=, linalg.norm with axis tuples,
Generator.choice with a lazy p, dates, structured arrays and np.char (eager,
counted), unique rows, sliding-window filters, a heat equation, a Kalman
filter with an RTS smoother, a float32 MLP with manual backprop and a Markov
chain's stationary distribution."""

from __future__ import annotations

import io
import pickle
import re

import numpy as np
import pytest
from np_compare import check

pytestmark = pytest.mark.usefixtures("own_runtime")


def masked_statistics(np, x, limit):
    """Sensor data with NaN and inf gaps: np.ma.masked_invalid then
    per-column mean/std, count and filled values; masked_where on a lazy
    condition, masked_outside, arithmetic on masked arrays and compressed()."""
    m = np.ma.masked_invalid(x)
    col_mean = m.mean(axis=0)
    col_std = m.std(axis=0)
    counts = m.count(axis=0)
    clean = m.filled(col_mean.filled(0.0))
    big = np.ma.masked_where(np.abs(np.nan_to_num(x)) > limit, x)
    scaled = (big * 2 - 1).filled(-99.0)
    band = np.ma.masked_outside(np.nan_to_num(x, posinf=0), -1, 1)
    return (col_mean.filled(np.nan), col_std.data, np.asarray(counts), clean,
            np.ma.getmaskarray(big), scaled, band.compressed(), float(band.sum()))


def test_masked_arrays_from_lazy_data():
    rng = np.random.default_rng(170)
    x = rng.normal(size=(12, 4))
    x[rng.random((12, 4)) < 0.15] = np.nan
    x[3, 1] = np.inf
    check(masked_statistics, x, 1.2)


def masked_weighting(np, w, readings, bad):
    """Lazy weights meeting host masked arrays: w * data, w > data, w - data,
    np.add(w, data) and np.multiply.outer keep numpy's MaskedArray (masked
    readings stay out of the sums), and a lazy row times an np.matrix is a
    matrix product, as with an ndarray."""
    data = np.ma.masked_array(readings, mask=bad)
    weighted = w * data
    high = w > data
    diff = w - data
    added = np.add(w, data)
    mat = np.matrix(readings)
    row = w[None, :] * mat.T
    stats = [f(data) for f in (np.mean, np.sum, np.max, np.std, np.median)]
    per_col = np.average(data, axis=0, weights=w[:3]).filled(0.0)
    joined = np.concatenate([data, np.ma.masked_less(w[None, :], 0.5)])
    ordered = np.sort(data, axis=1).filled(99.0)
    return (stats, per_col, np.ma.getmaskarray(joined), joined.filled(-1.0), ordered,
            np.cumsum(data, axis=1).filled(0.0), type(weighted).__name__, weighted.filled(0.0),
            weighted.sum(axis=0).filled(-1.0),
            np.ma.getmaskarray(high), high.filled(False), diff.mean(axis=1).filled(0.0),
            added.filled(0.0), type(added).__name__, np.asarray(row), (w @ mat.T).shape)


def test_masked_arrays_and_matrices_take_over_from_lazy_operands():
    """lazy + masked array gave a plain lazy array of the masked array's data
    (masked values silently summed), lazy * np.matrix an elementwise
    product, and lazytensor.numpy's functions (mean, sum, sort, cumsum,
    concatenate...) of a masked array ignored its mask; numpy's subclasses
    now take over as they do from an ndarray."""
    rng = np.random.default_rng(187)
    readings = rng.normal(size=(3, 4)).round(2).tolist()
    bad = (rng.random((3, 4)) < 0.3).tolist()
    check(masked_weighting, rng.random(4), readings, bad)


def _clip_score(v):
    """A scalar Python rule with branches (np.vectorize's use case)."""
    if v > 1.0:
        return 1.0
    if v < -1.0:
        return -1.0 - 0.1 * (v + 1.0)
    return v * v


def row_functions(np, x):
    """np.vectorize of a branching Python function (eager, counted),
    np.apply_along_axis with functions returning a scalar and a vector, and
    np.frompyfunc building an object array (eager, counted)."""
    score = np.vectorize(_clip_score, otypes=[np.float64])(x)
    spread = np.apply_along_axis(lambda r: r.max() - r.min(), 1, x)
    normed = np.apply_along_axis(lambda r: (r - r.mean()) / (r.std() + 1e-9), 0, x)
    top2 = np.apply_along_axis(lambda r: np.sort(r)[-2:], 1, x)
    return score, spread, normed, top2


def test_vectorize_and_apply_along_axis_over_lazy_rows():
    rng = np.random.default_rng(171)
    check(row_functions, rng.normal(scale=1.5, size=(6, 5)),
          fallbacks={"numpy.vectorize"})


def saving_and_loading(np, x, labels, folder):
    """A results file written the usual ways: np.save / np.load through a
    BytesIO, np.savez and np.savez_compressed with named arrays, np.savetxt
    to a StringIO read back with np.loadtxt, pickle round trips and
    x.tofile / np.fromfile."""
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    buf = io.BytesIO()
    np.save(buf, z)
    buf.seek(0)
    back = np.load(buf)
    arch = io.BytesIO()
    np.savez(arch, z=z, labels=labels, total=z.sum())
    arch.seek(0)
    with np.load(arch) as f:
        files = sorted(f.files)
        restored = f["z"] * f["labels"][:, None]
    comp = io.BytesIO()
    np.savez_compressed(comp, z=z[:2])
    comp.seek(0)
    first = np.load(comp)["z"]
    text = io.StringIO()
    np.savetxt(text, z[:3], fmt="%.6f", delimiter=",", header="a,b,c")
    text.seek(0)
    parsed = np.loadtxt(text, delimiter=",")
    pick = pickle.loads(pickle.dumps(z * 2))
    raw = str(folder / "z.bin")
    (z * 3).tofile(raw)
    from_raw = np.fromfile(raw).reshape(z.shape)
    (z[0] + 0.5).tofile(raw, sep=" ", format="%.4f")
    from_text = np.fromfile(raw, sep=" ")
    dumped = pickle.loads((z - 1).dumps())
    return (back, files, restored, first, text.getvalue(), parsed, pick + 1,
            z.tobytes() == back.tobytes(), from_raw, from_text, dumped)


def test_save_load_savez_savetxt_pickle_and_tofile(tmp_path):
    """np.save & co. and x.tofile read the values as print does: they are
    no eager fallback (they were counted and warned as ones; tofile, dump
    and dumps were missing)."""
    rng = np.random.default_rng(172)
    check(saving_and_loading, rng.normal(size=(8, 3)), rng.integers(0, 3, 8), tmp_path)


def packet_checksums(np, packets, flags, lengths):
    """Network-style bookkeeping with ufunc methods: XOR checksums per packet
    (np.bitwise_xor.reduce), the union and the common bits of flag words
    (bitwise_or / bitwise_and .reduce), running flag unions and running
    parities (.accumulate), parity of set flags (np.logical_xor.reduce),
    per-message checksums by np.bitwise_xor.reduceat, a byte histogram with
    np.add.at, the running peak with np.maximum.accumulate and the minimum
    of each segment by np.minimum.reduceat."""
    checks = np.bitwise_xor.reduce(packets, axis=1)
    union = np.bitwise_or.reduce(flags)
    common = np.bitwise_and.reduce(flags, axis=0, keepdims=True)
    running = np.bitwise_or.accumulate(flags)
    parity_run = np.bitwise_xor.accumulate(packets, axis=1)
    odd = np.logical_xor.reduce(flags > 7, axis=0)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    per_msg = np.bitwise_xor.reduceat(packets.ravel(), starts)
    hist = np.zeros(16, dtype=np.int64)
    np.add.at(hist, packets.ravel() % 16, 1)
    peak = np.maximum.accumulate(packets.sum(axis=1))
    seg_min = np.minimum.reduceat(packets.ravel(), starts)
    whole = np.bitwise_xor.reduce(packets, axis=None) ^ np.uint8(0x5A)
    return checks, union, common, running, parity_run, odd, per_msg, hist, peak, seg_min, whole


def test_ufunc_methods_for_checksums_and_flags():
    """bitwise_and/or/xor and logical_xor .reduce/.accumulate/.reduceat record
    lazily (composite.reduce.folds) instead of running eagerly."""
    rng = np.random.default_rng(173)
    check(packet_checksums, rng.integers(0, 256, (6, 10), dtype=np.uint8),
          rng.integers(0, 2 ** 12, 9).astype(np.int16), np.array([7, 13, 20, 11, 9]))


def _bitwise_cases(name, dtype, rng, every=True):
    """(numpy's result, lazy results) of every reduce/accumulate form."""
    import lazytensor.numpy as lnp

    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    x = (rng.random((5, 7, 3)) < 0.5 if info is None else
         rng.integers(info.min, info.max, (5, 7, 3), dtype=dtype, endpoint=True))
    u, lu, lx = getattr(np, name), getattr(lnp, name), lnp.asarray(x)
    where = rng.random((7, 3)) < 0.6
    cases = [dict(axis=0), dict(axis=1), dict(axis=-1), dict(axis=None), dict(axis=(0, 2)),
             dict(axis=1, keepdims=True), dict(axis=(), keepdims=False)]
    if name != "logical_xor":
        cases += [dict(axis=2, initial=1), dict(axis=1, where=where, initial=0)]
    cases = cases if every else cases[3::2]
    out = [(u.reduce(x, **kw), (lu.reduce(lx, **kw), u.reduce(lx, **kw))) for kw in cases]
    out.append((u.reduce(x[:, :0], axis=1), (lu.reduce(lx[:, :0], axis=1),)))
    out += [(u.accumulate(x, axis=a), (u.accumulate(lx, axis=a),))
            for a in ((0, 1, 2) if every else (1,))]
    return out


def _same_as_numpy(cases) -> None:
    from lazytensor.core.runtime import get_runtime, sync

    sync()  # one graph for every case
    for i, (want, gots) in enumerate(cases):
        for got in gots:
            host = np.asarray(got)
            assert host.dtype == want.dtype and host.shape == want.shape, i
            np.testing.assert_array_equal(host, want, err_msg=str(i))
    assert not get_runtime().metrics.fallbacks, dict(get_runtime().metrics.fallbacks)


def test_bitwise_reductions_match_numpy():
    """Whole, tuple and kept axes, initial, where=, an empty axis and
    accumulate, one dtype per ufunc, against numpy's own ufunc
    methods, with no eager fallback."""
    rng = np.random.default_rng(174)
    _same_as_numpy([c for name, dtype in (("bitwise_and", np.uint64), ("bitwise_or", np.int16),
                                          ("bitwise_xor", np.int64), ("logical_xor", np.bool_))
                    for c in _bitwise_cases(name, dtype, rng, every=False)])


# compiles some 60 reductions per ufunc (8 to 14 s here)
@pytest.mark.slow
@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor"])
def test_bitwise_reductions_match_numpy_on_every_integer_dtype(name):
    """Every axis form and accumulate on every axis, for bool and small and
    large signed and unsigned integers."""
    rng = np.random.default_rng(175)
    _same_as_numpy([c for dtype in (np.bool_, np.uint8, np.int16, np.int64, np.uint64)
                    for c in _bitwise_cases(name, dtype, rng)])


def asserts_and_builtins(np, x, names):
    """np.testing asserts on lazy arguments (passing and failing ones), and
    Python builtins on lazy values: sum() over rows, max()/min() and
    sorted() over elements, len, range(len(a)), int/float/complex/round/abs,
    f-string formats, a dict keyed by the shape, truth tests and divmod."""
    y = x * 1.0000001
    np.testing.assert_allclose(x, y, rtol=1e-5)
    np.testing.assert_array_equal(x.argmax(axis=1), y.argmax(axis=1))
    np.testing.assert_array_less(x.min(), x.max())
    np.testing.assert_array_almost_equal(x.mean(axis=0), y.mean(axis=0), decimal=5)
    try:
        np.testing.assert_allclose(x, x + 1)
        failed = False
    except AssertionError:
        failed = True
    col_total = sum(x)  # rows added by Python's sum
    best = max(x[0])
    order = sorted(x[:, 1])
    report = [f"{names[i]}: {x[i].sum():+.3f} ({x[i].max():.2e}) #{int(x[i].argmax())}"
              for i in range(len(x))]
    dims = dict(zip(("rows", "cols"), x.shape, strict=True))
    flags = [bool(r.any()) for r in x > 1.5]
    q, r = divmod(float(x.sum()), 1.0)
    z = complex(x[0, 0] + 1j * x[0, 1])
    big = "big" if (x > 2).any() else "small"
    raw = bytes(x[0])  # the buffer's bytes (the lazy array's __index__ error before)
    back = np.frombuffer(raw + bytes(x[1, :2]), dtype=x.dtype)
    return (raw == x[0].tobytes(), back, len(bytes((x > 0)[2])), failed, col_total,
            float(best), [float(v) for v in order], report, dims, flags,
            q, r, z, round(float(x[1, 1]), 3), abs(x[2, 0]), int(x.size), big,
            min(range(len(x)), key=lambda i: float(x[i].std())))


def test_np_testing_and_python_builtins_on_lazy_values():
    rng = np.random.default_rng(176)
    check(asserts_and_builtins, rng.normal(size=(5, 4)), ["a", "b", "c", "d", "e"])


def test_lazytensor_numpy_testing_compares_lazy_values():
    """numpy's asserts took lazy arrays for scalars: assert_equal(lazy, lazy)
    and assert_almost_equal(lazy, lazy) raised numpy's ambiguous-truth
    ValueError, assert_equal(lazy.sum(), 15.0) failed on isscalar;
    lazytensor.numpy.testing reads the arguments first. Each assert passes
    or fails as numpy's does on the host values."""
    import lazytensor.numpy as lnp

    host = np.arange(6.0).reshape(2, 3)
    lazy = lnp.asarray(host)
    cases = [("assert_equal", (lazy, lazy * 1)), ("assert_equal", (lazy.sum(), 15.0)),
             ("assert_equal", ({"k": [lazy[0], 2]}, {"k": [host[0], 2]})),
             ("assert_almost_equal", (lazy, lazy + 1e-9)), ("assert_equal", (lazy, lazy + 1)),
             ("assert_array_less", (lazy, 3)), ("assert_allclose", (lazy.mean(), 2.5)),
             ("assert_array_almost_equal_nulp", (lazy, lazy))]
    for name, args in cases:
        want = None
        try:
            getattr(np.testing, name)(*[_host(a) for a in args])
        except AssertionError as exc:
            want = type(exc)
        if want is None:
            getattr(lnp.testing, name)(*args)
        else:
            with pytest.raises(want):
                getattr(lnp.testing, name)(*args)
    lnp.testing.assert_raises(ValueError, lazy.reshape, 4, 4)


def _host(tree):
    import lazytensor.numpy as lnp

    if isinstance(tree, dict):
        return {k: _host(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_host(v) for v in tree)
    return np.asarray(tree) if isinstance(tree, lnp.ndarray) else tree


def test_three_argument_pow_raises_pythons_type_error():
    """pow(a, 2, 7) raises Python's TypeError for numpy's arrays (the lazy
    operator raised one about its own positional arguments)."""
    import lazytensor.numpy as lnp

    for a in (np.arange(4), lnp.arange(4)):
        with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*\* or pow\(\)"):
            pow(a, 2, 7)


def guarded_math(np, x, y):
    """Floating-point warnings silenced around lazy math with np.errstate
    and np.seterr (the values are IEEE's, as numpy's with errors ignored):
    log of zeros, 0/0, overflowing exp, sqrt of negatives, then cleanup with
    np.nan_to_num, isfinite masks and np.where."""
    old = np.seterr(divide="ignore", invalid="ignore")
    try:
        ratio = x / y
        logs = np.log(np.abs(x))
    finally:
        np.seterr(**old)
    with np.errstate(over="ignore", invalid="ignore"):
        grow = np.exp(x * 400)
        roots = np.sqrt(x)
        inf_minus = grow - grow
    finite = np.isfinite(ratio)
    safe = np.where(finite, ratio, 0.0)
    clean = np.nan_to_num(logs, neginf=-50.0)
    return ratio, logs, grow, roots, inf_minus, safe, clean, int(finite.sum()), np.nanmax(roots)


def test_errstate_and_seterr_around_lazy_math():
    rng = np.random.default_rng(177)
    x = rng.normal(size=(4, 6))
    x[0, :2] = 0.0
    y = rng.normal(size=(4, 6))
    y[0, 0] = y[1, 3] = 0.0
    check(guarded_math, x, y)


def contractions(np, a, b, c, v):
    """einsum with optimize=True / "greedy" / "optimal" and a precomputed
    np.einsum_path: a chain of three matrices, a bilinear form per batch,
    a trace of a product, an outer-product sum, and the same chains by
    np.linalg.multi_dot and @."""
    chain = np.einsum("ij,jk,kl->il", a, b, c, optimize=True)
    greedy = np.einsum("ij,jk,kl->il", a, b, c, optimize="greedy")
    path, _ = np.einsum_path("ij,jk,kl->il", a, b, c, optimize="optimal")
    planned = np.einsum("ij,jk,kl->il", a, b, c, optimize=path)
    bilinear = np.einsum("ni,ij,nj->n", v, b @ b.T, v, optimize=True)
    tr = np.einsum("ij,jk,ki->", a, b, c, optimize="optimal")
    outer = np.einsum("ni,nj->ij", v, v, optimize=True)
    md = np.linalg.multi_dot([a, b, c])
    return chain, greedy, planned, bilinear, tr, outer, md, a @ b @ c


def test_einsum_with_optimize_and_paths():
    rng = np.random.default_rng(178)
    check(contractions, rng.normal(size=(3, 5)), rng.normal(size=(5, 5)),
          rng.normal(size=(5, 3)), rng.normal(size=(7, 5)), rtol=1e-9)


def norms(np, t, m, v):
    """np.linalg.norm everywhere it is used: vector p-norms (0, 1, 2, 3,
    inf, -inf), matrix norms of a stack over axis tuples (fro, nuc, 1, -1,
    2, -2, inf, -inf), keepdims, a row normalization and pairwise
    distances."""
    vec = [np.linalg.norm(v, ord=p) for p in (None, 0, 1, 2, 3, np.inf, -np.inf)]
    mats = [np.linalg.norm(t, ord=p, axis=(1, 2)) for p in
            (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)]
    other = np.linalg.norm(t, ord="fro", axis=(2, 0), keepdims=True)
    rows = m / np.linalg.norm(m, axis=1, keepdims=True)
    dist = np.linalg.norm(m[:, None, :] - m[None, :, :], axis=-1)
    return vec, mats, other, rows, dist, np.linalg.norm(m), np.linalg.norm(m, 2)


def test_linalg_norm_with_axis_tuples_and_orders():
    rng = np.random.default_rng(179)
    check(norms, rng.normal(size=(4, 3, 5)), rng.normal(size=(6, 3)),
          np.array([0.0, 1.5, -2.0, 0.0, 3.0]))


_NORM_ARGS = [dict(ord="fro", axis=1), dict(ord="nuc", axis=-1), dict(axis=(0, 1, 2)),
              dict(ord=2), dict(ord="fro"), dict(ord=1, axis=(1, 1)), dict(axis=()),
              dict(ord=1, axis=(0, -2)), dict(axis=1.5), dict(ord="f"),
              dict(ord="f", axis=(0, 1)), dict(ord="f", axis=0), dict(axis=np.int64(0)),
              dict(ord=3, axis=(1, 2)), dict(ord=-np.inf), dict(ord=2, axis=(1, 0))]


@pytest.mark.parametrize("shape", [(2, 3, 4), (3,), (), (2, 3)])
def test_linalg_norm_argument_errors_are_numpys(shape):
    """A string order for a vector, repeated or too many axes, an order for a
    3-d x without axis: numpy's ValueError/AxisError (a 3-d x with ord=2
    gave a number, ord="fro" on a vector 'could not convert string to
    float'); ord="f" is numpy's Frobenius; a float axis is truncated."""
    import lazytensor.numpy as lnp

    x = np.arange(float(np.prod(shape))).reshape(shape) - 3
    for kw in _NORM_ARGS:
        try:
            want = np.linalg.norm(x, **kw)
        except Exception as exc:  # numpy's error: the same type and message
            with pytest.raises(type(exc), match=f"^{re.escape(str(exc))}$"):
                lnp.linalg.norm(lnp.asarray(x), **kw)
            continue
        got = np.asarray(lnp.linalg.norm(lnp.asarray(x), **kw))
        assert got.dtype == want.dtype and got.shape == np.shape(want), kw
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=str(kw))


def resampling(np, logits, values, seed):
    """Sampling with lazily computed probabilities: Generator.choice with a
    softmax p (indices and values, with and without replacement), a
    bootstrap of the mean with choice over a lazy array, a categorical draw
    by searchsorted on the cumulative p, and rng.permutation of lazy rows."""
    rng = np.random.default_rng(seed)
    p = np.exp(logits - logits.max())
    p = p / p.sum()
    idx = rng.choice(len(p), size=12, p=p)
    picks = rng.choice(values, size=5, replace=False, p=p)
    boot = np.array([rng.choice(values, size=len(values)).mean() for _ in range(20)])
    u = rng.random(8)
    cat = np.searchsorted(np.cumsum(p), u)
    perm = rng.permutation(np.stack([values, values * 2], axis=1))
    return idx, picks, boot.mean(), np.percentile(boot, [5, 95]), cat, perm


def test_generator_choice_with_a_lazy_p():
    rng = np.random.default_rng(180)
    check(resampling, rng.normal(size=8), rng.normal(size=8) * 10, 42)


def calendar(np, stamps, hours):
    """Dates stay numpy's (datetime64 / timedelta64 run eagerly, counted),
    while what is computed from them is lazy float math: hours since the
    first stamp, day-of-week bins, durations in minutes, a rate per hour."""
    t = np.array(stamps, dtype="datetime64[m]")
    since = (t - t[0]) / np.timedelta64(1, "h")
    days = t.astype("datetime64[D]")
    weekday = ((days.astype(np.int64) + 3) % 7)
    gaps = np.diff(t) / np.timedelta64(1, "m")
    ends = t + (hours * 60).astype("timedelta64[m]")
    rate = hours.sum() / since[-1]
    by_day = np.bincount(weekday, weights=hours, minlength=7)
    return since, weekday, gaps, ends, rate, by_day, str(days[0])


def test_datetime_arithmetic_next_to_lazy_math():
    stamps = ["2024-03-01T08:00", "2024-03-01T17:30", "2024-03-02T09:15", "2024-03-04T11:00",
              "2024-03-07T23:45", "2024-03-09T06:05"]
    hours = np.array([1.5, 2.0, 0.25, 3.0, 1.0, 4.5])
    check(calendar, stamps, hours, fallbacks={
        "numpy.array", "numpy.diff", "numpy.ndarray.astype (timedelta64[m])"})


def records(np, ids, scores, names):
    """A structured array of (id, score, name) records and np.char on the
    names: both run eagerly in numpy (counted), the scores' statistics are
    lazy float math."""
    table = np.zeros(len(ids), dtype=[("id", "i4"), ("score", "f8"), ("name", "U8")])
    table["id"] = ids
    table["score"] = scores
    table["name"] = names
    ranked = np.sort(table, order="score")
    upper = np.char.upper(np.asarray(names))
    starts = np.char.startswith(np.asarray(names), "b")
    s = np.asarray(table["score"], dtype=np.float64)
    z = (s - s.mean()) / s.std()
    return ranked["id"], list(ranked["name"]), upper, starts, z, float(s[starts].sum())


def test_structured_arrays_and_np_char():
    rng = np.random.default_rng(181)
    names = ["bob", "alice", "bea", "carl", "dora", "ben"]
    check(records, np.arange(6) + 10, rng.normal(size=6), names,
          fallbacks={"numpy.zeros", "numpy.array (dtype <U5)", "numpy.sort"})


def dedupe_rows(np, pts, weights):
    """Duplicate points merged: np.unique(axis=0) with return_index,
    return_inverse and return_counts, the first occurrence of each row, the
    weights summed per unique row with np.add.at over the inverse, rows
    rebuilt from the inverse, and unique values of one column with their
    first positions."""
    rows, first, inv, counts = np.unique(pts, axis=0, return_index=True, return_inverse=True,
                                         return_counts=True)
    total = np.zeros(len(rows))
    np.add.at(total, inv.ravel(), weights)
    rebuilt = rows[inv.ravel()]
    vals, pos = np.unique(pts[:, 0], return_index=True)
    dup_mask = np.ones(len(pts), dtype=bool)
    dup_mask[first] = False
    return rows, first, inv, counts, total, rebuilt, vals, pos, pts[dup_mask], int(dup_mask.sum())


def test_unique_rows_with_index_inverse_and_counts():
    rng = np.random.default_rng(182)
    check(dedupe_rows, rng.integers(0, 3, (20, 2)), rng.random(20))


def window_filters(np, sig, img):
    """Filters by sliding_window_view: a running median and a moving max of
    a signal, a Hampel outlier filter (median absolute deviation), a 3x3
    local mean and variance of an image, a max-pool via windows with a step,
    and a 2-D median filter."""
    from numpy.lib.stride_tricks import sliding_window_view as windows

    w = windows(sig, 5)
    med = np.median(w, axis=-1)
    mx = w.max(axis=-1)
    mad = np.median(np.abs(w - med[:, None]), axis=-1)
    centre = sig[2:-2]
    outlier = np.abs(centre - med) > 3 * 1.4826 * mad
    hampel = np.where(outlier, med, centre)
    p = windows(img, (3, 3))
    local_mean = p.mean(axis=(-2, -1))
    local_var = p.var(axis=(-2, -1))
    pooled = windows(img, (2, 2))[::2, ::2].max(axis=(-2, -1))
    med2 = np.median(p.reshape(*p.shape[:2], -1), axis=-1)
    return med, mx, hampel, int(outlier.sum()), local_mean, local_var, pooled, med2


def test_sliding_window_filters():
    rng = np.random.default_rng(183)
    sig = np.sin(np.linspace(0, 6, 40)) + rng.normal(scale=0.1, size=40)
    sig[[7, 23]] += 3.0
    check(window_filters, sig, rng.random((8, 10)))


def heat_equation(np, u0, alpha, steps):
    """The 2-D heat equation by explicit finite differences (five-point
    Laplacian by slicing, Dirichlet borders), then a 1-D Crank-Nicolson run
    with np.linalg.solve on a tridiagonal matrix built with np.diag, and the
    total heat and the maximum over time."""
    u = u0.copy()
    dx = 1.0 / (u.shape[0] - 1)
    dt = 0.2 * dx * dx / alpha
    peaks = []
    for _ in range(steps):
        lap = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]) / dx**2
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * dt * lap
        peaks.append(u.max())
    n = u.shape[0] - 2
    r = alpha * dt / dx**2
    main, off = np.full(n, 1 + r), np.full(n - 1, -r / 2)
    A = np.diag(main) + np.diag(off, 1) + np.diag(off, -1)
    B = np.diag(np.full(n, 1 - r)) + np.diag(-off, 1) + np.diag(-off, -1)
    v = u0[u0.shape[0] // 2, 1:-1].copy()
    for _ in range(steps):
        v = np.linalg.solve(A, B @ v)
    return u, np.array(peaks), u.sum() * dx * dx, v, np.trapezoid(v, dx=dx)


def test_heat_equation_explicit_and_crank_nicolson():
    x = np.linspace(0, 1, 14)
    X, Y = np.meshgrid(x, x)
    u0 = np.exp(-40 * ((X - 0.4) ** 2 + (Y - 0.6) ** 2))
    u0[0, :] = u0[-1, :] = u0[:, 0] = u0[:, -1] = 0.0
    check(heat_equation, u0, 0.7, 4, rtol=1e-9)


def kalman_smoother(np, zs, dt, q, r):
    """A constant-velocity Kalman filter in 2-D (state x, y, vx, vy) with
    position measurements, storing the predicted and filtered moments, then
    a Rauch-Tung-Striebel smoother running backwards; the log-likelihood of
    the innovations with slogdet, and the NIS per step."""
    F = np.eye(4)
    F[0, 2] = F[1, 3] = dt
    H = np.eye(2, 4)
    Q = q * np.kron(np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]]), np.eye(2))
    R = r * np.eye(2)
    x, P = np.zeros(4), np.eye(4) * 10.0
    xs_p, Ps_p, xs_f, Ps_f, nis, loglik = [], [], [], [], [], 0.0
    for z in zs:
        x, P = F @ x, F @ P @ F.T + Q
        xs_p.append(x)
        Ps_p.append(P)
        S = H @ P @ H.T + R
        innov = z - H @ x
        K = np.linalg.solve(S, H @ P).T
        x = x + K @ innov
        P = (np.eye(4) - K @ H) @ P
        xs_f.append(x)
        Ps_f.append(P)
        nis.append(innov @ np.linalg.inv(S) @ innov)
        sign, logdet = np.linalg.slogdet(S)
        loglik += -0.5 * (logdet + nis[-1] + 2 * np.log(2 * np.pi))
    xs, Ps = [xs_f[-1]], [Ps_f[-1]]
    for k in range(len(zs) - 2, -1, -1):
        G = Ps_f[k] @ F.T @ np.linalg.inv(Ps_p[k + 1])
        xs.insert(0, xs_f[k] + G @ (xs[0] - xs_p[k + 1]))
        Ps.insert(0, Ps_f[k] + G @ (Ps[0] - Ps_p[k + 1]) @ G.T)
    return np.array(xs_f), np.array(xs), np.stack(Ps)[:, :2, :2], np.array(nis), float(loglik)


# one graph of five unrolled filter steps and the smoother's inverses (solve,
# inv, slogdet composites): 6 to 10 s of compiling here
@pytest.mark.slow
def test_kalman_filter_with_rts_smoother():
    rng = np.random.default_rng(184)
    t = np.arange(5) * 0.5
    truth = np.stack([2 * t + 1, -t + 0.2 * t**2], axis=1)
    check(kalman_smoother, truth + rng.normal(scale=0.5, size=truth.shape), 0.5, 0.1, 0.25,
          rtol=1e-8)


def mlp_backprop(np, X, y, W1, W2, steps):
    """A two-layer float32 network trained by hand: ReLU hidden layer,
    softmax cross-entropy, gradients by manual backprop, SGD with momentum
    and weight decay, gradient-norm clipping; dtypes stay float32 (numpy 2
    keeps float32 with Python scalars)."""
    W1, W2 = W1.copy(), W2.copy()
    b1 = np.zeros(W1.shape[1], dtype=np.float32)
    b2 = np.zeros(W2.shape[1], dtype=np.float32)
    vel = [np.zeros_like(p) for p in (W1, b1, W2, b2)]
    onehot = np.eye(W2.shape[1], dtype=np.float32)[y]
    losses = []
    for _ in range(steps):
        h_pre = X @ W1 + b1
        h = np.maximum(h_pre, 0)
        logits = h @ W2 + b2
        logits = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        losses.append(-np.mean(np.log(p[np.arange(len(y)), y] + 1e-7)))
        d_logits = (p - onehot) / len(y)
        gW2, gb2 = h.T @ d_logits + 1e-3 * W2, d_logits.sum(axis=0)
        d_h = (d_logits @ W2.T) * (h_pre > 0)
        gW1, gb1 = X.T @ d_h + 1e-3 * W1, d_h.sum(axis=0)
        grads = [gW1, gb1, gW2, gb2]
        norm = np.sqrt(sum((g * g).sum() for g in grads))
        scale = min(1.0, 5.0 / (float(norm) + 1e-6))
        for i, (param, g) in enumerate(zip((W1, b1, W2, b2), grads, strict=True)):
            vel[i] = 0.9 * vel[i] - 0.5 * scale * g
            param += vel[i]
    acc = (np.argmax(X @ W1 + b1 > 0, axis=1) >= 0).mean()
    pred = np.argmax(np.maximum(X @ W1 + b1, 0) @ W2 + b2, axis=1)
    return W1, b2, np.array(losses), pred, float(acc), W1.dtype.name, p.dtype.name


# three graphs of 60-120 nodes (one per step, cut by float(norm)): 10 s of
# compiling here
@pytest.mark.slow
def test_float32_mlp_with_manual_backprop():
    rng = np.random.default_rng(185)
    X = rng.normal(size=(40, 2)).astype(np.float32)
    y = ((X[:, 0] * X[:, 1]) > 0).astype(np.int64)
    W1 = (rng.normal(size=(2, 16)) * 0.5).astype(np.float32)
    W2 = (rng.normal(size=(16, 2)) * 0.5).astype(np.float32)
    check(mlp_backprop, X, y, W1, W2, 2, rtol=2e-4)


def markov_chain(np, counts, start):
    """A Markov chain from transition counts: rows normalized, the n-step
    distribution by matrix_power, the stationary distribution by np.linalg.eig
    of P.T (eager, counted: no XLA lowering off CPU) next to power iteration
    and a least-squares solve of (P.T - I) pi = 0 with sum(pi) = 1, the mean
    return times, and the mixing distance per step."""
    P = counts / counts.sum(axis=1, keepdims=True)
    dist = start @ np.linalg.matrix_power(P, 8)
    vals, vecs = np.linalg.eig(P.T)
    k = np.argmin(np.abs(vals - 1))
    pi_eig = np.real(vecs[:, k])
    pi_eig = pi_eig / pi_eig.sum()
    pi = np.full(len(P), 1.0 / len(P))
    for _ in range(30):
        pi = pi @ P
    n = len(P)
    A = np.vstack([P.T - np.eye(n), np.ones((1, n))])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    pi_ls = np.linalg.lstsq(A, b, rcond=None)[0]
    tv = [0.5 * np.abs(start @ np.linalg.matrix_power(P, t) - pi_ls).sum() for t in (1, 3)]
    return dist, pi_eig, pi, pi_ls, 1.0 / pi_ls, np.array(tv), np.sort(np.abs(vals))


def test_markov_chain_stationary_distribution():
    rng = np.random.default_rng(186)
    start = np.zeros(5)
    start[0] = 1.0
    check(markov_chain, rng.integers(1, 20, (5, 5)).astype(np.float64), start, rtol=1e-7,
          fallbacks={"numpy.linalg.eig"})


def _same_histograms(cases) -> None:
    """lnp.histogram / histogram_bin_edges with string bins equal numpy's."""
    import lazytensor.numpy as lnp

    for d, name, range_ in cases:
        want = np.histogram(d, bins=name, range=range_)
        got = lnp.histogram(lnp.asarray(d), bins=name, range=range_)
        edges = lnp.histogram_bin_edges(lnp.asarray(d), bins=name, range=range_)
        for g, w in zip((*got, edges), (*want, want[1]), strict=True):
            g = np.asarray(g)
            assert g.dtype == w.dtype and g.shape == w.shape, (name, range_, d.dtype)
            np.testing.assert_allclose(g, w, rtol=2e-6 if w.dtype == np.float32 else 1e-12)


def test_histogram_string_bins_record_lazily():
    """np.histogram(x, bins="auto") and the other estimators ran eagerly
    (counted fallbacks); the bin count now comes from numpy's estimator run
    on the lazy data (one read of the width), edges and counts as numpy's.
    "doane" and "stone" still run in numpy (counted), as do weights (numpy's
    TypeError)."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    rng = np.random.default_rng(189)
    x, k = rng.normal(size=200), rng.integers(0, 50, 300)
    _same_histograms([(x, "auto", (0.2, 2.5)), (k, "sturges", None),
                      (np.arange(64.0), "fd", None)])
    metrics = get_runtime().metrics
    assert not metrics.fallbacks, dict(metrics.fallbacks)
    for name in ("doane", "stone"):
        got = lnp.histogram(lnp.asarray(x), bins=name)
        np.testing.assert_array_equal(np.asarray(got[0]), np.histogram(x, bins=name)[0])
    assert metrics.fallbacks["numpy.histogram"] == 2
    with pytest.raises(TypeError, match="not supported for weighted data"):
        lnp.histogram(lnp.arange(5.0), bins="auto", weights=lnp.ones(5))


# some 70 histograms of distinct bin counts, each compiled: 50 s here
@pytest.mark.slow
def test_histogram_string_bins_on_every_estimator_and_dtype():
    rng = np.random.default_rng(190)
    datas = [rng.normal(size=200), rng.integers(0, 50, 300), rng.random(9) < 0.5,
             np.full(10, 3.0), rng.exponential(size=500).astype(np.float32), np.arange(64.0)]
    _same_histograms([(d, name, range_) for d in datas
                      for name in ("auto", "fd", "sturges", "scott", "rice", "sqrt")
                      for range_ in (None, (0.2, 2.5))])
