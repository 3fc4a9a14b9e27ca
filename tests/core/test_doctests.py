"""Docstrings that run: every core module's doctest examples pass."""

import doctest
import importlib
import pkgutil

import lazytensor.core
import pytest

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(lazytensor.core.__path__, "lazytensor.core.")
)


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
