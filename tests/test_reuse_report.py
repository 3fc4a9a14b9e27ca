"""The reuse report's pieces: the pytest plugin that records one test run
(coverage contexts per test folder, op counts, outcomes), the reader that
attributes core statements to frontends, the duplicate parsing, and the
rendering of docs/reuse.md and the chart."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "ci"))

import duplication  # noqa: E402
import reuse_data  # noqa: E402
import reuse_render  # noqa: E402
import reuse_report  # noqa: E402
from reuse_plugin import IMPORT_CONTEXT  # noqa: E402

# ------------------------------------------------------- recording one run

ADD_TEST = """
    import numpy as np
    from lazytensor.core import Handle, Op, get_runtime, make

    def test_add():
        x = get_runtime().from_host(np.ones(3, np.float32)).node
        assert Handle(make(Op.ADD, (x, x))).numpy().tolist() == [2.0, 2.0, 2.0]
"""
EXP_TEST = """
    import numpy as np
    from lazytensor.core import Handle, Op, get_runtime, make

    def test_exp():
        x = get_runtime().from_host(np.zeros(3, np.float32)).node
        assert Handle(make(Op.EXP, (x,))).numpy().tolist() == [1.0, 1.0, 1.0]
"""


def test_one_run_records_contexts_ops_and_outcomes(tmp_path):
    """Two frontends' folders build ADD, one also EXP; a core test skips."""
    tests = tmp_path / "tests"
    layout = {"frontend_numpy/test_add.py": ADD_TEST, "frontend_torch/test_ops.py": ADD_TEST,
              "frontend_torch/sub/test_exp.py": EXP_TEST,
              "core/test_skip.py": "import pytest\n@pytest.mark.skip\ndef test_x(): pass\n"}
    for name, source in layout.items():
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).write_text(textwrap.dedent(source))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    data = tmp_path / "data"
    env = os.environ | {"LAZYTENSOR_REUSE_DATA": str(data), "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "ci"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    env.pop("PYTEST_XDIST_WORKER", None)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p",
                           "reuse_plugin", "-p", "no:cacheprovider", str(tests)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert reuse_data.has_run(data)

    run = reuse_data.read(data)
    assert run.outcomes["numpy"] == Counter(passed=1)
    assert run.outcomes["torch"] == Counter(passed=2) and not run.outcomes["tf"]
    assert run.ops["numpy"]["ADD"] == 1 and run.ops["torch"]["ADD"] == 1
    assert run.ops["torch"]["EXP"] == 1 and "EXP" not in run.ops["numpy"]
    assert run.session["exitstatus"] == 0 and run.statements > 1000
    numpy, torch, tf = (run.executed_by(f) for f in reuse_data.FRONTENDS)
    assert 0 < tf < numpy < torch < run.statements  # tf: the core's import-time lines only
    assert run.shared_by(3) == tf and run.shared_by(2) == run.only(("numpy", "torch")) > 0
    # numpy's test ran first: the compile of the ADD graph that torch's test then
    # found in the cache is numpy's only
    assert run.shared_by(1) == run.only(("torch",)) + run.only(("numpy",))
    assert run.only(("torch",)) > 0
    assert run.any_test() >= run.statements - run.shared_by(0)


def test_import_time_lines_count_for_the_frontends_that_use_the_module():
    contexts = {1: [IMPORT_CONTEXT], 2: ["tests/frontend_tf"],
                3: ["tests/frontend_numpy/programs", "tests/cross"], 4: ["tests/core"],
                9: ["tests/frontend_tf"]}  # 9 is no statement
    lines = reuse_data._attribute({1, 2, 3, 4, 5}, contexts)
    assert lines.by == {1: {"tf", "numpy"}, 2: {"tf"}, 3: {"numpy"}}
    assert lines.any_test == {1, 2, 3, 4}
    assert lines.shared_by(0) == 2 and lines.shared_by(2) == 1 and lines.shared_by(1) == 2
    unused = reuse_data._attribute({1, 2}, {1: [IMPORT_CONTEXT], 2: ["tests/core"]})
    assert unused.by == {} and unused.any_test == {1, 2}
    loaded = reuse_data._attribute({1, 2}, {1: [IMPORT_CONTEXT]}, frozenset({"torch"}))
    assert loaded.by == {1: {"torch"}}  # importing torch's frontend loads the module


def test_folders_map_to_frontends():
    assert reuse_data.frontend_of("tests/frontend_torch") == "torch"
    assert reuse_data.frontend_of("tests/frontend_tf/programs") == "tf"
    assert reuse_data.frontend_of("tests/frontend_tfx") is None
    assert reuse_data.frontend_of("tests/cross") is None


# ---------------------------------------------------------------- duplicates


def test_duplicate_pairs_become_report_entries_with_their_lines():
    pair = duplication.Pair(7, "frontend_numpy/lazytensor/numpy/__init__.py:1-3",
                            "frontend_tf/lazytensor/tf/__init__.py:1-3", ("numpy", "tf"))
    dup = reuse_report.as_duplicate(pair)
    assert dup.packages == ["numpy", "tf"] and dup.lines == 7 and dup.places[0] == pair.first
    first_lines = (ROOT / "frontend_numpy/lazytensor/numpy/__init__.py").read_text()
    assert dup.sample.splitlines()[0] == first_lines.splitlines()[0].rstrip()
    check = reuse_report.DuplicateCheck("test", [dup])
    assert not check.passed and "FAIL (1 pair(s))" in reuse_render.duplicate_line(check)
    assert "PASS" in reuse_render.duplicate_line(reuse_report.DuplicateCheck("test", []))


def _pair() -> reuse_report.Duplicate:
    return reuse_report.Duplicate(7, ["frontend_numpy/lazytensor/numpy/_base.py:56-65",
                                      "frontend_tf/lazytensor/tf/_array.py:70-79"],
                                  ["numpy", "tf"], "def ndim(self):\n    return len(self.shape)")


# ----------------------------------------------------------------- rendering


def _fake_report(duplicates: list) -> reuse_report.Report:
    sloc = {name: reuse_report.Sloc(code=1000 if name == "core" else 200, files=3)
            for name in reuse_report.PACKAGES}
    module = reuse_data._attribute(set(range(1, 11)), {
        1: [IMPORT_CONTEXT], 2: ["tests/frontend_numpy"], 3: ["tests/frontend_torch"],
        4: ["tests/frontend_tf", "tests/frontend_numpy", "tests/frontend_torch"],
        5: ["tests/frontend_tf", "tests/frontend_numpy"], 6: ["tests/core"]})
    session = {"commit": "abc1234", "dirty": False, "command": "pytest -n 2",
               "seconds": 60.0, "exitstatus": 0, "workers": 2}
    run = reuse_data.Run(session, {"ir": module},
                         {f: Counter(passed=3) for f in reuse_data.FRONTENDS},
                         dict.fromkeys(reuse_data.FRONTENDS, 1.0),
                         {"numpy": Counter(ADD=3, DOT_GENERAL=1), "torch": Counter(ADD=1),
                          "tf": Counter()})
    return reuse_report.Report("abc1234", sloc, run,
                               reuse_report.DuplicateCheck("a test", duplicates), ["ADD", "SUB"])


def test_report_renders_figures_sharing_and_the_duplicate_line(tmp_path):
    report = _fake_report([])
    assert report.frontend_share("numpy") == pytest.approx(200 / 1200)
    assert report.misses() == []
    text = reuse_render.markdown(report)
    assert "| numpy | 3 | 200 |" in text and "16.7%" in text and "24%–32%" in text
    assert "meets target" not in text and "≤ 25%" not in text
    assert "| **all three** frontends | 2 | 20.0% |" in text  # lines 1 and 4
    assert "| exactly two | 1 | 10.0% |" in text and "| only one | 2 | 20.0% |" in text
    assert "| `ADD` | 3 | 1 | · | 2 |" in text and "| `SUB` | · | · | · | 0 |" in text
    assert "duplicated logic across frontends: PASS" in text and "arXiv:2102.13267" in text
    reuse_render.chart(report, tmp_path / "reuse.png")
    assert (tmp_path / "reuse.png").read_bytes()[:4] == b"\x89PNG"


def test_a_duplicate_fails_the_check_and_strict_mode():
    report = _fake_report([_pair()])
    assert report.misses() == ["duplicated logic across frontends: 1 pair(s)"]
    text = reuse_render.markdown(report)
    assert "FAIL (1 pair(s))" in text and "`frontend_tf/lazytensor/tf/_array.py:70-79`" in text
    assert "    return len(self.shape)" in text
