"""1-d signal functions over nodes: correlation and convolution (one CONV,
numpy's 'valid'/'same'/'full' modes, as ``tnp``/``torch`` spell them with
conv1d) and piecewise-linear interpolation (numpy's ``interp`` slope
formula).

Operands share one dtype chosen by the frontend's promotion; the frontend
checks ranks and emptiness with its own errors.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> a = constant(np.arange(5.0), np.dtype("float64"))
>>> v = constant(np.ones(3), np.dtype("float64"))
>>> correlate(a, v, "valid").shape, convolve(a, v, "full").shape, interp(a, a, a).shape
((3,), (7,), (5,))
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.apply import Operand
from lazytensor.core.composite.indexing import take as ctake
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.sorting import sort as csort
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

MODES = ("valid", "same", "full")


def _correlate_long(a: Node, v: Node, mode: str) -> Node:
    """Correlation for len(a) >= len(v), as one CONV (which correlates)."""
    n, m = a.shape[0], v.shape[0]
    pads = {"valid": (0, 0), "same": (m // 2, m - 1 - m // 2), "full": (m - 1, m - 1)}
    if mode not in pads:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    lhs, rhs = cs.reshape(a, (1, 1, n)), cs.reshape(v, (1, 1, m))
    out = make(Op.CONV, (lhs, rhs), (1,), (pads[mode],), (1,), (1,), ("NCW", "OIW", "NCW"),
               1, 1)
    return cs.reshape(out, (out.shape[-1],))


def correlate(a: Node, v: Node, mode: str = "valid") -> Node:
    """numpy's correlate of two non-empty 1-d nodes: ``sum a[n+k] * conj(v[k])``
    (the shorter operand slides; swapped operands come out reversed)."""
    v = make(Op.CONJ, (v,)) if dt.is_complex(v.dtype) else v
    if a.shape[0] >= v.shape[0]:
        return _correlate_long(a, v, mode)
    return make(Op.REV, (_correlate_long(v, a, mode),), (0,))


def convolve(a: Node, v: Node, mode: str = "full") -> Node:
    """numpy's convolve of two non-empty 1-d nodes (symmetric in them)."""
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    return _correlate_long(a, make(Op.REV, (v,), (0,)), mode)


def _ends(values: Node, shape: tuple[int, ...], value: Operand | None, at: int) -> Node:
    if value is not None:
        return ew.as_node(value, values.dtype, shape)
    return ew.broadcast_to(ctake.take(values, at), shape)


def _part(value: Operand | None, op: Op) -> Operand | None:
    """The real (``Op.REAL``) or imaginary part of a complex bound."""
    if value is None or isinstance(value, Node):
        return value if value is None or not dt.is_complex(value.dtype) else make(op, (value,))
    return complex(value).real if op is Op.REAL else complex(value).imag


def interp(x: Node, xp: Node, fp: Node, left: Operand | None = None,
           right: Operand | None = None) -> Node:
    """Piecewise-linear interpolation at ``x`` of the points (xp, fp), xp
    increasing; ``x`` and ``xp`` of one float dtype, the result in fp's;
    outside the range ``left``/``right`` (default: fp's end values).
    Non-finite points as numpy's: x at a point gives its value, a NaN from
    one side is retried from the other, then equal neighbours give theirs;
    complex fp interpolates its real and imaginary parts apart."""
    if dt.is_complex(fp.dtype):
        parts = [interp(x, xp, make(op, (fp,)), *(_part(v, op) for v in (left, right)))
                 for op in (Op.REAL, Op.IMAG)]
        return make(Op.COMPLEX, tuple(parts))
    n = xp.shape[0]
    j = csort.searchsorted(xp, x, "right")
    j = make(Op.CLAMP, (apply.const(1, j), j, apply.const(max(n - 1, 1), j)))
    lo = make(Op.SUB, (j, apply.const(1, j)))
    x0, x1 = ctake.take(xp, lo), ctake.take(xp, j)
    f0, f1 = ctake.take(fp, lo), ctake.take(fp, j)
    width = ew.convert(make(Op.SUB, (x1, x0)), fp.dtype)
    slope = make(Op.DIV, (make(Op.SUB, (f1, f0)), width))
    out = make(Op.ADD, (make(Op.MUL, (slope, ew.convert(make(Op.SUB, (x, x0)), fp.dtype))), f0))
    back = make(Op.ADD, (make(Op.MUL, (slope, ew.convert(make(Op.SUB, (x, x1)), fp.dtype))), f1))
    out = make(Op.SELECT, (make(Op.NE, (out, out)), back, out))  # NaN: from the right end
    flat = make(Op.AND, (make(Op.NE, (out, out)), make(Op.EQ, (f0, f1))))
    out = make(Op.SELECT, (make(Op.OR, (flat, make(Op.EQ, (x, x0)))), f0, out))
    first, last = (ew.broadcast_to(ctake.take(xp, i), x.shape) for i in (0, n - 1))
    out = make(Op.SELECT, (make(Op.EQ, (x, last)), _ends(fp, x.shape, None, n - 1), out))
    out = make(Op.SELECT, (make(Op.LT, (x, first)), _ends(fp, x.shape, left, 0), out))
    return make(Op.SELECT, (make(Op.GT, (x, last)), _ends(fp, x.shape, right, n - 1), out))
