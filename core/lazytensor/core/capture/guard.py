"""The guard of a captured step: what must hold for a call to replay.

A call's arguments are flattened (``trees``) into lazy arrays, Python
scalars and other objects. Lazy arrays are keyed by shape, dtype and what
the frontend adds (``Adapter.array_key``: torch's ``requires_grad``); ints,
bools, strings and None by value; floats by type only (a float may become a
bound parameter, see ``record``); every other object by identity plus the
frontend's fingerprint (``Adapter.fingerprint``: a module's training flags,
an optimizer's hyperparameters). The objects the function reaches through
its globals and closure are guarded the same way, so rebinding ``model`` to
a new module, or a global counter's new value, re-traces.
"""

from __future__ import annotations

import types

_VALUE_TYPES = (int, bool, str, bytes, type(None), complex)
_STABLE_TYPES = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type,
                 types.MethodType)


def Entry(where: str, key: object) -> tuple:  # noqa: N802  (a record: a plain tuple, compared in C)
    """One guarded value: where it comes from (``argument 0``, ``keyword
    lr``, ``global model``, ``closure opt``) and its key."""
    return (where, key)


def argument_entries(leaves: list, names: list[str], adapter) -> tuple[list, list]:
    """Entries for the flattened arguments and the lazy arrays among them
    (``(position, array)``)."""
    keys = argument_keys(leaves, adapter)
    arrays = [(i, value) for i, (value, key) in enumerate(zip(leaves, keys, strict=True))
              if key[0] == "array"]
    return [Entry(where, key) for where, key in zip(names, keys, strict=True)], arrays


def argument_keys(leaves: list, adapter) -> tuple:
    """The guard's key of each flattened argument (a replay's check: no names)."""
    keys = []
    handle_of = adapter.handle_of
    for value in leaves:
        handle = handle_of(value)
        if handle is not None:
            node = handle.node
            keys.append(("array", node.shape, node.dtype, adapter.array_key(value)))
        else:
            keys.append(_object_key(value, adapter))
    return tuple(keys)


def _object_key(value, adapter) -> object:
    if isinstance(value, float):
        return ("float",)
    if isinstance(value, _VALUE_TYPES):
        return ("value", type(value), value)
    if isinstance(value, _STABLE_TYPES):
        return ("object", id(value))
    return ("object", id(value), adapter.fingerprint(value))


def reached_entries(fn, adapter) -> list:
    """Entries for what ``fn`` reads from its globals and closure cells."""
    entries = []
    code = getattr(fn, "__code__", None)
    if code is None:
        return entries
    globals_ = getattr(fn, "__globals__", {})
    for name in code.co_names:
        if name in globals_:
            entries.append(Entry(f"global {name}", _reached_key(globals_[name], adapter)))
    for name, cell in zip(code.co_freevars, fn.__closure__ or (), strict=True):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        entries.append(Entry(f"closure {name}", _reached_key(value, adapter)))
    return entries


_EMPTY = object()  # an empty closure cell


class Reached:
    """What ``fn`` reached through its globals and closure at one call, for a
    replay's quick check: the same objects (by identity), the same globals
    table size (no name added that could shadow a builtin) and the same
    fingerprints. A call that fails it is checked by ``reached_entries``
    (equal values, not identical ones, still replay)."""

    def __init__(self, fn, adapter) -> None:
        code = fn.__code__
        self.globals = fn.__globals__
        self.size = len(self.globals)
        self.names = [name for name in code.co_names if name in self.globals]
        self.values = [self.globals[name] for name in self.names]
        self.cells = list(fn.__closure__ or ())
        self.contents = [_contents(cell) for cell in self.cells]
        self.fingerprinted = [(value, adapter.fingerprint(value))
                              for value in (*self.values, *self.contents)
                              if _fingerprinted(value, adapter)]

    def same(self, adapter) -> bool:
        g = self.globals
        if len(g) != self.size:
            return False
        for name, value in zip(self.names, self.values, strict=True):
            if g.get(name, _EMPTY) is not value:
                return False
        for cell, value in zip(self.cells, self.contents, strict=True):
            if _contents(cell) is not value:
                return False
        for value, fingerprint in self.fingerprinted:
            if adapter.fingerprint(value) != fingerprint:
                return False
        return True

    def objects(self) -> list:
        """The reached objects and those one container level down (a tuple
        of a model and its optimizer), for the adapter's host state."""
        found = []
        for value in (*self.values, *self.contents):
            found += value if isinstance(value, (list, tuple)) else \
                list(value.values()) if isinstance(value, dict) else [value]
        return found


def _contents(cell) -> object:
    try:
        return cell.cell_contents
    except ValueError:
        return _EMPTY


def _fingerprinted(value, adapter) -> bool:
    if value is _EMPTY or adapter.handle_of(value) is not None:
        return False
    return not isinstance(value, (float, *_VALUE_TYPES, *_STABLE_TYPES))


def _reached_key(value, adapter) -> object:
    if adapter.handle_of(value) is not None:  # a lazy array the body reads: its state
        return ("array", id(value))
    if isinstance(value, float):
        return ("value", float, value)
    return _object_key(value, adapter)


def explain(entries: tuple, previous: tuple) -> str:
    """The first guard that differs between two calls, in words."""
    if len(entries) != len(previous):
        return f"the call has {len(entries)} guarded values, the captured one {len(previous)}"
    for now, then in zip(entries, previous, strict=True):
        if now == then:
            continue
        (where, key), (_, old) = now, then
        if key[0] == old[0] == "object" and len(key) == len(old) == 3 and key[1] == old[1]:
            return f"{where}: {_state_difference(key[2], old[2])}"
        return f"{where}: {_describe(key)} (captured with {_describe(old)})"
    return "no guard differs"


def _state_difference(now, then, name: str = "state") -> str:
    """The first difference of two fingerprints, named where a (name, value)
    pair names it: ``lr 0.05 (captured with 0.1)``."""
    if isinstance(now, tuple) and isinstance(then, tuple) and len(now) == len(then):
        if len(now) == 2 and isinstance(now[0], str) and now[0] == then[0]:
            return _state_difference(now[1], then[1], now[0])
        for a, b in zip(now, then, strict=True):
            if a != b:
                return _state_difference(a, b, name)
    return f"{name} {now!r} (captured with {then!r})"


def _describe(key) -> str:
    kind = key[0]
    if kind == "array":
        if len(key) == 2:
            return f"lazy array object {key[1]:#x}"
        extra = f" {key[3]}" if key[3] else ""
        return f"shape {list(key[1])} dtype {key[2]}{extra}"
    if kind == "value":
        return f"Python value {key[2]!r}"
    if kind == "float":
        return "a float"
    if len(key) == 2:
        return f"object {key[1]:#x}"
    return f"object {key[1]:#x} with state {key[2]!r}"
