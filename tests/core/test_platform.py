"""``LAZYTENSOR_PLATFORM`` picks JAX's platform before its backend starts
(in a subprocess: this process's backend is already running)."""

from __future__ import annotations

import os
import subprocess
import sys

PROGRAM = ("import lazytensor.numpy as lnp, jax; "
           "print(float(lnp.ones(3).sum()), jax.devices()[0].platform)")


def _run(platform: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "LAZYTENSOR_PLATFORM": platform}
    env.pop("JAX_PLATFORMS", None)
    return subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_platform_named_is_used():
    done = _run("cpu")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["3.0", "cpu"]


def test_a_platform_not_present_is_jaxs_error():
    done = _run("nonesuch")
    assert done.returncode != 0
    assert "nonesuch" in done.stderr.splitlines()[-1]
