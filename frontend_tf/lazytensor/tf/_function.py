"""``tf.function`` and lazy arrays: a ``tf.function`` called with lazy
arrays (or lazytensor Variables) among its arguments runs its Python
function on them, as ``tf.config.run_functions_eagerly(True)`` would: its
operations record lazily (one graph with the caller's, differentiated by
lazytensor's tape) instead of TensorFlow converting every lazy argument
(materializing it) and tracing a graph of its own.

A function that reads a lazytensor Variable it closes over, called with
TensorFlow values only, would capture the variable's current value as a
constant of its traced graph (later assignments unseen by later calls):
the Variable refuses to be captured while TensorFlow traces
(``CapturedVariable``), and the function then runs its Python code on
every call, as above.
"""

from __future__ import annotations

import functools

from lazytensor.tf import _tf

_EAGER = "_lazytensor_runs_python"  # set on a Function whose trace captured a Variable


class CapturedVariable(Exception):  # noqa: N818  (a signal: autograph re-raises its type)
    """A lazytensor Variable reached a ``tf.function``'s trace (see the module)."""


def refuse_capture() -> None:
    """Raise ``CapturedVariable`` while TensorFlow traces a function."""
    if _tf.tf().inside_function():
        raise CapturedVariable("a lazytensor Variable cannot be captured by a traced "
                               "tf.function: the function runs its Python code instead")


def _holds_lazy(args: tuple, kwargs: dict) -> bool:
    from lazytensor.tf._array import ndarray

    return any(isinstance(v, ndarray) for v in _tf.tf().nest.flatten((args, kwargs)))


def install() -> None:
    """Give ``tf.function``'s ``Function.__call__`` the behaviour above (once)."""
    from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf

    original = pf.Function.__call__
    if getattr(original, "_lazytensor", False):
        return

    @functools.wraps(original)
    def call(self, *args, **kwargs):
        if getattr(self, _EAGER, False) or _holds_lazy(args, kwargs):
            return self.python_function(*args, **kwargs)
        try:
            return original(self, *args, **kwargs)
        except CapturedVariable:
            setattr(self, _EAGER, True)
            return self.python_function(*args, **kwargs)

    call._lazytensor = True
    pf.Function.__call__ = call
