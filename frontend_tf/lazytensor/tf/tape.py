"""``GradientTape`` and ``Variable`` with tf.GradientTape's semantics; the
gradients themselves come from the core (``lazytensor.core.autodiff``, and
``composite.linalg.jacobian`` for summing a variable's aliases and stacking
Jacobian rows) and are recorded lazily like any other op.

What a tape differentiates: the operations recorded while it is active.
Every read of a trainable variable (and every ``tape.watch(x)``) inside the
tape gives a fresh alias node (an identity convert), so values computed
before the tape from the same variable stay constants, as in TensorFlow.
Arrays made while a tape records keep their symbolic node, so a barrier
inside the tape (``print(loss)``) does not cut the gradient's graph.
"""

from __future__ import annotations

import functools
import itertools
import math
import sys
import weakref
from contextlib import contextmanager

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core import trees
from lazytensor.core.autodiff import reachable
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.promotion import TNP
from lazytensor.core.composite.indexing import subscript as indexing
from lazytensor.core.composite.linalg import jacobian
from lazytensor.core.composite.movement import shape as core_shape
from lazytensor.core.composite.reduce import reduction
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import Handle
from lazytensor.tf import _tf, _tf_variables
from lazytensor.tf._array import RECORDING, WEAK, Session, lift, ndarray, weak_stand_in, wrap

_UNIQUE_IDS = itertools.count()


def _alias(node: Node) -> Node:
    """A distinct node with ``node``'s value (the variable's read)."""
    return make(Op.CONVERT, (node,), node.dtype)


class Variable(ndarray):
    """A mutable, trainable array (tf.Variable's API subset): ``assign``,
    ``assign_add``, ``assign_sub``, ``read_value``, ``numpy``; it takes part
    in every tnp function and operator like an array."""

    # __dict__: TensorFlow's Trackable state (``_tf_variables.install_checkpointing``)
    __slots__ = ("trainable", "name", "_unique_id", "__dict__")
    constraint = None  # tf.Variable's (Keras optimizers read it)

    def __init__(self, initial_value, trainable: bool = True, name: str | None = None,
                 dtype=None) -> None:
        value = initial_value() if callable(initial_value) else initial_value
        self._h = Handle(lift(value, _tf.as_np_dtype(dtype) or _python_value_dtype(value)))
        self._h.value()  # a variable holds device data from the start, as TensorFlow's
        self._session = self._sym = None
        # TensorFlow's eager variables are named as their tensor's first output
        self.trainable, self.name = trainable, f"{name or 'Variable'}:0"
        self._unique_id = f"lazy{next(_UNIQUE_IDS)}"  # tf.Variable's key (Keras optimizers)

    def _node(self) -> Node:
        session = RECORDING.active
        if session is None or not (self.trainable or id(self) in RECORDING.aliases):
            return self._h.node
        return _read(self, session)

    def __tf_tensor__(self, dtype=None, name=None):
        """As an array's, but never captured by a traced tf.function (its
        value would be frozen there: ``lazytensor.tf._function``)."""
        from lazytensor.tf import _function

        _function.refuse_capture()
        return self._to_tf(dtype, name, sys._getframe(1))

    def read_value(self) -> ndarray:
        return wrap(self._node())

    def value(self) -> ndarray:
        return self.read_value()

    def sparse_read(self, indices, name=None) -> ndarray:
        """The rows ``indices`` names (``tf.gather(v, indices)``)."""
        return _tf.tf().gather(self, indices)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        _check_assignable(value, self._h.node.dtype)
        node = lift(value, self._h.node.dtype)
        if node.shape != self._h.node.shape:
            raise ValueError(f"Cannot assign value of shape {node.shape} to a variable with "
                             f"shape {self._h.node.shape}")
        self._h.assign(node)
        return self if read_value else None

    def _update(self, op: Op, delta) -> Node:
        node = self._h.node
        _check_assignable(delta, node.dtype)
        return make(op, (node, ew.broadcast_to(lift(delta, node.dtype), node.shape)))

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self.assign(self._update(Op.ADD, delta), read_value=read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self.assign(self._update(Op.SUB, delta), read_value=read_value)

    def __getitem__(self, key):
        """``v[key]``, whose ``assign`` writes into v (tf's sliced assignment)."""
        out = wrap(ndarray.__getitem__(self, key)._node(), VariableSlice)
        out.variable, out.key = self, key
        return out

    def _scatter(self, kind: str, indices, updates, negate: bool = False):
        from lazytensor.tf.tf_api.array_ops import scatter_nd

        updates = lift(updates, self._h.node.dtype)
        updates = make(Op.NEG, (updates,)) if negate else updates
        return self.assign(scatter_nd(kind)(self._h.node, indices, updates))

    def scatter_nd_update(self, indices, updates, name=None):
        return self._scatter("set", indices, updates)

    def scatter_nd_add(self, indices, updates, name=None):
        return self._scatter("add", indices, updates)

    def scatter_nd_sub(self, indices, updates, name=None):
        return self._scatter("add", indices, updates, negate=True)

    def scatter_nd_max(self, indices, updates, name=None):
        return self._scatter("max", indices, updates)

    def scatter_nd_min(self, indices, updates, name=None):
        return self._scatter("min", indices, updates)

    def _sparse(self, kind: str, sparse_delta, negate: bool = False):
        """``scatter_*`` of a ``tf.IndexedSlices``: its values combined into
        the rows its indices name (``scatter_nd`` with one index per row)."""
        from lazytensor.tf.tf_api.array_ops import host_indices

        if not isinstance(sparse_delta, _tf.tf().IndexedSlices):
            raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received "
                            f"arg: {sparse_delta}")
        indices = sparse_delta.indices
        host = host_indices(indices)
        if host is not None:
            rows = host[..., None]
        else:
            rows = core_shape.expand_dims(lift(indices), -1)
        return self._scatter(kind, rows, sparse_delta.values, negate)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return self._sparse("add", sparse_delta)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._sparse("add", sparse_delta, negate=True)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._sparse("set", sparse_delta)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        return self._sparse("max", sparse_delta)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        return self._sparse("min", sparse_delta)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        return self._sparse("mul", sparse_delta)

    def __repr__(self) -> str:
        node = self._h.node
        return (f"<lazytensor.tf.Variable '{self.name}' shape={node.shape} "
                f"dtype={node.dtype.name}, numpy={self.numpy()!r}>")


class VariableSlice(ndarray):
    """``variable[key]``: an array whose ``assign`` writes into the variable
    (TensorFlow's strided-slice assignment) and returns it."""

    __slots__ = ("variable", "key")

    def assign(self, value, use_locking=None, name=None, read_value=True):
        var = self.variable
        _check_assignable(value, var._h.node.dtype)
        key = tuple(int(k) if isinstance(k, ndarray) else k for k in
                    (self.key if isinstance(self.key, tuple) else (self.key,)))
        return var.assign(indexing.setitem(var._h.node, key, lift(value, var._h.node.dtype)),
                          read_value=read_value)


# tf.convert_to_tensor's dtypes for Python numbers (numpy's, narrowed)
_PYTHON_DTYPES = {dt.int64: dt.int32, dt.float64: dt.float32}
_INT32 = np.iinfo(np.int32)


def _python_value_dtype(value) -> np.dtype | None:
    """The dtype TensorFlow gives a Python number or a list of them (as
    ``tf.Variable(0.0)`` does, whatever tnp's mode): float32, and int32 when
    the values fit; None for arrays and numpy values (their own dtype)."""
    if type(value) not in WEAK and weak_stand_in(value) is None:
        return None
    host = np.asarray(value)
    narrow = _PYTHON_DTYPES.get(host.dtype)
    if narrow == dt.int32 and host.size and not (_INT32.min <= host.min() and
                                                 host.max() <= _INT32.max):
        return host.dtype
    return narrow or host.dtype


# Python scalar kind -> the dtype kinds TensorFlow converts it to
_FITS = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}


def _check_assignable(value, dtype: np.dtype) -> None:
    """TensorFlow's conversion of an assigned value to the variable's dtype:
    a tensor must already have it (ValueError), Python numbers must fit its
    kind (TypeError: 1.5 into an int32 variable); numpy values are cast."""
    if isinstance(value, Node):
        return
    if isinstance(value, ndarray) or _tf.is_tf_value(value):
        found = value._h.node.dtype if isinstance(value, ndarray) else \
            np.dtype(value.dtype.as_numpy_dtype)
        if found != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with "
                             f"dtype {found.name}")
        return
    stand_in = value if type(value) in WEAK else weak_stand_in(value)
    if stand_in is not None and dtype.kind not in _FITS[type(stand_in)]:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")


def _read(var: Variable, session: object, watcher: GradientTape | None = None) -> Node:
    """The variable's alias in this recording session (one per value); the
    tapes that watch accessed variables (or ``watcher``, an explicit
    ``watch``) watch it. A tape that starts after the variable was read
    (nested in a tape that read it) gets a fresh alias on top of the known
    one: values computed before it started stay constants to it, as in
    TensorFlow, while the earlier tapes differentiate through both."""
    source = var._h.node
    if watcher is not None:
        tapes = [watcher]
    else:
        tapes = [t for t in RECORDING.tapes if t.watch_accessed_variables and var.trainable]
    known = RECORDING.aliases.get(id(var))
    if known is not None and known[0] is source:
        missing = [t for t in tapes if id(var) not in t._watched]
        if not missing:
            return known[1]
        base, tapes = known[1], missing
    else:
        base = source
    alias = _alias(base)
    RECORDING.aliases[id(var)] = (source, alias)
    for tape in tapes:
        tape._watch(var, alias)
    return alias


class GradientTape:
    """Records operations on lazy arrays for ``gradient``, like
    ``tf.GradientTape`` (``persistent``, ``watch_accessed_variables``,
    nested tapes, ``stop_recording``)."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self._sessions: list[object] = []  # the recording sessions this tape saw
        self._watched: dict[int, tuple[object, list[Node]]] = {}
        self._used = False
        self._recording = False
        self._stops: dict[int, int] = {}  # session id -> its array count when this tape left it
        self._tf_tape = None  # TensorFlow's tape for TensorFlow variables (_tf_variables)
        self._leaves: list[tuple] = []  # (tf.Tensor, alias node) that entered the lazy graph
        self._exits: list[tuple] = []  # (node, tf.Tensor): lazy values converted to TensorFlow

    def __enter__(self) -> GradientTape:
        if RECORDING.active is None:
            RECORDING.active = Session()
            RECORDING.aliases = {}
        session = RECORDING.active
        if session not in self._sessions:
            self._sessions.append(session)
            session.tapes.append(weakref.ref(self, lambda _: session.release_if_done()))
        RECORDING.tapes.append(self)
        self._recording = True
        self._stops.pop(id(session), None)
        if self._tf_tape is None:
            self._tf_tape = _tf_variables.new_tape(self.watch_accessed_variables)
        if self._tf_tape is not None:
            self._tf_tape.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._tf_tape is not None:
            self._tf_tape.__exit__(None, None, None)
        RECORDING.tapes.remove(self)
        self._recording = False
        if RECORDING.tapes:  # an outer tape goes on recording in this session
            self._stops[id(RECORDING.active)] = len(RECORDING.active.arrays)
        if not RECORDING.tapes:
            session, RECORDING.active, RECORDING.aliases = RECORDING.active, None, {}
            session.closed = True
            session.release_if_done()

    def may_differentiate(self) -> bool:
        """Whether ``gradient`` may still be called (and needs the graphs)."""
        return self.persistent or not self._used

    def _watch(self, key: object, node: Node) -> None:
        entry = self._watched.setdefault(id(key), (key, []))
        if not any(n is node for n in entry[1]):
            entry[1].append(node)

    def watch(self, tensor) -> None:
        """Differentiate with respect to ``tensor`` (arrays, variables,
        nested lists/tuples/dicts of them) from now on."""
        for t in _flatten(tensor):
            variable = _tf_variables.tf_variable(t)
            if variable is not None and self._tf_tape is not None and self._recording:
                self._tf_tape.watch(variable)
                continue
            if _tf.is_tf_value(t) and self._tf_tape is not None and self._recording:
                self._tf_tape.watch(t)  # a source on TensorFlow's side (tf_source)
                self._tf_tape.watching = True
                continue
            if not isinstance(t, ndarray) or not self._recording:
                raise ValueError(f"GradientTape.watch needs a lazy array inside the tape, got "
                                 f"{type(t).__name__}")
            if isinstance(t, Variable):
                _read(t, RECORDING.active, self)
                continue
            alias = _alias(t._node())
            t._sym, t._session = alias, RECORDING.active
            RECORDING.active.keep(t)
            self._watch(t, alias)

    def watched_variables(self) -> tuple:
        tf_variables = self._tf_tape.watched_variables() if self._tf_tape is not None else ()
        return tuple(k for k, _ in self._watched.values() if isinstance(k, Variable)) + \
            tuple(tf_variables)

    @contextmanager
    def stop_recording(self):
        """Operations in this block are not recorded (as tf's)."""
        saved = RECORDING.active
        RECORDING.active = None
        try:
            if self._tf_tape is not None:
                with self._tf_tape.stop_recording():
                    yield
            else:
                yield
        finally:
            RECORDING.active = saved

    def reset(self) -> None:
        self._watched.clear()
        self._leaves.clear()
        self._exits.clear()
        if self._tf_tape is not None:
            self._tf_tape.reset()
        self._sessions.clear()
        self._stops.clear()

    def _use(self) -> None:
        if self._used and not self.persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        self._used = True

    def _release(self) -> None:
        for session in self._sessions:
            session.release_if_done()

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients="none"):
        """d(sum of target) / d(each source), with ``sources``' structure;
        None where a source is unconnected or not floating (as TensorFlow)."""
        self._use()
        output = self._objective(target, output_gradients)
        flat = _flatten(sources)
        variables = [_tf_variables.tf_source(s, self._tf_tape) for s in flat]
        wrt = [[] if v is not None else self._source_nodes(s) for s, v in zip(flat, variables,
                                                                               strict=True)]
        tf_targets = self._tf_targets(target, output_gradients)
        if self._exits or tf_targets or any(v is not None for v in variables):
            grads = _tf_variables.bridged(self, output, wrt, variables, tf_targets, _grads)
        else:
            grads = _grads(output, wrt)
        if not self.persistent:
            self._leaves, self._exits = [], []
        self._release()
        if _zeros_wanted(unconnected_gradients):
            tf = _tf.tf() if any(v is not None for v in variables) else None
            grads = [g if g is not None else tf.zeros_like(v) if v is not None else
                     wrap(ew.full(tuple(s._h.node.shape), 0, s._h.node.dtype))
                     for g, s, v in zip(grads, flat, variables, strict=False)]
        return _unflatten(sources, iter(grads))

    def _tf_targets(self, target, output_gradients) -> list:
        """(tf.Tensor, its output gradient) for the TensorFlow tensors among
        ``target`` (computed by TensorFlow from lazy values: ``bridged``)."""
        if self._tf_tape is None:
            return []
        flat = _flatten(target)
        cts = _flatten(output_gradients) if output_gradients is not None else [None] * len(flat)
        tf = _tf.tf()
        return [(t, tf.ones_like(t) if ct is None else tf.cast(tf.constant(_tf.host_value(ct)),
                                                                   t.dtype))
                for t, ct in zip(flat, cts, strict=False)
                if isinstance(t, tf.Tensor) and t.dtype.is_floating]

    def jacobian(self, target, sources, unconnected_gradients="none",
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target / d source for every element of ``target``: per source, shape
        ``target.shape + source.shape`` (``sources``' structure kept). One
        gradient per element of ``target`` (a vector-Jacobian product with a
        one-hot cotangent), recorded lazily like ``gradient``'s."""
        flat = _flatten(sources)
        node, rows = self._one_hot_rows(target, flat, 1)
        lead = node.shape
        out = [_stack_rows([row[k] for row in rows], lead, s._h.node,
                           _zeros_wanted(unconnected_gradients)) for k, s in enumerate(flat)]
        return _unflatten(sources, iter(out))

    def batch_jacobian(self, target, source, unconnected_gradients="none",
                       parallel_iterations=None, experimental_use_pfor=True):
        """d target[i] / d source[i] for every batch row i: shape ``target.shape
        + source.shape[1:]``. Rows are independent (TensorFlow's assumption),
        so one gradient per element of a row, its one-hot repeated over rows."""
        src = source._h.node
        for x in (target._h.node, src):
            if x.ndim < 2 or x.shape[0] != src.shape[0]:
                raise ValueError(f"Need first dimension of target shape {x.shape} and source "
                                 f"shape {src.shape} to match, both of rank at least 2")
        node, rows = self._one_hot_rows(target, [source], src.shape[0])
        jac = _stack_rows([row[0] for row in rows], (len(rows),), src,
                          _zeros_wanted(unconnected_gradients))
        if jac is None:
            return None
        moved = core_shape.moveaxis(jac._h.node, 0, 1)  # (rows, n, *source row)
        return wrap(core_shape.reshape(moved, (*node.shape, *src.shape[1:])))

    def _one_hot_rows(self, target, flat: list, batch: int) -> tuple:
        """target's node (its value's, when this tape did not record it) and,
        per element of its rows (``batch`` rows), the gradients of ``flat``
        with that element's one-hot cotangent (none: unconnected)."""
        self._use()
        wrt = [self._source_nodes(s) for s in flat]
        node = self._symbolic(target)
        rows = []
        if node is None:
            node = target._h.node if isinstance(target, ndarray) else lift(target, None)
        elif dt.is_inexact(node.dtype):
            size = math.prod(node.shape) // batch
            for i in range(size):
                onehot = np.zeros((batch, size), node.dtype)
                onehot[:, i] = 1
                rows.append(_grads(self._objective([target], [onehot.reshape(node.shape)]), wrt))
        self._release()
        return node, rows

    def _symbolic(self, t) -> Node | None:
        """``t``'s recorded node; None for a value this tape did not record
        (made before or after it, or in ``stop_recording``): TensorFlow's
        gradient of it is None (unconnected)."""
        if isinstance(t, Variable):
            return t._h.node
        if isinstance(t, ndarray):
            if t._session not in self._sessions or not self._recorded(t):
                return None
            return t._sym
        return None

    def _recorded(self, t: ndarray) -> bool:
        """Whether ``t`` was made before this tape left its session (values
        that an outer tape records after this one exited are not this one's)."""
        stop = self._stops.get(id(t._session))
        return stop is None or any(ref() is t for ref in t._session.arrays[:stop])

    def _objective(self, target, output_gradients) -> Node | None:
        """One scalar whose gradient is the tape's: sum_i <target_i, ct_i>."""
        targets = [self._symbolic(t) for t in _flatten(target)]
        cts = _flatten(output_gradients) if output_gradients is not None else [None] * len(
            targets)
        terms = []
        for node, ct in zip(targets, cts, strict=False):
            if node is None or not dt.is_inexact(node.dtype):
                continue
            if ct is not None:
                ct = _conj(lift(ct, node.dtype))
                node = make(Op.MUL, (node, ew.broadcast_to(ct, node.shape)))
            terms.append(node if node.shape == () else reduction.reduce("sum", node))
        return functools.reduce(lambda t, u: ew.binary(Op.ADD, t, u, TNP), terms) if terms \
            else None

    def _source_nodes(self, source) -> list[Node]:
        """The nodes standing for ``source`` in this tape: its watched aliases,
        or (an array made inside the tape) its symbolic node."""
        entry = self._watched.get(id(source))
        if entry is not None:
            return entry[1]
        if isinstance(source, ndarray) and not isinstance(source, Variable) \
                and source._session in self._sessions:
            return [source._sym]
        return []


def _zeros_wanted(unconnected) -> bool:
    return str(getattr(unconnected, "value", unconnected)).lower() == "zero"


def _conj(node: Node) -> Node:
    return make(Op.CONJ, (node,)) if dt.is_complex(node.dtype) else node


# ops whose gradient TensorFlow does not define (NotDifferentiable: Floor,
# Ceil, Round, Rint; tf.math.floordiv is a floor): a source that the target
# reaches only through them (or through integer or bool values: casts,
# comparisons, stop_gradient's bit cast) has no gradient (None), where the
# core's derivative is a zero
_NOT_DIFFERENTIABLE = frozenset({Op.FLOOR, Op.CEIL, Op.ROUND_EVEN, Op.ROUND_AWAY})


def _cuts(node: Node) -> bool:
    return node.op in _NOT_DIFFERENTIABLE or (
        isinstance(node.dtype, np.dtype) and not dt.is_inexact(node.dtype))


def _grads(output: Node | None, wrt: list[list[Node]]) -> list:
    """One gradient per source: the sum over its nodes (the core's; None when
    it has none, when it is not floating, when ``output`` is None or reaches
    it only through ops TensorFlow does not differentiate).

    Complex values follow TensorFlow's convention, the conjugate of the
    core's (JAX's) vector-Jacobian product with conjugated output gradients
    (``_objective``): d|z|^2/dz is 2z, as in TensorFlow (the core gives 2
    conj(z))."""
    if output is not None:
        reached = reachable(output, _cuts)
        wrt = [[n for n in nodes if id(n) in reached] for nodes in wrt]
    return [None if g is None else wrap(_conj(g)) for g in jacobian.grouped_grads(output, wrt)]


def _stack_rows(rows: list, lead: tuple, source: Node, zeros: bool):
    """One source's Jacobian from its per-element gradients (None: unconnected):
    shape ``lead + source.shape`` (the core's)."""
    out = jacobian.stack_rows([None if r is None else r._h.node for r in rows], lead, source,
                              zeros)
    return None if out is None else wrap(out)


def _flatten(structure) -> list:
    """TensorFlow's ``nest.flatten``: a dict's values in sorted key order."""
    return list(trees.leaves(structure, sort_keys=True))


def _unflatten(structure, values):
    """``structure`` with its leaves taken from the iterator ``values``."""
    return trees.tree_map(lambda _: next(values), structure, sort_keys=True)

