"""``__torch_dispatch__``: one dict lookup per ATen call, then its
implementation from the ATen table (``lazytensor.torch.aten.TABLE``).

An overload seen for the first time is *resolved* once and memoized. The
resolvers, in order (a table, not a ladder):

1. the overload itself in the ATen table;
2. its packet in the table (for every non-``out=`` overload);
3. an ``out=`` overload: the functional overload with the same arguments,
   its results written into the ``out`` tensors;
4. an in-place view op (``squeeze_``, ``t_``...): the view, and torch's
   meta kernel updates the wrapper's sizes and strides;
5. an in-place overload ``op_``: the functional ``op``, its result written
   back into ``self`` (torch's casting rule checked); the optimizers' hot
   updates store their node into ``self`` directly when no promotion,
   broadcast or layout work is needed (``aten.INPLACE_NODES``);
6. a ``_foreach_op`` overload: ``op`` applied per list element;
7. PyTorch's own decompositions (``torch._decomp``: core ATen first);
8. the op's CompositeImplicitAutograd kernel (``OpOverload.decompose``);
9. the op's CompositeExplicitAutograd kernel (it calls other ATen ops);
10. the eager CPU fallback (counted and warned once).

Core errors become torch's exception types: shape/dtype problems raise
RuntimeError, out-of-range dimensions IndexError.
"""

from __future__ import annotations

import warnings
from itertools import repeat
from typing import Callable

from lazytensor.core import CoreError, Handle
from lazytensor.core.composite.elementwise.apply import convert, full
from lazytensor.torch import _fallback
from lazytensor.torch._promotion import can_cast
from lazytensor.torch._tensor import NUMPY_OF, LazyTensor, scalar_type_name, set_metadata
from lazytensor.torch.aten import INPLACE_NODES, TABLE

import torch
from torch._ops import OpOverload
from torch.utils._mode_utils import no_dispatch

Impl = Callable[..., object]
aten = torch.ops.aten

RESOLVED: dict[OpOverload, Impl] = {}
HOW: dict[OpOverload, str] = {}  # overload -> which resolver served it (for reports)


# id(overload) -> (overload, implementation): the hot lookup (an OpOverload
# hashes in Python); the overload is kept and compared, so a reused id never
# answers for another overload. Bounded by the overloads resolved.
_BY_ID: dict[int, tuple] = {}


def dispatch(func: OpOverload, args: tuple, kwargs: dict | None):
    """Run one ATen call on lazy tensors (the body of ``__torch_dispatch__``)."""
    found = _BY_ID.get(id(func))
    if found is not None and found[0] is func:
        impl = found[1]
    else:
        impl = RESOLVED.get(func)
        if impl is None:
            impl = resolve(func)
        _BY_ID[id(func)] = (func, impl)
    try:
        return impl(*args, **kwargs) if kwargs else impl(*args)
    except CoreError as exc:
        raise _torch_error(func, exc) from None


def _torch_dispatch(cls, func, types, args=(), kwargs=None):
    """``__torch_dispatch__``: ``dispatch``, inlined (it runs for every ATen call)."""
    found = _BY_ID.get(id(func))
    if found is None or found[0] is not func:
        return dispatch(func, args, kwargs)
    try:
        return found[1](*args, **kwargs) if kwargs else found[1](*args)
    except CoreError as exc:
        raise _torch_error(func, exc) from None


def _torch_error(func: OpOverload, exc: CoreError) -> Exception:
    """A core error as torch's exception type (IndexError or RuntimeError)."""
    kind = IndexError if isinstance(exc, IndexError) else RuntimeError
    return kind(f"{func}: {exc}")


LazyTensor.__torch_dispatch__ = classmethod(_torch_dispatch)  # type: ignore[assignment]


# ------------------------------------------------------------------ writes
def write(dst, src: LazyTensor) -> None:
    """Store ``src``'s value into ``dst`` in place (in-place ops, out=,
    copy_): same shape; a dtype change must be allowed by torch.can_cast."""
    h = getattr(dst, "_h", None)
    if h is None:
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two "
            f"devices, {src.device} and {dst.device}!"
        )
    node, old = src._h.node, h.node
    if node.shape != old.shape:
        raise RuntimeError(
            f"output with shape {list(dst.shape)} doesn't match the broadcast shape "
            f"{list(node.shape)}"
        )
    target = old.dtype
    if node.dtype is not target:
        if not can_cast(node.dtype, target):
            raise RuntimeError(
                f"result type {scalar_type_name(node.dtype)} can't be cast to the desired output "
                f"type {scalar_type_name(target)}"
            )
        node = convert(node, target)
    if h.__class__ is Handle:
        h.assign(node)  # the hot path: not a view
    else:
        assign(dst, node)


def resize_out(dst: LazyTensor, shape: tuple) -> None:
    """An out= tensor of another shape is resized, as torch does (with its
    warning when it held elements)."""
    if dst.numel():
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(dst.shape)}, which does not match the required output shape "
            f"{list(shape)}. This behavior is deprecated.", UserWarning, stacklevel=4)
    set_metadata(dst, shape)
    dst._h = Handle(full(shape, 0, NUMPY_OF[dst.dtype]))


def assign(dst: LazyTensor, node) -> None:
    """``dst``'s storage now holds ``node`` (views write through to the base)."""
    try:
        dst._h.assign(node)
    except ValueError as exc:  # a view that repeats elements (expand)
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers "
            "to a single memory location. Please clone() the tensor before performing "
            "the operation."
        ) from exc


# --------------------------------------------------------------- resolvers
def _exact(func: OpOverload) -> Impl | None:
    return TABLE.get(func)


def _out_args(func: OpOverload) -> list[str]:
    return [a.name for a in func._schema.arguments if a.is_out]


def _packet(func: OpOverload) -> Impl | None:
    if _out_args(func):
        return None
    return TABLE.get(func.overloadpacket)


def _functional_of(func: OpOverload) -> OpOverload | None:
    """The overload of the same packet whose arguments are ``func``'s minus
    its out= arguments."""
    wanted = [(a.name, str(a.type)) for a in func._schema.arguments if not a.is_out]
    packet = func.overloadpacket
    for name in packet.overloads():
        other = getattr(packet, name)
        if _out_args(other):
            continue
        if [(a.name, str(a.type)) for a in other._schema.arguments] == wanted:
            return other
    return None


def _out_variant(func: OpOverload) -> Impl | None:
    names = _out_args(func)
    if not names:
        return None
    functional = _functional_of(func)
    if functional is None or not _lowered(functional):
        return None
    inner = resolve(functional)

    def impl(*args, **kwargs):
        outs = [kwargs.pop(n) for n in names]
        result = inner(*args, **kwargs)
        results = result if isinstance(result, (tuple, list)) else (result,)
        for dst, src in zip(outs, results, strict=False):
            if isinstance(dst, LazyTensor) and tuple(dst.shape) != tuple(src.shape):
                resize_out(dst, tuple(src.shape))
            write(dst, src)
        return outs[0] if len(outs) == 1 else tuple(outs)

    return impl


def _inplace_view(func: OpOverload) -> Impl | None:
    """squeeze_, t_, transpose_, as_strided_...: self becomes a view of its
    old storage. Its wrapper metadata (sizes, strides) is updated by running
    torch's meta kernel on it with dispatch disabled (what torch's own
    ``return_and_correct_aliasing`` does for wrapper subclasses)."""
    if torch.Tag.inplace_view not in func.tags:
        return None
    name = func.overloadpacket.__name__
    packet = getattr(aten, name[:-1], None)
    functional = getattr(packet, func._overloadname, None) if packet is not None else None
    if functional is None:
        return None
    inner = resolve(functional)

    def impl(self, *args, **kwargs):
        view = inner(self, *args, **kwargs)
        with no_dispatch():
            meta = torch._C._meta_in_tls_dispatch_include()
            torch._C._set_meta_in_tls_dispatch_include(True)
            try:
                func(self, *args, **kwargs)
            finally:
                torch._C._set_meta_in_tls_dispatch_include(meta)
        self._h = view._h
        return self

    return impl


# in-place overloads whose functional twin has another overload name
_FUNCTIONAL_OVERLOAD = {aten.floor_divide_.Tensor: "default"}


def _inplace_variant(func: OpOverload) -> Impl | None:
    name = func.overloadpacket.__name__
    if not name.endswith("_") or name.startswith("_foreach") or name.startswith("__"):
        return None
    packet = getattr(aten, name[:-1], None)
    overload = _FUNCTIONAL_OVERLOAD.get(func, func._overloadname)
    functional = getattr(packet, overload, None) if packet is not None else None
    if functional is None or not _lowered(functional) or not _one_tensor_out(functional):
        return None  # (an op writing several outputs, as the amp ones, falls through)
    inner = resolve(functional)
    fast = INPLACE_NODES.get(functional)

    def impl(self, *args, **kwargs):
        if fast is not None:  # no promotion, broadcast or layout work: store the node
            h = getattr(self, "_h", None)
            node = None if h is None else fast(self, *args, **kwargs)
            if node is not None:
                if h.__class__ is Handle:
                    h.assign(node)
                else:
                    assign(self, node)
                return self
        write(self, inner(self, *args, **kwargs))
        return self

    return impl


def _one_tensor_out(func: OpOverload) -> bool:
    """``func`` takes one ``self`` tensor and returns one tensor (what the
    in-place rewrite ``write(self, func(...))`` can store)."""
    schema = func._schema
    return (len(schema.returns) == 1 and str(schema.returns[0].type) == "Tensor"
            and bool(schema.arguments) and str(schema.arguments[0].type) == "Tensor")


_ELEMENT_TYPE = {"List[Tensor]": "Tensor", "List[number]": "number",
                 "List[Optional[Tensor]]": "Optional[Tensor]"}


def _foreach_variant(func: OpOverload) -> Impl | None:
    name = func.overloadpacket.__name__
    if not name.startswith("_foreach_"):
        return None
    base = name[len("_foreach_"):]
    inplace = base.endswith("_")
    element = _element_overload(func, FOREACH_RENAMES.get(base, base))
    if element is None:
        return None
    args = func._schema.arguments
    listed = [str(a.type) in _ELEMENT_TYPE for a in args]
    kw_only = {a.name for a in element._schema.arguments if a.kwarg_only}
    keyword = [name if name in kw_only else None
               for name in (a.name for a in element._schema.arguments)]
    plan = list(zip(listed, keyword + [None] * (len(listed) - len(keyword)), strict=False))
    length_arg = listed.index(True)
    element_impl = resolve(element)
    # kw-only arguments of the foreach op arrive in kwargs and pass through
    # by name; only a positional one that the element takes by keyword needs
    # the general path
    simple = not any(kw for (_, kw), a in zip(plan, args, strict=False) if not a.kwarg_only)

    def impl(*fargs, **fkwargs):
        if simple:  # one column per argument: the lists, and repeated scalars
            n = len(fargs[length_arg])
            columns = [v if is_list else repeat(v, n)
                       for v, (is_list, _) in zip(fargs, plan, strict=False)]
            for v, (is_list, _) in zip(fargs, plan, strict=False):
                if is_list and len(v) != n:
                    raise RuntimeError(f"Tensor lists must have the same number of tensors, "
                                       f"got {n} and {len(v)}")
            results = [element_impl(*pos, **fkwargs) for pos in zip(*columns, strict=True)]
            return None if inplace else results
        results = []
        for i in range(len(fargs[length_arg])):
            pos, kw = [], dict(fkwargs)
            for value, (is_list, name) in zip(fargs, plan, strict=False):
                value = value[i] if is_list else value
                if name is None:
                    pos.append(value)
                else:
                    kw[name] = value
            results.append(element_impl(*pos, **kw))
        return None if inplace else results

    return impl


def _element_overload(func: OpOverload, base: str) -> OpOverload | None:
    """The overload of ``aten.<base>`` whose argument types are ``func``'s
    with each list replaced by its element type."""
    packet = getattr(aten, base, None)
    if packet is None:
        return None
    wanted = [_ELEMENT_TYPE.get(str(a.type), str(a.type)) for a in func._schema.arguments]
    for overload in packet.overloads():
        candidate = getattr(packet, overload)
        types = [str(a.type) for a in candidate._schema.arguments]
        if types[:len(wanted)] == wanted and all(
                a.default_value is not None or a.type.kind() == "OptionalType"
                for a in candidate._schema.arguments[len(wanted):]):
            return candidate
    return None


FOREACH_RENAMES = {"norm": "linalg_vector_norm"}


def _decomposition(func: OpOverload) -> Impl | None:
    return _DECOMPOSITIONS.get(func)


def _implicit(func: OpOverload) -> Impl | None:
    if torch._C._dispatch_has_kernel_for_dispatch_key(func.name(), "CompositeImplicitAutograd"):
        return func.decompose
    return None


_EXPLICIT = torch._C.DispatchKey.CompositeExplicitAutograd


def _explicit(func: OpOverload) -> Impl | None:
    """The op's CompositeExplicitAutograd kernel, run on lazy tensors (it
    calls other ATen ops, which dispatch here again)."""
    if torch._C._dispatch_has_kernel_for_dispatch_key(func.name(), "CompositeExplicitAutograd"):
        return lambda *args, **kwargs: func._op_dk(_EXPLICIT, *args, **kwargs)
    return None


def _fallback_resolver(func: OpOverload) -> Impl:
    return _fallback.eager(func)


RESOLVERS: tuple[tuple[str, Callable[[OpOverload], Impl | None]], ...] = (
    ("table", _exact),
    ("table", _packet),
    ("out=", _out_variant),
    ("in-place view", _inplace_view),
    ("in-place", _inplace_variant),
    ("foreach", _foreach_variant),
    ("decomposition", _decomposition),
    ("implicit", _implicit),
    ("explicit", _explicit),
    ("fallback", _fallback_resolver),
)


def resolve(func: OpOverload) -> Impl:
    """The implementation of ``func``, found once and memoized."""
    impl = RESOLVED.get(func)
    if impl is not None:
        return impl
    for how, resolver in RESOLVERS:
        impl = resolver(func)
        if impl is not None:
            if how in GUARDED:
                impl = _guarded(func, impl)
            if func.is_view:
                impl = _views_like_base(impl)
            RESOLVED[func], HOW[func] = impl, how
            return impl
    raise AssertionError("the fallback resolver always answers")


GUARDED = ("decomposition", "implicit", "explicit")


def _views_like_base(impl: Impl) -> Impl:
    """A view is an inference tensor exactly when its base is one (torch's
    rule, in and out of inference mode): its wrapper is made in that mode, so
    that autograd can give a normal view its base's version counter."""
    def run(self, *args, **kwargs):
        inference = self.is_inference()
        if torch.is_inference_mode_enabled() is inference:
            return impl(self, *args, **kwargs)
        with torch.inference_mode(inference):
            return impl(self, *args, **kwargs)

    return run


def _guarded(func: OpOverload, impl: Impl) -> Impl:
    """A decomposition that declines (returns NotImplemented) or re-enters
    its own op (a kernel that calls itself through an ``out=`` variant)
    falls back to eager for that call."""
    state = {"active": False, "fallback": None}

    def fallback(*args, **kwargs):
        if state["fallback"] is None:
            state["fallback"] = _fallback.eager(func)
        return state["fallback"](*args, **kwargs)

    def run(*args, **kwargs):
        if state["active"]:
            return fallback(*args, **kwargs)
        state["active"] = True
        try:
            out = impl(*args, **kwargs)
        finally:
            state["active"] = False
        return fallback(*args, **kwargs) if out is NotImplemented else out

    return run


def _lowered(func: OpOverload) -> bool:
    resolve(func)
    return HOW[func] != "fallback"


def _decomposition_table() -> dict:
    from torch._decomp import core_aten_decompositions, decomposition_table

    table = dict(decomposition_table)
    table.update(core_aten_decompositions())
    for op in NO_DECOMPOSITION:
        table.pop(op, None)
    return table


# torch decompositions that disagree with torch's own eager kernels (never
# used, even for an op that a table row now serves)
# multilabel_margin_loss_forward: scores the slots after a target's -1 as
# class 0 and keeps a 1-d input's batch axis (checked against the CPU kernel);
# lowered in aten/nn_extra.py
NO_DECOMPOSITION: tuple = (aten.multilabel_margin_loss_forward.default,)

_DECOMPOSITIONS = _decomposition_table()
