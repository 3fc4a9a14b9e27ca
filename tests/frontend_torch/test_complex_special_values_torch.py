"""torch's complex exp, log, log2, log10, sqrt, sinh, cosh, tanh, asin,
asinh and atanh at infinities, NaNs and signed zeros: C99 Annex G's values
as torch's kernels give them (the core's ``complex_special``), against
eager torch for complex64 and complex128."""

from __future__ import annotations

import math

import pytest
import torch

from .conftest import DEV

SPECIAL = [0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan]
NAMES = ["exp", "log", "log2", "log10", "sqrt", "sinh", "cosh", "tanh", "asin", "asinh",
         "atanh"]


def _same(actual: torch.Tensor, expected: torch.Tensor, rtol: float) -> None:
    for part in ("real", "imag"):
        a, e = getattr(actual, part), getattr(expected, part)
        ok = (a.isnan() & e.isnan()) | ((a == e) & (a.signbit() == e.signbit())) \
            | (e.isfinite() & (e != 0) & torch.isclose(a, e, rtol=rtol, atol=0))
        assert bool(ok.all()), f"{part}: {a[~ok]} != {e[~ok]}"


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("name", NAMES)
def test_complex_special_values_are_torch_s(name, dtype):
    z = torch.tensor([complex(a, b) for a in SPECIAL for b in SPECIAL], dtype=dtype)
    fn = getattr(torch, name)
    _same(fn(z.to(DEV)).cpu(), fn(z), 1e-5 if dtype is torch.complex64 else 1e-12)
