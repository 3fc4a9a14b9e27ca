"""Strided memory layout, tracked only as far as it decides view-or-copy.

Whether a reshape (ravel, flatten, ...) can return a view depends on the
array's strides. This module answers it with numpy's rule
(``_attempt_nocopy_reshape``) in numpy's terms: strides in bytes, or in
elements with ``itemsize`` 1, and ``None`` for a C-contiguous array (the
fast, common case, after numpy's relaxed test that ignores size-1 dims).
The functions compute the strides of the result of a view op, and the
K-order layout (axes ordered like the operands' strides) of freshly
allocated outputs (elementwise results, copies, ``*_like``). Pure Python
over shapes and strides: no nodes, no framework.

``composite/movement/strides.py`` answers the same view-or-copy question with
torch's rule (``computeStride``), and the two are kept apart on purpose:
they agree on *whether* a view exists but not on the strides of size-1
dims. A (3, 1) array with element strides (1, 3), viewed as (1, 3, 1), gets
(3, 1, 1) from numpy and (3, 1, 3) from torch; both frontends report their
framework's exact strides, so each keeps its rule. Torch also tracks
explicit strides and storage offsets where numpy normalizes to ``None``.
Dense strides (``c_strides``, ``permuted_strides``) are shared: both
modules and both frontends use the ones here.

>>> reshape_strides((2, 3), (8, 16), (6,), 8) is COPY  # a transposed array: numpy copies
True
>>> reshape_strides((2, 3), None, (3, 2), 8) is None  # C-contiguous: a C-contiguous view
True
"""

from __future__ import annotations

import functools
from typing import Sequence

Strides = tuple[int, ...] | None  # None: C-contiguous
COPY = object()  # sentinel returned by reshape_strides when numpy must copy


def c_strides(shape: Sequence[int], itemsize: int = 1) -> tuple[int, ...]:
    """Row-major strides of a dense array, in bytes of ``itemsize`` (in
    elements by default); a size-0 axis counts as 1.

    >>> c_strides((2, 3, 4)), c_strides((2, 3), 8)
    ((12, 4, 1), (24, 8))
    """
    out, step = [], itemsize
    for size in reversed(shape):
        out.append(step)
        step *= max(size, 1)
    return tuple(reversed(out))


def permuted_strides(shape: Sequence[int], physical_order: Sequence[int],
                     itemsize: int = 1) -> tuple[int, ...]:
    """Dense strides of ``shape`` whose axes lie in memory in
    ``physical_order`` (outermost first), in bytes of ``itemsize``.

    >>> permuted_strides((2, 3, 4), (0, 2, 1))
    (12, 1, 3)
    """
    strides = [0] * len(shape)
    acc = itemsize
    for axis in reversed(physical_order):
        strides[axis] = acc
        acc *= max(shape[axis], 1)
    return tuple(strides)


def normalize(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> Strides:
    """``None`` when ``strides`` are C-contiguous for ``shape`` (numpy's relaxed
    rule: size-1 dims may have any stride; empty arrays are contiguous)."""
    if 0 in shape:
        return None
    expected = itemsize
    for size, stride in zip(reversed(shape), reversed(strides), strict=False):
        if size == 1:
            continue
        if stride != expected:
            return tuple(strides)
        expected *= size
    return None


def full(shape: Sequence[int], strides: Strides, itemsize: int) -> tuple[int, ...]:
    """The explicit strides of a layout (``None`` spelled out as C strides).

    >>> full((2, 3), None, 4)
    (12, 4)
    """
    return c_strides(shape, itemsize) if strides is None else strides


def transpose(shape, strides: Strides, itemsize: int, perm: Sequence[int]) -> Strides:
    """Strides after permuting the axes by ``perm`` (always a view).

    >>> transpose((2, 3), None, 8, (1, 0))
    (8, 24)
    """
    st = full(shape, strides, itemsize)
    return normalize([shape[p] for p in perm], [st[p] for p in perm], itemsize)


def reshape_strides(shape, strides: Strides, newshape, itemsize: int):
    """The strides of ``reshape(newshape)`` as a view, or ``COPY`` (numpy's
    no-copy reshape: each group of old dims that maps onto a group of new
    dims must be contiguous within itself)."""
    if strides is None or 0 in shape:
        return None
    old = [(n, s) for n, s in zip(shape, strides, strict=False) if n != 1]
    new_strides = [itemsize] * len(newshape)
    oi = ni = 0
    while ni < len(newshape) and oi < len(old):
        nprod, oprod, nj, oj = newshape[ni], old[oi][0], ni + 1, oi + 1
        while nprod != oprod:
            if nprod < oprod:
                nprod, nj = nprod * newshape[nj], nj + 1
            else:
                oprod, oj = oprod * old[oj][0], oj + 1
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return COPY
        new_strides[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            new_strides[k - 1] = new_strides[k] * newshape[k]
        ni, oi = nj, oj
    return normalize(newshape, new_strides, itemsize)


def index_strides(shape, strides: Strides, itemsize: int, items: Sequence) -> Strides:
    """Strides after basic indexing by ``items`` (ints, slices and None, the
    Ellipsis already expanded, one entry per consumed or new dim)."""
    if strides is None and _keeps_c_order(items):
        return None
    st = full(shape, strides, itemsize)
    out_shape, out_st, dim = [], [], 0
    for item in items:
        if item is None:
            out_shape.append(1)
            out_st.append(0)
        elif isinstance(item, slice):
            start, stop, step = item.indices(shape[dim])
            out_shape.append(len(range(start, stop, step)))
            out_st.append(st[dim] * step)
            dim += 1
        else:
            dim += 1
    out_shape += shape[dim:]
    out_st += st[dim:]
    return normalize(out_shape, out_st, itemsize)


def _keeps_c_order(items) -> bool:
    """Whether a C-contiguous array indexed by ``items`` stays C-contiguous
    (the common loop reads ``x[i]``, ``x[i, 1:-1]``, ``x[j:j + n]``): ints,
    then at most one unit-step slice, then whole axes."""
    k, n = 0, len(items)
    while k < n and isinstance(items[k], int):
        k += 1
    if k < n and type(items[k]) is slice and items[k].step in (None, 1):
        k += 1
    while k < n and items[k] == slice(None):
        k += 1
    return k == n


def k_order(out_shape: Sequence[int], operands: Sequence[tuple]) -> Strides:
    """Layout numpy gives a fresh output in K order: axes sorted like the
    operands' strides (``operands``: (shape, strides, itemsize) each, strides
    not None). An axis pair is swapped only when no operand disagrees; C
    order wins conflicts. Returns the dense strides of that axis order."""
    ndim = len(out_shape)
    per_op = [_aligned(out_shape, shape, full(shape, st, isz)) for shape, st, isz in operands]
    perm = list(range(ndim))  # outermost first
    for i in range(ndim - 2, -1, -1):  # insert axis perm[i] among the inner axes
        axis, pos = perm[i], i
        for j in range(i + 1, ndim):
            decided, swap = False, False
            for st in per_op:
                a, b = st[axis], st[perm[j]]
                if a and b:  # move `axis` inward when the inner axis strides wider
                    swap = False if abs(b) <= abs(a) else (swap or not decided)
                    decided = True
            if not decided:
                continue
            if not swap:
                break
            pos = j
        perm.insert(pos, perm.pop(i))
    return permuted_strides(out_shape, perm)


def _aligned(out_shape, shape, strides) -> list[int]:
    """An operand's strides broadcast to ``out_shape`` (0 on broadcast dims)."""
    lead = len(out_shape) - len(shape)
    return [0] * lead + [0 if n == 1 else s for n, s in zip(shape, strides, strict=False)]


def scale(strides: Strides, itemsize: int) -> Strides:
    """Dense element-unit strides (from ``k_order``) in bytes, or None if C."""
    return strides if strides is None else tuple(s * itemsize for s in strides)


def fresh(out_shape: Sequence[int], operands: Sequence[tuple], itemsize: int) -> Strides:
    """The layout of a freshly allocated output in K order, in bytes of
    ``itemsize``: C-contiguous (``None``) unless some operand (``(shape,
    strides, itemsize)`` each, strides not None) is laid out otherwise.

    >>> fresh((2, 3), [((2, 3), (8, 16), 8)], 4)  # like a transposed operand
    (4, 8)
    >>> fresh((2, 3), [], 4) is None
    True
    """
    if not operands or len(out_shape) < 2:
        return None
    key = tuple((tuple(shape), tuple(st), isz) for shape, st, isz in operands)
    return _fresh(tuple(out_shape), key, itemsize)


@functools.lru_cache(maxsize=1024)
def _fresh(out_shape: tuple, operands: tuple, itemsize: int) -> Strides:
    """``fresh``, remembered: a loop of ops on transposed arrays asks for
    the same few layouts at every op (half the cost of recording one)."""
    dense = k_order(out_shape, operands)
    return normalize(out_shape, scale(dense, itemsize), itemsize)


def broadcast(shape: Sequence[int], strides: Strides, itemsize: int,
              new_shape: Sequence[int]) -> Strides:
    """Strides of a broadcast view: 0 along new and stretched axes.

    >>> broadcast((3,), None, 8, (2, 3))
    (0, 8)
    """
    st = full(shape, strides, itemsize)
    lead = len(new_shape) - len(shape)
    out = [0] * lead + [0 if n == 1 and m != 1 else s
                        for n, m, s in zip(shape, new_shape[lead:], st, strict=False)]
    return normalize(new_shape, out, itemsize)


def diagonal(shape: Sequence[int], strides: Strides, itemsize: int, axis1: int, axis2: int,
             out_shape: Sequence[int]) -> Strides:
    """Strides of the diagonal view over (normalized) ``axis1`` and ``axis2``:
    the other axes in order, then one axis stepping along both.

    >>> diagonal((3, 3), None, 8, 0, 1, (3,))
    (32,)
    """
    st = full(shape, strides, itemsize)
    out = [st[d] for d in range(len(shape)) if d not in (axis1, axis2)] + [st[axis1] + st[axis2]]
    return normalize(out_shape, out, itemsize)


def memory_order(strides: Sequence[int]) -> tuple[int, ...]:
    """Axes from the widest to the narrowest stride (K order for a ravel).

    >>> memory_order((8, 16))
    (1, 0)
    """
    return tuple(sorted(range(len(strides)), key=lambda d: -abs(strides[d])))


def is_f_contiguous(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> bool:
    """Whether ``strides`` are Fortran-contiguous for ``shape``.

    >>> is_f_contiguous((2, 3), (8, 16), 8), is_f_contiguous((2, 3), (24, 8), 8)
    (True, False)
    """
    return normalize(tuple(shape)[::-1], tuple(strides)[::-1], itemsize) is None


def extent(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> tuple[int, int]:
    """``(start, span)`` of a non-empty strided layout: the byte offset of
    element 0 from the lowest byte any element occupies (negative strides
    put it past the start), and the bytes from that lowest to the highest.

    >>> extent((3,), (16,), 8), extent((2, 3), (-24, 8), 8)
    ((0, 40), (24, 48))
    """
    low = sum(s * (n - 1) for n, s in zip(shape, strides, strict=True) if s < 0)
    high = sum(s * (n - 1) for n, s in zip(shape, strides, strict=True) if s > 0)
    return -low, high - low + itemsize
