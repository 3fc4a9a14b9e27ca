"""Evaluating terms over an index space: with numpy on the search's
examples (fast, one array per term), and, through the same recursion, with
any backend that provides the op tables (``lazytensor.lift.lower`` records
core nodes).

A value is an array over the statement's index space: one axis per index
variable in the statement's order, of size 1 for a variable that the term
does not use; a term with no free variable is 0-d.

>>> import numpy as np
>>> from lazytensor.lift import terms as T
>>> space = Space.build(("i",), {"i": range(3)}, {}, {"x": np.array([1.0, 2.0, 3.0])})
>>> x = T.access("x", ("i",), {"i"})
>>> evaluate(T.reduce_("sum", "i", T.binary("mul", x, x)), space).item()
14.0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lazytensor.lift import terms as T


class Invalid(Exception):
    """A term has no value on an input (an index out of bounds, a bad power)."""


_CODE: dict[str, Any] = {}


def compiled(text: str):
    code = _CODE.get(text)
    if code is None:
        code = _CODE[text] = compile(text, "<index>", "eval")
    return code


@dataclass(slots=True)
class Space:
    """The index space of one statement on one input: variables in order,
    their values (broadcast along their own axis), sizes, input tensors."""

    order: tuple[str, ...]
    values: dict[str, np.ndarray]
    env: dict[str, Any]
    tensors: dict[str, Any]
    extents: dict[str, int] = field(default_factory=dict)
    cache: dict = field(default_factory=dict)

    @classmethod
    def build(cls, order, ranges, sizes, tensors) -> Space:
        values, extents = {}, {}
        for axis, v in enumerate(order):
            shape = [1] * len(order)
            shape[axis] = len(ranges[v])
            values[v] = np.asarray(ranges[v], dtype=np.int64).reshape(shape)
            extents[v] = len(ranges[v])
        env = {**sizes, **values}
        return cls(tuple(order), values, env, tensors, extents)

    def index(self, text: str) -> np.ndarray:
        """An index expression's (host) values over the space."""
        hit = self.cache.get(text)
        if hit is None:
            try:
                hit = np.asarray(eval(compiled(text), {"__builtins__": {}}, self.env))  # noqa: S307
            except Exception as exc:
                raise Invalid(f"index {text}: {exc}") from None
            if hit.dtype.kind not in "iu":
                raise Invalid(f"index {text} is not an integer")
            self.cache[text] = hit
        return hit


def index_tuple(term: T.Term, space: Space, shape: tuple[int, ...]) -> tuple:
    """The host index arrays of an access, bounds-checked against ``shape``."""
    _, idx = term.attr
    if len(idx) != len(shape):
        raise Invalid(f"{term} indexes {len(idx)} axes of a {len(shape)}-d array")
    out = []
    for i, n in zip(idx, shape, strict=True):
        values = space.index(i.text)
        if values.size and (values.min() < 0 or values.max() >= n):
            raise Invalid(f"{term}: index {i.text} out of bounds for size {n}")
        out.append(values)
    return tuple(out)


def _np_access(term: T.Term, space: Space):
    array = space.tensors[term.attr[0]]
    if term.attr[1] is None:
        if array.ndim:
            raise Invalid(f"{term} names a {array.ndim}-d array without an index")
        return array
    return array[index_tuple(term, space, array.shape)]


def _np_leaf(term: T.Term, space: Space):
    if term.kind == T.ACC:
        return _np_access(term, space)
    if term.kind == T.CONST:
        return np.asarray(term.attr)
    if term.kind == T.VAR:
        return space.values[term.attr]
    return size_value(term.attr, space.env)


def size_value(text: str, env: dict) -> np.ndarray:
    """A size expression's value (``n``, ``len(x) - 1``, ``1.0 / n``)."""
    try:
        return np.asarray(eval(compiled(text), {"__builtins__": _BUILTINS}, env))  # noqa: S307
    except Exception as exc:
        raise Invalid(f"size {text}: {exc}") from None


_BUILTINS = {"len": len, "int": int, "float": float, "min": min, "max": max, "range": range,
             "abs": abs, "round": round}


NP_UNARY = {"neg": np.negative, "exp": np.exp, "sqrt": np.sqrt, "abs": np.abs, "log": np.log,
            "cos": np.cos, "sin": np.sin, "tanh": np.tanh}
NP_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
             "floordiv": np.floor_divide, "mod": np.mod, "pow": np.power,
             "maximum": np.maximum, "minimum": np.minimum}
NP_COMPARE = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
              "eq": np.equal, "ne": np.not_equal}
EMPTY_IDENTITY = {
    "max": lambda d: -np.inf if d.kind == "f" else np.iinfo(d).min,
    "min": lambda d: np.inf if d.kind == "f" else np.iinfo(d).max,
}
NP_REDUCE = {"sum": np.sum, "max": np.max, "min": np.min, "mean": np.mean, "prod": np.prod}
NP_SCAN = {"cumsum": np.cumsum, "cumprod": np.cumprod, "cummax": np.maximum.accumulate,
           "cummin": np.minimum.accumulate}


def along(value, space: Space, v: str) -> tuple:
    """The shape of ``value`` stretched to ``v``'s whole extent, and ``v``'s axis."""
    axis = space.order.index(v)
    shape = list(value.shape) or [1] * len(space.order)
    shape[axis] = space.extents[v]
    return tuple(shape), axis


def np_apply(term: T.Term, args: list, space: Space):
    """One term's numpy value from its operands' values."""
    kind = term.kind
    if kind == T.BIN:
        a, b = args
        if term.op == "pow" and b.dtype.kind in "iu" and a.dtype.kind in "iu" and (b < 0).any():
            raise Invalid("negative integer power")
        return NP_BINARY[term.op](a, b)
    if kind == T.UN:
        return NP_UNARY[term.op](args[0])
    if kind == T.CMP:
        return NP_COMPARE[term.op](args[0], args[1])
    if kind == T.WHERE:
        return np.where(*args)
    if kind == T.SCAN:
        shape, axis = along(args[0], space, term.attr)
        return NP_SCAN[term.op](np.broadcast_to(args[0], shape), axis=axis)
    if kind == T.RED and term.op in T.ARGREDUCE:
        return np_arg_extreme(term, args[0], space)
    if kind == T.RED:
        axis = space.order.index(term.attr)
        if term.op in EMPTY_IDENTITY:  # an empty loop leaves the running value alone
            ident = EMPTY_IDENTITY[term.op](args[0].dtype)
            return NP_REDUCE[term.op](args[0], axis=axis, keepdims=True, initial=ident)
        if not space.extents[term.attr]:
            raise Invalid(f"{term.op} over an empty range")
        return NP_REDUCE[term.op](args[0], axis=axis, keepdims=True)
    return _np_leaf(term, space)


def np_arg_extreme(term: T.Term, value, space: Space):
    """``argmax[v](e)``: ``v``'s value where ``e`` is first largest (smallest);
    0 over an empty range (the loops then keep their start index, which the
    ``where`` around an index-tracking definition selects)."""
    shape, axis = along(value, space, term.attr)
    if not space.extents[term.attr]:
        return np.zeros([1 if d == axis else n for d, n in enumerate(shape)], np.int64)
    find = np.argmax if term.op == "argmax" else np.argmin
    pos = find(np.broadcast_to(value, shape), axis=axis, keepdims=True)
    return space.values[term.attr].ravel()[pos]


def evaluate(term: T.Term, space: Space):
    """A term's numpy value over ``space`` (raises ``Invalid``)."""
    with np.errstate(all="ignore"):
        return _evaluate(term, space)


def _evaluate(term: T.Term, space: Space):
    return np_apply(term, [_evaluate(a, space) for a in term.args], space)
