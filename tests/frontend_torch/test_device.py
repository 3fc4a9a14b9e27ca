"""The lazy device as a torch user meets it: creation, moves, observation,
modules, seeding, step markers and the metrics."""

from __future__ import annotations

import copy
import io
import pickle

import lazytensor.torch as lt
import numpy as np
import pytest
import torch
from lazytensor.core import get_runtime
from torch import nn

from .conftest import DEV, assert_same


def test_device_is_torch_lazy_device():
    assert DEV == torch.device("lazy", 0)
    x = torch.ones(2, 3, device=DEV)
    assert isinstance(x, torch.Tensor) and isinstance(x, lt.LazyTensor)
    assert x.device == DEV and x.dtype == torch.float32 and x.shape == (2, 3)


@pytest.mark.parametrize("make", [
    lambda d: torch.zeros(2, 3, device=d),
    lambda d: torch.ones(4, dtype=torch.int32, device=d),
    lambda d: torch.full((2, 2), 7.5, device=d),
    lambda d: torch.arange(5, device=d),
    lambda d: torch.arange(1.0, 3.0, 0.5, device=d),
    lambda d: torch.eye(3, device=d),
    lambda d: torch.tensor([[1, 2], [3, 4]], device=d),
    lambda d: torch.linspace(0, 1, 5, device=d),
    lambda d: torch.zeros_like(torch.ones(2, 2, device=d)),
])
def test_factories_match_eager(make):
    assert_same(make("cpu"), make(DEV))


def test_moves_and_observation():
    x = torch.randn(3, 4)
    y = x.to(DEV)
    assert_same(x, y)
    assert torch.equal(y.cpu(), x)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert y.tolist() == x.tolist()
    assert (y.sum() * 0 + 2).item() == 2.0
    assert float(y[0, 0]) == float(x[0, 0]) and bool(y.abs().sum() > 0)
    assert "device='lazy:0'" in repr(y) and "tensor(" in repr(y)
    assert np.asarray(y).shape == (3, 4)


def test_numpy_refuses_tensors_that_require_grad():
    p = torch.ones(2, device=DEV, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        p.numpy()
    assert p.detach().numpy().tolist() == [1.0, 1.0]


def test_module_to_device_keeps_parameters():
    model = nn.Linear(3, 2)
    model.to(DEV)
    assert all(isinstance(p, nn.Parameter) and p.device == DEV for p in model.parameters())
    out = model(torch.ones(1, 3, device=DEV))
    assert out.device == DEV and out.grad_fn is not None


def test_deepcopy_and_pickle_round_trip():
    x = torch.arange(4.0, device=DEV)
    c = copy.deepcopy(x)
    c.add_(1)
    assert x.tolist() == [0, 1, 2, 3] and c.tolist() == [1, 2, 3, 4]
    back = pickle.loads(pickle.dumps(x))
    assert isinstance(back, lt.LazyTensor) and back.tolist() == [0, 1, 2, 3]
    buffer = io.BytesIO()
    torch.save({"w": x}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)  # weights_only, torch's default
    assert loaded["w"].device == DEV and loaded["w"].tolist() == [0, 1, 2, 3]


def test_mark_step_materializes_everything_in_one_graph():
    metrics = get_runtime().metrics
    a = torch.ones(3, device=DEV)
    b, c = a * 2, a + 1
    lt.mark_step()
    assert metrics.counters["graphs_executed"] == 1
    assert b.tolist() == [2, 2, 2] and c.tolist() == [2, 2, 2]
    assert metrics.counters["graphs_executed"] == 1  # values were already there


def test_forgetting_mark_step_is_still_correct():
    x = torch.zeros(2, device=DEV)
    for _ in range(5):
        x = x + 1
    assert x.tolist() == [5, 5]


def test_same_seed_same_random_numbers():
    lt.manual_seed(3)
    a = torch.randn(5, device=DEV).tolist()
    b = torch.nn.functional.dropout(torch.ones(8, device=DEV), 0.5).tolist()
    lt.manual_seed(3)
    assert torch.randn(5, device=DEV).tolist() == a
    assert torch.nn.functional.dropout(torch.ones(8, device=DEV), 0.5).tolist() == b
    torch.manual_seed(3)  # torch's own seeding reaches the lazy streams too
    first = torch.rand(4, device=DEV).tolist()
    torch.manual_seed(3)
    assert torch.rand(4, device=DEV).tolist() == first
    assert torch.rand(4, device=DEV).tolist() != first


def test_random_distributions_are_plausible():
    lt.manual_seed(0)
    u = torch.rand(10000, device=DEV)
    n = torch.randn(10000, device=DEV)
    k = torch.randint(3, 7, (1000,), device=DEV)
    assert 0 <= u.min().item() and u.max().item() < 1 and abs(u.mean().item() - 0.5) < 0.02
    assert abs(n.mean().item()) < 0.05 and abs(n.std().item() - 1) < 0.05
    assert set(k.tolist()) == {3, 4, 5, 6} and k.dtype == torch.int64
    kept = torch.nn.functional.dropout(torch.ones(10000, device=DEV), 0.25)
    assert abs((kept > 0).float().mean().item() - 0.75) < 0.02
    assert set(kept.unique().tolist()) <= {0.0, float(np.float32(1 / 0.75))}


def test_changing_python_scalars_does_not_recompile():
    metrics = get_runtime().metrics
    x = torch.ones(3, device=DEV)
    for scale in (1.0, 2.0, 3.0):
        (x * scale + scale).sum().item()
    assert metrics.counters["cache_misses"] == 1
