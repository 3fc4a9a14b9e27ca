"""Runtime fixtures of the numpy frontend tests (a module's own fixture of
the same name takes precedence)."""

from __future__ import annotations

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
