"""``grad`` and ``value_and_grad`` for numpy functions (autograd/JAX style):
``lnp.grad(f)(x)`` is df/dx, recorded lazily through the core's automatic
differentiation (``lazytensor.core.autodiff``) -- the same code that serves
tf.GradientTape in lazytensor.tf.

>>> import numpy as np
>>> import lazytensor.numpy as lnp
>>> def f(x):
...     return np.sum(np.sin(x) * x)
>>> g = grad(f)(np.array([0.0, 1.0]))
>>> np.round(np.asarray(g), 4)
array([0.    , 1.3818])

Each differentiated argument enters the function as a fresh lazy array (an
identity node), so values captured from outside stay constants, as in JAX.
The whole function must be recorded: observing a value derived from a
differentiated argument inside it (``float(y)``, ``print``) would cut the
graph, and raises instead of giving a wrong gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lazytensor.core import dtypes as dt
from lazytensor.core.autodiff import grad as core_grad
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.numpy._base import node_of, wrap


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """The gradient of scalar-valued ``fun`` with respect to its positional
    arguments ``argnums``: a function returning one gradient (an int
    ``argnums``) or a tuple of them, each shaped like its argument (lists,
    tuples and dicts of arrays keep their structure); with ``has_aux``,
    ``(gradient, aux)``."""
    value_and_grad_fun = value_and_grad(fun, argnums, has_aux)

    def gradient(*args, **kwargs):
        value, grads = value_and_grad_fun(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return gradient


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Callable:
    """Like ``grad``, returning ``(value, gradient)`` (value is ``(out, aux)``
    with ``has_aux``)."""
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    def run(*args, **kwargs):
        args = list(args)
        aliases: list[tuple[object, Node]] = []
        for i in nums:
            args[i] = _watch(args[i], aliases)
        out = fun(*args, **kwargs)
        value, aux = out if has_aux else (out, None)
        node = node_of(value)
        _check_output(node)
        for array, alias in aliases:
            if array._h.node is not alias:
                raise RuntimeError("a value computed from a differentiated argument was "
                                   "observed inside the function (a barrier cut the graph); "
                                   "lazytensor.numpy.grad needs the whole function recorded")
        grads = iter(wrap(g) for g in core_grad(node, [alias for _, alias in aliases]))
        per_arg = tuple(_rebuild(args[i], grads) for i in nums)
        result = per_arg[0] if single else per_arg
        return ((wrap(node), aux) if has_aux else wrap(node)), result

    return run


def _watch(value, aliases: list):
    """``value`` (an array, or lists/tuples/dicts of them) with every array
    replaced by a fresh lazy alias, recorded in ``aliases``."""
    if isinstance(value, (list, tuple)):
        return type(value)(_watch(v, aliases) for v in value)
    if isinstance(value, dict):
        return {k: _watch(v, aliases) for k, v in value.items()}
    node = node_of(value)
    if not dt.is_inexact(node.dtype):
        raise TypeError(f"grad requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but got {node.dtype}")
    alias = make(Op.CONVERT, (node,), node.dtype)  # identity: a node of its own
    array = wrap(alias)
    aliases.append((array, alias))
    return array


def _rebuild(watched, grads):
    if isinstance(watched, (list, tuple)):
        return type(watched)(_rebuild(v, grads) for v in watched)
    if isinstance(watched, dict):
        return {k: _rebuild(v, grads) for k, v in watched.items()}
    return next(grads)


def _check_output(node: Node) -> None:
    if node.shape != ():
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                        f"{node.shape}")
    if not dt.is_inexact(node.dtype):
        raise TypeError(f"grad requires real- or complex-valued outputs, got {node.dtype}")


__all__ = ["grad", "value_and_grad"]
