"""pytest plugin: what the reuse report needs, gathered during one ordinary
test run (``make test COVERAGE=1``), so the report never reruns a suite.

In every process that runs tests (each xdist worker, or pytest itself
without ``-n``) it records, per test folder (``tests/frontend_numpy``,
``tests/core``, ... relative to the repository root):

- which core statements ran: coverage.py over ``lazytensor.core`` only
  (``[tool.coverage.run]`` in pyproject.toml), with the folder as coverage's
  context; what runs while test modules are imported (the core's
  module-level lines) gets the context ``IMPORT_CONTEXT``;
- how many nodes of each core op were built (every non-leaf node goes
  through ``registry.make``, which calls ``OPDEFS[op].rule``: wrapping the
  rules sees them all);
- the tests' outcomes and seconds.

Files land in ``$LAZYTENSOR_REUSE_DATA`` (a folder): coverage's
``.coverage.<suffix>`` files and one ``run.<pid>.json`` per process; the
process that started the run also writes ``session.json`` (commit, command,
wall time, exit status) and empties the folder first.

    LAZYTENSOR_REUSE_DATA=.reuse-data PYTHONPATH=ci python -m pytest -n 2 -p reuse_plugin
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import coverage

ENV = "LAZYTENSOR_REUSE_DATA"
IMPORT_CONTEXT = "(import)"
ROOT = Path(__file__).resolve().parent.parent


class Recorder:
    """Coverage with one context per test folder, op counts and outcomes."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.folder = IMPORT_CONTEXT
        self.ops: defaultdict[str, Counter] = defaultdict(Counter)
        self.outcomes: defaultdict[str, Counter] = defaultdict(Counter)
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.started = time.time()
        self.cov = coverage.Coverage(data_file=str(directory / ".coverage"), data_suffix=True,
                                     config_file=str(ROOT / "pyproject.toml"))
        self.cov.start()
        self.cov.switch_context(IMPORT_CONTEXT)

    def enter(self, folder: str) -> None:
        if folder != self.folder:
            self.folder = folder
            self.cov.switch_context(folder)

    def count_op(self, name: str) -> None:
        self.ops[self.folder][name] += 1

    def save(self) -> None:
        self.cov.stop()
        if not self.outcomes:  # xdist's controller runs no test: nothing to keep
            return
        self.cov.save()
        run = {"pid": os.getpid(), "ops": self.ops, "outcomes": self.outcomes,
               "seconds": self.seconds}
        (self.directory / f"run.{os.getpid()}.json").write_text(json.dumps(run, indent=1))


RECORDER: Recorder | None = None


def _counting(name: str, rule):
    def rule_and_count(operands, attrs):
        if RECORDER is not None:
            RECORDER.count_op(name)
        return rule(operands, attrs)

    return rule_and_count


def install_op_counter() -> None:
    """Wrap every registered op's rule (idempotent per op)."""
    from lazytensor.core import registry

    for op, opdef in list(registry.OPDEFS.items()):
        if getattr(opdef.rule, "__name__", "") != "rule_and_count":
            registry.replace_rule(op, _counting(op.name, opdef.rule))


def _folder(nodeid: str) -> str:
    """A test's folder relative to the root dir: ``tests/frontend_numpy``."""
    return Path(nodeid.split("::", 1)[0]).parent.as_posix()


def _starts_the_run() -> bool:
    """True in the process that pytest was started as (not an xdist worker)."""
    return "PYTEST_XDIST_WORKER" not in os.environ


def pytest_load_initial_conftests(early_config, parser, args) -> None:
    """Start measuring before any conftest or test module imports the core."""
    global RECORDER
    directory = os.environ.get(ENV)
    if not directory or RECORDER is not None:
        return
    path = Path(directory).resolve()
    path.mkdir(parents=True, exist_ok=True)
    if _starts_the_run():
        for old in [*path.glob(".coverage*"), *path.glob("*.json")]:
            old.unlink()
    RECORDER = Recorder(path)


def pytest_collection_finish(session) -> None:
    if RECORDER is not None:
        install_op_counter()  # after test modules registered their ops


def pytest_runtest_setup(item) -> None:
    if RECORDER is not None:
        RECORDER.enter(_folder(item.nodeid))


def pytest_runtest_logreport(report) -> None:
    if RECORDER is None or hasattr(report, "node"):  # xdist's controller: a worker's report,
        return                                       # which that worker counted already
    folder = _folder(report.nodeid)
    RECORDER.seconds[folder] += report.duration
    if report.when == "call" or report.outcome != "passed":
        outcome = report.outcome if report.when == "call" or report.outcome == "skipped" \
            else "error"
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        RECORDER.outcomes[folder][outcome] += 1


def pytest_sessionfinish(session, exitstatus) -> None:
    if RECORDER is None:
        return
    RECORDER.save()
    if _starts_the_run():
        _write_session(session.config, int(exitstatus))


def _write_session(config, exitstatus: int) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    info = {"commit": commit or "unknown", "dirty": bool(dirty),
            "command": " ".join(["pytest", *sys.argv[1:]]),
            "seconds": time.time() - RECORDER.started, "exitstatus": exitstatus,
            "workers": getattr(config.option, "numprocesses", None) or 0}
    (RECORDER.directory / "session.json").write_text(json.dumps(info, indent=1))
