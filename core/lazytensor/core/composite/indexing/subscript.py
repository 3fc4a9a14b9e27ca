"""numpy basic and advanced indexing on nodes, and its functional update.

``getitem(x, index)`` and ``setitem(x, index, value)`` take numpy's index
forms: ints (negative too), slices with any step, ``None``, ``Ellipsis``,
integer arrays (int Nodes, or static host arrays/lists, which are checked
against the bounds at once and become constants -- or, with ``upload=True``,
device data, so that new index values never recompile), host boolean masks
(converted to their ``nonzero()`` integer arrays) and Python/host 0-d bools.

A boolean *Node* has a data-dependent result shape and is refused: the
frontend materializes it and passes the host mask (``bool_indices`` gives
the integer arrays). Out-of-bounds *dynamic* indices cannot raise lazily:
reads clip (``mode="clip"``, as JAX) and writes are dropped. Negative
dynamic indices wrap with ``select(i < 0, i + n, i)``.

Python ints become scalar parameters (DYNAMIC_SLICE / DYNAMIC_UPDATE_SLICE
starts, or gather indices), so ``x[i]`` in a loop over ``i`` compiles once;
slices are static SLICE attributes.

The layout follows numpy: integers count as advanced indices when any
array is present; the broadcast index shape replaces the advanced axes in
place when they are adjacent in the index, and goes first otherwise.

Writes: basic indices become DYNAMIC_UPDATE_SLICE (unit strides) or PAD +
SELECT (strided); advanced ones a SCATTER -- except when every advanced
index is 0-d (``cm[t, p] += 1`` in a loop over arrays): one point, read with
DYNAMIC_SLICE and written with DYNAMIC_UPDATE_SLICE, which XLA compiles
about twice as fast as GATHER/SCATTER. XLA does not say which of several
duplicate indices wins a scatter; numpy's rule (the last write wins) is
enforced by scattering each update's position with ``max`` and dropping the
updates that lost (skipped for static unique indices or ``unique_indices``).
``kind="add"`` (and mul/min/max) accumulates over duplicates, like
``np.add.at``.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((3, 4, 5)), np.dtype("float32"))
>>> getitem(x, (0, slice(None), [1, 2])).shape, getitem(x, (None, ..., slice(None, None, -2))).shape
((2, 4), (1, 3, 4, 3))
>>> setitem(x, ([0, 0], 1), 7.0).shape
(3, 4, 5)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const, iota
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing.parse import IndexingError, expand, expand_basic, unmask  # noqa: F401  (re-exported names)
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.ir import Node
from lazytensor.core.leaves import constant, scalar
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make
from lazytensor.core.runtime import get_runtime

INDEX = dt.int64


# ------------------------------------------------------------------ the plan

@dataclass(frozen=True)
class IndexPlan:
    """How an index applies to arrays of one shape.

    ``pre_shape``: x with the axes of 0-d bools inserted; ``triples``: per
    axis of pre_shape, the (start, step, length) it is sliced with (ints:
    length 1; advanced axes: whole); ``drop``: axes removed after slicing
    (basic ints); ``adv_dims``/``adv``: axes of the sliced array indexed by
    the advanced index Nodes, broadcast to ``bshape``; ``static``: their host
    values when all are known; ``z_shape``: shape after the gather;
    ``final_shape``: with the new axes; ``rev``/``window``: the REV axes and
    the SLICE (starts, limits, strides) that read the slices (None: none)."""

    pre_shape: tuple
    triples: tuple
    drop: tuple
    adv_dims: tuple
    adv: tuple
    static: tuple | None
    bshape: tuple
    adjacent: bool
    z_shape: tuple
    final_shape: tuple
    rev: tuple
    window: tuple | None

    @property
    def sliced_shape(self) -> tuple:
        return tuple(length for _, _, length in self.triples)

    @property
    def is_basic(self) -> bool:
        return not self.adv_dims

    @functools.cached_property
    def reads(self) -> tuple:
        return _read_recipe(self)

    @functools.cached_property
    def writes(self) -> tuple | None:
        return _write_recipe(self)


def plan_index(shape: tuple[int, ...], index: Any, upload: bool = False,
               empty_mask_axes: bool = False) -> IndexPlan:
    """Parse ``index`` against an array of ``shape`` (raises numpy's errors).
    A basic index (ints, slices, None, Ellipsis) holds no nodes: its plan
    is memoized per (shape, index), as training loops index the same way
    every step. ``upload``: host index arrays (and masks' ``nonzero()``)
    become device data instead of constants, so a new index of the same
    shape reuses the compiled graph; their host values still decide the
    bounds checks and whether the indices are unique. ``empty_mask_axes``:
    see ``index_parse.unmask``."""
    key = _basic_key(index)
    if key is None:
        return _plan_index(shape, index, upload, empty_mask_axes)
    memo_key = (tuple(shape), key)
    plan = _BASIC_PLANS.get(memo_key)
    if plan is None:
        plan = _plan_index(shape, index)
        if len(_BASIC_PLANS) >= _BASIC_PLANS_LIMIT:
            _BASIC_PLANS.clear()
        _BASIC_PLANS[memo_key] = plan
    return plan


_BASIC_PLANS: dict[tuple, IndexPlan] = {}
_BASIC_PLANS_LIMIT = 4096


def _basic_key(index: Any) -> tuple | None:
    """A hashable key for a basic index, None for anything else (arrays,
    masks, bools, numpy integers...: parsed every time)."""
    items = index if type(index) is tuple else (index,)
    key = []
    for p in items:
        kind = type(p)
        if kind is int or p is None or p is Ellipsis:
            key.append(p)
        elif kind is slice and all(type(v) is int or v is None
                                   for v in (p.start, p.stop, p.step)):
            key.append((p.start, p.stop, p.step))
        else:
            return None
    return tuple(key)


def _plan_index(shape: tuple[int, ...], index: Any, upload: bool = False,
                empty_mask_axes: bool = False) -> IndexPlan:
    tokens, pre_shape = unmask(expand(index, len(shape)), tuple(shape), empty_mask_axes)
    has_adv = any(kind in ("array", "bool0") for kind, _ in tokens)
    triples, drop, slots, adv, adv_dims, hosts = [], [], [], [], [], []
    dim = new_axes = 0  # new_axes: axes of 0-d bools before dim (not x's)
    for kind, p in tokens:
        if kind == "new":
            slots.append(("new", 1))
            continue
        n = pre_shape[dim]
        if kind == "int" and not has_adv:
            triples.append((_check_int(p, n, dim), 1, 1))
            drop.append(dim)
        elif kind == "slice":
            start, stop, step = p.indices(n)
            length = len(range(start, stop, step))
            triples.append((start, step, length))
            slots.append(("dim", length))
        else:  # an advanced index (ints count as one when arrays are present)
            triples.append((0, 1, n))
            adv_dims.append(dim - len(drop))
            node, host = _index_array(p, n, dim - new_axes, upload)
            adv.append(node)
            hosts.append(host)
            slots.append(("adv", None))
            new_axes += kind == "bool0"
        dim += 1
    static = tuple(hosts) if all(h is not None for h in hosts) else None
    return _finish(pre_shape, triples, drop, adv_dims, adv, slots, static)


def _finish(pre_shape, triples, drop, adv_dims, adv, slots, static) -> IndexPlan:
    try:
        bshape = ew.broadcast_shapes(*(a.shape for a in adv))
    except ShapeError:
        shapes = " ".join(str(a.shape).replace(" ", "") for a in adv)
        raise IndexingError(f"shape mismatch: indexing arrays could not be broadcast together "
                            f"with shapes {shapes}") from None
    where = [i for i, (kind, _) in enumerate(slots) if kind == "adv"]
    adjacent = bool(where) and where[-1] - where[0] + 1 == len(where)
    sizes: list = []
    for i, (kind, size) in enumerate(slots):
        if kind != "adv":
            sizes.append((kind, size))
        elif adjacent and i == where[0]:
            sizes += [("dim", s) for s in bshape]
    if where and not adjacent:
        sizes = [("dim", s) for s in bshape] + sizes
    final = tuple(size for _, size in sizes)
    z_shape = tuple(size for kind, size in sizes if kind == "dim")
    rev, window = _window(pre_shape, triples, drop)
    return IndexPlan(tuple(pre_shape), tuple(triples), tuple(drop), tuple(adv_dims),
                     tuple(adv), static, bshape, adjacent, z_shape, final, rev, window)


def _window(shape, triples, drop) -> tuple[tuple, tuple | None]:
    """The REV axes (negative steps) and the SLICE attrs, in reversed
    coordinates, that read the slices (basic-int axes stay whole)."""
    rev = tuple(d for d, (_, step, length) in enumerate(triples) if step < 0 and length > 1)
    starts, limits, strides = [], [], []
    for d, (start, step, length) in enumerate(triples):
        n = shape[d]
        if d in drop:
            start, length = 0, n
        lo = (n - 1 - start if d in rev else start) if length else 0
        stride = abs(step) if length > 1 else 1
        starts.append(lo)
        limits.append(lo + (length - 1) * stride + 1 if length else 0)
        strides.append(stride)
    if not any(starts) and tuple(limits) == tuple(shape) and all(s == 1 for s in strides):
        return rev, None
    return rev, (tuple(starts), tuple(limits), tuple(strides))


def _check_int(i: int, n: int, axis: int) -> int:
    if not -n <= i < n:
        raise IndexingError(f"index {i} is out of bounds for axis {axis} with size {n}")
    return i % n


def _index_array(p: Any, n: int, axis: int, upload: bool = False,
                 ) -> tuple[Node, np.ndarray | None]:
    """An int64 index Node with negative entries wrapped, and its values
    when they are known at plan time (bounds-checked then), else None.
    Host arrays become constants, or device data when ``upload``."""
    if isinstance(p, int):  # a parameter: a new value does not recompile
        value = _check_int(p, n, axis)
        return scalar(value, INDEX), np.asarray(value)
    if isinstance(p, np.ndarray):
        bad = (p < -n) | (p >= n)
        if bad.any():
            raise IndexingError(f"index {p[bad].flat[0]} is out of bounds for axis {axis} "
                                f"with size {n}")
        host = np.where(p < 0, p + n, p).astype(np.int64)
        node = get_runtime().from_host(host, INDEX).node if upload else constant(host, INDEX)
        return node, host
    if p.op is Op.CONST:
        return _index_array(np.asarray(p.data).astype(np.int64), n, axis)
    return wrap_negative(ew.convert(p, INDEX), n), None


def wrap_negative(idx: Node, n: int) -> Node:
    """select(idx < 0, idx + n, idx) for an integer index Node."""
    negative = make(Op.LT, (idx, const(0, idx.dtype, idx.shape)))
    return make(Op.SELECT, (negative, make(Op.ADD, (idx, const(n, idx.dtype, idx.shape))), idx))


def bool_indices(mask: np.ndarray) -> tuple[Node, ...]:
    """The int64 index constants that a host boolean mask selects (its
    ``nonzero()``), for frontends that materialized a mask."""
    return tuple(constant(nz, INDEX) for nz in np.nonzero(np.asarray(mask, dtype=bool)))


# -------------------------------------------------------------------- reads

def getitem(x: Node, index: Any, mode: str = "clip", upload: bool = False,
            empty_mask_axes: bool = False) -> Node:
    """``x[index]`` with numpy's semantics (a copy: see views.py for views).

    Shape rule: numpy's; dtype unchanged. ``mode``: what a dynamic
    out-of-bounds array index reads ("clip", or "fill" with XLA's fill
    value: see rules/indexing.py);
    ``upload``, ``empty_mask_axes``: see ``plan_index``."""
    return apply_plan(x, plan_index(x.shape, index, upload, empty_mask_axes), mode)


def apply_plan(x: Node, plan: IndexPlan, mode: str = "clip") -> Node:
    """Read ``plan`` from x (whose shape is the plan's)."""
    y = _slice(reshape(x, plan.pre_shape), plan)
    if not plan.is_basic:
        y = _gather(y, plan, mode)
    return reshape(y, plan.final_shape)


def _slice(x: Node, plan: IndexPlan) -> Node:
    """REV the negative-step axes, one SLICE for strided slices, then one
    DYNAMIC_SLICE for the basic ints (kept as size-1 axes) and the unit-step
    slices: their starts are scalar parameters, so ``x[i]`` and
    ``x[i:i + 50]`` in a loop compile once."""
    if plan.rev:
        x = make(Op.REV, (x,), plan.rev)
    strided, dynamic = plan.reads
    if strided is not None:
        x = make(Op.SLICE, (x,), *strided)
    if dynamic is None:
        return x
    sizes, starts = dynamic
    return make(Op.DYNAMIC_SLICE, (x, *_starts(starts)), sizes)


def _read_recipe(plan: IndexPlan) -> tuple:
    """(the SLICE attrs or None, (sizes, starts) of the DYNAMIC_SLICE or
    None) that ``_slice`` records: computed once per plan."""
    window, strided = plan.window, None
    if window is not None and (plan.rev or any(s != 1 for s in window[2])):
        strided, window = window, None
    if window is None and not plan.drop:
        return strided, None
    if window is not None:
        ends = [hi - lo for lo, hi in zip(*window[:2], strict=True)]
    elif strided is not None:  # the shape the SLICE leaves
        ends = [-((lo - hi) // st) for lo, hi, st in zip(*strided, strict=True)]
    else:
        ends = plan.pre_shape
    lows = [0] * len(ends) if window is None else window[0]
    sizes = tuple(1 if d in plan.drop else s for d, s in enumerate(ends))
    moving = _partial_axes(plan) if window is not None else ()
    return strided, (sizes, _start_recipe(plan, lows, moving))


def _partial_axes(plan: IndexPlan) -> tuple[int, ...]:
    """The sliced axes that keep only part of their length."""
    return tuple(d for d, ((_, _, length), n) in enumerate(zip(plan.triples, plan.pre_shape,
                                                                 strict=True))
                 if d not in plan.drop and length != n)


def _start_recipe(plan: IndexPlan, lows: Sequence[int], moving: Sequence[int] = ()) -> tuple:
    """Per axis, (whether its start is a parameter, the start): parameters
    at the basic-int axes and the ``moving`` (partly sliced) axes, constants
    elsewhere."""
    return tuple((True, start) if d in plan.drop else (d in moving, low)
                 for d, ((start, _, _), low) in enumerate(zip(plan.triples, lows, strict=False)))


def _starts(recipe: tuple) -> list[Node]:
    """The start-index scalars of a ``_start_recipe``."""
    return [scalar(start, INDEX) if parameter else index_constant(start)
            for parameter, start in recipe]


@functools.lru_cache(maxsize=1024)
def index_constant(value: int) -> Node:
    """An int64 scalar constant (nodes are immutable, so one per value is shared)."""
    return constant(value, INDEX)


def _y_shape(plan: IndexPlan) -> tuple:
    return tuple(s for d, s in enumerate(plan.sliced_shape) if d not in plan.drop)


def _stacked_indices(plan: IndexPlan) -> Node:
    """The advanced indices broadcast and stacked: shape bshape + (k,)."""
    cols = [reshape(ew.broadcast_to(a, plan.bshape), (*plan.bshape, 1)) for a in plan.adv]
    return cols[0] if len(cols) == 1 else make(Op.CONCATENATE, tuple(cols), len(plan.bshape))


def _window_dims(plan: IndexPlan) -> tuple[int, ...]:
    """Positions in z of the sliced axes that are not advanced."""
    ny = len(_y_shape(plan))
    rest = [d for d in range(ny) if d not in plan.adv_dims]
    nb = len(plan.bshape)
    if not plan.adjacent:
        return tuple(nb + j for j in range(len(rest)))
    first = plan.adv_dims[0]
    return tuple(d if d < first else d - len(plan.adv_dims) + nb for d in rest)


def _empty_or_checked(y: Node, plan: IndexPlan) -> bool:
    """True when there is nothing to gather/scatter; raises when a non-empty
    index meets an empty axis (every index is out of bounds there)."""
    if math.prod(plan.bshape) == 0:
        return True
    for d in plan.adv_dims:
        if y.shape[d] == 0:
            raise IndexingError(f"index 0 is out of bounds for axis {d} with size 0")
    return False


def _gather(y: Node, plan: IndexPlan, mode: str) -> Node:
    if _empty_or_checked(y, plan):
        return ew.full(plan.z_shape, 0, y.dtype)
    if not plan.bshape and mode == "clip":  # one point: a (clamping) DYNAMIC_SLICE
        return reshape(make(Op.DYNAMIC_SLICE, (y, *_point_starts(y, plan)),
                            _point_sizes(y, plan)), plan.z_shape)
    sizes = tuple(1 if d in plan.adv_dims else s for d, s in enumerate(y.shape))
    return make(Op.GATHER, (y, _stacked_indices(plan)), _window_dims(plan), plan.adv_dims,
                plan.adv_dims, (), (), sizes, mode)


# ------------------------------------------------------------------- writes

_COMBINE = {"add": Op.ADD, "mul": Op.MUL, "min": Op.MIN, "max": Op.MAX}
_BOOL_COMBINE = {"add": Op.OR, "mul": Op.AND}  # bools add as OR, multiply as AND


def _combine(kind: str, old: Node, update: Node) -> Node:
    """``old`` combined with ``update`` by ``kind`` (as SCATTER combines)."""
    op = _BOOL_COMBINE.get(kind) if dt.is_bool(old.dtype) else None
    return make(op or _COMBINE[kind], (old, update))


def setitem(x: Node, index: Any, value: Node | bool | int | float | complex,
            kind: str = "set", unique_indices: bool = False, upload: bool = False,
            empty_mask_axes: bool = False) -> Node:
    """The functional ``x[index] = value``: a new node equal to x except at
    ``index``. ``value`` is converted to x's dtype and broadcast to the
    indexed shape. ``kind`` "add"/"mul"/"min"/"max" combines with the
    current values instead, accumulating over duplicate advanced indices.
    ``unique_indices`` promises no duplicates (skips last-write-wins);
    ``upload``, ``empty_mask_axes``: see ``plan_index``."""
    plan = plan_index(x.shape, index, upload, empty_mask_axes)
    return update_plan(x, plan, value, kind, unique_indices)


def update_plan(x: Node, plan: IndexPlan, value, kind: str = "set",
                unique_indices: bool = False) -> Node:
    """Write ``value`` through ``plan`` into x (see ``setitem``)."""
    value = _fit_value(ew.as_node(value, x.dtype) if not isinstance(value, Node)
                       else ew.convert(value, x.dtype), plan)
    x2 = reshape(x, plan.pre_shape)
    if plan.is_basic:
        update = reshape(value, plan.sliced_shape)
        if kind != "set":
            update = _combine(kind, _slice(x2, plan), update)
        out = _unslice(x2, plan, update)
    else:
        y = _slice(x2, plan)
        y = _scatter(y, plan, reshape(value, plan.z_shape), kind, unique_indices)
        out = _unslice(x2, plan, y)
    return reshape(out, x.shape)


def _fit_value(value: Node, plan: IndexPlan) -> Node:
    """``value`` broadcast to the indexed shape (extra leading 1s dropped)."""
    shape = plan.final_shape
    while value.ndim > len(shape) and value.shape[0] == 1:
        value = reshape(value, value.shape[1:])
    if not _broadcastable(value.shape, shape):
        _raise_fit(value, plan)
    return ew.broadcast_to(value, shape)


def _broadcastable(src: tuple, dst: tuple) -> bool:
    return len(src) <= len(dst) and all(
        a in (1, b) for a, b in zip(src[::-1], dst[::-1], strict=False))


def _raise_fit(value: Node, plan: IndexPlan) -> None:
    src, dst = (str(s).replace(" ", "") for s in (value.shape, plan.final_shape))  # numpy's
    if plan.is_basic:
        raise ShapeError(f"could not broadcast input array from shape {src} into shape {dst}")
    raise ShapeError(f"shape mismatch: value array of shape {src} could not be broadcast to "
                     f"indexing result of shape {dst}")


def _unslice(x: Node, plan: IndexPlan, update: Node) -> Node:
    """x with ``update`` (of the sliced shape) written where ``_slice`` read."""
    recipe = plan.writes
    if recipe is None:  # an empty slice
        return x
    rev, starts, cfg = recipe
    if rev:
        update = make(Op.REV, (update,), rev)
    if update.shape == x.shape:
        return update
    if starts is not None:
        return make(Op.DYNAMIC_UPDATE_SLICE, (x, update, *_starts(starts)))
    spread = make(Op.PAD, (update, ew.full((), 0, x.dtype)), cfg)
    mask = make(Op.PAD, (ew.full(update.shape, True, dt.bool_), ew.full((), False, dt.bool_)), cfg)
    return make(Op.SELECT, (mask, spread, x))


def _write_recipe(plan: IndexPlan) -> tuple | None:
    """(REV axes, the DYNAMIC_UPDATE_SLICE's ``_start_recipe`` or None, the
    PAD config of a strided write) that ``_unslice`` records; None when
    the index selects nothing. Computed once per plan."""
    if any(length == 0 for _, _, length in plan.triples):
        return None
    rev = tuple(d for d, (_, step, length) in enumerate(plan.triples) if step < 0 and length > 1)
    lows = [start + (length - 1) * step if step < 0 else start
            for start, step, length in plan.triples]
    strides = [abs(step) if length > 1 else 1 for _, step, length in plan.triples]
    if all(s == 1 for s in strides):
        return rev, _start_recipe(plan, lows, _partial_axes(plan)), None
    cfg = tuple((lo, n - lo - (length - 1) * st - 1, st - 1)
                for lo, st, (_, _, length), n in zip(lows, strides, plan.triples, plan.pre_shape,
                                                     strict=False))
    return rev, None, cfg


def _scatter(y: Node, plan: IndexPlan, update: Node, kind: str, unique: bool) -> Node:
    if _empty_or_checked(y, plan):
        return y
    if not plan.bshape:
        return _point_update(y, plan, update, kind)
    indices = _stacked_indices(plan)
    if kind == "set" and not unique and not _statically_unique(plan):
        indices = _last_write_wins(y, plan, indices)
    return make(Op.SCATTER, (y, indices, update), _window_dims(plan), plan.adv_dims,
                plan.adv_dims, (), (), kind, "fill")


def _point_starts(y: Node, plan: IndexPlan) -> list[Node]:
    """DYNAMIC_SLICE starts when every advanced index is 0-d (``bshape == ()``):
    the index at the advanced axes, 0 elsewhere."""
    starts = [index_constant(0)] * y.ndim
    for d, a in zip(plan.adv_dims, plan.adv, strict=True):
        starts[d] = a
    return starts


def _point_sizes(y: Node, plan: IndexPlan) -> tuple[int, ...]:
    return tuple(1 if d in plan.adv_dims else s for d, s in enumerate(y.shape))


def _point_update(y: Node, plan: IndexPlan, update: Node, kind: str) -> Node:
    """A write at one point of the advanced axes (``x[i, j] = v`` or ``+= v``
    with 0-d index arrays, as in loops over an array): DYNAMIC_UPDATE_SLICE,
    far cheaper for XLA to compile than SCATTER. Dynamic indices out of
    bounds leave y unchanged, as the 'fill' scatter drops them."""
    starts, sizes = _point_starts(y, plan), _point_sizes(y, plan)
    update = reshape(update, sizes)
    dynamic = plan.static is None  # known indices were bounds-checked at plan time
    old = make(Op.DYNAMIC_SLICE, (y, *starts), sizes) if kind != "set" or dynamic else None
    if kind != "set":
        update = _combine(kind, old, update)
    if dynamic:  # DYNAMIC_UPDATE_SLICE clamps: rewrite the old values instead
        update = make(Op.SELECT, (ew.broadcast_to(_inside(y, plan), sizes), update, old))
    return make(Op.DYNAMIC_UPDATE_SLICE, (y, update, *starts))


def _inside(y: Node, plan: IndexPlan) -> Node:
    """A 0-d bool: every (0-d) advanced index is within its axis."""
    inside = None
    for d, a in zip(plan.adv_dims, plan.adv, strict=True):
        ok = make(Op.AND, (make(Op.GE, (a, index_constant(0))),
                           make(Op.LT, (a, index_constant(y.shape[d])))))
        inside = ok if inside is None else make(Op.AND, (inside, ok))
    return inside


def _statically_unique(plan: IndexPlan) -> bool:
    """No duplicate index points: a single point (``x[i, j] = v`` with 0-d
    index Nodes, as in loops), or known indices that are all distinct."""
    if math.prod(plan.bshape) <= 1:
        return True
    if plan.static is None:
        return False
    cols = [np.broadcast_to(a, plan.bshape).ravel() for a in plan.static]
    flat = np.ravel_multi_index(cols, [_y_shape(plan)[d] for d in plan.adv_dims], mode="wrap")
    return len(np.unique(flat)) == flat.size


def _last_write_wins(y: Node, plan: IndexPlan, indices: Node) -> Node:
    """Indices where every update that a later duplicate overwrites points
    out of bounds (dropped by the 'fill' scatter), as numpy's last write wins."""
    k, nb = len(plan.adv_dims), len(plan.bshape)
    sizes = tuple(y.shape[d] for d in plan.adv_dims)
    pos = reshape(iota((math.prod(plan.bshape),), 0, INDEX), plan.bshape)
    dims = tuple(range(k))
    marks = make(Op.SCATTER, (ew.full(sizes, -1, INDEX), indices, pos), (), dims, dims,
                 (), (), "max", "fill")
    winner = make(Op.GATHER, (marks, indices), (), dims, dims, (), (), (1,) * k, "clip")
    keep = make(Op.EQ, (winner, pos))
    first = make(Op.SLICE, (indices,), (0,) * (nb + 1), (*plan.bshape, 1), (1,) * (nb + 1))
    moved = make(Op.SELECT, (reshape(keep, first.shape), first,
                             const(sizes[0], INDEX, first.shape)))
    if k == 1:
        return moved
    rest = make(Op.SLICE, (indices,), (0,) * nb + (1,), (*plan.bshape, k), (1,) * (nb + 1))
    return make(Op.CONCATENATE, (moved, rest), nb)
