"""Fixtures of the TensorFlow frontend tests (helpers: tf_helpers.py)."""

from __future__ import annotations

import pytest
import tf_helpers  # noqa: F401  (turns tnp's numpy behaviour on)


@pytest.fixture()
def fresh_metrics():
    from lazytensor.core import metrics

    metrics.reset()
    yield metrics
