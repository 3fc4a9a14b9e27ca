"""``capture``: a tf.experimental.numpy step function (a GradientTape,
``Variable.assign_sub``) replayed without its Python body once two traced
calls agree (``lazytensor.core.capture``)."""

from __future__ import annotations

from lazytensor.core.capture import Adapter, Step
from lazytensor.core.capture import capture as core_capture
from lazytensor.tf._array import ndarray, wrap


class TfAdapter(Adapter):
    def handle_of(self, value):
        return value._h if isinstance(value, ndarray) else None

    def kind_of(self, value) -> object:
        return None  # a replayed result is a plain array (a Variable stays state)

    def wrap(self, leaf, kind):
        return wrap(leaf)


_ADAPTER = TfAdapter()


def capture(fn) -> Step:
    """Capture the step function ``fn`` (a decorator): after two calls that
    trace the same graph, a call with arrays of the same shapes and dtypes
    (and the same other arguments: a float may change) runs the compiled
    step without running ``fn``'s Python code, and assigns the variables
    it updates.

    >>> import lazytensor.tf as ltf
    >>> v = ltf.Variable(ltf.numpy.ones(2))
    >>> @ltf.capture
    ... def step(x, lr):
    ...     v.assign_sub(lr * x)
    ...     return ltf.numpy.sum(v)
    >>> [float(step(ltf.numpy.ones(2), 0.25)) for _ in range(4)]
    [1.5, 1.0, 0.5, 0.0]
    """
    return core_capture(fn, _ADAPTER)
