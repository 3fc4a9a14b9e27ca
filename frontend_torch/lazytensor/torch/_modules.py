"""``nn.Module.to(lazy device)`` keeps tied parameters tied.

Moving a module onto another device type makes a new ``Parameter`` per
module slot (torch swaps a parameter's data in place only between devices
whose tensors share an implementation, as CPU and CUDA do). A parameter
that two modules share (an embedding tied to the output projection) would
come back as two independent parameters, silently trained apart. This
wraps ``nn.Module._apply`` (what ``.to``, ``.cpu``, ``.double`` call): the
outermost call notes which slots hold the same parameter, and afterwards
points them all at the first slot's new parameter again, as ``.cuda()``
keeps them. Only moves to or from the lazy device are touched.
"""

from __future__ import annotations

import threading

from lazytensor.torch._tensor import LazyTensor

from torch import nn

_ORIGINAL_APPLY = nn.Module._apply
_STATE = threading.local()


def _shared_slots(root: nn.Module) -> list[list[tuple[nn.Module, str]]]:
    """Groups of (module, name) slots that hold one and the same parameter."""
    slots: dict[int, list[tuple[nn.Module, str]]] = {}
    for module in root.modules():
        for name, param in module._parameters.items():
            if param is not None:
                slots.setdefault(id(param), []).append((module, name))
    return [group for group in slots.values() if len(group) > 1]


def _apply(self: nn.Module, fn, recurse: bool = True):
    if getattr(_STATE, "inside", False) or not recurse:
        return _ORIGINAL_APPLY(self, fn, recurse)
    shared = _shared_slots(self)
    lazy_before = [isinstance(m._parameters[n], LazyTensor) for (m, n), *_ in shared]
    _STATE.inside = True
    try:
        out = _ORIGINAL_APPLY(self, fn, recurse)
    finally:
        _STATE.inside = False
    for group, was_lazy in zip(shared, lazy_before, strict=True):
        (first_module, first_name), *rest = group
        first = first_module._parameters[first_name]
        if was_lazy or isinstance(first, LazyTensor):
            for module, name in rest:
                module._parameters[name] = first
    return out


def install() -> None:
    if nn.Module._apply is not _apply:
        nn.Module._apply = _apply
