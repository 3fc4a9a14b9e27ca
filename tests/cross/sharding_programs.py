"""Programs that the sharding tests run on 4 virtual CPU devices, in a
subprocess of their own (JAX fixes its device count when its backend
starts; the rest of the suite runs on one device). ``python
sharding_programs.py`` runs every case and prints one JSON object: per case,
its figures (largest differences, recompiles, layouts, collectives)."""

from __future__ import annotations

import json
import os
import sys

import numpy as np

DEVICES = 4
STEPS = 20
F32 = np.float32


def _batches(steps: int, batch: int = 16, n_in: int = 8, n_out: int = 4):
    rng = np.random.default_rng(0)
    return [(rng.normal(size=(batch, n_in)).astype(F32),
             rng.normal(size=(batch, n_out)).astype(F32)) for _ in range(steps)]


def _misses():
    from lazytensor.core import get_runtime

    return get_runtime().metrics.counters["cache_misses"]


def _core_view(x, y) -> dict:
    """What the core shows of a sharded value: its IR dump, whether its
    layout is in the structural key, why a graph over it recompiled, and
    how many buffers the steps donated."""
    from lazytensor.core import Handle, Op, debug, get_runtime, make

    metrics = get_runtime().metrics
    pending = Handle(make(Op.NEG, (x.node,)))
    return {"dump": debug.dump(pending), "key_differs": x.node.key != y.node.key,
            "miss_reasons": list(metrics.miss_reasons),
            "donated": metrics.counters["donated_buffers"]}


def torch_data_parallel(devices: int, steps: int = STEPS) -> dict:
    """A torch MLP trained with SGD + momentum, the batch split over ``devices``."""
    import lazytensor.torch as lt
    import torch

    dev = lt.device()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(),
                                torch.nn.Linear(16, 4)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    mesh = lt.Mesh(range(devices), (devices,), ("data",))
    losses, misses = [], 0
    for step, (xb, yb) in enumerate(_batches(steps)):
        x, y = torch.tensor(xb, device=dev), torch.tensor(yb, device=dev)
        lt.mark_sharding(x, mesh, ("data", None))
        lt.mark_sharding(y, mesh, ("data", None))
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        lt.mark_step()
        losses.append(loss.item())
        if step == 1:
            misses = _misses()
    return {"losses": losses, "params": [lt.to_cpu(p).numpy().tolist() for p in model.parameters()],
            "recompiles_after_step_2": _misses() - misses,
            "batch_layout": repr(lt.handle_of(x).node.attrs)}


def numpy_data_parallel(devices: int, steps: int = STEPS) -> dict:
    """A numpy MLP with its gradients written out, updated in place."""
    import lazytensor.numpy as lnp

    mesh = lnp.Mesh(range(devices), (devices,), ("data",))
    rng = np.random.default_rng(1)
    w1 = lnp.asarray((rng.normal(size=(8, 16)) * 0.3).astype(F32))
    w2 = lnp.asarray((rng.normal(size=(16, 4)) * 0.3).astype(F32))
    b1, b2 = lnp.zeros(16, F32), lnp.zeros(4, F32)
    losses, misses = [], 0
    for step, (xb, yb) in enumerate(_batches(steps)):
        x = lnp.shard(lnp.asarray(xb), mesh, ("data", None))
        y = lnp.shard(lnp.asarray(yb), mesh, ("data", None))
        h = lnp.tanh(x @ w1 + b1)
        d = h @ w2 + b2 - y
        loss = (d ** 2).mean()
        g = d * F32(2.0 / d.size)
        gh = (g @ w2.T) * (1 - h ** 2)
        w2 -= F32(0.1) * (h.T @ g)
        b2 -= F32(0.1) * g.sum(axis=0)
        w1 -= F32(0.1) * (x.T @ gh)
        b1 -= F32(0.1) * gh.sum(axis=0)
        lnp.sync()
        losses.append(float(loss))
        if step == 1:
            misses = _misses()
    unsharded = lnp.asarray(xb)
    return {"losses": losses, "params": [np.asarray(p).tolist() for p in (w1, b1, w2, b2)],
            "recompiles_after_step_2": _misses() - misses,
            "batch_layout": repr(x._h.node.attrs), **_core_view(x._h, unsharded._h)}


def torch_tensor_parallel(devices: int, steps: int = 3) -> dict:
    """Megatron's MLP: the first layer split by output features (column
    parallel), the second by input features (row parallel): one all-reduce
    of the second layer's partial sums in the forward pass."""
    import lazytensor.torch as lt
    import torch
    from lazytensor.core import get_runtime

    dev = lt.device()
    torch.manual_seed(0)
    fc1, fc2 = torch.nn.Linear(8, 32).to(dev), torch.nn.Linear(32, 8).to(dev)
    mesh = lt.Mesh(range(devices), (1, devices), ("data", "model"))
    if devices > 1:
        lt.mark_sharding(fc1.weight, mesh, ("model", None))
        lt.mark_sharding(fc1.bias, mesh, ("model",))
        lt.mark_sharding(fc2.weight, mesh, (None, "model"))
    params = [fc1.weight, fc1.bias, fc2.weight, fc2.bias]
    opt = torch.optim.SGD(params, lr=0.05, momentum=0.9)
    losses, state_layouts = [], []
    for xb, yb in _batches(steps, n_out=8):
        x, y = torch.tensor(xb, device=dev), torch.tensor(yb, device=dev)
        loss = ((fc2(torch.relu(fc1(x))) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        lt.mark_step()
        losses.append(loss.item())
        state_layouts.append([repr(lt.handle_of(opt.state[p]["momentum_buffer"]).node.attrs)
                              for p in params])
    hlo = "\n".join(e.compiled.as_text() for e in get_runtime().cache.entries.values())
    return {"losses": losses, "params": [lt.to_cpu(p).detach().numpy().tolist() for p in params],
            "all_reduce": "all-reduce" in hlo,
            "layouts": [repr(lt.handle_of(p).node.attrs) for p in params],
            "state_layouts": state_layouts}


def tf_variables(devices: int) -> dict:
    """tnp Variables sharded, updated with assign_sub, keep their layout."""
    import lazytensor.tf as ltf

    mesh = ltf.Mesh(range(devices), (devices,), ("data",))
    v = ltf.Variable(np.arange(32, dtype=F32).reshape(8, 4))
    ltf.shard(v, mesh, ("data", None))
    for _ in range(3):
        v.assign_sub(ltf.numpy.ones((8, 4), F32))
        ltf.sync()
    return {"value": np.asarray(v.numpy()).tolist(), "layout": repr(ltf.handle_of(v).node.attrs)}


CASES = {
    "torch_data_parallel": torch_data_parallel,
    "numpy_data_parallel": numpy_data_parallel,
    "torch_tensor_parallel": torch_tensor_parallel,
    "tf_variables": tf_variables,
}


def main(names: list[str]) -> None:
    import jax

    jax.config.update("jax_num_cpu_devices", DEVICES)
    from lazytensor.core import use_runtime

    results = {}
    for name in names or CASES:
        results[name] = {}
        for devices in (1, DEVICES):
            with use_runtime():
                results[name][devices] = CASES[name](devices)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    os.environ.setdefault("LAZYTENSOR_GC_FREEZE", "0")
    main(sys.argv[1:])
