"""``lazytensor.numpy.nditer``: numpy's iterator, over host copies of the
lazy operands. Reading needs nothing more (numpy's nditer takes any array);
an operand flagged 'readwrite' or 'writeonly' has its host copy written back
into the lazy array when the iteration ends (the ``with`` block exits,
``close()``, or a loop runs out), where numpy's own iterator over a lazy
array would write into a throwaway copy.

>>> import lazytensor.numpy as lnp
>>> a = lnp.arange(3.0)
>>> with lnp.nditer(a, op_flags=["readwrite"]) as it:
...     for x in it:
...         x[...] = 2 * x
>>> a
array([0., 2., 4.])
"""

from __future__ import annotations

from lazytensor.numpy._base import ndarray
from lazytensor.numpy._views import is_read_only

import numpy as np

_WRITES = {"readwrite", "writeonly"}


def _per_operand(op_flags, count: int) -> list[tuple[str, ...]]:
    """numpy's op_flags: None, one list of flags for every operand, or one per operand."""
    if op_flags is None:
        return [()] * count
    if all(isinstance(f, str) for f in op_flags):
        return [tuple(op_flags)] * count
    return [tuple(f) for f in op_flags]


class nditer:  # noqa: N801  (numpy's name)
    """numpy.nditer whose written lazy operands receive the writes."""

    def __init__(self, op, flags=None, op_flags=None, *args, **kwargs) -> None:
        several = isinstance(op, (list, tuple))
        ops = list(op) if several else [op]
        self._written: list[tuple[ndarray, np.ndarray]] = []
        for i, (operand, marks) in enumerate(zip(ops, _per_operand(op_flags, len(ops)),
                                                 strict=False)):
            if isinstance(operand, ndarray):
                if _WRITES & set(marks) and is_read_only(operand):
                    raise ValueError("output array is read-only")
                ops[i] = np.array(operand)
                if _WRITES & set(marks):
                    self._written.append((operand, ops[i]))
        self._it = np.nditer(ops if several else ops[0], flags, op_flags, *args, **kwargs)

    def _write_back(self) -> None:
        for lazy, host in self._written:
            lazy[...] = host

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self._it)
        except StopIteration:
            self._write_back()
            raise

    def __enter__(self):
        self._it.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._write_back()
        self._it.__exit__(*exc)

    def close(self) -> None:
        self._write_back()
        self._it.close()

    def __getitem__(self, index):
        return self._it[index]

    def __len__(self) -> int:
        return len(self._it)

    def __getattr__(self, name: str):
        return getattr(self._it, name)
