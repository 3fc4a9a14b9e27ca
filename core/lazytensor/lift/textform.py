"""Reading programs in the printed notation (what a proposer returns):

    m = max[j](x[j])
    y[i] = exp(x[i] - m) / sum[j](exp(x[j] - m))

One statement per line (``#`` comments and blank lines ignored). Index
variables are the names used inside subscripts and reductions; other bare
names are inputs, or sizes when listed in ``sizes``.

>>> [str(s.term) for s in parse_program("y[i] = sum[j](A[i, j] * x[j])")]
['sum[j](A[i, j] * x[j])']
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lazytensor.lift import terms as T
from lazytensor.lift.source import subscript_chain
from lazytensor.lift.translate import _BINOPS, _CALLS_BINARY, _CALLS_UNARY, _CMPOPS


@dataclass(frozen=True, slots=True)
class ParsedStatement:
    name: str
    lhs: tuple[str, ...]
    term: T.Term


def parse_program(text: str, sizes=()) -> list[ParsedStatement]:
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        node = ast.parse(line, mode="exec").body[0]
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            raise ValueError(f"not a statement: {line!r}")
        target = node.targets[0]
        if isinstance(target, ast.Name):
            name, lhs = target.id, ()
        else:
            chain = subscript_chain(target)
            if chain is None:
                raise ValueError(f"bad left-hand side: {line!r}")
            name, lhs = chain[0], tuple(ast.unparse(e) for e in chain[1])
        index_vars = set(lhs) | _index_names(node.value)
        out.append(ParsedStatement(name, lhs, _term(node.value, index_vars, set(sizes))))
    return out


def _index_names(node: ast.AST) -> set[str]:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript):
            names |= {n.id for n in ast.walk(sub.slice) if isinstance(n, ast.Name)}
    return names


def _term(node: ast.expr, vars_: set[str], sizes: set[str]) -> T.Term:  # noqa: C901
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return T.const(node.value)
    if isinstance(node, ast.Name):
        if node.id in vars_:
            return T.var(node.id)
        if node.id in ("inf",):
            return T.const(float("inf"))
        return T.size(node.id) if node.id in sizes else T.access(node.id, None)
    if isinstance(node, ast.Subscript):
        chain = subscript_chain(node)
        if chain is None:
            raise ValueError(ast.unparse(node))
        texts = tuple(ast.unparse(e) for e in chain[1])
        return T.access(chain[0], texts, vars_)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _term(node.operand, vars_, sizes)
        return T.const(-inner.attr) if inner.kind == T.CONST else T.unary("neg", inner)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return T.binary(_BINOPS[type(node.op)], _term(node.left, vars_, sizes),
                        _term(node.right, vars_, sizes))
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return T.compare(_CMPOPS[type(node.ops[0])], _term(node.left, vars_, sizes),
                         _term(node.comparators[0], vars_, sizes))
    if isinstance(node, ast.Call):
        return _call(node, vars_, sizes)
    raise ValueError(f"unsupported: {ast.unparse(node)}")


def _call(node: ast.Call, vars_: set[str], sizes: set[str]) -> T.Term:
    args = [_term(a, vars_, sizes) for a in node.args]
    func = node.func
    folds = T.REDUCE + T.SOURCE_REDUCE + T.ARGREDUCE + T.SCANS
    if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name) \
            and func.value.id in folds and len(args) == 1:
        names = func.slice.elts if isinstance(func.slice, ast.Tuple) else [func.slice]
        term, make = args[0], T.scan if func.value.id in T.SCANS else T.reduce_
        for v in reversed(names):
            term = make(func.value.id, ast.unparse(v), term)
        return term
    name = getattr(func, "id", "")
    if name == "where" and len(args) == 3:
        return T.where(*args)
    if name in _CALLS_UNARY and len(args) == 1:
        return T.unary(_CALLS_UNARY[name], args[0])
    if name in _CALLS_BINARY and len(args) == 2:
        return T.binary(_CALLS_BINARY[name], *args)
    raise ValueError(f"unsupported call: {ast.unparse(node)}")
