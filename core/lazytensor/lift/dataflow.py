"""Element-level definitions read off the loop bodies, for the guide.

Walking a nest's stores in source order, a local scalar's value becomes a
term: a plain store replaces it, a store under an extra branch condition
merges as ``where(cond, new, old)``, and an accumulation (``s += v`` in
loops deeper than ``s``'s initial store, ``m = max(m, v)``,
``if v > m: m = v``) becomes ``old + sum[j](v)`` (or ``max``). An array
target's element (``out[i]``, ``hist[x[i]]``) is defined the same way from
its old value (for an argument updated in place). These definitions are
candidates, not answers: they enter the grammar as weighted fragments and
the search checks them like any other term.
"""

from __future__ import annotations

import ast

from lazytensor.lift import terms as T
from lazytensor.lift.source import Store, index_var
from lazytensor.lift.translate import NEGATED, Scope, Untranslatable, translate

_KIND = {"add": "sum", "sub": "sum", "max": "max", "min": "min", "mul": "prod"}
_IDENTITY = {"add": 0, "mul": 1, "max": -float("inf"), "min": float("inf")}
_COMBINE = {"add": "add", "sub": "sub", "max": "maximum", "min": "minimum", "mul": "mul"}
_SCAN = {"sum": "cumsum", "max": "cummax", "min": "cummin", "prod": "cumprod"}


def define_locals(stores: list[Store], scope: Scope, names: set[str]) -> None:
    """Put the definitions of the scalars ``names`` into ``scope.inline``."""
    first: dict[str, Store] = {}
    ordered = sorted(stores, key=lambda s: s.order)
    for store in ordered:
        name = store.target
        if name not in names or store.index is not None:
            continue
        base = first.setdefault(name, _common([s for s in ordered
                                              if s.target == name and s.index is None]))
        try:
            scope.inline[name] = _define(store, scope.inline.get(name), base, scope,
                                         _reduced(store, base, ()))
        except (Untranslatable, RecursionError):
            scope.inline.pop(name, None)


def define_element(stores: list[Store], scope: Scope, name: str, lhs: tuple[str, ...],
                   inplace: bool, copy_of: str | None = None) -> T.Term | None:
    """The final value of ``name[lhs]`` as one term (None if not readable)."""
    mine = sorted((s for s in stores if s.target == name and s.index is not None),
                  key=lambda s: s.order)
    if not mine:
        return None
    old = name if inplace else copy_of
    prev = T.access(old, lhs, set(lhs)) if old else None
    base = _common(mine)
    if old:  # the old value holds under no condition
        base = Store(base.target, base.index, base.value, base.op, base.loops, (), -1)
    try:
        for store in mine:
            names = [index_var(e) for e in store.index]
            value_store = store
            if len(store.index) == 1 and lhs and names[0] != lhs[0] and len(lhs) == 1:
                value_store = _scatter(store, scope, lhs[0])
            skip = tuple(n for n in names if n)
            prev = _define(value_store, prev, base, scope, _reduced(store, base, skip))
    except (Untranslatable, RecursionError):
        return None
    return prev


def _common(stores: list[Store]) -> Store:
    """The first store, with the branch conditions all the stores share."""
    first, n = stores[0], len(stores[0].conds)
    for s in stores[1:]:
        n = next((k for k in range(min(n, len(s.conds))) if s.conds[k] is not first.conds[k]),
                 min(n, len(s.conds)))
    return Store(first.target, first.index, first.value, first.op, first.loops,
                 first.conds[:n], -1)


def _scatter(store: Store, scope: Scope, var: str) -> Store:
    """``h[idx] += v`` as ``h[b] += where(idx == b, v, 0)``."""
    idx = translate(store.index[0], scope)
    value = T.where(T.compare("eq", idx, T.var(var)), translate(store.value, scope),
                    T.const(0))
    return Store(store.target, store.index, _Pre(value), store.op, store.loops, store.conds,
                 store.order, store.tests)


class _Pre(ast.expr):
    """An already translated value riding in a Store."""

    def __init__(self, term: T.Term) -> None:
        super().__init__()
        self.term = term


def _value(store: Store, scope: Scope) -> T.Term:
    return store.value.term if isinstance(store.value, _Pre) else translate(store.value, scope)


def _reduced(store: Store, base: Store, skip: tuple[str, ...]) -> list:
    outer = set(map(id, base.loops)) if base.op is None else set()
    return [loop for loop in store.loops if id(loop) not in outer and loop.var not in skip]


def _define(store: Store, prev: T.Term | None, base: Store, scope: Scope,
            reduced: list) -> T.Term:
    n = len(base.conds)
    if store.conds[:n] != base.conds:
        raise Untranslatable("a store under other branches than the first")
    for test in store.tests:  # every test of the enclosing ifs, before the store runs
        _condition(test, scope)
    conds = [_condition(c, scope) for c in store.conds[n:]]
    value = _value(store, scope)
    if store.op is None and value.kind == T.VAR and prev is not None and len(conds) == 1 \
            and any(loop.var == value.attr for loop in reduced):
        return _arg_extreme(store.conds[-1], value.attr, prev, scope)
    if store.op is None and _horner_parts(store) and not conds and prev is not None:
        return _horner(store, prev, scope, reduced)
    if store.op is None:
        return value if prev is None else _guard(conds, value, prev)
    kind = _KIND.get(store.op)
    if kind is None:
        raise Untranslatable(f"{store.op} update")
    if conds and not reduced and prev is not None:  # a branch-local update: old op new
        return _guard(conds, T.binary(_COMBINE[store.op], prev, value), prev)
    if conds:
        if kind != "sum":
            raise Untranslatable("a conditional max update")
        value = _guard(conds, value, T.const(0))
    for loop in reversed(reduced):
        if id(loop) in scope.scans:  # read inside this loop: the running value
            value = T.scan(_SCAN[kind], loop.var, value)
        elif kind in T.REDUCE + T.SOURCE_REDUCE:
            value = T.reduce_(kind, loop.var, value)
        else:
            raise Untranslatable(f"a {kind} reduction")
    if prev is None or (prev.kind == T.CONST and prev.attr == _IDENTITY.get(store.op)):
        return value  # 0 + x -> x, max(-inf, x) -> x, min(inf, x) -> x
    return T.binary(_COMBINE[store.op], prev, value)


def _horner_parts(store: Store) -> tuple[ast.expr, ast.expr] | None:
    """``acc = acc * a + b`` (either order of each operation) as ``(a, b)``."""
    node = store.value
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
        return None
    for mul, b in ((node.left, node.right), (node.right, node.left)):
        if isinstance(mul, ast.BinOp) and isinstance(mul.op, ast.Mult):
            for acc, a in ((mul.left, mul.right), (mul.right, mul.left)):
                if isinstance(acc, ast.Name) and acc.id == store.target:
                    return a, b
    return None


def _horner(store: Store, prev: T.Term, scope: Scope, reduced: list) -> T.Term:
    """Horner's rule over ``for k in range(n)``: ``acc = acc * a + b[k]`` ends as
    ``prev * a ** n + sum[k](b[k] * a ** (n - 1 - k))``."""
    a, b = _horner_parts(store)
    if len(reduced) != 1 or any(isinstance(n, ast.Name) and n.id == store.target
                                for side in (a, b) for n in ast.walk(side)):
        raise Untranslatable("a recurrence")
    k = reduced[0].var
    bounds = ast.parse(reduced[0].range_text, mode="eval").body.args
    if len(bounds) != 1:
        raise Untranslatable("a recurrence over a range not from 0")
    n = translate(bounds[0], scope)
    a_t, b_t = translate(a, scope), translate(b, scope)
    if k in a_t.vars:
        raise Untranslatable("a recurrence with a varying factor")
    power = T.binary("sub", T.binary("sub", n, T.const(1)), T.var(k))
    total = T.reduce_("sum", k, T.binary("mul", b_t, T.binary("pow", a_t, power)))
    if prev.kind == T.CONST and prev.attr == 0:
        return total
    return T.binary("add", T.binary("mul", prev, T.binary("pow", a_t, n)), total)


_ARG = {(True, "gt"): "argmax", (True, "lt"): "argmin",
        (False, "lt"): "argmax", (False, "gt"): "argmin"}


def _arg_extreme(test: ast.expr, v: str, prev: T.Term, scope: Scope) -> T.Term:
    """``if e > other: k = i`` (``other`` the running best, or ``e`` at ``k``)
    as ``where(max[i](e) > e at prev, argmax[i](e), prev)``: the first strict
    extreme beats the start value only if it exceeds ``e`` there."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or prev.vars:
        raise Untranslatable("an index update under a condition")
    op = {ast.Gt: "gt", ast.Lt: "lt"}.get(type(test.ops[0]))
    sides = [test.left, test.comparators[0]]
    for left, side in ((True, sides[0]), (False, sides[1])):
        try:
            e = translate(side, scope)
        except Untranslatable:
            continue
        kind = _ARG.get((left, op))
        if kind is None or v not in e.vars or e.is_bool:
            continue
        best = T.reduce_(kind[3:], v, e)
        beats = T.compare("gt" if kind == "argmax" else "lt", best, T.substitute(e, v, prev))
        return T.where(beats, T.reduce_(kind, v, e), prev)
    raise Untranslatable("an index update under a condition")


def _guard(conds: list[T.Term], value: T.Term, prev: T.Term) -> T.Term:
    """``value`` where every condition holds, else ``prev`` (nested branches)."""
    for cond in reversed(conds):
        value = T.where(cond, value, prev)
    return value


def _condition(node: ast.expr, scope: Scope) -> T.Term:
    """A branch condition as a term, read once per ``if`` with the values its
    locals had at the test (an ``elif`` tests the values before the ``if``'s
    body ran, not after)."""
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    test = node.operand if negated else node
    cond = scope.tests.get(id(test))
    if cond is None:
        cond = scope.tests[id(test)] = translate(test, scope)
    if not cond.is_bool:
        raise Untranslatable("a condition that is not a comparison")
    if negated:
        if cond.kind != T.CMP:
            raise Untranslatable("a negated condition")
        return T.compare(NEGATED[cond.op], *cond.args)
    return cond
