"""Thinning a parametrized sweep for the default run.

A test marked ``@pytest.mark.sweep("dtype", reason="...")`` runs, in the
default run, one value of the named parameters per combination of its other
parameters (its *rows*), rotating through the values from row to row, and at
least once every value; the rest of the product is marked ``slow`` and runs
in ``make test-slow``. So every row (op, argument set) and every named value
(dtype) is still checked by ``make test``; only their full product waits for
the slow run. Several names thin together: ``sweep("dtype", "kwargs")``
keeps one (dtype, kwargs) pair per row; ``per_row=2`` keeps two values per
row.
"""

from __future__ import annotations


def kept_positions(rows: list, values: list, per_row: int = 1) -> set[int]:
    """Positions of the items kept in the default run, of items given as
    (row key, value key) in collection order: row r keeps ``per_row`` of its
    values from the ``r * per_row mod n``-th on (``n``: the values that row
    has), and the first item of any value that no row kept is kept as well."""
    row_order = list(dict.fromkeys(rows))
    value_order = list(dict.fromkeys(values))
    by_row: dict = {}
    for position, (row, value) in enumerate(zip(rows, values, strict=True)):
        by_row.setdefault(row, []).append((value_order.index(value), position))
    kept, covered = set(), set()
    for r, row in enumerate(row_order):
        choices = sorted(by_row[row])
        for i in range(min(per_row, len(choices))):
            value, position = choices[(r * per_row + i) % len(choices)]
            kept.add(position)
            covered.add(value)
    for position, value in enumerate(values):
        if value_order.index(value) not in covered:
            kept.add(position)
            covered.add(value_order.index(value))
    return kept
