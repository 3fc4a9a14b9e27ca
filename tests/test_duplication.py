"""No code is written twice across the frontends: pylint's similarity
checker (``ci/duplication.py``) finds no block of similar code lines shared
by two frontends. Shared math belongs in the core (issue 22)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "ci"))
pytest.importorskip("pylint")

import duplication  # noqa: E402  (ci/duplication.py)

_BODY = """
    total = 0
    for value in values:
        if value > limit:
            total += value * scale
        else:
            total -= value
    total = total / len(values)
    return total + offset
"""


def test_no_code_is_duplicated_across_frontends():
    pairs = duplication.cross_frontend_pairs()
    assert not pairs, "code written twice across frontends (move it to the core):\n" + \
        "\n".join(map(str, pairs))


def test_the_check_finds_a_copy_whatever_its_docstring_and_signature(tmp_path):
    """A function copied into another frontend under another name, with
    another docstring and other imports, is reported; one frontend holding
    it twice is not (that is not sharing across frontends)."""
    packages = {"numpy": "a", "torch": "b"}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "one.py").write_text(
        "import math\n\n\ndef f(values, limit, scale, offset):\n"
        '    """numpy\'s rule."""' + _BODY)
    (tmp_path / "b" / "two.py").write_text(
        "from os import path\n\n\ndef g(values, limit=0, scale=1,\n      offset=2):\n"
        '    """torch\'s rule, written again."""' + _BODY)
    pairs = duplication.duplicate_pairs(packages, tmp_path)
    assert [p.packages for p in pairs] == [("numpy", "torch")]
    (tmp_path / "b" / "two.py").unlink()
    (tmp_path / "a" / "three.py").write_text("def h(values, limit, scale, offset):" + _BODY)
    assert duplication.duplicate_pairs(packages, tmp_path) == []
