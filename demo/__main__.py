"""``python -m demo --frontend numpy|torch|tf``: train the digits model eagerly
and lazily with the chosen frontend and compare them."""

from __future__ import annotations

import argparse
import importlib
import sys

FRONTENDS = {  # --frontend -> the demo module that trains with it
    "numpy": "demo.numpy_mlp",
    "torch": "demo.torch_mlp",
    "tf": "demo.tf_mlp",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo", description=__doc__)
    parser.add_argument("--frontend", choices=sorted(FRONTENDS), default="torch")
    parser.add_argument("--epochs", type=int, default=None, help="override the epoch count")
    parser.add_argument("--quick", action="store_true", help="two epochs (a smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        args.epochs = 2
    module = importlib.import_module(FRONTENDS[args.frontend])
    return module.main(args)


if __name__ == "__main__":
    sys.exit(main())
