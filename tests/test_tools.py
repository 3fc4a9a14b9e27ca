"""Smoke tests of the project's tools: the benchmark harness, the demo (one
short run per frontend, in a subprocess) and README's examples. They keep
`make demo` and `make bench` working as the frontends change; they time
nothing (the reuse report's tests are in test_reuse_report.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import _harness  # noqa: E402

# ---------------------------------------------------------- harness systems


def setup_sleep(ms: float, factor: float = 1.0):
    def step() -> None:
        time.sleep(ms * factor / 1000)

    step.info = lambda: {"affinity": sorted(os.sched_getaffinity(0)),
                         "omp": os.environ.get("OMP_NUM_THREADS")}
    return step


def setup_double(ms: float):
    return setup_sleep(ms, factor=2.0)


def setup_broken(ms: float):
    raise RuntimeError("this setup fails on purpose")


def test_harness_ratios_pinning_and_failures(tmp_path):
    out = tmp_path / "result.json"
    result = _harness.compare(
        {"base": setup_sleep, "double": setup_double, "broken": setup_broken},
        params={"ms": 2.0}, rounds=4, warmup=1, min_round_seconds=0.02,
        baseline="base", reference="base", json_path=out, quiet=True)
    assert 1.3 < result.ratio("double", "base") < 4.0
    assert result.ratio("base", "base") == 1.0
    assert len(result.systems["double"].times) == 4
    assert "this setup fails on purpose" in result.systems["broken"].error
    info = result.systems["base"].info
    assert info["affinity"] == [_harness.worker_core()] and info["omp"] == "1"
    saved = json.loads(out.read_text())
    assert saved["systems"]["double"]["vs_baseline"] == pytest.approx(
        result.ratio("double", "base"))
    assert "FAILED" in result.table()


def test_harness_rejects_local_setups():
    def local():  # not importable by a worker
        return lambda: None

    with pytest.raises(ValueError, match="module-level"):
        _harness.setup_path(local)


# -------------------------------------------------------------------- demo


@pytest.mark.parametrize("frontend", ["numpy", "torch", "tf"])
def test_demo_runs_and_lazy_matches_eager(frontend):
    proc = subprocess.run([sys.executable, "-m", "demo", "--frontend", frontend, "--quick"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    if proc.returncode == 3:
        pytest.skip(f"lazytensor's {frontend} frontend is not importable: {proc.stdout[-300:]}")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    for run in ("lazy", "captured"):  # traced at each step; replayed (``capture``)
        line = next(ln for ln in proc.stdout.splitlines() if ln.startswith(f"{run}/eager"))
        accuracy_gap = float(line.split("accuracy difference:")[1].split("%")[0])
        assert accuracy_gap <= 2.0, line
    assert "lazytensor metrics" in proc.stdout and "cache_hits" in proc.stdout


# ------------------------------------------------------------------ README

README_BLOCKS = [b.split("\n", 1)[1] for b in
                 (ROOT / "README.md").read_text().split("```python")[1:]]


@pytest.mark.parametrize("index", range(len(README_BLOCKS)))
def test_readme_example_runs(index, tmp_path):
    """Every ```python block of the README runs as it stands."""
    source = textwrap.dedent(README_BLOCKS[index].split("```", 1)[0])
    script = tmp_path / "example.py"  # as README says: python example.py
    script.write_text(source)
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"README example {index} failed:\n{source}\n{proc.stderr[-3000:]}"
