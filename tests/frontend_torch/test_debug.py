"""The debugging tools (``lazytensor.core.debug``, metrics) on torch
tensors: a pending graph as text, graphviz and StableHLO, a structural key
independent of the data, and the metrics report of a step."""

from __future__ import annotations

import torch
from lazytensor.core import debug, metrics

from .conftest import lazy


def _program(seed: int):
    torch.manual_seed(seed)
    x = lazy(torch.randn(2, 3))
    return torch.tanh(x * 2.0).sum(dim=0), x


def test_debug_tools_take_torch_tensors():
    y, x = _program(0)
    text = debug.dump(y)
    assert "TANH" in text and "REDUCE_SUM" in text and "float32[2,3]" in text
    assert text.splitlines()[-1].startswith("return %")
    dot = debug.to_dot(y)
    assert dot.startswith("digraph lazytensor {") and dot.count("->") >= 3
    assert "stablehlo.tanh" in debug.stablehlo(y)
    other, _ = _program(1)  # other data, same structure
    assert debug.graph_key(y) == debug.graph_key(other)
    assert debug.graph_key(y) != debug.graph_key(torch.tanh(x * 2.0).sum(dim=1))
    torch.testing.assert_close(y.cpu(), torch.tanh(x.cpu() * 2.0).sum(dim=0))


def test_metrics_report_counts_a_torch_step():
    metrics.reset()
    y, _ = _program(0)
    y.cpu()
    counters = metrics.as_dict()["counters"]
    assert counters["graphs_executed"] == 1 and counters["eager_fallbacks"] == 0, counters
    assert counters["ops_recorded"] >= 3, counters
    assert "graphs_executed" in metrics.report()
