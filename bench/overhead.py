"""Microseconds per recorded op for a long chain of small ops.

Two chains of 1000 user-level ops on a 16x16 float32 array:
``tensor-tensor`` (``x + y``, ``x * y``, ``x - y``, ``np.maximum(x, y)`` in
turn) and ``tensor-scalar`` (the same with Python floats). Each lazy system
runs in two modes: ``record`` (build the graph, drop it: the tracing cost a
program pays per op) and ``record+sync`` (build it, sync and wait: the whole
cost per op of a cached graph, planning, cache lookup and execution included).
numpy eager and JAX op-by-op dispatch are there for scale.

``plan`` plans the recorded chain again and again (its structure cached, as
every barrier of a repeated step is): the per-node figure is printed per
graph node (a tensor-scalar op is two: the op and its scalar), and
``plan, 4 ops`` the same for a chain of 4 ops, which is about the per-graph
cost.

Targets: at most 5 us per recorded op through lazytensor.numpy (issue 2);
planning a cached structure at most 0.5 us a node plus 50 us a graph
(issue 23), each read against numpy eager's figure of the same run.

    python bench/overhead.py [--rounds N] [--json out.json] [--quick]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import bench_args, compare, module_available  # noqa: E402

SHAPE = (16, 16)
TARGET_US = 5.0
KINDS = ("tensor-tensor", "tensor-scalar")
LENGTH = 1000  # user-level ops per step


def chain(np, x, y, length: int):
    """``length`` elementwise ops; ``y`` is an array or a Python float."""
    for _ in range(0, length, 4):
        x = x + y
        x = x * y
        x = x - y
        x = np.maximum(x, y)
    return x


def _operands(kind: str, asarray):
    rng = np.random.default_rng(0)
    x = asarray(rng.standard_normal(SHAPE, dtype=np.float32))
    y = asarray(rng.uniform(0.5, 1.0, SHAPE).astype(np.float32)) if kind == "tensor-tensor" else 0.5
    return x, y


def _step(ns, x, y, length: int, finish):
    def step() -> None:
        finish(chain(ns, x, y, length))
    return step


# ------------------------------------------------------------------ systems


def setup_numpy(kind: str, length: int):
    return _step(np, *_operands(kind, np.asarray), length, finish=lambda out: None)


def setup_jax_eager(kind: str, length: int):
    import jax
    import jax.numpy as jnp

    x, y = _operands(kind, jax.device_put)
    return _step(jnp, x, y, length, finish=lambda out: out.block_until_ready())


def _lazy_step(ns, kind: str, length: int, sync: bool, sync_all, block):
    """A lazy system's step. ``record``: build the chain, drop it, and sync
    with nothing pending (which only clears the runtime's registry of dead
    handles), so no automatic graph cut runs inside the timing; ``sync``:
    build it, sync and wait for the result."""
    from lazytensor.core import metrics

    x, y = _operands(kind, ns.asarray)

    def step() -> None:
        out = chain(np if ns.__name__ == "lazytensor.numpy" else ns, x, y, length)
        if sync:
            sync_all()
            block(out)
        else:
            del out
            sync_all()

    metrics.reset()
    step.info = lambda: metrics.as_dict()["counters"]
    return step


def _lazy_numpy(kind: str, length: int, sync: bool):
    import lazytensor.numpy as lnp
    from elementwise import block_lazy

    return _lazy_step(lnp, kind, length, sync, lnp.sync, block_lazy)


def setup_lazy_numpy_record(kind: str, length: int):
    return _lazy_numpy(kind, length, sync=False)


def setup_lazy_numpy_sync(kind: str, length: int):
    return _lazy_numpy(kind, length, sync=True)


def _plan_step(kind: str, length: int):
    """Plan the recorded chain from the plan cache (nothing runs)."""
    import lazytensor.numpy as lnp
    from lazytensor.core import compiler, get_runtime
    from lazytensor.core.ir import toposort

    x, y = _operands(kind, lnp.asarray)
    roots = [chain(np, x, y, length)._h.node]
    runtime = get_runtime()
    cache = compiler.PlanCache()
    compiler.plan(roots, None, runtime.pool, cache)  # the first sight: walked and stored
    nodes = len(toposort(roots))

    def step() -> None:
        compiler.plan(roots, None, runtime.pool, cache)

    step.info = lambda: {"graph_nodes": nodes}
    return step


def setup_lazy_numpy_plan(kind: str, length: int):
    return _plan_step(kind, length)


def setup_lazy_numpy_plan_small(kind: str, length: int):
    return _plan_step(kind, PLAN_SMALL)


PLAN_SMALL = 4  # user-level ops of the small graph: its planning is about the per-graph cost


def _lazy_core(kind: str, length: int, sync: bool):
    import _core_ns as ns

    return _lazy_step(ns, kind, length, sync, ns.sync, lambda out: out.block())


def setup_lazy_core_record(kind: str, length: int):
    return _lazy_core(kind, length, sync=False)


def setup_lazy_core_sync(kind: str, length: int):
    return _lazy_core(kind, length, sync=True)


SYSTEMS = {
    "numpy (eager)": setup_numpy,
    "jax op-by-op": setup_jax_eager,
    "lazytensor.numpy record": setup_lazy_numpy_record,
    "lazytensor.numpy record+sync": setup_lazy_numpy_sync,
    "lazytensor.numpy plan": setup_lazy_numpy_plan,
    "lazytensor.numpy plan, 4 ops": setup_lazy_numpy_plan_small,
    "core direct record": setup_lazy_core_record,
    "core direct record+sync": setup_lazy_core_sync,
}


def _print_planning(planning: dict, summary: dict) -> None:
    """Planning a cached structure: us per graph node (and per graph, from
    the small chain), next to numpy eager's us per op of the same run."""
    if not planning:
        return
    print("\nplanning a cached structure (lazytensor.numpy plan; target 0.5 us/node + 50 us/graph)")
    for kind, rows in planning.items():
        eager = summary[kind].get("numpy (eager)", float("nan"))
        cells = [f"{name.split(' plan')[1].lstrip(', ') or 'whole chain'}: {us:.0f} us for "
                 f"{nodes} nodes ({us / nodes:.2f} us/node)" for name, (us, nodes) in rows.items()]
        print(f"  {kind}: " + "; ".join(cells) + f" | numpy eager {eager:.2f} us/op")


def main() -> int:
    args = bench_args(__doc__.splitlines()[0], rounds=9)
    length = LENGTH
    systems = dict(SYSTEMS)
    if module_available("lazytensor.numpy"):  # the stand-in is only for a missing frontend
        systems = {k: v for k, v in systems.items() if not k.startswith("core direct")}
    else:
        print("lazytensor.numpy is not installed yet: measuring the core directly")
        systems = {k: v for k, v in systems.items() if "lazytensor.numpy" not in k}
    summary: dict[str, dict[str, float]] = {}
    planning: dict[str, dict[str, float]] = {}
    results = []
    for kind in KINDS:
        result = compare(systems, params={"kind": kind, "length": length},
                         rounds=args.rounds, min_round_seconds=args.min_round_seconds,
                         baseline="numpy (eager)",
                         title=f"\n{kind} chain of {length} ops on {SHAPE} float32 (per step)")
        results.append(result.as_dict())
        summary[kind] = {name: res.median / length * 1e6
                         for name, res in result.systems.items() if not res.error}
        for name, res in result.systems.items():
            if res.info and res.info.get("graph_nodes") and not res.error:
                planning.setdefault(kind, {})[name] = (res.median * 1e6, res.info["graph_nodes"])
            nodes = res.info.get("ops_recorded") if res.info else None
            calls = res.info.get("graphs_executed") if res.info else None
            if nodes:
                print(f"  {name}: {nodes} core nodes recorded, {calls} graphs executed")
    print(f"\nmicroseconds per user-level op (chain of {length}, median of rounds)")
    print(f"{'system':<32}" + "".join(f"{k:>16}" for k in KINDS))
    for name in systems:
        cells = "".join(f"{summary[k].get(name, float('nan')):>16.2f}" for k in KINDS)
        print(f"{name:<32}{cells}")
    _print_planning(planning, summary)
    prefix = "lazytensor.numpy" if "lazytensor.numpy record" in systems else "core direct"
    for mode in ("record", "record+sync"):
        name = f"{prefix} {mode}"
        worst = max(summary[k].get(name, float("nan")) for k in KINDS)
        verdict = "meets" if worst <= TARGET_US else "MISSES"
        print(f"{name}: worst {worst:.2f} us/op ({verdict} the {TARGET_US} us target)")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": results, "us_per_op": summary,
                                               "planning_us": planning},
                                              indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
