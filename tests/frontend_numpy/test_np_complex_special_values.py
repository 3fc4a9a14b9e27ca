"""numpy's complex functions at infinities, NaNs and signed zeros where the
check is numpy's alone: the Array API namespace gives the ufuncs' values,
and numpy's complex sign. The ufuncs themselves against eager numpy are a
column of the cross-frontend table tests/cross/test_complex_special_value_table.py."""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import lazytensor.numpy as lnp
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "cross"))
from test_complex_special_value_table import ROWS, assert_same_parts, eager  # noqa: E402

SPECIAL = [0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan]
Z = np.array([complex(a, b) for a in SPECIAL for b in SPECIAL])
UFUNCS = ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sinh", "cosh", "tanh",
          "arccos", "arccosh", "arcsin", "arcsinh", "arctanh"]
XP_NAMES = {"arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
            "arctanh": "atanh"}


def _same(actual: np.ndarray, expected: np.ndarray, rtol: float) -> None:
    assert_same_parts(actual, expected, Z.astype(expected.dtype), rtol)


def test_every_ufunc_is_a_row_of_the_cross_table():
    assert all("numpy" in ROWS.get(name, {}) for name in UFUNCS)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", UFUNCS)
def test_namespace_gives_the_ufuncs_values(name, dtype):
    """The Array API namespace's function on lazy arrays gives eager numpy's
    values (Annex G's expm1 where numpy departs), as the ufunc does."""
    z = Z.astype(dtype)
    rtol = 1e-5 if dtype is np.complex64 else 1e-12
    xp = lnp.asarray(z).__array_namespace__()
    _same(np.asarray(getattr(xp, XP_NAMES.get(name, name))(xp.asarray(z))),
          eager(name, "numpy", z), rtol)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sign_is_x_over_abs_with_the_standard_s_zero_and_nan(dtype):
    """numpy's sign, but +0 + 0j for any zero and NaN + NaN j where a part
    is NaN (the standard's; numpy 2 gives 1 + 0j for inf + NaN j)."""
    z = Z.astype(dtype)
    out = np.asarray(np.sign(lnp.asarray(z)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.sign(z)
    nan = np.isnan(z.real) | np.isnan(z.imag)
    expected[nan] = complex(math.nan, math.nan)
    expected[z == 0] = 0
    _same(out, expected, 1e-6)
