"""The lifted program: statements in index notation, callable on numpy
arrays (evaluated with numpy) and on any frontend's lazy arrays (recorded
as core nodes and returned as that frontend's arrays).

Calling conventions follow the legacy function: its return value (one
array or a tuple); a function that returns nothing and updates arguments
in place returns their new values (and, on numpy arrays, writes them back
into the arguments, as the loops did). Scalars come back as 0-d values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lazytensor.lift import terms as T
from lazytensor.lift.evaluate import Space
from lazytensor.lift.legacy import ShapeOnly
from lazytensor.lift.lower import NUMPY, arrange, run_term


@dataclass(frozen=True, slots=True)
class Statement:
    """``name[lhs] = term`` over the index variables ``order``."""

    name: str
    term: T.Term
    order: tuple[str, ...]
    ranges: tuple[tuple[str, str], ...]  # (variable, its range(...) text)
    lhs: tuple[str, ...]
    flat: bool
    dtype: np.dtype
    lhs_text: tuple[str, ...] = ()  # shifted left-hand indices as written (``y - 1``)

    def __str__(self) -> str:
        if self.flat:
            left = f"{self.name}[{self.lhs[0]}, {self.lhs[1]}]  (flat, row-major)"
        else:
            shown = self.lhs_text or self.lhs
            left = f"{self.name}[{', '.join(shown)}]" if self.lhs else self.name
        loops = ", ".join(f"{v} in {r}" for v, r in self.ranges)
        return f"{left} = {self.term}" + (f"    # {loops}" if loops else "")


@dataclass(slots=True)
class Verification:
    """Which checks the program passed: (name, passed, detail) each."""

    checks: list[tuple[str, bool, str]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(ok for _, ok, _ in self.checks)

    def __str__(self) -> str:
        return "\n".join(f"  [{'pass' if ok else 'FAIL'}] {name}: {detail}"
                         for name, ok, detail in self.checks)


@dataclass(slots=True)
class SearchReport:
    seconds: float = 0.0  # the whole lift, verification included
    search_seconds: float = 0.0  # the searches alone, in CPU seconds
    candidates: int = 0
    per_target: dict[str, str] = field(default_factory=dict)


class LiftedProgram:
    """A lifted program (see the module docstring for calling conventions)."""

    def __init__(self, name: str, args: tuple[str, ...], size_defs: list, modules: dict,
                 statements: list[Statement], outputs: list[str], returns: str,
                 inplace: list[str]) -> None:
        self.name, self.args, self.size_defs, self.modules = name, args, size_defs, modules
        self.statements, self.outputs, self.returns = statements, outputs, returns
        self.inplace = inplace
        self.verification = Verification()
        self.report = SearchReport()

    # -- calling ------------------------------------------------------------
    def __call__(self, *args):
        if len(args) != len(self.args):
            raise TypeError(f"{self.name}() takes {len(self.args)} arguments "
                            f"({', '.join(self.args)}), got {len(args)}")
        wrap, backend = None, NUMPY
        if any(type(a).__module__.startswith("lazytensor.") for a in args):
            from lazytensor.lift.core_backend import CORE, wrapper_for  # (imports the core)
            wrap = next((w for w in map(wrapper_for, args) if w is not None), None)
            backend = NUMPY if wrap is None else CORE
        values = self.evaluate(args, backend)
        outs = [values[n] for n in (self.outputs or self.inplace)]
        if wrap is not None:
            outs = [wrap(o) for o in outs]
        else:
            outs = [o[()] if o.ndim == 0 else o for o in outs]
            for name in self.inplace:
                arg = args[self.args.index(name)]
                if isinstance(arg, np.ndarray) and arg.flags.writeable:
                    np.copyto(arg, values[name], casting="unsafe")
        return outs[0] if len(outs) == 1 and self.returns != "tuple" else tuple(outs)

    def evaluate(self, args, backend) -> dict[str, Any]:
        """Every statement's value (by target name) on ``backend``."""
        env = self.sizes([tuple(int(s) for s in np.shape(a)) if not hasattr(a, "shape")
                          else tuple(int(s) for s in a.shape) for a in args])
        tensors = {n: backend.input(a) for n, a in zip(self.args, args, strict=True)}
        results: dict[str, Any] = {}
        for st in self.statements:
            ranges = {v: eval(r, {"__builtins__": __builtins__}, env)  # noqa: S307
                      for v, r in st.ranges}
            space = Space.build(st.order, ranges, env, tensors)
            value = arrange(run_term(st.term, space, backend), st.lhs, st.flat, space,
                            st.dtype, backend)
            results[st.name] = value
            tensors = {**tensors, st.name: backend.input(value)}
        return results

    def sizes(self, shapes: list) -> dict[str, Any]:
        env: dict[str, Any] = {**self.modules,
                               **{a: ShapeOnly(s) for a, s in zip(self.args, shapes, strict=True)}}
        for name, text in self.size_defs:
            env[name] = eval(text, {"__builtins__": __builtins__, **self.modules}, env)  # noqa: S307
        return env

    # -- reading ------------------------------------------------------------
    def __str__(self) -> str:
        lines = [f"def {self.name}({', '.join(self.args)}):  # lifted to index notation"]
        lines += [f"    {name} = {text}" + ("  # only its shape is read" if text.startswith(
            ("shape_like(", "shape_new(")) else "") for name, text in self.size_defs]
        lines += [f"    {st}" for st in self.statements]
        if self.inplace:
            lines.append(f"    # updates in place: {', '.join(self.inplace)}")
        if self.outputs:
            lines.append(f"    return {', '.join(self.outputs)}")
        verdict = "verified" if self.verification.passed else "NOT verified"
        lines.append(f"{verdict} against the loop code:")
        lines.append(str(self.verification))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<LiftedProgram {self.name}: {len(self.statements)} statement(s)>"
