"""The two ops of ``torch.amp.GradScaler``: unscaling the gradients while
flagging non-finite values, and updating the loss scale. torch has only
device kernels for them (no decomposition); here they are written with
torch ops on the lazy tensors (each records core nodes), so a scaler's step
stays in the graph: no host read, no fallback.
"""

from __future__ import annotations

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
