"""``capture``: a numpy step function replayed without its Python body once
two traced calls agree (``lazytensor.core.capture``)."""

from __future__ import annotations

from lazytensor.core.capture import Adapter, Step
from lazytensor.core.capture import capture as core_capture
from lazytensor.numpy._base import ndarray, wrap


class NumpyAdapter(Adapter):
    def handle_of(self, value):
        return value._h if isinstance(value, ndarray) else None

    def kind_of(self, value):
        return value._st

    def wrap(self, leaf, kind):
        return wrap(leaf, kind)


_ADAPTER = NumpyAdapter()


def capture(fn) -> Step:
    """Capture the step function ``fn`` (a decorator): after two calls that
    trace the same graph, a call with arrays of the same shapes and dtypes
    (and the same other arguments: a float may change) runs the compiled
    step without running ``fn``'s Python code.

    >>> import lazytensor.numpy as lnp
    >>> @lnp.capture
    ... def step(w, x, lr):
    ...     return w - lr * (w @ x)
    >>> w, x = lnp.ones((2, 2)), lnp.eye(2)
    >>> for i in range(4):
    ...     w = step(w, x, 0.5)
    >>> w
    array([[0.0625, 0.0625],
           [0.0625, 0.0625]])
    """
    return core_capture(fn, _ADAPTER)
