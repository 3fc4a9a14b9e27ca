"""Side-by-side benchmark harness: one worker process per system, all pinned
to one core, run round by round in rotating order; the figure reported is
the median over rounds of each round's time ratio (system / baseline).

A *system* is a setup function, named by a ``"path/to/file.py:function"`` or
``"package.module:function"`` string or given as a module-level function
object. The worker imports it, calls ``setup(**params)`` once, and gets back
a ``step()`` callable that does one unit of work *including* its barrier
(``jax.block_until_ready``, lazytensor's ``sync`` + block, a host read...).
If ``step`` has an ``info`` attribute (a callable returning a JSON-able dict,
e.g. lazytensor's metrics counters), its result is reported at the end.

Usage from a benchmark script::

    from _harness import compare
    result = compare({"numpy": setup_numpy, "jax.jit": setup_jax},
                     params={"n": 10**7}, baseline="numpy", reference="jax.jit")

Why this shape: the machine has 2 cores shared with other work. Running every
system in its own process on the same single core, one at a time, keeps
thread pools from fighting and each framework's global state separate;
interleaving rounds means that a burst of outside load hits every system
alike, and the median of per-round ratios cancels most of it.

Worker protocol (JSON lines on a private pipe, so prints from the code under
test cannot corrupt it): ``setup``, ``round``, ``info``, ``quit``.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import time
import traceback
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent

# One thread per framework: the worker owns one core.
SINGLE_THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1",
    "TF_NUM_INTEROP_THREADS": "1",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false",
    "PYTHONHASHSEED": "0",
}

Setup = str | Callable[..., Callable[[], Any]]


# ---------------------------------------------------------------- results


@dataclass
class SystemResult:
    name: str
    times: list[float] = field(default_factory=list)  # seconds per step, per round
    inner: int = 1  # steps per round
    setup_seconds: float = 0.0
    info: dict = field(default_factory=dict)
    error: str | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.times) if self.times else float("nan")


@dataclass
class Comparison:
    title: str
    params: dict
    rounds: int
    core: int
    systems: dict[str, SystemResult]
    baseline: str | None
    reference: str | None

    def ratios(self, name: str, against: str | None) -> list[float]:
        """Per-round time ratios ``name / against`` (rounds both completed)."""
        if against is None or against not in self.systems:
            return []
        mine, theirs = self.systems[name].times, self.systems[against].times
        return [a / b for a, b in zip(mine, theirs, strict=False) if b > 0]

    def ratio(self, name: str, against: str | None) -> float:
        """Median of the per-round ratios ``name / against`` (nan if unknown)."""
        r = self.ratios(name, against)
        return statistics.median(r) if r else float("nan")

    def table(self) -> str:
        head = f"{'system':<24}{'median/step':>14}{'steps/round':>13} "
        cols = [c for c in (self.baseline, self.reference) if c in self.systems]
        head += "".join(f"{'vs ' + c:>16}" for c in cols)
        if self.reference in self.systems:
            head += f"{'IQR vs ' + self.reference:>24}"
        lines = [self.title, head, "-" * len(head)]
        for name, res in self.systems.items():
            if res.error:
                lines.append(f"{name:<24}  FAILED: {res.error.strip().splitlines()[-1]}")
                continue
            row = f"{name:<24}{_fmt_time(res.median):>14}{res.inner:>13} "
            row += "".join(f"{self.ratio(name, c):>15.2f}x" for c in cols)
            if self.reference in self.systems:
                row += f"{_iqr(self.ratios(name, self.reference)):>24}"
            lines.append(row)
        return "\n".join(lines)

    def as_dict(self) -> dict:
        out = {
            "title": self.title, "params": self.params, "rounds": self.rounds,
            "core": self.core, "baseline": self.baseline, "reference": self.reference,
            "systems": {},
        }
        for name, res in self.systems.items():
            entry = asdict(res) | {"median_seconds": res.median}
            for label, against in (("vs_baseline", self.baseline),
                                   ("vs_reference", self.reference)):
                entry[label] = self.ratio(name, against)
            out["systems"][name] = entry
        return out


def _fmt_time(seconds: float) -> str:
    if seconds != seconds:  # nan
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3f} {unit}"
    return f"{seconds * 1e9:.1f} ns"


def _iqr(values: list[float]) -> str:
    if len(values) < 4:
        return "-"
    q = statistics.quantiles(values, n=4)
    return f"{q[0]:.2f}-{q[2]:.2f}x"


# ----------------------------------------------------------------- parent


def setup_path(setup: Setup) -> str:
    """A setup as the ``"file.py:function"`` string a worker can import."""
    if isinstance(setup, str):
        return setup
    if "<locals>" in setup.__qualname__:
        raise ValueError(f"setup {setup.__qualname__} must be a module-level function")
    return f"{inspect.getsourcefile(setup)}:{setup.__qualname__}"


def worker_core() -> int:
    """The core the workers run on: core 1 where there is one, else the last."""
    cores = sorted(os.sched_getaffinity(0))
    return 1 if 1 in cores else cores[-1]


class Worker:
    """One system's worker process, spoken to over a private pipe."""

    def __init__(self, name: str, core: int, env: dict[str, str]) -> None:
        self.name = name
        read_fd, write_fd = os.pipe()
        self.proc = subprocess.Popen(
            [sys.executable, "-u", __file__, "--worker", str(core), str(write_fd)],
            stdin=subprocess.PIPE, stdout=None, stderr=None, pass_fds=(write_fd,),
            cwd=REPO, env=env, text=True,
        )
        os.close(write_fd)
        self.replies = os.fdopen(read_fd, "r")

    def ask(self, **command) -> dict:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        line = self.replies.readline()
        if not line:
            raise RuntimeError(f"worker {self.name!r} died (exit code {self.proc.wait()})")
        reply = json.loads(line)
        if "error" in reply:
            raise WorkerError(reply["error"])
        return reply

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.ask(cmd="quit")
        except (RuntimeError, BrokenPipeError, WorkerError):
            pass
        finally:
            self.replies.close()
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()


class WorkerError(RuntimeError):
    """An exception raised inside a worker (its traceback is the message)."""


def compare(
    systems: dict[str, Setup],
    *,
    params: dict | None = None,
    rounds: int = 15,
    warmup: int = 3,
    min_round_seconds: float = 0.2,
    baseline: str | None = None,
    reference: str | None = None,
    title: str = "",
    json_path: str | os.PathLike | None = None,
    core: int | None = None,
    quiet: bool = False,
) -> Comparison:
    """Run ``systems`` side by side and return (and print) the comparison.

    Each system's worker calls its setup with ``params``, runs ``warmup``
    steps, calibrates how many steps make a round of at least
    ``min_round_seconds``, then the parent runs ``rounds`` rounds, each
    visiting every system once (order rotating from round to round).
    ``baseline`` (the eager framework) and ``reference`` (``jax.jit``) name
    the systems the ratios are taken against.
    """
    params = dict(params or {})
    core = worker_core() if core is None else core
    results = {name: SystemResult(name) for name in systems}
    with _parent_off_core(core), _Pool(core, quiet) as pool:
        for name, setup in systems.items():
            pool.start(results[name], setup_path(setup), params=params, warmup=warmup,
                       min_round_seconds=min_round_seconds)
        for r in range(rounds):
            pool.round(r, results)
            _progress(quiet, f"round {r + 1}/{rounds}")
        pool.collect_info(results)
    comparison = Comparison(title, params, rounds, core, results, baseline, reference)
    _progress(quiet, "")
    if not quiet:
        print(comparison.table())
    if json_path:
        Path(json_path).write_text(json.dumps(comparison.as_dict(), indent=2, default=str))
    return comparison


@contextmanager
def _parent_off_core(core: int):
    """Keep the parent process off the workers' core while they run."""
    saved = os.sched_getaffinity(0)
    if saved - {core}:
        os.sched_setaffinity(0, saved - {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, saved)


class _Pool:
    """The workers of one comparison, one per system, all on ``core``."""

    def __init__(self, core: int, quiet: bool) -> None:
        self.core, self.quiet = core, quiet
        self.env = {**os.environ, **SINGLE_THREAD_ENV}
        if os.environ.get("XLA_FLAGS"):
            self.env["XLA_FLAGS"] = f"{os.environ['XLA_FLAGS']} {SINGLE_THREAD_ENV['XLA_FLAGS']}"
        self.workers: dict[str, Worker] = {}

    def __enter__(self) -> _Pool:
        return self

    def __exit__(self, *exc) -> None:
        for worker in self.workers.values():
            worker.close()

    def start(self, result: SystemResult, path: str, **setup) -> None:
        _progress(self.quiet, f"setting up {result.name}")
        worker = self.workers[result.name] = Worker(result.name, self.core, self.env)
        try:
            reply = worker.ask(cmd="setup", setup=path, **setup)
            result.inner, result.setup_seconds = reply["inner"], reply["setup_seconds"]
        except (WorkerError, RuntimeError) as exc:
            result.error = str(exc)
            if not self.quiet:
                print(f"{result.name}: setup failed:\n{exc}", file=sys.stderr)

    def round(self, r: int, results: dict[str, SystemResult]) -> None:
        """One step batch per healthy system, the order rotating by round."""
        live = [name for name in self.workers if not results[name].error]
        shift = r % max(len(live), 1)
        for name in live[shift:] + live[:shift]:
            res = results[name]
            try:
                reply = self.workers[name].ask(cmd="round", n=res.inner)
                res.times.append(reply["seconds"] / res.inner)
            except (WorkerError, RuntimeError) as exc:
                res.error = str(exc)

    def collect_info(self, results: dict[str, SystemResult]) -> None:
        for name, worker in self.workers.items():
            if not results[name].error:
                try:
                    results[name].info = worker.ask(cmd="info")["info"]
                except (WorkerError, RuntimeError) as exc:
                    results[name].info = {"error": str(exc)}


def _progress(quiet: bool, text: str) -> None:
    """A one-line progress note on a terminal's stderr (nothing in logs)."""
    if not quiet and sys.stderr.isatty():
        print(f"\r  {text:<60}", file=sys.stderr, end="" if text else "\r", flush=True)


def module_available(name: str) -> bool:
    """True when ``name`` is an importable regular module or package (the
    namespace directory of a not-yet-written frontend does not count)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.origin is not None


def bench_args(description: str, rounds: int = 15) -> argparse.Namespace:
    """The options every benchmark script takes: ``--rounds``, ``--json``,
    ``--quick`` (a smoke run: few rounds, short rounds)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=rounds, help="interleaved rounds")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--quick", action="store_true", help="smoke run (3 short rounds)")
    args = parser.parse_args()
    if args.quick:
        args.rounds = 3
    args.min_round_seconds = 0.02 if args.quick else 0.2
    return args


# ----------------------------------------------------------------- worker


def load_setup(path: str) -> Callable[..., Callable[[], Any]]:
    """Import the function named by ``"file.py:name"`` or ``"module:name"``."""
    import importlib
    import importlib.util

    target, _, attr = path.rpartition(":")
    if target.endswith(".py"):
        file = Path(target).resolve()
        sys.path.insert(0, str(file.parent))
        mod_name = f"_bench_{file.stem}"
        spec = importlib.util.spec_from_file_location(mod_name, file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
    else:
        sys.path.insert(0, str(REPO))
        module = importlib.import_module(target)
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _calibrate(step: Callable[[], Any], min_round_seconds: float) -> int:
    """Steps per round so that a round takes at least ``min_round_seconds``."""
    n, elapsed = 1, 0.0
    while True:
        start = time.perf_counter()
        for _ in range(n):
            step()
        elapsed = time.perf_counter() - start
        if elapsed >= min_round_seconds / 4 or n >= 1 << 20:
            break
        n *= 4
    per_step = elapsed / n
    return max(1, int(round(min_round_seconds / per_step + 0.5)))


class _WorkerState:
    def __init__(self) -> None:
        self.step: Callable[[], Any] | None = None

    def setup(self, setup: str, params: dict, warmup: int, min_round_seconds: float) -> dict:
        start = time.perf_counter()
        self.step = load_setup(setup)(**params)
        for _ in range(max(warmup, 1)):
            self.step()
        seconds = time.perf_counter() - start
        return {"inner": _calibrate(self.step, min_round_seconds), "setup_seconds": seconds}

    def round(self, n: int) -> dict:
        step = self.step
        assert step is not None
        start = time.perf_counter()
        for _ in range(n):
            step()
        return {"seconds": time.perf_counter() - start}

    def info(self) -> dict:
        fn = getattr(self.step, "info", None)
        return {"info": fn() if callable(fn) else {}}


def _worker_main(core: int, reply_fd: int) -> None:
    os.sched_setaffinity(0, {core})
    replies = os.fdopen(reply_fd, "w")
    os.dup2(2, 1)  # stray prints from the code under test go to stderr
    state = _WorkerState()
    for line in sys.stdin:
        command = json.loads(line)
        cmd = command.pop("cmd")
        if cmd == "quit":
            break
        try:
            reply = getattr(state, cmd)(**command)
        except BaseException:  # noqa: B036  (reported to the parent)
            reply = {"error": traceback.format_exc()}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--worker":
    _worker_main(int(sys.argv[2]), int(sys.argv[3]))
