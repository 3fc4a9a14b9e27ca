"""The default run's slice of a ``sweep`` test (tests/sweeps.py): every row
kept, every thinned value checked at least once, the values in turn."""

from __future__ import annotations

import itertools

from sweeps import kept_positions


def _items(rows, values):
    pairs = list(itertools.product(rows, values))
    return [r for r, _ in pairs], [v for _, v in pairs]


def test_each_row_keeps_one_value_in_turn():
    rows, values = _items(["fft", "ifft", "rfft", "irfft"], ["f32", "f64"])
    kept = sorted(kept_positions(rows, values))
    assert [(rows[i], values[i]) for i in kept] == [
        ("fft", "f32"), ("ifft", "f64"), ("rfft", "f32"), ("irfft", "f64")]


def test_every_value_is_checked_when_rows_are_fewer_than_values():
    rows, values = _items(["a", "b"], ["bool", "int8", "int64", "float32", "float64"])
    kept = kept_positions(rows, values)
    assert {values[i] for i in kept} == set(values)
    assert {rows[i] for i in kept} == {"a", "b"}


def test_per_row_keeps_that_many_values_and_rows_missing_values_still_count():
    rows = ["neg"] * 3 + ["not"] * 1 + ["add"] * 3
    values = ["f32", "i8", "i32", "bool", "f32", "i8", "i32"]
    kept = kept_positions(rows, values, per_row=2)
    assert sorted(kept) == [0, 1, 3, 5, 6]
