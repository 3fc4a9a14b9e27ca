"""The lifted programs' speed at size 512: the legacy loops, the lifted
program through lazytensor.numpy (warm: compiled once, then timed) and
plain numpy written by hand."""

from __future__ import annotations

import statistics
import time

import numpy as np
import tasks_basic as B
import tasks_more as M


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def _darken(a, b):
    return np.minimum(a, b)


CASES = [  # (task, legacy, inputs(rng), plain numpy)
    ("vadd", B.vadd, lambda r: (r.standard_normal(512), r.standard_normal(512)),
     lambda a, b: a + b),
    ("matvec", B.matvec, lambda r: (r.standard_normal((512, 512)), r.standard_normal(512)),
     lambda A, x: A @ x),
    ("softmax", M.softmax, lambda r: (r.standard_normal(512),), _softmax),
    ("fir", M.fir, lambda r: (r.standard_normal(512 + 15), r.standard_normal(16)),
     lambda x, h: np.correlate(x, h, "valid")),
    ("blend_darken", M.blend_darken,
     lambda r: (r.integers(0, 256, (512, 512)).astype(np.uint8),
                r.integers(0, 256, (512, 512)).astype(np.uint8)), _darken),
]


def _interleaved(fns: dict, rounds: int) -> dict:
    """Median seconds per system, timed round-robin (load hits all alike)."""
    times: dict = {k: [] for k in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            started = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - started)
    return {k: statistics.median(v) for k, v in times.items()}


def report(guided: dict) -> None:
    import lazytensor.numpy as lnp

    print("\nlifted program speed at size 512 (median of 5 interleaved rounds; ms):")
    print(f"{'task':14} {'legacy loops':>12} {'lifted/lnp':>10} {'numpy':>8} "
          f"{'loops/lifted':>12} {'lifted/numpy':>12}")
    rng = np.random.default_rng(0)
    for name, legacy, make, plain in CASES:
        outcome = guided.get(name)
        if outcome is None or not outcome.solved:
            print(f"{name:14} (not lifted in this run)")
            continue
        prog = outcome.program
        host = make(rng)
        lazy = [lnp.asarray(a) for a in host]
        want = legacy(*[a.copy() for a in host])
        got = np.asarray(prog(*lazy))  # compiles once
        assert np.allclose(got, want, rtol=1e-9, atol=1e-9), name
        t = _interleaved({"loops": lambda f=legacy, h=host: f(*[a.copy() for a in h]),
                          "lifted": lambda p=prog, z=lazy: np.asarray(p(*z)),
                          "numpy": lambda f=plain, h=host: f(*h)}, rounds=5)
        t_loops, t_lifted, t_numpy = t["loops"], t["lifted"], t["numpy"]
        print(f"{name:14} {t_loops * 1e3:12.1f} {t_lifted * 1e3:10.2f} {t_numpy * 1e3:8.3f} "
              f"{t_loops / t_lifted:11.1f}x {t_lifted / t_numpy:11.1f}x")
