"""Running the legacy loop function: on copies of its inputs, with the final
values of its locals captured (the lifter reads temporaries such as a
softmax's running maximum off them), and on shape-only stand-ins (to
evaluate the size expressions of its loops for any input).

>>> import numpy as np
>>> def f(x):
...     n = x.shape[0]
...     s = 0.0
...     for i in range(n):
...         s += x[i]
...     return s
>>> run = run_legacy(f, (np.arange(3.0),))
>>> float(run.result), run.locals["n"]
(3.0, 3)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


@dataclass(frozen=True, slots=True)
class LegacyRun:
    """One run of the legacy function: its inputs (before), the arguments
    after the run (in-place updates), its return value and final locals."""

    inputs: tuple[np.ndarray, ...]
    after: tuple[np.ndarray, ...]
    result: Any
    locals: dict[str, Any]


def as_input(value: Any) -> np.ndarray:
    """An example argument as a numpy array (Python scalars become 0-d)."""
    return np.array(value, copy=True)


def run_legacy(fn: Callable, inputs: tuple, capture: bool = True) -> LegacyRun:
    """``fn`` on copies of ``inputs``; with ``capture`` its frame's final locals."""
    args = tuple(as_input(x) for x in inputs)
    work = tuple(a.copy() for a in args)
    call = tuple(w if w.ndim else w[()] if w.dtype.kind == "O" else w for w in work)
    captured: dict[str, Any] = {}
    if not capture:
        return LegacyRun(args, work, fn(*call), captured)
    code = fn.__code__

    def tracer(frame, event, arg):
        if event == "return" and frame.f_code is code:
            captured.update(frame.f_locals)
        return None

    previous = sys.getprofile()
    sys.setprofile(tracer)
    try:
        result = fn(*call)
    finally:
        sys.setprofile(previous)
    return LegacyRun(args, work, result, captured)


class ShapeOnly:
    """A stand-in for an array that knows only its shape: evaluating a size
    expression (``len(x) - len(w) + 1``, ``A.shape[0]``) on it succeeds,
    reading a value fails."""

    __slots__ = ("shape",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(int(s) for s in shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __getitem__(self, index):
        raise TypeError("a size expression may not read array values")


def shape_like(array) -> ShapeOnly:
    """The stand-in of a local made like an argument (``x.copy()``, ``zeros_like(x)``)."""
    return ShapeOnly(array.shape)


def shape_new(shape) -> ShapeOnly:
    """The stand-in of a local made from a shape (``np.zeros((n, m))``)."""
    return ShapeOnly(shape if isinstance(shape, tuple) else (shape,))


def size_env(names: tuple[str, ...], shapes: list[tuple[int, ...]], defs: list,
             globals_: dict) -> dict[str, Any]:
    """Names bound to ``ShapeOnly`` stand-ins, then the size definitions
    (``(name_or_names, code)``, evaluated in order) added."""
    env: dict[str, Any] = {n: ShapeOnly(s) for n, s in zip(names, shapes, strict=True)}
    for target, code in defs:
        value = eval(code, globals_, env)  # noqa: S307  (the user's own size expressions)
        if isinstance(target, tuple):
            env.update(zip(target, value, strict=True))
        else:
            env[target] = value
    return env
