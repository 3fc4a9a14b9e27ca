"""torch.unique and torch.unique_consecutive, lazily: the core groups the
rows (``lazytensor.core.composite.sets.distinct``), one barrier reads how many
groups there are (the result length, which torch's own CUDA kernel syncs
for too), and the values, inverse indices and counts are computed on the
device from the grouped rows.

torch's conventions: values keep x's dtype, inverse and counts are int64;
a flat unique's inverse has x's shape, a ``dim=`` unique's has x's size
along dim; ``_unique2``, ``_unique`` and a flat ``unique_consecutive``
(no dim, or dim=0 of a 1-d x; not dim=-1) return empty (0,) int64 tensors for results not asked
for, ``unique_dim`` and ``unique_consecutive`` along a dim of an n-d x
compute them all.
``sorted=False`` sorts too (torch's CPU kernel does). Left to torch,
eagerly and counted: complex inputs (torch's own results and
errors), empty inputs along a dim, and a float ``dim=`` unique whose rows hold a NaN (torch orders
such rows by a comparison that NaN leaves undefined).
"""

from __future__ import annotations

from lazytensor.core import Node, Op, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import full
from lazytensor.core.composite.movement.shape import moveaxis, reshape, stack
from lazytensor.core.composite.sets import distinct as D
from lazytensor.torch._fallback import eager
from lazytensor.torch._tensor import LazyTensor, wrap
from lazytensor.torch.aten._common import aten, dim, node

_NOT_ASKED = (0,)


def _read_count(g: D.Groups, nan_check: Node | None) -> tuple[int, bool]:
    """The number of groups (and whether ``nan_check`` holds): one read."""
    count = D.group_count(g)
    if nan_check is None:
        return int(wrap(count)._h.numpy()), False
    both = stack([count, make(Op.CONVERT, (nan_check,), dt.int64)])
    k, nan = (int(v) for v in wrap(both)._h.numpy())
    return k, bool(nan)


def _held(g: D.Groups) -> list[LazyTensor]:
    """The groups as live lazy tensors: the read's barrier computes them
    once, and the results are built from them afterwards."""
    parts = [g.rows, g.starts, g.ids] + ([] if g.order is None else [g.order])
    return [wrap(p) for p in parts]


def _regroup(held: list[LazyTensor]) -> D.Groups:
    rows, starts, ids, *order = (node(t) for t in held)
    return D.Groups(rows, order[0] if order else None, starts, ids)


def _grouped(rows: Node, sort: bool, nan_matters: bool):
    """(groups, count) of ``rows``, or None when a NaN sends it to torch."""
    g = D.groups(rows, sort)
    held = _held(g)
    k, nan = _read_count(g, D.has_nan(rows) if nan_matters else None)
    if nan:
        return None
    return _regroup(held), k


def _results(g: D.Groups, k: int, inverse_shape, want_inverse: bool, want_counts: bool):
    """(firsts node, inverse, counts) with torch's empty tensors for those
    not asked for."""
    empty = full(_NOT_ASKED, 0, dt.int64)
    inv = reshape(D.inverse(g), inverse_shape) if want_inverse else empty
    cnt = D.counts(g, k) if want_counts else empty
    return D.firsts(g, k), wrap(inv), wrap(cnt)


def _eager_needed(x, along: bool) -> bool:
    """Complex inputs (torch raises), and empty ones along a dim (torch's
    results and errors depend on which dims are empty)."""
    return x.is_complex() or (along and not x.numel())


def _flat(x, sort: bool, want_inverse: bool, want_counts: bool):
    """Unique (``sort``) or consecutive-unique elements of x flattened."""
    n = node(x)
    if not x.numel():  # no groups: nothing to read
        none = full((0,), 0, dt.int64)
        inv = full(n.shape, 0, dt.int64) if want_inverse else none
        return wrap(full((0,), 0, n.dtype)), wrap(inv), wrap(none)
    g, k = _grouped(reshape(n, (-1,)), sort, False)
    values, inv, cnt = _results(g, k, n.shape, want_inverse, want_counts)
    return wrap(values), inv, cnt


def _along(x, d: int, sort: bool, want_inverse: bool, want_counts: bool):
    """Unique (``sort``) or consecutive-unique slices of x along dim d;
    None when a NaN sends it to torch."""
    n = node(x)
    if not n.ndim:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    d = dim(d, n.ndim)
    found = _grouped(moveaxis(n, d, 0), sort, sort)
    if found is None:
        return None
    g, k = found
    values, inv, cnt = _results(g, k, (g.ids.shape[0],), want_inverse, want_counts)
    return wrap(moveaxis(values, 0, d)), inv, cnt


def _unique2(x, sorted=True, return_inverse=False, return_counts=False):  # noqa: A002
    if _eager_needed(x, False):
        return eager(aten._unique2.default)(x, sorted, return_inverse, return_counts)
    return _flat(x, True, return_inverse, return_counts)


def _unique(x, sorted=True, return_inverse=False):  # noqa: A002
    if _eager_needed(x, False):
        return eager(aten._unique.default)(x, sorted, return_inverse)
    return _flat(x, True, return_inverse, False)[:2]


def _unique_dim(x, d, sorted=True, return_inverse=False, return_counts=False):  # noqa: A002
    if not _eager_needed(x, True):
        found = _along(x, d, True, True, True)
        if found is not None:
            return found
    return eager(aten.unique_dim.default)(x, d, sorted, return_inverse, return_counts)


def _unique_consecutive(x, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    flat = dim is None or (dim == 0 and x.dim() == 1)  # torch: dim=0 of a 1-d x is flat
    if _eager_needed(x, not flat):
        return eager(aten.unique_consecutive.default)(x, return_inverse, return_counts, dim)
    if flat:
        return _flat(x, False, return_inverse, return_counts)
    return _along(x, dim, False, True, True)


TABLE = {
    aten._unique2.default: _unique2, aten._unique.default: _unique,
    aten.unique_dim.default: _unique_dim,
    aten.unique_consecutive.default: _unique_consecutive,
}
