"""Distinct values and runs of equal rows (torch.unique, unique_consecutive,
numpy.unique without equal_nan) in two steps around one read of a count.

Their result length depends on the data, so a frontend builds ``groups``
(rows in group order, which row each one came from, where each group
starts), reads ``group_count`` (one scalar: the only barrier), and then
makes each result of a known shape from the groups: ``firsts`` (the first
row of each group), ``inverse`` (each input row's group) and ``counts``.
Rows are the slices along axis 0 (a 1-d input's elements); two rows are
equal when every element is equal, so NaN never equals NaN (each NaN is a
group of its own, as torch's flat unique counts them) and -0.0 equals 0.0
(the group keeps its first row, the sort being stable).

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> g = groups(constant(np.array([3, 1, 3]), np.dtype("int64")), sort=True)
>>> firsts(g, 2).shape, inverse(g).shape, counts(g, 2).shape
((2,), (3,), (2,))
"""

from __future__ import annotations

from dataclasses import dataclass

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const, full, iota
from lazytensor.core.composite.indexing import subscript as ix
from lazytensor.core.composite.indexing.take import take
from lazytensor.core.composite.movement.shape import concatenate, reshape, slice_axis
from lazytensor.core.composite.reduce.reduction import reduce
from lazytensor.core.composite.sets.counting import bincount
from lazytensor.core.composite.sorting import sort as sorting
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

INDEX = dt.int64


@dataclass(frozen=True, slots=True)
class Groups:
    """Rows of ``x`` (n of them) arranged so that equal rows are adjacent.

    ``rows``: x's rows in group order; ``order`` (n,) int64: the position in
    x of each of those rows (None: x's own order); ``starts`` (n,) bool:
    the row begins a group; ``ids`` (n,) int64: the group of each row of
    ``rows`` (groups numbered from 0 in order)."""

    rows: Node
    order: Node | None
    starts: Node
    ids: Node


def row_order(x: Node) -> Node:
    """Indices (n,) int64 that sort x's rows lexicographically, stably (the
    first element most significant; NaN after every number)."""
    if x.ndim <= 1:
        return sorting.argsort(x, 0, index_dtype=INDEX)
    flat = reshape(x, (x.shape[0], -1))
    columns = [reshape(slice_axis(flat, 1, j, j + 1), (x.shape[0],))
               for j in range(flat.shape[1])]
    return sorting.lexsort(columns[::-1], axis=0)


def _starts(rows: Node) -> Node:
    """(n,) bool: row 0, and every row that differs from the one before."""
    n = rows.shape[0]
    head = full((1,), True, dt.bool_)
    if n <= 1:
        return slice_axis(head, 0, 0, n)
    differs = make(Op.NE, (slice_axis(rows, 0, 1, n), slice_axis(rows, 0, 0, n - 1)))
    if differs.ndim > 1:
        differs = reduce("any", differs, tuple(range(1, differs.ndim)))
    return concatenate([head, differs], 0)


def groups(x: Node, sort: bool) -> Groups:
    """x's rows (x at least 1-d) grouped: sorted first when ``sort`` (all
    equal rows in one group, torch.unique), else runs of equal adjacent
    rows in x's order (torch.unique_consecutive)."""
    order = row_order(x) if sort else None
    rows = x if order is None else take(x, order, axis=0)
    starts = _starts(rows)
    ids = make(Op.SUB, (sorting.cumsum(starts, 0, INDEX), const(1, INDEX, starts.shape)))
    return Groups(rows, order, starts, ids)


def group_count(g: Groups) -> Node:
    """The number of groups: a 0-d int64 (the frontend reads it)."""
    return reduce("sum", make(Op.CONVERT, (g.starts,), INDEX), (0,))


def firsts(g: Groups, k: int) -> Node:
    """The first row of each of the ``k`` groups: shape (k, *row shape),
    x's dtype. Each group's start position is added into its slot (rows
    that start no group add at slot k, out of range: dropped), then read."""
    at = make(Op.SELECT, (g.starts, g.ids, const(k, INDEX, g.ids.shape)))
    first = ix.setitem(full((k,), 0, INDEX), (at,), iota(g.ids.shape, 0, INDEX), "add")
    return take(g.rows, first, axis=0)


def first_seen(g: Groups, k: int) -> Node:
    """The groups reordered by where each first occurs in x (tf.unique's
    order, pandas' unique): (k,) int64, the group numbers, the group whose
    first row comes earliest in x first. A group's first row in a sorted
    grouping is its earliest (the sort is stable)."""
    at = make(Op.SELECT, (g.starts, g.ids, const(k, INDEX, g.ids.shape)))
    start = ix.setitem(full((k,), 0, INDEX), (at,), iota(g.ids.shape, 0, INDEX), "add")
    where = start if g.order is None else take(g.order, start, axis=0)
    return sorting.argsort(where, 0, index_dtype=INDEX)


def renumber(order: Node, ids: Node) -> Node:
    """Group numbers ``ids`` (any shape, int64) renumbered after the groups
    were reordered by ``order`` ((k,) int64, a permutation): group
    ``order[j]`` becomes j."""
    k = order.shape[0]
    rank = ix.setitem(full((k,), 0, INDEX), (order,), iota((k,), 0, INDEX),
                      unique_indices=True)
    return take(rank, ids, axis=0)


def inverse(g: Groups) -> Node:
    """The group of each row of x, in x's order: (n,) int64."""
    if g.order is None:
        return g.ids
    return ix.setitem(full(g.ids.shape, 0, INDEX), (g.order,), g.ids, unique_indices=True)


def counts(g: Groups, k: int) -> Node:
    """How many rows each of the ``k`` groups holds: (k,) int64."""
    return bincount(g.ids, k)


def has_nan(x: Node) -> Node:
    """0-d bool: whether a float x holds a NaN (False for other dtypes)."""
    if not dt.is_inexact(x.dtype):
        return full((), False, dt.bool_)
    return reduce("any", make(Op.NE, (x, x)), tuple(range(x.ndim)))


