"""The code-reuse report (issue 5): how much of lazytensor is the shared core,
and how much of the core each frontend's own tests actually run.

Writes docs/reuse.md (tables) and docs/reuse.png (chart):

- source lines of code (pygount: blank lines, comments and docstrings
  excluded) of the core and of each frontend, and the core's share of each
  frontend's core + frontend total;
- per frontend, the share of the core's statements that its own test suite
  (tests/frontend_<name>, default markers) executes (coverage.py restricted
  to lazytensor.core), overall and per core module;
- per core op, which frontends' tests build it (ci/op_usage_plugin.py);
- code duplicated across frontend_* and the core (pylint's similarity
  checker, ``symilar``): logic that two frontends share belongs in the core.

    python ci/reuse_report.py [--no-tests] [--jobs 2] [--json out.json] [--strict]

``--strict`` exits 1 when a target is missed (frontend > 25% of its total,
or its tests executing < 60% of the core).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = "core"
PACKAGES = {  # name -> (source directory, import name)
    "core": ("core/lazytensor/core", "lazytensor.core"),
    "numpy": ("frontend_numpy/lazytensor/numpy", "lazytensor.numpy"),
    "torch": ("frontend_torch/lazytensor/torch", "lazytensor.torch"),
    "tf": ("frontend_tf/lazytensor/tf", "lazytensor.tf"),
}
FRONTENDS = ("numpy", "torch", "tf")
MAX_FRONTEND_SHARE = 0.25  # a frontend is at most 25% of core + frontend
MIN_CORE_COVERAGE = 0.60  # a frontend's tests execute at least 60% of the core
MIN_DUPLICATE_LINES = 6
PAPER = ("Suhan et al., *LazyTensor: combining eager execution with domain-specific "
         "compilers* (2021, [arXiv:2102.13267](https://arxiv.org/abs/2102.13267))")
PAPER_CLAIM = ("Initially developed to support PyTorch on Cloud TPUs, the technique, along "
               "with a substantially shared implementation, has been used by Swift for "
               "TensorFlow across CPUs, GPUs, and TPUs")


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


# --------------------------------------------------------------- coverage


@dataclass
class Suite:
    frontend: str
    ran: bool = False
    outcome: str = ""  # pytest's summary line
    seconds: float = 0.0
    executed: int = 0  # core statements executed
    statements: int = 0  # core statements in all
    per_module: dict = field(default_factory=dict)  # core module -> [executed, statements]
    ops: dict = field(default_factory=dict)  # op name -> nodes built

    @property
    def share(self) -> float:
        return self.executed / self.statements if self.statements else 0.0


def run_suite(frontend: str, workdir: Path, pytest_args: list[str]) -> Suite:
    """The frontend's own tests under coverage (core only) and the op plugin."""
    suite = Suite(frontend)
    tests = ROOT / "tests" / f"frontend_{frontend}"
    if not implemented(frontend) or not any(tests.glob("test_*.py")):
        suite.outcome = "no package or no tests yet"
        return suite
    data, ops = workdir / f".coverage.{frontend}", workdir / f"ops.{frontend}.json"
    env = os.environ | {"LAZYTENSOR_OP_USAGE": str(ops),
                        "PYTHONPATH": os.pathsep.join(filter(None, [
                            str(ROOT / "ci"), os.environ.get("PYTHONPATH")]))}
    cmd = [sys.executable, "-m", "coverage", "run", f"--data-file={data}",
           "--source=lazytensor.core", "-m", "pytest", "-q", "-p", "no:xdist",
           "-p", "op_usage_plugin", "-m", "not slow", str(tests), *pytest_args]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    suite.seconds, suite.ran = time.perf_counter() - start, True
    lines = [ln for ln in proc.stdout.strip().splitlines() if ln.strip()]
    outcome = lines[-1].strip("= ") if lines else f"exit {proc.returncode}"
    suite.outcome = re.sub(r" in [\d.]+s( \([\d:]+\))?$", "", outcome)
    if data.exists():
        _read_coverage(suite, data, workdir)
    if ops.exists():
        suite.ops = json.loads(ops.read_text())
    return suite


def _read_coverage(suite: Suite, data: Path, workdir: Path) -> None:
    out = workdir / f"coverage.{suite.frontend}.json"
    subprocess.run([sys.executable, "-m", "coverage", "json", f"--data-file={data}",
                    "-o", str(out), "-q"], cwd=ROOT, check=True, capture_output=True)
    files = json.loads(out.read_text())["files"]
    for path, entry in files.items():
        summary = entry["summary"]
        module = _module_name(path)
        suite.per_module[module] = [summary["covered_lines"], summary["num_statements"]]
        suite.executed += summary["covered_lines"]
        suite.statements += summary["num_statements"]


def _module_name(path: str) -> str:
    parts = Path(path).with_suffix("").parts
    start = max(i for i, p in enumerate(parts) if p == "lazytensor")
    return ".".join(parts[start + 2:]) or "__init__"


# ------------------------------------------------------------- duplicates


@dataclass
class Duplicate:
    lines: int
    places: list[str]  # "path:[start:end]"
    packages: list[str]
    sample: str


def find_duplicates(names: list[str]) -> list[Duplicate]:
    """Blocks of at least MIN_DUPLICATE_LINES similar lines, found by pylint's
    ``symilar``, that span two or more packages (core or frontends)."""
    files = [str(p.relative_to(ROOT)) for name in names
             for p in sorted((ROOT / PACKAGES[name][0]).rglob("*.py"))]
    if not files:
        return []
    proc = subprocess.run(
        [sys.executable, "-m", "pylint.checkers.symilar", "-d", str(MIN_DUPLICATE_LINES),
         "--ignore-comments", "--ignore-docstrings", "--ignore-imports", *files],
        cwd=ROOT, capture_output=True, text=True)
    return [d for d in _parse_symilar(proc.stdout) if len(set(d.packages)) > 1]


def _package_of(path: str) -> str:
    for name, (directory, _) in PACKAGES.items():
        if path.startswith(directory):
            return name
    return "?"


def _parse_symilar(text: str) -> list[Duplicate]:
    found: list[Duplicate] = []
    for block in re.split(r"\n(?=\d+ similar lines in \d+ files)", text):
        head = re.match(r"(\d+) similar lines in \d+ files", block)
        if not head:
            continue
        places = re.findall(r"^==(.+?):\[(\d+):(\d+)\]", block, flags=re.M)
        code = [ln for ln in block.splitlines()[1:]
                if not ln.startswith(("==", "TOTAL lines="))]
        sample = "\n".join(ln.rstrip() for ln in code if ln.strip())[:400]
        found.append(Duplicate(
            int(head.group(1)), [f"{p}:[{a}:{b}]" for p, a, b in places],
            [_package_of(p) for p, _, _ in places], sample))
    return found


# ---------------------------------------------------------------- report


@dataclass
class Report:
    commit: str
    load: float  # the machine's 1-minute load average when the report was built
    sloc: dict[str, Sloc]
    suites: dict[str, Suite]
    duplicates: list[Duplicate]
    all_ops: list[str]

    def frontend_share(self, name: str) -> float:
        core, own = self.sloc[CORE].code, self.sloc[name].code
        return own / (core + own) if core + own else 0.0

    def frontends(self) -> list[str]:
        return [f for f in FRONTENDS if implemented(f)]

    def misses(self) -> list[str]:
        out = []
        for f in self.frontends():
            if self.frontend_share(f) > MAX_FRONTEND_SHARE:
                out.append(f"{f}: frontend is {self.frontend_share(f):.0%} of its total")
            suite = self.suites.get(f)
            if suite and suite.ran and suite.share < MIN_CORE_COVERAGE:
                out.append(f"{f}: its tests execute {suite.share:.0%} of the core")
        return out


def _commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def _core_ops() -> list[str]:
    from lazytensor.core.ops import LEAVES, Op

    return [op.name for op in Op if op not in LEAVES]


def _mark(ok: bool) -> str:
    return "yes" if ok else "**no**"


def markdown(r: Report) -> str:
    """The whole report as Markdown."""
    out = [
        "# Code reuse in lazytensor",
        "",
        f"Generated by `make reuse-report` (`ci/reuse_report.py`) at commit `{r.commit}`. "
        "Chart: [reuse.png](reuse.png).",
        "",
        f"**The paper's claim.** {PAPER}: \"{PAPER_CLAIM}\" — one LazyTensor core "
        "served two frontends in two languages, and most of the implementation was shared. "
        "This project makes the same bet for three Python tensor APIs (numpy, torch, "
        "tf.experimental.numpy) and measures it two ways: how much of the source is core, "
        "and how much of the core each frontend's own tests actually execute.",
        "",
    ]
    out += _sloc_section(r) + _coverage_section(r) + _module_section(r)
    out += _ops_section(r) + _duplicates_section(r) + _verdict_section(r)
    return "\n".join(out) + "\n"


def _sloc_section(r: Report) -> list[str]:
    core = r.sloc[CORE]
    out = [
        "## Source lines",
        "",
        "Code lines counted by [pygount](https://pypi.org/project/pygount/) "
        "(blank lines, comments and docstrings excluded).",
        "",
        "| package | files | code lines | doc lines | frontend share of core + frontend "
        f"(target ≤ {MAX_FRONTEND_SHARE:.0%}) | core share | meets target |",
        "|---|---:|---:|---:|---:|---:|:---:|",
        f"| core | {core.files} | {core.code} | {core.docs} | – | – | – |",
    ]
    for f in FRONTENDS:
        s = r.sloc[f]
        if not implemented(f):
            out.append(f"| {f} | – | – | – | not implemented yet | – | – |")
            continue
        share = r.frontend_share(f)
        out.append(f"| {f} | {s.files} | {s.code} | {s.docs} | {share:.1%} | {1 - share:.1%} "
                   f"| {_mark(share <= MAX_FRONTEND_SHARE)} |")
    total = core.code + sum(r.sloc[f].code for f in r.frontends())
    if total:
        out += ["", f"All packages together: {total} code lines, of which the core is "
                    f"{core.code / total:.1%}."]
    return out + [""]


def _coverage_section(r: Report) -> list[str]:
    out = [
        "## Core lines that each frontend's tests execute",
        "",
        "coverage.py over `lazytensor.core` only (statements), running "
        "`tests/frontend_<name>` with the default markers (slow tests excluded); the "
        f"suites ran side by side, seconds are wall time (load average {r.load:.1f} "
        f"on {os.cpu_count()} cores when the report was built).",
        "",
        f"| frontend | core statements executed | share (target ≥ {MIN_CORE_COVERAGE:.0%}) "
        "| meets target | test run | seconds |",
        "|---|---:|---:|:---:|---|---:|",
    ]
    for f in FRONTENDS:
        s = r.suites.get(f)
        if s is None or not s.ran:
            reason = s.outcome if s else "not run (--no-tests)"
            out.append(f"| {f} | – | – | – | {reason} | – |")
            continue
        out.append(f"| {f} | {s.executed} / {s.statements} | {s.share:.1%} "
                   f"| {_mark(s.share >= MIN_CORE_COVERAGE)} | {s.outcome} | {s.seconds:.0f} |")
    ran = [s for s in r.suites.values() if s.ran]
    if len(ran) > 1:
        union = _union_executed(ran)
        out += ["", f"Executed by at least one frontend's tests: {union[0]} / {union[1]} "
                    f"core statements ({union[0] / max(union[1], 1):.1%})."]
    return out + [""]


def _union_executed(suites: list[Suite]) -> tuple[int, int]:
    """Best-effort union per module: the max executed count of any suite."""
    modules = set().union(*(s.per_module for s in suites))
    executed = sum(max(s.per_module.get(m, [0, 0])[0] for s in suites) for m in modules)
    statements = sum(max(s.per_module.get(m, [0, 0])[1] for s in suites) for m in modules)
    return executed, statements


def _module_section(r: Report) -> list[str]:
    ran = [s for s in r.suites.values() if s.ran]
    if not ran:
        return []
    modules = sorted(set().union(*(s.per_module for s in ran)))
    out = ["### Per core module", "",
           "| core module | statements | " + " | ".join(s.frontend for s in ran) + " |",
           "|---|---:|" + "---:|" * len(ran)]
    for m in modules:
        statements = max(s.per_module.get(m, [0, 0])[1] for s in ran)
        cells = []
        for s in ran:
            done, total = s.per_module.get(m, [0, statements])
            cells.append(f"{done / total:.0%}" if total else "–")
        out.append(f"| `{m}` | {statements} | " + " | ".join(cells) + " |")
    return out + [""]


def _ops_section(r: Report) -> list[str]:
    ran = [s for s in r.suites.values() if s.ran]
    if not ran:
        return []
    users = {op: [s.frontend for s in ran if s.ops.get(op)] for op in r.all_ops}
    by_count = {k: sum(1 for v in users.values() if len(v) == k) for k in range(len(ran) + 1)}
    out = ["## Core ops used by each frontend", "",
           f"Nodes built per core op while each frontend's tests ran. Of {len(r.all_ops)} core "
           "ops: " + ", ".join(f"{by_count[k]} used by {k} frontend{'s' * (k != 1)}"
                               for k in sorted(by_count, reverse=True)) + ".", "",
           "| op | " + " | ".join(s.frontend for s in ran) + " | used by |",
           "|---|" + "---:|" * len(ran) + "---:|"]
    for op in r.all_ops:
        cells = [str(s.ops.get(op, 0) or "·") for s in ran]
        out.append(f"| `{op}` | " + " | ".join(cells) + f" | {len(users[op])} |")
    return out + [""]


def _duplicates_section(r: Report) -> list[str]:
    out = ["## Code duplicated across packages", "",
           f"pylint's similarity checker (`symilar`, ≥ {MIN_DUPLICATE_LINES} similar lines, "
           "comments, docstrings and imports ignored) over the core and every frontend; only "
           "blocks that span two or more packages are listed. Logic that two frontends share "
           "belongs in the core.", ""]
    if not r.duplicates:
        return out + ["None found.", ""]
    for d in r.duplicates:
        out.append(f"- **{d.lines} lines** in {', '.join(sorted(set(d.packages)))}: "
                   + "; ".join(f"`{p}`" for p in d.places))
        out += ["  <details><summary>the lines</summary>", "", "  ```python"]
        out += [f"  {line}" for line in d.sample.splitlines()]
        out += ["  ```", "  </details>"]
    return out + [""]


def _verdict_section(r: Report) -> list[str]:
    misses = r.misses()
    out = ["## Against the targets and the paper", ""]
    names = r.frontends()
    if not names:
        return out + ["No frontend is implemented yet.", ""]
    shares = [1 - r.frontend_share(f) for f in names]
    majority = "a majority, as the paper found" if min(shares) > 0.5 else \
        "not a majority everywhere, unlike the paper"
    out.append(f"The shared core is {min(shares):.0%}–{max(shares):.0%} of the code each "
               f"frontend runs on ({majority}). Targets: each frontend at most "
               f"{MAX_FRONTEND_SHARE:.0%} of its core + frontend total, and its own tests "
               f"executing at least {MIN_CORE_COVERAGE:.0%} of the core.")
    out.append("")
    if not misses:
        return out + ["Every implemented frontend meets both targets.", ""]
    return out + [f"- missed: {m}" for m in misses] + [""]


def chart(r: Report, path: Path) -> None:
    """Two panels: code lines (core vs frontend) and core lines executed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = r.frontends() or list(FRONTENDS)
    core = r.sloc[CORE].code
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    own = [r.sloc[f].code for f in names]
    left.barh(names, [core] * len(names), color="#4477aa", label="shared core")
    left.barh(names, own, left=[core] * len(names), color="#ee7733", label="frontend")
    for i, f in enumerate(names):
        left.text(core + own[i], i, f"  frontend {r.frontend_share(f):.0%}", va="center")
    left.set_xlabel("code lines (pygount)")
    left.set_title(f"Source: core + frontend (target: frontend ≤ {MAX_FRONTEND_SHARE:.0%})")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    left.set_xlim(0, (core + max(own + [1])) * 1.45)
    ran = [f in r.suites and r.suites[f].ran for f in names]
    shares = [r.suites[f].share * 100 if ok else 0.0 for f, ok in zip(names, ran, strict=True)]
    right.bar(names, shares, color="#228833")
    right.axhline(MIN_CORE_COVERAGE * 100, color="k", ls="--", lw=1,
                  label=f"target {MIN_CORE_COVERAGE:.0%}")
    for i, (v, ok) in enumerate(zip(shares, ran, strict=True)):
        inside = ok and abs(v - MIN_CORE_COVERAGE * 100) < 10  # keep clear of the target line
        y = min(v, MIN_CORE_COVERAGE * 100) - 8 if inside else v + 1.5
        right.text(i, y, f"{v:.0f}%" if ok else "no test run",
                   ha="center", color="white" if inside else "black")
    right.set_ylim(0, 100)
    right.set_ylabel("% of core statements executed")
    right.set_title("Core executed by each frontend's own tests")
    right.legend(loc="upper right")
    fig.suptitle(f"lazytensor code reuse ({r.commit})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------ main


def build(run_tests: bool, jobs: int, pytest_args: list[str]) -> Report:
    sloc = {name: count_sloc(name) for name in PACKAGES}
    suites: dict[str, Suite] = {}
    if run_tests:
        with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max(jobs, 1)) as pool:
            futures = {f: pool.submit(run_suite, f, Path(tmp), pytest_args) for f in FRONTENDS}
            suites = {f: fut.result() for f, fut in futures.items()}
    duplicates = find_duplicates([n for n in PACKAGES if n == CORE or implemented(n)])
    return Report(_commit(), os.getloadavg()[0], sloc, suites, duplicates, _core_ops())


def summary(r: Report) -> str:
    lines = [f"core: {r.sloc[CORE].code} code lines"]
    for f in r.frontends():
        s = r.suites.get(f)
        executed = f", tests execute {s.share:.1%} of core" if s and s.ran else ""
        lines.append(f"{f}: {r.sloc[f].code} code lines, frontend share "
                     f"{r.frontend_share(f):.1%}{executed}"
                     + (f" [{s.outcome}, {s.seconds:.0f}s]" if s and s.ran else ""))
    lines.append(f"cross-package duplicate blocks: {len(r.duplicates)}")
    lines += [f"MISSED: {m}" for m in r.misses()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-tests", action="store_true",
                        help="skip the coverage runs (source lines and duplicates only)")
    parser.add_argument("--jobs", type=int, default=2, help="frontend suites run at once")
    parser.add_argument("--out", default=str(ROOT / "docs"), help="directory for the report")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    report = build(not args.no_tests, args.jobs, args.pytest_args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "reuse.md").write_text(markdown(report))
    chart(report, out / "reuse.png")
    if args.json:
        Path(args.json).write_text(json.dumps(asdict(report), indent=1, default=str))
    print(summary(report))
    print(f"wrote {out / 'reuse.md'} and {out / 'reuse.png'}")
    return 1 if args.strict and report.misses() else 0


if __name__ == "__main__":
    sys.exit(main())
