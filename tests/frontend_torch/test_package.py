"""The package's public surface and its dependencies: a thin adapter that
imports torch and the core, never jax, TensorFlow or another frontend."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import lazytensor.torch as lt

PACKAGE = Path(lt.__path__[0])


def test_all_names_resolve():
    assert sorted(lt.__all__) == sorted(set(lt.__all__))
    for name in lt.__all__:
        assert getattr(lt, name) is not None


def test_frontend_sources_never_import_jax():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        assert "import jax" not in text and "from jax" not in text, path


def test_import_loads_no_other_framework():
    code = (
        "import sys, lazytensor.torch\n"
        "bad = [m for m in ('tensorflow', 'lazytensor.numpy', 'lazytensor.tf') "
        "if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""


def test_every_table_entry_is_an_aten_op():
    import torch
    from lazytensor.torch.aten import TABLE

    for op in TABLE:
        assert isinstance(op, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)), op
