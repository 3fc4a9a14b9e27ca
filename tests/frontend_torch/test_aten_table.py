"""The ATen table holds only rows that ``__torch_dispatch__`` can reach:
implicit composites are not rows, factories without tensor arguments are not
rows, and the rows that remain follow torch (dtype names, views, sizes)."""


from __future__ import annotations

import pytest
import torch
from lazytensor.core import get_runtime
from lazytensor.torch.aten import FAMILIES
from torch._ops import OpOverload

from .conftest import DEV, assert_same

# families whose rows other passes own (nn, linalg): their implicit rows
# (silu_backward, linalg_pinv) are theirs to settle
_OTHERS = {"lazytensor.torch.aten.nn", "lazytensor.torch.aten.linalg"}


def _overloads(key):
    if isinstance(key, OpOverload):
        return [key]
    return [getattr(key, name) for name in key.overloads()]


def _own_keys():
    return [k for f in FAMILIES if f.__name__ not in _OTHERS for k in f.TABLE]


def _implicit(op: OpOverload) -> bool:
    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key(op.name(),
                                                             "CompositeImplicitAutograd")
    except RuntimeError:  # an overload name that the packet lists but has no schema
        return False


def _fallbacks() -> int:
    return get_runtime().metrics.counters["eager_fallbacks"]


_X = torch.tensor([[-2.5, -0.5, 0.0, 0.5], [1.5, 2.5, float("nan"), -7.0]])


_Y = torch.tensor([[1.0, -2.0, 3.0, 0.5], [2.0, -0.5, 1.0, 4.0]])


_I = torch.tensor([[3, -4, 0, 7], [12, 5, -1, 2]])


_J = torch.tensor([[1, 6, 2, 3], [10, 4, 8, 2]])


_Z = torch.tensor([1 + 2j, -3 - 1j])


IMPLICIT = {  # name -> call on (x, y, i, j, z)
    "fix": lambda x, y, i, j, z: torch.fix(x),
    "square": lambda x, y, i, j, z: (torch.square(x), torch.square(i), torch.square(i > 0)),
    "positive": lambda x, y, i, j, z: torch.positive(x),
    "true_divide": lambda x, y, i, j, z: (torch.true_divide(x, y), torch.true_divide(i, j)),
    "arctan2": lambda x, y, i, j, z: torch.arctan2(x, y),
    "__and__": lambda x, y, i, j, z: (i & j, i | j, i ^ j, i & 3),
    "isfinite": lambda x, y, i, j, z: (torch.isfinite(x), torch.isfinite(i)),
    "conj": lambda x, y, i, j, z: (torch.conj(z).resolve_conj(), torch.conj_physical(z),
                                   torch.conj(x)),
    "resolve": lambda x, y, i, j, z: (torch.resolve_conj(x), torch.resolve_neg(x)),
    "where.Scalar": lambda x, y, i, j, z: (torch.where(x > 0, x, 1.0),
                                           torch.where(x > 0, 2.0, y),
                                           torch.where(x > 0, 2.0, 3.0)),
    "clip": lambda x, y, i, j, z: (torch.clip(x, -1.0, 1.0), torch.clip(i, min=0)),
    "max.other": lambda x, y, i, j, z: (torch.max(x, y), torch.min(x, y), torch.max(i, j)),
    "argsort": lambda x, y, i, j, z: (torch.argsort(y, dim=1), torch.argsort(j, dim=0,
                                                                             descending=True)),
}


_B = torch.tensor([True, False, True])


def test_no_row_for_an_implicit_composite():
    rows = [str(k) for k in _own_keys()
            if any(_implicit(o) for o in _overloads(k)
                   if not any(a.is_out for a in o._schema.arguments))]
    assert rows == []


def test_no_row_for_a_factory_without_tensor_arguments():
    def takes_tensor(op: OpOverload) -> bool:
        return any("Tensor" in str(a.type) for a in op._schema.arguments)

    rows = [str(k) for k in _own_keys() if not any(takes_tensor(o) for o in _overloads(k))]
    assert rows == []


@pytest.mark.parametrize("name", list(IMPLICIT))
@pytest.mark.parametrize("inference", [False, True])
def test_implicit_composites_lower(name, inference):
    fn = IMPLICIT[name]
    args = (_X, _Y, _I, _J, _Z)
    expected = fn(*args)
    before = _fallbacks()
    with torch.inference_mode(inference):
        got = fn(*[a.to(DEV) for a in args])
    assert_same(expected, got)
    assert _fallbacks() == before


@pytest.mark.parametrize("make", [
    lambda d, t: torch.zeros(2, 3, device=d),
    lambda d, t: torch.ones(2, 3, device=d, dtype=torch.bool),
    lambda d, t: torch.full((2,), True, device=d),
    lambda d, t: torch.full((2,), 7, device=d),
    lambda d, t: torch.scalar_tensor(3, device=d),
    lambda d, t: torch.zeros_like(t),
    lambda d, t: torch.ones_like(t, dtype=torch.bool),
    lambda d, t: torch.ones_like(t.t()),
    lambda d, t: t.new_ones(3),
    lambda d, t: t.new_zeros(3, dtype=torch.complex64),
    lambda d, t: t.new_full((2,), 7),
    lambda d, t: torch.empty_like(t).zero_(),
    lambda d, t: t.new_empty_strided((2, 2), (1, 2)).zero_(),
    lambda d, t: torch.empty_permuted((2, 3), (1, 0), device=d).zero_(),
])
def test_factories_dtype_shape_and_strides(make):
    t = torch.arange(6).reshape(2, 3)
    expected, got = make("cpu", t), make(DEV, t.to(DEV))
    assert got.stride() == expected.stride()
    assert_same(expected, got)


def test_randperm_reaches_its_out_overload():
    torch.manual_seed(0)
    p = torch.randperm(7, device=DEV, dtype=torch.int32)
    assert p.dtype == torch.int32 and sorted(p.cpu().tolist()) == list(range(7))


@pytest.mark.parametrize("x", [
    torch.tensor([1.0, float("nan"), 3.0, 3.0, -float("inf"), float("inf"), 2.0]),
    torch.tensor([[2.0, 0.0, 2.0, 1.0], [1.0, 1.0, 0.0, 2.0]]),
    torch.tensor([[2, 0, 2, 1], [1, 1, 0, 2]]),
    torch.tensor(4.0),
])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_values_and_stable_indices(x, largest):
    """Values as torch's; among ties the lowest index first (torch's CPU
    kernel leaves the order of ties unspecified), so indices equal a stable
    argsort's."""
    lazy = x.to(DEV)
    for k in range(x.shape[-1] + 1 if x.dim() else 2):
        expected = torch.topk(x, k, largest=largest)
        got = torch.topk(lazy, k, largest=largest)
        assert_same(expected.values, got.values)
        if x.dim():
            order = torch.sort(x, stable=True, descending=largest).indices[..., :k]
            assert_same(order, got.indices)
    with pytest.raises(RuntimeError, match="out of range"):
        torch.topk(lazy, (x.shape[-1] if x.dim() else 1) + 1)


@pytest.mark.parametrize("call", [
    lambda d: torch.ones(3, dtype=torch.int64, device=d).add_(torch.ones(3, device=d)),
    lambda d: torch.ones(3, dtype=torch.uint8, device=d).mul_(torch.ones(3, device=d)),
    lambda d: torch.ones(3, dtype=torch.int32, device=d).mean(),
    lambda d: torch.linalg.vector_norm(torch.ones(3, dtype=torch.int16, device=d)),
])
def test_dtype_names_in_messages_are_torchs(call):
    with pytest.raises(RuntimeError) as eager:
        call("cpu")
    with pytest.raises(RuntimeError) as lazy:
        call(DEV)
    assert str(lazy.value) == str(eager.value)


@pytest.mark.parametrize("call", [
    lambda b, f: b - f, lambda b, f: f - b, lambda b, f: b - 2, lambda b, f: b - b,
    lambda b, f: torch.rsub(b, 1.5), lambda b, f: torch.sub(f, True, alpha=2),
])
def test_sub_with_a_bool_operand_raises_torchs_error(call):
    f = torch.tensor([1.0, -2.0, 3.0])
    with pytest.raises(RuntimeError) as eager:
        call(_B, f)
    with pytest.raises(RuntimeError) as lazy:
        call(_B.to(DEV), f.to(DEV))
    assert str(lazy.value) == str(eager.value)


@pytest.mark.parametrize("a, b", [(_X, _Y), (_I, _J), (_B, _B), (_I, 2), (_X, 0.5), (_B, True),
                                  (torch.tensor(3), _X)])
def test_mul_and_true_divide_rows(a, b):
    lazy_b = b.to(DEV) if isinstance(b, torch.Tensor) else b
    assert_same(a * b, a.to(DEV) * lazy_b)
    assert_same(a / b, a.to(DEV) / lazy_b)


@pytest.mark.parametrize("size", [(3, 4), (-1, 4), (2, -1, 3), (-1, -1), (5, -1), (2, 5),
                                  (0, -1), (-2, 6), (6, -3)])
def test_view_and_reshape_sizes_as_torch(size):
    x = torch.arange(12.0)
    for call in (lambda t: t.view(*size), lambda t: t[::2].reshape(*size[:1], -1)
                 if -1 not in size[1:] else t.reshape(*size)):
        try:
            expected = call(x)
        except RuntimeError as exc:
            with pytest.raises(RuntimeError) as lazy:
                call(x.to(DEV))
            assert str(lazy.value) == str(exc)
            continue
        assert_same(expected, call(x.to(DEV)))
