"""Elementwise math shared by the three frontends, one table: op x frontend
x dtype. A row is one function with its name in each frontend and the input
domain it is sampled from; a column is a frontend and one of the dtypes it
is checked in. Each cell calls the function on lazy inputs of several shapes
(0-d, 1-d, 2-d, empty) and compares with the same framework's eager result:
dtype, shape, and values within a tolerance fitting the result dtype and the
least precise input (exact for integer and bool results). Where the eager
call raises, the lazy call raises the same exception type.

One test per cell: its lazy results are recorded first and materialized in
one graph (one compile per test), and no cell may fall back to eager
execution. The default run keeps one dtype per (row, frontend), in turn
(``sweep``); the whole product runs in ``make test-slow``.

The frontends' own op tables (tests/frontend_numpy/np_opdb.py,
tests/frontend_tf/tf_opdb.py) leave these rows to this table; their
completeness checks count a row here as covered.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest
from frontends import ALL, available

SHAPES = ((), (4,), (3, 4), (2, 0))
# the dtypes each frontend's column holds (numpy's: the numpy op table's; tnp's:
# tnp's float types and integers; torch: floats and a narrow and a wide integer)
NUMPY = ("bool", "int8", "int32", "int64", "uint8", "float32", "float64", "complex64")
TNP = ("float32", "float64", "float16", "int32", "int64")
TORCH = ("float32", "float64", "int32", "int64")


@dataclass(frozen=True)
class Row:
    """One elementwise function: its name per frontend (numpy's by default,
    None where the framework lacks it), its dtypes per frontend (the
    column's by default), the float range its inputs are drawn from, the
    integer range, and whether NaN, inf, -inf and 0 are among the float
    inputs."""

    name: str
    names: dict = field(default_factory=dict)
    dtypes: dict = field(default_factory=dict)
    floats: tuple = (-2.0, 2.0)
    ints: tuple = (-9, 10)
    specials: bool = False

    def name_in(self, frontend: str) -> str | None:
        return self.names.get(frontend, self.name)


_UNIT = dict(floats=(-0.9, 0.9), ints=(-1, 2))
_POSITIVE = dict(floats=(0.1, 4.0), ints=(1, 10))
_NONNEG = dict(floats=(0.0, 4.0), ints=(0, 10))
_SAME = {"tnp": ("float32", "float64", "int32", "int64", "complex64"),
         "torch": ("float32", "float64", "int32", "int64", "complex64")}
ROWS = [
    Row("sin"), Row("cos"), Row("tan"),
    Row("arcsin", {"torch": "asin"}, **_UNIT), Row("arccos", {"torch": "acos"}, **_UNIT),
    Row("arctan", {"torch": "atan"}),
    Row("sinh"), Row("cosh"), Row("tanh"), Row("arcsinh", {"torch": "asinh"}),
    Row("arccosh", {"torch": "acosh"}, floats=(1.05, 4.0), ints=(1, 10)),
    Row("arctanh", {"torch": "atanh"}, **_UNIT),
    Row("exp"), Row("exp2"), Row("expm1"),
    Row("log", **_POSITIVE), Row("log2", **_POSITIVE), Row("log10", **_POSITIVE),
    Row("log1p", **_NONNEG), Row("sqrt", **_NONNEG), Row("cbrt", {"torch": None}),
    Row("ceil", specials=True), Row("floor", specials=True),
    Row("deg2rad"), Row("rad2deg"),
    Row("isnan", specials=True), Row("isfinite", specials=True),
    Row("fabs", {"torch": None}, specials=True),
    # functions that keep their operand's dtype (tnp: with complex64 among its dtypes)
    *(Row(name, {"torch": torch}, _SAME, specials=specials) for name, torch, specials in (
        ("absolute", "abs", True), ("negative", "neg", False), ("positive", "positive", False),
        ("square", "square", False), ("sign", "sign", True), ("signbit", "signbit", True),
        ("conjugate", "conj_physical", False))),
    Row("reciprocal", {}, {"tnp": ("float32", "float64")}, **_POSITIVE),
]
BY_NAME = {row.name: row for row in ROWS}
COLUMNS = {"numpy": NUMPY, "tnp": TNP, "torch": TORCH}
CELLS = [(row, fe, dtype) for row in ROWS for fe in COLUMNS if row.name_in(fe)
         for dtype in row.dtypes.get(fe, COLUMNS[fe])]


def covered(frontend: str) -> set[str]:
    """The functions of ``frontend`` (by its own names) that this table checks."""
    return {row.name_in(frontend) for row in ROWS if row.name_in(frontend)}


def sample(row: Row, dtype: str, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    d = np.dtype(dtype)
    if d.kind == "b":
        return rng.random(shape) > 0.5
    if d.kind in "iu":
        lo, hi = row.ints
        return rng.integers(max(lo, 0) if d.kind == "u" else lo, hi, shape).astype(d)
    values = rng.uniform(*row.floats, shape)
    if d.kind == "c":
        values = values + 1j * rng.uniform(*row.floats, shape)
    out = values.astype(d)
    if row.specials and d.kind == "f" and out.size >= 4:
        out.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, 0.0]
    return out


def tolerance(result: np.dtype, inputs: np.dtype) -> tuple[float, float]:
    """(rtol, atol) of the less precise of the result and input dtypes
    (a float64 result of float16 values carries float16 error)."""
    table = {2: (1e-2, 1e-3), 4: (2e-5, 1e-6), 8: (1e-10, 1e-12)}
    sizes = [d.itemsize // (2 if d.kind == "c" else 1) for d in (result, inputs) if d.kind in "fc"]
    return table[min(sizes)] if sizes else (0.0, 0.0)


def function(row, frontend: str, lazy: bool):
    """The row's function in ``frontend`` (the binary table's rows too)."""
    name = row.name_in(frontend)
    if frontend == "torch":
        import torch

        return getattr(torch, name)
    if frontend == "numpy":  # numpy's own ufunc: it dispatches to lazytensor.numpy
        return getattr(np, name)
    return getattr(ALL[frontend].namespace(lazy)["tnp"], name)


def _outcome(fn, frontend: str, operands: list, lazy: bool):
    fe = ALL[frontend]
    args = [fe.make_input(a, lazy) if isinstance(a, np.ndarray) else a for a in operands]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None
        except Exception as error:  # noqa: BLE001  (the type is what is compared)
            return None, error


def _least_precise(operands: list) -> np.dtype:
    arrays = [a.dtype for a in operands if isinstance(a, np.ndarray) and a.dtype.kind in "fc"]
    return min(arrays, key=lambda d: d.itemsize // (2 if d.kind == "c" else 1)) \
        if arrays else np.dtype(bool)


def _compare(context: str, frontend: str, operands: list, want, got) -> str | None:
    fe = ALL[frontend]
    w, g = np.asarray(fe.to_numpy(want)), np.asarray(fe.to_numpy(got))
    if g.dtype != w.dtype or g.shape != w.shape:
        return f"{context}: {g.dtype}{g.shape}, eager gives {w.dtype}{w.shape}"
    rtol, atol = tolerance(w.dtype, _least_precise(operands))
    try:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as error:
        return f"{context}: values differ\n{error}"
    return None


def run_cases(frontend: str, cases: list, function) -> None:
    """Each (context, operands) case run eagerly and lazily through
    ``function(lazy)``; every lazy result is recorded first and materialized
    in one graph. Fails on any difference and on any eager fallback."""
    from lazytensor.core import metrics

    metrics.reset()
    eager_fn, lazy_fn = function(False), function(True)
    runs = [(context, operands, _outcome(eager_fn, frontend, operands, lazy=False),
             _outcome(lazy_fn, frontend, operands, lazy=True)) for context, operands in cases]
    ALL[frontend].sync()  # one graph for all cases
    problems = []
    for context, operands, (want, want_error), (got, got_error) in runs:
        if want_error is not None or got_error is not None:
            if want_error is None or got_error is None or \
                    not isinstance(got_error, type(want_error)):
                problems.append(f"{context}: eager raised {want_error!r}, lazy {got_error!r}")
            continue
        problems.append(_compare(context, frontend, operands, want, got))
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems[:12])
    assert metrics.as_dict()["counters"]["eager_fallbacks"] == 0, metrics.as_dict()["fallbacks"]


def check_cell(row: Row, frontend: str, dtypes=None) -> None:
    """Every dtype of the frontend's column (or ``dtypes``) x every shape."""
    rng = np.random.default_rng(len(row.name))
    cases = [(f"{row.name} {frontend} {dtype}{shape}", [sample(row, dtype, shape, rng)])
             for dtype in dtypes or row.dtypes.get(frontend, COLUMNS[frontend])
             for shape in SHAPES]
    run_cases(frontend, cases, lambda lazy: function(row, frontend, lazy))


@pytest.mark.sweep("dtype", reason="every row and frontend in one of its dtypes (in turn, "
                   "every dtype reached); the full op x frontend x dtype product is slow")
@pytest.mark.parametrize("row,frontend,dtype", CELLS,
                         ids=[f"{r.name}-{fe}-{d}" for r, fe, d in CELLS])
def test_elementwise_matches_the_framework(row, frontend, dtype):
    if not available(frontend):
        pytest.skip(f"lazytensor's {frontend} frontend is not installed")
    check_cell(row, frontend, (dtype,))
