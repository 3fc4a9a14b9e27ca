"""Microseconds per recorded op for a long chain of small ops, per frontend.

Two chains of 1000 user-level ops on a 16x16 float32 array:
``tensor-tensor`` (``x + y``, ``x * y``, ``x - y``, ``maximum(x, y)`` in
turn) and ``tensor-scalar`` (the same with a Python float; torch's maximum
with a number is ``clamp_min``). Each lazy frontend (lazytensor.numpy,
lazytensor.torch, lazytensor.tf's numpy) runs in two modes: ``record``
(build the graph, drop it: the tracing cost a program pays per op) and
``record+sync`` (build it, sync and wait: the whole cost per op of a cached
graph, planning, cache lookup and execution included). numpy eager, torch
eager and JAX op-by-op dispatch are there for scale.

``plan`` plans the recorded numpy chain again and again (its structure
cached, as every barrier of a repeated step is): the per-node figure is
printed per graph node (a tensor-scalar op is two: the op and its scalar),
and ``plan, 4 ops`` the same for a chain of 4 ops, which is about the
per-graph cost.

Targets (issue 23): at most 3 us per recorded op through lazytensor.numpy,
15 us through lazytensor.torch, 10 us through lazytensor.tf; planning a
cached structure at most 0.5 us a node plus 50 us a graph, each read
against numpy eager's figure of the same run.

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
KINDS = ("tensor-tensor", "tensor-scalar")
LENGTH = 1000  # user-level ops per step
# frontend -> (module the system needs, us per recorded op it must not pass)
TARGETS = {"lazytensor.numpy": ("lazytensor.numpy", 3.0),
           "lazytensor.torch": ("lazytensor.torch", 15.0),
           "lazytensor.tf": ("lazytensor.tf", 10.0)}


def chain(maximum, x, y, length: int):
    """``length`` elementwise ops; ``y`` is an array or a Python float."""
    for _ in range(0, length, 4):
        x = x + y
        x = x * y
        x = x - y
        x = maximum(x, y)
    return x


def _operands(kind: str, asarray):
    rng = np.random.default_rng(0)
    x = asarray(rng.standard_normal(SHAPE, dtype=np.float32))
    y = asarray(rng.uniform(0.5, 1.0, SHAPE).astype(np.float32)) if kind == "tensor-tensor" else 0.5
    return x, y


def _step(maximum, x, y, length: int, finish):
    def step() -> None:
        finish(chain(maximum, x, y, length))
    return step


def _torch_maximum(torch):
    """torch.maximum takes tensors only; a number goes through clamp_min."""
    def maximum(x, y):
        return torch.maximum(x, y) if isinstance(y, torch.Tensor) else torch.clamp_min(x, y)
    return maximum


# ------------------------------------------------------------------ systems


def setup_numpy(kind: str, length: int):
    return _step(np.maximum, *_operands(kind, np.asarray), length, finish=lambda out: None)


def setup_torch(kind: str, length: int):
    import torch

    torch.set_num_threads(1)
    return _step(_torch_maximum(torch), *_operands(kind, torch.from_numpy), length,
                 finish=lambda out: None)


def setup_jax_eager(kind: str, length: int):
    import jax
    import jax.numpy as jnp

    x, y = _operands(kind, jax.device_put)
    return _step(jnp.maximum, x, y, length, finish=lambda out: out.block_until_ready())


def _lazy_step(maximum, asarray, kind: str, length: int, sync: bool, sync_all, block):
    """A lazy system's step. ``record``: build the chain, drop it, and sync
    with nothing pending (which only clears the runtime's registry of dead
    handles), so no automatic graph cut runs inside the timing; ``sync``:
    build it, sync and wait for the result."""
    from lazytensor.core import metrics

    x, y = _operands(kind, asarray)
    # one graph first, as any program has run by its second step: the runtime
    # freezes the objects alive at its first graph out of the collector's
    # full passes (``runtime._freeze_startup_objects``); a record-only loop
    # that never ran one would pay a walk of the whole heap (10^5-10^6
    # objects of jax, torch, TensorFlow) at every full collection
    warm = chain(maximum, x, y, 4)
    sync_all()
    block(warm)

    def step() -> None:
        out = chain(maximum, x, y, length)
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

    return _lazy_step(np.maximum, lnp.asarray, kind, length, sync, lnp.sync, block_lazy)


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
    roots = [chain(np.maximum, x, y, length)._h.node]
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


def _lazy_torch(kind: str, length: int, sync: bool):
    import lazytensor.torch as lt
    import torch

    torch.set_num_threads(1)
    device = lt.device()
    return _lazy_step(_torch_maximum(torch), lambda a: torch.from_numpy(a).to(device), kind,
                      length, sync, lt.sync,
                      lambda out: lt.handle_of(out).value().block_until_ready())


def setup_lazy_torch_record(kind: str, length: int):
    return _lazy_torch(kind, length, sync=False)


def setup_lazy_torch_sync(kind: str, length: int):
    return _lazy_torch(kind, length, sync=True)


def _lazy_tf(kind: str, length: int, sync: bool):
    import lazytensor.tf as ltf
    from elementwise import block_lazy

    tnp = ltf.numpy
    return _lazy_step(tnp.maximum, tnp.asarray, kind, length, sync, ltf.sync, block_lazy)


def setup_lazy_tf_record(kind: str, length: int):
    return _lazy_tf(kind, length, sync=False)


def setup_lazy_tf_sync(kind: str, length: int):
    return _lazy_tf(kind, length, sync=True)


def _lazy_core(kind: str, length: int, sync: bool):
    import _core_ns as ns

    return _lazy_step(ns.maximum, ns.asarray, kind, length, sync, ns.sync,
                      lambda out: out.block())


def setup_lazy_core_record(kind: str, length: int):
    return _lazy_core(kind, length, sync=False)


def setup_lazy_core_sync(kind: str, length: int):
    return _lazy_core(kind, length, sync=True)


# name -> (setup, module it needs)
SYSTEMS = {
    "numpy (eager)": (setup_numpy, "numpy"),
    "torch (eager)": (setup_torch, "torch"),
    "jax op-by-op": (setup_jax_eager, "jax"),
    "lazytensor.numpy record": (setup_lazy_numpy_record, "lazytensor.numpy"),
    "lazytensor.numpy record+sync": (setup_lazy_numpy_sync, "lazytensor.numpy"),
    "lazytensor.numpy plan": (setup_lazy_numpy_plan, "lazytensor.numpy"),
    "lazytensor.numpy plan, 4 ops": (setup_lazy_numpy_plan_small, "lazytensor.numpy"),
    "lazytensor.torch record": (setup_lazy_torch_record, "lazytensor.torch"),
    "lazytensor.torch record+sync": (setup_lazy_torch_sync, "lazytensor.torch"),
    "lazytensor.tf record": (setup_lazy_tf_record, "lazytensor.tf"),
    "lazytensor.tf record+sync": (setup_lazy_tf_sync, "lazytensor.tf"),
}
CORE_STAND_IN = {
    "core direct record": (setup_lazy_core_record, "lazytensor.core"),
    "core direct record+sync": (setup_lazy_core_sync, "lazytensor.core"),
}


def _systems() -> dict:
    systems = {name: setup for name, (setup, module) in SYSTEMS.items()
               if module_available(module)}
    if not any(name.startswith("lazytensor.") for name in systems):
        print("no lazytensor frontend is installed yet: measuring the core directly")
        systems.update({name: setup for name, (setup, _) in CORE_STAND_IN.items()})
    return systems


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
    systems = _systems()
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
    for prefix, (_, target) in TARGETS.items():
        name = f"{prefix} record"
        if name not in systems:
            continue
        worst = max(summary[k].get(name, float("nan")) for k in KINDS)
        verdict = "meets" if worst <= target else "MISSES"
        print(f"{name}: worst {worst:.2f} us/op ({verdict} the {target} us target)")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": results, "us_per_op": summary,
                                               "planning_us": planning},
                                              indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
