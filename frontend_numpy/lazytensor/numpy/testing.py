"""``lazytensor.numpy.testing``: numpy.testing, with lazy arguments read to
the host first. numpy's asserts are pure Python that ask
``isinstance(x, numpy.ndarray)``; a lazy array is not one, so
``assert_equal(lazy, lazy)`` took the scalar path and raised numpy's
ambiguous-truth ValueError, and ``assert_equal(lazy.sum(), 5.0)`` failed on
``isscalar``. Comparing values is an observation (as ``print``): the asserts
here run numpy's on host copies (0-d results are 0-d arrays, which numpy
compares as arrays). The helpers that take a callable (``assert_raises``,
``assert_warns``...) and everything else are numpy's own.

>>> import lazytensor.numpy as lnp
>>> lnp.testing.assert_equal(lnp.arange(3) * 2, lnp.asarray([0, 2, 4]))
"""

from __future__ import annotations

import functools
from typing import Callable

from lazytensor.numpy._dispatch import to_host

import numpy.testing as _nt

# numpy's asserts that call user code with their arguments: left as they are
_CALLERS = frozenset({"assert_raises", "assert_raises_regex", "assert_warns",
                      "assert_no_warnings", "assert_no_gc_cycles"})


def _on_host(assert_fn: Callable) -> Callable:
    @functools.wraps(assert_fn)
    def check(*args, **kwargs):
        return assert_fn(*to_host(args), **to_host(kwargs))

    return check


def _namespace() -> dict:
    names = {}
    for name in _nt.__all__:
        obj = getattr(_nt, name)
        wrap = name.startswith("assert_") and name not in _CALLERS and callable(obj)
        names[name] = _on_host(obj) if wrap else obj
    return names


globals().update(_namespace())
__all__ = list(_nt.__all__)


def __getattr__(name: str):
    """numpy.testing's other names (its submodules...)."""
    return getattr(_nt, name)
