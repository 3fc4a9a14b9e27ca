"""The Array API namespace of lazy arrays (``x.__array_namespace__()``).

numpy 2's own namespace already carries the standard's names (acos, concat,
permute_dims, pow, bitwise_left_shift, vecdot, matrix_transpose...), so this
module is ``lazytensor.numpy`` plus the few functions whose standard
signatures differ from numpy's (astype, sort/argsort with ``descending``,
the unique_* family).
"""

from __future__ import annotations

from lazytensor.numpy import *  # noqa: F403
from lazytensor.numpy import __all__ as _LNP_ALL
from lazytensor.numpy import _math, linalg  # noqa: F401
from lazytensor.numpy import broadcast_arrays as _lnp_broadcast_arrays
from lazytensor.numpy import meshgrid as _lnp_meshgrid
from lazytensor.numpy._base import ndarray, node_of, wrap
from lazytensor.numpy._dispatch import to_lazy
from lazytensor.numpy._errors import guard

import numpy as _np

__array_api_version__ = "2023.12"
SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12")
isdtype = _np.isdtype
vecdot = linalg.vecdot  # the standard's keyword is axis= (numpy's ufunc takes axes=)
__array_namespace_info__ = _np.__array_namespace_info__


@guard
def astype(x, dtype, /, *, copy=True, device=None):
    return x.astype(dtype, copy=copy)


@guard
def sort(x, /, *, axis=-1, descending=False, stable=True):
    from lazytensor.core.composite.sorting import sort as sorting

    return wrap(sorting.sort(node_of(x), axis, descending))


@guard
def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """Stable descending order keeps ties in their original order."""
    from lazytensor.core.composite.sorting import sort as sorting

    return wrap(sorting.argsort(node_of(x), axis, descending))


def from_dlpack(x, /, *, device=None, copy=None):
    """numpy's import (a lazy ``x`` exports a host copy), as a lazy array."""
    return to_lazy(_np.from_dlpack(x, device=device, copy=copy))


def meshgrid(*arrays, indexing="xy"):
    """A list, as the 2023.12 standard has it (numpy 2 returns a tuple)."""
    return list(_lnp_meshgrid(*arrays, indexing=indexing))


def broadcast_arrays(*arrays):
    """A list, as the 2023.12 standard has it (numpy 2 returns a tuple)."""
    return list(_lnp_broadcast_arrays(*arrays))


def _host(x) -> _np.ndarray:
    return x.__array__() if isinstance(x, ndarray) else _np.asarray(x)


def unique_values(x, /):
    """Data-dependent shape: materializes ``x`` (as the other unique_* do)."""
    return to_lazy(_np.unique_values(_host(x)))


def unique_counts(x, /):
    return to_lazy(_np.unique_counts(_host(x)))


def unique_inverse(x, /):
    return to_lazy(_np.unique_inverse(_host(x)))


def unique_all(x, /):
    return to_lazy(_np.unique_all(_host(x)))


__all__ = sorted(set(_LNP_ALL) | {
    "astype", "sort", "argsort", "unique_values", "unique_counts", "unique_inverse",
    "unique_all", "isdtype", "linalg", "from_dlpack", "vecdot", "meshgrid", "broadcast_arrays",
})
