"""The persistent compile cache (``lazytensor.core.compiler.disk_cache``):
a second process running the same program compiles nothing; a corrupt
entry is recompiled and rewritten, so the next process loads it again; the
size cap evicts the least recently used entries; an unwritable directory
costs one warning; the environment moves it or turns it off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from lazytensor.core import Handle, Op, make, metrics, use_runtime
from lazytensor.core.compiler import disk_cache

PROGRAM = textwrap.dedent("""
    import json
    import numpy as np
    from lazytensor.core import Handle, Op, make, metrics, scalar, sync
    from lazytensor.core.runtime import get_runtime

    rt = get_runtime()
    w = rt.from_host(np.ones((8, 4), np.float32))
    for step in range(3):  # two graphs: a step, and the final read
        w.assign(make(Op.TANH, (make(Op.ADD, (w.node, make(Op.BROADCAST_IN_DIM,
            (scalar(step, np.dtype("float32")),), (8, 4), ()))),)))
        sync()
    total = Handle(make(Op.REDUCE_SUM, (w.node,), (0, 1)))
    value = float(total.numpy())
    d = metrics.as_dict()
    result = {"value": value, "compiles": d["timers"].get("compile", {}).get("calls", 0),
              "hits": d["counters"]["persistent_cache_hits"],
              "writes": d["counters"].get("persistent_cache_writes", 0)}
    print(json.dumps(result))
""")


def _run_here(directory: Path) -> dict:
    """The program in this process, as a new process would run it: a fresh
    runtime (no executable in memory) over the cache in ``directory``."""
    saved = list(disk_cache._ACTIVE)
    try:
        disk_cache.configure(directory).min_compile_seconds = 0.0
        with use_runtime():
            scope: dict = {}
            exec(PROGRAM.replace("print(json.dumps(result))", ""), scope)
            return scope["result"]
    finally:
        disk_cache._ACTIVE[:] = saved


def _run(directory: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "LAZYTENSOR_CACHE"}
    env.update(LAZYTENSOR_CACHE_DIR=str(directory), LAZYTENSOR_CACHE_MIN_COMPILE_SECONDS="0")
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_compiles_nothing_and_a_corrupt_entry_is_rewritten(tmp_path):
    check_processes(tmp_path, [_run, _run_here, _run_here, _run_here])


@pytest.mark.slow(reason="four Python processes that import jax: 20-30 s on a loaded machine")
def test_four_processes_share_the_cache(tmp_path):
    check_processes(tmp_path, [_run] * 4)


def check_processes(tmp_path: Path, runs: list) -> None:
    """The first run compiles and writes; the second compiles nothing; after
    an entry is truncated, the third compiles it again and rewrites it; the
    fourth compiles nothing."""
    first = runs[0](tmp_path)
    assert first["compiles"] == first["writes"] == 2 and first["hits"] == 0
    entries = sorted(tmp_path.glob("*" + disk_cache.SUFFIX))
    assert len(entries) == 2

    second = runs[1](tmp_path)
    assert second["compiles"] == 0 and second["hits"] == 2
    assert second["value"] == first["value"]

    damaged = entries[0]
    damaged.write_bytes(damaged.read_bytes()[:100])  # truncated
    third = runs[2](tmp_path)
    assert third["compiles"] == 1 and third["hits"] == 1 and third["writes"] == 1
    assert third["value"] == first["value"]
    assert disk_cache._checked_body(damaged.read_bytes()) is not None  # rewritten whole

    fourth = runs[3](tmp_path)
    assert fourth["compiles"] == 0 and fourth["hits"] == 2


def _graphs(count: int) -> dict:
    """``count`` distinct compiled graphs: signature -> executable."""
    with use_runtime() as rt:
        x = rt.from_host(np.ones(4, np.float32))
        for n in range(1, count + 1):
            node = x.node
            for _ in range(n):
                node = make(Op.NEG, (node,))
            Handle(node).numpy()
        return dict(rt.cache.entries)


def test_the_size_cap_evicts_the_least_recently_used_entries(tmp_path):
    cache = disk_cache.DiskCache(tmp_path, min_compile_seconds=0.0)
    graphs = list(_graphs(3).items())
    for i, (signature, executable) in enumerate(graphs):
        assert cache.store(signature, executable.compiled, 1.0)
        os.utime(cache._path(signature), (1000 + i, 1000 + i))  # stored in this order
    assert cache.load(graphs[0][0]) is not None  # used now: the most recent
    sizes = [cache._path(s).stat().st_size for s, _ in graphs]
    cache.max_bytes = sum(sizes) - 1
    cache._evict()
    kept = {p.name for p in tmp_path.glob("*" + disk_cache.SUFFIX)}
    assert cache._path(graphs[1][0]).name not in kept  # the least recently used
    assert {cache._path(graphs[0][0]).name, cache._path(graphs[2][0]).name} <= kept


def test_an_unwritable_directory_costs_one_warning(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    saved = list(disk_cache._ACTIVE)
    try:
        disk_cache.configure(blocker / "cache")
        disk_cache.active().min_compile_seconds = 0.0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert len(_graphs(2)) == 2  # both compiled and run
        assert [str(w.message).count("cannot be written") for w in caught] == [1]
    finally:
        disk_cache._ACTIVE[:] = saved


def test_the_environment_places_or_turns_off_the_cache(monkeypatch, tmp_path):
    for name in ("LAZYTENSOR_CACHE", "LAZYTENSOR_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert disk_cache.default_directory() == tmp_path / ".cache" / "lazytensor"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert disk_cache.default_directory() == tmp_path / "xdg" / "lazytensor"
    monkeypatch.setenv("LAZYTENSOR_CACHE_DIR", str(tmp_path / "moved"))
    assert disk_cache.default_directory() == tmp_path / "moved"
    monkeypatch.setenv("LAZYTENSOR_CACHE", "0")
    assert disk_cache.default_directory() is None


def test_the_metrics_report_shows_persistent_cache_hits():
    with use_runtime():
        assert "persistent_cache_hits" in metrics.report()


@pytest.mark.parametrize("damage", [b"", b"LTXC0001" + bytes(40), b"not a cache entry" * 10])
def test_a_damaged_entry_reads_as_a_miss(tmp_path, damage):
    cache = disk_cache.DiskCache(tmp_path, min_compile_seconds=0.0)
    signature, executable = next(iter(_graphs(1).items()))
    cache._path(signature).write_bytes(damage)
    assert cache.load(signature) is None
    assert cache.store(signature, executable.compiled, 1.0)
    assert cache.load(signature) is not None
