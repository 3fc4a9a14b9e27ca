"""The rest of the numpy namespace that maps onto core composites: dtype
queries, the take/put family, in-place helpers (copyto, putmask,
fill_diagonal), searching and partitioning.
"""

from __future__ import annotations

import math
import operator

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation import arrays as cc
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.promotion import NUMPY
from lazytensor.core.composite.indexing import take as ctake
from lazytensor.core.composite.linalg import einsum as ceinsum
from lazytensor.core.composite.linalg import matrix as cm
from lazytensor.core.composite.movement import bitpack
from lazytensor.core.composite.movement import rearrange as cr
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.composite.sorting import sort as csort
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.numpy._base import lift, ndarray, node_of, wrap
from lazytensor.numpy._dispatch import implements, to_host, to_lazy
from lazytensor.numpy._indexing import setitem
from lazytensor.numpy._math import complex_order
from lazytensor.numpy._ufuncs import assign, store

import numpy as np


def _dtype_of(x):
    return x.dtype if isinstance(x, ndarray) else x


@implements("result_type")
def result_type(*arrays_and_dtypes):
    """numpy's result_type, reading lazy arrays' dtypes without their data."""
    return np.result_type(*(_dtype_of(x) for x in arrays_and_dtypes))


@implements("can_cast")
def can_cast(from_, to, casting="safe"):
    return np.can_cast(_dtype_of(from_), to, casting)


@implements("min_scalar_type")
def min_scalar_type(a):
    return np.min_scalar_type(a.__array__() if isinstance(a, ndarray) else a)


# ------------------------------------------------------------------ take / put

def _index_operand(indices):
    """Host indices stay host (bounds-checked, static); lazy ones are Nodes."""
    return indices._h.node if isinstance(indices, ndarray) else np.asarray(indices)


def _along_axis_index(arr, indices, axis) -> Node:
    """The index operand; numpy's IndexError where the axes other than
    ``axis`` of ``arr`` and ``indices`` do not broadcast (numpy indexes
    with them)."""
    idx = _index_operand(indices)
    if isinstance(idx, np.ndarray):
        idx = lift(idx)
    shape = np.shape(arr)
    if axis is not None and idx.ndim == len(shape):
        axis = normalize_axis(axis, len(shape))
        others = [tuple(1 if d == axis else n for d, n in enumerate(s)) for s in (idx.shape, shape)]
        try:
            np.broadcast_shapes(*others)
        except ValueError:
            sizes = " ".join("(" + ",".join(map(str, s)) + ")" for s in others)
            raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                             f"with shapes {sizes} ") from None
    return idx


@implements("take_along_axis")
def take_along_axis(arr, indices, axis=-1):
    return wrap(ctake.take_along_axis(node_of(arr), _along_axis_index(arr, indices, axis), axis))


@implements("put_along_axis")
def put_along_axis(arr, indices, values, axis):
    """In place: ``arr`` receives ``values`` at ``indices`` along ``axis``."""
    idx = _along_axis_index(arr, indices, axis)
    assign(arr, ctake.put_along_axis(arr._h.node, idx, lift(values), axis))


@implements("putmask")
def putmask(a, /, mask, values):
    """In place: ``a.flat[i] = values.flat[i % values.size]`` where ``mask``
    holds (numpy repeats ``values`` by position): one lazy select."""
    if isinstance(a, np.ndarray):  # a host array is written in place, by numpy
        return np.putmask(a, to_host(mask), to_host(values))
    if not isinstance(a, ndarray):
        raise TypeError(f"argument a of putmask must be a numpy array, not {type(a).__name__}")
    target = a._h.node
    if math.prod(np.shape(mask) if not isinstance(mask, ndarray) else mask.shape) != a.size:
        raise ValueError("putmask: mask and data must be the same size")
    v = lift(values)
    if isinstance(v, Node) and 0 in v.shape:
        return  # numpy: nothing to repeat, a unchanged
    if isinstance(v, Node) and v.shape not in ((), target.shape):
        v = reshape(cr.resized(ew.convert(v, target.dtype), a.size), target.shape)
    m = ew.as_node(node_of(mask), dt.bool_, target.shape)
    assign(a, make(Op.SELECT, (m, ew.as_node(v, target.dtype, target.shape), target)))


@implements("copyto")
def copyto(dst, src, casting="same_kind", where=True):
    """In place: dst = src (broadcast), where ``where``; numpy's casting check."""
    node = node_of(src) if not isinstance(lift(src), (bool, int, float, complex)) else lift(src)
    if isinstance(node, type(dst._h.node)):
        if node.dtype != dst.dtype and not np.can_cast(node.dtype, dst.dtype, casting):
            raise TypeError(f"Cannot cast array data from {node.dtype!r} to {dst.dtype!r} "
                            f"according to the rule {casting!r}")
    else:
        node = ew.as_node(node, dst.dtype)
    store(np.add, dst, node, where, "unsafe")


@implements("fill_diagonal")
def fill_diagonal(a, val, wrap=False):
    """In place: the main diagonal of a 2-d (or all-equal-sides) array; a
    tall matrix with ``wrap`` restarts it every ``ncols + 1`` rows."""
    assign(a, cm.fill_diagonal(a._h.node, lift(val), bool(wrap)))


def _of_shape(name: str):
    """``numpy.<name>(arr, ...)``, whose index arrays depend on ``arr``'s
    shape alone: numpy computes them on a stand-in of that shape (checks
    and errors are numpy's own); the lazy array is never read."""
    def indices_from(arr, *args, **kwargs):
        stand_in = np.broadcast_to(np.zeros((), bool), node_of(arr).shape)
        return to_lazy(getattr(np, name)(stand_in, *args, **kwargs))

    indices_from.__name__ = indices_from.__qualname__ = name
    return indices_from


for _name in ("diag_indices_from", "tril_indices_from", "triu_indices_from"):
    implements(_name)(_of_shape(_name))


# ----------------------------------------------------------- search, partition

@implements("searchsorted")
def searchsorted(a, v, side="left", sorter=None):
    x, y = lift(a), lift(v)
    dtype = ew.promote(NUMPY, x, y)
    x = ew.as_node(x, dtype, getattr(x, "shape", ()))
    y = ew.as_node(y, dtype, getattr(y, "shape", ()))
    if sorter is not None:
        sorter = _sorter(sorter, x)
    if dt.is_complex(dtype) and x.ndim == 1:
        return wrap(_complex_searchsorted(x, y, side, sorter))
    return wrap(csort.searchsorted(x, y, side, sorter))


def _sorter(sorter, a: Node) -> Node:
    """numpy's checks of searchsorted's ``sorter``: integers, one per element
    of ``a`` and (host values) within its bounds."""
    s = node_of(sorter)
    if s.dtype.kind not in "iu":
        raise TypeError("sorter must only contain integers")
    if s.ndim != 1 or a.ndim != 1 or s.shape[0] != a.shape[0]:
        raise ValueError("sorter.size must equal a.size")
    if not isinstance(sorter, ndarray):
        host = np.asarray(sorter)
        if host.size and (host.min() < 0 or host.max() >= a.shape[0]):
            raise ValueError("Sorter index out of range.")
    return s


def _complex_searchsorted(a: Node, v: Node, side: str, sorter: Node | None) -> Node:
    """searchsorted of complex values in numpy's complex order: each v's
    place in one stable sort of ``a`` and ``v`` together (v first for
    'left', so equal elements of ``a`` follow it; last for 'right') minus
    the elements of ``v`` sorted before it."""
    if sorter is not None:
        a = ctake.take(a, sorter)
    flat = reshape(v, (-1,))
    n, m = a.shape[0], flat.shape[0]
    parts = (flat, a) if side == "left" else (a, flat)
    order = complex_order(cs.concatenate(parts), 0)
    position = cc.iota((n + m,), 0, dt.int64)
    first_v = 0 if side == "left" else n
    is_v = make(Op.AND, (make(Op.GE, (position, ew.full((n + m,), first_v, dt.int64))),
                         make(Op.LT, (position, ew.full((n + m,), first_v + m, dt.int64)))))
    v_so_far = csort.cumulative("cumsum", ctake.take(ew.convert(is_v, dt.int64), order), 0)
    a_before = make(Op.SUB, (make(Op.ADD, (position, ew.full((n + m,), 1, dt.int64))), v_so_far))
    place = csort.argsort(order, 0)  # the sorted position of each element
    found = ctake.take(a_before, cs.slice_axis(place, 0, first_v, first_v + m))
    return reshape(found, v.shape)


def _check_select_kind(kind) -> None:
    if not isinstance(kind, str):
        raise TypeError(f"select kind must be str, not {type(kind).__name__}")
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")


@implements("partition")
def partition(a, kth, axis=-1, kind="introselect", order=None):
    _check_select_kind(kind)
    return wrap(csort.partition(node_of(a), kth, axis))


@implements("argpartition")
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    _check_select_kind(kind)
    return wrap(csort.argpartition(node_of(a), kth, axis))


# ------------------------------------------------------------------- einsum

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_PLANNERS = ("greedy", "optimal")  # (a tuple: einsum's optimize= may be a list)


@implements("einsum")
def einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """numpy.einsum (explicit, implicit and sublist forms) in the operands'
    promoted dtype (or ``dtype``)."""
    if not operands:
        raise ValueError("must specify the einstein sum subscripts string and at least one "
                         "operand, or at least one operand and its corresponding subscripts list")
    if isinstance(operands[0], str) and len(operands) == 1:
        raise ValueError("must specify the einstein sum subscripts string and at least one "
                         "operand")
    if out is not None and not isinstance(out, (ndarray, np.ndarray)):
        raise TypeError("keyword parameter out must be an array for einsum")
    if not isinstance(order, str) or order.upper() not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if casting not in _CASTINGS:
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' "
                         f"(got {casting!r})")
    if not (optimize is None or isinstance(optimize, bool) or optimize in _PLANNERS):
        einsum_path(*operands, optimize=optimize)  # an explicit path: numpy's checks of it
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], list(operands[1:])
    else:
        sublists = list(operands[1::2]) + ([operands[-1]] if len(operands) % 2 else [])
        for sub in sublists:
            for label in sub:
                if label is not Ellipsis and not 0 <= operator.index(label) < 52:
                    raise ValueError("subscript is not within the valid range [0, 52)")
        subscripts, arrays = ceinsum.sublist_form(operands)
    nodes = [node_of(a) for a in arrays]
    target = np.dtype(dtype) if dtype is not None else \
        ew.promote(NUMPY, *nodes) if nodes else None
    node = ceinsum.einsum(subscripts.replace(" ", ""), *nodes, dtype=target)
    if out is None:
        return wrap(node)
    store(np.add, out, node, casting=casting)
    return out


@implements("einsum_path")
def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """numpy.einsum_path: the contraction order depends on shapes only, so
    numpy plans it on zero-strided stand-ins of the lazy operands (nothing
    is computed or read back)."""
    stand_ins = [np.broadcast_to(np.zeros((), a.dtype), a.shape) if isinstance(a, ndarray)
                 else a for a in operands]
    return np.einsum_path(*stand_ins, optimize=optimize, einsum_call=einsum_call)


@implements("put")
def put(a, ind, v, mode="raise"):
    """In place: the flat positions ``ind`` of ``a`` receive ``v`` (repeated)."""
    if isinstance(a, np.ndarray):  # a host array is written in place, by numpy
        return np.put(a, to_host(ind), to_host(v), mode)
    if not isinstance(a, ndarray):
        raise TypeError(f"argument 1 must be numpy.ndarray, not {type(a).__name__}")
    flat = a.reshape(-1) if a._st is None else None
    positions = _put_positions(ind)
    n = a.size
    if n == 0 and positions.size:
        raise IndexError("cannot replace elements of an empty array")
    if (v.size if isinstance(v, ndarray) else np.size(v)) == 0:
        return  # numpy's put writes nothing, and checks no index, without values
    if mode == "wrap":
        positions = positions % n
    elif mode == "clip":
        positions = np.clip(positions, 0, n - 1)
    values = _cycled(v, positions.size, a.dtype)
    if flat is not None:
        setitem(flat, positions, values)
    else:
        setitem(a, np.unravel_index(np.where(positions < 0, positions + n, positions), a.shape),
                values)


def _put_positions(ind) -> np.ndarray:
    """``put``'s flat positions as numpy reads them: an array (lazy or not) is
    cast to intp under the 'safe' rule (booleans are positions 0 and 1, never a
    mask); a list or scalar converts as ``np.array(ind, dtype=np.intp)``
    (floats truncate)."""
    if isinstance(ind, ndarray):
        ind = ind.__array__()
    if not isinstance(ind, np.ndarray):
        return np.array(ind, dtype=np.intp).ravel()
    if not np.can_cast(ind.dtype, np.intp, "safe"):
        raise TypeError(f"Cannot cast array data from {ind.dtype!r} to "
                        f"{np.dtype(np.intp)!r} according to the rule 'safe'")
    return ind.astype(np.intp).ravel()


def _cycled(v, count: int, dtype) -> ndarray:
    """``v`` flattened and repeated cyclically to ``count`` values (numpy's rule)."""
    return wrap(cr.resized(ew.convert(node_of(v), dtype), count))


@implements("place")
def place(arr, mask, vals):
    """In place: arr[mask] = vals repeated (the mask is materialized: its count
    decides how many values are taken)."""
    host_mask = np.asarray(mask.__array__() if isinstance(mask, ndarray) else mask, bool)
    count = int(np.count_nonzero(host_mask))
    if count and not np.size(vals):
        raise ValueError("Cannot insert from an empty array!")
    if count:
        setitem(arr, host_mask, _cycled(vals, count, arr.dtype))


# ------------------------------------------------------------- shared memory

def _positions(a) -> tuple:
    """The storage under ``a`` (its root handle) and the flat positions in it
    that ``a`` reads; a host array shares no storage with a lazy one."""
    if not isinstance(a, ndarray):
        return None, None
    root = getattr(a._h, "base", a._h)
    flat = reshape(cc.arange(math.prod(root.shape)), root.shape)
    return root, flat if root is a._h else a._h.forward(flat)


def _overlap(a, b, bounds: bool) -> bool:
    (root_a, pos_a), (root_b, pos_b) = _positions(a), _positions(b)
    if root_a is None or root_a is not root_b:
        return False
    pos_a, pos_b = wrap(pos_a).__array__(), wrap(pos_b).__array__()
    if bounds:  # numpy's may_share_memory compares the memory extents
        return bool(pos_a.size and pos_b.size and pos_a.min() <= pos_b.max()
                    and pos_b.min() <= pos_a.max())
    return bool(np.intersect1d(pos_a, pos_b).size)


@implements("shares_memory")
def shares_memory(a, b, max_work=None):
    """Whether views ``a`` and ``b`` of one storage read a common element."""
    return _overlap(a, b, bounds=False)


@implements("may_share_memory")
def may_share_memory(a, b, max_work=None):
    """Whether the storage extents of views ``a`` and ``b`` overlap."""
    return _overlap(a, b, bounds=True)


# ------------------------------------------------------------------ bit packing

def _bit_axis(a, axis) -> tuple[Node, int]:
    """The array and the packing axis: the flattened array for axis None
    (a 0-d array packs as a 1-d one)."""
    x = node_of(a)
    if axis is None or x.ndim == 0:
        if x.ndim == 0 and axis is not None:
            normalize_axis(axis, 1)
        return cs.ravel(x), 0
    return x, normalize_axis(axis, x.ndim)


@implements("packbits")
def packbits(a, /, axis=None, bitorder="big"):
    x, axis = _bit_axis(a, axis)
    if not (dt.is_int(x.dtype) or dt.is_bool(x.dtype)):
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    return wrap(bitpack.packbits(x, axis, bitorder == "little"))


@implements("unpackbits")
def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    x, axis = _bit_axis(a, axis)
    if x.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if count is not None:
        if isinstance(count, (bool, np.bool_)):
            raise TypeError("an integer is required")
        count = operator.index(count)
        if count < -8 * x.shape[axis]:
            raise ValueError("-count larger than number of elements")
    if not isinstance(bitorder, str) or bitorder[:1] not in ("b", "l"):
        raise ValueError("'order' must begin with 'l' or 'b'")
    return wrap(bitpack.unpackbits(x, axis, count, bitorder[0] == "l"))
