"""``capture``: a torch step function (forward, ``loss.backward()``,
``optimizer.step()``, ``zero_grad``) replayed without its Python body once
two traced calls agree (``lazytensor.core.capture``)."""

from __future__ import annotations

from lazytensor.core.capture import Adapter, Step
from lazytensor.core.capture import capture as core_capture
from lazytensor.torch._tensor import LazyTensor, wrap

import torch


class TorchAdapter(Adapter):
    def handle_of(self, value):
        return value._h if isinstance(value, LazyTensor) else None

    def array_key(self, value) -> object:
        return value.requires_grad

    def fingerprint(self, value) -> object:
        """What of a module or an optimizer changes the traced step: the
        modules' training flags, the optimizer's hyperparameters (a new
        learning rate re-traces: it is not an argument of the step)."""
        if isinstance(value, torch.nn.Module):
            return tuple(m.training for m in value.modules())
        if isinstance(value, torch.optim.Optimizer):
            return tuple(tuple((k, v) for k, v in group.items() if k != "params"
                               and isinstance(v, (int, float, bool, tuple)))
                         for group in value.param_groups)
        return None

    def kind_of(self, value) -> object:
        return None

    def wrap(self, leaf, kind):
        return wrap(leaf)


_ADAPTER = TorchAdapter()


def capture(fn) -> Step:
    """Capture the training step ``fn`` (a decorator): after two calls that
    trace the same graph, a call with tensors of the same shapes, dtypes and
    ``requires_grad`` (and the same module, optimizer and hyperparameters)
    runs the compiled step without running ``fn``'s Python code, and writes
    the new parameters, gradients, optimizer state and buffers back.

    >>> import torch, lazytensor.torch as lt
    >>> w = torch.ones(3, device=lt.device())
    >>> @lt.capture
    ... def step(x):
    ...     w.mul_(x)
    ...     return w.sum()
    >>> [float(step(torch.full((3,), 2.0, device=lt.device()))) for _ in range(4)]
    [6.0, 12.0, 24.0, 48.0]
    """
    return core_capture(fn, _ADAPTER)
