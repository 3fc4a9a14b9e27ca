"""Suite-wide settings: hypothesis profiles and the slow-test switch.

- hypothesis profiles: ``default`` (5 examples) in ``make test``, ``slow``
  (15) in ``make test-slow``, which also selects the property tests;
  ``--hypothesis-profile=thorough`` runs many more random programs.
- tests marked ``slow`` run only with ``LAZYTENSOR_SLOW=1`` or ``-m slow``.
- a parametrized test marked ``sweep(names..., reason=...)`` keeps one value
  of the named parameters per combination of the others in the default run;
  the rest of its product is ``slow`` (``tests/sweeps.py``). ``skips=fn``:
  ``fn(**params)`` gives the reason the test skips those parameters (None
  when it runs), so that a row never keeps a test that only skips.
- on a machine with as many cores as xdist workers, each worker runs on a
  core of its own (``_pin_xdist_worker``): two workers on two cores
  otherwise contend with each other's XLA compile and Eigen threads (full
  runs: 11:41 unpinned; 10:56 and 11:12 pinned).
- the persistent compile cache (on by default, in the user's cache
  directory) is off in the suite and in the processes it starts, so that
  tests neither write into ``~/.cache`` nor load what an earlier run
  compiled; tests/core/test_persistent_cache.py turns it on in a temporary
  directory.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("LAZYTENSOR_CACHE", "0")
SLOW = os.environ.get("LAZYTENSOR_SLOW") == "1"


def _pin_xdist_worker() -> None:
    """Each xdist worker on a core of its own (gw0 on the first allowed
    core, gw1 on the next...) where the machine has exactly as many cores
    as workers, set before torch, jax or TensorFlow start their thread pools, which
    size themselves by the process's affinity. On a larger machine the
    workers keep every core: XLA compiles on several threads."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    if not worker.startswith("gw") or not hasattr(os, "sched_setaffinity"):
        return
    cpus = sorted(os.sched_getaffinity(0))
    if count < 2 or len(cpus) != count:
        return
    os.sched_setaffinity(0, {cpus[int(worker[2:]) % len(cpus)]})


_pin_xdist_worker()

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from sweeps import kept_positions  # noqa: E402

# property tests: 5 programs each in make test, 15 in make test-slow (which
# selects them too), 400 with --hypothesis-profile=thorough
settings.register_profile("default", max_examples=5, deadline=None, derandomize=True)
settings.register_profile("slow", max_examples=15, deadline=None, derandomize=True)
settings.register_profile("thorough", max_examples=400, deadline=None)
settings.load_profile("slow" if SLOW else "default")


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects: thinned items are ``slow``
def pytest_collection_modifyitems(config, items):
    _thin_sweeps(items)
    if SLOW:  # the property tests run again, with the slow profile's examples
        for item in items:
            if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
                item.add_marker(pytest.mark.slow)
    if SLOW or "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with LAZYTENSOR_SLOW=1 (make test-slow)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def _thin_sweeps(items) -> None:
    """Mark ``slow`` the part of each ``sweep`` test's product that the
    default run leaves out (``sweeps.kept_positions``)."""
    groups: dict = {}
    for item in items:
        marker = item.get_closest_marker("sweep")
        if marker is None or not hasattr(item, "callspec"):
            continue
        if not marker.args or not marker.kwargs.get("reason"):
            raise pytest.UsageError(f"{item.nodeid}: sweep needs parameter names and a reason")
        skips = marker.kwargs.get("skips")  # (params -> why the test skips them, or None)
        if "slow" in item.keywords or (skips and skips(**item.callspec.params)):
            continue  # a value marked slow stays slow; a skipped one is never the one kept
        groups.setdefault(item.nodeid.split("[")[0], (marker, []))[1].append(item)
    for marker, group in groups.values():
        thinned = marker.args
        params = [item.callspec.params for item in group]
        rows = [tuple((k, _key(v)) for k, v in sorted(p.items()) if k not in thinned)
                for p in params]
        values = [tuple(_key(p.get(name)) for name in thinned) for p in params]
        kept = kept_positions(rows, values, marker.kwargs.get("per_row", 1))
        for position, item in enumerate(group):
            if position not in kept:
                item.add_marker(pytest.mark.slow)


def _key(value):
    """A parameter value as a dictionary key: itself, or its identity when
    unhashable (the same table entry is the same object in every item)."""
    try:
        hash(value)
    except TypeError:
        return id(value)
    return value
