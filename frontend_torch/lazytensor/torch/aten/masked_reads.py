"""``x[mask]`` reads with graphs of x's shape (``lazytensor.core.masked``):
a read through one lazy bool mask of x's leading shape is tagged with x;
elementwise ops and dtype casts of tagged reads (with scalars, 0-d tensors
and tensors of fewer dims than the read, which broadcast over the trailing
dims the read shares with x) are tagged with the same op on the sources;
``x[mask] = value`` of a tagged value is a select, and a whole ``sum`` or
``mean`` of a tagged read reduces the source where the mask holds. So
``(pred[mask] == y[mask]).float().mean()`` over a padding mask that changes
every batch compiles once. Any other use takes the general path (the read's
own gather, whose shape is the mask's count).
"""

from __future__ import annotations

from lazytensor.core import masked
from lazytensor.core.ir import Node
from lazytensor.torch._tensor import LazyTensor, wrap

import torch


def read_mask(x, indices) -> LazyTensor | None:
    """The lazy bool mask of ``x[indices]`` when it is the only index, over
    x's leading dims; None otherwise."""
    if len(indices) != 1 or not isinstance(indices[0], LazyTensor):
        return None
    mask = indices[0]
    if mask.dtype is not torch.bool or not 0 < mask.dim() <= x.dim() \
            or tuple(mask.shape) != tuple(x.shape)[:mask.dim()]:
        return None
    return mask


def tag_read(out: LazyTensor, source: Node, mask: LazyTensor) -> None:
    """``out`` is ``source`` read through ``mask`` (already materialized by
    the read, so its node is a leaf until it changes)."""
    masked.tag(out._h, source, mask._h.node)


def _handle(a):
    return a._h if isinstance(a, LazyTensor) else None


def _ndim(a) -> int:
    return a.dim() if isinstance(a, torch.Tensor) else 0


def through(impl):
    """``impl`` (an elementwise op or cast) that tags its result when its
    tensor arguments are masked reads of one mask."""
    def tagged(*args, **kwargs):
        out = impl(*args, **kwargs)
        if masked.TAGS and type(out) is LazyTensor:
            found = masked.full_operands(args, _handle, _ndim)
            if found is not None:
                full = impl(*[wrap(a) if type(a) is Node else a for a in found[0]], **kwargs)
                if type(full) is LazyTensor:
                    masked.tag(out._h, full._h.node, found[1])
        return out

    return tagged


def written(x, indices, values) -> Node | None:
    """The full-shape value of ``x[indices] = values`` when ``values`` is a
    tagged read (or an elementwise result of reads) of this mask; None
    otherwise."""
    if not masked.TAGS or not isinstance(values, LazyTensor):
        return None
    mask = read_mask(x, indices)
    return None if mask is None else masked.written(values._h, mask._h.node, tuple(x.shape))


def whole(impl):
    """``sum``/``mean`` that reduce a tagged read over all its dims (or dim
    0) as the source's reduction where the mask holds."""
    def reduced(x, dim=None, keepdim=False, **kwargs):
        found = None
        if masked.TAGS and type(x) is LazyTensor and not keepdim:
            dims = (dim,) if isinstance(dim, int) else tuple(dim) if dim else None  # []: all
            found = masked.reduced(x._h, dims)
        if found is None:
            return impl(x, dim, keepdim, **kwargs)
        full, mask, dims = found
        return impl(wrap(full), list(dims), False, mask=masked.spread(mask, full.shape), **kwargs)

    return reduced
