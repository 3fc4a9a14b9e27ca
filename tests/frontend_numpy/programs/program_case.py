"""The record every program module exports: ``CASES = [Case(...), ...]``.

A program is an ordinary numpy function ``fn(np, *inputs)``: ``np`` is the
namespace it is written against (numpy itself, or ``lazytensor.numpy``) and
``inputs`` are arrays (numpy's, or lazy ones) built by ``make`` from a fixed
seed, so the eager and the lazy run see the same data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy


@dataclass(frozen=True)
class Case:
    """One program: its function, its host inputs, and what may fall back.

    ``fallbacks``: numpy function names (as counted in
    ``metrics.as_dict()['fallbacks']``) that the program may run eagerly;
    any other fallback fails the test. ``rtol``: float tolerance."""

    name: str
    fn: Callable
    make: Callable[[numpy.random.Generator], tuple]
    fallbacks: frozenset = field(default_factory=frozenset)
    rtol: float | None = None




