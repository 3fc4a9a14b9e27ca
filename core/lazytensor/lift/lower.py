"""Running a lifted statement on a backend: numpy (eager, on host arrays)
or the core (recording nodes, which a frontend wraps as its lazy array).

The recursion is shared; two patterns get their own operation because a
dense evaluation would be wasteful: a sum over index variables of a product
(a contraction: ``einsum``) and a sum of ``where(a[i] == b, v, 0)`` over
``i`` (a scatter-add: a histogram). Everything else is one table per
backend, keyed by the language's op names (``lazytensor.lift.terms``).

>>> import numpy as np
>>> from lazytensor.lift import terms as T
>>> from lazytensor.lift.evaluate import Space
>>> sp = Space.build(("i", "j"), {"i": range(2), "j": range(3)}, {},
...                  {"A": np.arange(6.0).reshape(2, 3), "x": np.ones(3)})
>>> t = T.reduce_("sum", "j", T.binary("mul", T.access("A", ("i", "j"), {"i", "j"}),
...                                       T.access("x", ("j",), {"j"})))
>>> run_term(t, sp, NUMPY).ravel().tolist()
[3.0, 12.0]
"""

from __future__ import annotations

import numpy as np
from lazytensor.lift import terms as T
from lazytensor.lift.evaluate import Invalid, Space, index_tuple, np_apply, size_value

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class NumpyBackend:
    """Host evaluation with numpy (what a lifted program does on numpy input)."""

    def apply(self, term: T.Term, args: list, space: Space):
        with np.errstate(all="ignore"):
            return np_apply(term, args, space)

    def einsum(self, spec: str, operands: list):
        return np.einsum(spec, *operands)

    def squeeze(self, x, axes: tuple[int, ...]):
        return np.squeeze(x, axes) if axes else x

    def reshape(self, x, shape):
        return np.reshape(x, shape)

    def transpose(self, x, perm):
        return np.transpose(x, perm)

    def broadcast(self, x, shape):
        return np.broadcast_to(x, shape)

    def bincount(self, idx, weights, length: int):
        idx, weights = np.ravel(idx), np.ravel(np.broadcast_to(weights, np.shape(idx)))
        inside = (idx >= 0) & (idx < length)
        out = np.bincount(idx[inside], weights[inside], minlength=length)[:length]
        return out.astype(weights.dtype) if weights.dtype.kind in "iu" else out

    def cast(self, x, dtype):
        return np.asarray(x).astype(dtype)

    def input(self, value):
        v = np.asarray(value)
        return v.astype(np.int64) if v.dtype.kind in "biu" else v.astype(np.float64)


NUMPY = NumpyBackend()


def run_term(term: T.Term, space: Space, be):
    """``term``'s value over ``space`` on backend ``be``."""
    if term.kind == T.RED and term.op == "sum":
        done = _scatter(term, space, be)
        if done is None:
            done = _contraction(term, space, be)
        if done is not None:
            return done
    return be.apply(term, [run_term(a, space, be) for a in term.args], space)


def _contraction(term: T.Term, space: Space, be):
    reduced, inner = [], term
    while inner.kind == T.RED and inner.op == "sum":
        reduced.append(inner.attr)
        inner = inner.args[0]
    factors = _factors(inner)
    if len(factors) < 2:
        return None
    order = space.order
    letter = {v: _LETTERS[i] for i, v in enumerate(order)}
    ops, specs = [], []
    for f in factors:
        value = run_term(f, space, be)
        if not f.vars:
            value = be.reshape(value, ())
        else:
            value = be.squeeze(value, tuple(i for i, v in enumerate(order) if v not in f.vars))
        ops.append(value)
        specs.append("".join(letter[v] for v in order if v in f.vars))
    out_vars = [v for v in order if v in term.vars]
    out = be.einsum(",".join(specs) + "->" + "".join(letter[v] for v in out_vars), ops)
    if not term.vars:
        return out
    return be.reshape(out, [space.extents[v] if v in term.vars else 1 for v in order])


def _factors(t: T.Term) -> list[T.Term]:
    if t.kind == T.BIN and t.op == "mul":
        return _factors(t.args[0]) + _factors(t.args[1])
    return [t]


def _scatter(term: T.Term, space: Space, be):
    """``sum[i](where(a == b, v, 0))`` with ``b`` an index variable: scatter-add."""
    w = term.args[0]
    if w.kind != T.WHERE or w.args[0].kind != T.CMP or w.args[0].op != "eq":
        return None
    cond, value, zero = w.args
    if zero.kind != T.CONST or zero.attr != 0:
        return None
    left, right = cond.args
    if right.kind != T.VAR:
        left, right = right, left
    b, i = right.attr if right.kind == T.VAR else None, term.attr
    if b is None or left.vars != {i} or not value.vars <= {i} or term.vars != {b}:
        return None
    if space.values[b].ravel().tolist() != list(range(space.extents[b])):
        return None
    idx = be.squeeze(run_term(left, space, be), _others(space, {i}))
    weights = run_term(value, space, be)
    weights = be.squeeze(weights, _others(space, {i})) if value.vars else be.reshape(weights, ())
    counts = be.bincount(idx, weights, space.extents[b])
    return be.reshape(counts, [space.extents[b] if v == b else 1 for v in space.order])


def _others(space: Space, keep: set[str]) -> tuple[int, ...]:
    return tuple(i for i, v in enumerate(space.order) if v not in keep)


def arrange(value, lhs: tuple[str, ...], flat: bool, space: Space, dtype, be):
    """A statement's value (over its index space) as the target array."""
    order = space.order
    full = [space.extents[v] if v in lhs else 1 for v in order]
    value = be.broadcast(value, tuple(full)) if order else value
    value = be.squeeze(value, _others(space, set(lhs)))
    inner = [v for v in order if v in lhs]
    if len(lhs) > 1:
        value = be.transpose(value, [inner.index(v) for v in lhs])
    if flat:
        value = be.reshape(value, (space.extents[lhs[0]] * space.extents[lhs[1]],))
    return be.cast(value, dtype)


__all__ = ["NUMPY", "Invalid", "arrange", "index_tuple", "run_term", "size_value"]
