"""What the conformance harnesses share (``numpy_conformance.py``,
``tf_conformance.py``: a framework's own test modules copied and rewritten
to use lazytensor): running one copied module with pytest in a subprocess,
reading its counts, and printing the per-module table."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

_SUMMARY = re.compile(r"(\d+) (passed|failed|error|errors|skipped|xfailed|xpassed)")


def run_module(copy: Path, failures: bool, select: str | None = None, timeout: int = 1800,
               extra: tuple = ()) -> dict:
    """pytest's counts for one module (``extra``: more pytest arguments);
    a module that runs past ``timeout`` seconds reports what it had done."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "no:randomly", "-o", "addopts=", "-rfE", copy.name,
               *(["-k", select] if select else []), *extra]
    try:
        proc = subprocess.run(command, cwd=copy.parent, capture_output=True, text=True,
                              timeout=timeout)
        stdout, stderr = proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout or b""
        stdout = (out.decode() if isinstance(out, bytes) else out) + \
            f"\ntimed out after {timeout} s"
        stderr = ""
    lines = stdout.strip().splitlines() or [stderr[-300:]]
    tail = next((line for line in reversed(lines) if _SUMMARY.search(line)), lines[-1])
    counts = {kind.rstrip("s") if kind == "errors" else kind: int(n)
              for n, kind in _SUMMARY.findall(tail)}
    result = {"module": copy.name, "select": select, "summary": tail, **counts}
    if failures:
        result["failures"] = [line.split(" ", 1)[1] for line in lines
                              if line.startswith(("FAILED ", "ERROR "))]
    return result


def report(results: list[dict], title: str, json_path: str | None) -> None:
    """The per-module table, the failures asked for, and the total."""
    width = max([40, *(len(r["module"]) for r in results)])
    for r in results:
        print(f"{r['module']:{width}} {r.get('passed', 0):5} passed {r.get('failed', 0):5} failed "
              f"{r.get('error', 0):3} errors {r.get('skipped', 0):4} skipped")
        for failure in r.get("failures", []):
            print(f"    {failure}")
    passed = sum(r.get("passed", 0) for r in results)
    failed = sum(r.get("failed", 0) + r.get("error", 0) for r in results)
    print(f"\n{title}{passed} passed, {failed} failed or errored "
          f"({100 * passed / max(passed + failed, 1):.1f}% of the tests that ran)")
    if json_path:
        Path(json_path).write_text(json.dumps(results, indent=1))
