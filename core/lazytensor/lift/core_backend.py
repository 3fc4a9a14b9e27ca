"""The lifted program on lazy arrays: each term records core nodes (the
same composites every frontend uses), and the result goes back into the
caller's array type through one small table, keyed by the input's module
(the lifter imports no framework: a frontend's module is only imported
when its array is already in hand).

>>> import numpy as np
>>> from lazytensor.core.runtime import get_runtime
>>> node = CORE.input(get_runtime().from_host(np.arange(3)).node)
>>> str(node.dtype), node.shape
('int64', (3,))
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise import division
from lazytensor.core.composite.indexing.take import take
from lazytensor.core.composite.linalg import einsum as ein
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce import reduction as red
from lazytensor.core.composite.sets import counting
from lazytensor.core.composite.sorting.sort import scan
from lazytensor.core.ir import Node
from lazytensor.core.leaves import constant, scalar
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import get_runtime
from lazytensor.lift import terms as T
from lazytensor.lift.evaluate import EMPTY_IDENTITY, Invalid, Space, along, index_tuple, size_value

_BINARY = {"add": Op.ADD, "sub": Op.SUB, "mul": Op.MUL, "truediv": Op.DIV, "pow": Op.POW,
           "maximum": Op.MAX, "minimum": Op.MIN,
           "floordiv": division.floor_divide, "mod": division.remainder}
_UNARY = {"neg": Op.NEG, "abs": Op.ABS, "exp": Op.EXP, "sqrt": Op.SQRT, "log": Op.LOG,
          "cos": Op.COS, "sin": Op.SIN, "tanh": Op.TANH}
_FLOAT_ONLY = {"exp", "sqrt", "log", "cos", "sin", "tanh", "truediv"}
_SCAN = {"cumsum": Op.CUMSUM, "cumprod": Op.CUMPROD, "cummax": Op.CUMMAX, "cummin": Op.CUMMIN}
_COMPARE = {"lt": Op.LT, "le": Op.LE, "gt": Op.GT, "ge": Op.GE, "eq": Op.EQ, "ne": Op.NE}

# array type's module prefix -> (module, function wrapping a core Node as that array)
FRONTENDS = {
    "lazytensor.numpy": ("lazytensor.numpy._base", "wrap"),
    "lazytensor.torch": ("lazytensor.torch._tensor", "wrap"),
    "lazytensor.tf": ("lazytensor.tf._array", "wrap"),
}


def wrapper_for(value: Any) -> Callable[[Node], Any] | None:
    """The frontend function that wraps a Node as ``value``'s array type."""
    module = type(value).__module__
    for prefix, (where, name) in FRONTENDS.items():
        if (module == prefix or module.startswith(prefix + ".")) and hasattr(value, "_h"):
            return getattr(importlib.import_module(where), name)
    return None


def _common(*nodes: Node) -> list[Node]:
    dtype = dt.float64 if any(n.dtype.kind == "f" for n in nodes) else dt.int64
    shape = ew.broadcast_shapes(*[n.shape for n in nodes])
    return [ew.broadcast_to(ew.convert(n, dtype), shape) for n in nodes]


class CoreBackend:
    """Evaluation by recording core nodes."""

    def input(self, value) -> Node:
        node = value if isinstance(value, Node) else value._h.node if hasattr(value, "_h") \
            else get_runtime().from_host(np.asarray(value)).node
        return ew.convert(node, dt.int64 if node.dtype.kind in "biu" else dt.float64)

    def apply(self, term: T.Term, args: list, space: Space) -> Node:
        kind = term.kind
        if kind == T.BIN:
            a, b = args
            if term.op == "truediv":
                a, b = ew.convert(a, dt.float64), ew.convert(b, dt.float64)
            a, b = _common(a, b)
            op = _BINARY[term.op]
            return make(op, (a, b)) if isinstance(op, Op) else op(a, b)
        if kind == T.UN:
            a = ew.convert(args[0], dt.float64) if term.op in _FLOAT_ONLY else args[0]
            return make(_UNARY[term.op], (a,))
        if kind == T.CMP:
            return make(_COMPARE[term.op], tuple(_common(*args)))
        if kind == T.WHERE:
            c, a, b = args
            a, b = _common(a, b)
            shape = ew.broadcast_shapes(c.shape, a.shape)
            return make(Op.SELECT, (ew.broadcast_to(c, shape), ew.broadcast_to(a, shape),
                                    ew.broadcast_to(b, shape)))
        if kind == T.SCAN:
            shape, axis = along(args[0], space, term.attr)
            return scan(_SCAN[term.op], ew.broadcast_to(args[0], shape), axis)
        if kind == T.RED and term.op in T.ARGREDUCE:
            return _arg_extreme(term, args[0], space)
        if kind == T.RED:
            axis = space.order.index(term.attr)
            if term.op == "mean":
                return red.mean(args[0], axis, keepdims=True)
            if not space.extents[term.attr] and term.op in EMPTY_IDENTITY:
                shape = tuple(1 if i == axis else s for i, s in enumerate(args[0].shape))
                return ew.full(shape, EMPTY_IDENTITY[term.op](args[0].dtype), args[0].dtype)
            return red.reduce(term.op, args[0], axis, keepdims=True)
        return self._leaf(term, space)

    def _leaf(self, term: T.Term, space: Space) -> Node:
        if term.kind == T.CONST:
            value = term.attr
            return scalar(value, dt.int64 if isinstance(value, int) else dt.float64)
        if term.kind == T.VAR:
            return constant(space.values[term.attr], dt.int64)
        if term.kind == T.SIZE:
            value = size_value(term.attr, space.env).item()
            return scalar(value, dt.int64 if isinstance(value, int) else dt.float64)
        return self._access(term, space)

    def _access(self, term: T.Term, space: Space) -> Node:
        node = space.tensors[term.attr[0]]
        if term.attr[1] is None:
            if node.ndim:
                raise Invalid(f"{term} names a {node.ndim}-d array without an index")
            return node
        idx = index_tuple(term, space, node.shape)
        texts = [i.text for i in term.attr[1]]
        if len(set(texts)) == len(texts) and all(_whole(t, space, n)
                                                 for t, n in zip(texts, node.shape, strict=True)):
            order = [v for v in space.order if v in texts]
            node = cs.transpose(node, [texts.index(v) for v in order]) if node.ndim > 1 else node
            return cs.reshape(node, [space.extents[v] if v in texts else 1 for v in space.order])
        flat = np.ravel_multi_index(np.broadcast_arrays(*idx), node.shape)
        view = _strided(cs.ravel(node), flat, space, term.vars)
        return view if view is not None else take(cs.ravel(node), constant(flat, dt.int64))

    def einsum(self, spec: str, operands: list) -> Node:
        dtype = dt.float64 if any(o.dtype.kind == "f" for o in operands) else dt.int64
        return ein.einsum(spec, *operands, dtype=dtype)

    def squeeze(self, x: Node, axes) -> Node:
        return cs.squeeze(x, axes) if axes else x

    def reshape(self, x: Node, shape) -> Node:
        return cs.reshape(x, tuple(shape))

    def transpose(self, x: Node, perm) -> Node:
        return cs.transpose(x, perm)

    def broadcast(self, x: Node, shape) -> Node:
        return ew.broadcast_to(x, tuple(shape))

    def bincount(self, idx: Node, weights: Node, length: int) -> Node:
        weights = ew.broadcast_to(weights, idx.shape)
        out = counting.bincount(idx, length, weights)
        return ew.convert(out, weights.dtype)

    def cast(self, x: Node, dtype) -> Node:
        return ew.convert(x, np.dtype(dtype))


def _arg_extreme(term: T.Term, x: Node, space: Space) -> Node:
    """The position of the first extreme along the variable's axis, as the
    variable's value (``start + step * position``: its range is arithmetic)."""
    shape, axis = along(x, space, term.attr)
    if not space.extents[term.attr]:  # 0, as on numpy
        return ew.full(tuple(1 if d == axis else n for d, n in enumerate(shape)), 0, dt.int64)
    pos = red.argreduce(term.op, ew.broadcast_to(x, shape), axis, keepdims=True)
    values = space.values[term.attr].ravel()
    step = int(values[1] - values[0]) if values.size > 1 else 1
    scaled = make(Op.MUL, (pos, ew.broadcast_to(scalar(step, dt.int64), pos.shape)))
    return make(Op.ADD, (scaled, ew.broadcast_to(scalar(int(values[0]), dt.int64), pos.shape)))


def _strided(flat_node: Node, flat: np.ndarray, space: Space, vars_) -> Node | None:
    """An access whose flat positions are ``start + sum(stride_v * v)`` with
    nested strides (``a[i * m + j]``, ``x[2 * i + 1]``, ``x[i + 1]``): one
    strided slice of the flat buffer and a reshape, no gather."""
    order = [v for v in space.order if v in vars_]
    if not order or flat.ndim != len(space.order):
        return None
    axes = [space.order.index(v) for v in order]
    sq = flat.reshape([flat.shape[a] for a in axes]) if flat.size else flat
    if sq.size < 2 or sq.ndim != len(order):
        return None
    start = int(sq.flat[0])
    strides = [int(np.take(sq, 1, axis=d).flat[0]) - start if sq.shape[d] > 1 else 0
               for d in range(sq.ndim)]
    grid = start + sum(st * np.arange(n).reshape([-1 if e == d else 1 for e in range(sq.ndim)])
                       for d, (st, n) in enumerate(zip(strides, sq.shape, strict=True)))
    if not np.array_equal(np.broadcast_to(grid, sq.shape), sq):
        return None
    ranked = sorted((d for d in range(sq.ndim) if sq.shape[d] > 1), key=lambda d: -strides[d])
    pairs = zip(ranked, ranked[1:], strict=False)
    if not ranked or strides[ranked[-1]] <= 0 or any(
            strides[a] != strides[b] * sq.shape[b] for a, b in pairs):
        return None
    step = strides[ranked[-1]]
    out = cs.slice_axis(flat_node, 0, start, start + step * sq.size, step)
    dims = ranked + [d for d in range(sq.ndim) if sq.shape[d] == 1]
    out = cs.reshape(out, [sq.shape[d] for d in dims])
    out = cs.transpose(out, [dims.index(d) for d in range(sq.ndim)]) if sq.ndim > 1 else out
    return cs.reshape(out, [space.extents[v] if v in vars_ else 1 for v in space.order])


def _whole(text: str, space: Space, n: int) -> bool:
    """``text`` is an index variable running over all of 0..n-1 in order."""
    values = space.values.get(text)
    return values is not None and values.size == n and \
        bool((values.ravel() == np.arange(n)).all())


CORE = CoreBackend()
