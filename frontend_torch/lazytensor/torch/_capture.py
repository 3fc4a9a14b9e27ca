"""``capture``: a torch step function (forward, ``loss.backward()``,
``optimizer.step()``, ``zero_grad``) replayed without its Python body once
two traced calls agree (``lazytensor.core.capture``)."""

from __future__ import annotations

import functools
import math

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

    def counters(self, value) -> list:
        """An optimizer's step counts kept on the CPU (Adam's and AdamW's
        default, non-fused, non-capturable settings): ``optimizer.step()``
        adds one outside the graph, so a replay does it."""
        if not isinstance(value, torch.optim.Optimizer):
            return []
        return [v for state in value.state.values() for v in state.values()
                if _host_scalar(v)]

    def read_counter(self, cell) -> float:
        return cell.item()

    def write_counters(self, cells: list, values: list) -> None:
        with torch.no_grad():
            for cell, value in zip(cells, values, strict=True):
                cell.fill_(value)

    def derived_scalars(self, value) -> list:
        """The floats an Adam-family optimizer computes from a host step
        count ``s`` (``1 - beta ** s``, its square root, ``lr`` over it,
        negated), written as torch writes them, per parameter."""
        if not isinstance(value, torch.optim.Optimizer):
            return []
        found = []
        for group in value.param_groups:
            betas, lr = group.get("betas"), group.get("lr")
            if not (isinstance(betas, tuple) and len(betas) == 2 and isinstance(lr, float)
                    and all(isinstance(b, float) for b in betas)):
                continue
            for p in group["params"]:
                step = value.state.get(p, {}).get("step")
                if _host_scalar(step):
                    found += [((id(p), name), functools.partial(term, step, lr, *betas))
                              for name, term in _BIAS_TERMS.items()]
        return found

    def wrap(self, leaf, kind):
        return wrap(leaf)


def _host_scalar(value) -> bool:
    return isinstance(value, torch.Tensor) and not isinstance(value, LazyTensor) \
        and value.device.type == "cpu" and value.numel() == 1


_BIAS_TERMS = {  # name -> value at step count s (torch.optim's adam, adamw, adamax)
    "-lr/bc1": lambda s, lr, b1, b2: (lr / (1 - b1 ** s.item())) * -1,
    "lr/bc1": lambda s, lr, b1, b2: lr / (1 - b1 ** s.item()),
    "bc2**0.5": lambda s, lr, b1, b2: (1 - b2 ** s.item()) ** 0.5,
    "sqrt(bc2)": lambda s, lr, b1, b2: math.sqrt(1 - b2 ** s.item()),
    "bc1": lambda s, lr, b1, b2: 1 - b1 ** s.item(),
    "bc2": lambda s, lr, b1, b2: 1 - b2 ** s.item(),
}

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
