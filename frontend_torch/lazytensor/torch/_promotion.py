"""torch's type promotion, taken from torch itself and memoized.

An operand's promotion key is its dtype plus whether it is a dimensioned
tensor, a zero-dim tensor or a Python scalar (torch ranks them in that order
of priority). The first time a key is seen, torch's own
``torch._prims_common.elementwise_dtypes`` decides on tiny CPU stand-ins;
the answer ``(computation dtype, result dtype)`` is kept as numpy dtypes.

>>> import numpy as np
>>> dtypes(DEFAULT, (np.dtype("int32"), True), float)
(dtype('float32'), dtype('float32'))
>>> dtypes(ALWAYS_BOOL, (np.dtype("float16"), True), (np.dtype("float32"), False))
(dtype('float32'), dtype('bool'))
"""

from __future__ import annotations

import numpy as np
from lazytensor.core.composite.elementwise.apply import weak_type
from lazytensor.torch._tensor import NUMPY_OF, TORCH_OF

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND as _KIND
from torch._prims_common import elementwise_dtypes

DEFAULT = _KIND.DEFAULT
NO_OPMATH = _KIND.NO_OPMATH
INT_TO_FLOAT = _KIND.INT_TO_FLOAT
ALWAYS_BOOL = _KIND.ALWAYS_BOOL
COMPLEX_TO_FLOAT = _KIND.COMPLEX_TO_FLOAT
BOOL_TO_LONG = _KIND.BOOL_TO_LONG

_STANDIN_SCALARS = {bool: True, int: 1, float: 1.0, complex: 1j}
_MEMO: dict[tuple, tuple[np.dtype, np.dtype]] = {}
_get_default_dtype = torch.get_default_dtype


def key_of(x) -> object:
    """The promotion key of an operand: ``(numpy dtype, has dims)`` for a
    tensor (lazy or CPU), the Python type for a scalar."""
    h = getattr(x, "_h", None)
    if h is not None:
        node = h.node
        return node.dtype, bool(node.shape)
    if isinstance(x, torch.Tensor):
        return NUMPY_OF[x.dtype], x.dim() > 0
    return weak_type(x)


def dtypes(kind, *keys) -> tuple[np.dtype, np.dtype]:
    """(computation dtype, result dtype) of an elementwise op of ``kind``
    over operands with promotion ``keys`` (see ``key_of``)."""
    memo_key = (kind, _get_default_dtype(), keys)
    hit = _MEMO.get(memo_key)
    if hit is None:
        hit = _MEMO[memo_key] = _decide(kind, keys)
    return hit


def dtypes_of(kind, *operands) -> tuple[np.dtype, np.dtype]:
    """``dtypes`` over operands themselves (None operands are skipped)."""
    return dtypes(kind, *[key_of(x) for x in operands if x is not None])


def _decide(kind, keys) -> tuple[np.dtype, np.dtype]:
    standins = []
    for key in keys:
        if isinstance(key, type):
            standins.append(_STANDIN_SCALARS[key])
        else:
            dtype, dims = key
            standins.append(torch.empty((1,) if dims else (), dtype=TORCH_OF[dtype]))
    computation, result = elementwise_dtypes(*standins, type_promotion_kind=kind)
    for dtype in (computation, result):
        if dtype not in NUMPY_OF:  # complex32: float16 with a complex scalar
            raise RuntimeError(f"lazytensor.torch does not support dtype {dtype} (the result "
                               f"type of {', '.join(str(s.dtype) for s in standins)})")
    return NUMPY_OF[computation], NUMPY_OF[result]


def result_type(*operands) -> np.dtype:
    """torch.result_type over any number of operands."""
    return dtypes_of(NO_OPMATH, *operands)[1]


def can_cast(src: np.dtype, dst: np.dtype) -> bool:
    """torch.can_cast on numpy dtypes (in-place results and out= tensors)."""
    return src == dst or torch.can_cast(TORCH_OF[src], TORCH_OF[dst])
