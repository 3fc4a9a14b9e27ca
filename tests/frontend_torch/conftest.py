"""Fixtures for the torch frontend tests: a fresh core runtime per test, and
helpers comparing lazy results with eager PyTorch (value, dtype, shape)."""

from __future__ import annotations

import lazytensor.torch as lt
import pytest
import torch
from lazytensor.core import use_runtime

DEV = lt.device()


@pytest.fixture(autouse=True)
def fresh_runtime():
    with use_runtime() as runtime:
        yield runtime


def lazy(x):
    """A CPU tensor (or a structure of them) moved to the lazy device."""
    if isinstance(x, torch.Tensor):
        return x.to(DEV)
    if isinstance(x, (list, tuple)):
        return type(x)(lazy(v) for v in x)
    return x


def assert_same(expected, actual, rtol: float = 1.3e-6, atol: float = 1e-5) -> None:
    """Lazy ``actual`` equals eager ``expected``: dtype, shape and values."""
    if isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=False):
            assert_same(e, a, rtol, atol)
        return
    if not isinstance(expected, torch.Tensor):
        assert expected == actual
        return
    assert isinstance(actual, lt.LazyTensor), type(actual)
    assert actual.device == DEV
    got = actual.cpu()
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    torch.testing.assert_close(got, expected, rtol=rtol, atol=atol, equal_nan=True)
