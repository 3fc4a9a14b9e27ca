"""lazytensor.torch: unchanged PyTorch programs, recorded lazily on the
shared core and compiled with XLA.

>>> import torch, lazytensor.torch as lt
>>> dev = lt.device()
>>> x = torch.ones(2, 3, device=dev)
>>> (x * 2).sum().item()
12.0
"""

from lazytensor.torch import _dispatch  # noqa: F401  (installs __torch_dispatch__)
from lazytensor.torch._capture import capture
from lazytensor.torch._device import device, manual_seed, mark_step, sync
from lazytensor.torch._fallback import LazyFallbackWarning
from lazytensor.torch._tensor import LazyTensor, handle_of, to_cpu, to_lazy
from lazytensor.torch.spmd import Mesh, mark_sharding

__all__ = [
    "LazyFallbackWarning", "LazyTensor", "Mesh", "capture", "device", "handle_of", "manual_seed",
    "mark_sharding", "mark_step", "sync", "to_cpu", "to_lazy",
]
