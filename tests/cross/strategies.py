"""Hypothesis strategies for frontend-neutral programs (see program.py).

Shapes and kinds (integer or floating: torch refuses integers in mean,
softmax and mixed-dtype matmul) are tracked while drawing so every step is
valid in every frontend;
data is drawn from a seeded numpy generator (values are not what the
properties are about, structure is).
"""

from __future__ import annotations

import math

from hypothesis import strategies as st
from program import Program, Step

UNARY = ("exp", "tanh", "abs", "negative", "sin", "square", "floor", "sqrt", "log")
BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "divide")
REDUCTIONS = ("sum", "mean", "max", "min")
INT_REDUCTIONS = ("sum", "max", "min")  # torch.mean refuses integers
# ops whose result keeps an integer kind (in torch: only the kind matters,
# as torch refuses integers in mean and softmax)
KIND_KEEPING = ("abs", "negative", "square", "floor", "add", "subtract", "multiply",
                "maximum", "minimum")
SCALAR_OPS = ("scale", "shift", "rsub")

shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def _broadcast_partner(shape: tuple, draw) -> tuple:
    """A shape that broadcasts with ``shape``: a suffix, with some dims set to 1."""
    keep = draw(st.integers(0, len(shape)))
    suffix = list(shape[len(shape) - keep:])
    return tuple(1 if draw(st.booleans()) and draw(st.booleans()) else s for s in suffix)


@st.composite
def programs(draw, max_steps: int = 6, dtypes: tuple = ("float32",),
             integer_steps: bool = True) -> Program:
    """A program over inputs of one dtype drawn from ``dtypes``.
    ``integer_steps=False`` draws no step with an integer result (argmax):
    float functions of integers differ by design between the frontends
    (differences.py), so cross-frontend comparisons stay floating."""
    dtype = draw(st.sampled_from(dtypes))
    first = draw(shapes)
    inputs = [(first, dtype)]
    if draw(st.booleans()):
        inputs.append((_broadcast_partner(first, draw), dtype))
    prog = Program(inputs)
    kind = "i" if dtype.startswith("int") else "f"
    values = [(s, kind) for s, _ in inputs]
    for _ in range(draw(st.integers(1, max_steps))):
        step, value = _draw_step(draw, values, integer_steps)
        prog.steps.append(step)
        values.append(value)
    return prog


def _pick(draw, values, pred=lambda s, k: True):
    """A value whose (shape, kind) satisfies ``pred``, or None."""
    choices = [i for i, (s, k) in enumerate(values) if pred(s, k)]
    return draw(st.sampled_from(choices)) if choices else None


def _join(*kinds: str) -> str:
    """The kind ('i' integer, 'f' floating) of a result of mixed operands."""
    return "f" if "f" in kinds else "i"


KINDS = ["unary", "binary", "scalar", "divmod", "reduce", "along", "clip", "reshape", "transpose",
         "expand_dims", "squeeze", "index", "where", "concatenate", "softmax", "matmul",
         "branch"]


def _draw_step(draw, values, integer_steps: bool = True):
    """One step on earlier values: (Step, (result shape, result kind))."""
    kind = draw(st.sampled_from(KINDS))
    i = _pick(draw, values)
    shape, vkind = values[i]
    if kind == "binary":
        j = _pick(draw, values, lambda s, k: _broadcasts(shape, s))
        op = draw(st.sampled_from(BINARY))
        joined = _join(vkind, values[j][1]) if op in KIND_KEEPING else "f"
        return Step(op, (i, j)), (_bshape(shape, values[j][0]), joined)
    if kind == "scalar":
        c = draw(st.sampled_from([0.5, 2.0, -1.5, 3.0]))
        return Step(draw(st.sampled_from(SCALAR_OPS)), (i,), (("c", c),)), (shape, "f")
    if kind == "divmod":  # integer division by a nonzero Python int keeps the kind
        c = draw(st.sampled_from([2, 3, -2]))
        return Step(draw(st.sampled_from(("floordiv", "mod"))), (i,), (("c", c),)), (shape, vkind)
    if kind == "reduce" and shape:
        return _draw_reduce(draw, i, shape, vkind)
    if kind == "along" and shape:
        axis = draw(st.integers(0, len(shape) - 1))
        if not integer_steps or draw(st.booleans()):
            return Step("cumsum", (i,), (("axis", axis),)), (shape, vkind)
        return Step("argmax", (i,), (("axis", axis),)), (shape[:axis] + shape[axis + 1:], "i")
    if kind == "clip":
        return Step("clip", (i,), ()), (shape, "f")
    if kind in MOVEMENT and (step := MOVEMENT[kind](draw, i, shape)) is not None:
        return step[0], (step[1], vkind)
    if kind == "where":
        j = _pick(draw, values, lambda s, k: _broadcasts(shape, s))
        return Step("where", (i, i, j)), (_bshape(shape, values[j][0]),
                                          _join(vkind, values[j][1]))
    if kind == "softmax" and shape and vkind == "f":
        axis = draw(st.integers(0, len(shape) - 1))
        return Step("softmax", (i,), (("axis", axis),)), (shape, "f")
    if kind == "matmul" and len(shape) == 2 and vkind == "f":  # torch: one dtype
        j = _pick(draw, values, lambda s, k: len(s) == 2 and s[0] == shape[1] and k == "f")
        if j is not None:
            return Step("matmul", (i, j)), ((shape[0], values[j][0][1]), "f")
    if kind == "branch" and shape:
        dim = draw(st.integers(0, len(shape) - 1))
        return Step("branch", (i,), (("dim", dim), ("limit", 2))), (shape, "f")
    op = draw(st.sampled_from(UNARY))
    return Step(op, (i,)), (shape, vkind if op in KIND_KEEPING else "f")


def _draw_reduce(draw, i, shape, vkind):
    axis = draw(st.integers(0, len(shape) - 1))
    keep = draw(st.booleans())
    out = tuple(1 if k == axis else s for k, s in enumerate(shape)) if keep else \
        tuple(s for k, s in enumerate(shape) if k != axis)
    op = draw(st.sampled_from(REDUCTIONS if vkind == "f" else INT_REDUCTIONS))
    return Step(op, (i,), (("axis", axis), ("keepdims", keep))), (out, vkind)


def _reshape(draw, i, shape):
    target = (math.prod(shape),) if len(shape) != 1 else _split(shape[0])
    return Step("reshape", (i,), (("shape", target),)), target


def _transpose(draw, i, shape):
    if len(shape) < 2:
        return None
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return Step("transpose", (i,), (("perm", perm),)), tuple(shape[p] for p in perm)


def _expand_dims(draw, i, shape):
    if len(shape) >= 3:
        return None
    axis = draw(st.integers(0, len(shape)))
    return Step("expand_dims", (i,), (("axis", axis),)), shape[:axis] + (1,) + shape[axis:]


def _squeeze(draw, i, shape):
    ones = [k for k, size in enumerate(shape) if size == 1]
    if not ones:
        return None
    axis = draw(st.sampled_from(ones))
    return Step("squeeze", (i,), (("axis", axis),)), shape[:axis] + shape[axis + 1:]


def _index(draw, i, shape):
    if not shape:
        return None
    index, out = _draw_index(draw, shape)
    return Step("index", (i,), (("index", index),)), out


def _concatenate(draw, i, shape):
    if not shape:
        return None
    axis = draw(st.integers(0, len(shape) - 1))
    out = tuple(2 * s if k == axis else s for k, s in enumerate(shape))
    return Step("concatenate", (i, i), (("axis", axis),)), out


# shape-only steps: (draw, value index, shape) -> (Step, shape), or None
MOVEMENT = {"reshape": _reshape, "transpose": _transpose, "expand_dims": _expand_dims,
            "squeeze": _squeeze, "index": _index, "concatenate": _concatenate}


def _split(n: int) -> tuple:
    for d in (2, 3):
        if n % d == 0 and n > d:
            return (d, n // d)
    return (1, n)


def _draw_index(draw, shape):
    """A basic index valid in every frontend (torch has no negative steps)."""
    form = draw(st.sampled_from(["int", "slice", "range", "step", "ellipsis", "column",
                                 "newaxis"]))
    if form == "int":
        k = draw(st.integers(-shape[0], shape[0] - 1))
        return repr(k), shape[1:]
    if form == "slice":
        lo = draw(st.integers(0, shape[0] - 1))
        return f"{lo}:", (shape[0] - lo,) + shape[1:]
    if form == "range":
        lo = draw(st.integers(-shape[0], shape[0] - 1))
        hi = draw(st.integers(lo % shape[0] + 1, shape[0] + 1))  # never empty
        return f"{lo}:{hi}", (len(range(*slice(lo, hi).indices(shape[0]))),) + shape[1:]
    if form == "step":
        return "::2", (-(-shape[0] // 2),) + shape[1:]
    if form == "column" and len(shape) >= 2:
        k = draw(st.integers(0, shape[1] - 1))
        return f":, {k}", shape[:1] + shape[2:]
    if form == "newaxis" and len(shape) < 3:
        return ":, None", shape[:1] + (1,) + shape[1:]
    k = draw(st.integers(0, shape[-1] - 1))
    return f"..., {k}", shape[:-1]


def _broadcasts(a: tuple, b: tuple) -> bool:
    return all(x == y or x == 1 or y == 1 for x, y in zip(reversed(a), reversed(b), strict=False))


def _bshape(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(max(x, y) for x, y in zip(a, b, strict=True))
