"""The lazy ``torch.Tensor``: a wrapper subclass holding a core ``Handle``.

A ``LazyTensor`` is a real ``torch.Tensor`` (``_make_wrapper_subclass``) on
torch's own ``lazy`` device type, so autograd, ``nn.Module`` and
``torch.optim`` run above it unchanged; every ATen op that reaches it goes to
``__torch_dispatch__`` (``lazytensor.torch._dispatch``), which records core
nodes. Its storage is ``_h``: a core ``Handle`` (a ``ViewHandle`` for views,
so writes through a view reach its base). Shapes and dtypes come from the
core's rules; torch sees them through the wrapper's sizes and strides.

Observation materializes: ``.cpu()``, ``.numpy()``, ``.item()``,
``.tolist()``, ``print``.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from lazytensor.core import Handle, Node, ViewHandle, get_runtime

import torch

DEVICE = torch.device("lazy", 0)

TORCH_OF: dict[np.dtype, torch.dtype] = {
    np.dtype(np.bool_): torch.bool,
    np.dtype(np.uint8): torch.uint8,
    np.dtype(np.int8): torch.int8,
    np.dtype(np.int16): torch.int16,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.uint16): torch.uint16,
    np.dtype(np.uint32): torch.uint32,
    np.dtype(np.uint64): torch.uint64,
    np.dtype(np.float16): torch.float16,
    np.dtype(ml_dtypes.bfloat16): torch.bfloat16,
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
    np.dtype(np.complex64): torch.complex64,
    np.dtype(np.complex128): torch.complex128,
}


class _DTypeTable(dict):
    """torch dtype -> numpy dtype; a dtype the core cannot hold (complex32,
    the float8 types) raises a clear TypeError, not a KeyError."""

    def __missing__(self, dtype):
        raise TypeError(f"lazytensor.torch does not support dtype {dtype}")


NUMPY_OF: dict[torch.dtype, np.dtype] = _DTypeTable({t: n for n, t in TORCH_OF.items()})


def scalar_type_name(dtype: np.dtype) -> str:
    """torch's name of a dtype in its messages (``Float``, ``Long``, ``Byte``)."""
    return torch.empty(0, dtype=TORCH_OF[dtype]).type()[len("torch."):-len("Tensor")]

_new_wrapper = torch.Tensor._make_wrapper_subclass
_TENSOR_DATA = torch._C.TensorBase.data


class LazyTensor(torch.Tensor):
    """A torch tensor whose value is a lazily recorded core node."""

    __slots__ = ("_h",)
    _h: Handle

    # no subclass __torch_function__ wrapping: ATen-level dispatch does the work
    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        # replaced by lazytensor.torch._dispatch when it is imported
        raise RuntimeError("lazytensor.torch._dispatch is not loaded")

    # -------------------------------------------------------------- .data
    @property
    def data(self) -> torch.Tensor:
        """A detached alias (torch's own getter)."""
        return _TENSOR_DATA.__get__(self)

    @data.setter
    def data(self, new: torch.Tensor) -> None:
        """``t.data = new`` (``module.to(dtype)``, hand-written init): torch
        swaps the wrapper's metadata; the storage handle must follow."""
        _TENSOR_DATA.__set__(self, new)
        self._h = new._h

    # ------------------------------------------------------- observation
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The value as a fresh host array (runs what is pending)."""
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        return self._h.numpy()

    def tolist(self):
        return to_cpu(self).tolist()

    def __repr__(self, *, tensor_contents=None) -> str:
        text = repr(to_cpu(self))
        suffix = f", device='{self.device}'"
        if self.grad_fn is not None:
            suffix += f", grad_fn=<{type(self.grad_fn).__name__}>"
        elif self.requires_grad:
            suffix += ", requires_grad=True"
        prefix = "Parameter containing:\n" if getattr(self, "_is_param", False) else ""
        return prefix + text[:-1] + suffix + ")"

    def __format__(self, format_spec: str) -> str:
        # torch formats only exact ``Tensor`` 0-d values through ``.item()``
        if self.dim() == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __reduce_ex__(self, protocol):
        if getattr(self, "_is_param", False):  # a parameter comes back as one
            return (_rebuild, (to_cpu(self), self.requires_grad, True))
        return (_rebuild, (to_cpu(self), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        with torch.no_grad():
            copy = self.clone()
        copy.requires_grad_(self.requires_grad)
        if self.is_leaf and self.grad is not None:  # as torch's Tensor.__deepcopy__
            copy.grad = self.grad.__deepcopy__(memo)
        for name, value in self.__dict__.items():
            setattr(copy, name, value)
        memo[id(self)] = copy
        return copy


def _rebuild(cpu: torch.Tensor, requires_grad: bool, is_param: bool = False) -> torch.Tensor:
    """A pickled lazy tensor back on the lazy device, or where ``torch.load``'s
    ``map_location`` (a device, a string or a dict from ``'lazy:0'``) puts it."""
    where = _load_location(cpu)
    out = to_lazy(cpu) if where is None else cpu.to(where)
    if is_param:
        return torch.nn.Parameter(out, requires_grad)
    return out.requires_grad_(requires_grad) if requires_grad else out


def _load_location(cpu: torch.Tensor) -> torch.device | None:
    """The device other than the lazy one that the running ``torch.load``
    maps lazy tensors to (None: the lazy device). A callable map_location
    gets the CPU storage and the location ``'lazy:0'``: the device of the
    storage it returns (``lambda storage, loc: storage``: the CPU)."""
    where = torch.serialization._serialization_tls.map_location
    if callable(where):
        moved = where(cpu.untyped_storage(), str(DEVICE))
        where = None if moved is None else moved.device
    if isinstance(where, dict):
        where = where.get(str(DEVICE), where.get(DEVICE.type))
    if not isinstance(where, (str, torch.device)):
        return None
    where = torch.device(where)
    return None if where.type == DEVICE.type else where


def _restore_location(storage, location: str):
    """``torch.load(..., map_location=lazy device)``: a lazy tensor is saved
    as a CPU tensor that ``_rebuild`` moves back, so its storage stays on the
    CPU (lazy tensors have no host storage of their own)."""
    return storage if location.startswith(DEVICE.type) else None


# torch.load's default (weights_only) unpickler rebuilds lazy tensors too
torch.serialization.add_safe_globals([_rebuild])
torch.serialization.register_package(30, lambda storage: None, _restore_location)


def wrap(node: Node, strides=None) -> LazyTensor:
    """A new lazy tensor holding ``node`` (contiguous unless ``strides``)."""
    t = _new_wrapper(LazyTensor, node.shape, strides, dtype=TORCH_OF[node.dtype], device=DEVICE)
    t._h = Handle(node)
    return t


def wrap_handle(handle: Handle, strides=None, offset: int = 0) -> LazyTensor:
    """A new lazy tensor over an existing handle (aliases share handles)."""
    node = handle.node
    if strides is None:
        t = _new_wrapper(LazyTensor, node.shape, dtype=TORCH_OF[node.dtype], device=DEVICE)
    else:
        t = _new_wrapper(LazyTensor, node.shape, strides, storage_offset=offset,
                         dtype=TORCH_OF[node.dtype], device=DEVICE)
    t._h = handle
    return t


def wrap_view(base: LazyTensor, forward, backward, strides=None, offset: int = 0) -> LazyTensor:
    """A view of ``base``: its value is ``forward(base)``; writes to it go
    back through ``backward(base, value)`` (None: the view is read-only)."""
    return wrap_handle(ViewHandle(base._h, forward, backward), strides, offset)


def alias(x: LazyTensor) -> LazyTensor:
    """A new tensor object sharing ``x``'s storage and metadata (detach)."""
    if x.is_contiguous() and not x.storage_offset():
        return wrap_handle(x._h)
    return wrap_handle(x._h, x.stride(), x.storage_offset())


def set_metadata(t: LazyTensor, shape, strides=None, offset: int = 0) -> None:
    """Give the wrapper ``t`` new sizes/strides in place (resize_, out=
    tensors of the wrong size): torch's meta kernel of ``set_`` runs on it
    with dispatch disabled, over the storage of a fresh wrapper that fits."""
    from torch.utils._mode_utils import no_dispatch

    shape = tuple(int(s) for s in shape)
    fresh = _new_wrapper(LazyTensor, shape, strides, dtype=t.dtype, device=DEVICE)
    with no_dispatch():
        storage = fresh.untyped_storage()
        meta = torch._C._meta_in_tls_dispatch_include()
        torch._C._set_meta_in_tls_dispatch_include(True)
        try:
            torch.ops.aten.set_.source_Storage_storage_offset(
                t, storage, offset, list(shape), list(fresh.stride()))
        finally:
            torch._C._set_meta_in_tls_dispatch_include(meta)


# ------------------------------------------------------------- host transfer
def host_array(t: torch.Tensor) -> np.ndarray:
    """A CPU tensor's value as a numpy array (bfloat16 through ml_dtypes)."""
    t = t.detach().resolve_conj().resolve_neg()
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def from_host_array(a: np.ndarray) -> torch.Tensor:
    a = np.require(a, requirements="C")
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def to_lazy(t: torch.Tensor) -> LazyTensor:
    """A lazy copy of a CPU tensor (device data, no autograd history)."""
    if isinstance(t, LazyTensor):
        return t
    if t.dtype not in NUMPY_OF:
        raise TypeError(f"lazytensor.torch does not support dtype {t.dtype}")
    if t.device.type != "cpu":
        t = t.cpu()
    handle = get_runtime().from_host(host_array(t))
    return wrap_handle(handle)


def handle_of(t: LazyTensor):
    """The core storage (``Handle`` or ``ViewHandle``) of a lazy tensor."""
    if not isinstance(t, LazyTensor):
        raise TypeError(f"expected a lazy tensor, got {type(t).__name__}")
    return t._h


def to_cpu(t: LazyTensor) -> torch.Tensor:
    """The value of a lazy tensor as a new CPU tensor (materializes)."""
    return from_host_array(t._h.numpy())


def node_of_host(t: torch.Tensor) -> Node:
    """A CPU tensor operand as device data (copied once)."""
    return get_runtime().from_host(host_array(t)).node
