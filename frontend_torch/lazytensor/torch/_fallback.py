"""Eager CPU fallback for ATen ops the core cannot express.

The op's lazy inputs are materialized to CPU tensors, the op runs eagerly in
PyTorch, mutated inputs are written back into their lazy storage and the
outputs come back as lazy device data. Every call is counted in the core's
metrics (``get_runtime().metrics.fallback(op)``) and the first call of each
op warns once, naming it: never a silent divergence.

Outputs of view ops that fall back are copies, not views; they are made
read-only so that a write through them raises instead of being lost.
"""

from __future__ import annotations

import os

from lazytensor.core import ViewHandle, metrics
from lazytensor.torch._tensor import DEVICE, LazyTensor, to_cpu, to_lazy, wrap_handle

import torch
from torch.utils._pytree import tree_map


class LazyFallbackWarning(UserWarning):
    """An ATen op ran eagerly on the CPU instead of being recorded."""


# frames skipped to find the user's line: this frontend's and torch's
_LIBRARY_DIRS = (os.path.dirname(os.path.abspath(__file__)), os.path.dirname(torch.__file__))


def note_fallback(name: str) -> None:
    """Count the fallback of ``name`` and warn the first time, at the user's line."""
    metrics.note_fallback(
        name, f"lazytensor.torch: {name} is not lowered to the lazy core; it runs eagerly "
        "on the CPU (its inputs are materialized). This is counted in "
        "lazytensor.core.metrics (eager_fallbacks).", LazyFallbackWarning, _LIBRARY_DIRS)


def _mutated_names(func) -> tuple[list[int], list[str]]:
    positions, names = [], []
    for i, arg in enumerate(func._schema.arguments):
        if arg.alias_info is not None and arg.alias_info.is_write:
            positions.append(i)
            names.append(arg.name)
    return positions, names


def _read_only(op_name: str):
    def backward(base, value):
        raise RuntimeError(
            f"lazytensor.torch: the result of {op_name} is a copy made by the eager "
            "fallback, not a view; writing through it would not reach its base"
        )

    return backward


# dispatch keys that __torch_dispatch__ runs with excluded (they sit above the
# Python key) but that the CPU kernels need: a kernel that multiplies by a
# conj() view (lstsq's complex residuals) ignored the conjugation
_VIEW_KEYS = (torch._C.DispatchKey.Conjugate, torch._C.DispatchKey.Negative,
              torch._C.DispatchKey.ZeroTensor)


def _view_keys_enabled():
    """A guard under which the eager CPU kernel resolves conj/neg views and
    zero tensors as it does outside ``__torch_dispatch__``."""
    exclude = torch._C._dispatch_tls_local_exclude_set()
    for key in _VIEW_KEYS:
        exclude = exclude.remove(key)
    return torch._C._ForceDispatchKeyGuard(torch._C._dispatch_tls_local_include_set(), exclude)


def eager(func):
    """The fallback implementation of one ATen overload."""
    name = str(func)
    positions, names = _mutated_names(func)
    returns_view = bool(func._schema.returns) and all(
        r.alias_info is not None and not r.alias_info.is_write for r in func._schema.returns
    )

    def impl(*args, **kwargs):
        note_fallback(name)
        lazy_of: dict[int, LazyTensor] = {}

        def to_host(x):
            if isinstance(x, LazyTensor):
                cpu = to_cpu(x)
                lazy_of[id(cpu)] = x
                return cpu
            if isinstance(x, torch.device) and x.type == DEVICE.type:
                return torch.device("cpu")  # a factory's device= runs on the CPU too
            return x

        cpu_args, cpu_kwargs = tree_map(to_host, args), tree_map(to_host, kwargs)
        with _view_keys_enabled():
            result = func(*cpu_args, **cpu_kwargs)
        _write_back(positions, names, args, kwargs, cpu_args, cpu_kwargs)

        def back(x):
            if isinstance(x, torch.Tensor):
                if id(x) in lazy_of:  # an input returned as is (in-place, out=)
                    return lazy_of[id(x)]
                if x.layout != torch.strided:
                    raise NotImplementedError(
                        f"lazytensor.torch: {name} makes a {x.layout} tensor; the lazy device "
                        "holds dense (strided) tensors only (for sparse gradients, use "
                        "nn.Embedding(..., sparse=False))")
                out = to_lazy(x)
                if returns_view:
                    out = wrap_handle(ViewHandle(out._h, lambda n: n, _read_only(name)))
                return out
            return x

        return tree_map(back, result)

    return impl


def _write_back(positions, names, args, kwargs, cpu_args, cpu_kwargs) -> None:
    from lazytensor.torch._dispatch import write

    pairs = []
    for pos, name in zip(positions, names, strict=False):
        if pos < len(args):
            pairs.append((args[pos], cpu_args[pos]))
        elif name in kwargs:
            pairs.append((kwargs[name], cpu_kwargs[name]))
    for lazy, cpu in pairs:
        lazies = lazy if isinstance(lazy, (list, tuple)) else [lazy]
        cpus = cpu if isinstance(cpu, (list, tuple)) else [cpu]
        for dst, src in zip(lazies, cpus, strict=False):
            if isinstance(dst, LazyTensor):
                write(dst, to_lazy(src))
