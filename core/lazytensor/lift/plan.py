"""What to lift: the function's targets (temporaries, outputs, arguments
updated in place), each with its statement's index space (the loop
variables of the nest that last writes it, their ``range`` expressions),
its left-hand index variables, and the sizes the loops are written in.

A temporary is a local first assigned outside every loop (a running
maximum, a buffer of exponentials, a sum of squares); a local first
assigned inside a loop is a per-row accumulator and is read through the
expressions that use it instead.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from lazytensor.lift.evaluate import Space
from lazytensor.lift.legacy import LegacyRun, ShapeOnly, shape_like, shape_new
from lazytensor.lift.source import Loop, Source, SourceError, Store, index_var

_CREATORS = {"zeros", "empty", "ones", "full"}
_CREATORS_LIKE = {"zeros_like", "empty_like", "ones_like", "full_like", "copy"}


class Mismatch(ValueError):
    """A target's value does not fit the index space of its statement."""


@dataclass(slots=True)
class Target:
    name: str
    role: str  # 'temp', 'output' or 'inplace'
    order: tuple[str, ...]  # the statement's index variables
    ranges: dict[str, str]  # variable -> its ``range(...)`` source text
    lhs: tuple[str, ...]  # left-hand index variables
    flat: bool  # the left-hand side is a flat row-major index ``i * m + j``
    stores: list[Store]  # the stores of its nest and its own
    reductions: set[tuple[str, str]] = field(default_factory=set)
    lhs_text: tuple[str, ...] = ()  # shifted left-hand indices as written (``y - 1``)


@dataclass(slots=True)
class Analysis:
    source: Source
    globals: dict[str, Any]
    size_defs: list[tuple[Any, str]]  # (name or tuple of names, expression text)
    targets: list[Target]
    copies: dict[str, str]  # local -> the argument it starts as a copy of
    outputs: list[str]  # what the function returns, in order ([]: nothing)
    returns: str  # 'none', 'single' or 'tuple'
    result_names: dict[str, int] = field(default_factory=dict)  # synthetic name -> position

    def target(self, name: str) -> Target:
        return next(t for t in self.targets if t.name == name)


def module_env(globals_: dict) -> dict[str, Any]:
    """The modules the function's globals name (``np``, ``math``), and the
    stand-in makers of locally created arrays."""
    return {**{k: v for k, v in globals_.items() if isinstance(v, types.ModuleType)},
            "shape_like": shape_like, "shape_new": shape_new}


def is_size(text: str) -> bool:
    """A size definition that is a number (not a local array's stand-in)."""
    return not text.startswith(("shape_like(", "shape_new("))


def created(value: ast.expr, args: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(stand-in text, copied argument) of a top-level array creation."""
    if not isinstance(value, ast.Call):
        return None, None
    fname = getattr(value.func, "attr", getattr(value.func, "id", ""))
    if fname in _CREATORS and value.args:
        return f"shape_new({ast.unparse(value.args[0])})", None
    if fname == "copy" and not value.args and isinstance(value.func, ast.Attribute):
        source = value.func.value
    elif fname in _CREATORS_LIKE | {"array", "asarray"} and value.args:
        source = value.args[0]
    else:
        return None, None
    text = ast.unparse(source)
    copy = text if fname in {"copy", "array", "asarray"} and text in args else None
    return f"shape_like({text})", copy


def size_definitions(src: Source, shapes: list, globals_: dict) -> list[tuple[Any, str]]:
    """Top-level assignments computable from the argument shapes alone."""
    env: dict[str, Any] = {**module_env(globals_),
                           **{a: ShapeOnly(s) for a, s in zip(src.args, shapes, strict=True)}}
    looped = {s.target for s in src.stores if s.loops and s.index is None}
    defs: list[tuple[Any, str]] = []
    for store in src.stores:
        if store.loops or store.index is not None or store.op or store.target in looped:
            continue
        text = created(store.value, src.args)[0] or ast.unparse(store.value)
        try:
            value = eval(text, {"__builtins__": __builtins__, **globals_}, env)  # noqa: S307
        except Exception:
            continue
        if isinstance(value, (int, float, np.integer, np.floating, ShapeOnly)) \
                and not isinstance(value, bool):
            env[store.target] = value
            defs.append((store.target, text))
    return defs


def example_env(analysis: Analysis, shapes: list) -> dict[str, Any]:
    """The size environment of one input: shape stand-ins, modules, sizes."""
    src = analysis.source
    env: dict[str, Any] = {**module_env(analysis.globals),
                           **{a: ShapeOnly(s) for a, s in zip(src.args, shapes, strict=True)}}
    for name, text in analysis.size_defs:
        env[name] = eval(text, {"__builtins__": __builtins__, **analysis.globals}, env)  # noqa: S307
    return env


def analyze(fn: Callable, src: Source, run: LegacyRun) -> Analysis:
    """The targets of ``fn`` read off its source and one run of it."""
    shapes = [a.shape for a in run.inputs]
    size_defs = size_definitions(src, shapes, fn.__globals__)
    sizes = {n for n, t in size_defs if is_size(t)}
    copies = {}
    for store in src.stores:
        if not store.loops and store.index is None and store.op is None:
            copied = created(store.value, src.args)[1]
            if copied:
                copies[store.target] = copied
    outputs, returns, synthetic = _returns(src)
    inplace = [a for a, x, y in zip(src.args, run.inputs, run.after, strict=True)
               if not np.array_equal(x, y, equal_nan=True)]
    loop_vars = {loop.var for loop in src.loops}
    temps = []
    for store in src.stores:
        name = store.target
        if name in temps or name in sizes or name in src.args or name in outputs \
                or name in loop_vars or name in synthetic:
            continue
        first = src.stores_to(name)[0]
        if not first.loops and _numeric(run.locals.get(name)):
            temps.append(name)
    analysis = Analysis(src, fn.__globals__, size_defs, [], copies, outputs, returns, synthetic)
    for name in temps:
        analysis.targets.append(_target(src, name, "temp", analysis))
    for name in [*outputs, *[a for a in inplace if a not in outputs]]:
        role = "inplace" if name in inplace else "output"
        analysis.targets.append(_target(src, name, role, analysis))
    return analysis


def _numeric(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf"
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _returns(src: Source) -> tuple[list[str], str, dict[str, int]]:
    if not src.returns:
        return [], "none", {}
    value = src.returns[-1]
    elts = value.elts if isinstance(value, ast.Tuple) else [value]
    names, synthetic = [], {}
    for i, elt in enumerate(elts):
        if isinstance(elt, ast.Name):
            names.append(elt.id)
            continue
        name = f"out{i}" if len(elts) > 1 else "out"
        while name in {s.target for s in src.stores} or name in src.args:
            name = "_" + name
        src.stores.append(Store(name, None, elt, None, (), (), 10**6 + i))
        names.append(name)
        synthetic[name] = i
    return names, ("tuple" if isinstance(value, ast.Tuple) else "single"), synthetic


def _target(src: Source, name: str, role: str, analysis: Analysis) -> Target:
    stores = src.stores_to(name)
    if not stores:
        raise SourceError(f"{name} is never written by the loops")
    last = max(stores, key=lambda s: s.order)
    looped = [s for s in stores if s.loops]
    anchor = last if last.loops or last.index is not None or not looped else looped[-1]
    top = anchor.loops[0].outermost if anchor.loops else None  # `m = m / n` after m's loop
    nest = src.loops_under(top) if top is not None else []
    ranges: dict[str, str] = {}
    for loop in nest:
        ranges.setdefault(loop.var, loop.range_text)
    lhs, flat = _lhs(last, ranges, name, src, analysis)
    own = [s for s in src.stores if (top is not None and s.loops and s.loops[0] is top)]
    related = own + [s for s in stores if s not in own]
    target = Target(name, role, tuple(ranges), ranges, lhs, flat, related)
    texts = tuple(ast.unparse(e) for e in last.index or ())
    if not flat and texts != lhs and tuple(index_var(e) for e in last.index or ()) == lhs:
        target.lhs_text = texts
    target.reductions = _reductions(related, src)
    return target


def _lhs(store: Store, ranges: dict[str, str], name: str, src: Source,
         analysis: Analysis) -> tuple[tuple[str, ...], bool]:
    if store.index is None:
        return (), False
    names = [index_var(e) for e in store.index]
    if all(n in ranges for n in names) and len(set(names)) == len(names):
        return tuple(names), False
    if len(store.index) == 1:
        flat = _flat_pair(store.index[0], ranges)
        if flat:
            return flat, True
        var = "bin"
        while var in ranges:
            var += "_"
        ranges[var] = f"range({_extent_text(name, src)})"
        return (var,), False
    raise SourceError(f"{name}[{', '.join(ast.unparse(e) for e in store.index)}]: "
                      f"unsupported left-hand index")


def _flat_pair(node: ast.expr, ranges) -> tuple[str, str] | None:
    """``i * m + j`` (a row-major flat index) as ``('i', 'j')``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) \
            and isinstance(node.right, ast.Name) and isinstance(node.left, ast.BinOp) \
            and isinstance(node.left.op, ast.Mult) and isinstance(node.left.left, ast.Name):
        i, j = node.left.left.id, node.right.id
        if i in ranges and j in ranges:
            return i, j
    return None


def _extent_text(name: str, src: Source) -> str:
    """The length of a 1-d target, as a size expression."""
    if name in src.args:
        return f"len({name})"
    for store in src.stores_to(name):
        value = store.value
        if store.loops or not isinstance(value, ast.Call) or not value.args:
            continue
        fname = getattr(value.func, "attr", getattr(value.func, "id", ""))
        if fname in _CREATORS:
            return ast.unparse(value.args[0])
        if fname in _CREATORS_LIKE:
            return f"len({ast.unparse(value.args[0])})"
    raise SourceError(f"cannot tell the length of {name} from the source")


def _reductions(stores: list[Store], src: Source) -> set[tuple[str, str]]:
    out = set()
    for store in stores:
        kind = {"add": "sum", "sub": "sum", "max": "max", "min": "min"}.get(store.op or "")
        if kind is None:
            continue
        index_names = {n.id for e in (store.index or ()) for n in ast.walk(e)
                       if isinstance(n, ast.Name)}
        init = [s for s in src.stores_to(store.target) if s.op is None and s.index is None]
        outer = set()
        for s in init:
            outer |= {loop.var for loop in s.loops}
        for loop in store.loops:
            if loop.var not in index_names and loop.var not in outer:
                out.add((kind, loop.var))
    return out


def space(analysis: Analysis, target: Target, env: dict, tensors: dict) -> Space:
    """The statement's index space on one input."""
    ranges = {}
    for v in target.order:
        try:
            r = eval(target.ranges[v], {"__builtins__": __builtins__}, env)  # noqa: S307
        except NameError as exc:
            outer = exc.name if exc.name in target.order else None
            why = (f"depends on the loop variable {outer} (triangular loops are outside the "
                   f"language)" if outer else f"cannot be computed from the shapes ({exc})")
            raise Mismatch(f"{target.name}: the loop over {v}, {target.ranges[v]}, {why}") \
                from None
        except Exception as exc:
            raise Mismatch(f"{target.name}: the loop over {v}, {target.ranges[v]}, cannot be "
                           f"computed from the shapes ({exc})") from None
        if not isinstance(r, range):
            raise Mismatch(f"{target.ranges[v]} is not a range")
        ranges[v] = r
    return Space.build(target.order, ranges, env, tensors)


def goal(target: Target, value, sp: Space) -> np.ndarray:
    """The target's value laid out over the statement's index space."""
    v = wide(np.asarray(value))
    ext = [sp.extents[x] for x in target.lhs]
    for k, x in enumerate(target.lhs):
        pos = sp.index(target.lhs_text[k]).ravel() if target.lhs_text else sp.values[x].ravel()
        if pos.size and (pos[0] != 0 or np.any(np.diff(pos) != 1)):
            raise Mismatch(f"{target.name}: loop {x} does not start at 0 with step 1")
    if target.flat:
        if v.size != ext[0] * ext[1]:
            raise Mismatch(f"{target.name} has {v.size} elements, the loops cover "
                           f"{ext[0]}x{ext[1]}")
        v = v.reshape(ext)
    elif v.shape != tuple(ext):
        raise Mismatch(f"{target.name} has shape {v.shape}, the loops over "
                       f"{', '.join(target.lhs) or 'nothing'} cover {tuple(ext)}")
    pos = [target.order.index(x) for x in target.lhs]
    v = v.transpose(np.argsort(pos)) if v.ndim > 1 else v
    return v.reshape([sp.extents[x] if x in target.lhs else 1 for x in target.order])


def wide(v: np.ndarray) -> np.ndarray:
    """Integers (and bools) as int64, floats as float64: the search's types."""
    if v.dtype.kind in "biu":
        return v.astype(np.int64)
    if v.dtype.kind == "f":
        return v.astype(np.float64)
    raise Mismatch(f"unsupported dtype {v.dtype}")


def loops_of(src: Source) -> list[Loop]:
    return src.loops
