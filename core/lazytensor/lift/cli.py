"""``python -m lazytensor.lift FILE.py:FUNCTION``: lift one function from a
shell and print the program, its verification and the time taken.

Examples come from the file (a module-level ``EXAMPLES_<FUNCTION>`` or
``EXAMPLES``: a list of argument tuples) or from ``--spec``: one item per
argument, ``dtype[dims]``, dims being size names or numbers, e.g.
``--spec "f8[n,m] f8[m]"`` (two random examples; names get different
sizes in 3..8; ``f8`` normal floats, ``i8`` integers 0..9, ``u1`` 0..255;
``f8[]`` a scalar). Exit status: 0 lifted, 1 not lifted, 2 bad usage.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
from pathlib import Path

import numpy as np


def load(target: str):
    path, _, name = target.rpartition(":")
    if not path or not name:
        raise SystemExit("usage: python -m lazytensor.lift FILE.py:FUNCTION")
    spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    fn = getattr(module, name, None)
    if fn is None:
        raise SystemExit(f"{path} defines no {name}")
    examples = getattr(module, f"EXAMPLES_{name}", getattr(module, "EXAMPLES", None))
    return fn, examples


def examples_from_spec(text: str, seed: int = 0) -> list[tuple]:
    items = re.findall(r"(\w+)\[([^\]]*)\]", text)
    if not items:
        raise SystemExit(f"bad --spec {text!r}: expected items like f8[n,m]")
    rng = np.random.default_rng(seed)
    names = sorted({d.strip() for _, dims in items for d in dims.split(",")
                    if d.strip() and not d.strip().isdigit()})
    out = []
    for _ in range(2):
        sizes = dict(zip(names, rng.permutation(np.arange(3, 9))[:len(names)].tolist(),
                         strict=False))
        out.append(tuple(_array(dtype, dims, sizes, rng) for dtype, dims in items))
    return out


def _array(dtype: str, dims: str, sizes: dict, rng) -> np.ndarray:
    shape = tuple(int(d) if d.strip().isdigit() else sizes[d.strip()]
                  for d in dims.split(",") if d.strip())
    kind = np.dtype(dtype)
    if kind.kind == "f":
        return rng.standard_normal(shape).astype(kind)
    hi = 256 if kind == np.uint8 else 10
    return rng.integers(0, hi, shape).astype(kind)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lazytensor.lift",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("target", help="FILE.py:FUNCTION")
    parser.add_argument("--spec", help='argument shapes, e.g. "f8[n,m] f8[m]"')
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--uniform", action="store_true", help="the uniform-grammar ablation")
    args = parser.parse_args(argv)
    fn, examples = load(args.target)
    if args.spec:
        examples = examples_from_spec(args.spec, args.seed)
    if not examples:
        print("no examples: define EXAMPLES in the file or pass --spec", file=sys.stderr)
        return 2
    from lazytensor.lift import LiftError, lift
    started = time.monotonic()
    try:
        prog = lift(fn, examples, time_limit=args.time_limit, seed=args.seed,
                    uniform=args.uniform)
    except LiftError as exc:
        print(exc)
        print(f"gave up after {time.monotonic() - started:.2f} s")
        return 1
    print(prog)
    print(f"lifted in {time.monotonic() - started:.2f} s "
          f"({prog.report.candidates} candidates tried)")
    return 0
