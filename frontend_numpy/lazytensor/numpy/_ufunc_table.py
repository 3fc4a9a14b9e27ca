"""The ufunc table: ``np.ufunc -> Ufunc``, numpy's objects bound to the
core's ufuncs by name (``composite.ufuncs``: the composite computing each one
in the loop dtype numpy chose, plus what ``reduce``/``accumulate`` map to).

Implementations receive operands already converted to numpy's loop dtypes and
broadcast to one shape (gufuncs: converted only) and return a Node, or a tuple
of Nodes for ufuncs with several outputs. A ufunc missing here runs eagerly in
numpy (``_fallback``).
"""

from __future__ import annotations

import dataclasses

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import ufuncs as cu
from lazytensor.core.composite.elementwise import as_node
from lazytensor.core.composite.ufuncs import Ufunc
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

import numpy as np

UFUNCS: dict[np.ufunc, Ufunc] = {getattr(np, name): impl for name, impl in cu.UFUNCS.items()}


def _zero_base(power):
    """numpy's complex power at a zero base: 0 for an exponent with a
    positive real part (exp(b log 0) is NaN there), 1 for 0 ** 0, else NaN."""
    def fn(a: Node, b: Node) -> Node:
        out = power(a, b)
        return _zero_base_fixed(a, b, out) if dt.is_complex(a.dtype) else out

    return fn


def _zero_base_fixed(a: Node, b: Node, out: Node) -> Node:
    real = make(Op.REAL, (b,))
    zero = make(Op.AND, (make(Op.EQ, (a, as_node(0, a.dtype, a.shape))),
                         make(Op.GT, (real, as_node(0, real.dtype, real.shape)))))
    return make(Op.SELECT, (zero, as_node(0, out.dtype, out.shape), out))


for _u in (np.power, np.float_power):
    UFUNCS[_u] = dataclasses.replace(UFUNCS[_u], fn=_zero_base(UFUNCS[_u].fn))
ABOVE_RANGE = {getattr(np, name): answer for name, answer in cu.ABOVE_RANGE.items()}
MIRROR = {getattr(np, a): getattr(np, b) for a, b in cu.MIRROR.items()}


def direct_op(ufunc: np.ufunc, dtype: np.dtype) -> Op | None:
    """The single primitive computing ``ufunc`` on loop dtype ``dtype``, if any."""
    if ufunc in (np.power, np.float_power) and dtype.kind == "c":
        return None  # (_zero_base)
    return cu.direct_op(ufunc.__name__, dtype)

