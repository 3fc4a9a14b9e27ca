"""A small frontend-neutral description of tensor programs, its shape rules,
and its rendering as source code in each frontend's own API.

A program is a list of inputs (shape, dtype) and steps; step ``i`` defines
value ``v{n_inputs + i}`` from earlier values and static parameters. The
rendered source is what runs (through ``exec``) and what a failure prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Step:
    op: str
    args: tuple[int, ...]
    params: tuple = ()  # (name, value) pairs

    def p(self, name):
        return dict(self.params)[name]


@dataclass
class Program:
    inputs: list  # [(shape, dtype name)]
    steps: list = field(default_factory=list)

    @property
    def n_values(self) -> int:
        return len(self.inputs) + len(self.steps)

    def outputs(self) -> list[int]:
        """Values no later step consumes (and the last value)."""
        used = {a for s in self.steps for a in s.args}
        outs = [i for i in range(len(self.inputs), self.n_values) if i not in used]
        return outs or [self.n_values - 1]


def _axis_args(step: Step, frontend: str) -> str:
    axis, keep = step.p("axis"), step.p("keepdims")
    name, kname = ("dim", "keepdim") if frontend == "torch" else ("axis", "keepdims")
    return f"{name}={axis!r}, {kname}={keep}"


def _softmax_manual(ns: str, x: str, axis: int) -> str:
    shifted = f"({x} - {ns}.max({x}, axis={axis}, keepdims=True))"
    return f"{ns}.exp({shifted}) / {ns}.sum({ns}.exp({shifted}), axis={axis}, keepdims=True)"


def _unary(np_name: str, torch_name: str | None = None):
    return {
        "numpy": lambda s, a: f"np.{np_name}({a[0]})",
        "tnp": lambda s, a: f"tnp.{np_name}({a[0]})",
        "torch": lambda s, a: f"torch.{torch_name or np_name}({a[0]})",
    }


def _binary(np_name: str, torch_name: str | None = None):
    return {
        "numpy": lambda s, a: f"np.{np_name}({a[0]}, {a[1]})",
        "tnp": lambda s, a: f"tnp.{np_name}({a[0]}, {a[1]})",
        "torch": lambda s, a: f"torch.{torch_name or np_name}({a[0]}, {a[1]})",
    }


def _reduction(np_name: str, torch_name: str):
    return {
        "numpy": lambda s, a: f"np.{np_name}({a[0]}, {_axis_args(s, 'numpy')})",
        "tnp": lambda s, a: f"tnp.{np_name}({a[0]}, {_axis_args(s, 'tnp')})",
        "torch": lambda s, a: f"torch.{torch_name}({a[0]}, {_axis_args(s, 'torch')})",
    }


def _along(np_name: str, torch_name: str):
    """A function of one axis (no keepdims: tnp's argmax has none)."""
    return {
        "numpy": lambda s, a: f"np.{np_name}({a[0]}, axis={s.p('axis')})",
        "tnp": lambda s, a: f"tnp.{np_name}({a[0]}, axis={s.p('axis')})",
        "torch": lambda s, a: f"torch.{torch_name}({a[0]}, dim={s.p('axis')})",
    }


def _same(template: str):
    """Syntax shared by every frontend (operators, indexing)."""
    return {fe: (lambda s, a, t=template: t.format(*a, **dict(s.params)))
            for fe in ("numpy", "tnp", "torch")}


# op -> frontend -> (step, argument names) -> expression
TEMPLATES = {
    "add": _binary("add"), "subtract": _binary("subtract"), "multiply": _binary("multiply"),
    "maximum": _binary("maximum"), "matmul": _binary("matmul"),
    "exp": _unary("exp"), "tanh": _unary("tanh"), "abs": _unary("abs"),
    "negative": _unary("negative", "neg"), "sin": _unary("sin"),
    "divide": _binary("divide"), "minimum": _binary("minimum"),
    "square": _unary("square"), "floor": _unary("floor"), "sqrt": _unary("sqrt"),
    "log": _unary("log"),
    "sum": _reduction("sum", "sum"), "mean": _reduction("mean", "mean"),
    "max": _reduction("max", "amax"), "min": _reduction("min", "amin"),
    "argmax": _along("argmax", "argmax"), "cumsum": _along("cumsum", "cumsum"),
    "squeeze": {
        "numpy": lambda s, a: f"np.squeeze({a[0]}, {s.p('axis')})",
        "tnp": lambda s, a: f"tnp.squeeze({a[0]}, {s.p('axis')})",
        "torch": lambda s, a: f"torch.squeeze({a[0]}, {s.p('axis')})",
    },
    "clip": {
        "numpy": lambda s, a: f"np.clip({a[0]}, -1.0, 1.0)",
        "tnp": lambda s, a: f"tnp.clip({a[0]}, -1.0, 1.0)",
        "torch": lambda s, a: f"torch.clamp({a[0]}, -1.0, 1.0)",
    },
    "scale": _same("{0} * {c!r}"), "shift": _same("{0} + {c!r}"),
    "rsub": _same("{c!r} - {0}"),
    "floordiv": _same("{0} // {c!r}"), "mod": _same("{0} % {c!r}"),
    "index": _same("{0}[{index}]"),
    "reshape": {
        "numpy": lambda s, a: f"np.reshape({a[0]}, {s.p('shape')!r})",
        "tnp": lambda s, a: f"tnp.reshape({a[0]}, {s.p('shape')!r})",
        "torch": lambda s, a: f"torch.reshape({a[0]}, {s.p('shape')!r})",
    },
    "transpose": {
        "numpy": lambda s, a: f"np.transpose({a[0]}, {s.p('perm')!r})",
        "tnp": lambda s, a: f"tnp.transpose({a[0]}, {s.p('perm')!r})",
        "torch": lambda s, a: f"torch.permute({a[0]}, {s.p('perm')!r})",
    },
    "expand_dims": {
        "numpy": lambda s, a: f"np.expand_dims({a[0]}, {s.p('axis')})",
        "tnp": lambda s, a: f"tnp.expand_dims({a[0]}, {s.p('axis')})",
        "torch": lambda s, a: f"torch.unsqueeze({a[0]}, {s.p('axis')})",
    },
    "where": {
        "numpy": lambda s, a: f"np.where({a[0]} > 0, {a[1]}, {a[2]})",
        "tnp": lambda s, a: f"tnp.where({a[0]} > 0, {a[1]}, {a[2]})",
        "torch": lambda s, a: f"torch.where({a[0]} > 0, {a[1]}, {a[2]})",
    },
    "concatenate": {
        "numpy": lambda s, a: f"np.concatenate([{a[0]}, {a[1]}], axis={s.p('axis')})",
        "tnp": lambda s, a: f"tnp.concatenate([{a[0]}, {a[1]}], axis={s.p('axis')})",
        "torch": lambda s, a: f"torch.cat([{a[0]}, {a[1]}], dim={s.p('axis')})",
    },
    "softmax": {
        "numpy": lambda s, a: _softmax_manual("np", a[0], s.p("axis")),
        "tnp": lambda s, a: _softmax_manual("tnp", a[0], s.p("axis")),
        "torch": lambda s, a: f"torch.softmax({a[0]}, dim={s.p('axis')})",
    },
}

# ops whose source differs in structure across frontends (numpy/tnp have no
# softmax): their graphs legitimately differ, so the hash property skips them
STRUCTURE_VARIES = frozenset({"softmax"})

# ops whose meaning differs in one frontend (differences.py lists each): the
# hash property compares the other frontends' graphs. tnp's float floor
# division is TensorFlow's floor(x / y); numpy and torch use Python's rule
FRONTEND_DIFFERS = {"floordiv": "tnp"}


def render(program: Program, frontend: str) -> str:
    """The program as source code in ``frontend``'s API."""
    lines = []
    for i, step in enumerate(program.steps):
        target = len(program.inputs) + i
        args = [f"v{a}" for a in step.args]
        if step.op == "branch":  # Python control flow on a shape
            dim, limit = step.p("dim"), step.p("limit")
            lines += [f"if v{step.args[0]}.shape[{dim}] > {limit}:",
                      f"    v{target} = v{step.args[0]} * 2.0",
                      "else:",
                      f"    v{target} = v{step.args[0]} - 1.0"]
            continue
        lines.append(f"v{target} = {TEMPLATES[step.op][frontend](step, args)}")
    outs = ", ".join(f"v{o}" for o in program.outputs())
    lines.append(f"outputs = [{outs}]")
    return "\n".join(lines)
