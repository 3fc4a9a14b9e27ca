"""Nested containers of values ("trees"): lists, tuples (named tuples too)
and dicts, walked one way by every frontend that has no tree utility of its
framework's (numpy's and tf's eager fallbacks convert the arrays in their
arguments and results; tf boxes a lowered function's nodes) and by the
core's ``grad`` transforms, which alias the arrays in an argument and hand
back gradients of the same structure.

>>> tree_map(lambda x: x * 10, {"a": [1, (2, 3)], "b": 4})
{'a': [10, (20, 30)], 'b': 40}
>>> list(leaves([1, {"x": (2,)}]))
[1, 2]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    """``tree`` with ``fn`` applied to every leaf (anything that is not a
    list, tuple or dict), containers rebuilt with their own type (a dict
    subclass as a dict), leaves visited in order."""
    if isinstance(tree, (list, tuple)):
        items = [tree_map(fn, item) for item in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    if isinstance(tree, dict):
        return {key: tree_map(fn, value) for key, value in tree.items()}
    return fn(tree)


def leaves(tree: Any) -> Iterator[Any]:
    """The leaves of ``tree``, in ``tree_map``'s order."""
    if isinstance(tree, (list, tuple)):
        for item in tree:
            yield from leaves(item)
    elif isinstance(tree, dict):
        for value in tree.values():
            yield from leaves(value)
    else:
        yield tree
