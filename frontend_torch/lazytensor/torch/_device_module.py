"""``torch.lazy``: the runtime module torch looks up for the lazy device
(``torch.get_device_module("lazy")``), as ``torch.cuda`` is for CUDA.

torch's utilities that save and restore a device's random state
(``torch.utils.checkpoint``, ``torch.random.fork_rng``) ask this module for
it. Lazy random ops draw their seeds from torch's CPU generator, which those
utilities already save and restore, so the device itself holds no random
state of its own: its state is an empty tensor.
"""

from __future__ import annotations

from contextlib import nullcontext

import torch

_initialized = False  # no device random state to stash (see the module docstring)


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> int:
    return 0


def device(index=None):
    """The device context (one lazy device: nothing to switch)."""
    return nullcontext()


def get_rng_state(device=None) -> torch.Tensor:
    return torch.empty(0, dtype=torch.uint8)


def set_rng_state(new_state: torch.Tensor, device=None) -> None:
    """Lazy random streams follow torch's CPU generator: nothing to set."""


def manual_seed(seed: int) -> None:
    from lazytensor.torch._device import manual_seed as seed_all

    seed_all(seed)


manual_seed_all = manual_seed


def synchronize(device=None) -> None:
    """Run everything pending (the step marker)."""
    from lazytensor.torch._device import mark_step

    mark_step()


def register() -> None:
    """Make this module ``torch.lazy`` (once)."""
    import sys

    if getattr(torch, "lazy", None) is None:
        torch._register_device_module("lazy", sys.modules[__name__])
