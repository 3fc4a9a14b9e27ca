"""The target language: tensor expressions in index notation.

A statement ``out[i] = expr`` assigns, for every value of its left-hand
index variables, an expression over the inputs; index variables that the
left-hand side does not name are reduced inside the expression
(``sum[j](A[i, j] * x[j])``). A term is one node of an expression: an
access ``x[i + k]`` (any index expression of the loop variables and the
sizes), a constant, a size (``n``), the value of an index variable, an
element-wise operation, a comparison, a ``where``, a reduction over one
index variable or a running scan along one (``cumsum[i](x[i])``). Each
term knows its free index variables.

The op tables below are the language's only list of operations: the
grammar, the evaluators (numpy, core) and the printer read them.

>>> x = access("x", ("i",), {"i"})
>>> str(reduce_("sum", "i", binary("mul", x, x)))
'sum[i](x[i] * x[i])'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

ACC, CONST, VAR, SIZE, UN, BIN, CMP, WHERE, RED, SCAN = (
    "acc", "const", "var", "size", "un", "bin", "cmp", "where", "red", "scan")


@dataclass(frozen=True, slots=True)
class BinaryOp:
    symbol: str  # infix symbol, or a function name when ``call``
    precedence: int
    commutative: bool
    call: bool = False


BINARY = {
    "add": BinaryOp("+", 1, True), "sub": BinaryOp("-", 1, False),
    "mul": BinaryOp("*", 2, True), "truediv": BinaryOp("/", 2, False),
    "floordiv": BinaryOp("//", 2, False), "mod": BinaryOp("%", 2, False),
    "pow": BinaryOp("**", 4, False),
    "maximum": BinaryOp("max", 9, True, call=True), "minimum": BinaryOp("min", 9, True, call=True),
}
UNARY = ("neg", "exp", "sqrt", "abs", "log", "cos", "sin", "tanh")
COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
REDUCE = ("sum", "max", "min", "mean")
SOURCE_REDUCE = ("prod",)  # read from an accumulator only (no grammar production)
ARGREDUCE = ("argmax", "argmin")  # the index variable's value at the first extreme
SCANS = ("cumsum", "cumprod", "cummax", "cummin")  # running value along one index variable


@dataclass(frozen=True, slots=True)
class Index:
    """One index expression of an access: its source text and free variables."""

    text: str
    vars: frozenset[str]


class Term:
    """One node of an expression (immutable by convention)."""

    __slots__ = ("kind", "op", "args", "attr", "vars", "is_bool", "size", "_text")

    def __init__(self, kind: str, op: str, args: tuple, attr, vars_: frozenset,
                 is_bool: bool = False) -> None:
        self.kind, self.op, self.args, self.attr = kind, op, args, attr
        self.vars, self.is_bool = vars_, is_bool
        self.size = 1 + sum(a.size for a in args)
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            self._text = _render(self)
        return self._text

    def __repr__(self) -> str:
        return f"Term({self})"

    def walk(self):
        yield self
        for a in self.args:
            yield from a.walk()


def access(name: str, index: tuple[str, ...] | None, vars_: set[str] | None = None,
           index_vars: tuple[frozenset, ...] | None = None) -> Term:
    """``name[index...]`` (``index`` None: a whole 0-d input)."""
    if index is None:
        return Term(ACC, name, (), (name, None), frozenset())
    if index_vars is None:
        index_vars = tuple(frozenset(v for v in (vars_ or ()) if _mentions(t, v)) for t in index)
    idx = tuple(Index(t, v) for t, v in zip(index, index_vars, strict=True))
    return Term(ACC, name, (), (name, idx), frozenset().union(*index_vars))


def _mentions(text: str, var: str) -> bool:
    return re.search(rf"\b{var}\b", text) is not None


def const(value) -> Term:
    return Term(CONST, "", (), value, frozenset())


def size(text: str) -> Term:
    return Term(SIZE, "", (), text, frozenset())


def var(name: str) -> Term:
    return Term(VAR, "", (), name, frozenset({name}))


def unary(op: str, a: Term) -> Term:
    return Term(UN, op, (a,), None, a.vars)


def binary(op: str, a: Term, b: Term) -> Term:
    return Term(BIN, op, (a, b), None, a.vars | b.vars)


def compare(op: str, a: Term, b: Term) -> Term:
    return Term(CMP, op, (a, b), None, a.vars | b.vars, is_bool=True)


def where(c: Term, a: Term, b: Term) -> Term:
    return Term(WHERE, "", (c, a, b), None, c.vars | a.vars | b.vars)


def reduce_(op: str, v: str, a: Term) -> Term:
    return Term(RED, op, (a,), v, a.vars - {v})


def substitute(t: Term, v: str, value: Term) -> Term:
    """``t`` with the index variable ``v`` replaced by ``value`` (a constant
    or a size: accesses take its text)."""
    if v not in t.vars:
        return t
    if t.kind == VAR:
        return value
    if t.kind == ACC:
        name, idx = t.attr
        text = str(value) if re.fullmatch(r"[\w.]+", str(value)) else f"({value})"
        texts = tuple(re.sub(rf"\b{v}\b", text, i.text) for i in idx)
        return access(name, texts, index_vars=tuple(i.vars - {v} for i in idx))
    args = tuple(substitute(a, v, value) for a in t.args)
    return Term(t.kind, t.op, args, t.attr, frozenset().union(*(a.vars for a in args))
                - ({t.attr} if t.kind == RED else set()), t.is_bool)


def scan(op: str, v: str, a: Term) -> Term:
    """The running ``op`` of ``a`` along ``v`` (its value at ``v`` covers ``v' <= v``)."""
    return Term(SCAN, op, (a,), v, a.vars | {v})


def _render(t: Term, parent: int = 0) -> str:
    text, prec = _render_prec(t)
    return f"({text})" if prec < parent else text


def _render_prec(t: Term) -> tuple[str, int]:
    if t.kind == ACC:
        name, idx = t.attr
        return (name if idx is None else f"{name}[{', '.join(i.text for i in idx)}]"), 10
    if t.kind == CONST:
        return _number(t.attr), (10 if _number(t.attr)[0] != "-" else 3)
    if t.kind == VAR:
        return t.attr, 10
    if t.kind == SIZE:
        return t.attr, (10 if re.fullmatch(r"[\w.]+(\[\w+\])?|\w+\([\w.]+\)", t.attr) else 0)
    if t.kind == UN:
        if t.op == "neg":
            return "-" + _render(t.args[0], 4), 3
        return f"{t.op}({_render(t.args[0])})", 10
    if t.kind == BIN:
        spec = BINARY[t.op]
        a, b = t.args
        if spec.call:
            return f"{spec.symbol}({_render(a)}, {_render(b)})", 10
        right = spec.precedence + (0 if spec.commutative and t.op == b.op else 1)
        if spec.symbol == "**":
            return f"{_render(a, 5)} ** {_render(b, 4)}", 4
        return f"{_render(a, spec.precedence)} {spec.symbol} {_render(b, right)}", spec.precedence
    if t.kind == CMP:
        return f"{_render(t.args[0], 1)} {COMPARE[t.op]} {_render(t.args[1], 1)}", 0
    if t.kind == WHERE:
        return "where({})".format(", ".join(_render(a) for a in t.args)), 10
    return f"{t.op}[{t.attr}]({_render(t.args[0])})", 10


def _number(value) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, float) and value == int(value) and abs(value) < 1e15:
        return f"{int(value)}.0"
    return repr(value)
