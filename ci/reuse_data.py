"""Reads what one test run recorded for the reuse report (ci/reuse_plugin.py):
which core statements the tests of each frontend executed, their outcomes
and the core ops they built.

A test belongs to a frontend by its folder (``FRONTEND_TESTS``); tests of
the core, across frontends (``tests/cross``) and of the tools count for no
frontend, though their lines appear in "executed by any test". A core
module's import-time lines (its ``def``, ``class`` and module-level
statements, run when a test module is collected) count for a frontend when
that frontend's tests execute any other line of the module.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from reuse_plugin import IMPORT_CONTEXT, ROOT

FRONTENDS = ("numpy", "torch", "tf")
FRONTEND_TESTS = {  # frontend -> the test folder whose tests are its own (and its subfolders)
    "numpy": "tests/frontend_numpy",
    "torch": "tests/frontend_torch",
    "tf": "tests/frontend_tf",
}
CORE_SOURCE = ROOT / "core" / "lazytensor" / "core"


def frontend_of(folder: str) -> str | None:
    """The frontend whose tests live in ``folder`` (None: core, cross, tools)."""
    for name, prefix in FRONTEND_TESTS.items():
        if folder == prefix or folder.startswith(prefix + "/"):
            return name
    return None


@dataclass
class ModuleLines:
    """One core module: its statements and who executed each."""

    statements: set[int] = field(default_factory=set)
    by: dict[int, frozenset[str]] = field(default_factory=dict)  # line -> frontends
    any_test: set[int] = field(default_factory=set)  # lines executed by any test

    def executed_by(self, frontend: str) -> int:
        return sum(1 for users in self.by.values() if frontend in users)

    def shared_by(self, count: int) -> int:
        """Statements executed by the tests of exactly ``count`` frontends."""
        if count == 0:
            return len(self.statements) - len(self.by)
        return sum(1 for users in self.by.values() if len(users) == count)


@dataclass
class Run:
    """What one test run recorded."""

    session: dict  # commit, dirty, command, seconds, exitstatus, workers
    modules: dict[str, ModuleLines]  # core module name -> lines
    outcomes: dict[str, Counter]  # frontend -> {"passed": n, ...}
    seconds: dict[str, float]  # frontend -> test seconds (summed over workers)
    ops: dict[str, Counter]  # frontend -> {op name: nodes built}

    @property
    def statements(self) -> int:
        return sum(len(m.statements) for m in self.modules.values())

    def executed_by(self, frontend: str) -> int:
        return sum(m.executed_by(frontend) for m in self.modules.values())

    def shared_by(self, count: int) -> int:
        return sum(m.shared_by(count) for m in self.modules.values())

    def only(self, frontends: tuple[str, ...]) -> int:
        """Statements executed by exactly these frontends' tests."""
        want = frozenset(frontends)
        return sum(1 for m in self.modules.values() for u in m.by.values() if u == want)

    def any_test(self) -> int:
        return sum(len(m.any_test) for m in self.modules.values())

    def groups(self) -> list[tuple[str, ...]]:
        """Every non-empty set of frontends, largest first."""
        return [c for k in range(len(FRONTENDS), 0, -1) for c in combinations(FRONTENDS, k)]


def module_name(path: str) -> str:
    parts = Path(path).with_suffix("").parts
    start = max(i for i, p in enumerate(parts) if p == "lazytensor")
    return ".".join(parts[start + 2:]) or "__init__"


_LOADED = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(getattr(m, "__file__", None) or "" for n, m in list(sys.modules.items())
                        if n == "lazytensor.core" or n.startswith("lazytensor.core."))))
"""
FRONTEND_MODULES = {"numpy": "lazytensor.numpy", "torch": "lazytensor.torch",
                    "tf": "lazytensor.tf"}


def loaded_on_import() -> dict[str, set[str]]:
    """Per frontend, the core modules that ``import lazytensor.<frontend>``
    loads (each in a fresh interpreter)."""
    procs = {f: subprocess.Popen([sys.executable, "-c", _LOADED, FRONTEND_MODULES[f]],
                                 cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for f in FRONTENDS}
    loaded = {}
    for frontend, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        if proc.returncode:
            raise RuntimeError(f"import {FRONTEND_MODULES[frontend]} failed:\n{err[-2000:]}")
        loaded[frontend] = {module_name(f) for f in json.loads(out.splitlines()[-1]) if f}
    return loaded


def has_run(directory: Path) -> bool:
    return (directory / "session.json").exists() and any(directory.glob(".coverage.*"))


def read(directory: Path) -> Run:
    """Combine the run's coverage files and JSON records into a ``Run``."""
    session = json.loads((directory / "session.json").read_text())
    outcomes: dict[str, Counter] = {f: Counter() for f in FRONTENDS}
    seconds: dict[str, float] = dict.fromkeys(FRONTENDS, 0.0)
    ops: dict[str, Counter] = {f: Counter() for f in FRONTENDS}
    for path in sorted(directory.glob("run.*.json")):
        record = json.loads(path.read_text())
        for folder, counts in record["outcomes"].items():
            if (name := frontend_of(folder)) is not None:
                outcomes[name].update(counts)
                seconds[name] += record["seconds"].get(folder, 0.0)
        for folder, counts in record["ops"].items():
            if (name := frontend_of(folder)) is not None:
                ops[name].update(counts)
    return Run(session, _read_lines(directory), outcomes, seconds, ops)


def _read_lines(directory: Path) -> dict[str, ModuleLines]:
    import coverage

    loaded = loaded_on_import()
    with tempfile.TemporaryDirectory() as tmp:
        cov = coverage.Coverage(data_file=str(Path(tmp) / ".coverage"),
                                config_file=str(ROOT / "pyproject.toml"))
        cov.combine([str(p) for p in directory.glob(".coverage.*")], keep=True)
        data = cov.get_data()
        # by module name, so a run recorded in another clone (or through an
        # installed copy of the core) reads the same
        measured = {module_name(f): f for f in data.measured_files()}
        modules = {}
        for path in sorted(CORE_SOURCE.rglob("*.py")):
            statements = set(cov.analysis2(str(path))[1])
            name = module_name(str(path))
            recorded = measured.get(name)
            contexts = data.contexts_by_lineno(recorded) if recorded else {}
            importers = frozenset(f for f in FRONTENDS if name in loaded[f])
            modules[name] = _attribute(statements, contexts, importers)
    return modules


def _attribute(statements: set[int], contexts: dict[int, list[str]],
               importers: frozenset[str] = frozenset()) -> ModuleLines:
    """Who executed each statement; ``importers``: the frontends whose import
    loads the module."""
    lines = ModuleLines(statements)
    at_import: list[int] = []
    for line, names in contexts.items():
        if line not in statements:
            continue
        lines.any_test.add(line)
        frontends = frozenset(filter(None, map(frontend_of, names)))
        if frontends:
            lines.by[line] = frontends
        if IMPORT_CONTEXT in names:
            at_import.append(line)
    users = frozenset().union(importers, *lines.by.values())
    for line in at_import:  # import-time lines go to the frontends that load or use it
        if users:
            lines.by[line] = users
    return lines
