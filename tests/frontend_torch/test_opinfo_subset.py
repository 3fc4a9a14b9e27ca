"""A fixed subset of PyTorch's OpInfo database through ``ci/torch_opinfo.py``:
every sample correct and no eager fallback (the full run is ``make opinfo``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ci"))
import torch_opinfo  # noqa: E402

SUBSET = [
    "add", "mul", "sub", "div.no_rounding_mode", "sin", "exp", "sigmoid", "sum", "mean",
    "amax", "argmax", "mm", "matmul", "addmm", "transpose", "t", "permute", "view", "reshape",
    "cat", "where", "clamp", "softmax", "nn.functional.relu", "nn.functional.gelu",
    "nn.functional.layer_norm", "nn.functional.cross_entropy", "index_select", "gather",
    "masked_fill", "__getitem__", "pinverse",
]


@pytest.mark.parametrize("name", SUBSET)
def test_op_fully_lowered(name):
    """Each op on its own (a test per op, so that xdist spreads them): the op
    and the variants its name brings, every sample correct, none fell back."""
    ops, _ = torch_opinfo.run([name], verbose=False, max_samples=12)
    by_name = {r.name: r for r in ops}
    assert name in by_name, sorted(by_name)
    for result in ops:
        assert result.samples > 0, result.name
        assert result.correct == result.samples, (result.name, result.failures)
        assert not result.fallback_ops, (result.name, result.fallback_ops)
