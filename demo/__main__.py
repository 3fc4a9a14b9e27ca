"""``python -m demo --frontend numpy|torch|tf``: train the digits model eagerly
and lazily with the chosen frontend and compare them."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

FRONTENDS = {  # --frontend -> the demo module that trains with it
    "numpy": "demo.numpy_mlp",
    "torch": "demo.torch_mlp",
    "tf": "demo.tf_mlp",
}

# One compute thread per framework (set before any framework is imported): on
# a small shared machine, BLAS or Eigen threads spinning against other work
# can make a small matmul 5x slower, and the comparison should be like for like.
ONE_THREAD = {
    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo", description=__doc__)
    parser.add_argument("--frontend", choices=sorted(FRONTENDS), default="torch")
    parser.add_argument("--epochs", type=int, default=None, help="override the epoch count")
    parser.add_argument("--quick", action="store_true",
                        help="four epochs (a smoke run: the first compiles, three are timed)")
    parser.add_argument("--all-threads", action="store_true",
                        help="keep each framework's default thread pools (default: one thread)")
    args = parser.parse_args(argv)
    if args.quick:
        args.epochs = 4
    if not args.all_threads:
        for name, value in ONE_THREAD.items():
            os.environ.setdefault(name, value)
    print("compute threads: " + ("framework defaults" if args.all_threads
                                 else "one per framework (--all-threads keeps the defaults)"))
    module = importlib.import_module(FRONTENDS[args.frontend])
    return module.main(args)


if __name__ == "__main__":
    sys.exit(main())
