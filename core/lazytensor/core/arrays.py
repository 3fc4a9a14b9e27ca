"""What a frontend's lazy array type reads off its core ``Handle`` (the
attribute ``_h``): rank and size from the node's abstract value, and the
host conversions of its value (``item``, ``tolist``, ``float``, ``int``,
``format``), which run what is pending. numpy's and tf.experimental.numpy's
``ndarray`` derive from it; each adds its framework's ``shape``/``dtype``
types, messages and protocols (torch's tensor is a ``torch.Tensor``
subclass instead).

>>> import numpy as np
>>> from lazytensor.core.runtime import get_runtime
>>> class Array(HandleArray):
...     __slots__ = ("_h",)
>>> a = Array()
>>> a._h = get_runtime().from_host(np.array([[1.5, 2.0]]))
>>> a.ndim, a.size, a.tolist(), f"{a.item(1):.1f}"
(2, 2, [[1.5, 2.0]], '2.0')
"""

from __future__ import annotations

import math


class HandleArray:
    """Mixin for a lazy array whose value is the ``Handle`` in ``self._h``."""

    __slots__ = ()

    @property
    def ndim(self) -> int:
        return len(self._h.node.shape)

    @property
    def size(self) -> int:
        return math.prod(self._h.node.shape)

    def item(self, *args):
        """The value (or its element ``args``) as a Python scalar."""
        return self._h.numpy().item(*args)

    def tolist(self):
        return self._h.numpy().tolist()

    def __float__(self) -> float:
        return float(self._h.numpy())

    def __int__(self) -> int:
        return int(self._h.numpy())

    def __format__(self, spec: str) -> str:
        """The value's format (``f"{loss:.4f}"``), as the frameworks' arrays."""
        return format(self._h.numpy(), spec)
