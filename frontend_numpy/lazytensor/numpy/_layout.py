"""numpy's memory layout, tracked only as far as it decides view-or-copy.

numpy's answer to "does this reshape (ravel, ...) return a view?" depends on
the array's strides. A lazy array keeps ``None`` when it is C-contiguous (the
fast, common case) and its byte strides otherwise; the functions here compute
the strides numpy would give the result of a view op, and numpy's K-order
choice for freshly allocated outputs (ufuncs, ``np.copy``, ``*_like``).

>>> reshape_strides((2, 3), (8, 16), (6,), 8) is COPY  # a transposed array: numpy copies
True
>>> reshape_strides((2, 3), None, (3, 2), 8) is None  # C-contiguous: a C-contiguous view
True
"""

from __future__ import annotations

from typing import Sequence

Strides = tuple[int, ...] | None  # None: C-contiguous
COPY = object()  # sentinel returned by reshape_strides when numpy must copy


def c_strides(shape: Sequence[int], itemsize: int) -> tuple[int, ...]:
    """Row-major byte strides of a dense array."""
    out, step = [], itemsize
    for size in reversed(shape):
        out.append(step)
        step *= max(size, 1)
    return tuple(reversed(out))


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
    return c_strides(shape, itemsize) if strides is None else strides


def transpose(shape, strides: Strides, itemsize: int, perm: Sequence[int]) -> Strides:
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
    if strides is None and all(isinstance(i, int) for i in items[:-1]) and _is_c_tail(items):
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


def _is_c_tail(items) -> bool:
    return not items or isinstance(items[-1], int) or items[-1] == slice(None)


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
    dense = c_strides([out_shape[p] for p in perm], 1)
    strides = [0] * ndim
    for k, p in enumerate(perm):
        strides[p] = dense[k]
    return tuple(strides)


def _aligned(out_shape, shape, strides) -> list[int]:
    """An operand's strides broadcast to ``out_shape`` (0 on broadcast dims)."""
    lead = len(out_shape) - len(shape)
    return [0] * lead + [0 if n == 1 else s for n, s in zip(shape, strides, strict=False)]


def scale(strides: Strides, itemsize: int) -> Strides:
    """Dense element-unit strides (from ``k_order``) in bytes, or None if C."""
    return strides if strides is None else tuple(s * itemsize for s in strides)
