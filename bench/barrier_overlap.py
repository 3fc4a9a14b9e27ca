"""Does a barrier return before its graph has run, and does the tracing of
the next step overlap its execution? (README: "What a barrier waits for".)

A 10-op elementwise chain (bench/elementwise.py's) on N float32, then
``sync``, then 300 recorded small ops (the next step's tracing, dropped):
``pipelined`` waits only at the end, ``serial`` waits after every sync.
Printed per step: the median time ``sync`` takes to return, how many steps'
results were not yet computed when it returned, and both loops' times.
Overlap needs a free core for XLA's thread: pinned to one core (``taskset
-c 0``) the two loops cost the same.

    python bench/barrier_overlap.py [--sizes 1e6,1e7] [--steps 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from elementwise import chain, inputs  # noqa: E402


def _trace_next_step(lnp, ops: int = 300) -> None:
    s = lnp.asarray(np.ones((8, 8), np.float32))
    for _ in range(ops):
        s = s * 1.0001 + 0.5  # recorded, then dropped: never runs


def _pipelined(lnp, jax, state: dict, steps: int) -> tuple[float, float, int]:
    syncs, pending = [], 0
    start = time.perf_counter()
    for _ in range(steps):
        state["x"] = chain(np, state["x"], state["y"])
        t = time.perf_counter()
        lnp.sync()
        syncs.append(time.perf_counter() - t)
        pending += not state["x"]._h.value().is_ready()
        _trace_next_step(lnp)
    jax.block_until_ready(state["x"]._h.value())
    return (time.perf_counter() - start) / steps, sorted(syncs)[steps // 2], pending


def _serial(lnp, jax, state: dict, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        state["x"] = chain(np, state["x"], state["y"])
        lnp.sync()
        jax.block_until_ready(state["x"]._h.value())
        _trace_next_step(lnp)
    return (time.perf_counter() - start) / steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e6,1e7")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import jax
    import lazytensor.numpy as lnp

    for n in [int(float(s)) for s in args.sizes.split(",")]:
        x, y = inputs(n)
        state = {"x": lnp.asarray(x), "y": lnp.asarray(y)}
        _pipelined(lnp, jax, state, 3)
        _serial(lnp, jax, state, 3)  # warm: both donation variants compiled
        for _ in range(args.rounds):
            step, sync, pending = _pipelined(lnp, jax, state, args.steps)
            serial = _serial(lnp, jax, state, args.steps)
            print(f"n={n:.0e}: sync returns in {sync * 1e3:.2f} ms (median), result not yet "
                  f"computed at return in {pending}/{args.steps} steps; pipelined "
                  f"{step * 1e3:.1f} ms/step, serial {serial * 1e3:.1f} ms/step "
                  f"(ratio {step / serial:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
