"""TensorFlow-specific glue: TensorFlow imported on first need (importing it
takes seconds; recording lazy ops never needs it), dtype conversion between
numpy dtypes and ``tf.DType``, tnp's global modes, and error translation.

>>> import numpy as np
>>> as_np_dtype(float), as_np_dtype("int32"), as_np_dtype(None, np.dtype("int8"))
(dtype('float64'), dtype('int32'), dtype('int8'))
"""

from __future__ import annotations

import functools
import os
import sys
from typing import NoReturn

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.reduce.axes import AxisError
from lazytensor.core.registry import CoreError, DTypeError, ShapeError

_NP_DTYPES = "tensorflow.python.ops.numpy_ops.np_dtypes"
_OPS = "tensorflow.python.framework.ops"


_TF: list = []  # the tensorflow module, once imported


def tf():
    """The ``tensorflow`` module (imported once, on first use); TensorFlow's
    own ops learn lazy arrays then (``lazytensor.tf.tf_api.install``)."""
    if _TF:
        return _TF[0]
    import tensorflow

    _TF.append(tensorflow)
    from lazytensor.tf import tf_api

    tf_api.install()
    return tensorflow


def tnp():
    return tf().experimental.numpy


def is_tf_value(value) -> bool:
    """A tf.Tensor or tf.Variable (checked only when TensorFlow is loaded:
    such a value cannot exist before)."""
    if "tensorflow" not in sys.modules:
        return False
    t = tf()
    return isinstance(value, (t.Tensor, t.Variable))


def holds_numbers(value) -> bool:
    """A tf.Tensor or tf.Variable of numbers or bools (not strings, resources
    or variants: numpy has no such dtype, it reads them as objects)."""
    return np.dtype(value.dtype.as_numpy_dtype).kind not in NON_NUMERIC


def indexed_slices(value) -> bool:
    """A tf.IndexedSlices (what the tape gives for a gather's gradient);
    tnp.asarray converts it to its dense tensor."""
    return "tensorflow" in sys.modules and isinstance(value, tf().IndexedSlices)


def keras_variable(value) -> bool:
    """A Keras variable of the TensorFlow backend (its ``value`` is a
    tf.Variable; TensorFlow takes it as a tensor): a layer's weight."""
    return type(value).__module__.startswith("keras") and "tensorflow" in sys.modules and \
        isinstance(getattr(value, "value", None), tf().Variable)


def keras_shape_inference() -> bool:
    """Keras infers a layer's output shape (``compute_output_spec``, when it
    builds a layer on its first call) by tracing it in a scratch graph,
    where a lazy array stands for its shape and dtype only."""
    if "keras" not in sys.modules or tf().executing_eagerly():
        return False
    from keras.src.backend.common.symbolic_scope import in_symbolic_scope

    return in_symbolic_scope()


# TensorFlow functions that convert on purpose: the user asked for a tf.Tensor
_EXPLICIT_CONVERSIONS = frozenset({
    "convert_to_tensor", "convert_to_tensor_v1", "convert_to_tensor_v2",
    "convert_to_tensor_v2_with_dispatch", "constant", "constant_v1", "identity"})
# TensorFlow functions that observe a value, as ``print`` or ``np.asarray``
# do (a barrier, not an op the core could have run): ``tf.print`` writes it;
# tf.data's ``from_tensor_slices``/``from_tensors`` hand it to TensorFlow's
# input pipeline, which holds host tensors
_OBSERVATIONS = frozenset({"print_v2", "from_tensor_slices", "from_tensors"})
_LAZYTENSOR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # lazytensor/
# _dispatch.with_dispatch gives TensorFlow APIs that lack it dispatch; it calls
# TensorFlow's own function when no argument is lazy (a closure may still hold one)
_DISPATCH_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_api", "_dispatch.py")


_DECORATOR_FILES = (os.path.join("ops", "weak_tensor_ops.py"),)


def unlowered_caller(frame, value=None) -> str | None:
    """The TensorFlow function that a lazy array's ``__tf_tensor__`` (called
    from ``frame``) converts for, when it is an eager fallback: a TensorFlow
    API that no table lowers, called from the user's code (or another
    library's), such as ``image_ops_impl.adjust_hue``. None when the
    conversion was asked for (``tf.convert_to_tensor``, ``tf.constant``), is
    an observation (``tf.print``, a tf.data source, a ``tf.debugging.assert_*``,
    ``value`` as a random op's shape or seed) or lazytensor's own code made it.
    The API is the outermost TensorFlow frame below the caller, past
    TensorFlow's decorators (``tensorflow/python/util`` and the weak-tensor
    wrappers, whose frame says ``wrapper``) and lazytensor's dispatch
    wrapper (``_dispatch.with_dispatch``)."""
    tf_dir = os.path.dirname(tf().__file__)
    util_dir = os.path.join(tf_dir, "python", "util")
    api = None
    while frame is not None:
        path = frame.f_code.co_filename
        if path == _DISPATCH_FILE and frame.f_code.co_name == "with_dispatch":
            frame = frame.f_back  # lazytensor's wrapper of an undispatched API: see through it
            continue
        if not path.startswith(tf_dir):
            break
        if not path.startswith(util_dir) and not path.endswith(_DECORATOR_FILES):
            api = frame
        frame = frame.f_back
    if api is None or frame is None or frame.f_code.co_filename.startswith(_LAZYTENSOR_DIR):
        return None
    module = api.f_globals.get("__name__", "").rsplit(".", 1)[-1]
    if api.f_code.co_name in _EXPLICIT_CONVERSIONS | _OBSERVATIONS or _draw_argument(api, value) \
            or module == "check_ops":  # tf.debugging.assert_*: they look at the values
        return None
    return f"{module}.{api.f_code.co_qualname.rsplit('.<locals>.', 1)[-1]}"


# TensorFlow's random ops: they draw from TensorFlow's generators, reading
# their shape and seed on the host (as tnp.random's draws, not fallbacks)
_RANDOM_MODULES = ("random_ops", "stateless_random_ops", "stateful_random_ops")


def _draw_argument(api, value) -> bool:
    """``value`` is the ``shape`` or ``seed`` of the random op whose frame is
    ``api`` (or an entry of it: ``[tf.shape(x)[0], 2]``)."""
    if value is None or api.f_globals.get("__name__", "").rsplit(".", 1)[-1] \
            not in _RANDOM_MODULES:
        return False
    for name in ("shape", "seed"):
        arg = api.f_locals.get(name)
        if arg is value or (isinstance(arg, (list, tuple)) and any(v is value for v in arg)):
            return True
    return False


_PY_TYPES = {bool: dt.bool_, int: dt.int64, float: dt.float64, complex: dt.complex128}


NON_NUMERIC = "OSUMm"  # numpy kinds that no core dtype holds: objects, strings, dates


class NonNumeric(TypeError):
    """Data or a dtype that no core dtype holds (strings, bytes, objects,
    dates): a tnp function given it runs eagerly in TensorFlow
    (``numpy._lower.lowered``), so the result or error is tnp's."""


def as_np_dtype(dtype, default: np.dtype | None = None) -> np.dtype | None:
    """A dtype argument as tnp accepts it (numpy types, strings, Python types,
    ``tf.DType``) as an ``np.dtype``; ``None`` gives ``default``."""
    if dtype is None:
        return default
    if isinstance(dtype, np.dtype):
        out = dtype
    elif dtype in _PY_TYPES:
        return _PY_TYPES[dtype]
    elif hasattr(dtype, "as_numpy_dtype"):  # tf.DType
        out = dt.canonical(dtype.as_numpy_dtype)
    else:
        out = dt.canonical(dtype)
    if out.kind in NON_NUMERIC:
        raise NonNumeric(f"dtype {out} has no lazytensor.tf array")
    return out


class Traced(Exception):  # noqa: N818  (a signal, not an error)
    """A graph tensor (``tf.function`` tracing) reached a lazy op: it has no
    value to record, so TensorFlow (tnp, or the tf op itself) runs the op."""


def eager_value(value) -> np.ndarray:
    """A tf.Tensor's or tf.Variable's value; a graph tensor raises ``Traced``."""
    try:
        return value.numpy()
    except (AttributeError, NotImplementedError):
        raise Traced(f"{value!r} has no value (tf.function traces it): lazytensor.tf "
                     f"records the ops of eager values only") from None


def host_value(value) -> np.ndarray:
    """A tensor, lazy array or host value as a numpy array (read back)."""
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


@functools.cache
def as_tf_dtype(dtype: np.dtype):
    """``np.dtype`` -> ``tf.DType`` (what ``x.dtype`` returns, as on a tf.Tensor)."""
    return tf().as_dtype(dtype)


def prefer_float32() -> bool:
    """``tnp.experimental_enable_numpy_behavior(prefer_float32=True)`` is on.
    Read from tnp's own flag (a private module attribute: tnp exposes no
    getter), only when tnp is loaded; it is off otherwise."""
    module = sys.modules.get(_NP_DTYPES)
    return bool(module and module.is_prefer_float32())


def numpy_behavior() -> bool:
    """Whether tf.Tensor operators follow numpy promotion (tnp's numpy
    behaviour); when off they are TensorFlow's strict same-dtype operators."""
    check = _PROMOTION_CHECK[0]
    if check is None:
        module = sys.modules.get(_OPS)
        if module is None:
            return False
        check = _PROMOTION_CHECK[0] = module.is_numpy_style_type_promotion
    return check()


_PROMOTION_CHECK: list = [None]  # TensorFlow's own test, once TensorFlow is loaded


def default_float() -> np.dtype:
    """The dtype of a Python float / float list under tnp's current mode."""
    return dt.float32 if prefer_float32() else dt.float64


# core error -> the TensorFlow error class tnp raises for it, by default;
# a function whose tnp implementation raises otherwise names its own table
INVALID_ARGUMENT = "InvalidArgumentError"
ERRORS = {AxisError: INVALID_ARGUMENT, ShapeError: INVALID_ARGUMENT, DTypeError: INVALID_ARGUMENT}


def nonempty_arg_axis(kind: str, shape: tuple[int, ...], axis: int) -> None:
    """TensorFlow's ArgMax/ArgMin refuse an empty axis (InvalidArgumentError)."""
    if -len(shape) <= axis < len(shape) and shape[axis] == 0:
        op = "ArgMax" if kind == "argmax" else "ArgMin"
        raise tf().errors.InvalidArgumentError(
            None, None, f"Reduction axis {axis} is empty in shape "
                        f"[{','.join(map(str, shape))}] [Op:{op}]")


def raise_as_tf(error: Exception, table: dict | None = None) -> NoReturn:
    """Re-raise a core error as the type tnp raises for the same input."""
    table = ERRORS if table is None else {**ERRORS, **table}
    for core_type in type(error).__mro__:
        target = table.get(core_type)
        if target is not None:
            break
    else:
        raise error
    if isinstance(target, str):  # a tf.errors class, by name
        raise getattr(tf().errors, target)(None, None, str(error)) from error
    raise target(str(error)) from error


__all__ = [
    "CoreError", "ERRORS", "NON_NUMERIC", "NonNumeric", "Traced", "as_np_dtype", "as_tf_dtype",
    "default_float", "holds_numbers", "indexed_slices", "is_tf_value", "numpy_behavior",
    "prefer_float32", "raise_as_tf", "tf", "tnp",
]
