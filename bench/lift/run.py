"""The lifting benchmark (``make bench-lift``).

For every task in ``tasks.py``: lift it with the source-guided grammar and
print per task and per category whether it was solved, the lift time
(search plus verification, wall clock), the search time alone (CPU time of
the process, so that a loaded machine's waits do not count), the
candidates tried, the checks passed and an independent audit (10 more
fresh inputs, another seed). The ablation lifts each task again with
uniform grammars (all weights equal, as STAGG's ``wcfg_equal_p``): (a) the
same productions, (b) one-level productions only (no source sub-expression
as a production of its own); it prints the speedups on the tasks both
solve. Then, for five tasks at size 512 (or 512x512), the lifted program's
time through lazytensor.numpy against the legacy loops and plain numpy.

Times are measured on whatever machine runs it (this project's is a
shared, loaded 2-core machine: compare ratios, not absolute numbers).

    python bench/lift/run.py [--tasks fir,softmax] [--time-limit 60]
                             [--uniform-limit 20] [--no-ablation] [--no-speed]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import speed  # noqa: E402
import tasks as task_list  # noqa: E402
from lazytensor.lift import LiftError, lift  # noqa: E402
from lazytensor.lift.inputs import infer_spec  # noqa: E402
from lazytensor.lift.verify import verify  # noqa: E402


@dataclass
class Outcome:
    solved: bool
    seconds: float
    search: float
    candidates: int
    checks: str
    program: object = None
    why: str = ""
    audit: str = ""


def run_one(task, limit: float, uniform: bool, fragments: bool = True) -> Outcome:
    started = time.monotonic()
    try:
        prog = lift(task.fn, task_list.examples(task), time_limit=limit, uniform=uniform,
                    fragments=fragments)
    except LiftError as exc:
        return Outcome(False, time.monotonic() - started, 0.0, 0, "-", None,
                       str(exc).splitlines()[0])
    seconds = time.monotonic() - started
    checks = "+".join(_short(name) for name, ok, _ in prog.verification.checks if ok)
    return Outcome(True, seconds, prog.report.search_seconds, prog.report.candidates, checks,
                   prog, audit=audit(task, prog))


def audit(task, prog) -> str:
    """An independent re-check of an accepted program: 10 more fresh inputs
    (another seed) and the edge kinds, as the lifter's verification draws them."""
    spec = infer_spec(task_list.examples(task))
    result, counter = verify(prog, task.fn, spec, np.random.default_rng(12345), fresh=10)
    return "ok" if counter is None and result.checks and result.checks[0][1] else "WRONG"


def _short(name: str) -> str:
    return {"fresh inputs": "fresh", "sizes 1..3 exhaustive": "tiny"}.get(name, "values")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default="")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--uniform-limit", type=float, default=20.0)
    parser.add_argument("--no-ablation", action="store_true")
    parser.add_argument("--no-speed", action="store_true")
    args = parser.parse_args(argv)
    wanted = set(filter(None, args.tasks.split(",")))
    chosen = [t for t in task_list.TASKS if not wanted or t.name in wanted]
    print(f"lifting benchmark: {len(chosen)} tasks, time limit {args.time_limit:g} s "
          f"(uniform ablation {args.uniform_limit:g} s); {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    guided, uniform, bare = {}, {}, {}
    head = f"{'task':20} {'category':18} {'solved':6} {'lift s':>7} {'search s':>8} " \
           f"{'cands':>7} {'checks':18} audit"
    print(head + ("  | uniform: solved, search s, cands | uniform one-level: same"
                  if not args.no_ablation else ""))
    for t in chosen:
        g = guided[t.name] = run_one(t, args.time_limit, False)
        line = f"{t.name:20} {t.category:18} {'yes' if g.solved else 'NO':6} " \
               f"{g.seconds:7.2f} {g.search:8.3f} {g.candidates:7d} {g.checks:18} " \
               f"{g.audit or '-':5}"
        if not args.no_ablation:
            for table, frag in ((uniform, True), (bare, False)):
                u = table[t.name] = run_one(t, args.uniform_limit, True, frag)
                line += (f"  | yes {u.search:8.3f} {u.candidates:7d}" if u.solved else
                         f"  | no  {'timeout':>8} {'-':>7}")
        print(line + (f"  ({g.why[:60]})" if not g.solved else ""), flush=True)
    summarize(chosen, guided, args.time_limit)
    if not args.no_ablation:
        ablation(chosen, guided, uniform, "uniform weights, same productions")
        ablation(chosen, guided, bare, "uniform weights, one-level productions only")
    if not args.no_speed:
        speed.report(guided)
    return 0


def summarize(chosen, guided, limit) -> None:
    by_cat = defaultdict(list)
    for t in chosen:
        by_cat[t.category].append(guided[t.name])
    print("\nper category:")
    print(f"{'category':18} {'solved':>8} {'median lift s':>13} {'max lift s':>10} "
          f"{'candidates':>10}")
    for cat, outs in by_cat.items():
        solved = [o for o in outs if o.solved]
        times = [o.seconds for o in solved] or [0.0]
        print(f"{cat:18} {len(solved):>3}/{len(outs):<4} {statistics.median(times):13.2f} "
              f"{max(times):10.2f} {sum(o.candidates for o in solved):10d}")
    outs = list(guided.values())
    solved = [o for o in outs if o.solved]
    times = [o.seconds for o in solved] or [0.0]
    print(f"{'all':18} {len(solved):>3}/{len(outs):<4} {statistics.median(times):13.2f} "
          f"{max(times):10.2f} {sum(o.candidates for o in solved):10d}")
    wrong = [t.name for t in chosen if guided[t.name].audit == "WRONG"]
    print(f"accepted programs wrong on the independent audit: {len(wrong)} "
          f"{', '.join(wrong)}")
    print(f"solved {100 * len(solved) / max(len(outs), 1):.0f}%; median lift "
          f"{statistics.median(times):.2f} s; slowest {max(times):.2f} s "
          f"(limit {limit:g} s)")


def ablation(chosen, guided, uniform, title) -> None:
    both = [t.name for t in chosen if guided[t.name].solved and uniform[t.name].solved]
    only = [t.name for t in chosen if guided[t.name].solved and not uniform[t.name].solved]
    print(f"\nablation ({title}): solved {sum(u.solved for u in uniform.values())}"
          f"/{len(uniform)}; guided only: {', '.join(only) or 'none'}")
    if not both:
        return
    gs = [guided[n].search for n in both]
    us = [uniform[n].search for n in both]
    ratios = [u / max(g, 1e-6) for g, u in zip(gs, us, strict=True)]
    cands = [uniform[n].candidates / max(guided[n].candidates, 1) for n in both]
    lifts = [uniform[n].seconds / max(guided[n].seconds, 1e-6) for n in both]
    print(f"on the {len(both)} tasks both solve: search time median guided "
          f"{statistics.median(gs) * 1e3:.1f} ms vs uniform {statistics.median(us) * 1e3:.1f} ms"
          f" ({statistics.median(us) / max(statistics.median(gs), 1e-9):.1f}x); median per-task"
          f" search speedup {statistics.median(ratios):.1f}x; candidates "
          f"{statistics.median(cands):.1f}x; whole lift (verification included) "
          f"{statistics.median(lifts):.1f}x")


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
