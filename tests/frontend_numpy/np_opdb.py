"""The numpy frontend's op database: one table of every op we check against
eager numpy -- name, how to call it, how to make its inputs, the dtypes to
run, and the expected failures (dtype -> reason).

Ufunc entries are generated from the frontend's own ufunc table (so a ufunc
added there is tested here), with input domains where numpy's result would
otherwise be NaN noise or undefined; function entries are listed by hand.
The elementwise functions that all three frontends share (sin, exp, log,
floor, isnan...; add, maximum, arctan2, less, bitwise_and...) are rows of
the cross-frontend tables tests/cross/test_elementwise_table.py and
test_binary_table.py instead (``CROSS_TABLE``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from lazytensor.numpy._ufunc_table import UFUNCS

sys.path.insert(0, str(Path(__file__).parents[1] / "cross"))
import test_binary_table  # noqa: E402
import test_elementwise_table  # noqa: E402

# ufuncs checked by the cross-frontend tables instead
CROSS_TABLE = test_elementwise_table.covered("numpy") | test_binary_table.covered("numpy")

DTYPES = ("bool", "int8", "int32", "int64", "uint8", "float32", "float64", "complex64")
REAL = tuple(d for d in DTYPES if d != "complex64")
NUMERIC = tuple(d for d in DTYPES if d != "bool")
FLOATS = ("float32", "float64")
INEXACT = ("float32", "float64", "complex64")
INTS = ("int8", "int32", "int64", "uint8")

# shapes: one tuple of operand shapes per case (broadcasting included)
UNARY_SHAPES = (((3, 4),), ((),), ((2, 0),))
BINARY_SHAPES = (((3, 4), (3, 4)), ((3, 1), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)))
REDUCE_SHAPES = (((3, 4),), ((2, 3, 4),))


@dataclass(frozen=True)
class OpInfo:
    """One op to check. ``fn(xp, *inputs)`` is run with xp=numpy on host
    inputs and on lazy inputs (numpy dispatching to lazytensor.numpy)."""

    name: str
    fn: Callable
    arity: int = 1
    domain: str = "any"
    dtypes: tuple = DTYPES
    shapes: tuple | None = None
    scalars: bool = False  # also try Python scalars as the second operand
    xfail: dict = field(default_factory=dict)
    rtol: float | None = None

    def cases(self) -> tuple:
        if self.shapes is not None:
            return self.shapes
        return UNARY_SHAPES if self.arity == 1 else BINARY_SHAPES[: 4 if self.arity == 2 else 2]


# --------------------------------------------------------------- sample data

def sample(dtype: str, shape: tuple, domain: str, rng: np.random.Generator) -> np.ndarray:
    """Values of ``dtype`` drawn for ``domain``; floats include a few specials."""
    d = np.dtype(dtype)
    if d == np.bool_:
        return rng.random(shape) > 0.5
    if d.kind in "iu":
        lo, hi = _INT_RANGES.get(domain, (-9, 10))
        if d.kind == "u":
            lo = max(lo, 0)
        return rng.integers(lo, hi, shape).astype(d)
    lo, hi = _FLOAT_RANGES.get(domain, (-3.0, 3.0))
    values = rng.uniform(lo, hi, shape)
    if d.kind == "c":
        values = values + 1j * rng.uniform(lo, hi, shape)
    out = values.astype(d)
    if domain == "specials" and out.size >= 4 and d.kind == "f":
        flat = out.reshape(-1)
        flat[:4] = [np.nan, np.inf, -np.inf, 0.0]
    return out


_INT_RANGES = {"positive": (1, 10), "small": (0, 4), "shift": (0, 7), "nonneg": (0, 10)}
_FLOAT_RANGES = {"positive": (0.1, 4.0),
                 "small": (-2.0, 2.0), "nonneg": (0.0, 4.0), "shift": (0.0, 6.0)}


# --------------------------------------------------------------- ufunc entries

_DOMAINS = {  # (the cross table's rows carry their own domains)
    "power": "small", "float_power": "small",
    "left_shift": "shift", "right_shift": "shift", "ldexp": "small", "gcd": "any",
    "lcm": "small", "fmax": "specials", "fmin": "specials", "isinf": "specials",
    "copysign": "specials", "trunc": "specials", "rint": "specials",
}

# (ufunc name, dtype) pairs that fail in lazytensor on purpose
_UFUNC_XFAIL = {
    ("spacing", "*"): "no lazy mapping (eager fallback is tested separately)",
}

_SCALAR_UFUNCS = {"add", "subtract", "multiply", "divide", "floor_divide", "remainder",
                  "power", "maximum", "less", "equal", "bitwise_and", "arctan2", "hypot"}


def _ufunc_call(ufunc: np.ufunc) -> Callable:
    return lambda xp, *args: ufunc(*args)


def _ufunc_entries() -> list[OpInfo]:
    entries = []
    for ufunc in sorted(UFUNCS, key=lambda u: u.__name__):
        name = ufunc.__name__
        if name in ("matmul", "vecdot", "matvec", "vecmat", "isnat"):
            continue  # gufuncs have their own entries
        if name in CROSS_TABLE:
            continue
        entries.append(OpInfo(
            name, _ufunc_call(ufunc), ufunc.nin, _DOMAINS.get(name, "any"),
            scalars=name in _SCALAR_UFUNCS,
        ))
    return entries


# ------------------------------------------------------------ function entries

def _f(name, fn, arity=1, **kw) -> OpInfo:
    return OpInfo(name, fn, arity, **kw)


_R = REDUCE_SHAPES
FUNCTIONS = [
    _f("matmul", lambda xp, a, b: a @ b, 2, shapes=(((3, 4), (4, 2)), ((2, 3, 4), (4,)),
                                                   ((4,), (2, 4, 3)), ((2, 1, 2, 3), (3, 3, 2)))),
    _f("vecdot", lambda xp, a, b: xp.vecdot(a, b), 2, shapes=(((3, 4), (4,)),)),
    _f("matvec", lambda xp, a, b: xp.matvec(a, b), 2, shapes=(((2, 3, 4), (4,)),)),
    _f("vecmat", lambda xp, a, b: xp.vecmat(a, b), 2, shapes=(((3,), (2, 3, 4)),)),
    _f("dot", lambda xp, a, b: xp.dot(a, b), 2, shapes=(((3, 4), (4, 2)), ((4,), (4,)),
                                                       ((2, 3, 4), (4, 5)))),
    _f("tensordot", lambda xp, a, b: xp.tensordot(a, b, axes=([1], [0])), 2,
       shapes=(((3, 4), (4, 2)),)),
    _f("inner", lambda xp, a, b: xp.inner(a, b), 2, shapes=(((3, 4), (2, 4)),)),
    _f("outer", lambda xp, a, b: xp.outer(a, b), 2, shapes=(((3,), (4,)),)),
    _f("einsum", lambda xp, a, b: xp.einsum("ij,kj->ki", a, b), 2,
       shapes=(((3, 4), (2, 4)),)),
    _f("einsum_trace", lambda xp, a: xp.einsum("ii->i", a[:3, :3]), shapes=_R[:1]),
    _f("einsum_sublist", lambda xp, a, b: xp.einsum(a, [0, 1], b, [1, 2], [0, 2]), 2,
       shapes=(((3, 4), (4, 2)),)),
    _f("kron", lambda xp, a, b: xp.kron(a, b), 2, shapes=(((2, 3), (2, 2)),)),
    _f("sum", lambda xp, x: xp.sum(x), shapes=_R),
    _f("sum_axis", lambda xp, x: xp.sum(x, axis=1, keepdims=True), shapes=_R),
    _f("sum_where", lambda xp, x: xp.sum(x, axis=0, where=x.real > 0) if x.dtype != bool
       else xp.sum(x, axis=0, where=x), shapes=_R),
    _f("prod", lambda xp, x: xp.prod(x, axis=-1), shapes=_R),
    _f("max", lambda xp, x: xp.max(x, axis=(0, 1)), shapes=_R, dtypes=REAL, domain="specials"),
    _f("min_initial", lambda xp, x: xp.min(x, axis=0, initial=1), shapes=_R, dtypes=REAL),
    _f("all", lambda xp, x: xp.all(x, axis=0), shapes=_R),
    _f("any", lambda xp, x: xp.any(x), shapes=_R),
    _f("mean", lambda xp, x: xp.mean(x, axis=0), shapes=_R),
    _f("var", lambda xp, x: xp.var(x, axis=1, ddof=1), shapes=_R, dtypes=NUMERIC),
    _f("std", lambda xp, x: xp.std(x), shapes=_R, dtypes=NUMERIC),
    _f("ptp", lambda xp, x: xp.ptp(x, axis=1), shapes=_R, dtypes=NUMERIC[:-1]),
    _f("argmax", lambda xp, x: xp.argmax(x, axis=1), shapes=_R, dtypes=REAL),
    _f("argmin", lambda xp, x: xp.argmin(x), shapes=_R, dtypes=REAL),
    _f("cumsum", lambda xp, x: xp.cumsum(x, axis=0), shapes=_R),
    _f("cumprod", lambda xp, x: xp.cumprod(x), shapes=_R, domain="small"),
    _f("count_nonzero", lambda xp, x: xp.count_nonzero(x, axis=0), shapes=_R),
    _f("average", lambda xp, x, w: xp.average(x, axis=0, weights=w), 2,
       shapes=(((3, 4), (3,)),), dtypes=NUMERIC[:-1]),
    _f("nansum", lambda xp, x: xp.nansum(x, axis=0), shapes=_R, dtypes=FLOATS, domain="specials"),
    _f("nanmean", lambda xp, x: xp.nanmean(x, axis=1), shapes=_R, dtypes=FLOATS),
    _f("nanmax", lambda xp, x: xp.nanmax(x, axis=1), shapes=_R, dtypes=REAL),
    _f("where", lambda xp, c, a, b: xp.where(c > 0, a, b), 3,
       shapes=(((3, 4), (3, 4), (4,)),)),
    _f("clip", lambda xp, x: xp.clip(x, 1, 5), dtypes=NUMERIC[:-1]),
    _f("round", lambda xp, x: xp.round(x, 1), dtypes=FLOATS),
    _f("sort", lambda xp, x: xp.sort(x, axis=0), dtypes=REAL, shapes=_R),
    _f("argsort", lambda xp, x: xp.argsort(x, kind="stable"), dtypes=REAL, shapes=_R),
    _f("reshape", lambda xp, x: xp.reshape(x, (-1, 2)), shapes=_R),
    _f("transpose", lambda xp, x: xp.transpose(x), shapes=_R),
    _f("swapaxes", lambda xp, x: xp.swapaxes(x, 0, -1), shapes=_R),
    _f("moveaxis", lambda xp, x: xp.moveaxis(x, 0, -1), shapes=_R),
    _f("expand_dims", lambda xp, x: xp.expand_dims(x, (0, 2)), shapes=_R),
    _f("squeeze", lambda xp, x: xp.squeeze(x[:, :1]), shapes=_R),
    _f("ravel_T", lambda xp, x: xp.ravel(x.T), shapes=_R),
    _f("concatenate", lambda xp, a, b: xp.concatenate([a, b], axis=0), 2,
       shapes=(((3, 4), (2, 4)),)),
    _f("stack", lambda xp, a, b: xp.stack([a, b], axis=1), 2, shapes=(((3, 4), (3, 4)),)),
    _f("hstack", lambda xp, a, b: xp.hstack([a, b]), 2, shapes=(((3, 4), (3, 2)),)),
    _f("vstack", lambda xp, a, b: xp.vstack([a, b]), 2, shapes=(((4,), (4,)),)),
    _f("split", lambda xp, x: xp.split(x, 2, axis=1)[1], shapes=_R),
    _f("flip", lambda xp, x: xp.flip(x, 0), shapes=_R),
    _f("roll", lambda xp, x: xp.roll(x, 2, axis=1), shapes=_R),
    _f("rot90", lambda xp, x: xp.rot90(x), shapes=_R),
    _f("tile", lambda xp, x: xp.tile(x, (2, 1)), shapes=_R),
    _f("repeat", lambda xp, x: xp.repeat(x, 2, axis=0), shapes=_R),
    _f("pad", lambda xp, x: xp.pad(x, 1, mode="reflect"), shapes=_R),
    _f("tril", lambda xp, x: xp.tril(x, -1), shapes=_R),
    _f("triu", lambda xp, x: xp.triu(x), shapes=_R),
    _f("diagonal", lambda xp, x: xp.diagonal(x, 1), shapes=_R),
    _f("trace", lambda xp, x: xp.trace(x), shapes=_R[:1]),
    _f("take", lambda xp, x: xp.take(x, [2, 0, -1], axis=1), shapes=_R),
    _f("take_along_axis", lambda xp, x: xp.take_along_axis(x, xp.argsort(x, axis=1), 1),
       shapes=_R[:1], dtypes=REAL),
    _f("diff", lambda xp, x: xp.diff(x, axis=0), shapes=_R),
    _f("isclose", lambda xp, a, b: xp.isclose(a, b, atol=0.5), 2, dtypes=NUMERIC),
    _f("nan_to_num", lambda xp, x: xp.nan_to_num(x), dtypes=INEXACT, domain="specials"),
    _f("real", lambda xp, x: xp.real(x), dtypes=INEXACT),
    _f("imag", lambda xp, x: xp.imag(x), dtypes=INEXACT),
    _f("angle", lambda xp, x: xp.angle(x), dtypes=INEXACT),
    _f("cross", lambda xp, a, b: xp.cross(a, b), 2, shapes=(((4, 3), (3,)),), dtypes=NUMERIC),
    _f("getitem_basic", lambda xp, x: x[1:, ::-2], shapes=_R),
    _f("getitem_adv", lambda xp, x: x[[0, 2, -1], 1:], shapes=_R[:1]),
    _f("getitem_mask", lambda xp, x: x[x.real > 0] if x.dtype != bool else x[x], shapes=_R),
    _f("searchsorted", lambda xp, a, v: xp.searchsorted(xp.sort(a.ravel()), v), 2,
       shapes=(((3, 4), (5,)),), dtypes=REAL[1:]),
    _f("linspace", lambda xp, a, b: xp.linspace(a, b, 5), 2, shapes=(((3,), (3,)),),
       dtypes=NUMERIC[:-1]),
    _f("astype", lambda xp, x: x.astype(np.float32) + x.astype(np.int16)),
    _f("median", lambda xp, x: xp.median(x, axis=1), shapes=_R, dtypes=REAL, domain="specials"),
    _f("quantile", lambda xp, x: xp.quantile(x, [0.1, 0.5, 0.8], axis=0), shapes=_R,
       dtypes=REAL),
    _f("percentile", lambda xp, x: xp.percentile(x, 37.5, keepdims=True), shapes=_R,
       dtypes=REAL),
    _f("isin", lambda xp, a, b: xp.isin(a, b), 2, shapes=(((3, 4), (5,)),)),
    _f("isposinf", lambda xp, x: xp.isposinf(x) | xp.isneginf(x), dtypes=REAL,
       domain="specials"),
    _f("iscomplex", lambda xp, x: xp.iscomplex(x) ^ xp.isreal(x)),
    _f("select", lambda xp, a, b: xp.select([a > 1, b < 0], [a, b], 7), 2,
       dtypes=NUMERIC[:-1]),
    _f("choose", lambda xp, a, b: xp.choose(xp.asarray([[0, 1, 1, 0]] * 3), [a, b]), 2,
       shapes=(((3, 4), (3, 4)),)),
    _f("sinc", lambda xp, x: xp.sinc(x), dtypes=NUMERIC),
    _f("append", lambda xp, a, b: xp.append(a, b, axis=0), 2, shapes=(((3, 4), (1, 4)),)),
    _f("trapezoid", lambda xp, y: xp.trapezoid(y, dx=0.5), dtypes=NUMERIC),
    _f("cov", lambda xp, x: xp.cov(x), dtypes=NUMERIC, shapes=_R[:1]),
    _f("corrcoef", lambda xp, x: xp.corrcoef(x, rowvar=False), dtypes=FLOATS, shapes=_R[:1]),
    _f("convolve", lambda xp, a, b: xp.convolve(a, b, mode="same"), 2,
       shapes=(((7,), (3,)), ((3,), (5,))), dtypes=NUMERIC),
    _f("correlate", lambda xp, a, b: xp.correlate(a, b, mode="full"), 2,
       shapes=(((7,), (3,)), ((3,), (5,))), dtypes=NUMERIC),
    _f("interp", lambda xp, x, f: xp.interp(x, xp.asarray([-2.0, -0.5, 1.0, 2.5]), f[:4]), 2,
       shapes=(((3, 4), (4,)),), dtypes=FLOATS),
    _f("bincount", lambda xp, x: xp.bincount(x.ravel(), minlength=3), dtypes=("uint8",),
       domain="nonneg", shapes=_R),
    _f("unstack", lambda xp, x: xp.unstack(x, axis=1)[1], shapes=_R),
    _f("rollaxis", lambda xp, x: xp.rollaxis(x, -1, 1), shapes=_R),
    _f("ufunc_at", lambda xp, x: _add_at(xp, x), shapes=_R[:1], dtypes=NUMERIC),
]


def _add_at(xp, x):
    y = x.copy()
    xp.add.at(y, ([0, 1, 1, 2], [3, 0, 0, 3]), 1)
    xp.maximum.at(y, (slice(None), 0), 2)
    return y

OPS: list[OpInfo] = _ufunc_entries() + FUNCTIONS


def xfail_reason(op: OpInfo, dtype: str) -> str | None:
    for key in ((op.name, dtype), (op.name, "*")):
        if key in _UFUNC_XFAIL:
            return _UFUNC_XFAIL[key]
    return op.xfail.get(dtype)


def tolerance(dtype: np.dtype, op: OpInfo) -> tuple[float, float]:
    """(rtol, atol) that fit the result dtype."""
    base = {"e": (1e-2, 1e-3), "f": (2e-5, 1e-6), "F": (2e-5, 1e-6),
            "d": (1e-10, 1e-12), "D": (1e-10, 1e-12)}.get(dtype.char, (0, 0))
    return (op.rtol or base[0], base[1])
