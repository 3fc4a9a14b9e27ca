"""Source expressions as terms of the target language: the guide reads
every sub-expression of the loop bodies that it can translate (accesses,
constants, sizes, operators, conditions) and the grammar turns them into
weighted productions.

>>> import ast
>>> scope = Scope(tensors={"x", "w"}, loop_vars={"i", "k"}, sizes={"n": 4}, env={"n": 4})
>>> str(translate(ast.parse("x[i + k] * w[k] / n", mode="eval").body, scope))
'x[i + k] * w[k] / n'
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lazytensor.lift import terms as T


class Untranslatable(Exception):
    """A source expression outside the target language (or naming a local)."""


@dataclass(slots=True)
class Scope:
    """What names mean in one statement's loop nest."""

    tensors: set[str]  # inputs the statement may read (arguments, lifted temporaries)
    loop_vars: set[str]
    sizes: dict[str, Any]  # size names and their values on the first example
    env: dict[str, Any]  # the size environment (shape stand-ins, modules) for evaluation
    inline: dict[str, T.Term] = field(default_factory=dict)  # loop-local scalars' values
    aliases: dict[str, str] = field(default_factory=dict)  # local copy -> its argument
    scans: set[str] = field(default_factory=set)  # loop variables an accumulator's reader runs in
    tests: dict[int, T.Term] = field(default_factory=dict)  # an ``if`` test, read at the test


_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
_CALLS_UNARY = {"exp": "exp", "sqrt": "sqrt", "abs": "abs", "fabs": "abs", "absolute": "abs",
                "log": "log", "cos": "cos", "sin": "sin", "tanh": "tanh"}
_CALLS_BINARY = {"max": "maximum", "maximum": "maximum", "fmax": "maximum",
                 "min": "minimum", "minimum": "minimum", "fmin": "minimum"}
_CASTS = {"float", "int", "float64", "int64", "int32", "float32", "double"}


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def translate(node: ast.expr, scope: Scope) -> T.Term:
    """``node`` as a term (raises ``Untranslatable``)."""
    folded = _fold(node, scope)
    if folded is not None:
        return folded
    handler = _HANDLERS.get(type(node))
    if handler is None:
        raise Untranslatable(ast.unparse(node))
    return handler(node, scope)


def _fold(node: ast.expr, scope: Scope) -> T.Term | None:
    """A constant or a size expression (no loop variable, no element read)."""
    names = _names(node)
    if names & (scope.loop_vars | set(scope.inline)) or isinstance(node, ast.Subscript) \
            and not _is_shape_read(node):
        return None
    if isinstance(node, ast.Name) and node.id in scope.tensors:
        return None
    try:
        value = eval(compile(ast.Expression(node), "<size>", "eval"),  # noqa: S307
                     {"__builtins__": _SAFE}, dict(scope.env))
    except Exception:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return None
    if not (names - _MODULE_NAMES):
        return T.const(value.item() if isinstance(value, np.generic) else value)
    if isinstance(node, ast.Constant):
        return T.const(value)
    return T.size(ast.unparse(node))


def _is_shape_read(node: ast.Subscript) -> bool:
    return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"


_SAFE = {"len": len, "int": int, "float": float, "min": min, "max": max, "abs": abs,
         "range": range, "round": round}
_MODULE_NAMES = {"math", "np", "numpy", "float", "int", "inf"}


def _name(node: ast.Name, scope: Scope) -> T.Term:
    if node.id in scope.loop_vars:
        return T.var(node.id)
    if node.id in scope.tensors:
        return T.access(node.id, None)
    if node.id in scope.inline:
        return scope.inline[node.id]
    raise Untranslatable(node.id)


def _subscript(node: ast.Subscript, scope: Scope) -> T.Term:
    from lazytensor.lift.source import subscript_chain
    chain = subscript_chain(node)
    if chain is not None and chain[0] in scope.aliases:
        chain = (scope.aliases[chain[0]], chain[1])
    if chain is None or chain[0] not in scope.tensors:
        raise Untranslatable(ast.unparse(node))
    name, index = chain
    texts, var_sets = [], []
    for elt in index:
        if isinstance(elt, ast.Slice) or _names(elt) & scope.tensors:
            raise Untranslatable(ast.unparse(node))
        texts.append(ast.unparse(elt))
        var_sets.append(frozenset(_names(elt) & scope.loop_vars))
    return T.access(name, tuple(texts), index_vars=tuple(var_sets))


def _binop(node: ast.BinOp, scope: Scope) -> T.Term:
    op = _BINOPS.get(type(node.op))
    if op is None:
        raise Untranslatable(ast.unparse(node))
    return T.binary(op, translate(node.left, scope), translate(node.right, scope))


def _unaryop(node: ast.UnaryOp, scope: Scope) -> T.Term:
    inner = translate(node.operand, scope)
    if isinstance(node.op, ast.USub):
        return T.const(-inner.attr) if inner.kind == T.CONST else T.unary("neg", inner)
    if isinstance(node.op, ast.UAdd):
        return inner
    if isinstance(node.op, ast.Not) and inner.kind == T.CMP:
        return T.compare(NEGATED[inner.op], *inner.args)
    raise Untranslatable(ast.unparse(node))


def _call(node: ast.Call, scope: Scope) -> T.Term:
    fname = getattr(node.func, "id", getattr(node.func, "attr", ""))
    args = node.args
    if fname in _CASTS and len(args) == 1:
        return translate(args[0], scope)
    if fname in _CALLS_UNARY and len(args) == 1:
        return T.unary(_CALLS_UNARY[fname], translate(args[0], scope))
    if fname in _CALLS_BINARY and len(args) == 2:
        return T.binary(_CALLS_BINARY[fname], translate(args[0], scope),
                        translate(args[1], scope))
    raise Untranslatable(ast.unparse(node))


def _ifexp(node: ast.IfExp, scope: Scope) -> T.Term:
    test = translate(node.test, scope)
    if not test.is_bool:
        raise Untranslatable(ast.unparse(node))
    return T.where(test, translate(node.body, scope), translate(node.orelse, scope))


def _compare(node: ast.Compare, scope: Scope) -> T.Term:
    if len(node.ops) != 1:
        raise Untranslatable(ast.unparse(node))
    op = _CMPOPS[type(node.ops[0])]
    return T.compare(op, translate(node.left, scope), translate(node.comparators[0], scope))


def _constant(node: ast.Constant, scope: Scope) -> T.Term:
    if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        raise Untranslatable(ast.unparse(node))
    return T.const(node.value)


_HANDLERS = {ast.Name: _name, ast.Subscript: _subscript, ast.BinOp: _binop,
             ast.UnaryOp: _unaryop, ast.Call: _call, ast.IfExp: _ifexp,
             ast.Compare: _compare, ast.Constant: _constant}


def fragments(node: ast.expr, scope: Scope) -> list[T.Term]:
    """Every sub-expression of ``node`` that translates, largest first."""
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.expr) and not isinstance(sub, (ast.Tuple, ast.Slice)):
            try:
                out.append(translate(sub, scope))
            except (Untranslatable, RecursionError):
                continue
    return out


def is_finite_const(t: T.Term) -> bool:
    return t.kind != T.CONST or math.isfinite(t.attr)
