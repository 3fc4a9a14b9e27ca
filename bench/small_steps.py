"""Small steps, side by side: where tracing and planning cost most.

Two workloads, each a step that ends in a barrier (a wait for the result):

- ``loop``: 25 iterations of ``x = tanh(x @ w * 0.5 + x)`` on 10x10 float32
  (100 recorded ops), the step of issue 23;
- ``mlp``: one SGD step of a 784-1024-1024-10 MLP on a batch of 128
  (forward, hand-written backward in the numpy-like frontends, autograd
  and ``torch.optim.SGD`` in torch).

Systems: ``jax.jit`` of the same source (the reference), numpy and torch
eager, and each lazytensor frontend traced at every step and with its
``capture`` decorator (the step replayed without its Python body). The
figure is the median over interleaved rounds of each round's ratio to
jax.jit; every system runs in its own worker pinned to one core.

Targets (issue 23): with capture <= 2x jax.jit on ``loop`` in every
frontend, <= 1.05x on ``mlp``; without, ``loop`` <= 12x (numpy) and <= 20x
(torch, tf), ``mlp`` <= 1.1x.

    python bench/small_steps.py [--rounds N] [--json out.json] [--quick] [--workload=loop|mlp]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import bench_args, compare, module_available  # noqa: E402

ITERATIONS, SIZE = 25, 10
LAYERS, BATCH, LR = (784, 1024, 1024, 10), 128, 0.01


def loop(np_like, x, w):
    for _ in range(ITERATIONS):
        x = np_like.tanh(x @ w * 0.5 + x)
    return x


def mlp_step(np_like, params, x, onehot, lr):
    """Forward, softmax cross-entropy, backward by hand, SGD: new params, loss."""
    w1, b1, w2, b2, w3, b3 = params
    t, total = np_like.transpose, np_like.sum
    h1 = np_like.maximum(x @ w1 + b1, 0.0)
    h2 = np_like.maximum(h1 @ w2 + b2, 0.0)
    z = h2 @ w3 + b3
    z = z - np_like.max(z, axis=1, keepdims=True)
    e = np_like.exp(z)
    p = e / total(e, axis=1, keepdims=True)
    loss = -total(onehot * np_like.log(p)) / BATCH
    dz = (p - onehot) / BATCH
    dh2 = np_like.where(h2 > 0, dz @ t(w3), 0.0)
    dh1 = np_like.where(h1 > 0, dh2 @ t(w2), 0.0)
    grads = (t(x) @ dh1, total(dh1, axis=0), t(h1) @ dh2, total(dh2, axis=0), t(h2) @ dz,
             total(dz, axis=0))
    return [p_ - lr * g for p_, g in zip(params, grads, strict=True)], loss


def host_inputs(workload: str):
    rng = np.random.default_rng(0)
    if workload == "loop":
        return (rng.standard_normal((SIZE, SIZE)).astype(np.float32),
                (rng.standard_normal((SIZE, SIZE)) * 0.1).astype(np.float32))
    params = []
    for fan_in, fan_out in zip(LAYERS[:-1], LAYERS[1:], strict=True):
        params += [(rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32),
                   np.zeros(fan_out, np.float32)]
    x = rng.standard_normal((BATCH, LAYERS[0])).astype(np.float32)
    onehot = np.eye(LAYERS[-1], dtype=np.float32)[rng.integers(0, LAYERS[-1], BATCH)]
    return params, x, onehot


def _numpy_like_step(np_like, asarray, workload: str, wrap=lambda f: f, finish=None):
    """A step of ``workload`` in a numpy-like namespace; ``wrap`` the step
    function (jax.jit, capture), ``finish`` waits for a result."""
    if workload == "loop":
        x0, w0 = host_inputs(workload)
        state = {"x": asarray(x0)}
        w = asarray(w0)
        body = wrap(lambda x: loop(np_like, x, w))

        def step():
            state["x"] = body(state["x"])
            finish(state["x"])
        return step
    params0, x0, onehot0 = host_inputs(workload)
    state = {"params": [asarray(p) for p in params0]}
    x, onehot = asarray(x0), asarray(onehot0)
    body = wrap(lambda params, x, onehot, lr: mlp_step(np_like, params, x, onehot, lr))

    def step():
        state["params"], loss = body(state["params"], x, onehot, LR)
        finish(loss)
    return step


# ------------------------------------------------------------------ systems
def setup_numpy(workload: str):
    return _numpy_like_step(np, np.asarray, workload, finish=lambda out: None)


def setup_jax(workload: str):
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)  # as lazytensor runs it
    return _numpy_like_step(jnp, jax.device_put, workload, wrap=jax.jit,
                            finish=jax.block_until_ready)


def _lazy_numpy(workload: str, captured: bool):
    import lazytensor.numpy as lnp
    from lazytensor.core import metrics

    def finish(out):
        if not captured:
            lnp.sync()
        out._h.value().block_until_ready()

    step = _numpy_like_step(lnp, lnp.asarray, workload, finish=finish,
                            wrap=lnp.capture if captured else (lambda f: f))
    return _with_info(step, metrics)


def setup_lazy_numpy(workload: str):
    return _lazy_numpy(workload, captured=False)


def setup_lazy_numpy_capture(workload: str):
    return _lazy_numpy(workload, captured=True)


def _lazy_tf(workload: str, captured: bool):
    import lazytensor.tf as ltf
    from lazytensor.core import metrics

    tnp = ltf.numpy

    def finish(out):
        if not captured:
            ltf.sync()
        out._h.value().block_until_ready()

    step = _numpy_like_step(tnp, tnp.asarray, workload, finish=finish,
                            wrap=ltf.capture if captured else (lambda f: f))
    return _with_info(step, metrics)


def setup_lazy_tf(workload: str):
    return _lazy_tf(workload, captured=False)


def setup_lazy_tf_capture(workload: str):
    return _lazy_tf(workload, captured=True)


def _torch_step(workload: str, device, wrap, finish):
    import torch

    torch.manual_seed(0)
    if workload == "loop":
        x0, w0 = host_inputs(workload)
        state = {"x": torch.from_numpy(x0).to(device)}
        w = torch.from_numpy(w0).to(device)
        body = wrap(lambda x: loop(torch, x, w))

        def step():
            state["x"] = body(state["x"])
            finish(state["x"])
        return step
    layers = []
    for fan_in, fan_out in zip(LAYERS[:-1], LAYERS[1:], strict=True):
        layers += [torch.nn.Linear(fan_in, fan_out), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1]).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    _, x0, onehot0 = host_inputs(workload)
    x = torch.from_numpy(x0).to(device)
    y = torch.from_numpy(onehot0.argmax(axis=1)).to(device)

    def train(x, y):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    body = wrap(train)

    def step():
        finish(body(x, y))
    return step


def setup_torch(workload: str):
    import torch

    torch.set_num_threads(1)
    return _torch_step(workload, "cpu", lambda f: f, lambda out: None)


def _lazy_torch(workload: str, captured: bool):
    import lazytensor.torch as lt
    import torch
    from lazytensor.core import metrics

    torch.set_num_threads(1)

    def finish(out):
        if not captured:
            lt.sync()
        lt.handle_of(out).value().block_until_ready()

    step = _torch_step(workload, lt.device(), lt.capture if captured else (lambda f: f), finish)
    return _with_info(step, metrics)


def setup_lazy_torch(workload: str):
    return _lazy_torch(workload, captured=False)


def setup_lazy_torch_capture(workload: str):
    return _lazy_torch(workload, captured=True)


def _with_info(step, metrics):
    metrics.reset()
    step.info = lambda: {k: v for k, v in metrics.as_dict()["counters"].items()
                         if k in ("cache_misses", "graphs_executed", "steps_traced",
                                  "steps_replayed")}
    return step


SYSTEMS = {
    "jax.jit": (setup_jax, "jax"),
    "numpy (eager)": (setup_numpy, "numpy"),
    "torch (eager)": (setup_torch, "torch"),
    "lazytensor.numpy": (setup_lazy_numpy, "lazytensor.numpy"),
    "lazytensor.numpy capture": (setup_lazy_numpy_capture, "lazytensor.numpy"),
    "lazytensor.torch": (setup_lazy_torch, "lazytensor.torch"),
    "lazytensor.torch capture": (setup_lazy_torch_capture, "lazytensor.torch"),
    "lazytensor.tf": (setup_lazy_tf, "lazytensor.tf"),
    "lazytensor.tf capture": (setup_lazy_tf_capture, "lazytensor.tf"),
}


def main() -> int:
    workloads = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--workload=")] \
        or ["loop", "mlp"]
    sys.argv = [a for a in sys.argv if not a.startswith("--workload=")]
    args = bench_args(__doc__.splitlines()[0], rounds=9)
    systems = {name: setup for name, (setup, module) in SYSTEMS.items()
               if module_available(module)}
    results = []
    for workload in workloads:
        result = compare(systems, params={"workload": workload}, rounds=args.rounds,
                         min_round_seconds=args.min_round_seconds, reference="jax.jit",
                         title=f"\n{workload}: one step, then a barrier")
        results.append(result.as_dict())
        for name, res in result.systems.items():
            if res.info:
                print(f"  {name}: {res.info}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
