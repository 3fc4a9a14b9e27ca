"""Contractions and windows: dot_general, convolution, reduce_window."""

from __future__ import annotations

from lazytensor.core.ops import REDUCE_WINDOW, Op
from lazytensor.core.registry import ShapeError, register
from lazytensor.core.rules.common import memoized, same_dtypes


def _dot_general(operands, attrs):
    lhs, rhs = operands
    ((lc, rc), (lb, rb)), out_dtype = attrs
    dtype = same_dtypes(Op.DOT_GENERAL, operands)
    for a, b in (*zip(lc, rc, strict=False), *zip(lb, rb, strict=False)):
        if lhs.shape[a] != rhs.shape[b]:
            raise ShapeError(
                f"DOT_GENERAL: dimension {a} of {lhs.shape} does not match "
                f"dimension {b} of {rhs.shape}"
            )
    batch = tuple(lhs.shape[d] for d in lb)
    lfree = tuple(s for d, s in enumerate(lhs.shape) if d not in lc and d not in lb)
    rfree = tuple(s for d, s in enumerate(rhs.shape) if d not in rc and d not in rb)
    return batch + lfree + rfree, out_dtype or dtype


def window_output(size: int, window: int, stride: int, lo: int, hi: int,
                  base_dilation: int = 1, window_dilation: int = 1) -> int:
    """Output length of one windowed dimension (XLA's formula)."""
    dilated = (size - 1) * base_dilation + 1 + lo + hi if size else lo + hi
    effective = (window - 1) * window_dilation + 1
    return max(0, (dilated - effective) // stride + 1)


def _conv(operands, attrs):
    lhs, rhs = operands
    strides, padding, lhs_dil, rhs_dil, (lspec, rspec, ospec), groups, batch_groups = attrs
    dtype = same_dtypes(Op.CONV, operands)
    if not (lhs.ndim == rhs.ndim == len(lspec) == len(rspec) == len(ospec)):
        raise ShapeError(f"CONV: ranks of {lhs.shape}, {rhs.shape} do not match {lspec}/{rspec}")
    spatial = [c for c in lspec if c not in "NC"]
    n, c = lhs.shape[lspec.index("N")], lhs.shape[lspec.index("C")]
    o, i = rhs.shape[rspec.index("O")], rhs.shape[rspec.index("I")]
    if c != i * groups:
        raise ShapeError(
            f"CONV: input has {c} channels but weight expects {i * groups} "
            f"({i} per group x {groups} groups)"
        )
    sizes = {"N": n // batch_groups, "C": o}
    for k, name in enumerate(spatial):
        lo, hi = padding[k]
        sizes[name] = window_output(
            lhs.shape[lspec.index(name)], rhs.shape[rspec.index(name)], strides[k], lo, hi,
            lhs_dil[k], rhs_dil[k],
        )
    return tuple(sizes[ch] for ch in ospec), dtype


def _reduce_window(op: Op):
    def rule(operands, attrs):
        (x, _init), (dims, strides, padding, base_dil, win_dil) = operands, attrs
        same_dtypes(op, operands)
        if not len(dims) == len(strides) == len(padding) == x.ndim:
            raise ShapeError(f"{op.name}: window attributes must have rank {x.ndim}")
        shape = tuple(
            window_output(s, w, st, lo, hi, bd, wd)
            for s, w, st, (lo, hi), bd, wd in zip(x.shape, dims, strides, padding, base_dil,
                                                  win_dil, strict=False)
        )
        return shape, x.dtype

    return rule


register(Op.DOT_GENERAL, 2, ("dimension_numbers", "preferred_element_type"),
         memoized(_dot_general))
register(Op.CONV, 2, (
    "window_strides", "padding", "lhs_dilation", "rhs_dilation", "dimension_numbers",
    "feature_group_count", "batch_group_count",
), _conv)
for _op in REDUCE_WINDOW:
    register(_op, 2, (
        "window_dimensions", "window_strides", "padding", "base_dilation", "window_dilation",
    ), _reduce_window(_op))
