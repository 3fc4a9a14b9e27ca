"""Run the Array API conformance suite (data-apis' array-api-tests) on the
namespace of lazy numpy arrays (``x.__array_namespace__()``, which is
``lazytensor.numpy.array_api``).

The suite is not on PyPI: given a folder that holds it (``--source DIR``,
with ``DIR/array_api_tests/test_*.py``, its ``conftest.py`` and the spec
stubs it reads, laid out as the suite expects), this runs each test module
with pytest in a subprocess, with ``ARRAY_API_TESTS_MODULE`` naming the
namespace under test, and prints passed/failed per module. Each module runs
from a scratch folder holding the suite's conftest and a one-line module that
star-imports the test module (run from inside the package, its ``typing.py``
would shadow Python's), with ``DIR`` on ``PYTHONPATH``. The suite needs
``hypothesis`` and ``ndindex`` importable (``PYTHONPATH`` is passed on).
``--module numpy`` runs the same modules on numpy's own namespace, the
reference: a failure numpy has too is the suite's or the standard's, not ours.

    python ci/array_api_conformance.py --source /tmp/aat
    python ci/array_api_conformance.py --source /tmp/aat --modules test_has_names.py --failures
    python ci/array_api_conformance.py --source /tmp/aat --module numpy --max-examples 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from _suites import report, run_module

NAMESPACE = "lazytensor.numpy.array_api"


def modules(source: Path, names: list[str] | None) -> list[str]:
    """The suite's test modules (all ``test_*.py``, or those named)."""
    if names:
        return names
    return sorted(path.name for path in (source / "array_api_tests").glob("test_*.py"))


def stand_ins(source: Path, names: list[str], scratch: Path) -> list[Path]:
    """One module per test module that imports it whole, beside the suite's conftest."""
    shutil.copy(source / "conftest.py", scratch / "conftest.py")
    paths = []
    for name in names:
        path = scratch / name
        path.write_text(f"from array_api_tests.{Path(name).stem} import *  # noqa: F403\n")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", required=True, type=Path,
                        help="folder holding array_api_tests/ (and its conftest.py)")
    parser.add_argument("--module", default=NAMESPACE, help="namespace to test (numpy: reference)")
    parser.add_argument("--modules", nargs="*", help="test files to run (default: all)")
    parser.add_argument("--max-examples", type=int, default=20, help="hypothesis examples per test")
    parser.add_argument("-k", dest="select", help="pytest -k expression")
    parser.add_argument("--failures", action="store_true", help="list the failing tests")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per module")
    parser.add_argument("--json", help="write the per-module results here")
    parser.add_argument("--disable-deadline", action="store_true",
                        help="no Hypothesis deadline (800 ms an example): on a loaded machine "
                             "a lazy namespace's first compile of a shape exceeds it")
    args = parser.parse_args()
    source = args.source.resolve()
    os.environ["ARRAY_API_TESTS_MODULE"] = args.module
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(source), os.environ.get("PYTHONPATH")) if p)
    extra = (f"--max-examples={args.max_examples}", "-W", "ignore::DeprecationWarning",
             *(["--disable-deadline"] if args.disable_deadline else []))
    with tempfile.TemporaryDirectory() as scratch:
        paths = stand_ins(source, modules(source, args.modules), Path(scratch))
        results = [run_module(path, args.failures, args.select, args.timeout, extra)
                   for path in paths]
    report(results, f"array-api-tests on {args.module}: ", args.json)


if __name__ == "__main__":
    main()
