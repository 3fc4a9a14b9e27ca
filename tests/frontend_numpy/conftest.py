"""Runtime fixtures of the numpy frontend tests: ``own_runtime`` (isolation
only), ``plain_runtime`` (isolation, yields the runtime), ``runtime`` (no
eager fallback may have run by the end) and ``strict_runtime`` (an eager
fallback is an error where it happens)."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import pytest
from lazytensor.core.runtime import use_runtime


@pytest.fixture
def own_runtime():
    """The test in its own runtime: arrays that an expected error keeps alive
    never join a later test's graphs in the shared one (a module opts in with
    ``pytestmark = pytest.mark.usefixtures("own_runtime")``)."""
    with use_runtime():
        yield


@pytest.fixture
def runtime():
    """A fresh runtime whose metrics must show no eager fallback."""
    with use_runtime() as rt:
        yield rt
    assert rt.metrics.counters["eager_fallbacks"] == 0, dict(rt.metrics.fallbacks)


@pytest.fixture
def plain_runtime():
    """A fresh runtime, nothing asserted about it."""
    with use_runtime() as rt:
        yield rt


@pytest.fixture
def strict_runtime():
    """A fresh runtime in which an eager fallback raises at its call."""
    with use_runtime() as rt, warnings.catch_warnings():
        warnings.simplefilter("error", lnp.LazyFallbackWarning)
        yield rt
