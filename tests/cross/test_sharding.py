"""Sharding through every frontend: data parallel and tensor parallel
training on 4 virtual CPU devices equal one device (run once, in a
subprocess: ``sharding_programs.py``), and a bad spec is each frontend's own
error, raised at the call (in this process: a spec is checked before any
device is touched)."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

# meant to keep the module on one xdist worker (--dist loadgroup); pytest-xdist
# 3.8 under pytest 9 ignores the group, so the fixture below shares one run of
# the sharding programs between workers through a file lock
pytestmark = pytest.mark.xdist_group("test_sharding")


HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    """The programs' figures, computed once per test session: pytest-xdist's
    workers share one run through a file under their common temp directory."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    path = shared / "sharding_programs.json"
    with open(shared / "sharding_programs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            done = subprocess.run([sys.executable, str(HERE / "sharding_programs.py")],
                                  env=os.environ, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr[-3000:]
            path.write_text(done.stdout)
    return json.loads(path.read_text())


def _close(one, many, tol=1e-5) -> None:
    for a, b in zip(one, many, strict=True):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", ["torch_data_parallel", "numpy_data_parallel"])
def test_data_parallel_over_four_devices_equals_one(results, case):
    one, four = results[case]["1"], results[case]["4"]
    _close(one["losses"], four["losses"])
    _close(one["params"], four["params"])
    assert four["batch_layout"] == "(Sharding({data=4}, ('data', None)),)"
    assert four["recompiles_after_step_2"] == 0
    assert one["recompiles_after_step_2"] == 0


def test_the_layout_is_ir_data(results):
    """In the structural key, in the IR dump, in the reason for a recompile;
    the in-place updates of sharded steps still donate their buffers."""
    four = results["numpy_data_parallel"]["4"]
    assert four["key_differs"]
    assert "parameter 0 : float32[16,8] sharded Sharding({data=4}, ('data', None))" \
        in four["dump"]
    assert any("sharded Sharding({data=4}" in reason for reason in four["miss_reasons"])
    assert four["donated"] > 0


def test_tensor_parallel_megatron_mlp(results):
    one, four = results["torch_tensor_parallel"]["1"], results["torch_tensor_parallel"]["4"]
    _close(one["losses"], four["losses"])
    _close(one["params"], four["params"])
    assert four["all_reduce"] and not one["all_reduce"]
    # parameters keep their layout through the optimizer's in-place updates
    assert four["layouts"][:3] == [
        "(Sharding({data=1, model=4}, ('model', None)),)",
        "(Sharding({data=1, model=4}, ('model',)),)",
        "(Sharding({data=1, model=4}, (None, 'model')),)",
    ]
    # and the optimizer's momentum buffers hold their parameter's layout at every step
    assert four["state_layouts"] == [four["layouts"]] * 3


def test_tf_variables_keep_their_layout(results):
    one, four = results["tf_variables"]["1"], results["tf_variables"]["4"]
    assert one["value"] == four["value"]
    assert four["layout"] == "(Sharding({data=4}, ('data', None)),)"


# ---------------------------------------------------------------- bad specs
def _torch():
    import lazytensor.torch as lt
    import torch

    return lt.Mesh, lambda: torch.ones(4, 2, device=lt.device()), lt.mark_sharding, RuntimeError


def _numpy():
    import lazytensor.numpy as lnp

    return lnp.Mesh, lambda: lnp.ones((4, 2)), lnp.shard, ValueError


def _tf():
    import lazytensor.tf as ltf
    import tensorflow as tf

    return (ltf.Mesh, lambda: ltf.numpy.ones((4, 2)), ltf.shard,
            tf.errors.InvalidArgumentError)


# frontend -> (Mesh, a lazy 4x2 array, its sharding call, its error type)
FRONTENDS = {"torch": _torch, "numpy": _numpy, "tf": _tf}
BAD_SPECS = {
    "rank mismatch": (("data",), "has 1 entries for a value of rank 2"),
    "unknown axis": (("data", "model"), "names axis 'model', which the mesh"),
    "axis twice": (("data", "data"), "uses a mesh axis twice"),
}


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("bad", BAD_SPECS)
def test_bad_spec_raises_the_frontends_error(frontend, bad):
    mesh_type, make, shard, error = FRONTENDS[frontend]()
    spec, message = BAD_SPECS[bad]
    with pytest.raises(error, match=message):
        shard(make(), mesh_type([0], (1,), ("data",)), spec)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_a_good_spec_on_one_device_keeps_the_value(frontend):
    mesh_type, make, shard, _ = FRONTENDS[frontend]()
    x = make()
    assert shard(x, mesh_type([0], (1,), ("data",)), ("data", None)) is x
    assert np.asarray(x.cpu() if hasattr(x, "cpu") else x).sum() == 8


DISK_CACHE_PROGRAM = """
import jax
jax.config.update("jax_num_cpu_devices", 4)
import numpy as np, lazytensor.numpy as lnp
mesh = lnp.Mesh(range(4), (4,), ("data",))
a = lnp.arange(16.0).reshape(8, 2)
plain = float((a * 2).sum())                      # a graph on one device
b = lnp.shard(lnp.arange(16.0).reshape(8, 2), mesh, ("data", None))
split = float((b * 3).sum())                      # a graph over 4 devices
print(plain, split)
"""


def test_executables_load_from_the_disk_cache_on_their_devices(tmp_path):
    """A process with 4 devices loads each stored executable onto the
    devices it was compiled for (JAX's default: every device, so a
    one-device graph expected 4 shards of each argument)."""
    env = {**os.environ, "LAZYTENSOR_CACHE": "1", "LAZYTENSOR_CACHE_DIR": str(tmp_path),
           "LAZYTENSOR_CACHE_MIN_COMPILE_SECONDS": "0"}
    outputs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", DISK_CACHE_PROGRAM], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        outputs.append(done.stdout.split())
    assert outputs[0] == outputs[1] == ["240.0", "360.0"]
    assert len(list(tmp_path.glob("*.ltx"))) >= 2
