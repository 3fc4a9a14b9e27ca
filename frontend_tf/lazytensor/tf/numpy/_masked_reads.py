"""``x[mask]`` reads with graphs of x's shape (``lazytensor.core.masked``),
as numpy's and torch's frontends do: a read through one lazy bool mask of
x's leading shape is tagged with x; tnp's elementwise functions and
operators of tagged reads (with scalars and arrays of fewer axes, which
broadcast over the trailing axes the read shares with x) are tagged with
the same function of the sources; and a whole ``sum``, ``prod``, ``max``,
``min``, ``any``, ``all`` or ``mean`` of a tagged read (or one over axis 0)
is the source's reduction where the mask holds. So
``tnp.mean(loss[valid])`` over a mask that changes every batch compiles
once. tnp's arrays are immutable: there are no masked writes. Any other use
takes the general path (the read's gather, whose shape is the mask's count).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core import masked
from lazytensor.core.composite.elementwise.apply import as_node, float_or_float64
from lazytensor.core.composite.reduce import reduction
from lazytensor.core.composite.reduce.folds import identity_of
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import CoreError, make
from lazytensor.tf._array import WEAK, ndarray, wrap

# tnp reduction -> the core's reduction kind (None: mean)
_KIND = {"sum": "sum", "prod": "prod", "amax": "max", "max": "max", "amin": "min",
         "min": "min", "any": "any", "all": "all", "mean": None}


def tag_read(out, source: Node, key) -> None:
    """``out`` is ``source[key]``: tag it when ``key`` is one lazy bool mask
    of the source's leading shape (read to the host by the read itself, so
    its node is a leaf until it changes)."""
    if isinstance(key, ndarray) and isinstance(out, ndarray):
        mask = key._node()
        if dt.is_bool(mask.dtype) and 0 < mask.ndim <= source.ndim \
                and mask.shape == source.shape[:mask.ndim]:
            masked.tag(out._h, source, mask)


def _handle(v):
    return v._h if isinstance(v, ndarray) else None


def _ndim(v) -> int | None:
    if type(v) in WEAK or isinstance(v, np.generic):
        return 0
    return v.ndim if isinstance(v, (ndarray, np.ndarray)) else None


def wrapped(name: str, impl: Callable) -> Callable:
    """``impl`` (a tnp function over user arguments, returning nodes) taking
    masked reads into account when it is elementwise (tnp's ``_scalar`` and
    ``_bin_op`` families) or one of the reductions above; else ``impl``."""
    if getattr(impl, "elementwise", False):
        def elementwise(*args, **kwargs):
            out = impl(*args, **kwargs)
            if not masked.TAGS or kwargs or not isinstance(out, Node):
                return out
            return _tagged(impl, args, wrap(out))

        return elementwise
    if name in _KIND:
        def reduced(*args, **kwargs):
            found = _reduced(name, impl, args, kwargs) if masked.TAGS else None
            return impl(*args, **kwargs) if found is None else found

        return reduced
    return impl


def _tagged(impl, args, out: ndarray) -> ndarray:
    found = masked.full_operands(args, _handle, _ndim)
    if found is not None:
        try:
            full = impl(*found[0])
        except (CoreError, TypeError, ValueError):
            return out
        if isinstance(full, Node) and full.dtype == out._h.node.dtype:
            masked.tag(out._h, full, found[1])
    return out


def _reduced(name: str, impl, args, kwargs) -> Node | None:
    """The reduction of a whole tagged read as its source's under the mask;
    None for the general path."""
    if len(args) != 1 or not isinstance(args[0], ndarray) or set(kwargs) - {"axis"}:
        return None  # dtype=, keepdims=, out=, a positional axis: the general path
    axis = kwargs.get("axis")
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    elif axis is not None and not (isinstance(axis, tuple)
                                   and all(isinstance(x, (int, np.integer)) for x in axis)):
        return None
    found = masked.reduced(args[0]._h, axis)
    if found is None or dt.is_complex(found[0].dtype):
        return None
    full, mask, axes = found
    where = masked.spread(mask, full.shape)
    kind = _KIND[name]
    if kind is None:
        return reduction.masked_mean(float_or_float64(full), where, axes, False)
    identity = as_node(identity_of(full.dtype, kind), full.dtype, full.shape)
    return impl(make(Op.SELECT, (where, full, identity)), axes)  # tnp's own dtype rules
