"""Helpers for core tests that run composites without any frontend:
upload host data as a DATA leaf, run a node, compare with numpy."""

from __future__ import annotations

import numpy as np
from lazytensor.core import Handle, Op, make
from lazytensor.core.ir import Node
from lazytensor.core.runtime import get_runtime


def dev(a, dtype=None) -> Node:
    """A host value as device data (a DATA leaf)."""
    return get_runtime().from_host(np.asarray(a, dtype=dtype)).node


def run(node: Node) -> np.ndarray:
    """The value of ``node`` on the host (a leaf runs through a CONVERT)."""
    node = make(Op.CONVERT, (node,), node.dtype) if node.is_leaf else node
    return Handle(node).numpy()


def check(node: Node, want, rtol: float = 1e-12, atol: float | None = None) -> None:
    """``node`` equals ``want``: shape and dtype exactly, values within
    ``rtol``/``atol`` (``atol`` defaults to ``rtol``)."""
    got, want = run(node), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol if atol is None else atol)
