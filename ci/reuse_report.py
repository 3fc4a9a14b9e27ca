"""The code-reuse report (issues 5 and 22): how much of lazytensor is the
shared core, and how much of the core the frontends share when they run.

Writes docs/reuse.md (tables) and docs/reuse.png (chart) from:

- source lines of code (pygount: blank lines, comments and docstrings
  excluded) of the core and of each frontend, and each frontend's share of
  its core + frontend total, next to Swift for TensorFlow's x10;
- the coverage data of ONE test run (``make test COVERAGE=1``, recorded by
  ci/reuse_plugin.py with a coverage context per test folder; read by
  ci/reuse_data.py): per frontend, the core statements its own tests
  (tests/frontend_<name>) execute, and the core statements executed by the
  tests of all three frontends, of exactly two and of only one; per core op,
  the nodes each frontend's tests built;
- the duplicated-logic check (ci/duplication.py): no piece of logic written
  in two frontends, as a pass/fail line.

    python ci/reuse_report.py [--data .reuse-data] [--no-tests] [--json out.json] [--strict]

``--strict`` exits 1 when the duplicated-logic check fails.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reuse_data  # noqa: E402
import reuse_render  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORE = "core"
PACKAGES = {  # name -> (source directory, import name)
    "core": ("core/lazytensor/core", "lazytensor.core"),
    "numpy": ("frontend_numpy/lazytensor/numpy", "lazytensor.numpy"),
    "torch": ("frontend_torch/lazytensor/torch", "lazytensor.torch"),
    "tf": ("frontend_tf/lazytensor/tf", "lazytensor.tf"),
}
FRONTENDS = reuse_data.FRONTENDS
DEFAULT_DATA = ROOT / ".reuse-data"


# ------------------------------------------------------------------- SLOC


@dataclass
class Sloc:
    code: int = 0
    docs: int = 0
    files: int = 0
    per_file: dict = field(default_factory=dict)  # relative path -> code lines


def implemented(name: str) -> bool:
    return (ROOT / PACKAGES[name][0] / "__init__.py").exists()


def count_sloc(name: str) -> Sloc:
    """Code and documentation lines of one package, counted by pygount."""
    from pygount import SourceAnalysis

    sloc = Sloc()
    for path in sorted((ROOT / PACKAGES[name][0]).rglob("*.py")):
        analysis = SourceAnalysis.from_file(str(path), name)
        sloc.code += analysis.code_count
        sloc.docs += analysis.documentation_count
        sloc.files += 1
        sloc.per_file[str(path.relative_to(ROOT))] = analysis.code_count
    return sloc


# ------------------------------------------------------------- duplicates


@dataclass
class Duplicate:
    lines: int
    places: list[str]  # "path:start-end"
    packages: list[str]
    sample: str  # the first side's lines


@dataclass
class DuplicateCheck:
    method: str  # what found them, in words
    pairs: list[Duplicate]

    @property
    def passed(self) -> bool:
        return not self.pairs


def check_duplicates() -> DuplicateCheck:
    """The duplicated-logic check: ci/duplication.py's cross-frontend pairs."""
    import duplication

    method = ("`ci/duplication.py` (`cross_frontend_pairs()`): pylint's similarity checker "
              "over the three frontends, with imports, docstrings and function signatures "
              f"blanked, finding blocks of more than {duplication.MIN_LINES} similar code lines "
              "whose two sides lie in two different frontends (written-twice logic counts "
              "whatever its names)")
    return DuplicateCheck(method, [as_duplicate(p) for p in duplication.cross_frontend_pairs()])


def as_duplicate(pair) -> Duplicate:
    """One ``duplication.Pair`` (lines, first, second: "path:start-end",
    packages), with the lines of its first side."""
    return Duplicate(pair.lines, [pair.first, pair.second], list(pair.packages),
                     _lines_of(pair.first))


def _lines_of(place: str, limit: int = 400) -> str:
    path, _, span = place.rpartition(":")
    try:
        start, end = (int(n) for n in span.split("-"))
        text = (ROOT / path).read_text().splitlines()[start - 1:end]
    except (ValueError, OSError):
        return ""
    return "\n".join(line.rstrip() for line in text if line.strip())[:limit]


# ---------------------------------------------------------------- report


@dataclass
class Report:
    commit: str
    sloc: dict[str, Sloc]
    run: reuse_data.Run | None  # None: no test run read (--no-tests)
    duplicates: DuplicateCheck
    all_ops: list[str]

    def frontend_share(self, name: str) -> float:
        core, own = self.sloc[CORE].code, self.sloc[name].code
        return own / (core + own) if core + own else 0.0

    def frontends(self) -> list[str]:
        return [f for f in FRONTENDS if implemented(f)]

    def misses(self) -> list[str]:
        return [f"duplicated logic across frontends: {len(self.duplicates.pairs)} "
                "pair(s)"] if not self.duplicates.passed else []


def _commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def _core_ops() -> list[str]:
    from lazytensor.core.ops import LEAVES, Op

    return [op.name for op in Op if op not in LEAVES]


def build(data: Path | None) -> Report:
    """Source lines, the recorded test run (None: skip it) and duplicates."""
    sloc = {name: count_sloc(name) for name in PACKAGES}
    run = reuse_data.read(data) if data is not None else None
    return Report(_commit(), sloc, run, check_duplicates(), _core_ops())


def summary(r: Report) -> str:
    lines = [f"core: {r.sloc[CORE].code} code lines"]
    for f in r.frontends():
        executed = ""
        if r.run is not None and r.run.statements:
            executed = f", its tests execute {r.run.executed_by(f) / r.run.statements:.1%} of core"
        lines.append(f"{f}: {r.sloc[f].code} code lines, frontend share "
                     f"{r.frontend_share(f):.1%}{executed}")
    lines.append("(Swift for TensorFlow x10: bindings 24-32% of bindings + core)")
    if r.run is not None and r.run.statements:
        n = r.run.statements
        lines.append("core statements executed by the tests of all three frontends: "
                     f"{r.run.shared_by(3)} ({r.run.shared_by(3) / n:.1%}), exactly two: "
                     f"{r.run.shared_by(2)} ({r.run.shared_by(2) / n:.1%}), only one: "
                     f"{r.run.shared_by(1)} ({r.run.shared_by(1) / n:.1%}), of {n}")
    lines.append(reuse_render.duplicate_line(r.duplicates))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA),
                        help="the folder of a test run under ci/reuse_plugin.py "
                             "(make test COVERAGE=1)")
    parser.add_argument("--no-tests", action="store_true",
                        help="read no test run (source lines and duplicates only)")
    parser.add_argument("--out", default=str(ROOT / "docs"), help="directory for the report")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when the duplicated-logic check fails")
    args = parser.parse_args(argv)
    data = None if args.no_tests else Path(args.data)
    if data is not None and not reuse_data.has_run(data):
        print(f"no recorded test run in {data}: run `make test COVERAGE=1` first "
              "(or pass --no-tests)", file=sys.stderr)
        return 2
    report = build(data)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "reuse.md").write_text(reuse_render.markdown(report))
    reuse_render.chart(report, out / "reuse.png")
    if args.json:
        Path(args.json).write_text(json.dumps(asdict(report), indent=1, default=str))
    print(summary(report))
    print(f"wrote {out / 'reuse.md'} and {out / 'reuse.png'}")
    return 1 if args.strict and report.misses() else 0


if __name__ == "__main__":
    sys.exit(main())
