"""The two ops of ``torch.amp.GradScaler``: unscaling the gradients while
flagging non-finite values, and updating the loss scale. torch has only
device kernels for them (no decomposition); here they are written with
torch ops on the lazy tensors (each records core nodes), so a scaler's step
stays in the graph: no host read, no fallback.

``torch.autocast("cpu")`` does not reach lazy tensors (torch's autocast
casts only tensors of its own device, as CUDA tensors under a CPU autocast
stay float32): the ops it would run in lower precision warn once that they
run in their inputs' dtype here (``LOWERED_BY_CPU_AUTOCAST``), never a
silent difference from the same code on CPU tensors.
"""

from __future__ import annotations

import os
import threading
import warnings

from lazytensor.core import metrics
from lazytensor.torch.aten._common import aten

import torch


def _non_finite_check_and_unscale_(grads, found_inf, inv_scale) -> None:
    """Each grad *= inv_scale; found_inf = 1 when any grad has a non-finite
    value (else unchanged)."""
    for g in grads:
        bad = torch.logical_not(torch.isfinite(g)).any().to(found_inf.dtype)
        found_inf.copy_(torch.maximum(found_inf, bad.expand_as(found_inf)))
        g.mul_(inv_scale.to(g.dtype))


def _update_scale_(scale, growth_tracker, found_inf, growth_factor: float,
                   backoff_factor: float, growth_interval: int):
    """torch's rule: after a non-finite step, scale *= backoff and the
    tracker restarts; after ``growth_interval`` finite steps in a row, scale
    *= growth (when that stays finite) and the tracker restarts."""
    inf = found_inf.to(torch.bool).reshape(scale.shape)
    streak = growth_tracker + 1
    grow = torch.logical_and(streak == growth_interval, torch.logical_not(inf))
    grown = scale * growth_factor
    grown = torch.where(torch.isfinite(grown), grown, scale)
    new_scale = torch.where(inf, scale * backoff_factor, torch.where(grow, grown, scale))
    new_tracker = torch.where(torch.logical_or(inf, grow), torch.zeros_like(streak), streak)
    growth_tracker.copy_(new_tracker)
    return scale.copy_(new_scale)


TABLE = {
    aten._amp_foreach_non_finite_check_and_unscale_.default: _non_finite_check_and_unscale_,
    aten._amp_update_scale_.default: _update_scale_,
}


# the ATen ops (after torch's implicit decompositions: linear, matmul and
# conv2d reach these) that torch.autocast("cpu") computes in lower precision
LOWERED_BY_CPU_AUTOCAST = (aten.mm, aten.bmm, aten.addmm, aten.baddbmm, aten.addbmm,
                           aten.convolution)
_WARNED: set = set()
_SKIP = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
         os.path.dirname(torch.__file__))


_CPU_AUTOCAST = threading.local()  # .on: torch.autocast("cpu") is enabled in this thread
_SET_ENABLED = torch.set_autocast_enabled


def _set_autocast_enabled(*args) -> None:
    """torch.set_autocast_enabled (what every torch.autocast region calls on
    entry and exit), noting whether CPU autocast is now on: inside
    __torch_dispatch__ torch.is_autocast_enabled reads False, as every
    autocast key is excluded there."""
    _SET_ENABLED(*args)
    _CPU_AUTOCAST.on = torch.is_autocast_enabled("cpu")


torch.set_autocast_enabled = _set_autocast_enabled


def unapplied_cpu_autocast(op, impl):
    """``impl`` of ``op``, warning (once per op) when it runs inside an
    enabled ``torch.autocast("cpu")`` region, which leaves lazy tensors alone."""
    def run(*args, **kwargs):
        if getattr(_CPU_AUTOCAST, "on", False) and op not in _WARNED:
            _WARNED.add(op)
            warnings.warn(
                f"lazytensor.torch: torch.autocast('cpu') does not apply to lazy tensors (as it "
                f"does not to CUDA tensors): {op} runs in its inputs' dtype, where CPU tensors "
                f"would run in {torch.get_autocast_dtype('cpu')}. Cast the inputs (.to(dtype)) "
                f"to compute in lower precision.",
                UserWarning, stacklevel=metrics.user_stacklevel(_SKIP))
        return impl(*args, **kwargs)

    return run
