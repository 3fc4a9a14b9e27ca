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


def tree_map(fn: Callable[[Any], Any], tree: Any, sort_keys: bool = False) -> Any:
    """``tree`` with ``fn`` applied to every leaf (anything that is not a
    list, tuple or dict), containers rebuilt with their own type (a dict
    subclass as a dict, in its own key order), leaves visited in order: a
    dict's in key order with ``sort_keys`` (TensorFlow's ``nest``), else in
    insertion order."""
    if isinstance(tree, (list, tuple)):
        items = [tree_map(fn, item, sort_keys) for item in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    if isinstance(tree, dict):
        mapped = {key: tree_map(fn, tree[key], sort_keys) for key in _keys(tree, sort_keys)}
        return {key: mapped[key] for key in tree}
    return fn(tree)


def leaves(tree: Any, sort_keys: bool = False) -> Iterator[Any]:
    """The leaves of ``tree``, in ``tree_map``'s order.

    >>> list(leaves({"b": 1, "a": 2})), list(leaves({"b": 1, "a": 2}, sort_keys=True))
    ([1, 2], [2, 1])
    """
    if isinstance(tree, (list, tuple)):
        for item in tree:
            yield from leaves(item, sort_keys)
    elif isinstance(tree, dict):
        for key in _keys(tree, sort_keys):
            yield from leaves(tree[key], sort_keys)
    else:
        yield tree


def _keys(tree: dict, sort_keys: bool) -> list:
    return sorted(tree) if sort_keys else list(tree)
