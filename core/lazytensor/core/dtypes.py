"""Core dtypes: numpy ``np.dtype`` objects (bfloat16 from ml_dtypes), plus
category predicates and the promotion lattice the frontends' policies use.

>>> import numpy as np
>>> is_float(np.dtype("float32")), is_int(np.dtype("uint8"))
(True, True)
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

DType = np.dtype

bool_ = np.dtype(bool)
int8, int16, int32, int64 = (np.dtype(f"int{b}") for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (np.dtype(f"uint{b}") for b in (8, 16, 32, 64))
float16, float32, float64 = (np.dtype(f"float{b}") for b in (16, 32, 64))
bfloat16 = np.dtype(ml_dtypes.bfloat16)
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")

SIGNED = (int8, int16, int32, int64)
UNSIGNED = (uint8, uint16, uint32, uint64)
FLOATS = (float16, bfloat16, float32, float64)
COMPLEX = (complex64, complex128)
ALL = (bool_, *SIGNED, *UNSIGNED, *FLOATS, *COMPLEX)


def is_bool(d: DType) -> bool:
    return d == bool_


def is_int(d: DType) -> bool:
    """Signed or unsigned integer (not bool)."""
    return d.kind in "iu"


def is_unsigned(d: DType) -> bool:
    return d.kind == "u"


def is_float(d: DType) -> bool:
    """Real floating point, bfloat16 included."""
    return d.kind == "f" or d == bfloat16


def is_complex(d: DType) -> bool:
    return d.kind == "c"


def is_inexact(d: DType) -> bool:
    return is_float(d) or is_complex(d)


def real_dtype(d: DType) -> DType:
    """complex64 -> float32, complex128 -> float64, others unchanged."""
    return {complex64: float32, complex128: float64}.get(d, d)


def complex_dtype(d: DType) -> DType:
    """The complex type holding a real float type: float64 -> complex128."""
    return complex128 if d == float64 else complex64


def canonical(d) -> DType:
    """Any dtype-like (numpy dtype, type, string) as a canonical ``np.dtype``,
    in native byte order; extended precision (longdouble) has no XLA type.

    >>> canonical(">f8"), canonical("bfloat16")
    (dtype('float64'), dtype(bfloat16))
    """
    if isinstance(d, str) and d == "bfloat16":
        return bfloat16
    d = np.dtype(d)
    if d.kind in "fc" and d.itemsize > (8 if d.kind == "f" else 16):
        raise TypeError(f"lazytensor does not support dtype {d} (extended precision "
                        "has no XLA type)")
    return d if d.isnative else d.newbyteorder("=")


def finfo(d: DType):
    return ml_dtypes.finfo(d) if d == bfloat16 else np.finfo(d)


def iinfo(d: DType):
    return np.iinfo(d)


def category(d: DType) -> str:
    """'b', 'i', 'u', 'f' or 'c' (bfloat16 is 'f')."""
    return "f" if d == bfloat16 else d.kind
