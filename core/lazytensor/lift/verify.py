"""Accepting a lifted program: it must equal the loop code on inputs the
search never saw.

1. Fresh random inputs (at least 20, of varied sizes) plus one of each
   edge kind (zeros, ties, negatives, small integers, branch boundaries);
   an input on which the loop code itself raises is outside its domain
   and is skipped (counted). Integers must match exactly, floats within
   1e-9 relative (see ``search.matches``).
2. A bounded exhaustive check over sizes: every combination of the size
   symbols in 1..3.
3. Where the program is element-wise over 8-bit (or smaller) integers and
   the value combinations number at most 2**17: every combination of
   input values at once.

A failure returns the counterexample, which the lifter adds to the
search's examples before it searches again.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
from lazytensor.lift import terms as T
from lazytensor.lift.inputs import EDGE_KINDS, Spec, draw
from lazytensor.lift.legacy import run_legacy
from lazytensor.lift.plan import wide
from lazytensor.lift.program import LiftedProgram, Verification
from lazytensor.lift.search import matches

EXHAUSTIVE_LIMIT = 2**17


def expected_outputs(program: LiftedProgram, run) -> list:
    if program.returns == "none":
        return [run.after[program.args.index(n)] for n in program.inplace]
    return list(run.result) if program.returns == "tuple" else [run.result]


def compare(program: LiftedProgram, fn, inputs) -> str | None:
    """None when the program equals ``fn`` on ``inputs``, else why not;
    raises ``LookupError`` when ``fn`` itself fails on them."""
    try:
        run = run_legacy(fn, inputs, capture=False)
    except Exception as exc:
        raise LookupError(str(exc)) from None
    want = expected_outputs(program, run)
    args = [x.copy() for x in inputs]
    try:
        got = program(*args)
    except Exception as exc:  # the program has no value where the loops have one
        return f"the program raised {type(exc).__name__}: {exc}"
    got = list(got) if program.returns == "tuple" or len(want) > 1 else [got]
    pairs = list(zip(program.outputs or program.inplace, got, want, strict=True))
    if program.outputs:  # arguments updated in place besides a return value
        pairs += [(n, args[program.args.index(n)], run.after[program.args.index(n)])
                  for n in program.inplace]
    for name, g, w in pairs:
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            return f"{name}: shape {g.shape} != {w.shape}"
        kind = "i" if w.dtype.kind in "biu" else "f"
        if not matches(wide(g), wide(w), kind):
            bad = np.argwhere(~np.isclose(wide(g), wide(w), rtol=1e-9, atol=0))
            return f"{name}: differs (first at {tuple(bad[0]) if bad.size else ()})"
    return None


def verify(program: LiftedProgram, fn, spec: Spec, rng: np.random.Generator,
           fresh: int = 20, deadline: float | None = None):
    """(Verification, counterexample or None)."""
    result = Verification()
    hi = min(max(max(v) for v in spec.observed) * 2, 16) if spec.observed else 1
    kinds = ["random"] * fresh + [k for k in EDGE_KINDS
                                  if k != "boundaries" or spec.boundaries]
    done, skipped, sizes_seen = 0, 0, set()
    for kind in kinds:
        for _ in range(6):
            sizes = spec.draw_sizes(rng, 1, hi) if spec.observed else []
            if sizes is None:
                break
            inputs = draw(spec, rng, sizes, kind)
            try:
                why = compare(program, fn, inputs)
            except LookupError:
                skipped += 1
                continue
            if why is not None:
                result.checks.append(("fresh inputs", False, f"{kind} input, sizes {sizes}: "
                                      f"{why}"))
                return result, inputs
            done += 1
            sizes_seen.update(sizes)
            break
    if done < fresh:
        result.checks.append(("fresh inputs", False, f"only {done} inputs in the loop code's "
                              f"domain ({skipped} raised)"))
        return result, None
    span = f"sizes {min(sizes_seen, default=0)}..{max(sizes_seen, default=0)}"
    edges = ", ".join(k for k in EDGE_KINDS if k != "boundaries" or spec.boundaries)
    result.checks.append(("fresh inputs", True, f"{done} equal ({fresh} random, {span}; edges: "
                          f"{edges}; {skipped} outside the loops' domain skipped)"))
    for check in (_tiny_sizes, _value_exhaustive):
        entry, counter = check(program, fn, spec, rng)
        if entry is not None:
            result.checks.append(entry)
        if counter is not None:
            return result, counter
    return result, None


def _tiny_sizes(program, fn, spec: Spec, rng):
    n, combos, failed = len(spec.observed), 0, None
    if n == 0 or 3 ** n > 243:
        return None, None
    for sizes in itertools.product((1, 2, 3), repeat=n):
        if not all(sizes[a] > sizes[b] for a, b in spec.greater):
            continue
        inputs = draw(spec, rng, list(sizes), "random")
        try:
            why = compare(program, fn, inputs)
        except LookupError:
            continue
        combos += 1
        if why is not None:
            failed = (f"sizes {sizes}: {why}", inputs)
            break
    if failed:
        return ("sizes 1..3 exhaustive", False, failed[0]), failed[1]
    return ("sizes 1..3 exhaustive", True, f"{combos} size combinations"), None


def _elementwise(program: LiftedProgram) -> bool:
    for st in program.statements:
        for t in st.term.walk():
            if t.kind == T.RED or t.kind == T.VAR:
                return False
            if t.kind == T.ACC and t.attr[1] is not None and \
                    tuple(i.text for i in t.attr[1]) != st.lhs:
                return False
    return True


def _value_exhaustive(program, fn, spec: Spec, rng):
    arrays = [a for a in spec.args if a.dims]
    if not arrays or not _elementwise(program) or len({a.dims for a in arrays}) != 1:
        return None, None
    if any(a.dtype.kind not in "biu" or a.hi - a.lo + 1 > 256 for a in arrays):
        return None, None
    counts = [int(a.hi - a.lo + 1) for a in arrays]
    total = int(np.prod(counts))
    rank = len(arrays[0].dims)
    if total > EXHAUSTIVE_LIMIT or rank > 2 or (rank == 2 and total % 16):
        return None, None
    grids = np.meshgrid(*[np.arange(int(a.lo), int(a.hi) + 1) for a in arrays], indexing="ij")
    shape = (total,) if rank == 1 else (total // 16, 16)
    it = iter(g.reshape(shape) for g in grids)
    inputs = tuple(next(it).astype(a.dtype) if a.dims else draw(Spec([a], []), rng, [])[0]
                   for a in spec.args)
    started = time.monotonic()
    try:
        why = compare(program, fn, inputs)
    except LookupError:
        return None, None
    name = f"all {total} value combinations"
    if why is not None:
        return (name, False, why), inputs
    return (name, True, f"{len(arrays)} input(s) x {counts[0]} values, "
                        f"{time.monotonic() - started:.1f} s"), None
