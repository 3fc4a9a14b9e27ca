"""Data-parallel threads in every frontend: two threads, each training its
own small model with a barrier per step, at a small switch interval, give
bit for bit the weights of the same loops run one after the other, raise
nothing, and compile no graph structure that the sequential runs did not
(one thread's barrier never runs the other's half-recorded work; a graph
may compile again with other donated buffers, since a buffer that a
not-yet-collected reference cycle holds is not donated, and collections
come at other times when two threads allocate).

The short version runs in the default suite; ``LAZYTENSOR_SLOW=1`` runs
20 trials of 200 steps each."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest
from lazytensor.core import metrics, use_runtime

SHORT = {"trials": 2, "steps": 25}
LONG = {"trials": 20, "steps": 200}
SWITCH_INTERVAL = 1e-4
IN, OUT, BATCH, LR = 32, 16, 16, 0.05


def _init(seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((BATCH, IN)).astype(np.float32),
            (rng.standard_normal((IN, OUT)) * 0.1).astype(np.float32),
            np.zeros(OUT, np.float32))


def train_numpy(seed: int, steps: int) -> list[np.ndarray]:
    import lazytensor.numpy as lnp

    x, w, b = (lnp.asarray(a) for a in _init(seed))
    for _ in range(steps):
        out = x @ w + b
        grad = 2.0 * out / out.size  # of mean(out**2)
        w -= LR * (x.T @ grad)
        b -= LR * grad.sum(axis=0)
        lnp.sync()
    return [np.asarray(w), np.asarray(b)]


def train_torch(seed: int, steps: int, captured: bool = False) -> list[np.ndarray]:
    import lazytensor.torch as lt
    import torch

    x, w, b = _init(seed)
    model = torch.nn.Linear(IN, OUT)
    with torch.no_grad():
        model.weight.copy_(torch.from_numpy(w.T.copy()))
        model.bias.copy_(torch.from_numpy(b))
    model = model.to(lt.device())
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x = torch.from_numpy(x).to(lt.device())

    def step(x):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()

    step = lt.capture(step) if captured else step  # one captured step per thread
    for _ in range(steps):
        step(x)
        lt.mark_step()
    return [p.detach().cpu().numpy() for p in model.parameters()]


def train_torch_captured(seed: int, steps: int) -> list[np.ndarray]:
    return train_torch(seed, steps, captured=True)


def train_tf(seed: int, steps: int) -> list[np.ndarray]:
    import lazytensor.tf as ltf
    import lazytensor.tf.numpy as tnp

    x, w, b = _init(seed)
    x, params = tnp.asarray(x), [ltf.Variable(w), ltf.Variable(b)]
    for _ in range(steps):
        with ltf.GradientTape() as tape:
            loss = tnp.mean((tnp.matmul(x, params[0]) + params[1]) ** 2)
        for p, g in zip(params, tape.gradient(loss, params), strict=True):
            p.assign_sub(LR * g)
        ltf.sync()
    return [p.numpy() for p in params]


TRAIN = {"numpy": train_numpy, "torch": train_torch, "torch-captured": train_torch_captured,
         "tf": train_tf}
NEEDS = {"numpy": None, "torch": "torch", "torch-captured": "torch", "tf": "tensorflow"}


def _in_threads(train, seeds: tuple[int, ...], steps: int) -> dict:
    """``train(seed, steps)`` for each seed, each in its own thread."""
    results: dict = {}

    def run(seed: int) -> None:
        try:
            results[seed] = train(seed, steps)
        except BaseException as error:  # reported by the test, not lost in the thread
            results[seed] = error

    threads = [threading.Thread(target=run, args=(s,)) for s in seeds]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    return results


def check_threads_match_sequential(frontend: str, trials: int, steps: int) -> None:
    if NEEDS[frontend]:
        pytest.importorskip(NEEDS[frontend])
    train, seeds = TRAIN[frontend], (1, 2)
    with use_runtime():  # (the active runtime is the process's: both threads use this one)
        expected = {s: train(s, steps) for s in seeds}
        seen = len(metrics.as_dict()["cache_miss_reasons"])
        replayed = metrics.as_dict()["counters"].get("steps_replayed", 0)
        _check_trials(train, seeds, steps, trials, expected)
        new = metrics.as_dict()["cache_miss_reasons"][seen:]
        replayed = metrics.as_dict()["counters"].get("steps_replayed", 0) - replayed
    assert all(reason == "same graph, different donated parameters" for reason in new), new
    if frontend.endswith("captured"):  # each thread traces and replays its own step
        assert replayed > 0


def _check_trials(train, seeds, steps, trials, expected) -> None:
    for trial in range(trials):
        results = _in_threads(train, seeds, steps)
        for seed in seeds:
            got = results[seed]
            if isinstance(got, BaseException):
                raise AssertionError(f"trial {trial}, thread {seed} raised") from got
            for g, e in zip(got, expected[seed], strict=True):
                np.testing.assert_array_equal(g, e, err_msg=f"trial {trial}, thread {seed}")


@pytest.mark.parametrize("frontend", sorted(TRAIN))
def test_two_threads_train_as_if_one_after_the_other(frontend):
    check_threads_match_sequential(frontend, **SHORT)


@pytest.mark.slow(reason="20 trials of 200 steps in two threads: about a minute per frontend")
@pytest.mark.parametrize("frontend", sorted(TRAIN))
def test_two_threads_train_as_if_one_after_the_other_long(frontend):
    check_threads_match_sequential(frontend, **LONG)
