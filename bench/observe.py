"""Reading elements of a computed array in a Python loop, side by side.

``for v in a: total += float(v)`` over a 1,000-element float32 array that is
already computed (and ``a[i, 1].item()`` over the rows of a (1000, 3) one):
what user code does when it walks results, prints a few, or branches on
them. Eager numpy and torch read memory; JAX dispatches an indexing op per
element; lazytensor reads the computed buffer on the host (core/host_read.py)
instead of running a graph per element.

    python bench/observe.py [--rounds N] [--json out.json] [--quick]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import bench_args, compare  # noqa: E402

N = 1000
KINDS = ("iterate", "index rows")


def _data():
    rng = np.random.default_rng(0)
    return rng.standard_normal(N, dtype=np.float32), rng.standard_normal((N, 3), dtype=np.float32)


def _loops(kind: str, vector, matrix, scalar):
    if kind == "iterate":
        return lambda: sum(scalar(v) for v in vector)
    return lambda: sum(scalar(matrix[i, 1]) for i in range(N))


def setup_numpy(kind: str):
    return _loops(kind, *_data(), float)


def setup_torch(kind: str):
    import torch

    torch.set_num_threads(1)
    vector, matrix = (torch.from_numpy(d) for d in _data())
    return _loops(kind, vector, matrix, lambda t: t.item())


def setup_jax(kind: str):
    import jax

    vector, matrix = (jax.device_put(d) for d in _data())
    return _loops(kind, vector, matrix, float)


def setup_lazy_numpy(kind: str):
    import lazytensor.numpy as lnp

    vector, matrix = (lnp.asarray(d) * 1.0 for d in _data())  # computed by a graph
    lnp.sync()
    return _with_metrics(_loops(kind, vector, matrix, float))


def setup_lazy_torch(kind: str):
    import lazytensor.torch as lt
    import torch

    vector, matrix = (torch.from_numpy(d).to(lt.device()) * 1.0 for d in _data())
    lt.mark_step()
    return _with_metrics(_loops(kind, vector, matrix, lambda t: t.item()))


def setup_lazy_tf(kind: str):
    import lazytensor.tf as ltf
    import lazytensor.tf.numpy as tnp

    vector, matrix = (tnp.asarray(d) * 1.0 for d in _data())
    ltf.sync()
    return _with_metrics(_loops(kind, vector, matrix, float))


def _with_metrics(step):
    from lazytensor.core import metrics

    metrics.reset()
    step.info = lambda: {k: v for k, v in metrics.as_dict()["counters"].items()
                         if k in ("graphs_executed", "host_reads")}
    return step


SYSTEMS = {
    "numpy (eager)": setup_numpy,
    "torch (eager)": setup_torch,
    "jax (op by op)": setup_jax,
    "lazytensor.numpy": setup_lazy_numpy,
    "lazytensor.torch": setup_lazy_torch,
    "lazytensor.tf": setup_lazy_tf,
}


def main() -> int:
    args = bench_args(__doc__.splitlines()[0], rounds=9)
    for kind in KINDS:
        result = compare(SYSTEMS, params={"kind": kind}, rounds=args.rounds,
                         min_round_seconds=args.min_round_seconds, baseline="numpy (eager)",
                         reference="jax (op by op)",
                         title=f"\n{kind}: {N} elements read in a Python loop (per loop)",
                         json_path=args.json and f"{args.json}.{kind.replace(' ', '_')}")
        for name, res in result.systems.items():
            if res.info:
                print(f"  {name}: {res.info}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
