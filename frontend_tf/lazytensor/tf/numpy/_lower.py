"""How a tnp function becomes a lazy one: ``lowered(impl)`` wraps a
node-level implementation (arguments as the user passes them, results as
core nodes) into a function over lazy arrays, translating core errors into
the error types tnp raises; ``fallback(name)`` runs tnp eagerly instead.

Factories for the two big families keep the tables one line per function:
``unary(fn, to_float)`` (tnp's ``_scalar``) and ``binary(fn, kind)``
(tnp's ``_bin_op``: promote both operands with the TNP policy, then apply).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core import metrics
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.promotion import TNP
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import CoreError, make
from lazytensor.core.trees import tree_map
from lazytensor.tf import _tf
from lazytensor.tf._array import (
    WEAK,
    lift,
    ndarray,
    node_of,
    operand,
    tf_value_node,
    weak_stand_in,
    wrap,
)
from lazytensor.tf.numpy import _masked_reads

Impl = Callable[..., object]


def box(out):
    """Core results as lazy arrays (lists/tuples element-wise; other Python
    values, e.g. ``ndim``'s int, unchanged)."""
    if type(out) is Node:  # (the common case: one result)
        return wrap(out)
    return tree_map(lambda o: wrap(o) if isinstance(o, Node) else o, out)


def lowered(name: str, impl: Impl, errors: dict | None = None) -> Callable:
    """The lazy tnp function ``name`` implemented by ``impl``."""

    body = _masked_reads.wrapped(name, impl)

    @functools.wraps(impl)
    def fn(*args, **kwargs):
        try:
            return box(body(*args, **kwargs))
        except CoreError as error:
            _tf.raise_as_tf(error, errors)
        except _tf.Traced:  # inside tf.function: tnp builds the graph
            return getattr(_tf.tnp(), name)(*to_eager(args), **to_eager(kwargs))
        except _tf.NonNumeric:  # strings: tnp's own result, a tf.Tensor
            note_fallback(f"tnp.{name}", "of non-numeric data runs eagerly in TensorFlow")
            return from_eager(getattr(_tf.tnp(), name)(*to_eager(args), **to_eager(kwargs)))

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "lazytensor.tf.numpy"
    fn.lowered = True
    return fn


def to_eager(value):
    """Lazy arrays (also inside lists/tuples/dicts) as tf.Tensors, for eager tnp."""
    return tree_map(lambda v: v.__tf_tensor__() if isinstance(v, ndarray) else v, value)


def from_eager(value):
    """tf.Tensors (also inside lists/tuples) from eager tnp as lazy arrays;
    tensors of strings stay tf.Tensors (tnp's own arrays)."""
    tensor = _tf.tf().Tensor
    return tree_map(lambda v: wrap(tf_value_node(v))
                    if isinstance(v, tensor) and _tf.holds_numbers(v) else v, value)


_FRONTEND_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # lazytensor/tf


def note_fallback(name: str, why: str) -> None:
    """Count an eager fallback of ``name`` (``tnp.sort``, ``tf.linalg.diag``)
    and warn the first time, at the user's line."""
    metrics.note_fallback(name, f"lazytensor.tf: {name} {why} on materialized inputs",
                          skip=(_FRONTEND_DIR, os.path.dirname(_tf.tf().__file__)))


def fallback(name: str, target: Callable) -> Callable:
    """``target`` (an eager tnp function) over materialized inputs; its
    results come back as lazy arrays. Warned once per function, counted in
    the metrics as ``tnp.<name>``."""

    @functools.wraps(target)
    def fn(*args, **kwargs):
        note_fallback(f"tnp.{name}", "is not lowered: it runs eagerly in TensorFlow")
        return from_eager(target(*to_eager(args), **to_eager(kwargs)))

    fn.lowered = False
    return fn


# ------------------------------------------------------------ families

def prim(op: Op) -> Callable[..., Node]:
    """The core op ``op`` over node operands, as a node function."""
    return lambda *xs: make(op, xs)


float_of = ew.float_or_float64  # tnp's promote_to_float: integers and bools become float64


def unary(fn: Callable[[Node], Node], to_float: bool = False) -> Impl:
    """tnp's ``_scalar``: fn over ``asarray(x)`` (made float when asked)."""
    def impl(x):
        return fn(float_of(node_of(x))) if to_float else fn(node_of(x))

    impl.elementwise = True
    return impl


# (operand dtypes and weak Python types) -> their TNP dtype: a finite set of
# keys (dtypes x Python scalar types per position), bounded all the same
_PROMOTED: dict = {}
_PROMOTED_LIMIT = 4096


def _plain_operands(values) -> tuple[list, np.dtype] | None:
    """``operands_and_dtype`` of lazy arrays and plain Python scalars (the
    hot path: no lists, numpy values or tf values, no float under
    prefer_float32), with the promotion memoized by operand types; None
    for anything else."""
    if len(values) == 2:  # (unrolled: the commonest case)
        a, b = values
        if isinstance(a, ndarray):
            a = a._node()
        if isinstance(b, ndarray):
            b = b._node()
        operands = [a, b]
        keys = (a.dtype if type(a) is Node else type(a), b.dtype if type(b) is Node else type(b))
    else:
        operands = [v._node() if isinstance(v, ndarray) else v for v in values]
        keys = tuple([o.dtype if type(o) is Node else type(o) for o in operands])
    dtype = _PROMOTED.get(keys)
    if dtype is None:
        if not all(isinstance(k, np.dtype) or k in WEAK for k in keys):
            return None  # lists, numpy values, tf values: the general path
        dtype = ew.promote(TNP, *operands)  # (by types only: never by value)
        if len(_PROMOTED) >= _PROMOTED_LIMIT:
            _PROMOTED.clear()
        _PROMOTED[keys] = dtype
    if (float in keys or complex in keys) and _tf.prefer_float32():
        return None  # a Python float is a strong float32 then
    return operands, dtype


def operands_and_dtype(values) -> tuple[list, np.dtype]:
    """Operands (nodes or weak Python scalars) and their TNP dtype; a list of
    Python scalars promotes as the weak scalars it holds and is lifted at the
    promoted dtype (``weak_stand_in``)."""
    plain = _plain_operands(values)
    if plain is not None:
        return plain
    stand_ins = [weak_stand_in(v) for v in values]
    if _tf.prefer_float32():  # a float scalar promotes as float32, its value converts at once
        stand_ins = [v if isinstance(v, (float, complex)) else s
                     for v, s in zip(values, stand_ins, strict=True)]
    if not any(s is not None for s in stand_ins):
        operands = [operand(v) for v in values]
        return operands, ew.promote(TNP, *operands)
    operands = [operand(v if s is None else s) for v, s in zip(values, stand_ins, strict=True)]
    dtype = ew.promote(TNP, *operands)
    return [o if s is None else lift(v, dtype)
            for o, s, v in zip(operands, stand_ins, values, strict=True)], dtype


def promoted(*values) -> list[Node]:
    """Operands promoted with the TNP policy and broadcast together."""
    operands, dtype = operands_and_dtype(values)
    if len(operands) == 2:  # the hot cases: nothing to insert, or an array and a scalar
        a, b = operands
        if type(a) is Node and (a.dtype is dtype or a.dtype == dtype):
            if type(b) is not Node:
                return [a, ew.as_node(b, dtype, a.shape)]
            if a.shape == b.shape and (b.dtype is dtype or b.dtype == dtype):
                return operands
    return ew.coerce(operands, dtype)


def same_dtype(*values) -> list[Node]:
    """Operands promoted with the TNP policy, shapes kept (tnp's _promote_dtype)."""
    operands, dtype = operands_and_dtype(values)
    if len(operands) == 2:  # (the hot case: nothing to convert)
        a, b = operands
        if type(a) is Node and type(b) is Node and (a.dtype is dtype or a.dtype == dtype) \
                and (b.dtype is dtype or b.dtype == dtype):
            return operands
    return [ew.as_node(o, dtype, o.shape if isinstance(o, Node) else ()) for o in operands]


def binary(fn: Callable[[Node, Node], Node], kind: str = "same") -> Impl:
    """tnp's ``_bin_op``. ``kind``: 'same' (the promoted dtype), 'float'
    (integers/bools computed in float64), 'bool' (operands made bool)."""
    def impl(x1, x2):
        if kind == "bool":
            return fn(*ew.coerce([node_of(x1), node_of(x2)], dt.bool_))
        a, b = promoted(x1, x2)
        if kind == "float":
            a, b = float_of(a), float_of(b)
        return fn(a, b)

    impl.elementwise = True
    return impl


def index_dtype() -> np.dtype:
    """tnp's np.intp indices (int64)."""
    return dt.int64
