"""Suite-wide settings: hypothesis profiles and the slow-test switch.

- ``--hypothesis-profile=thorough`` runs many more random programs;
  the default profile fits CI's budget.
- tests marked ``slow`` run only with ``LAZYTENSOR_SLOW=1`` or ``-m slow``.
- the persistent compile cache (on by default, in the user's cache
  directory) is off in the suite and in the processes it starts, so that
  tests neither write into ``~/.cache`` nor load what an earlier run
  compiled; tests/core/test_persistent_cache.py turns it on in a temporary
  directory.
"""

import os

os.environ.setdefault("LAZYTENSOR_CACHE", "0")

import pytest
from hypothesis import settings

settings.register_profile("default", max_examples=15, deadline=None, derandomize=True)
settings.register_profile("thorough", max_examples=400, deadline=None)
settings.load_profile("default")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("LAZYTENSOR_SLOW") == "1" or "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with LAZYTENSOR_SLOW=1 (make test-slow)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
