"""``grad`` and ``value_and_grad`` for numpy functions (autograd/JAX style):
``lnp.grad(f)(x)`` is df/dx, recorded lazily through the core's automatic
differentiation -- the same code that serves tf.GradientTape in
lazytensor.tf. The transforms are the core's (``lazytensor.core.transforms``),
bound here to numpy's lazy array type.

>>> import numpy as np
>>> import lazytensor.numpy as lnp
>>> def f(x):
...     return np.sum(np.sin(x) * x)
>>> g = grad(f)(np.array([0.0, 1.0]))
>>> np.round(np.asarray(g), 4)
array([0.    , 1.3818])

Each differentiated argument enters the function as a fresh lazy array, so
values captured from outside stay constants, as in JAX. The whole function
must be recorded: observing a value derived from a differentiated argument
inside it (``float(y)``, ``print``) raises instead of giving a wrong gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lazytensor.core import transforms
from lazytensor.numpy._base import node_of, wrap


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """The gradient of scalar-valued ``fun`` with respect to its positional
    arguments ``argnums``: a function returning one gradient (an int
    ``argnums``) or a tuple of them, each shaped like its argument (lists,
    tuples and dicts of arrays keep their structure); with ``has_aux``,
    ``(gradient, aux)``."""
    return transforms.grad(fun, argnums, has_aux, node_of=node_of, wrap=wrap)


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Callable:
    """Like ``grad``, returning ``(value, gradient)`` (value is ``(out, aux)``
    with ``has_aux``)."""
    return transforms.value_and_grad(fun, argnums, has_aux, node_of=node_of, wrap=wrap)


__all__ = ["grad", "value_and_grad"]
