"""docs/numpy_support.md is generated from the frontend's tables and must
not drift from them (regenerate with ``python ci/numpy_support.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_support_doc_is_up_to_date():
    proc = subprocess.run([sys.executable, "ci/numpy_support.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
