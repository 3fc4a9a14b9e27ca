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

It also keeps lazy modules (``nn.LazyLinear``, ``nn.LazyConv2d``, ...) lazy.
Torch's rewrapping would turn an ``UninitializedParameter`` moved to the lazy
device into an ordinary empty ``Parameter``, which the first forward then
rejects. Instead the slot stays uninitialized (in the new dtype). A forward
pre-hook, registered after torch's own initializing hook, moves the module's
freshly initialized parameters and buffers to the lazy device before the
forward runs. Initialization draws from torch's CPU generator, as an eager
CPU module's would.

A lazy module built on the lazy device (``nn.LazyLinear(4, device=lazy)``)
failed in torch's ``_make_subclass``, which cannot rewrap a tensor subclass.
``UninitializedParameter``/``UninitializedBuffer`` asked for the lazy device
are made on the CPU instead and marked as bound for the lazy device; a
wrapped ``LazyModuleMixin._infer_parameters`` (torch's initializing hook)
moves the module's tensors there once it has initialized them.
"""

from __future__ import annotations

import inspect
import threading

from lazytensor.torch._tensor import DEVICE, LazyTensor

import torch
from torch import nn
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

_ORIGINAL_APPLY = nn.Module._apply
_ORIGINAL_INFER = LazyModuleMixin._infer_parameters
_ORIGINAL_NEW = {cls: cls.__new__ for cls in (UninitializedParameter, UninitializedBuffer)}
_ORIGINAL_DEEPCOPY = UninitializedParameter.__deepcopy__
_BOUND_FOR_LAZY = "_lazytensor_bound_for_lazy"
_STATE = threading.local()


def _shared_slots(root: nn.Module) -> list[list[tuple[nn.Module, str]]]:
    """Groups of (module, name) slots that hold one and the same parameter."""
    slots: dict[int, list[tuple[nn.Module, str]]] = {}
    for module in root.modules():
        for name, param in module._parameters.items():
            if param is not None:
                slots.setdefault(id(param), []).append((module, name))
    return [group for group in slots.values() if len(group) > 1]


def _uninitialized_slots(root: nn.Module) -> list[tuple[nn.Module, dict, str, object]]:
    """(module, its _parameters or _buffers, name, tensor) of every
    uninitialized parameter or buffer of a lazy module."""
    return [(module, table, name, tensor) for module in root.modules()
            for table in (module._parameters, module._buffers)
            for name, tensor in table.items() if tensor is not None and is_lazy(tensor)]


def _hold_uninitialized(root: nn.Module, fn) -> list[tuple[nn.Module, dict, str, object]]:
    """Before a move: the uninitialized slots that ``fn`` sends to the lazy
    device (found by applying it to an empty stand-in) are set aside (None,
    keeping their order), so torch's ``_apply`` does not convert them."""
    held = []
    for module, table, name, old in _uninitialized_slots(root):
        handle = module.__dict__.pop("_lazytensor_move_hook", None)
        if handle is not None:
            handle.remove()
        device = DEVICE if getattr(old, _BOUND_FOR_LAZY, False) else old.device
        with torch.no_grad():
            probe = fn(torch.empty(0, dtype=old.dtype, device=device))
        old.__dict__.pop(_BOUND_FOR_LAZY, None)  # the move decides anew
        if isinstance(probe, LazyTensor):
            table[name] = None
            held.append((module, table, name, type(old)(requires_grad=old.requires_grad,
                                                        device=old.device, dtype=probe.dtype)))
    return held


def _restore_uninitialized(held) -> None:
    """After the move: each held slot gets its uninitialized tensor back (in
    the new dtype), and its module a hook that moves what torch initializes
    onto the lazy device."""
    for module, table, name, tensor in held:
        table[name] = tensor
        if "_lazytensor_move_hook" not in module.__dict__:
            module._lazytensor_move_hook = module.register_forward_pre_hook(
                _move_after_initializing(DEVICE))


def _move_after_initializing(device):
    def hook(module: nn.Module, args) -> None:
        module.__dict__.pop("_lazytensor_move_hook").remove()
        module._apply(lambda t: t.to(device), recurse=False)

    return hook


def _apply(self: nn.Module, fn, recurse: bool = True):
    if getattr(_STATE, "inside", False) or not recurse:
        return _ORIGINAL_APPLY(self, fn, recurse)
    held = _hold_uninitialized(self, fn)
    shared = _shared_slots(self)
    lazy_before = [isinstance(m._parameters[n], LazyTensor) for (m, n), *_ in shared]
    _STATE.inside = True
    try:
        out = _ORIGINAL_APPLY(self, fn, recurse)
    finally:
        _STATE.inside = False
    _restore_uninitialized(held)
    for group, was_lazy in zip(shared, lazy_before, strict=True):
        (first_module, first_name), *rest = group
        first = first_module._parameters[first_name]
        if was_lazy or isinstance(first, LazyTensor):
            for module, name in rest:
                module._parameters[name] = first
    return out


def _uninitialized_new(cls, *args, **kwargs):
    """``UninitializedParameter``/``UninitializedBuffer`` construction: one
    asked for the lazy device is made on the CPU, marked bound for it."""
    original = _ORIGINAL_NEW[next(c for c in cls.__mro__ if c in _ORIGINAL_NEW)]
    bound = inspect.signature(original).bind(cls, *args, **kwargs)
    device = bound.arguments.get("device")
    lazy = device is not None and torch.device(device).type == DEVICE.type
    if lazy:
        bound.arguments["device"] = torch.device("cpu")
    tensor = original(*bound.args, **bound.kwargs)
    if lazy:
        setattr(tensor, _BOUND_FOR_LAZY, True)
    return tensor


def _uninitialized_deepcopy(self, memo):
    """torch's copy makes a new uninitialized parameter on self's (CPU)
    device; the copy stays bound for the lazy device as self is."""
    copied = _ORIGINAL_DEEPCOPY(self, memo)
    if getattr(self, _BOUND_FOR_LAZY, False):
        setattr(copied, _BOUND_FOR_LAZY, True)
    return copied


def _infer_parameters(self, module: nn.Module, args, kwargs=None) -> None:
    """torch's initializing pre-hook; afterwards a module whose uninitialized
    tensors were bound for the lazy device moves its own tensors there."""
    bound = any(getattr(tensor, _BOUND_FOR_LAZY, False)
                for table in (module._parameters, module._buffers)
                for tensor in table.values() if tensor is not None and is_lazy(tensor))
    _ORIGINAL_INFER(self, module, args, kwargs)
    if bound:
        module._apply(lambda t: t.to(DEVICE), recurse=False)


def install() -> None:
    if nn.Module._apply is not _apply:
        nn.Module._apply = _apply
        LazyModuleMixin._infer_parameters = _infer_parameters
        UninitializedParameter.__deepcopy__ = _uninitialized_deepcopy
        for cls in _ORIGINAL_NEW:
            cls.__new__ = _uninitialized_new
