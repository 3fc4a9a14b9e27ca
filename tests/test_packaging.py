"""Packaging checks: each distribution imports only its own framework, its
public names exist, and its pyproject declares what its code imports.

Imports run in fresh subprocesses, so this file itself loads no framework.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# distribution directory -> (import name, modules that importing it must NOT load)
FRAMEWORKS = ("torch", "tensorflow", "keras")
FRONTENDS = ("lazytensor.numpy", "lazytensor.torch", "lazytensor.tf")
PACKAGES = {
    "core": ("lazytensor.core", FRAMEWORKS + FRONTENDS),
    "frontend_numpy": ("lazytensor.numpy", FRAMEWORKS + ("lazytensor.torch", "lazytensor.tf")),
    "frontend_torch": ("lazytensor.torch", ("tensorflow", "keras", "lazytensor.numpy",
                                            "lazytensor.tf")),
    "frontend_tf": ("lazytensor.tf", ("torch", "lazytensor.numpy", "lazytensor.torch")),
}

_PROBE = """
import importlib, json, sys
name, forbidden = sys.argv[1], sys.argv[2:]
module = importlib.import_module(name)
public = {}
for mod_name in [name] + sorted(getattr(module, "__all_submodules__", ())):
    mod = importlib.import_module(mod_name)
    names = list(getattr(mod, "__all__", []))
    public[mod_name] = {"all": names, "missing": [n for n in names if not hasattr(mod, n)],
                        "has_all": hasattr(mod, "__all__")}
loaded = sorted(f for f in forbidden if f in sys.modules)
print(json.dumps({"file": getattr(module, "__file__", None), "loaded": loaded,
                  "public": public}))
"""


def _probe(name: str, forbidden: tuple[str, ...]) -> dict:
    proc = subprocess.run([sys.executable, "-c", _PROBE, name, *forbidden],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, f"import {name} failed:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _implemented(directory: str) -> bool:
    name = PACKAGES[directory][0]
    return (ROOT / directory / Path(*name.split(".")) / "__init__.py").exists()


@pytest.fixture(scope="module", params=sorted(PACKAGES))
def probe(request) -> tuple[str, dict]:
    directory = request.param
    if not _implemented(directory):
        pytest.skip(f"{directory} has no package yet")
    name, forbidden = PACKAGES[directory]
    return directory, _probe(name, forbidden)


def test_import_loads_no_foreign_framework(probe):
    directory, result = probe
    name = PACKAGES[directory][0]
    assert result["file"], f"{name} imported as an empty namespace package"
    assert result["loaded"] == [], f"import {name} loaded {result['loaded']}"


def test_public_names_exist(probe):
    directory, result = probe
    for mod_name, public in result["public"].items():
        assert public["has_all"], f"{mod_name} has no __all__"
        assert public["missing"] == [], f"{mod_name}.__all__ names missing: {public['missing']}"
        names = public["all"]
        assert len(names) == len(set(names)), f"{mod_name}.__all__ has duplicates"


def test_no_lazytensor_init():
    """``lazytensor`` is a namespace package split across distributions."""
    found = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("*/lazytensor/__init__.py"))
    assert found == []


# ------------------------------------------------------------ dependencies


def _normalize(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _declared(directory: str) -> set[str]:
    meta = tomllib.loads((ROOT / directory / "pyproject.toml").read_text())
    return {_normalize(re.split(r"[\s<>=!~;\[(]", req, maxsplit=1)[0])
            for req in meta["project"].get("dependencies", [])}


def _imported_top_levels(directory: str) -> set[str]:
    """Absolute imports in the distribution's code: third-party top-level
    names, plus ``lazytensor.<part>`` for the project's own packages."""
    found: set[str] = set()
    for file in (ROOT / directory / "lazytensor").rglob("*.py"):
        for node in ast.walk(ast.parse(file.read_text(), filename=str(file))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                parts = name.split(".")
                found.add(".".join(parts[:2]) if parts[0] == "lazytensor" else parts[0])
    return {n for n in found if n not in sys.stdlib_module_names and n != "__future__"}


OWN = {"lazytensor.core": "lazytensor-core", "lazytensor.launch": "lazytensor-core",
       "lazytensor.lift": "lazytensor-core",
       "lazytensor.numpy": "lazytensor-numpy",
       "lazytensor.torch": "lazytensor-torch", "lazytensor.tf": "lazytensor-tf"}
# a runtime requirement that the code never imports by name, and why
IMPLICIT = {"jaxlib": "jax's compiled backend, imported by jax itself"}


def _providers(module: str) -> set[str]:
    if module in OWN:
        return {OWN[module]}
    dists = importlib.metadata.packages_distributions().get(module, [])
    return {_normalize(d) for d in dists}


@pytest.mark.parametrize("directory", sorted(PACKAGES))
def test_pyproject_declares_what_the_code_imports(directory):
    if not _implemented(directory):
        pytest.skip(f"{directory} has no package yet")
    own = OWN[PACKAGES[directory][0]]
    declared = _declared(directory)
    imported = _imported_top_levels(directory)
    undeclared = {m: sorted(_providers(m)) for m in imported
                  if own not in _providers(m) and not (_providers(m) & declared)}
    assert not undeclared, f"{directory} imports {undeclared} without declaring them"
    used = set().union(*(_providers(m) for m in imported)) if imported else set()
    unused = declared - used - {_normalize(n) for n in IMPLICIT}
    assert not unused, f"{directory}/pyproject.toml declares {sorted(unused)} but never imports"


def test_frontends_do_not_import_each_other_or_jax():
    for directory, (name, _) in PACKAGES.items():
        if directory == "core" or not _implemented(directory):
            continue
        imported = _imported_top_levels(directory)
        others = {m for m in imported if m in OWN and m not in (name, "lazytensor.core")}
        assert not others, f"{directory} imports other frontends {others}"
        assert "jax" not in imported, f"{directory} imports jax (only the core may)"
