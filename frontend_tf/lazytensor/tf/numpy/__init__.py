"""``lazytensor.tf.numpy``: tf.experimental.numpy, recorded lazily.

``import lazytensor.tf.numpy as lnp`` in place of
``import tensorflow.experimental.numpy as tnp``. The namespace is built from
tables: ``LOWERED`` (tnp name -> node-level implementation over the core's
composites) and, for every other public tnp name, an eager fallback made on
first access (warned once, counted in the metrics). Dtypes and constants are
tnp's own (numpy's types).

>>> import lazytensor.tf.numpy as lnp
>>> x = lnp.ones((2, 3), dtype=lnp.float32)
>>> lnp.sum(x * 2.0, axis=0).numpy()
array([4., 4., 4.], dtype=float32)
"""

from __future__ import annotations

import numpy as _np
from lazytensor.core.composite.elementwise.promotion import TNP as _TNP
from lazytensor.core.composite.elementwise.promotion import result_type as _result_type
from lazytensor.core.registry import ShapeError
from lazytensor.tf import _tf
from lazytensor.tf._array import ndarray, operand  # noqa: F401  (ndarray: tnp's name)
from lazytensor.tf.numpy import _methods, random  # noqa: F401  (random: a submodule)
from lazytensor.tf.numpy._arrays import ARRAYS
from lazytensor.tf.numpy._lower import fallback, lowered
from lazytensor.tf.numpy._math import MATH

# tnp name -> implementation; every name here records core nodes
LOWERED = {**MATH, **ARRAYS}

# where tnp raises another type than the default for a core error (see _tf.ERRORS)
ERRORS = {
    "vander": {ShapeError: ValueError},  # tnp checks the rank in Python
}

for _name, _impl in LOWERED.items():
    globals()[_name] = lowered(_name, _impl, ERRORS.get(_name))
_methods.install(globals())

# dtypes and constants: tnp's are numpy's
bool_, int_, float_, complex_ = _np.bool_, _np.int_, _np.float64, _np.complex128
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
inexact, object_, string_, unicode_ = _np.inexact, _np.object_, _np.bytes_, _np.str_
e, pi, inf, newaxis = _np.e, _np.pi, _np.inf, None
iinfo, issubdtype = _np.iinfo, _np.issubdtype


def finfo(dtype):
    """Machine limits of a float dtype (tf.DType accepted)."""
    return _np.finfo(_tf.as_np_dtype(dtype))


def promote_types(type1, type2):
    return _np.promote_types(_tf.as_np_dtype(type1), _tf.as_np_dtype(type2))


def result_type(*arrays_and_dtypes):
    """tnp's result_type (a ``tf.DType``) of arrays, dtypes and scalars."""
    operands = [_tf.as_np_dtype(a) if _is_dtype(a) else operand(a) for a in arrays_and_dtypes]
    kinds = [o if isinstance(o, _np.dtype) else getattr(o, "dtype", type(o)) for o in operands]
    return _tf.as_tf_dtype(_result_type(_TNP, *kinds))


def _is_dtype(value) -> bool:
    return isinstance(value, (_np.dtype, type, str)) or hasattr(value, "as_numpy_dtype")


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """tnp's switch (it changes TensorFlow's global state, which lazy
    arrays read: operator promotion and float defaults)."""
    _tf.tnp().experimental_enable_numpy_behavior(prefer_float32, dtype_conversion_mode)


NOT_FUNCTIONS = frozenset({
    "experimental_enable_numpy_behavior", "finfo", "iinfo", "issubdtype", "promote_types",
    "result_type", "random",
})


def __getattr__(name: str):
    """Every other public tnp name falls back to eager tnp."""
    if name.startswith("_"):
        raise AttributeError(name)
    target = getattr(_tf.tnp(), name)
    fn = fallback(name, target) if callable(target) else target
    globals()[name] = fn
    return fn


def __dir__() -> list[str]:
    return sorted(set(globals()) | {n for n in dir(_tf.tnp()) if not n.startswith("_")})


DTYPES_AND_CONSTANTS = (
    "bool_", "int_", "float_", "complex_", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128", "inexact",
    "object_", "string_", "unicode_", "e", "pi", "inf", "newaxis",
)
__all__ = sorted({*LOWERED, *DTYPES_AND_CONSTANTS, *NOT_FUNCTIONS, "ndarray", "random"})
