"""The floor under any ``__torch_dispatch__`` frontend: a wrapper subclass
that does nothing but pass each ATen op through to the CPU tensor it wraps.

``bench/torch_train.py`` times the same training step on it (at tiny sizes,
so the CPU kernels cost next to nothing) beside lazytensor.torch's recording,
in the same process and the same rounds. What is left per op is the price
of torch's Python dispatch on this machine — the C++ -> Python transition,
one wrapper object per result, autograd above the subclass — which every
wrapper-subclass frontend pays before doing any work of its own. The issue
quotes 15-17 us per op for it on its reference machine; this module
measures it here, so that the recording cost can be read against it.

    python bench/torch_floor.py     # the floor alone, both models
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

TINY = {"mlp": dict(sizes=(4, 4, 4, 2), batch=2),
        "transformer": dict(d_model=8, nhead=2, ff=8, batch=1, seq=2)}


def passthrough_class():
    import torch

    class PassThrough(torch.Tensor):
        """A wrapper over a CPU tensor (``inner``); every op runs on it."""

        __slots__ = ("inner",)
        __torch_function__ = torch._C._disabled_torch_function_impl

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            held: dict[int, PassThrough] = {}
            out = func(*[_unwrap(a, held) for a in args],
                       **{k: _unwrap(v, held) for k, v in (kwargs or {}).items()})
            return _rewrap(out, held)

    def _unwrap(a, held):
        if type(a) is PassThrough:
            held[id(a.inner)] = a
            return a.inner
        if type(a) in (list, tuple):
            return [_unwrap(x, held) for x in a]
        return a

    def _rewrap(out, held):
        if isinstance(out, torch.Tensor):
            known = held.get(id(out))  # in-place and out= results: the caller's wrapper
            return known if known is not None else wrap(out)
        if type(out) in (list, tuple):
            return type(out)(_rewrap(x, held) for x in out)
        return out

    def wrap(inner):
        t = torch.Tensor._make_wrapper_subclass(
            PassThrough, inner.shape, inner.stride(), storage_offset=inner.storage_offset(),
            dtype=inner.dtype, device=inner.device)
        t.inner = inner
        return t

    # the optimizers take their foreach path for it, as for lazy tensors
    from torch.optim import optimizer
    from torch.utils import _foreach_utils

    for module in (optimizer, _foreach_utils):
        module._foreach_supported_types.append(PassThrough)
    PassThrough.wrap = staticmethod(wrap)
    return PassThrough


def floor_parts(kind: str):
    """The training step's parts (model, optimizer, loss, x, y) at tiny
    sizes, every tensor a ``PassThrough``."""
    import torch
    import torch_train as tt
    from torch import nn

    saved = dict(tt.MLP), dict(tt.TFM)
    (tt.MLP if kind == "mlp" else tt.TFM).update(TINY[kind])
    try:
        model, _, loss_fn, x, y = tt.torch_parts(kind, "cpu")
    finally:
        tt.MLP.update(saved[0])
        tt.TFM.update(saved[1])
    cls = passthrough_class()
    for module in model.modules():
        for name, p in list(module.named_parameters(recurse=False)):
            setattr(module, name, nn.Parameter(cls.wrap(p.detach().clone())))
    params = list(model.parameters())
    opt = (torch.optim.SGD(params, lr=tt.MLP["lr"], momentum=tt.MLP["momentum"])
           if kind == "mlp" else torch.optim.Adam(params, lr=tt.TFM["lr"]))
    return model, opt, loss_fn, cls.wrap(x), cls.wrap(y)


def step_seconds(parts) -> float:
    """CPU time of this thread for one training step."""
    import torch_train as tt

    start = time.thread_time()
    tt.torch_step(*parts)
    return time.thread_time() - start


def main() -> int:
    import torch

    torch.set_num_threads(1)
    for kind in ("mlp", "transformer"):
        parts = floor_parts(kind)
        for _ in range(5):
            step_seconds(parts)
        us = np.median([step_seconds(parts) for _ in range(30)]) * 1e6
        print(f"{kind}: pass-through wrapper step {us:.0f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
