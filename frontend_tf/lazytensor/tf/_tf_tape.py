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
    no reference cycle)."""

    __slots__ = ("_tape",)

    def __init__(self, tape) -> None:
        self._tape = weakref.ref(tape)

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
    if getattr(self, "_lazytensor_inner", False):
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
    if lazy is None or not mine:
        return _ORIGINAL["watch"](self, tensor)
    lazy.watch(mine)
    others = [t for t in flat if not isinstance(t, ndarray)]
    if others:
        _ORIGINAL["watch"](self, others)
    return None


def _lazy_or_own(name: str):
    """``name`` (gradient, jacobian, batch_jacobian): the lazy tape's when
    its targets or sources hold a lazy array or values crossed between the
    lazy graph and TensorFlow's while it recorded, else TensorFlow's."""
    original = _ORIGINAL[name]

    @functools.wraps(original)
    def method(self, target, sources, *args, **kwargs):
        lazy = getattr(self, _LAZY, None)
        if lazy is None or not (lazy._leaves or lazy._exits or _holds_lazy(target, sources)):
            return original(self, target, sources, *args, **kwargs)
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


_PATCHES = {"__enter__": _enter, "__exit__": _exit, "watch": _watch,
            "stop_recording": _stop_recording, "reset": _reset,
            "watched_variables": _watched_variables}


def install() -> None:
    """Give ``tf.GradientTape`` the behaviour above (once)."""
    from tensorflow.python.eager import backprop

    cls = backprop.GradientTape
    if _ORIGINAL:
        return
    for name in (*_PATCHES, "gradient", "jacobian", "batch_jacobian"):
        _ORIGINAL[name] = cls.__dict__[name]
    for name, patch in _PATCHES.items():
        setattr(cls, name, functools.wraps(_ORIGINAL[name])(patch))
    for name in ("gradient", "jacobian", "batch_jacobian"):
        setattr(cls, name, _lazy_or_own(name))
