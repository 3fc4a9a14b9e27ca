"""TensorFlow's own ``tf.GradientTape`` over lazy arrays.

A tnp program differentiates with ``tf.GradientTape``; with lazy arrays,
TensorFlow's tape never sees their operations (they record in the core),
and its ``watch``/``gradient`` failed on them. Once installed, every
``tf.GradientTape`` runs a lazytensor tape beside it (``tape.GradientTape``,
which records while TensorFlow's records and uses TensorFlow's tape itself
for tf.Variables and TensorFlow-side values): ``watch`` gives lazy arrays to
it and everything else to TensorFlow, and ``gradient``, ``jacobian`` and
``batch_jacobian`` whose targets or sources hold a lazy array are the lazy
tape's (lazy results, as TensorFlow's tape gives tnp arrays), and so are
those of a tape during which values crossed between the lazy graph and
TensorFlow (a Keras layer on a lazy batch); the others are TensorFlow's
own. A program without lazy arrays runs TensorFlow's code (on a tape
object that is persistent underneath: ``_persistent_underneath``).
"""

from __future__ import annotations

import functools
import weakref
from contextlib import contextmanager

_ORIGINAL: dict = {}
_LAZY = "_lazytensor_tape"


class _Own:
    """TensorFlow's tape as the lazytensor tape's TensorFlow side: its own
    (unpatched) methods; TensorFlow's ``with`` enters and exits it. It
    holds the tape weakly (the tape holds the lazy tape, which holds this:
    no reference cycle). ``watching``: TensorFlow's tape was asked to watch
    tensors (they become sources of the lazy tape's gradients)."""

    __slots__ = ("_tape", "watching")

    def __init__(self, tape) -> None:
        self._tape = weakref.ref(tape)
        self.watching = False

    @property
    def tape(self):
        return self._tape()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def watch(self, tensor) -> None:
        _ORIGINAL["watch"](self.tape, tensor)

    def watched_variables(self):
        return _ORIGINAL["watched_variables"](self.tape)

    def stop_recording(self):
        return _ORIGINAL["stop_recording"](self.tape)

    def reset(self) -> None:
        _ORIGINAL["reset"](self.tape)

    def gradient(self, target, sources, output_gradients=None):
        with _persistent_underneath(self.tape):
            return _ORIGINAL["gradient"](self.tape, target, sources,
                                         output_gradients=output_gradients)


def _holds_lazy(*structures) -> bool:
    from lazytensor.tf._array import ndarray
    from lazytensor.tf.tape import _flatten

    return any(isinstance(v, ndarray) for s in structures for v in _flatten(s))


@contextmanager
def _persistent_underneath(tape):
    """TensorFlow's tape object made persistent (the lazy tape may ask it
    for gradients more than once: ``tape.bridged``); the Python tape keeps
    its flag, so it still refuses a second ``gradient`` and drops that
    object after the first."""
    persistent, tape._persistent = tape._persistent, True
    try:
        yield
    finally:
        tape._persistent = persistent


def _enter(self):
    from tensorflow.python.eager import context

    # a tape inside a traced tf.function sees no lazy array (a tf.function
    # called with lazy arrays runs its Python code: ``_function``), nor does
    # the TensorFlow tape of a lazytensor tape
    if getattr(self, "_lazytensor_inner", False) or not context.executing_eagerly():
        return _ORIGINAL["__enter__"](self)
    with _persistent_underneath(self):
        _ORIGINAL["__enter__"](self)
    from lazytensor.tf.tape import GradientTape

    lazy = getattr(self, _LAZY, None)
    if lazy is None:
        lazy = GradientTape(self._persistent, self._watch_accessed_variables)
        lazy._tf_tape = _Own(self)
        setattr(self, _LAZY, lazy)
    lazy.__enter__()
    return self


def _exit(self, typ, value, traceback):
    lazy = getattr(self, _LAZY, None)
    if lazy is not None and lazy._recording:
        lazy.__exit__(typ, value, traceback)
    return _ORIGINAL["__exit__"](self, typ, value, traceback)


def _watch(self, tensor) -> None:
    from lazytensor.tf._array import ndarray
    from lazytensor.tf.tape import _flatten

    lazy = getattr(self, _LAZY, None)
    flat = _flatten(tensor)
    mine = [t for t in flat if isinstance(t, ndarray)]
    others = [t for t in flat if not isinstance(t, ndarray)]
    if lazy is not None and lazy._recording:
        lazy._tf_tape.watching = lazy._tf_tape.watching or bool(others)
    if lazy is None or not mine:
        return _ORIGINAL["watch"](self, tensor)
    lazy.watch(mine)
    if others:
        _ORIGINAL["watch"](self, others)
    return None


def _lazy_or_own(name: str):
    """``name`` (gradient, jacobian, batch_jacobian): the lazy tape's when
    its targets or sources hold a lazy array (for ``gradient``, also when
    values crossed between the lazy graph and TensorFlow's while it
    recorded), else TensorFlow's. The lazy Jacobians take lazy sources only."""
    original = _ORIGINAL[name]

    @functools.wraps(original)
    def method(self, target, sources, *args, **kwargs):
        from lazytensor.tf._array import ndarray
        from lazytensor.tf.tape import _flatten

        lazy = getattr(self, _LAZY, None)
        crossed = lazy is not None and name == "gradient" and (lazy._leaves or lazy._exits)
        if lazy is None or not (crossed or _holds_lazy(target, sources)):
            return original(self, target, sources, *args, **kwargs)
        if name != "gradient" and not all(isinstance(s, ndarray) for s in _flatten(sources)):
            raise NotImplementedError(f"tf.GradientTape.{name} of lazy values with respect to "
                                      "TensorFlow tensors or variables: make the sources lazy "
                                      "arrays (lazytensor.tf.numpy.asarray), or use gradient")
        try:
            return getattr(lazy, name)(target, sources, *args, **kwargs)
        finally:
            if not self._persistent and self._tape is not None:  # TensorFlow's one use
                self._watched_variables = self._tape.watched_variables()
                self._tape = None

    return method


def _stop_recording(self):
    lazy = getattr(self, _LAZY, None)
    if lazy is None or not lazy._recording:
        return _ORIGINAL["stop_recording"](self)
    return lazy.stop_recording()


def _reset(self) -> None:
    lazy = getattr(self, _LAZY, None)
    if lazy is None:
        return _ORIGINAL["reset"](self)
    with _persistent_underneath(self):
        return lazy.reset()


def _watched_variables(self):
    lazy = getattr(self, _LAZY, None)
    if lazy is None:
        return _ORIGINAL["watched_variables"](self)
    return lazy.watched_variables()


class _Forward:
    """``tf.autodiff.ForwardAccumulator`` over lazy primals: a persistent
    lazytensor tape watches them while the accumulator is active, and a
    Jacobian-vector product is the reverse-mode gradient, with respect to a
    cotangent ``u``, of <J^T u, tangents> (J^T u is linear in u: the tape's
    gradient with ``u`` as its output gradient, differentiated once more)."""

    def __init__(self, primals, tangents) -> None:
        from lazytensor.tf._array import lift
        from lazytensor.tf.tape import GradientTape, _flatten

        self.primals, tangents = _flatten(primals), _flatten(tangents)
        if len({id(p) for p in self.primals}) != len(self.primals):
            raise ValueError("a tensor was specified as a primal multiple times")
        if len(tangents) != len(self.primals):
            raise ValueError("The two structures don't have the same number of elements: "
                             f"{len(self.primals)} primals, {len(tangents)} tangents")
        self.tangents = [lift(t, p._h.node.dtype) for p, t in zip(self.primals, tangents,
                                                                   strict=True)]
        self.tape = GradientTape(persistent=True, watch_accessed_variables=False)

    def enter(self) -> None:
        self.tape.__enter__()
        self.tape.watch(self.primals)

    def jvp(self, target, unconnected_gradients):
        from lazytensor.tf.tape import _flatten, _unflatten, _zeros_wanted

        zeros = _zeros_wanted(unconnected_gradients)
        return _unflatten(target, iter([self._one(t, zeros) for t in _flatten(target)]))

    def _one(self, target, zeros: bool):
        from lazytensor.core import dtypes as dt
        from lazytensor.core.composite.elementwise import apply as ew
        from lazytensor.core.composite.reduce import reduction
        from lazytensor.core.ops import Op
        from lazytensor.core.registry import make
        from lazytensor.tf._array import ndarray, wrap
        from lazytensor.tf.tape import _alias, _grads

        node = self.tape._symbolic(target) if isinstance(target, ndarray) else None
        out = None
        if node is not None and dt.is_inexact(node.dtype):
            u = _alias(ew.full(node.shape, 0, node.dtype))
            wrt = [self.tape._source_nodes(p) for p in self.primals]
            pulled = _grads(reduction.reduce("sum", make(Op.MUL, (node, u))), wrt)
            terms = [reduction.reduce("sum", make(Op.MUL, (g._h.node, v)))
                     for g, v in zip(pulled, self.tangents, strict=True) if g is not None]
            if terms:
                (out,) = _grads(functools.reduce(lambda a, b: make(Op.ADD, (a, b)), terms),
                                [[u]])
        if out is None and zeros and isinstance(target, ndarray):
            out = wrap(ew.full(target.shape, 0, target._h.node.dtype))
        return out


def _forward_init(self, primals, tangents) -> None:
    if _holds_lazy(primals):
        self._lazytensor_forward = _Forward(primals, tangents)
        self._recording = False
        return
    _ORIGINAL["fa.__init__"](self, primals, tangents)


def _forward_enter(self):
    lazy = getattr(self, "_lazytensor_forward", None)
    if lazy is None:
        return _ORIGINAL["fa.__enter__"](self)
    lazy.enter()
    self._recording = True
    return self


def _forward_exit(self, typ, value, traceback):
    lazy = getattr(self, "_lazytensor_forward", None)
    if lazy is None:
        return _ORIGINAL["fa.__exit__"](self, typ, value, traceback)
    if self._recording:
        lazy.tape.__exit__(typ, value, traceback)
        self._recording = False
    return None


def _forward_jvp(self, primals, unconnected_gradients="none"):
    lazy = getattr(self, "_lazytensor_forward", None)
    if lazy is None:
        return _ORIGINAL["fa.jvp"](self, primals, unconnected_gradients)
    return lazy.jvp(primals, unconnected_gradients)


_FORWARD = {"__init__": _forward_init, "__enter__": _forward_enter,
            "__exit__": _forward_exit, "jvp": _forward_jvp}

_PATCHES = {"__enter__": _enter, "__exit__": _exit, "watch": _watch,
            "stop_recording": _stop_recording, "reset": _reset,
            "watched_variables": _watched_variables}


def install() -> None:
    """Give ``tf.GradientTape`` and ``tf.autodiff.ForwardAccumulator`` the
    behaviour above (once)."""
    from tensorflow.python.eager import backprop, forwardprop

    cls = backprop.GradientTape
    if _ORIGINAL:
        return
    for name in (*_PATCHES, "gradient", "jacobian", "batch_jacobian"):
        _ORIGINAL[name] = cls.__dict__[name]
    for name, patch in _PATCHES.items():
        setattr(cls, name, functools.wraps(_ORIGINAL[name])(patch))
    for name in ("gradient", "jacobian", "batch_jacobian"):
        setattr(cls, name, _lazy_or_own(name))
    forward = forwardprop.ForwardAccumulator
    for name, patch in _FORWARD.items():
        _ORIGINAL[f"fa.{name}"] = forward.__dict__[name]
        setattr(forward, name, functools.wraps(_ORIGINAL[f"fa.{name}"])(patch))
