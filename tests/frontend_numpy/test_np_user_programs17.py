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

import numpy as np
import pytest
from test_np_user_programs9 import check

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
    lazily (composite.folds) instead of running eagerly."""
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
