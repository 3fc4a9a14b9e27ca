"""Complex functions at infinities, NaNs and signed zeros (C99 Annex G),
from the core's composites (``complex_special``), against numpy's values
for complex64 and complex128; where numpy departs from Annex G (expm1 at
an infinite or NaN real part), against Annex G's."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from lazytensor.core import Handle, Op
from lazytensor.core.composite.elementwise import complex_special
from lazytensor.core.leaves import constant

SPECIAL = [0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan]
FUNCTIONS = {"exp": Op.EXP, "expm1": Op.EXPM1, "log": Op.LOG, "log1p": Op.LOG1P,
             "sqrt": Op.SQRT, "sinh": Op.SINH, "cosh": Op.COSH, "tanh": Op.TANH,
             "arccos": Op.ACOS, "arccosh": Op.ACOSH, "arcsin": Op.ASIN, "arcsinh": Op.ASINH,
             "arctanh": Op.ATANH}


def _grid(dtype) -> np.ndarray:
    finite = np.random.default_rng(0).normal(0, 3, (16, 2))
    points = [complex(a, b) for a in SPECIAL for b in SPECIAL] + [complex(*p) for p in finite]
    return np.array(points, dtype=dtype)


def _expected(name: str, z: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = getattr(np, name)(z)
        if name == "expm1":  # numpy's expm1 is not Annex G's at an infinite or NaN real part
            e = np.exp(z)
            special = ~np.isfinite(z.real) | (z == 0)  # (the standard's +0 for -0 + 0j)
            out.real[special], out.imag[special] = (e.real - 1)[special], e.imag[special]
    return out


def _same_parts(actual: np.ndarray, expected: np.ndarray, z: np.ndarray, rtol: float) -> None:
    for part in ("real", "imag"):
        a, e = getattr(actual, part), getattr(expected, part)
        bad = ~((np.isnan(a) & np.isnan(e))
                | ((a == e) & (np.signbit(a) == np.signbit(e)))
                | (np.isfinite(e) & (e != 0) & np.isclose(a, e, rtol=rtol, atol=0)))
        assert not bad.any(), f"{part} at {z[bad]}: {a[bad]} != {e[bad]}"


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_annex_g_special_values_are_numpy_s(name, dtype):
    z = _grid(dtype)
    out = Handle(complex_special.c99(FUNCTIONS[name])(constant(z, z.dtype))).numpy()
    assert out.dtype == z.dtype
    _same_parts(out, _expected(name, z), z, 1e-4 if dtype is np.complex64 else 1e-12)


@pytest.mark.parametrize("base", [2.0, 10.0])
def test_log2_and_log10_divide_annex_g_s_log(base):
    z = _grid(np.complex128)
    out = Handle(complex_special.log_base(base)(constant(z, z.dtype))).numpy()
    _same_parts(out, _expected("log2" if base == 2.0 else "log10", z), z, 1e-12)


def test_real_operands_go_to_the_primitive():
    x = np.array([-1.0, 0.0, 2.0])
    out = Handle(complex_special.c99(Op.EXP)(constant(x, x.dtype))).numpy()
    np.testing.assert_allclose(out, np.exp(x))


_STANDARD = {  # points where numpy (or XLA's formula) departs from the standard
    ("tanh", complex(math.inf, 2.0)): complex(1.0, 0.0),  # numpy: 1 - 0j (C99's sin(2b))
    ("tanh", complex(math.inf, -2.0)): complex(1.0, -0.0),
    ("arccos", complex(1e308, math.nan)): complex(math.nan, math.nan),  # XLA: NaN - 709j
    ("arccosh", complex(-1e308, math.nan)): complex(math.nan, math.nan),
    ("arcsin", complex(3e10, math.nan)): complex(math.nan, math.nan),
    ("sqrt", complex(math.nan, 1e300)): complex(math.nan, math.nan),
}


@pytest.mark.parametrize("name,point", sorted(_STANDARD, key=str))
def test_the_standard_s_values_where_numpy_or_xla_depart(name, point):
    z = np.array([point])
    out = Handle(complex_special.c99(FUNCTIONS[name])(constant(z, z.dtype))).numpy()
    _same_parts(out, np.array([_STANDARD[name, point]]), z, 1e-12)
