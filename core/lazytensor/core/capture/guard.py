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
    entries, arrays = [], []
    for i, (value, where) in enumerate(zip(leaves, names, strict=True)):
        handle = adapter.handle_of(value)
        if handle is not None:
            arrays.append((i, value))
            key = ("array", handle.node.shape, handle.node.dtype, adapter.array_key(value))
        else:
            key = _object_key(value, adapter)
        entries.append(Entry(where, key))
    return entries, arrays


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
