"""numpy functions whose whole job is to read values on the host: writing
files (``np.save``, ``savez``, ``savez_compressed``, ``savetxt``,
``x.tofile``, ``x.dump``) and formatting text (``array2string``,
``array_repr``, ``array_str``). Like ``print(x)`` they are observations: the
lazy arguments are materialized (a barrier) and numpy's own function runs on
the host copies. Nothing here is an op the core could record, so nothing is
an eager fallback: no ``LazyFallbackWarning``, no fallback count.

>>> import io
>>> import lazytensor.numpy as lnp
>>> buf = io.BytesIO()
>>> lnp.save(buf, lnp.arange(3) * 2)
>>> _ = buf.seek(0)
>>> lnp.load(buf)
array([0, 2, 4])
"""

from __future__ import annotations

import pickle
from typing import Callable

from lazytensor.numpy._base import ndarray
from lazytensor.numpy._dispatch import implements, to_host

import numpy as np

# numpy's functions that only write or format their arguments' values
OBSERVERS = ("save", "savez", "savez_compressed", "savetxt", "array2string", "array_repr",
             "array_str")


def _observer(name: str) -> Callable:
    """numpy's ``name`` on the host copies of its lazy arguments."""
    target = getattr(np, name)

    def observe(*args, **kwargs):
        return target(*to_host(args), **to_host(kwargs))

    observe.__name__ = observe.__qualname__ = name
    observe.__doc__ = f"numpy.{name} on the arrays' host values (an observation, a barrier)."
    return observe


for _name in OBSERVERS:
    implements(_name)(_observer(_name))


def tofile(self: ndarray, fid, sep: str = "", format: str = "%s") -> None:  # noqa: A002
    """``ndarray.tofile``: the host copy written by numpy (C order bytes, or
    text with ``sep``)."""
    self.__array__().tofile(fid, sep=sep, format=format)


def dumps(self: ndarray) -> bytes:
    """``ndarray.dumps``: the pickle of the array (a lazy array pickles as
    itself, so ``pickle.loads`` gives a lazy array back)."""
    return pickle.dumps(self, protocol=2)


def dump(self: ndarray, file) -> None:
    """``ndarray.dump``: the pickle written to ``file`` (a path or a binary
    file object)."""
    if hasattr(file, "write"):
        pickle.dump(self, file, protocol=2)
        return
    with open(file, "wb") as f:
        pickle.dump(self, f, protocol=2)


for _name, _method in (("tofile", tofile), ("dumps", dumps), ("dump", dump)):
    setattr(ndarray, _name, _method)
