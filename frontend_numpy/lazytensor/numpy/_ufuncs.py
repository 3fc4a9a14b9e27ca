"""Applying numpy ufuncs lazily: numpy's own type resolution picks the loop
(``ufunc.resolve_dtypes``, memoized, so NEP 50 and every loop table are
numpy's exactly), operands are converted and broadcast to it, and the table
in ``_ufunc_table`` supplies the core composite. Handles ``out=``, ``where=``
and ``dtype=``; the ufunc methods (``reduce``, ``accumulate``, ``outer``,
``at``...) are ``_ufunc_methods``.

``binary``/``unary`` are the hot paths behind operators: one memo lookup,
one convert/broadcast per operand, one composite, one handle.
"""

from __future__ import annotations

import os
import warnings

from lazytensor.core import dtypes as dt
from lazytensor.core import layout as _layout
from lazytensor.core import masked
from lazytensor.core.composite.elementwise.apply import (
    as_node,
    broadcast_shapes,
    broadcast_to,
    convert,
)
from lazytensor.core.ir import Node
from lazytensor.core.leaves import scalar
from lazytensor.core.metrics import user_stacklevel
from lazytensor.core.ops import Op
from lazytensor.core.registry import RECORDED, CoreError, make
from lazytensor.numpy import _errors, _masked_writes
from lazytensor.numpy._base import WEAK_TYPES, lift, ndarray, numpy_only, wrap
from lazytensor.numpy._errors import UnsupportedDtype
from lazytensor.numpy._ufunc_table import ABOVE_RANGE, MIRROR, UFUNCS, direct_op

import numpy as np

_LOOPS: dict = {}
INT_BOUNDS = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
               for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")}
_NO_VALUE = np._NoValue
_BOOL = np.dtype(bool)  # numpy's "argument not given" marker


def loop_dtypes(ufunc: np.ufunc, keys: tuple) -> tuple:
    """numpy's loop for operand dtypes / weak Python types ``keys`` (memoized):
    input dtypes then output dtypes. Raises numpy's own errors."""
    found = _LOOPS.get((ufunc, *keys))
    if found is None:  # (a Python bool promotes exactly like a numpy bool)
        strong = tuple(_BOOL if k is bool else k for k in keys)
        found = ufunc.resolve_dtypes((*strong, *(None,) * ufunc.nout))
        _LOOPS[(ufunc, *keys)] = found
    return found


def _key(operand):
    return operand.dtype if type(operand) is Node else type(operand)


_OWN_DIRS = (os.path.dirname(os.path.abspath(__file__)),)


def stored(value, dtype: np.dtype):
    """``value`` lifted to be stored into a ``dtype`` array (``a[i] = v``,
    ``full``, ``fill``): a Python int beyond an integer dtype's range raises
    numpy's OverflowError instead of wrapping; strings, objects (Fraction,
    Decimal) and longdouble values are cast on the host as numpy's setitem
    casts them (its ValueError for a string that is no number)."""
    try:
        lifted = lift(value)
    except UnsupportedDtype:
        if numpy_only(dtype):
            raise
        host = np.asarray(value)  # (strings convert as Python's: float('abc') fails so)
        lifted = lift((host.astype(object) if host.dtype.kind in "US" else host).astype(dtype))
    if type(lifted) is int and dtype.kind in "iu":
        lo, hi = INT_BOUNDS[dtype]
        if not lo <= lifted <= hi:
            raise OverflowError(f"Python integer {lifted} out of bounds for {dtype}")
    if type(lifted) is Node and dt.is_complex(lifted.dtype) and dtype.kind in "iuf":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=user_stacklevel(_OWN_DIRS))
        return make(Op.REAL, (lifted,))
    return lifted


def _check_int_range(ufunc, operands, loop) -> Node | None:
    """NEP 50: a Python int that does not fit the loop's integer dtype raises
    OverflowError -- except in comparisons, whose answer is then known."""
    for i, value in enumerate(operands):
        if type(value) is not int or loop[i].kind not in "iu":
            continue
        lo, hi = INT_BOUNDS[loop[i]]
        if lo <= value <= hi:
            continue
        if ufunc in ABOVE_RANGE and len(operands) == 2:
            base = ufunc if i == 1 else MIRROR[ufunc]  # as "array <base> value"
            symmetric = base in (np.equal, np.not_equal)
            answer = ABOVE_RANGE[base] if value > hi or symmetric else not ABOVE_RANGE[base]
            return as_node(answer, dt.bool_, getattr(operands[1 - i], "shape", ()))
        raise OverflowError(f"Python integer {value} out of bounds for {loop[i]}")
    return None


def _coerce(operands, dtypes) -> list[Node]:
    shapes = [o.shape for o in operands if type(o) is Node]
    if not shapes:
        shape = ()
    else:
        shape = shapes[0] if all(s == shapes[0] for s in shapes) else broadcast_shapes(*shapes)
    return [as_node(o, d, shape) for o, d in zip(operands, dtypes, strict=False)]


def _strides(values, out: Node):
    """numpy's K-order layout of a fresh output (None: C-contiguous)."""
    layouts = [(v.shape, v._st, v.itemsize) for v in values
               if type(v) is ndarray and v._st is not None]
    return _layout.fresh(out.shape, layouts, out.dtype.itemsize)


def compute(ufunc: np.ufunc, values: tuple, loop=None) -> tuple[Node, ...]:
    """The ufunc's outputs as nodes (no out=/where= handling)."""
    impl = UFUNCS[ufunc]
    operands = [lift(v) for v in values]
    if loop is None:
        loop = loop_dtypes(ufunc, tuple(_key(o) for o in operands))
    nin = len(operands)
    fixed = _check_int_range(ufunc, operands, loop)
    if fixed is not None:
        return (fixed,)
    if ufunc is np.power and loop[0].kind in "iu":
        _check_int_power(operands, values)
    if impl.gufunc:
        nodes = [as_node(o, d) if type(o) is not Node else convert(o, d)
                 for o, d in zip(operands, loop, strict=False)]
    else:
        nodes = _coerce(operands, loop[:nin])
    if nin == 2 and loop[0] != loop[1] and ufunc in _SIGN_MIXED:
        return (_sign_mixed_compare(_SIGN_MIXED[ufunc], *nodes),)
    out = impl.fn(*nodes)
    outs = out if type(out) is tuple else (out,)
    return tuple(convert(o, d) for o, d in zip(outs, loop[nin:], strict=False))


# numpy's exact int64-uint64 comparison loops ('qQ->?', 'Qq->?'): the op on
# the signed operand's bits read as unsigned, and what a negative one gives
_SIGN_MIXED = {np.less: Op.LT, np.less_equal: Op.LE, np.greater: Op.GT,
               np.greater_equal: Op.GE, np.equal: Op.EQ, np.not_equal: Op.NE}
_TRUE_IF_NEGATIVE = frozenset({Op.LT, Op.LE, Op.NE})  # signed operand first
_MIRRORED = {Op.LT: Op.GT, Op.LE: Op.GE, Op.GT: Op.LT, Op.GE: Op.LE, Op.EQ: Op.EQ, Op.NE: Op.NE}


def _sign_mixed_compare(op: Op, x: Node, y: Node) -> Node:
    """``x op y`` for one signed and one unsigned 64-bit operand, exactly
    (no common dtype holds both): a negative signed value is below every
    unsigned one; otherwise both compare as unsigned."""
    if dt.is_unsigned(x.dtype):
        x, y, op = y, x, _MIRRORED[op]
    negative = make(Op.LT, (x, as_node(0, x.dtype, x.shape)))
    same_sign = make(op, (convert(x, y.dtype), y))
    if op in _TRUE_IF_NEGATIVE:
        return make(Op.OR, (negative, same_sign))
    return make(Op.AND, (make(Op.NOT, (negative,)), same_sign))


def _check_int_power(operands, values) -> None:
    """numpy's ValueError for a negative integer exponent that the host
    holds (a Python int, a numpy scalar or array, a list)."""
    exponent, given = operands[1], values[1]
    if type(exponent) is Node and exponent.op is Op.SCALAR:
        exponent = exponent.data
    elif isinstance(given, (np.ndarray, list, tuple)):
        exponent = np.min(given, initial=0)
    if isinstance(exponent, (int, np.integer)) and exponent < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")


_PY_CAST = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


class _Plan:
    """The memoized fast path of one (ufunc, operand dtypes/types) pair: the
    loop dtypes, the one primitive when there is one, the Python-int range
    check. ``op`` None means: take the general ``compute`` path."""

    __slots__ = ("op", "dx", "dy", "out", "bounds", "cast", "gufunc")

    def __init__(self, ufunc: np.ufunc, keys: tuple) -> None:
        loop = loop_dtypes(ufunc, keys)
        out = loop[len(keys)]
        self.op = direct_op(ufunc, loop[0]) if ufunc.nout == 1 and (
            len(keys) == 1 or loop[0] == loop[1]) and not UFUNCS[ufunc].gufunc else None
        if self.op is not None and len(keys) == 2 and self.op in _EQUAL_RESULT \
                and out != loop[0]:
            self.op = None
        self.dx = loop[0]
        self.dy = loop[1] if len(keys) == 2 else None
        self.out = out
        weak_int = [i for i, k in enumerate(keys) if k is int and loop[i].kind in "iu"]
        self.bounds = INT_BOUNDS[loop[weak_int[0]]] if weak_int else None
        self.cast = _PY_CAST[dt.category(self.dx)]
        # a two-input gufunc (matmul): its composite, for operands that are nodes
        impl = UFUNCS[ufunc]
        self.gufunc = impl.fn if impl.gufunc and len(keys) == 2 and ufunc.nout == 1 else None


_EQUAL_RESULT = frozenset(Op) - frozenset({Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.ABS})
_PLANS: dict = {}
_CONVERT = Op.CONVERT


def _plan(ufunc, keys: tuple) -> _Plan:
    plan = _PLANS.get((ufunc, *keys))
    if plan is None:
        plan = _PLANS[(ufunc, *keys)] = _Plan(ufunc, keys)
    return plan


def _fast_binary(plan: _Plan, x, y) -> Node | None:
    """The one-primitive path, or None when the general path is needed. Its
    node is made without re-running the op's rule: the plan already holds
    what the rule would check (equal shapes, the loop dtype numpy accepts
    for this primitive, the result dtype)."""
    op, dx = plan.op, plan.dx
    if type(x) is Node:
        if x.dtype is not dx and x.dtype != dx:
            x = make(_CONVERT, (x,), dx)
        if type(y) is Node:
            if y.dtype is not dx and y.dtype != dx:
                y = make(_CONVERT, (y,), dx)
            if x.shape != y.shape:  # (the nodes _coerce would make: convert, then broadcast)
                shape = broadcast_shapes(x.shape, y.shape)
                x, y = broadcast_to(x, shape), broadcast_to(y, shape)
        else:
            bounds = plan.bounds
            if bounds is not None and not bounds[0] <= y <= bounds[1]:
                return None
            y = scalar(plan.cast(y), dx, x.shape)
    elif type(y) is Node:
        bounds = plan.bounds
        if bounds is not None and not bounds[0] <= x <= bounds[1]:
            return None
        if y.dtype is not dx and y.dtype != dx:
            y = make(_CONVERT, (y,), dx)
        x = scalar(plan.cast(x), dx, y.shape)
    else:
        return None
    RECORDED.recorded += 1
    return Node(op, (x, y), (), x.shape, plan.out)


def binary(ufunc: np.ufunc, a, b):
    """``ufunc(a, b)`` as a fresh lazy array (the operator path)."""
    if type(a) is ndarray:
        x = a._h.node
        kx = x.dtype
    elif type(a) in WEAK_TYPES:  # (what lift gives: the Python scalar)
        x, kx = a, type(a)
    else:
        x = lift(a)
        kx = x.dtype if type(x) is Node else type(x)
    if type(b) is ndarray:
        y = b._h.node
        ky = y.dtype
    elif type(b) in WEAK_TYPES:
        y, ky = b, type(b)
    else:
        y = lift(b)
        ky = y.dtype if type(y) is Node else type(y)
    try:
        plan = _PLANS.get((ufunc, kx, ky)) or _plan(ufunc, (kx, ky))
        if ufunc is np.power and plan.dx.kind in "iu" and isinstance(b, (np.ndarray, list)):
            _check_int_power((x, y), (a, b))  # a host exponent array: numpy's check
        node = _fast_binary(plan, x, y) if plan.op is not None else None
        if plan.gufunc is not None and type(x) is Node and type(y) is Node:
            node = convert(plan.gufunc(convert(x, plan.dx), convert(y, plan.dy)), plan.out)
        if node is None:
            (node,) = compute(ufunc, (x, y))
    except CoreError as exc:
        raise _errors.translate(exc) from None
    if (type(a) is ndarray and a._st is not None) or (type(b) is ndarray and b._st is not None):
        out = wrap(node, _strides((a, b), node))
    else:
        out = wrap(node)
    if masked.TAGS:
        _tag_masked(ufunc, _masked_writes.operands((a, b)), out)
    return out


def unary(ufunc: np.ufunc, a):
    x = a._h.node if type(a) is ndarray else lift(a)
    try:
        kx = x.dtype if type(x) is Node else type(x)
        plan = _PLANS.get((ufunc, kx)) or _plan(ufunc, (kx,))
        if plan.op is not None and type(x) is Node:
            dx = plan.dx
            if x.dtype is not dx and x.dtype != dx:
                x = make(Op.CONVERT, (x,), dx)
            outs = (make(plan.op, (x,)),)
        else:
            outs = compute(ufunc, (x,))
    except CoreError as exc:
        raise _errors.translate(exc) from None
    strides = a._st if type(a) is ndarray else None
    if strides is not None:
        strides = _strides((a,), outs[0])
    if len(outs) > 1:
        return tuple(wrap(o, strides) for o in outs)
    out = wrap(outs[0], strides)
    if masked.TAGS:
        _tag_masked(ufunc, _masked_writes.operands((a,)), out)
    return out


_GUFUNC_KWARGS = frozenset({"axes", "axis", "keepdims"})


def call(ufunc: np.ufunc, inputs: tuple, kwargs: dict):
    """``ufunc(*inputs, **kwargs)`` with out=, where=, dtype=, casting=; a
    gufunc's axes=/axis=/keepdims= run numpy's ufunc eagerly (counted)."""
    if _GUFUNC_KWARGS.intersection(kwargs):
        from lazytensor.numpy._dispatch import eager

        return eager(f"numpy.{ufunc.__name__} (axes=/axis=/keepdims=)", ufunc, inputs, kwargs)
    if kwargs.get("where", True) is not True and "out" not in kwargs:
        warnings.warn("'where' used without 'out', expect unitialized memory in output. If "
                      "this is intentional, use out=None.", UserWarning,
                      stacklevel=user_stacklevel(_OWN_DIRS))
    out = kwargs.pop("out", None)
    out = None if out is Ellipsis else out  # out=...: arrays, never scalars (ours always are)
    where = kwargs.pop("where", True)
    casting = kwargs.pop("casting", "same_kind")
    loop = _explicit_loop(ufunc, inputs, kwargs, casting)
    kwargs.pop("order", None), kwargs.pop("subok", None)
    if kwargs:
        raise TypeError(f"{ufunc.__name__}() got unsupported keyword arguments {sorted(kwargs)}")
    try:
        nodes = compute(ufunc, inputs, loop)
    except CoreError as exc:
        raise _errors.translate(exc) from None
    outs = _normalize_out(out, ufunc.nout)
    strides = _strides(inputs, nodes[0])
    results = []
    for i, node in enumerate(nodes):
        target = outs[i] if outs else None
        if target is None:
            node = _masked(node, where, None)
            results.append(wrap(node, strides))
        else:
            store(ufunc, target, node, where, casting, i)
            results.append(target)
    return results[0] if ufunc.nout == 1 else tuple(results)


def _explicit_loop(ufunc, inputs, kwargs, casting: str):
    """The loop that dtype=/signature=/sig= ask for, checked by numpy under
    ``casting`` (None: numpy's default loop, which same_kind always allows)."""
    dtype, signature = kwargs.pop("dtype", None), kwargs.pop("signature", None)
    sig = kwargs.pop("sig", None)  # numpy's older spelling
    if sig is not None:
        if signature is not None:
            raise TypeError("cannot specify both 'sig' and 'signature'")
        signature = sig
    if dtype is not None:
        if signature is not None:
            raise TypeError("cannot specify both 'signature' and 'dtype'")
        if isinstance(dtype, type) and issubclass(dtype, np.dtype):  # a DType class
            dtype = dtype()  # (np.dtype(Float64DType) would be object)
        signature = (None,) * ufunc.nin + (np.dtype(dtype),) * ufunc.nout
    if signature is None and casting == "same_kind":
        return None
    keys = tuple(_key(lift(v)) for v in inputs)
    weak = casting == "equiv" and any(isinstance(k, type) for k in keys)
    # (numpy 2.4's resolve_dtypes crashes where a Python scalar fails an
    # 'equiv' casting; its ufunc call checks them as their default dtypes)
    given = {} if signature is None else {"signature": signature}
    loop = ufunc.resolve_dtypes((*keys, *(None,) * ufunc.nout),
                                casting="unsafe" if weak else casting, **given)
    if weak:
        for k, d in zip(keys, loop, strict=False):
            if isinstance(k, type) and d.kind != "O" and not np.can_cast(np.dtype(k), d, casting):
                raise TypeError(f"cannot cast Python {k.__name__} to {d} under the casting "
                                f"rule '{casting}'")
        strong = tuple(d if isinstance(k, type) else k for k, d in zip(keys, loop, strict=False))
        ufunc.resolve_dtypes((*strong, *(None,) * ufunc.nout), casting=casting, **given)
    if signature is None:
        return None
    if any(numpy_only(d) for d in loop):  # dtype=object, a string loop: numpy's own
        raise UnsupportedDtype(f"lazytensor.numpy does not support the loop {loop}")
    return loop


def _normalize_out(out, nout: int):
    if out is None:
        return None
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != nout:
        raise ValueError(f"The 'out' tuple must have exactly {nout} entries: one per ufunc output")
    for o in outs:
        if o is Ellipsis:
            raise TypeError("must use `...` as `out=...` and not per-operand/in a tuple")
        if o is not None and not isinstance(o, (ndarray, np.ndarray)):
            raise TypeError(f"return arrays must be of ArrayType, not {type(o).__name__}")
    return outs


def _masked(node: Node, where, old: Node | None) -> Node:
    if where is True:
        return node
    mask = as_node(lift(where), dt.bool_, node.shape)
    fill = old if old is not None else as_node(0, node.dtype, node.shape)
    return make(Op.SELECT, (mask, node, fill))


def finish(node: Node, out):
    """A reduction's result: a new array, or written into ``out`` (numpy's
    reductions cast into ``out`` unsafely), which must have the result's
    shape exactly (numpy's ValueError; no broadcasting, unlike a ufunc's)."""
    if out is None:
        return wrap(node)
    _exact_out(out, node)
    store(np.add, out, node, casting="unsafe")
    return out


def finish_broadcast(node: Node, out):
    """``finish`` for the functions whose ``out`` may be larger, as a ufunc's
    (numpy's clip, outer, isposinf, quantile): the result broadcasts into it."""
    if out is None:
        return wrap(node)
    store(np.add, out, node, casting="unsafe")
    return out


def _exact_out(out, node: Node) -> None:
    shape = getattr(out, "shape", None)
    if shape is not None and tuple(shape) != node.shape:
        what = "number of dimensions" if len(shape) != node.ndim else "shape"
        raise ValueError(f"output array has the wrong {what}: found {tuple(shape)} but "
                         f"expected {node.shape}")


def store(ufunc, target, node: Node, where=True, casting="same_kind", i=0) -> None:
    """Write a ufunc result into ``out`` (or ``a += b``'s left side); a host
    numpy ``out`` receives the materialized result."""
    to = target.dtype
    if node.dtype != to and not np.can_cast(node.dtype, to, casting):
        raise _errors.output_casting_error(ufunc, casting, node.dtype, to, i)
    shape = target.shape
    full = shape if node.shape == shape else _errors.call_guarded(broadcast_shapes, node.shape,
                                                                  shape)
    if full != shape:
        raise ValueError(f"non-broadcastable output operand with shape {shape} doesn't "
                         f"match the broadcast shape {full}")
    if isinstance(target, np.ndarray):
        host_where = where.__array__() if isinstance(where, ndarray) else where
        np.copyto(target, wrap(node).__array__(), casting="unsafe", where=host_where)
        return
    value = as_node(node, to, shape)
    assign(target, _masked(value, where, target._h.node))


def assign(target: ndarray, node: Node) -> None:
    """In-place update of ``target`` (through to its base, for a view)."""
    handle = target._h
    if getattr(handle, "backward", True) is None:
        raise _errors.read_only_error()
    handle.assign(node)  # (an automatic cut inside is safe: ViewHandle.assign)


def inplace(ufunc: np.ufunc, target: ndarray, other):
    """``target op= other``: numpy's out=target with same_kind casting."""
    found = _masked_writes.operands((target, other))  # before the store changes target
    try:
        (node,) = compute(ufunc, (target, other))
        if UFUNCS[ufunc].gufunc and node.shape != target.shape:  # a @= b: never broadcast
            raise ValueError(f"{ufunc.__name__}: in-place result of shape {node.shape} does "
                             f"not fit the first operand's shape {target.shape}")
        store(ufunc, target, node)
    except CoreError as exc:
        raise _errors.translate(exc) from None
    _tag_masked(ufunc, found, target)
    return target


def _tag_masked(ufunc: np.ufunc, found, result: ndarray) -> None:
    """``x[m] = f(x[m])``, ``x[m] += v`` (``_masked_writes``): when the
    operands ``found`` were masked reads of one mask, ``result`` is one too."""
    _masked_writes.tag_result(found, lambda full: compute(ufunc, full)[0], result)
