"""A data-parallel MLP training step over 4 virtual CPU devices, side by
side in one run: lazytensor.torch and lazytensor.numpy against jax.jit with
the same shardings (batch split on a ``data`` axis, weights replicated),
and each on 1 device.

- MLP 256-512-512-10 (tanh), batch 256, MSE loss, plain SGD (lr 0.01).
- torch: nn.Linear layers and autograd; ``mark_sharding`` of each batch.
- numpy: the same math with its gradients written out, weights updated in
  place; ``shard`` of each batch.
- jax.jit: ``value_and_grad`` of the same loss, ``in_shardings`` /
  ``out_shardings`` as above, weights donated.

Each step shards a fresh host batch and ends by reading the loss. All
systems are pinned to one core (``_harness``), so 4 devices split one
core's time: 4-device/1-device is the cost of partitioning (collectives,
per-device dispatch), not a speed-up.

    python bench/shard.py [--rounds N] [--json out.json] [--quick]

Target (issue 26): lazytensor within 1.15x of jax.jit on 4 devices.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import bench_args, compare  # noqa: E402

TARGET = 1.15
SIZES, BATCH, LR = (256, 512, 512, 10), 256, 0.01


def _devices(devices: int) -> None:
    import jax

    jax.config.update("jax_num_cpu_devices", devices)


def weights() -> list[np.ndarray]:
    """(w, b) per layer, w as (in, out)."""
    rng = np.random.default_rng(0)
    out = []
    for a, b in zip(SIZES[:-1], SIZES[1:], strict=True):
        out += [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32),
                np.zeros(b, np.float32)]
    return out


def batch() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    return (rng.standard_normal((BATCH, SIZES[0])).astype(np.float32),
            rng.standard_normal((BATCH, SIZES[-1])).astype(np.float32))


def setup_torch(devices: int):
    _devices(devices)
    import lazytensor.torch as lt
    import torch

    torch.set_num_threads(1)
    dev = lt.device()
    layers = []
    for w, b in zip(*[iter(weights())] * 2, strict=True):
        layer = torch.nn.Linear(*w.shape)
        with torch.no_grad():
            layer.weight.copy_(torch.from_numpy(w.T.copy()))
            layer.bias.copy_(torch.from_numpy(b))
        layers += [layer, torch.nn.Tanh()]
    model = torch.nn.Sequential(*layers[:-1]).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    mesh = lt.Mesh(range(devices), (devices,), ("data",))
    xb, yb = (torch.from_numpy(a) for a in batch())

    def step() -> float:
        x, y = xb.to(dev), yb.to(dev)
        lt.mark_sharding(x, mesh, ("data", None))
        lt.mark_sharding(y, mesh, ("data", None))
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        lt.mark_step()
        return loss.item()

    return step


def setup_numpy(devices: int):
    _devices(devices)
    import lazytensor.numpy as lnp

    params = [lnp.asarray(p) for p in weights()]
    mesh = lnp.Mesh(range(devices), (devices,), ("data",))
    xb, yb = batch()
    lr = np.float32(LR)

    def step() -> float:
        x = lnp.shard(lnp.asarray(xb), mesh, ("data", None))
        y = lnp.shard(lnp.asarray(yb), mesh, ("data", None))
        acts = [x]
        for i in range(0, len(params), 2):
            z = acts[-1] @ params[i] + params[i + 1]
            acts.append(lnp.tanh(z) if i + 2 < len(params) else z)
        d = acts[-1] - y
        loss = (d ** 2).mean()
        g = d * np.float32(2.0 / d.size)
        for i in range(len(params) - 2, -1, -2):
            gw, gb = acts[i // 2].T @ g, g.sum(axis=0)
            if i:
                g = (g @ params[i].T) * (1 - acts[i // 2] ** 2)
            params[i] -= lr * gw
            params[i + 1] -= lr * gb
        lnp.sync()
        return float(loss)

    return step


def jax_loss(params, x, y):
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            import jax.numpy as jnp

            h = jnp.tanh(h)
    return ((h - y) ** 2).mean()


def setup_jax(devices: int):
    _devices(devices)
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(jax.devices()[:devices]), ("data",))
    split, whole = NamedSharding(mesh, PartitionSpec("data", None)), NamedSharding(mesh,
                                                                                 PartitionSpec())
    grad = jax.value_and_grad(jax_loss)

    def update(params, x, y):
        loss, grads = grad(params, x, y)
        return [p - LR * g for p, g in zip(params, grads, strict=True)], loss

    n = len(SIZES[1:]) * 2
    jitted = jax.jit(update, in_shardings=([whole] * n, split, split),
                     out_shardings=([whole] * n, whole), donate_argnums=(0,))
    box = {"params": [jax.device_put(p, whole) for p in weights()]}
    xb, yb = batch()

    def step() -> float:
        x, y = jax.device_put(xb, split), jax.device_put(yb, split)
        box["params"], loss = jitted(box["params"], x, y)
        return float(loss)

    return step


def check(steps: int = 3) -> None:
    """Every system follows jax.jit on one device."""
    runs = {name: fn(1) for name, fn in (("jax", setup_jax), ("torch", setup_torch),
                                          ("numpy", setup_numpy))}
    for _ in range(steps):
        losses = {name: step() for name, step in runs.items()}
        if not all(np.isclose(v, losses["jax"], rtol=1e-4) for v in losses.values()):
            raise AssertionError(f"losses differ: {losses}")


SYSTEMS = {"jax.jit": setup_jax, "lazytensor.torch": setup_torch,
           "lazytensor.numpy": setup_numpy}


def main() -> int:
    args = bench_args(__doc__.splitlines()[0])
    check()
    results = {}
    for devices in (1, 4):
        comparison = compare(
            {f"{name} {devices}dev": SYSTEMS[name] for name in SYSTEMS},
            params={"devices": devices}, rounds=args.rounds,
            min_round_seconds=args.min_round_seconds, reference=f"jax.jit {devices}dev",
            title=f"\ndata-parallel MLP 256-512-512-10, batch 256, SGD, {devices} device(s)")
        results[devices] = comparison
    for name in ("lazytensor.torch", "lazytensor.numpy"):
        four = results[4].ratio(f"{name} 4dev", "jax.jit 4dev")
        one = results[1].ratio(f"{name} 1dev", "jax.jit 1dev")
        print(f"{name} / jax.jit: {four:.2f}x on 4 devices (target <= {TARGET}x), "
              f"{one:.2f}x on 1 device")
    for name in SYSTEMS:
        t1 = results[1].systems[f"{name} 1dev"].median
        t4 = results[4].systems[f"{name} 4dev"].median
        print(f"{name}: 4 devices / 1 device = {t4 / t1:.2f}x step time")
    if args.json:
        Path(args.json).write_text(json.dumps({d: c.as_dict() for d, c in results.items()},
                                              indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
