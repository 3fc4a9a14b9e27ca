"""Capture and replay of a step (``capture`` in each frontend, one core
mechanism: ``lazytensor.core.capture``): replayed training equals traced
training step by step; each failed guard re-traces and is named; a body that
reads a value is never replayed, and says where; a replayed call that fails
leaves the state as it was; no compile after the second step."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from lazytensor.core import get_runtime, use_runtime

from tests.cross.capture_programs import TRAIN

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

FRAMEWORK = {"numpy": "numpy", "torch": "torch", "tf": "tensorflow"}


def needs(frontend: str):
    return pytest.mark.skipif(importlib.util.find_spec(FRAMEWORK[frontend]) is None,
                              reason=f"{FRAMEWORK[frontend]} is not installed")


CASES = [pytest.param(f, o, marks=needs(f), id=f"{f}-{o}")
         for f in ("numpy", "torch", "tf") for o in ("sgd", "adam")]
CASES += [pytest.param("torch", o, marks=needs("torch"), id=f"torch-{o}")
          for o in ("adamw", "adam-fused")]  # torch's "adam", "adamw": its default settings


def counters() -> dict:
    return get_runtime().metrics.counters


@pytest.mark.parametrize(("frontend", "optimizer"), CASES)
def test_replayed_training_equals_traced_training(frontend, optimizer):
    """20 steps (momentum and weight decay or Adam, a learning rate that a
    schedule changes, running statistics, dropout under a fixed seed in
    torch and tf): the same losses and final state, most steps replayed,
    and no compile after the second step in either run."""
    with use_runtime():
        traced_losses, traced_state = TRAIN[frontend](optimizer, False, steps=2)
        misses = counters()["cache_misses"]
        traced_losses, traced_state = TRAIN[frontend](optimizer, False)
        assert counters()["cache_misses"] == misses, "a compile after the second step"
        losses, state = TRAIN[frontend](optimizer, True)
        assert counters()["cache_misses"] == misses
        assert counters()["steps_replayed"] >= 10, get_runtime().metrics.report()
    np.testing.assert_allclose(losses, traced_losses, rtol=1e-5, atol=1e-6)
    assert len(state) == len(traced_state)
    for got, want in zip(state, traced_state, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------- guard misses
def _numpy_guard_step():
    import lazytensor.numpy as lnp

    @lnp.capture
    def step(x, n, lr):
        return x * n - lr

    return lnp, step


GUARD_MISSES = [  # (changed call, words the explainer must say)
    (lambda lnp: (lnp.ones(3, dtype=lnp.float32), 2, 0.5), "argument 0: shape [3]"),
    (lambda lnp: (lnp.ones(2, dtype=lnp.float64), 2, 0.5), "dtype float64"),
    (lambda lnp: (lnp.ones(2, dtype=lnp.float32), 3, 0.5), "argument 1: Python value 3"),
    (lambda lnp: (lnp.ones(2, dtype=lnp.float32), 2, 0.25), "argument 2: Python value 0.25"),
]


@pytest.mark.parametrize(("changed", "words"), GUARD_MISSES)
def test_each_guard_miss_retraces_and_is_named(changed, words):
    with use_runtime() as runtime:
        lnp, step = _numpy_guard_step()
        for _ in range(3):
            step(lnp.ones(2, dtype=lnp.float32), 2, 0.5)
        assert runtime.metrics.counters["steps_replayed"] == 1
        args = changed(lnp)
        got = step(*args)
        np.testing.assert_allclose(np.asarray(got), np.asarray(args[0]) * args[1] - args[2])
        assert runtime.metrics.counters["steps_traced"] == 3
        assert any(words in note and "guard failed" for note in runtime.metrics.capture_notes), \
            runtime.metrics.capture_notes


SCALE = 2  # a global that a captured body reads


def test_a_rebound_global_or_closure_retraces_and_is_named():
    """The quick guard compares what the body reaches by identity; a global
    rebound to another value, or a closure cell, re-traces and is named."""
    global SCALE
    import lazytensor.numpy as lnp

    offset = 1.0

    @lnp.capture
    def step(x):
        return x * SCALE + offset

    x = lnp.ones(2, dtype=lnp.float32)
    with use_runtime() as runtime:
        try:
            for _ in range(3):
                step(x)
            assert runtime.metrics.counters["steps_replayed"] == 1
            SCALE = 3
            np.testing.assert_allclose(np.asarray(step(x)), [4.0, 4.0])
            assert any("global SCALE: Python value 3" in note
                       for note in runtime.metrics.capture_notes), runtime.metrics.capture_notes
            for _ in range(2):
                step(x)
            replayed = runtime.metrics.counters["steps_replayed"]
            offset = 2.0
            np.testing.assert_allclose(np.asarray(step(x)), [5.0, 5.0])
            assert runtime.metrics.counters["steps_replayed"] == replayed
            assert any("closure offset" in note for note in runtime.metrics.capture_notes)
        finally:
            SCALE = 2


@needs("torch")
def test_a_new_module_retraces_and_is_named():
    import lazytensor.torch as lt
    import torch

    dev = lt.device()

    @lt.capture
    def step(model, x):
        return model(x).sum()

    with use_runtime() as runtime, torch.no_grad():
        first, second = (torch.nn.Linear(2, 1).to(dev) for _ in range(2))
        x = torch.ones(1, 2, device=dev)
        for _ in range(3):
            step(first, x)
        assert runtime.metrics.counters["steps_replayed"] == 1
        got = step(second, x)
        assert float(got) == pytest.approx(float(second(x).sum()))
        assert any("argument 0: object" in note for note in runtime.metrics.capture_notes)
        for _ in range(2):
            step(second, x)
        assert runtime.metrics.counters["steps_replayed"] == 2
        second.eval()  # a training flag is part of a module's guard
        step(second, x)
        assert any("argument 0: state" in note for note in runtime.metrics.capture_notes)


# ---------------------------------------------------- bodies never replayed
def _numpy_reader():
    import lazytensor.numpy as lnp

    state = {"w": lnp.ones(2)}

    def item_body(x):
        loss = (state["w"] * x).sum()
        print_value = loss.item()  # the line named
        state["w"] -= 0.1 * x * print_value
        return loss

    def branch_body(x):
        if (x > 0).all():  # the line named
            state["w"] -= x
        return state["w"].sum()

    return lambda: lnp.ones(2), item_body, branch_body, lnp.capture


def _torch_reader():
    import lazytensor.torch as lt
    import torch

    w = torch.ones(2, device=lt.device())

    def item_body(x):
        loss = (w * x).sum()
        print_value = loss.item()  # the line named
        w.sub_(0.1 * x * print_value)
        return loss

    def branch_body(x):
        if bool((x > 0).all()):  # the line named
            w.sub_(x)
        return w.sum()

    return lambda: torch.ones(2, device=lt.device()), item_body, branch_body, lt.capture


def _tf_reader():
    import lazytensor.tf as ltf

    tnp = ltf.numpy
    w = ltf.Variable(tnp.ones(2))

    def item_body(x):
        loss = tnp.sum(w * x)
        print_value = float(loss)  # the line named
        w.assign_sub(0.1 * x * print_value)
        return loss

    def branch_body(x):
        if bool(tnp.all(x > 0)):  # the line named
            w.assign_sub(x)
        return tnp.sum(w)

    return lambda: tnp.ones(2), item_body, branch_body, ltf.capture


READERS = [pytest.param(f, marks=needs(n), id=n)
           for f, n in ((_numpy_reader, "numpy"), (_torch_reader, "torch"), (_tf_reader, "tf"))]


@pytest.mark.parametrize("program", READERS)
@pytest.mark.parametrize("body", ["item_body", "branch_body"])
def test_a_body_that_reads_a_value_is_never_replayed(program, body):
    make_input, item_body, branch_body, capture = program()
    fn = item_body if body == "item_body" else branch_body
    line = fn.__code__.co_firstlineno + (2 if body == "item_body" else 1)
    with use_runtime() as runtime:
        step = capture(fn)
        for _ in range(4):
            step(make_input())
        assert runtime.metrics.counters["steps_replayed"] == 0
        assert runtime.metrics.counters["steps_traced"] == 4
        notes = runtime.metrics.capture_notes
        assert any(f"{fn.__qualname__}" in n and "is not replayed: it reads a value" in n
                   and f":{line}" in n for n in notes), notes


# ------------------------------------------------ a replayed call that fails
class _Failing:
    """An executable whose run fails (a device error, an interrupt)."""

    def __init__(self, executable) -> None:
        self.hits = 0

    def compiled(self, *args):
        raise RuntimeError("the device failed")


@pytest.mark.parametrize(("frontend", "optimizer"), [
    pytest.param(f, o, marks=needs(f), id=f"{f}-{o}")
    for f, o in (("numpy", "sgd"), ("torch", "sgd"), ("torch", "adam"))])
def test_a_failing_replay_leaves_the_state_as_it_was(frontend, optimizer, monkeypatch):
    """Parameters, optimizer state and host step counts (torch's default
    Adam) are as they were before the failed call."""
    from lazytensor.core.capture import step as capture_step

    seen = []
    original = capture_step.Step.__init__

    def remember(self, fn, adapter):
        original(self, fn, adapter)
        seen.append(self)

    monkeypatch.setattr(capture_step.Step, "__init__", remember)
    with use_runtime():
        _, before = TRAIN[frontend](optimizer, True, steps=5)
        step = seen[-1]
        assert step.captured is not None
        trace = step.captured[1]
        step.replayer.executable = _Failing(step.replayer.executable)
        with pytest.raises(RuntimeError, match="the device failed"):
            _call_again(frontend, step)
        for sink in (s for sinks in trace.sinks for s in sinks):
            handle = sink() if not isinstance(sink, int) else None
            if handle is not None:
                assert handle.node.data is not None and not handle.node.data.is_deleted()
        after = _state_of(frontend, step)
    assert len(after) == len(before)
    for got, want in zip(after, before, strict=True):
        np.testing.assert_array_equal(got, want)


def _call_again(frontend: str, step) -> None:
    from tests.cross.capture_programs import BATCH, CLASSES, FEATURES

    x = np.zeros((BATCH, FEATURES), np.float32)
    y = np.zeros(BATCH, np.int64)
    if frontend == "numpy":
        import lazytensor.numpy as lnp

        step(lnp.asarray(x), lnp.asarray(np.eye(CLASSES, dtype=np.float32)[y]), 0.1)
    else:
        import lazytensor.torch as lt
        import torch

        step(torch.from_numpy(x).to(lt.device()), torch.from_numpy(y).to(lt.device()))


def _state_of(frontend: str, step) -> list:
    """The training state the step closes over, in ``TRAIN``'s order."""
    cells = dict(zip(step.fn.__code__.co_freevars, step.fn.__closure__, strict=True))
    if frontend == "numpy":
        return [np.asarray(v) for v in cells["s"].cell_contents.values()]
    import torch

    model, opt = cells["model"].cell_contents, cells["opt"].cell_contents
    state = [p.detach().cpu().numpy() for p in model.parameters()]
    state += [b.cpu().numpy() for b in model.buffers()]
    return state + [v.cpu().numpy() for s in opt.state.values() for v in s.values()
                    if isinstance(v, torch.Tensor)]
