"""Inputs the search and the verification use, drawn like the examples.

From the examples the lifter reads a spec: each argument's dtype, its
value range and its axes as size symbols (axes of equal length in every
example share a symbol; an axis whose length is the product of two others
in every example, a flat row-major buffer, stays that product; a symbol
larger than another in every example stays larger). Fresh inputs draw
new sizes and values; edge kinds fill arrays with zeros, one repeated value
(ties), negative numbers, small integers (exact ties in float code), or
values at the source's comparison constants (branch boundaries).

>>> import numpy as np
>>> spec = infer_spec([(np.zeros((2, 3)), np.zeros(3)), (np.zeros((4, 5)), np.zeros(5))])
>>> [a.dims for a in spec.args]
[(('sym', 0), ('sym', 1)), (('sym', 1),)]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

EDGE_KINDS = ("zeros", "ties", "negatives", "integers", "boundaries")


@dataclass(slots=True)
class ArgSpec:
    dtype: np.dtype
    dims: tuple  # ('sym', k) | ('prod', a, b) per axis
    lo: float
    hi: float


@dataclass(slots=True)
class Spec:
    args: list[ArgSpec]
    observed: list[list[int]]  # per symbol, its lengths in the examples
    greater: list[tuple[int, int]] = field(default_factory=list)  # (a, b): a > b always
    boundaries: list[float] = field(default_factory=list)

    def draw_sizes(self, rng: np.random.Generator, lo: int, hi: int) -> list[int] | None:
        for _ in range(50):
            sizes = [int(rng.integers(lo, max(hi, lo) + 1)) for _ in self.observed]
            if all(sizes[a] > sizes[b] for a, b in self.greater):
                return sizes
        return None


def infer_spec(examples: list[tuple[np.ndarray, ...]], boundaries=()) -> Spec:
    vectors: list[tuple[int, ...]] = []
    raw = []
    for i, arg in enumerate(examples[0]):
        dims = []
        for ax in range(np.ndim(arg)):
            vec = tuple(int(np.shape(ex[i])[ax]) for ex in examples)
            if vec not in vectors:
                vectors.append(vec)
            dims.append(vec)
        raw.append(dims)
    products = _products(vectors)
    keep = [v for v in vectors if v not in products]
    args = []
    for i, dims in enumerate(raw):
        values = np.concatenate([np.ravel(ex[i]) for ex in examples]).astype(np.float64)
        dtype = np.asarray(examples[0][i]).dtype
        lo, hi = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
        if dtype == np.uint8:
            lo, hi = 0.0, 255.0
        spec_dims = tuple(("prod", keep.index(products[v][0]), keep.index(products[v][1]))
                          if v in products else ("sym", keep.index(v)) for v in dims)
        args.append(ArgSpec(dtype, spec_dims, lo, hi))
    greater = [(a, b) for a, b in itertools.permutations(range(len(keep)), 2)
               if all(x > y for x, y in zip(keep[a], keep[b], strict=True))]
    return Spec(args, [list(v) for v in keep], greater, sorted(set(boundaries)))


def _products(vectors):
    out = {}
    for v in vectors:
        for a, b in itertools.combinations_with_replacement(vectors, 2):
            if v not in (a, b) and all(x > 1 for x in a + b) and \
                    all(p == x * y for p, x, y in zip(v, a, b, strict=True)):
                out[v] = (a, b)
                break
    return out


def draw(spec: Spec, rng: np.random.Generator, sizes: list[int], kind: str = "random"):
    """One input tuple with the given symbol sizes and value kind."""
    out = []
    for arg in spec.args:
        shape = tuple(sizes[d[1]] if d[0] == "sym" else sizes[d[1]] * sizes[d[2]]
                      for d in arg.dims)
        out.append(_values(arg, shape, rng, kind, spec.boundaries))
    return tuple(out)


def _values(arg: ArgSpec, shape, rng, kind: str, boundaries) -> np.ndarray:
    lo, hi = arg.lo, arg.hi
    integer = arg.dtype.kind in "biu"
    if kind == "zeros":
        return np.zeros(shape, arg.dtype)
    if kind == "negatives" and (arg.dtype.kind == "f" or lo < 0):
        top = max(abs(lo), abs(hi), 1.0)
        v = -rng.uniform(0, top, shape)
    elif kind == "ties":
        v = np.full(shape, rng.uniform(lo, hi))
    elif kind == "integers":
        v = rng.integers(int(np.floor(lo)), int(np.ceil(hi)) + 1, shape).astype(np.float64)
    elif kind == "boundaries" and boundaries:
        picks = np.array([b + d for b in boundaries for d in (-1, 0, 1)], dtype=np.float64)
        v = rng.choice(picks, shape) if picks.size else rng.uniform(lo, hi, shape)
        v = np.clip(v, lo, hi) if integer else v
    elif integer:
        v = rng.integers(int(lo), int(hi) + 1, shape)
    else:
        v = rng.uniform(lo, hi, shape)
    if integer:
        v = np.clip(np.round(v), np.iinfo(arg.dtype).min, np.iinfo(arg.dtype).max)
    return np.asarray(v).astype(arg.dtype)
