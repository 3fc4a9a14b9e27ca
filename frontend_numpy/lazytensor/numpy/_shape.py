"""Shape functions with numpy's signatures and numpy's view-or-copy answers:
reshape/ravel (views when the strides allow), transpose & co, expand_dims,
squeeze, flips, rot90, split pieces, broadcasts (read-only views), and the
joins, tilings and paddings (copies), on the core's shape composites.
"""

from __future__ import annotations

import math
import operator

from lazytensor.core import layout as _layout
from lazytensor.core.composite.linalg import matrix as cm
from lazytensor.core.composite.movement import padding
from lazytensor.core.composite.movement import rearrange as cr
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce.axes import normalize_axes, normalize_axis
from lazytensor.core.composite.signal.fft import sliding_windows
from lazytensor.core.ir import Node
from lazytensor.core.runtime import ViewHandle
from lazytensor.numpy import _views
from lazytensor.numpy._base import WEAK_TYPES, as_index, ndarray, node_of, wrap
from lazytensor.numpy._creation import _like_strides, array_copy, as_dtype, asarray
from lazytensor.numpy._dispatch import eager, implements
from lazytensor.numpy._ufuncs import store

import numpy as np


def _lazy(a) -> ndarray:
    return a if isinstance(a, ndarray) else asarray(a)


def _shape_arg(shape) -> tuple[int, ...]:
    """A shape argument as ints; floats and bools raise numpy's TypeError
    (``int()`` would truncate ``1.5`` to a silently different shape)."""
    try:
        return (_dim(shape),)
    except TypeError:
        if not hasattr(shape, "__iter__"):
            raise
    return tuple(_dim(d) for d in shape)


def _dim(d) -> int:
    if isinstance(d, (bool, np.bool_)):
        raise TypeError("an integer is required")
    return operator.index(d)


# ---------------------------------------------------------------- reshaping

@implements("reshape")
def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    """numpy.reshape: a view when numpy's stride rule allows one, else a copy."""
    if shape is None and newshape is None:
        raise TypeError("reshape() missing 1 required positional argument: 'shape'")
    a = _lazy(a)
    shape = _shape_arg(shape if shape is not None else newshape)
    if order == "A" and a._st is not None and a.ndim > 1 and _layout.is_f_contiguous(
            a.shape, a.strides, a.itemsize):  # 'A': Fortran order for a Fortran array
        order = "F"
    if order == "F":
        rev = tuple(range(a.ndim))[::-1]
        flipped = _views.transpose(a, rev)
        out = _views.reshape(flipped, shape[::-1], copy)
        return _views.transpose(out, tuple(range(len(shape)))[::-1])
    if order not in ("C", "A"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', got {order!r}")
    return _views.reshape(a, shape, copy)


@implements("ravel")
def ravel(a, order="C"):
    """A 1-d view when the data are contiguous in ``order``, else a copy."""
    a = _lazy(a)
    fortran = a._st is not None and _layout.is_f_contiguous(a.shape, a.strides, a.itemsize)
    if order == "F" or (order == "A" and fortran):
        a = _views.transpose(a, tuple(range(a.ndim))[::-1])
    elif order == "K" and a._st is not None:
        a = _views.transpose(a, _layout.memory_order(a.strides))
    if a._st is None:
        return _views.reshape(a, (a.size,))
    return wrap(cs.ravel(a._h.node))


def flatten(a: ndarray, order="C") -> ndarray:
    """``ndarray.flatten``: always a copy."""
    out = ravel(a, order)
    return wrap(out._h.node) if isinstance(out._h, ViewHandle) else out


def reshape_in_place(a: ndarray, shape) -> None:
    """``a.shape = shape``: allowed only when no copy is needed (numpy)."""
    node = a._h.node
    new = cs.resolve_shape(cs.size(node), _shape_arg(shape))
    strides = _layout.reshape_strides(node.shape, a._st, new, node.dtype.itemsize)
    if strides is _layout.COPY:
        raise AttributeError("Incompatible shape for in-place modification. Use "
                             "`.reshape()` to make a copy with the desired shape.")
    moved = _views.reshape_view(a, new, strides)
    a._h, a._st = moved._h, moved._st


@implements("expand_dims")
def expand_dims(a, axis):
    a = _lazy(a)
    node = cs.expand_dims(a._h.node, axis)
    return _views.reshape(a, node.shape)


@implements("squeeze")
def squeeze(a, axis=None):
    a = _lazy(a)
    node = cs.squeeze(a._h.node, axis)
    return _views.reshape(a, node.shape)


def _atleast(ndim: int, arys):
    out = []
    for a in arys:
        a = _lazy(a)
        node = cs.atleast_nd(a._h.node, ndim)
        out.append(a if node is a._h.node else _views.reshape(a, node.shape))
    return out[0] if len(out) == 1 else tuple(out)


@implements("atleast_1d")
def atleast_1d(*arys):
    return _atleast(1, arys)


@implements("atleast_2d")
def atleast_2d(*arys):
    return _atleast(2, arys)


@implements("atleast_3d")
def atleast_3d(*arys):
    return _atleast(3, arys)


# ------------------------------------------------------------ permutations

@implements("transpose", "permute_dims")
def transpose(a, axes=None):
    """A view with permuted axes (reversed when ``axes`` is None)."""
    a = _lazy(a)
    node = a._h.node
    out = cs.transpose(node, axes)
    perm = out.attrs[0] if out is not node else tuple(range(node.ndim))
    return _views.transpose(a, perm)


@implements("matrix_transpose")
def matrix_transpose(x, /):
    x = _lazy(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return swapaxes(x, -1, -2)


@implements("swapaxes")
def swapaxes(a, axis1, axis2):
    a = _lazy(a)
    n = a.ndim
    i, j = normalize_axis(axis1, n), normalize_axis(axis2, n)
    perm = list(range(n))
    perm[i], perm[j] = j, i
    return _views.transpose(a, tuple(perm))


def _axis_sequence(axes) -> tuple:
    """One axis or any iterable of them (a range too) as a tuple, as numpy takes them."""
    try:
        return (operator.index(axes),)
    except TypeError:
        return tuple(axes)


@implements("moveaxis")
def moveaxis(a, source, destination):
    a = _lazy(a)
    node = a._h.node
    source, destination = _axis_sequence(source), _axis_sequence(destination)
    for what, axes in (("source", source), ("destination", destination)):
        for axis in axes:
            if not -node.ndim <= operator.index(axis) < node.ndim:
                raise np.exceptions.AxisError(operator.index(axis), node.ndim, what)
    out = cs.moveaxis(node, source, destination)
    return _views.transpose(a, out.attrs[0] if out is not node else tuple(range(node.ndim)))


# ------------------------------------------------------------- broadcasts

@implements("broadcast_to")
def broadcast_to(array, shape, subok=False):
    """A read-only view (numpy's) of ``array`` broadcast to ``shape``."""
    return _views.broadcast(_lazy(array), _shape_arg(shape))


@implements("broadcast_arrays")
def broadcast_arrays(*args, subok=False):
    """Views broadcast to the common shape; the broadcast ones are read-only
    (numpy lets them be written with a warning, repeating each write)."""
    arrays = [_lazy(a) for a in args]
    shape = cs.broadcast_shapes(*(a.shape for a in arrays))
    return tuple(a if a.shape == shape else _views.broadcast(a, shape) for a in arrays)


# ------------------------------------------------------------------- joins

def _join(fn, arrays, out, dtype, casting, *args):
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but both "
                        "were provided.")
    if dtype is not None and np.dtype(dtype).subdtype is not None:
        raise TypeError(f"The dtype `{np.dtype(dtype)!r}` is not a valid dtype for "
                        "concatenation since it is a subarray dtype (the subarray dimensions "
                        "would be added as array dimensions).")
    nodes = [node_of(a) for a in arrays]
    if dtype is not None and casting != "unsafe":
        for n in nodes:
            if not np.can_cast(n.dtype, as_dtype(dtype), casting):
                raise TypeError(f"Cannot cast array data from {n.dtype!r} to "
                                f"{as_dtype(dtype)!r} according to the rule {casting!r}")
    node = fn(nodes, *args, dtype=as_dtype(dtype))
    if out is None:
        return wrap(node)
    if np.shape(out) != node.shape:  # numpy's join never broadcasts into out
        raise ValueError("Output array has wrong dimensionality" if np.ndim(out) != node.ndim
                         else "Output array is the wrong shape")
    store(np.add, out, node, casting=casting)
    return out


_INTC_MAX = np.iinfo(np.intc).max


@implements("concatenate", "concat")
def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if isinstance(arrays, (list, tuple)) and len(arrays) > _INTC_MAX:  # before reading them
        raise ValueError(f"concatenate() only supports up to {_INTC_MAX} arrays but got "
                         f"{len(arrays)}.")
    if axis is None and dtype is None and out is None and casting == "same_kind":
        dtype = _weak_scalars_dtype(arrays)
    return _join(cs.concatenate, arrays, out, dtype, casting, axis)


def _weak_scalars_dtype(arrays) -> np.dtype | None:
    """numpy's result dtype of ``concatenate(arrays, axis=None)`` where an
    item is a Python scalar, which is weak there (NEP 50: a float32 and ``1.``
    join as float32; an int8 array and ``1000`` as int8, the scalar wrapping
    as numpy's cast does); None where no item is one."""
    if not isinstance(arrays, (list, tuple)) or not any(type(a) in WEAK_TYPES for a in arrays):
        return None
    return np.result_type(*(a if type(a) in WEAK_TYPES else node_of(a).dtype for a in arrays))


@implements("stack")
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    return _join(cs.stack, arrays, out, dtype, casting, axis)


@implements("hstack")
def hstack(tup, *, dtype=None, casting="same_kind"):
    return _join(cs.hstack, tup, None, dtype, casting)


@implements("vstack", "row_stack")
def vstack(tup, *, dtype=None, casting="same_kind"):
    return _join(cs.vstack, tup, None, dtype, casting)


@implements("dstack")
def dstack(tup):
    return _join(cs.dstack, tup, None, None, "same_kind")


@implements("column_stack")
def column_stack(tup):
    return _join(cs.column_stack, tup, None, None, "same_kind")


def _block_depth(arrays) -> int | None:
    """How deep ``np.block``'s lists nest (0: an array or scalar); None where
    numpy raises (a tuple, an empty list, lists nested to unequal depths)."""
    if type(arrays) is tuple:
        return None
    if type(arrays) is not list:
        return 0
    depths = {_block_depth(item) for item in arrays}
    return None if not arrays or None in depths or len(depths) != 1 else depths.pop() + 1


@implements("block")
def block(arrays):
    """Nested lists of blocks joined innermost first along the last axes,
    each block first given leading size-1 axes up to the result's rank."""
    depth = _block_depth(arrays)
    if depth is None:  # numpy's own error
        return eager("numpy.block", np.block, (arrays,), {})

    def leaves(item, level):
        return [x for i in item for x in leaves(i, level + 1)] if level < depth else [item]

    ndim = max(depth, *(np.ndim(leaf) for leaf in leaves(arrays, 0)))

    def build(item, level) -> Node:
        if level == depth:
            x = node_of(_lazy(item))
            return cs.reshape(x, (1,) * (ndim - x.ndim) + x.shape)
        return cs.concatenate([build(i, level + 1) for i in item], ndim - depth + level)

    return wrap(build(arrays, 0))  # a new array even for one block


# ------------------------------------------------------------------ splits

def _pieces(ary, indices_or_sections, axis, equal: bool) -> list:
    """Views between the core's split points (numpy.array_split / split)."""
    a = _lazy(ary)
    axis = normalize_axis(axis, a.ndim)
    points = cs.split_points(a.shape[axis], as_index(indices_or_sections), equal)
    lead = (slice(None),) * axis
    return [a[lead + (slice(lo, hi),)] for lo, hi in zip(points[:-1], points[1:], strict=False)]


@implements("array_split")
def array_split(ary, indices_or_sections, axis=0):
    """Views of near-equal sections (or between the given split points)."""
    return _pieces(ary, indices_or_sections, axis, False)


@implements("split")
def split(ary, indices_or_sections, axis=0):
    return _pieces(ary, indices_or_sections, axis, True)


@implements("hsplit")
def hsplit(ary, indices_or_sections):
    a = _lazy(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


@implements("vsplit")
def vsplit(ary, indices_or_sections):
    a = _lazy(ary)
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(a, indices_or_sections, 0)


@implements("dsplit")
def dsplit(ary, indices_or_sections):
    a = _lazy(ary)
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(a, indices_or_sections, 2)


# ------------------------------------------------------------ rearranging

@implements("flip")
def flip(m, axis=None):
    """A view reversed along ``axis`` (all axes when None)."""
    a = _lazy(m)
    axes = normalize_axes(axis, a.ndim)
    index = tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(a.ndim))
    return a[index]


@implements("fliplr")
def fliplr(m):
    a = _lazy(m)
    if a.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(a, 1)


@implements("flipud")
def flipud(m):
    a = _lazy(m)
    if a.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(a, 0)


@implements("rot90")
def rot90(m, k=1, axes=(0, 1)):
    """A view rotated in the plane of ``axes`` (the core's flips and transpose)."""
    a = out = _lazy(m)
    steps = cr.rot90_steps(a.ndim, k, axes)
    for step, arg in steps:
        out = flip(out, arg) if step == "flip" else transpose(out, arg)
    return out if steps else a[...]


@implements("sliding_window_view", namespace=np.lib.stride_tricks)
def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Read-only windows of ``window_shape`` sliding along ``axis`` (every
    axis when None): each such axis shrinks to ``n - w + 1`` and the window
    axes follow the array's, as numpy's strided view. numpy checks the
    arguments on a zero-strided stand-in; the windows are one gather per axis."""
    a = _lazy(x)
    if writeable:
        raise NotImplementedError("sliding_window_view(writeable=True): writes through "
                                  "overlapping windows are not recorded lazily")
    stand_in = np.broadcast_to(np.zeros((), a.dtype), a.shape)
    np.lib.stride_tricks.sliding_window_view(stand_in, window_shape, axis)  # numpy's errors
    windows = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    axes = (tuple(range(a.ndim)) if axis is None else
            np.lib.array_utils.normalize_axis_tuple(axis, a.ndim, allow_duplicate=True))
    strides = a.strides + tuple(a.strides[ax] for ax in axes)
    return _views.read_only(a, lambda node: sliding_windows(node, windows, axes), strides)


@implements("roll")
def roll(a, shift, axis=None):
    return wrap(cr.roll(node_of(a), shift, axis))


@implements("tile")
def tile(A, reps):
    return wrap(cr.tile(node_of(A), reps))


@implements("repeat")
def repeat(a, repeats, axis=None):
    if isinstance(repeats, (ndarray, np.ndarray)):
        repeats = np.asarray(repeats).tolist()  # static counts (data-dependent shape)
    return wrap(cr.repeat(node_of(a), repeats, axis))


_PAD_OPTIONS = {"constant": {"constant_values"}, "linear_ramp": {"end_values"},
                "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
                **dict.fromkeys(("maximum", "mean", "median", "minimum"), {"stat_length"})}


@implements("pad")
def pad(array, pad_width, mode="constant", **kwargs):
    if isinstance(mode, str) and set(kwargs) - _PAD_OPTIONS.get(mode, set()):
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': "
                         f"{set(kwargs) - _PAD_OPTIONS.get(mode, set())}")
    options = dict(kwargs)
    if options.pop("reflect_type", "even") != "even" or not isinstance(mode, str) or (
            mode not in _PAD_OPTIONS and mode not in ("edge", "wrap", "empty")):
        return eager("numpy.pad", np.pad, (array, pad_width, mode), kwargs)  # the core lacks it
    node = padding.pad(node_of(array), pad_width, mode, **options)
    return wrap(node, _like_strides(array, node, "K"))


# ----------------------------------------------------------------- matrices

@implements("tril")
def tril(m, k=0):
    return wrap(cm.tril(node_of(m), int(k)))


@implements("triu")
def triu(m, k=0):
    return wrap(cm.triu(node_of(m), int(k)))


@implements("diagonal")
def diagonal(a, offset=0, axis1=0, axis2=1):
    """A read-only view of a diagonal (as numpy's)."""
    a = _lazy(a)
    out = cm.diagonal(a._h.node, offset, axis1, axis2)  # numpy's errors, now
    i, j = normalize_axis(axis1, a.ndim), normalize_axis(axis2, a.ndim)
    layout = _layout.diagonal(a.shape, a._st, a.itemsize, i, j, out.shape)
    return _views.read_only(a, lambda n: cm.diagonal(n, offset, axis1, axis2), layout)


@implements("diag")
def diag(v, k=0):
    v = _lazy(v)
    if v.ndim == 2:
        return diagonal(v, k)
    return wrap(cm.diag(v._h.node, int(k)))


@implements("diagflat")
def diagflat(v, k=0):
    return wrap(cm.diagflat(node_of(v), int(k)))


@implements("trace")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    from lazytensor.numpy._reductions import sum_

    return sum_(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype, out=out)


# ----------------------------------------------------------- shape queries

@implements("shape")
def shape(a):
    return _lazy(a).shape


@implements("ndim")
def ndim(a):
    return _lazy(a).ndim


@implements("size")
def size(a, axis=None):
    a = _lazy(a)
    if axis is None:
        return a.size
    if isinstance(axis, tuple):  # numpy 2.4: the product over several axes
        return math.prod(a.shape[d] for d in cs.normalize_axis_tuple(axis, a.ndim))
    return a.shape[normalize_axis(axis, a.ndim)]


def copy_method(a: ndarray, order="C") -> ndarray:
    return array_copy(a, order)
