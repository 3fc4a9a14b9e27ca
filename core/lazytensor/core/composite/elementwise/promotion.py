"""Type promotion as data: one ``Policy`` per framework that promotes
through the core (numpy's, tnp's; torch promotes with its own
``torch._prims_common`` rules in ``lazytensor.torch._promotion``), one shared
``result_type``. Operands are either dtypes (strong: arrays/tensors) or
Python scalar types ``bool``/``int``/``float``/``complex`` (weak: they take
the array's dtype when their kind fits, as in NEP 50, torch and tnp).

>>> import numpy as np
>>> result_type(NUMPY, np.dtype("float32"), float)
dtype('float32')
>>> result_type(NUMPY, np.dtype("int32"), float)
dtype('float64')
>>> result_type(TNP, np.dtype("int8"), np.dtype("uint8"))
dtype('int16')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from lazytensor.core import dtypes as dt

_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_WEAK_KIND = {bool: "b", int: "i", float: "f", complex: "c"}


@dataclass(frozen=True)
class Policy:
    """A framework's promotion rules.

    ``join`` promotes two strong dtypes; ``defaults`` gives the dtype a weak
    scalar takes when it outranks every strong operand (by kind letter);
    ``overrides`` pins specific strong pairs where the framework differs
    from numpy's table (e.g. torch: uint64 + int64 is an error, not float64).
    """

    name: str
    defaults: dict
    overrides: dict = field(default_factory=dict)

    def join(self, a: np.dtype, b: np.dtype) -> np.dtype:
        if a == b:
            return a
        pinned = self.overrides.get((a, b), self.overrides.get((b, a)))
        if pinned is not None:
            if isinstance(pinned, Exception):
                raise pinned
            return pinned
        return np.promote_types(a, b)


def _kind(d) -> int:
    if isinstance(d, type):
        return _KIND_ORDER[_WEAK_KIND[d]]
    return _KIND_ORDER[dt.category(d)]


_MEMO: dict = {}


def result_type(policy: Policy, *operands) -> np.dtype:
    """The dtype of an elementwise op over ``operands`` under ``policy``
    (memoized: it runs on every recorded elementwise op)."""
    key = (policy.name, *operands)
    found = _MEMO.get(key)
    if found is None:
        found = _MEMO[key] = _result_type(policy, operands)
    return found


def _result_type(policy: Policy, operands: tuple) -> np.dtype:
    strong = [d for d in operands if not isinstance(d, type)]
    weak = [d for d in operands if isinstance(d, type)]
    result = None
    for d in strong:
        result = d if result is None else policy.join(result, d)
    for w in weak:
        if result is None:
            result = policy.defaults[_WEAK_KIND[w]]
        elif _kind(w) > _kind(result):
            default = policy.defaults[_WEAK_KIND[w]]
            if dt.is_complex(default) and dt.is_float(result):
                default = dt.complex_dtype(result)  # float32 array + 1j -> complex64
            result = default
    if result is None:
        raise TypeError("result_type needs at least one operand")
    return result


NUMPY = Policy("numpy", {"b": dt.bool_, "i": dt.int64, "f": dt.float64, "c": dt.complex128})

# tf.experimental.numpy: numpy's table for strong dtypes (np.result_type) and
# NEP 50 weak Python scalars. Under prefer_float32 tnp makes Python floats
# *strong* float32 (int32 + 1.0 -> float64, float16 + 1.0 -> float32), which
# no weak default expresses: the tf frontend passes such floats as float32
# nodes instead.
TNP = Policy("tnp", {"b": dt.bool_, "i": dt.int64, "f": dt.float64, "c": dt.complex128})
