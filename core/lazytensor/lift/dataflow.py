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
from lazytensor.lift.source import Store
from lazytensor.lift.translate import Scope, Untranslatable, translate

_KIND = {"add": "sum", "sub": "sum", "max": "max", "min": "min"}
_IDENTITY = {"add": 0, "max": -float("inf"), "min": float("inf")}
_COMBINE = {"add": "add", "sub": "sub", "max": "maximum", "min": "minimum"}


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
            names = [e.id if isinstance(e, ast.Name) else None for e in store.index]
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
                 store.order)


class _Pre(ast.expr):
    """An already translated value riding in a Store."""

    def __init__(self, term: T.Term) -> None:
        super().__init__()
        self.term = term


def _value(store: Store, scope: Scope) -> T.Term:
    return store.value.term if isinstance(store.value, _Pre) else translate(store.value, scope)


def _reduced(store: Store, base: Store, skip: tuple[str, ...]) -> list[str]:
    outer = set(map(id, base.loops)) if base.op is None else set()
    return [loop.var for loop in store.loops if id(loop) not in outer and loop.var not in skip]


def _define(store: Store, prev: T.Term | None, base: Store, scope: Scope,
            reduced: list[str]) -> T.Term:
    n = len(base.conds)
    if store.conds[:n] != base.conds:
        raise Untranslatable("a store under other branches than the first")
    extra = store.conds[n:]
    value = _value(store, scope)
    cond = _condition(extra, scope)
    if store.op is None:
        if prev is None or cond is None:
            return value
        return T.where(cond, value, prev)
    kind = _KIND.get(store.op)
    if kind is None:
        raise Untranslatable(f"{store.op} update")
    if cond is not None:
        if kind != "sum":
            raise Untranslatable("a conditional max update")
        value = T.where(cond, value, T.const(0))
    for v in reversed(reduced):
        value = T.reduce_(kind, v, value)
    if prev is None or (prev.kind == T.CONST and prev.attr == _IDENTITY.get(store.op)):
        return value  # 0 + x -> x, max(-inf, x) -> x, min(inf, x) -> x
    return T.binary(_COMBINE[store.op], prev, value)


def _condition(conds: tuple, scope: Scope) -> T.Term | None:
    if not conds:
        return None
    if len(conds) > 1:
        raise Untranslatable("nested conditions")
    cond = translate(conds[0], scope)
    if not cond.is_bool:
        raise Untranslatable("a condition that is not a comparison")
    return cond
