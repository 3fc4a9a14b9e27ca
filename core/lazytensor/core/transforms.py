"""Function transforms in the style of JAX and ``torch.func``: ``grad`` and
``value_and_grad`` of a Python function, recorded lazily through the core's
automatic differentiation (``autodiff.grad``).

A frontend binds them to its array type with two adapters: ``node_of``
(an array, or anything its functions accept, to a Node) and ``wrap`` (a
Node to a new array). Each differentiated argument enters the function as a
fresh array (an identity node), so values captured from outside stay
constants, as in JAX. The whole function must be recorded: observing a value
derived from a differentiated argument inside it would cut the graph, which
raises instead of giving a wrong gradient. Lists, tuples and dicts of
arrays keep their structure.

>>> import numpy as np
>>> from lazytensor.core.ops import Op
>>> from lazytensor.core.registry import make
>>> from lazytensor.core.runtime import get_runtime
>>> x = get_runtime().from_host(np.array([1.0, 2.0])).node
>>> def f(v):
...     return make(Op.REDUCE_SUM, (make(Op.MUL, (v, v)),), (0,))
>>> value, g = value_and_grad(f, node_of=lambda n: n, wrap=lambda n: n)(x)
>>> value.shape, g.shape
((), (2,))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lazytensor.core import dtypes as dt
from lazytensor.core.autodiff import grad as core_grad
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.trees import tree_map


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, *,
         node_of: Callable[[object], Node], wrap: Callable[[Node], object]) -> Callable:
    """The gradient of scalar-valued ``fun`` with respect to its positional
    arguments ``argnums``: a function returning one gradient (an int
    ``argnums``) or a tuple of them, each shaped like its argument; with
    ``has_aux``, ``(gradient, aux)``."""
    value_and_grad_fun = value_and_grad(fun, argnums, has_aux, node_of=node_of, wrap=wrap)

    def gradient(*args, **kwargs):
        value, grads = value_and_grad_fun(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return gradient


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   *, node_of: Callable[[object], Node],
                   wrap: Callable[[Node], object]) -> Callable:
    """Like ``grad``, returning ``(value, gradient)`` (value is ``(out, aux)``
    with ``has_aux``)."""
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    def run(*args, **kwargs):
        args = list(args)
        aliases: list[tuple[object, Node]] = []
        for i in nums:
            args[i] = _watch(args[i], aliases, node_of, wrap)
        out = fun(*args, **kwargs)
        value, aux = out if has_aux else (out, None)
        node = node_of(value)
        _check_output(node)
        for array, alias in aliases:
            if node_of(array) is not alias:
                raise RuntimeError("a value computed from a differentiated argument was "
                                   "observed inside the function (a barrier cut the graph); "
                                   "grad needs the whole function recorded")
        grads = iter(wrap(g) for g in core_grad(node, [alias for _, alias in aliases]))
        per_arg = tuple(_rebuild(args[i], grads) for i in nums)
        result = per_arg[0] if single else per_arg
        return ((wrap(node), aux) if has_aux else wrap(node)), result

    return run


def _watch(value, aliases: list, node_of: Callable[[object], Node],
           wrap: Callable[[Node], object]):
    """``value`` (an array, or lists/tuples/dicts of them) with every array
    replaced by a fresh alias, recorded in ``aliases``."""
    return tree_map(lambda array: _alias(array, aliases, node_of, wrap), value)


def _alias(value, aliases: list, node_of: Callable[[object], Node],
           wrap: Callable[[Node], object]):
    node = node_of(value)
    if not dt.is_inexact(node.dtype):
        raise TypeError(f"grad requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but got {node.dtype}")
    alias = make(Op.CONVERT, (node,), node.dtype)  # identity: a node of its own
    array = wrap(alias)
    aliases.append((array, alias))
    return array


def _rebuild(watched, grads):
    return tree_map(lambda _: next(grads), watched)


def _check_output(node: Node) -> None:
    if node.shape != ():
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                        f"{node.shape}")
    if not dt.is_inexact(node.dtype):
        raise TypeError(f"grad requires real- or complex-valued outputs, got {node.dtype}")
