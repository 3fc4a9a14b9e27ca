"""What every frontend's demo shares: timing the epochs and printing the
eager-vs-lazy comparison."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class Result:
    label: str
    accuracy: float  # on the held-out test set
    final_loss: float  # training loss of the last step
    steps: int
    first_epoch_seconds: float  # includes tracing and compilation for lazy runs
    steady_steps_per_second: float  # the median epoch after the first

    def row(self) -> str:
        return (f"{self.label:<26}{self.accuracy:>9.2%}{self.final_loss:>12.4f}"
                f"{self.steady_steps_per_second:>12.1f}{self.first_epoch_seconds:>12.2f}")


HEADER = f"{'run':<26}{'test acc':>9}{'last loss':>12}{'steps/s':>12}{'1st epoch s':>12}"


def fit(run_epoch: Callable[[int], tuple[int, float]],
        epochs: int) -> tuple[int, float, float, float]:
    """Call ``run_epoch(epoch) -> (steps, last_loss)`` ``epochs`` times; the
    epoch must end with its work finished (a host read of the loss does it).
    Returns (steps, last loss, first epoch seconds, steady steps per second:
    the median of the later epochs' rates, so that one epoch that another
    process on a busy machine slowed down does not decide the figure)."""
    steps, loss, first, rates = 0, float("nan"), 0.0, []
    for epoch in range(epochs):
        start = time.perf_counter()
        n, loss = run_epoch(epoch)
        seconds = time.perf_counter() - start
        steps += n
        if epoch == 0:
            first = seconds
        else:
            rates.append(n / seconds)
    return steps, loss, first, statistics.median(rates) if rates else float("nan")


def report(title: str, eager: Result, lazy: Result | None, metrics_report: str = "",
           captured: Result | None = None) -> None:
    """Print the side-by-side table, the speed ratios and the metrics report
    (``captured``: the lazy run with the step captured and replayed)."""
    print(f"\n== {title} ==")
    print(HEADER)
    print(eager.row())
    if lazy is None:
        return
    print(lazy.row())
    if captured is not None:
        print(captured.row())
    for name, run in (("lazy", lazy), ("captured", captured)):
        if run is None:
            continue
        ratio = run.steady_steps_per_second / eager.steady_steps_per_second
        print(f"{name}/eager steady speed: {ratio:.2f}x   "
              f"accuracy difference: {abs(run.accuracy - eager.accuracy):.2%}   "
              f"last-loss difference: {abs(run.final_loss - eager.final_loss):.2e}")
    if metrics_report:
        print()
        print(metrics_report)


def import_frontend(name: str):
    """Import a lazytensor frontend; ImportError when it is absent (an empty
    namespace directory of a frontend not yet written counts as absent)."""
    import importlib

    module = importlib.import_module(name)
    if getattr(module, "__file__", None) is None:
        raise ImportError(f"{name} is an empty namespace package (not implemented yet)")
    return module


def frontend_missing(module: str, exc: BaseException) -> int:
    """A clear message (no traceback) when a lazytensor frontend cannot be
    imported; returns the exit status for the demo."""
    print(f"\n{module} cannot be imported here ({type(exc).__name__}: {exc}).")
    print(f"The eager run above is all this demo can show until {module} is installed;")
    print("`make demo FRONTEND=numpy|torch|tf` picks another frontend.")
    return 3
