"""A minimal numpy-like namespace straight over ``lazytensor.core`` (Handle +
composite helpers), for measuring the core's own cost without a frontend.

It covers only what the benchmarks use: ``+ - * /`` with arrays and Python
scalars, unary ``-``, and a few ufunc-like functions.
"""

from __future__ import annotations

import jax
import numpy as np
from lazytensor.core import Handle, Op, get_runtime, make
from lazytensor.core.composite.elementwise.apply import binary
from lazytensor.core.composite.elementwise.promotion import NUMPY


def _node(value):
    return value.handle.node if isinstance(value, CoreArray) else value


class CoreArray:
    """A lazy array: a Handle plus numpy-style operators."""

    __slots__ = ("handle",)

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def _bin(self, op: Op, other, swap: bool = False) -> CoreArray:
        a, b = (_node(other), self.handle.node) if swap else (self.handle.node, _node(other))
        return CoreArray(Handle(binary(op, a, b, NUMPY)))

    def __add__(self, other): return self._bin(Op.ADD, other)
    def __radd__(self, other): return self._bin(Op.ADD, other, True)
    def __sub__(self, other): return self._bin(Op.SUB, other)
    def __rsub__(self, other): return self._bin(Op.SUB, other, True)
    def __mul__(self, other): return self._bin(Op.MUL, other)
    def __rmul__(self, other): return self._bin(Op.MUL, other, True)
    def __truediv__(self, other): return self._bin(Op.DIV, other)
    def __neg__(self): return _unary(Op.NEG)(self)

    def block(self) -> CoreArray:
        """Materialize and wait for the device."""
        jax.block_until_ready(self.handle.value())
        return self

    def numpy(self) -> np.ndarray:
        return self.handle.numpy()


def _unary(op: Op):
    def fn(x: CoreArray) -> CoreArray:
        return CoreArray(Handle(make(op, (x.handle.node,))))
    fn.__name__ = op.name.lower()
    return fn


sin, cos, exp, tanh, abs, sqrt, log1p = (  # noqa: A001  (numpy's names)
    _unary(op) for op in (Op.SIN, Op.COS, Op.EXP, Op.TANH, Op.ABS, Op.SQRT, Op.LOG1P)
)


def maximum(a: CoreArray, b) -> CoreArray:
    return a._bin(Op.MAX, b)


def asarray(value) -> CoreArray:
    return CoreArray(get_runtime().from_host(np.asarray(value)))


def sync() -> None:
    get_runtime().sync()
