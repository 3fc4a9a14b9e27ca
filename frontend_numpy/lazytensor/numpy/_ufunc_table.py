"""The ufunc table: ``np.ufunc -> Ufunc``, numpy's objects bound to the
core's ufuncs by name (``composite.ufuncs``: the composite computing each one
in the loop dtype numpy chose, plus what ``reduce``/``accumulate`` map to).

Implementations receive operands already converted to numpy's loop dtypes and
broadcast to one shape (gufuncs: converted only) and return a Node, or a tuple
of Nodes for ufuncs with several outputs. A ufunc missing here runs eagerly in
numpy (``_fallback``).
"""

from __future__ import annotations

from lazytensor.core.composite import ufuncs as cu
from lazytensor.core.composite.ufuncs import Ufunc
from lazytensor.core.ops import Op

import numpy as np

UFUNCS: dict[np.ufunc, Ufunc] = {getattr(np, name): impl for name, impl in cu.UFUNCS.items()}
ABOVE_RANGE = {getattr(np, name): answer for name, answer in cu.ABOVE_RANGE.items()}
MIRROR = {getattr(np, a): getattr(np, b) for a, b in cu.MIRROR.items()}


def direct_op(ufunc: np.ufunc, dtype: np.dtype) -> Op | None:
    """The single primitive computing ``ufunc`` on loop dtype ``dtype``, if any."""
    return cu.direct_op(ufunc.__name__, dtype)

