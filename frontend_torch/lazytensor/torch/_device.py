"""The lazy device: torch's own ``lazy`` device type, step markers, seeding,
and the few registrations that let torch create tensors on it.

- ``device()`` is ``torch.device("lazy", 0)``. torch already treats that
  device type as one without real memory: autograd runs its backward on the
  CPU thread, and views are replayed rather than rebuilt with as_strided.
- Factory functions with ``device=`` go through torch's BackendSelect to the
  ``Lazy`` dispatch key; we register kernels there for the allocators
  (``empty``, ``empty_strided``, and ``_efficientzerotensor``: torch.func's
  zero tangents), the host copy (``_copy_from``), ``.item()`` reached from
  C++ (``_local_scalar_dense``: ``torch.tensor([t0, t1])``) and the
  factories whose composite kernels would resize an empty output
  (``arange``, ``fft_fftfreq``). Everything else (``zeros``, ``randn``, ``full``, ``eye``,
  ``linspace``...) is torch's composite kernel calling ops on the new lazy
  tensor.
- torch.optim picks its ``foreach`` implementation only for devices it
  lists and for plain ``Tensor``/``Parameter`` types; we add the lazy
  device and ``LazyTensor`` to those lists so that SGD, Adam and AdamW use
  their default foreach implementation here, as on an accelerator.
"""

from __future__ import annotations

import math

from lazytensor.core import get_runtime
from lazytensor.core import sync as core_sync
from lazytensor.core.composite.creation.arrays import arange as core_arange
from lazytensor.torch._tensor import DEVICE, NUMPY_OF, LazyTensor, host_array, to_lazy, wrap
from lazytensor.torch.aten.factories import empty, empty_strided
from lazytensor.torch.aten.movement import local_scalar_dense
from lazytensor.torch.aten.spectral import fftfreq

import torch


def device(index: int = 0) -> torch.device:
    """The lazy device (``torch.device('lazy', 0)``)."""
    if index != 0:
        raise ValueError("lazytensor.torch has one lazy device (index 0)")
    return DEVICE


def mark_step() -> None:
    """The step marker: materialize every live pending tensor in one graph
    (as ``torch_xla``'s ``mark_step``). Forgetting it stays correct."""
    core_sync()


def sync() -> None:
    """Same as ``mark_step``."""
    core_sync()


def manual_seed(seed: int) -> None:
    """Seed torch's generator and the lazy random streams."""
    torch.manual_seed(seed)
    get_runtime().rng.manual_seed(seed)


# ------------------------------------------------- Lazy-key registrations
def _copy_from(src, dst, non_blocking=False):
    from lazytensor.torch._dispatch import assign

    value = get_runtime().from_host(host_array(src.to(dst.dtype))).node
    assign(dst, value)
    return dst


def _arange_dtype(values, dtype) -> torch.dtype:
    if dtype is not None:
        return dtype
    if any(isinstance(v, float) for v in values):
        return torch.get_default_dtype()
    return torch.int64


def _arange(start, end=None, step=1, *, dtype=None, layout=None, device=None,
            pin_memory=None):
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, torch.Tensor) else v for v in (start, end, step)]
    first, last, stride = values
    if stride == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(first) and math.isfinite(last)):
        raise RuntimeError(f"unsupported range: {first:g} -> {last:g}")
    if (stride > 0 and last < first) or (stride < 0 and last > first):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    dtype = _arange_dtype(values, dtype)
    if not (dtype.is_floating_point or dtype.is_complex) and \
            not all(isinstance(v, int) for v in values):
        first, stride, size = _integer_range(first, last, stride, dtype)
        if stride == 0:  # (a step truncated to 0: the start repeated)
            return to_lazy(torch.full((size,), first, dtype=dtype))
        last = first + stride * size
    return wrap(core_arange(first, last, stride, dtype=NUMPY_OF[dtype], wrap=True))


def _integer_range(first, last, stride, dtype: torch.dtype) -> tuple[int, int, int]:
    """torch's CPU kernel for an integer dtype and float bounds: start and
    step truncated to integers; the length from the truncated bounds for
    int64 (``torch.arange(0, 3.1, dtype=torch.int64)`` has 3 elements), from
    the float ones for the other integer dtypes (int32: 4). Its errors are
    the meta kernel's, which agrees with the CPU one for int64."""
    if dtype == torch.int64:
        size = torch.arange(first, last, stride, dtype=dtype, device="meta").numel()
    else:
        size = max(0, math.ceil((last - first) / stride))
    return int(first), int(stride), size


def _host_factory(name: str):
    """A factory whose values depend only on its Python arguments (index
    tables, windows) and that has no composite kernel: made on the host and
    sent as device data, like ``torch.tensor(..., device=dev)``."""
    packet, _, overload = name.partition(".")
    op = getattr(getattr(torch.ops.aten, packet), overload or "default")

    def kernel(*args, **kwargs):
        kwargs["device"] = torch.device("cpu")
        return to_lazy(op(*args, **kwargs))

    return kernel


HOST_FACTORIES = ("tril_indices", "triu_indices", "kaiser_window", "kaiser_window.periodic",
                  "kaiser_window.beta")

_LIBRARY = torch.library.Library("aten", "IMPL", "Lazy")  # noqa: TOR901
for _name, _kernel in (
    ("empty.memory_format", empty), ("empty_strided", empty_strided),
    ("_copy_from", _copy_from), ("arange", _arange), ("arange.start", _arange),
    ("arange.start_step", _arange),
    ("_efficientzerotensor", empty),  # (torch.func's zero tangents: plain zeros here)
    ("_local_scalar_dense", local_scalar_dense),
    ("fft_fftfreq", fftfreq),  # (its composite kernel resizes an empty slice of its output)
):
    _LIBRARY.impl(_name, _kernel)
for _name in HOST_FACTORIES:
    _LIBRARY.impl(_name, _host_factory(_name))


# --------------------------------------------- optimizers: foreach default
def _enable_optimizer_foreach() -> None:
    """torch.optim and torch.nn.utils (clip_grad_norm_, ...) each hold a
    reference to torch's list of foreach devices: both get the lazy device."""
    from torch.optim import optimizer
    from torch.utils import _foreach_utils

    for module in (optimizer, _foreach_utils):
        if LazyTensor not in module._foreach_supported_types:
            module._foreach_supported_types.append(LazyTensor)
        listed = module._get_foreach_kernels_supported_devices
        if not getattr(listed, "_lazy", False):
            module._get_foreach_kernels_supported_devices = _with_lazy(listed)
    if not getattr(optimizer._get_fused_kernels_supported_devices, "_lazy", False):
        optimizer._get_fused_kernels_supported_devices = _with_lazy(  # fused=True (aten/optim.py)
            optimizer._get_fused_kernels_supported_devices)


def _with_lazy(listed):
    def with_lazy() -> list[str]:
        return [*listed(), DEVICE.type]

    with_lazy._lazy = True  # type: ignore[attr-defined]
    return with_lazy


_enable_optimizer_foreach()


def _keep_tied_parameters() -> None:
    from lazytensor.torch import _modules

    _modules.install()


_keep_tied_parameters()


def _register_device_module() -> None:
    from lazytensor.torch import _device_module

    _device_module.register()


_register_device_module()
