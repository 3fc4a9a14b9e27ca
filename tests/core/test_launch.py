"""``python -m lazytensor.launch``: two processes over 2 virtual CPU devices
each run a data-parallel program and agree with one process; a killed peer
or a hung run fails the launch with a clear error in bounded time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from lazytensor.launch.launcher import LaunchError, Options, _roles
from lazytensor.launch.worker import Role

PROGRAM = str(Path(__file__).resolve().parent / "launch_program.py")
LAUNCH = [sys.executable, "-m", "lazytensor.launch", "--nproc", "2", "--devices-per-process", "2",
          "--grace", "2", "--heartbeat", "5"]


def _run(cmd: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=os.environ)


def test_two_processes_agree_with_one(tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    done = _run([sys.executable, PROGRAM, str(one)])
    assert done.returncode == 0, done.stderr[-2000:]
    done = _run([*LAUNCH, "--timeout", "100", PROGRAM, str(two)])
    assert done.returncode == 0, done.stderr[-2000:]
    a, b = json.loads(one.read_text()), json.loads(two.read_text())
    assert (a["devices"], b["devices"]) == (1, 4)
    for key in ("losses", "w1", "w2", "x"):  # (x: split over both processes, gathered)
        np.testing.assert_allclose(b[key], a[key], rtol=1e-5, atol=1e-6)


def test_a_killed_peer_fails_the_run_in_bounded_time(tmp_path):
    start = time.monotonic()
    done = _run([*LAUNCH, "--timeout", "60", PROGRAM, str(tmp_path / "x.json"), "--die-at", "2"])
    assert done.returncode == 1
    assert "process 1 of 2 was killed by SIGKILL; stopping the others" in done.stderr
    assert time.monotonic() - start < 60
    assert not (tmp_path / "x.json").exists()


def test_a_hung_run_times_out(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text("import time\ntime.sleep(600)\n")
    start = time.monotonic()
    done = _run([*LAUNCH, "--timeout", "3", str(script)])
    assert done.returncode == 1
    assert "timed out after 3 s; processes [0, 1] still running" in done.stderr
    assert time.monotonic() - start < 30


def test_machines_map_to_process_ids():
    roles = _roles(Options(2, "s.py", (), nnodes=3, node_rank=1, coordinator="10.0.0.1:1234"))
    assert [(r.coordinator, r.num_processes, r.process_id) for r in roles] == [
        ("10.0.0.1:1234", 6, 2), ("10.0.0.1:1234", 6, 3)]
    assert Role.from_env(roles[1].as_env()) == roles[1]
    assert Role.from_env({}) is None
    with pytest.raises(LaunchError, match="--coordinator"):
        _roles(Options(2, "s.py", (), nnodes=2))
