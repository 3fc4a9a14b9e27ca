"""The launcher: start the processes, watch them, stop them all when one
fails or the run times out; never wait forever."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

from lazytensor.launch.worker import Role

POLL_SECONDS = 0.1
_WORKER = "import sys; from lazytensor.launch.worker import main; main(sys.argv[1:])"


class LaunchError(RuntimeError):
    """A process of the run failed, or the run timed out."""


@dataclass(frozen=True, slots=True)
class Options:
    nproc: int
    script: str
    args: tuple
    devices_per_process: int | None = None
    nnodes: int = 1
    node_rank: int = 0
    coordinator: str | None = None
    timeout: float | None = None
    grace: float = 5.0
    heartbeat: int = 10


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m lazytensor.launch",
                                description="Run a script as N cooperating processes.")
    p.add_argument("--nproc", type=int, required=True, help="processes on this machine")
    p.add_argument("--devices-per-process", type=int, default=None,
                   help="virtual CPU devices per process (JAX on the CPU)")
    p.add_argument("--nnodes", type=int, default=1, help="machines in the run")
    p.add_argument("--node-rank", type=int, default=0, help="this machine's rank")
    p.add_argument("--coordinator", default=None,
                   help="host:port of the coordinator (default: 127.0.0.1, a free port)")
    p.add_argument("--timeout", type=float, default=None, help="seconds for the whole run")
    p.add_argument("--grace", type=float, default=5.0,
                   help="seconds the others get to stop after one fails")
    p.add_argument("--heartbeat", type=int, default=10,
                   help="seconds before JAX declares a silent peer dead")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    return p


def _roles(o: Options) -> list[Role]:
    if o.nnodes > 1 and not o.coordinator:
        raise LaunchError("several machines need --coordinator host:port (machine 0's)")
    coordinator = o.coordinator or f"127.0.0.1:{_free_port()}"
    total = o.nproc * o.nnodes
    return [Role(coordinator, total, o.node_rank * o.nproc + rank, o.devices_per_process,
                 o.heartbeat, int(o.timeout or 60)) for rank in range(o.nproc)]


def _start(role: Role, o: Options) -> subprocess.Popen:
    env = {**os.environ, **role.as_env()}
    cmd = [sys.executable, "-c", _WORKER, o.script, *o.args]
    return subprocess.Popen(cmd, env=env, start_new_session=True)


def _stop(procs: list[subprocess.Popen], grace: float) -> None:
    """SIGTERM every live process group, SIGKILL what is left after ``grace``."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        live = [p for p in procs if p.poll() is None]
        for p in live:
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while any(p.poll() is None for p in live) and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)


def _describe(code: int) -> str:
    if code < 0:
        return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


def launch(o: Options) -> None:
    """Run ``o.script`` in ``o.nproc`` processes; return when all succeed,
    raise ``LaunchError`` (after stopping the rest) when one fails."""
    roles = _roles(o)
    procs = [_start(role, o) for role in roles]
    deadline = None if o.timeout is None else time.monotonic() + o.timeout
    try:
        while True:
            codes = [p.poll() for p in procs]
            failed = [(r, c) for r, c in zip(roles, codes, strict=True) if c not in (None, 0)]
            if failed:
                role, code = failed[0]
                raise LaunchError(f"process {role.process_id} of {role.num_processes} "
                                  f"{_describe(code)}; stopping the others")
            if all(c == 0 for c in codes):
                return
            if deadline is not None and time.monotonic() > deadline:
                live = [r.process_id for r, c in zip(roles, codes, strict=True) if c is None]
                raise LaunchError(f"timed out after {o.timeout:g} s; processes {live} "
                                  "still running; stopping them")
            time.sleep(POLL_SECONDS)
    finally:
        _stop(procs, o.grace)


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    o = Options(a.nproc, a.script, tuple(a.args), a.devices_per_process, a.nnodes,
                a.node_rank, a.coordinator, a.timeout, a.grace, a.heartbeat)
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        launch(o)
    except LaunchError as exc:
        print(f"lazytensor.launch: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0
