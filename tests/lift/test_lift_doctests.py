"""Docstrings that run: every lazytensor.lift module's doctest examples pass."""

import doctest
import importlib
import pkgutil

import lazytensor.lift
import pytest

MODULES = sorted(m.name for m in pkgutil.walk_packages(lazytensor.lift.__path__,
                                                        "lazytensor.lift.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", ["lazytensor.lift", *MODULES])
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
