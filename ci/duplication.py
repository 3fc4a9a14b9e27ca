"""Duplicated code across the frontends (issue 22): pylint's similarity
checker (``symilar``) over the core and the three frontends, reporting the
blocks of at least ``MIN_LINES`` similar code lines whose two sides lie in
two different packages.

Before comparing, each file's imports, docstrings and function signatures
are blanked (found with the standard ``ast``; comments are dropped by
symilar), so a copy counts by its statements alone, whatever its docstring
or argument names say. Only pairs of files from two different packages are
compared, which with the blanking done here (not by astroid) keeps a run to
a few seconds.

API (used by ``tests/test_duplication.py`` and ``ci/reuse_report.py``)::

    cross_frontend_pairs() -> list[Pair]     # the pairs that must not exist
    duplicate_pairs(packages=PACKAGES) -> list[Pair]   # any two packages

Command line: ``python ci/duplication.py`` prints the cross-frontend pairs
(and every pair across packages with ``--all``); exit status 1 if a
cross-frontend pair exists.
"""

from __future__ import annotations

import ast
import io
import sys
from dataclasses import dataclass
from pathlib import Path

from pylint.checkers.symilar import Symilar, hash_lineset

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {  # name -> source directory
    "core": "core/lazytensor/core",
    "numpy": "frontend_numpy/lazytensor/numpy",
    "torch": "frontend_torch/lazytensor/torch",
    "tf": "frontend_tf/lazytensor/tf",
}
FRONTENDS = ("numpy", "torch", "tf")
MIN_LINES = 6  # symilar reports blocks of more than this many code lines


@dataclass(frozen=True)
class Pair:
    """One block of similar lines in two files of two packages."""

    lines: int
    first: str  # "path:start-end" (1-based, inclusive), relative to ROOT
    second: str
    packages: tuple[str, str]

    def __str__(self) -> str:
        return f"{self.lines} similar lines: {self.first} ({self.packages[0]}) ~ " \
               f"{self.second} ({self.packages[1]})"


def _blank_ranges(tree: ast.Module) -> set[int]:
    """1-based line numbers of imports, docstrings and def signatures."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            lines.update(range(node.lineno, node.end_lineno + 1))
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(
                    getattr(body[0], "value", None), ast.Constant) and isinstance(
                    body[0].value.value, str):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines.update(range(start, node.body[0].lineno))
    return lines


def _code_only(text: str) -> str:
    """``text`` with imports, docstrings and signatures as empty lines (line
    numbers kept)."""
    blank = _blank_ranges(ast.parse(text))
    return "".join("\n" if i in blank else line
                   for i, line in enumerate(text.splitlines(keepends=True), 1))


class _AcrossPackages(Symilar):
    """symilar comparing only files of two different packages."""

    def __init__(self, package_of: dict[str, str], min_lines: int) -> None:
        super().__init__(min_lines=min_lines, ignore_comments=True)
        self.package_of = package_of
        self.min_lines = min_lines

    def _iter_sims(self):
        cache = {}
        for i, first in enumerate(self.linesets[:-1]):
            for second in self.linesets[i + 1:]:
                if self.package_of[first.name] == self.package_of[second.name]:
                    continue
                for lineset in (first, second):
                    if id(lineset) not in cache:
                        cache[id(lineset)] = hash_lineset(lineset, self.min_lines)
                yield from self._find_common(first, second, cache[id(first)], cache[id(second)])


def duplicate_pairs(packages: dict[str, str] | None = None, root: Path = ROOT,
                    min_lines: int = MIN_LINES) -> list[Pair]:
    """Every block of more than ``min_lines`` similar code lines shared by
    two files of two different ``packages`` (name -> directory under root)."""
    packages = PACKAGES if packages is None else packages
    package_of = {}
    files = []
    for name, directory in packages.items():
        for path in sorted((root / directory).rglob("*.py")):
            rel = str(path.relative_to(root))
            package_of[rel] = name
            files.append((rel, path))
    checker = _AcrossPackages(package_of, min_lines)
    for rel, path in files:
        checker.append_stream(rel, io.StringIO(_code_only(path.read_text(encoding="utf-8"))))
    pairs = []
    for c in checker._iter_sims():
        first = f"{c.fst_lset.name}:{c.fst_file_start + 1}-{c.fst_file_end}"
        second = f"{c.snd_lset.name}:{c.snd_file_start + 1}-{c.snd_file_end}"
        pairs.append(Pair(c.cmn_lines_nb, first, second,
                          (package_of[c.fst_lset.name], package_of[c.snd_lset.name])))
    return sorted(pairs, key=lambda p: (-p.lines, p.first))


def cross_frontend_pairs(root: Path = ROOT, min_lines: int = MIN_LINES) -> list[Pair]:
    """The duplicated blocks whose two sides are in two different frontends."""
    return duplicate_pairs({name: PACKAGES[name] for name in FRONTENDS}, root, min_lines)


def main(argv: list[str]) -> int:
    pairs = duplicate_pairs() if "--all" in argv else cross_frontend_pairs()
    for pair in pairs:
        print(pair)
    crossing = [p for p in pairs if "core" not in p.packages]
    print(f"{len(crossing)} cross-frontend duplicate blocks (more than {MIN_LINES} lines)")
    return 1 if crossing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
