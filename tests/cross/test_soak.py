"""Long runs in every frontend: a small model trained step after step, with
a barrier per step, keeps flat memory (the process's resident size grows by
less than a fixed slack after the warm-up) and compiles nothing after its
second step. The default suite runs a short version; ``LAZYTENSOR_SLOW=1``
runs 2,000 steps per frontend."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from lazytensor.core import metrics, use_runtime

SHORT_STEPS, LONG_STEPS = 40, 2_000
WARM_UP = 10  # steps before the memory baseline (allocator pools settle)
SLACK_BYTES = 48 << 20
IN, OUT, BATCH, LR = 32, 16, 64, 0.01


def _data() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    return (rng.standard_normal((BATCH, IN)).astype(np.float32),
            (rng.standard_normal((IN, OUT)) * 0.1).astype(np.float32),
            np.zeros(OUT, np.float32))


def numpy_step():
    import lazytensor.numpy as lnp

    x, w, b = (lnp.asarray(a) for a in _data())

    def step() -> None:
        nonlocal w, b
        out = np.tanh(x @ w + b)
        grad = 2.0 * out * (1.0 - out * out) / out.size
        w = w - LR * (x.T @ grad)
        b = b - LR * grad.sum(axis=0)
        lnp.sync()

    return step


def torch_step():
    import lazytensor.torch as lt
    import torch

    x, _, _ = _data()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(IN, OUT), torch.nn.Tanh()).to(lt.device())
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    x = torch.from_numpy(x).to(lt.device())

    def step() -> None:
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        lt.mark_step()

    return step


def tf_step():
    import lazytensor.tf as ltf
    import lazytensor.tf.numpy as tnp

    x, w, b = _data()
    x, params = tnp.asarray(x), [ltf.Variable(w), ltf.Variable(b)]

    def step() -> None:
        with ltf.GradientTape() as tape:
            loss = tnp.mean(tnp.tanh(tnp.matmul(x, params[0]) + params[1]) ** 2)
        for p, g in zip(params, tape.gradient(loss, params), strict=True):
            p.assign_sub(LR * g)
        ltf.sync()

    return step


STEPS = {"numpy": numpy_step, "torch": torch_step, "tf": tf_step}
NEEDS = {"numpy": None, "torch": "torch", "tf": "tensorflow"}


def _resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _page_size()


def _page_size() -> int:
    import os

    return os.sysconf("SC_PAGE_SIZE")


def check_soak(frontend: str, steps: int) -> None:
    if NEEDS[frontend]:
        pytest.importorskip(NEEDS[frontend])
    with use_runtime():
        step = STEPS[frontend]()
        for i in range(steps):
            step()
            if i == 1:
                compiles = metrics.as_dict()["counters"]["cache_misses"]
            if i == WARM_UP:
                gc.collect()
                baseline = _resident_bytes()
        gc.collect()
        grown = _resident_bytes() - baseline
        counters = metrics.as_dict()["counters"]
    assert counters["cache_misses"] == compiles, metrics.as_dict()["cache_miss_reasons"]
    assert grown < SLACK_BYTES, f"resident memory grew {grown / 2**20:.1f} MB in {steps} steps"


@pytest.fixture(autouse=True)
def _linux_only():
    try:
        _resident_bytes()
    except OSError:
        pytest.skip("reads /proc/self/statm")


@pytest.mark.parametrize("frontend", sorted(STEPS))
def test_a_long_run_keeps_flat_memory_and_compiles_nothing_after_step_two(frontend):
    check_soak(frontend, SHORT_STEPS)


@pytest.mark.slow(reason="2,000 training steps per frontend: 10-40 s each")
@pytest.mark.parametrize("frontend", sorted(STEPS))
def test_two_thousand_steps_keep_flat_memory_and_compile_nothing_after_step_two(frontend):
    check_soak(frontend, LONG_STEPS)
