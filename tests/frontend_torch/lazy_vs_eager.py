"""Helpers for the program tests: run a program (a function of the device)
eagerly on the CPU and lazily from the same seed, and compare everything it
returns (tensors by dtype, shape and value; other values by ==); and the
step helpers of training programs (``train_step``, ``steady``, ``step_mark``)
that check that later steps neither recompile nor fall back."""

from __future__ import annotations

import lazytensor.torch as lt
import torch
from lazytensor.core import get_runtime
from torch import nn

from .conftest import DEV


def compare(expected, actual, rtol: float, atol: float, where: str = "out") -> None:
    """``actual`` (from the lazy run) equals ``expected`` (eager), recursively:
    tensors by dtype, shape and value; everything else by ==."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and expected.keys() == actual.keys(), where
        for key in expected:
            compare(expected[key], actual[key], rtol, atol, f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), where
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            compare(e, a, rtol, atol, f"{where}[{i}]")
    elif isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor), f"{where}: {type(actual)}"
        got = actual.detach().cpu()
        assert got.dtype == expected.dtype, f"{where}: {got.dtype} != {expected.dtype}"
        assert got.shape == expected.shape, f"{where}: {got.shape} != {expected.shape}"
        torch.testing.assert_close(got, expected.detach(), rtol=rtol, atol=atol,
                                   equal_nan=True, msg=lambda m: f"{where}: {m}")
    elif isinstance(expected, float):
        assert isinstance(actual, float), f"{where}: {type(actual)}"
        assert abs(actual - expected) <= atol + rtol * abs(expected), (where, actual, expected)
    else:
        assert type(actual) is type(expected) and actual == expected, (where, actual, expected)


def same_on_both(program, rtol: float = 1e-5, atol: float = 1e-5, seed: int = 0):
    """Run ``program(device)`` eagerly and lazily from the same seed and
    compare; returns the lazy result."""
    torch.manual_seed(seed)
    eager = program(torch.device("cpu"))
    torch.manual_seed(seed)
    lazy = program(DEV)
    compare(eager, lazy, rtol, atol)
    return lazy


def fallbacks() -> int:
    return get_runtime().metrics.counters["eager_fallbacks"]


def same_without_fallback(program, rtol: float = 1e-5, atol: float = 1e-5, seed: int = 0):
    """``same_on_both``, and the lazy run falls back to eager nowhere."""
    start = fallbacks()
    lazy = same_on_both(program, rtol, atol, seed)
    assert fallbacks() == start
    return lazy


def digits(n: int = 256):
    from sklearn.datasets import load_digits

    data = load_digits()
    x = torch.tensor(data.data[:n], dtype=torch.float32) / 16.0
    return x, torch.tensor(data.target[:n])


def weights(model: nn.Module) -> dict:
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}


def _outcomes(calls) -> list:
    """Each call as (dtype, CPU tensor) or its error (type, message)."""
    results = []
    for call in calls:
        try:
            value = call()
            results.append((value.dtype, value.cpu()))
        except (RuntimeError, NotImplementedError, TypeError, IndexError) as error:
            results.append((type(error), str(error)))
    return results


def same_outcomes(program) -> None:
    """``program(device)`` returns calls (error cases, mostly): each gives
    the same dtype and values, or the same error type and message, on the
    CPU and on the lazy device."""
    eager, lazy = (_outcomes(program(dev)) for dev in (torch.device("cpu"), DEV))
    for e, a in zip(eager, lazy, strict=True):
        assert a[0] == e[0]
        assert torch.equal(a[1], e[1]) if isinstance(e[1], torch.Tensor) else a[1] == e[1]


def counters() -> dict:
    c = get_runtime().metrics.counters
    return {k: c[k] for k in ("cache_misses", "eager_fallbacks")}


def steady(dev, first: dict | None) -> dict | None:
    """On the lazy device: the counters now (first call) or a check that
    they did not move since ``first`` (later calls)."""
    if dev != DEV:
        return None
    if first is None:
        return counters()
    assert counters() == first, (counters(), first, get_runtime().metrics.miss_reasons[-3:])
    return first


def step_mark(dev) -> None:
    if dev == DEV:
        lt.mark_step()


def train_step(opt, loss, dev, out: list, step: int, first: dict | None,
               settled: int) -> dict | None:
    """A program's optimizer step: backward, step, mark_step on the lazy
    device, the detached loss kept in ``out``; from step ``settled`` on, a
    check that the step compiled and ran nothing new (``steady``)."""
    opt.zero_grad()
    loss.backward()
    opt.step()
    step_mark(dev)
    out.append(loss.detach())
    return steady(dev, first) if step >= settled else first
