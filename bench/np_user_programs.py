"""Five programs of tests/frontend_numpy/user_programs/ at
realistic sizes, lazy vs numpy in one process: the median of 5 runs after 2
warm-ups (the lazy runs include their host reads). No timed tests.

    taskset -c 0 python bench/np_user_programs.py [ray groupby drawdown rank softmax]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import lazytensor.numpy as lnp
import numpy as np

_TESTS = Path(__file__).resolve().parents[1] / "tests" / "frontend_numpy"
sys.path[:0] = [str(_TESTS), str(_TESTS / "user_programs")]
from test_np_data_analysis import rank_transforms, sales_group_by  # noqa: E402
from test_np_learning import softmax_classifier  # noqa: E402
from test_np_sampling_and_finance import drawdown_report  # noqa: E402
from test_np_simulations import ray_spheres  # noqa: E402


def _materialize(out) -> None:
    if isinstance(out, (list, tuple)):
        for item in out:
            _materialize(item)
    elif isinstance(out, lnp.ndarray):
        np.asarray(out)


def bench(name: str, program, *inputs) -> None:
    median = {}
    for mod in (np, lnp):
        times = []
        for _ in range(7):
            args = [lnp.asarray(a) if mod is lnp and isinstance(a, np.ndarray) else a
                    for a in inputs]
            start = time.perf_counter()
            _materialize(program(mod, *args))
            times.append(time.perf_counter() - start)
        median[mod] = statistics.median(times[2:])
    print(f"{name}: numpy {median[np] * 1e3:.1f} ms, lazy {median[lnp] * 1e3:.1f} ms, "
          f"lazy/numpy {median[lnp] / median[np]:.2f}", flush=True)


def main(which: list[str]) -> None:
    rng = np.random.default_rng(0)
    if "ray" in which:
        n = 200_000
        dirs = np.stack([rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n), np.ones(n)], 1)
        bench("ray_spheres 200k rays x 8 spheres", ray_spheres, np.zeros((n, 3)), dirs,
              rng.uniform([-2, -2, 4], [2, 2, 8], (8, 3)), rng.uniform(0.5, 1.5, 8))
    if "groupby" in which:
        n = 1_000_000
        ints = [rng.choice(np.arange(0, 200, 3, dtype=np.int32), n),
                rng.integers(0, 20, n).astype(np.int32), rng.integers(1, 20, n).astype(np.int32)]
        bench("sales_group_by 1M rows", sales_group_by, *ints, rng.uniform(1, 9, n).round(2))
    if "drawdown" in which:
        walk = [np.exp(np.cumsum(rng.normal(0.0003, 0.01, 1_000_001))) for _ in range(2)]
        bench("drawdown_report 1M prices", drawdown_report, 50 * walk[0], 100 * walk[1])
    if "rank" in which:
        bench("rank_transforms 100k x 8", rank_transforms, rng.normal(size=(100_000, 8)))
    if "softmax" in which:
        y = rng.integers(0, 10, 8192)
        X = rng.normal(scale=3, size=(10, 64))[y] + rng.normal(size=(8192, 64))
        perms = [rng.permutation(8192) for _ in range(2)]
        bench("softmax_classifier 8192x64, 128 hidden, 2 epochs", softmax_classifier, X, y,
              0.1 * rng.normal(size=(64, 128)), 0.1 * rng.normal(size=(128, 10)), perms)


if __name__ == "__main__":
    main(sys.argv[1:] or ["ray", "groupby", "drawdown", "rank", "softmax"])
