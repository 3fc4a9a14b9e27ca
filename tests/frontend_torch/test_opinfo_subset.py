"""A fixed subset of PyTorch's OpInfo database through ``ci/torch_opinfo.py``:
every sample correct and no eager fallback (the full run is ``make opinfo``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ci"))
import torch_opinfo  # noqa: E402

# one xdist worker runs the whole module (make test: --dist loadgroup):
# its module fixture runs all 32 ops' samples (about 30 s)
pytestmark = pytest.mark.xdist_group("test_opinfo_subset")


SUBSET = [
    "add", "mul", "sub", "div.no_rounding_mode", "sin", "exp", "sigmoid", "sum", "mean",
    "amax", "argmax", "mm", "matmul", "addmm", "transpose", "t", "permute", "view", "reshape",
    "cat", "where", "clamp", "softmax", "nn.functional.relu", "nn.functional.gelu",
    "nn.functional.layer_norm", "nn.functional.cross_entropy", "index_select", "gather",
    "masked_fill", "__getitem__", "pinverse",
]


@pytest.fixture(scope="module")
def results():
    ops, totals = torch_opinfo.run(SUBSET, verbose=False, max_samples=12)
    return {r.name: r for r in ops}, totals


@pytest.mark.parametrize("name", SUBSET)
def test_op_fully_lowered(results, name):
    by_name, _ = results
    result = by_name[name]
    assert result.samples > 0
    assert result.correct == result.samples, result.failures
    assert not result.fallback_ops, result.fallback_ops


def test_subset_totals(results):
    _, totals = results
    assert totals.ops >= len(SUBSET)  # names without a variant bring their variants
    assert totals.sample_rate == 1.0 and totals.lowered_rate == 1.0
