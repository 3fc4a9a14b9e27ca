"""expand's strides are torch's (inferExpandGeometry): a new leading dim of
size 1 steps over the dims after it, stretched and other new dims get 0;
writes through the expanded view's base still read back."""

from __future__ import annotations

import pytest
import torch

from .conftest import DEV, assert_same


@pytest.mark.parametrize("make, size", [
    (lambda d: torch.arange(3.0, device=d), (1, 3)),
    (lambda d: torch.arange(3.0, device=d), (1, 1, 3)),
    (lambda d: torch.arange(3.0, device=d), (2, 1, 3)),
    (lambda d: torch.arange(3.0, device=d), (1, 0, 3)),
    (lambda d: torch.arange(6.0, device=d).reshape(2, 3).t(), (1, 3, 2)),
    (lambda d: torch.arange(3.0, device=d).reshape(3, 1), (1, 3, 4)),
    (lambda d: torch.arange(3.0, device=d).reshape(3, 1), (2, -1, 0)),
    (lambda d: torch.tensor(5.0, device=d), (1,)),
    (lambda d: torch.tensor(5.0, device=d), (1, 1)),
    (lambda d: torch.tensor(5.0, device=d), (2, 3)),
])
def test_expand_strides(make, size):
    eager, lazy = make("cpu").expand(*size), make(DEV).expand(*size)
    assert lazy.stride() == eager.stride() and lazy.shape == eager.shape
    assert lazy.is_contiguous() == eager.is_contiguous()
    assert_same([eager.clone()], [lazy.clone()])


def test_expand_errors_keep_torch_text():
    x = torch.arange(3.0, device=DEV)
    with pytest.raises(RuntimeError, match="must match the existing size"):
        x.expand(2, 4)
    with pytest.raises(RuntimeError, match="leading, non-existing dimension"):
        x.expand(-1, 3)
