"""Reading the legacy function's source: its loops (``for ... in range``
and counted ``while`` loops), every store into a name or an array element
(with its enclosing loops and branch conditions), its top-level size
definitions and what it returns.

>>> src = read_source('''
... def f(x, w):
...     n = len(x) - len(w) + 1
...     y = np.zeros(n)
...     for i in range(n):
...         for k in range(len(w)):
...             y[i] += x[i + k] * w[k]
...     return y
... ''')
>>> [(s.target, s.op, [l.var for l in s.loops]) for s in src.stores]
[('n', None, []), ('y', None, []), ('y', 'add', ['i', 'k'])]
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Callable


class SourceError(ValueError):
    """The function's source uses a construct the lifter does not read."""


@dataclass(slots=True, eq=False)
class Loop:
    var: str
    range_text: str  # ``range(...)`` as source text
    parent: Loop | None
    line: int

    @property
    def outermost(self) -> Loop:
        loop = self
        while loop.parent is not None:
            loop = loop.parent
        return loop


@dataclass(slots=True, eq=False)
class Store:
    """``target[index] (op)= value`` under ``loops`` and ``conds``."""

    target: str
    index: tuple[ast.expr, ...] | None
    value: ast.expr
    op: str | None  # None: plain store; 'add', 'sub', 'mul', ...; 'max'/'min' updates
    loops: tuple[Loop, ...]
    conds: tuple[ast.expr, ...]
    order: int
    tests: tuple[ast.expr, ...] = ()  # the enclosing ``if`` tests, before any update folding


@dataclass(slots=True)
class Source:
    name: str
    args: tuple[str, ...]
    loops: list[Loop] = field(default_factory=list)
    stores: list[Store] = field(default_factory=list)
    returns: list[ast.expr] = field(default_factory=list)
    text: str = ""

    def stores_to(self, name: str) -> list[Store]:
        return [s for s in self.stores if s.target == name]

    def loops_under(self, top: Loop) -> list[Loop]:
        """``top`` and the loops nested in it, in source order."""
        out = []
        for loop in self.loops:
            probe = loop
            while probe is not None and probe is not top:
                probe = probe.parent
            if probe is top:
                out.append(loop)
        return out


_AUG = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
        ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}


def function_source(fn: Callable) -> str:
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as exc:
        raise SourceError(f"cannot read the source of {fn!r}: {exc}") from None


def read_source(text: str) -> Source:
    """The loops, stores and returns of the first function in ``text``."""
    tree = ast.parse(text)
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)), None)
    if fn is None:
        raise SourceError("no function definition in the source")
    src = Source(fn.name, tuple(a.arg for a in fn.args.args), text=text)
    _Walker(src).block(fn.body, (), ())
    return src


def subscript_chain(node: ast.expr) -> tuple[str, tuple[ast.expr, ...]] | None:
    """``a[i][j]`` or ``a[i, j]`` as ``('a', (i, j))``; None for other targets."""
    index: list[ast.expr] = []
    while isinstance(node, ast.Subscript):
        sl = node.slice
        index[:0] = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        node = node.value
    return (node.id, tuple(index)) if isinstance(node, ast.Name) and index else None


def index_var(node: ast.expr) -> str | None:
    """The loop variable of a left-hand index ``i`` or a shifted ``i - 1``,
    ``i + 2`` (an integer constant offset); None for other indices."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) \
            and isinstance(node.left, ast.Name) and isinstance(node.right, ast.Constant) \
            and type(node.right.value) is int:
        return node.left.id
    return None


class _Walker:
    def __init__(self, src: Source) -> None:
        self.src = src
        self.count = 0
        self.last_plain: dict[str, ast.expr] = {}

    def block(self, body, loops, conds) -> None:
        for stmt in body:
            self.stmt(stmt, loops, conds)

    def stmt(self, node, loops, conds) -> None:  # noqa: C901 (one case per statement kind)
        if isinstance(node, ast.For):
            self.for_(node, loops, conds)
        elif isinstance(node, ast.While):
            self.while_(node, loops, conds)
        elif isinstance(node, ast.If):
            self.block(node.body, loops, conds + (node.test,))
            negated = ast.UnaryOp(ast.Not(), node.test)
            self.block(node.orelse, loops, conds + (negated,))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self.assign(target, node.value, None, loops, conds)
        elif isinstance(node, ast.AugAssign):
            op = _AUG.get(type(node.op))
            if op is None:
                raise SourceError(f"line {node.lineno}: unsupported update {ast.unparse(node)}")
            self.assign(node.target, node.value, op, loops, conds)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.assign(node.target, node.value, None, loops, conds)
        elif isinstance(node, ast.Return):
            if node.value is not None:
                self.src.returns.append(node.value)
        elif isinstance(node, (ast.Expr, ast.Pass, ast.Import, ast.ImportFrom)):
            return
        else:
            raise SourceError(f"line {node.lineno}: unsupported statement {type(node).__name__}")

    def for_(self, node: ast.For, loops, conds) -> None:
        it = node.iter
        if not (isinstance(node.target, ast.Name) and isinstance(it, ast.Call)
                and isinstance(it.func, ast.Name) and it.func.id == "range"):
            raise SourceError(f"line {node.lineno}: only `for i in range(...)` loops are read")
        parent = loops[-1] if loops else None
        loop = Loop(node.target.id, ast.unparse(it), parent, node.lineno)
        self.src.loops.append(loop)
        self.block(node.body, loops + (loop,), conds)

    def while_(self, node: ast.While, loops, conds) -> None:
        """``i = a; while i < b: ...; i += s`` reads as ``for i in range(a, b, s)``."""
        test, body = node.test, node.body
        step = _step(body[-1]) if body else None
        ok = (isinstance(test, ast.Compare) and len(test.ops) == 1
              and isinstance(test.ops[0], ast.Lt) and isinstance(test.left, ast.Name)
              and step is not None and step[0] == test.left.id
              and test.left.id in self.last_plain)
        if not ok:
            raise SourceError(f"line {node.lineno}: only counted `while i < n: ...; i += s` "
                              f"loops are read")
        v = test.left.id
        start = ast.unparse(self.last_plain[v])
        text = f"range({start}, {ast.unparse(test.comparators[0])}, {ast.unparse(step[1])})"
        parent = loops[-1] if loops else None
        loop = Loop(v, text, parent, node.lineno)
        self.src.loops.append(loop)
        self.block(body[:-1], loops + (loop,), conds)

    def assign(self, target, value, op, loops, conds) -> None:
        self.count += 1
        tests = conds
        if isinstance(target, ast.Tuple):
            for i, elt in enumerate(target.elts):
                item = ast.Subscript(value, ast.Constant(i), ast.Load())
                self.assign(elt, item, op, loops, conds)
            return
        if isinstance(target, ast.Name):
            name, index = target.id, None
            if op is None:
                op, value = _self_update(name, value)
            if op is None:
                self.last_plain[name] = value
                op, value = _running_extreme(target, value, conds)
                if op is not None:
                    conds = conds[:-1] if conds and _mentions_name(conds[-1], name) else conds
        else:
            chain = subscript_chain(target)
            if chain is None:
                raise SourceError(f"line {target.lineno}: unsupported store {ast.unparse(target)}")
            name, index = chain
            if op is None:
                op, value = _running_extreme(target, value, conds)
                if op is not None:
                    conds = conds[:-1] if conds and _mentions_name(conds[-1], name) else conds
        self.src.stores.append(Store(name, index, value, op, loops, conds, self.count, tests))


def _step(node: ast.stmt) -> tuple[str, ast.expr] | None:
    """``i += s`` or ``i = i + s`` as ``('i', s)``."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
            and isinstance(node.target, ast.Name):
        return node.target.id, node.value
    if isinstance(node, ast.Assign) and len(node.targets) == 1 \
            and isinstance(node.targets[0], ast.Name):
        op, value = _self_update(node.targets[0].id, node.value)
        return (node.targets[0].id, value) if op == "add" else None
    return None


_SELF = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}


def _self_update(name: str, value: ast.expr) -> tuple[str | None, ast.expr]:
    """``s = s + e`` (also ``s = e + s``, ``s - e``, ``s * e``) reads as ``s += e``."""
    op = _SELF.get(type(value.op)) if isinstance(value, ast.BinOp) else None
    if op is None:
        return None, value
    mine = [isinstance(side, ast.Name) and side.id == name for side in (value.left, value.right)]
    if mine[0] and not _mentions_name(value.right, name):
        return op, value.right
    if mine[1] and op != "sub" and not _mentions_name(value.left, name):
        return op, value.left
    return None, value


def _mentions_name(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _running_extreme(target: ast.expr, value: ast.expr, conds) -> tuple[str | None, ast.expr]:
    """``m = max(m, e)`` and ``if e > m: m = e`` are max updates of ``m`` by ``e``
    (``m`` a name or an element such as ``mx[i]``)."""
    me = _dump(target)
    if isinstance(value, ast.Call) and len(value.args) == 2:
        fname = getattr(value.func, "id", getattr(value.func, "attr", ""))
        kind = {"max": "max", "maximum": "max", "fmax": "max", "min": "min", "minimum": "min",
                "fmin": "min"}.get(fname)
        a, b = value.args
        if kind and _dump(a) == me:
            return kind, b
        if kind and _dump(b) == me:
            return kind, a
    if conds and isinstance(conds[-1], ast.Compare) and len(conds[-1].ops) == 1:
        test = conds[-1]
        left, right, cmp = test.left, test.comparators[0], type(test.ops[0])
        same = ast.dump(value)
        if _dump(right) == me and ast.dump(left) == same:
            kind = {ast.Gt: "max", ast.GtE: "max", ast.Lt: "min", ast.LtE: "min"}.get(cmp)
            return (kind, value) if kind else (None, value)
        if _dump(left) == me and ast.dump(right) == same:
            kind = {ast.Lt: "max", ast.LtE: "max", ast.Gt: "min", ast.GtE: "min"}.get(cmp)
            return (kind, value) if kind else (None, value)
    return None, value


def _dump(node: ast.AST) -> str:
    """A node's structure without its load/store context."""
    return ast.dump(node).replace("ctx=Store()", "ctx=Load()")
