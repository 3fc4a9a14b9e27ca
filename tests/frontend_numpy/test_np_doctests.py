"""Docstrings that run: every lazytensor.numpy module's doctest examples pass."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import lazytensor.numpy
import pytest

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(lazytensor.numpy.__path__, "lazytensor.numpy.")
    if not m.name.endswith(".autodiff")  # (another helper's module, tested on its own)
) + ["lazytensor.numpy"]


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
