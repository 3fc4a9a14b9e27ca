"""Binary elementwise functions shared by the three frontends, one table:
op x frontend x dtype. A row is one function with its name in each
frontend, the dtypes each frontend checks it in, its input domain and the
Python scalars it takes; each cell pairs operands of one dtype over
broadcasting shapes, then mixed dtypes and Python scalars on either side, and
compares the lazy result with the same framework's eager one (dtype, shape,
values at a tolerance of the result's and least precise input's dtype;
exact for integers and bools). Where the eager call raises, the lazy call
raises the same exception type; no cell falls back to eager execution.

A cell is (row, frontend, dtype): every broadcasting pair and every Python
scalar on either side in that dtype; a frontend's "mixed" column holds the
mixed-dtype pairs and its scalar cases with float32/int32 arrays. The
default run keeps one cell per (row, frontend), in turn (``sweep``); the
whole product runs in ``make test-slow``.

The frontends' op tables (tests/frontend_numpy/np_opdb.py,
tests/frontend_tf/tf_opdb.py) leave these rows to this table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from frontends import available
from test_elementwise_table import COLUMNS, function, run_cases

PAIRS = (((3, 4), (3, 4)), ((2, 3), (3,)), ((3, 1), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)))
MIXED = ((((2, 1), "float32"), ((1, 3), "float64")), (((4,), "int32"), ((4,), "float32")),
         (((4,), "int64"), ((), "int8")))
NUMPY_SCALARS = (2, 3.5, True)
FLOATS = ("float32", "float64")
TNP_BINARY = ("float32", "float64", "int32")
TORCH_BINARY = ("float32", "float64", "int32", "int64")
BITS = ("int8", "int32", "int64", "uint8", "bool")


@dataclass(frozen=True)
class BinaryRow:
    """``names``: the function's name per frontend (numpy's by default);
    ``dtypes``: the dtypes per frontend (the column's by default); ``floats``/
    ``ints``: the ranges operands are drawn from; ``specials``: NaN, inf,
    -inf and 0 among the float operands of four elements or more;
    ``positive_rhs``: the frontends whose divisors are drawn >= 1 (their
    integer division by zero is an error or undefined, as tf_opdb had it); ``scalars``: the Python
    scalars per frontend; ``mixed``: whether mixed-dtype pairs are checked."""

    name: str
    names: dict = field(default_factory=dict)
    dtypes: dict = field(default_factory=dict)
    floats: tuple = (-3.0, 3.0)
    ints: tuple = (-9, 10)
    specials: bool = False
    scalars: dict = field(default_factory=dict)
    mixed: bool = True
    positive_rhs: tuple = ()  # frontends whose right operands are drawn from [1, high)

    def name_in(self, frontend: str) -> str | None:
        return self.names.get(frontend, self.name)

    def dtypes_in(self, frontend: str) -> tuple:
        return self.dtypes.get(frontend, COLUMNS[frontend])

    def scalars_in(self, frontend: str) -> tuple:
        return self.scalars.get(frontend, ())


def _row(name, torch=None, tnp_dtypes=TNP_BINARY, torch_dtypes=TORCH_BINARY,
         numpy_scalars=(), other_scalars=(2, 1.5), **kw) -> BinaryRow:
    return BinaryRow(name, {"torch": torch or name},
                     {"tnp": tnp_dtypes, "torch": torch_dtypes},
                     scalars={"numpy": numpy_scalars, "tnp": other_scalars,
                              "torch": other_scalars}, **kw)


_MATH = dict(tnp_dtypes=FLOATS, torch_dtypes=FLOATS)
_COMPARE = dict(tnp_dtypes=TNP_BINARY + ("bool",), torch_dtypes=TORCH_BINARY + ("bool",),
                specials=True)
ROWS = [
    _row("add", numpy_scalars=NUMPY_SCALARS),
    _row("subtract", "sub", numpy_scalars=NUMPY_SCALARS),
    _row("multiply", "mul", numpy_scalars=NUMPY_SCALARS),
    _row("maximum", numpy_scalars=NUMPY_SCALARS, specials=True),
    *(_row(name, torch, numpy_scalars=NUMPY_SCALARS, positive_rhs=("tnp", "torch"))
      for name, torch in (("divide", "div"), ("floor_divide", None), ("remainder", None))),
    _row("minimum", specials=True),
    _row("arctan2", "atan2", numpy_scalars=NUMPY_SCALARS, other_scalars=(1.5,), **_MATH),
    _row("hypot", numpy_scalars=NUMPY_SCALARS, other_scalars=(1.5,), **_MATH),
    _row("logaddexp", other_scalars=(1.5,), specials=True, **_MATH),
    _row("logaddexp2", other_scalars=(1.5,), **_MATH),
    _row("nextafter", other_scalars=(1.5,), specials=True, **_MATH),
    _row("heaviside", other_scalars=(0.5,), specials=True, **_MATH),
    _row("equal", "eq", numpy_scalars=NUMPY_SCALARS, **_COMPARE),
    _row("not_equal", "ne", **_COMPARE),
    _row("less", "lt", numpy_scalars=NUMPY_SCALARS, **_COMPARE),
    _row("less_equal", "le", **{**_COMPARE, "specials": False}),
    _row("greater", "gt", **_COMPARE),
    _row("greater_equal", "ge", **{**_COMPARE, "specials": False}),
    *(_row(f"logical_{op}", tnp_dtypes=("bool",), torch_dtypes=("bool", "int32", "float32"),
           other_scalars=(True,)) for op in ("and", "or", "xor")),
    *(_row(f"bitwise_{op}", tnp_dtypes=BITS, torch_dtypes=BITS, ints=(-50, 50),
           numpy_scalars=NUMPY_SCALARS if op == "and" else (), other_scalars=(7,), mixed=False)
      for op in ("and", "or", "xor")),
]
CELLS = [(row, fe, dtype) for row in ROWS for fe in COLUMNS if row.name_in(fe)
         for dtype in row.dtypes_in(fe) + ("mixed",)]


def covered(frontend: str) -> set[str]:
    """The functions of ``frontend`` (by its own names) that this table checks."""
    return {row.name_in(frontend) for row in ROWS if row.name_in(frontend)}


def _draw(row: BinaryRow, dtype: str, shape: tuple, rng, special: bool = False,
          positive: bool = False) -> np.ndarray:
    d = np.dtype(dtype)
    if d.kind == "b":
        return rng.random(shape) > 0.5
    if d.kind in "iu":
        lo, hi = (1, row.ints[1]) if positive else row.ints
        lo, hi = max(lo, np.iinfo(d).min, 0 if d.kind == "u" else lo), min(hi, np.iinfo(d).max)
        return rng.integers(lo, hi, shape).astype(d)
    values = rng.uniform(1.0 if positive else row.floats[0], row.floats[1], shape)
    if d.kind == "c":
        values = values + 1j * rng.uniform(*row.floats, shape)
    out = values.astype(d)
    if special and d.kind == "f" and out.size >= 4:
        out.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, 0.0]
    return out


MIXED_COLUMN = "mixed"  # mixed-dtype pairs and the frontend's own scalar cases


def cases(row: BinaryRow, frontend: str, dtype: str, rng):
    """(label, operands) of one cell: numpy arrays or Python scalars. A
    dtype: same-dtype pairs over every broadcasting pair and every Python
    scalar on either side; ``MIXED_COLUMN``: the mixed-dtype pairs and
    Python scalars with float32/int32 arrays of the row's dtypes."""
    dtypes, scalars = row.dtypes_in(frontend), row.scalars_in(frontend)
    positive = frontend in row.positive_rhs
    if dtype != MIXED_COLUMN:
        for a, b in PAIRS:
            yield f"{dtype}{a} {dtype}{b}", [_draw(row, dtype, a, rng, row.specials),
                                             _draw(row, dtype, b, rng, row.specials, positive)]
        x, divisor = _draw(row, dtype, (3, 4), rng), _draw(row, dtype, (3, 4), rng, False, positive)
        for s in scalars:
            yield f"{dtype} {s!r}", [x, s]
            yield f"{s!r} {dtype}", [s, divisor if positive else x]
        return
    for (sa, da), (sb, db) in MIXED if row.mixed else ():
        yield f"{da}{sa} {db}{sb}", [_draw(row, da, sa, rng), _draw(row, db, sb, rng, False,
                                                                     positive)]
    for d in ("float32", "int32"):
        if d in dtypes:
            for s in scalars:
                yield f"{d}(3,) {s!r}", [_draw(row, d, (3,), rng), s]
    if scalars and "float32" in dtypes:
        yield f"{scalars[0]!r} float32(3,)", [scalars[0],
                                              _draw(row, "float32", (3,), rng, False, positive)]


def check(row: BinaryRow, frontend: str, dtype: str) -> None:
    rng = np.random.default_rng(len(row.name))
    run_cases(frontend, [(f"{row.name} {frontend} {label}", operands)
                         for label, operands in cases(row, frontend, dtype, rng)],
              lambda lazy: function(row, frontend, lazy))


@pytest.mark.sweep("dtype", reason="every row and frontend in one of its dtypes or its "
                   "mixed-dtype column (in turn, every one reached); the full product is slow")
@pytest.mark.parametrize("row,frontend,dtype", CELLS,
                         ids=[f"{r.name}-{fe}-{d}" for r, fe, d in CELLS])
def test_binary_matches_the_framework(row, frontend, dtype):
    if not available(frontend):
        pytest.skip(f"lazytensor's {frontend} frontend is not installed")
    check(row, frontend, dtype)
