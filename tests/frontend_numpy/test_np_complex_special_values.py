"""numpy's complex ufuncs and the Array API namespace on lazy arrays at
infinities, NaNs and signed zeros: numpy's values (C99 Annex G, from the
core's ``complex_special``), and the standard's where numpy departs from it
(sign of a part that is NaN, expm1 at an infinite real part)."""

from __future__ import annotations

import math
import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest

SPECIAL = [0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan]
Z = np.array([complex(a, b) for a in SPECIAL for b in SPECIAL])
UFUNCS = ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sinh", "cosh", "tanh",
          "arccos", "arccosh", "arcsin", "arcsinh", "arctanh"]


def _same(actual: np.ndarray, expected: np.ndarray, rtol: float) -> None:
    for part in ("real", "imag"):
        a, e = getattr(actual, part), getattr(expected, part)
        ok = (np.isnan(a) & np.isnan(e)) | ((a == e) & (np.signbit(a) == np.signbit(e))) \
            | (np.isfinite(e) & (e != 0) & np.isclose(a, e, rtol=rtol, atol=0))
        assert ok.all(), f"{part} at {Z[~ok]}: {a[~ok]} != {e[~ok]}"


def _numpy(name: str, z: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = getattr(np, name)(z)
        if name == "expm1":  # Annex G's expm1 = exp - 1 there; numpy gives NaNs
            e, bad = np.exp(z), ~np.isfinite(z.real) | (z == 0)  # (+0 for -0 + 0j)
            out.real[bad], out.imag[bad] = (e.real - 1)[bad], e.imag[bad]
    return out


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", UFUNCS)
def test_ufuncs_and_namespace_give_annex_g_values(name, dtype):
    z = Z.astype(dtype)
    rtol = 1e-5 if dtype is np.complex64 else 1e-12
    _same(np.asarray(getattr(np, name)(lnp.asarray(z))), _numpy(name, z), rtol)
    xp = lnp.asarray(z).__array_namespace__()
    xp_name = {"arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
               "arctanh": "atanh"}.get(name, name)
    _same(np.asarray(getattr(xp, xp_name)(xp.asarray(z))), _numpy(name, z), rtol)


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
