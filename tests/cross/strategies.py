"""Hypothesis strategies for frontend-neutral programs (see program.py).

Shapes are tracked while drawing so every step is valid in every frontend;
data is drawn from a seeded numpy generator (values are not what the
properties are about, structure is).
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from program import Program, Step

UNARY = ("exp", "tanh", "abs", "negative", "sin")
BINARY = ("add", "subtract", "multiply", "maximum")
REDUCTIONS = ("sum", "mean", "max")
SCALAR_OPS = ("scale", "shift", "rsub")

shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def _broadcast_partner(shape: tuple, draw) -> tuple:
    """A shape that broadcasts with ``shape``: a suffix, with some dims set to 1."""
    keep = draw(st.integers(0, len(shape)))
    suffix = list(shape[len(shape) - keep:])
    return tuple(1 if draw(st.booleans()) and draw(st.booleans()) else s for s in suffix)


@st.composite
def programs(draw, max_steps: int = 6, dtype: str = "float32") -> Program:
    first = draw(shapes)
    inputs = [(first, dtype)]
    if draw(st.booleans()):
        inputs.append((_broadcast_partner(first, draw), dtype))
    prog = Program(inputs)
    values = [s for s, _ in inputs]
    for _ in range(draw(st.integers(1, max_steps))):
        step, shape = _draw_step(draw, values)
        prog.steps.append(step)
        values.append(shape)
    return prog


def _pick(draw, values, pred=lambda s: True):
    choices = [i for i, s in enumerate(values) if pred(s)]
    return draw(st.sampled_from(choices)) if choices else None


def _draw_step(draw, values):
    kind = draw(st.sampled_from(
        ["unary", "binary", "scalar", "reduce", "reshape", "transpose", "expand_dims",
         "index", "where", "concatenate", "softmax", "matmul", "branch"]))
    i = _pick(draw, values)
    shape = values[i]
    if kind == "binary":
        j = _pick(draw, values, lambda s: _broadcasts(shape, s))
        return Step(draw(st.sampled_from(BINARY)), (i, j)), _bshape(shape, values[j])
    if kind == "scalar":
        c = draw(st.sampled_from([0.5, 2.0, -1.5, 3.0]))
        return Step(draw(st.sampled_from(SCALAR_OPS)), (i,), (("c", c),)), shape
    if kind == "reduce" and shape:
        axis = draw(st.integers(0, len(shape) - 1))
        keep = draw(st.booleans())
        out = tuple(1 if k == axis else s for k, s in enumerate(shape)) if keep else \
            tuple(s for k, s in enumerate(shape) if k != axis)
        op = draw(st.sampled_from(REDUCTIONS))
        return Step(op, (i,), (("axis", axis), ("keepdims", keep))), out
    if kind == "reshape":
        target = (math.prod(shape),) if len(shape) != 1 else _split(shape[0])
        return Step("reshape", (i,), (("shape", target),)), target
    if kind == "transpose" and len(shape) >= 2:
        perm = tuple(draw(st.permutations(range(len(shape)))))
        return Step("transpose", (i,), (("perm", perm),)), tuple(shape[p] for p in perm)
    if kind == "expand_dims" and len(shape) < 3:
        axis = draw(st.integers(0, len(shape)))
        return Step("expand_dims", (i,), (("axis", axis),)), shape[:axis] + (1,) + shape[axis:]
    if kind == "index" and shape:
        index, out = _draw_index(draw, shape)
        return Step("index", (i,), (("index", index),)), out
    if kind == "where":
        j = _pick(draw, values, lambda s: _broadcasts(shape, s))
        out = _bshape(shape, values[j])
        return Step("where", (i, i, j)), out
    if kind == "concatenate" and shape:
        axis = draw(st.integers(0, len(shape) - 1))
        out = tuple(2 * s if k == axis else s for k, s in enumerate(shape))
        return Step("concatenate", (i, i), (("axis", axis),)), out
    if kind == "softmax" and shape:
        axis = draw(st.integers(0, len(shape) - 1))
        return Step("softmax", (i,), (("axis", axis),)), shape
    if kind == "matmul" and len(shape) == 2:
        j = _pick(draw, values, lambda s: len(s) == 2 and s[0] == shape[1])
        if j is not None:
            return Step("matmul", (i, j)), (shape[0], values[j][1])
    if kind == "branch" and shape:
        dim = draw(st.integers(0, len(shape) - 1))
        return Step("branch", (i,), (("dim", dim), ("limit", 2))), shape
    return Step(draw(st.sampled_from(UNARY)), (i,)), shape


def _split(n: int) -> tuple:
    for d in (2, 3):
        if n % d == 0 and n > d:
            return (d, n // d)
    return (1, n)


def _draw_index(draw, shape):
    form = draw(st.sampled_from(["int", "slice", "step", "ellipsis"]))
    if form == "int":
        k = draw(st.integers(-shape[0], shape[0] - 1))
        return repr(k), shape[1:]
    if form == "slice":
        lo = draw(st.integers(0, shape[0] - 1))
        return f"{lo}:", (shape[0] - lo,) + shape[1:]
    if form == "step":
        return "::2", (-(-shape[0] // 2),) + shape[1:]
    k = draw(st.integers(0, shape[-1] - 1))
    return f"..., {k}", shape[:-1]


def _broadcasts(a: tuple, b: tuple) -> bool:
    return all(x == y or x == 1 or y == 1 for x, y in zip(reversed(a), reversed(b)))


def _bshape(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(max(x, y) for x, y in zip(a, b))
