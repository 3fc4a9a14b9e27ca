"""One frontend installs alone, exactly as README's "Install one frontend"
says: in a fresh virtual environment, README's command for that frontend
installs it with the core and its own framework and no other, and README's
examples for that frontend then run there.

Slow (a fresh venv and a pip install per frontend: minutes); `make
test-install` and `.ci/run` run it. The install runs README's command as
written, with the development environment's pip acting on the new venv
(``pip --python``, which spares seeding each venv with a pip of its own),
plus a constraints file that holds every package to the version that the
development environment has, so that pip takes what this machine already
holds (torch's CPU build, ``torch==2.13.0`` as requirements-dev.txt pins)
instead of downloading newer releases.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
DISTRIBUTIONS = ("core", "frontend_numpy", "frontend_torch", "frontend_tf")
# frontend -> (its module, distributions that must not be installed with it)
FRONTENDS = {
    "numpy": ("lazytensor.numpy", {"torch", "tensorflow", "tensorflow-cpu", "keras",
                                   "lazytensor-torch", "lazytensor-tf"}),
    "torch": ("lazytensor.torch", {"tensorflow", "tensorflow-cpu", "keras",
                                   "lazytensor-numpy", "lazytensor-tf"}),
    "tf": ("lazytensor.tf", {"torch", "lazytensor-numpy", "lazytensor-torch"}),
}
OWN_MODULES = {"lazytensor.numpy", "lazytensor.torch", "lazytensor.tf"}


def install_command(frontend: str) -> list[str]:
    """README's one `pip install` line for ``frontend`` (as an argument list)."""
    found = re.findall(rf"^(pip install [^\n#]*\./frontend_{frontend}\b[^\n#]*?)\s*(?:#.*)?$",
                       README, flags=re.M)
    assert len(found) == 1, f"README gives {len(found)} install lines for {frontend}: {found}"
    return found[0].split()


def readme_examples(frontend: str) -> list[str]:
    """README's ```python blocks that import ``frontend``'s module and no
    other frontend's (blocks of the core alone run with every frontend)."""
    blocks = [textwrap.dedent(b.split("\n", 1)[1].split("```", 1)[0])
              for b in README.split("```python")[1:]]
    own = FRONTENDS[frontend][0]

    def frontends_used(block: str) -> set[str]:
        return {m for m in OWN_MODULES if re.search(rf"\b{re.escape(m)}\b", block)}

    return [b for b in blocks if frontends_used(b) <= {own}]


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _constraints(path: Path) -> Path:
    """Every distribution of the running environment at its version, the
    project's own excepted (they come from the source tree)."""
    pins = sorted({f"{_normalize(d.metadata['Name'])}=={d.version}"
                   for d in importlib.metadata.distributions()
                   if d.metadata["Name"] and not _normalize(d.metadata["Name"])
                   .startswith("lazytensor")})
    path.write_text("\n".join(pins) + "\n")
    return path


def _clean_env() -> dict[str, str]:
    """The environment without what would let the venv see this checkout."""
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "LAZYTENSOR_REUSE_DATA"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def _run(command: list[str], cwd: Path, timeout: int) -> subprocess.CompletedProcess:
    proc = subprocess.run(command, cwd=cwd, env=_clean_env(), capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, (f"{' '.join(command)} failed:\n{proc.stdout[-3000:]}\n"
                                  f"{proc.stderr[-3000:]}")
    return proc


@pytest.fixture
def checkout(tmp_path) -> Path:
    """The four distributions' sources, copied as a clone would have them."""
    ignore = shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    for name in DISTRIBUTIONS:
        shutil.copytree(ROOT / name, tmp_path / "src" / name, ignore=ignore)
    return tmp_path / "src"


@pytest.mark.parametrize("frontend", sorted(FRONTENDS))
def test_one_frontend_installs_alone_and_runs_readme(frontend, checkout, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, 300)
    python = str(venv / "bin" / "python")
    pip = [sys.executable, "-m", "pip", "--python", python]  # this pip, acting on the venv
    command = install_command(frontend)
    assert command[:2] == ["pip", "install"]
    _run([*pip, "install", "-q", *command[2:],
          "-c", str(_constraints(tmp_path / "constraints.txt"))], checkout, 1200)

    listed = _run([*pip, "list", "--format", "json"], tmp_path, 120).stdout
    installed = {_normalize(p["name"]) for p in json.loads(listed)}
    module, forbidden = FRONTENDS[frontend]
    assert {"lazytensor-core", _normalize(f"lazytensor-{frontend}")} <= installed
    assert not installed & forbidden, f"{frontend} brought {sorted(installed & forbidden)}"

    examples = readme_examples(frontend)
    assert any(module in e for e in examples), f"README has no example of {module}"
    for index, example in enumerate(examples):  # each from a file, as README runs them
        script = tmp_path / f"example_{index}.py"
        script.write_text(example)
        _run([python, str(script)], tmp_path, 600)
    shutil.rmtree(venv)  # a venv is hundreds of MB: do not keep it in pytest's basetemp
