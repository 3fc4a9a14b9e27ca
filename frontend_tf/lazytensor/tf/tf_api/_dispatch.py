"""The dispatch glue behind ``lazytensor.tf.tf_api``: registering lazy arrays
with TensorFlow's type-based dispatch, and TensorFlow's (not tnp's) rules
for turning arguments into core nodes.

TensorFlow's rules differ from tnp's: Python values become int32 / float32
(not int64 / float64), and an op's inputs must agree in dtype. A value that
is not a tensor takes the dtype of the op's tensors when it fits (``x + 2``
on float32 is float32; see ``operands`` for which value gives the hint and
when a misfit is a TypeError); two tensors of different dtypes are an
error. tnp's numpy behaviour changes tf.Tensor's operators, not these ops.

An implementation raises NotImplementedError for argument combinations it
does not lower: ``target`` then runs the API eagerly in TensorFlow on
materialized inputs, warned once and counted (``eager``).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import itertools
import sys
import typing
from collections.abc import Callable

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.reduce import axes as caxes
from lazytensor.core.ir import Node
from lazytensor.core.leaves import scalar
from lazytensor.core.registry import CoreError, DTypeError
from lazytensor.core.runtime import get_runtime
from lazytensor.tf import _tf
from lazytensor.tf._array import RECORDING, ndarray, tf_value_node
from lazytensor.tf.numpy._lower import box, from_eager, note_fallback, to_eager

_INSTALLED: list[bool] = []

# TensorFlow's dtypes for Python values (numpy arrays keep theirs)
_PYTHON_DTYPES = {dt.int64: dt.int32, dt.float64: dt.float32}


def resolve(path: str):
    """``"nn.softmax"`` -> ``tf.nn.softmax``."""
    return functools.reduce(getattr, path.split("."), _tf.tf())


def install(apis: dict[str, Callable]) -> None:
    """Register ``ndarray`` as dispatchable and every API in ``apis``: each
    parameter but ``name`` may carry a lazy array (alone or in a list)."""
    if _INSTALLED:
        return
    _INSTALLED.append(True)
    from tensorflow.python.util import dispatch  # TensorFlow's registration hook

    tf = _tf.tf()
    dispatch.register_dispatchable_type(ndarray)
    lazy = typing.Union[ndarray, typing.List[typing.Union[ndarray, object]]]  # noqa: UP006,UP007  (TF reads typing forms)
    seen: dict[int, str] = {}
    for path, impl in apis.items():
        api = resolve(path)
        if id(api) in seen:  # aliases (tf.add is tf.math.add): one table entry each
            raise ValueError(f"tf.{path} is tf.{seen[id(api)]}: list it once")
        seen[id(api)] = path
        if path in _NESTED or not hasattr(api, dispatch.TYPE_BASED_DISPATCH_ATTR):
            _wrap_undispatched(path, api, target(path, impl))
            continue
        params = [p for p in inspect.signature(api).parameters if p != "name"]
        signatures = [{p: lazy} for p in params]
        tf.experimental.dispatch_for_api(api, *signatures)(target(path, impl))
    # lists holding lazy arrays (``[tf.shape(x)[0], 2]`` as a shape): before
    # TensorFlow's own packing of lists of tensors (priority 99)
    tf.register_tensor_conversion_function((list, tuple), _convert_list, priority=98)
    from lazytensor.tf import _function, _tensor_array, _tf_tape, _tf_variables

    _function.install()  # tf.function called with lazy arrays runs their Python code
    _tensor_array.install()  # an eager tf.TensorArray keeps the lazy arrays written to it
    _tf_tape.install()  # tf.GradientTape differentiates lazy arrays
    _tf_variables.install_module_tracking()  # tf.Module.trainable_variables finds ours
    _tf_variables.install_checkpointing()  # tf.train.Checkpoint saves ours


# APIs whose lazy arguments sit in tuples inside a list (tf.case's
# (pred, fn) pairs), where TensorFlow's type-based dispatch does not look
_NESTED = frozenset({"case"})

# the namespaces searched for the other names of an API that TensorFlow
# exports without dispatch (tf.einsum is tf.linalg.einsum)
_NAMESPACES = ("", "linalg", "math", "signal", "image", "nn")


def _wrap_undispatched(path: str, api: Callable, fn: Callable) -> None:
    """Give ``tf.<path>`` the dispatch TensorFlow's export lost: its public
    name (and the aliases of the same function) becomes a wrapper that runs
    ``fn`` when an argument holds a lazy array, else TensorFlow's ``api``.

    ``tf.linalg.slogdet`` and ``tf.signal.rfft``/``irfft``... are exported
    as the undecorated functions (TensorFlow decorates a copy with
    ``add_dispatch_support`` and drops it), and ``tf.einsum`` takes
    ``*inputs``, which TensorFlow's type-based dispatch does not support;
    without this, lazy arrays reach them converted (materialized) and come
    back as eager tensors. Names imported before ``install`` keep the
    original function."""

    @functools.wraps(api)
    def with_dispatch(*args, **kwargs):
        if holds_lazy(args) or holds_lazy(kwargs.values()):
            result = fn(*args, **kwargs)
            if result is not NotImplemented:
                return result
        return api(*args, **kwargs)

    name = path.rsplit(".", 1)[-1]
    # ``import tensorflow.compat.v2 as tf`` too: imported here, so that the
    # program's import finds this module object (loaded later, it is another)
    roots = (_tf.tf(), importlib.import_module("tensorflow.compat.v2"))
    for root, space in itertools.product(roots, _NAMESPACES):
        module = functools.reduce(getattr, space.split("."), root) if space else root
        found = getattr(module, name, None)  # compat.v2's may be another decorator of it
        if found is api or (callable(found) and inspect.unwrap(found) is inspect.unwrap(api)):
            setattr(module, name, with_dispatch)
    if resolve(path) is not with_dispatch:
        raise ValueError(f"tf.{path} is not in the namespaces {_NAMESPACES}")


def holds_lazy(value) -> bool:
    return any(isinstance(v, ndarray) or (isinstance(v, (list, tuple)) and holds_lazy(v))
               for v in value)


def _convert_list(value, dtype=None, name=None, as_ref=False):
    """A list or tuple with lazy arrays in it, for any TensorFlow API that
    converts its arguments: the lazy arrays as eager tensors (materialized),
    then TensorFlow's packing. Without this, TensorFlow's C converter takes a
    lazy array for a sequence and fails on a 0-d one (``tf.random.normal([n,
    2])``: "len is not well defined")."""
    if as_ref or not holds_lazy(value):
        return NotImplemented
    return _tf.tf().convert_to_tensor(to_eager(value), dtype=dtype, name=name)


def target(path: str, impl: Callable) -> Callable:
    """The dispatch target for ``tf.<path>``: ``impl``'s nodes as lazy arrays,
    core errors as TensorFlow's. An argument combination that ``impl`` does
    not lower (it raises NotImplementedError) runs eagerly in TensorFlow."""

    def fn(*args, **kwargs):
        if _taped_by_tensorflow(args, kwargs):
            return NotImplemented  # TensorFlow's own op: it converts the lazy arrays
        try:
            return box(impl(*args, **kwargs))
        except CoreError as error:
            _tf.raise_as_tf(error)
        except NotImplementedError:
            return eager(path, args, kwargs)
        except _tf.Traced:
            return NotImplemented  # a graph tensor (tf.function): TensorFlow's own op

    fn.__name__ = fn.__qualname__ = path.rsplit(".", 1)[-1]
    fn.__module__ = f"lazytensor.tf.tf_api ({path})"
    return fn


def _taped_by_tensorflow(args: tuple, kwargs: dict) -> bool:
    """Whether a real ``tf.GradientTape`` records and a TensorFlow tensor or
    variable takes part: TensorFlow must then run the op itself, or its tape
    would not see it (lazy arrays enter it as constants, as before)."""
    if RECORDING.tapes:  # a lazytensor tape records: it bridges TensorFlow's values
        return False
    if "tensorflow.python.eager.record" in sys.modules:
        from tensorflow.python.eager import record

        if record.could_possibly_record():
            values = [*args, *kwargs.values()]
            values += [v for vs in values if isinstance(vs, (list, tuple)) for v in vs]
            return any(_tf.is_tf_value(v) for v in values)
    return False


def eager(path: str, args: tuple, kwargs: dict):
    """``tf.<path>`` run by TensorFlow on materialized inputs (warned once,
    counted in the metrics as ``tf.<path>``); its tensors come back lazy."""
    note_fallback(f"tf.{path}", "runs eagerly in TensorFlow for these arguments")
    return from_eager(resolve(path)(*to_eager(args), **to_eager(kwargs)))


# ------------------------------------------------------------ conversions

def is_tensor(value) -> bool:
    """A lazy array or a TensorFlow tensor (a value with its own dtype)."""
    return isinstance(value, ndarray) or _tf.is_tf_value(value) or _tf.keras_variable(value)


def natural_dtype(value) -> np.dtype:
    """The dtype ``tf.convert_to_tensor(value)`` gives, without a hint."""
    if isinstance(value, ndarray):
        return value._h.node.dtype
    if _tf.is_tf_value(value) or _tf.keras_variable(value):
        return _tf.as_np_dtype(value.dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype
    dtype = np.asarray(value).dtype
    if dtype.kind not in "biufc":
        raise TypeError(f"Cannot convert {value!r} to a tensor (dtype {dtype})")
    return _PYTHON_DTYPES.get(dtype, dtype)


def _fits(value, dtype: np.dtype) -> bool:
    """Whether TensorFlow converts the non-tensor ``value`` to ``dtype``:
    numpy values always (they are cast), Python values of the same kind or
    a lower one (a bool or an int into a float tensor, not a float into an
    int tensor, nothing but a bool into a bool tensor)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return True
    kinds = "biufc"
    source = np.asarray(value).dtype.kind
    target = dtype.kind
    if source == target or (source in "iu" and target in "iu"):
        return True
    return target != "b" and kinds.index(source) < kinds.index(target)


def tensor(value, dtype: np.dtype | None = None) -> Node:
    """``value`` as a node: a lazy array's own node, a tf.Tensor's data, or a
    Python / numpy value converted to ``dtype`` (TensorFlow's dtype hint)
    when it fits, else to its natural TensorFlow dtype."""
    if isinstance(value, ndarray):
        return value._node()
    if isinstance(value, Node):
        return value
    if _tf.is_tf_value(value) or _tf.keras_variable(value):
        return tf_value_node(value)
    target = dtype if dtype is not None and _fits(value, dtype) else natural_dtype(value)
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return scalar(np.asarray(value).astype(target).item(), target)
    return get_runtime().from_host(np.asarray(value, dtype=target)).node


def operands(*values, op: str = "op", first: bool = False, strict: bool = False) -> list[Node]:
    """The inputs of one TensorFlow op as nodes of one dtype; tensors that
    disagree raise TensorFlow's error (as eager TensorFlow does).

    The dtype hint for the non-tensors is the first tensor's dtype (TF's
    generated ops), or with ``first`` the first value's own dtype (APIs that
    convert x before y: ``tf.math.add(1, float_tensor)`` fails, ``tf.concat``).
    A non-tensor that does not fit the hint keeps its own dtype (and the
    mismatch is an InvalidArgumentError); with ``strict`` it raises
    TensorFlow's conversion ``TypeError`` instead (most ops:
    ``tf.math.multiply(int_tensor, 1.5)``)."""
    if first:
        hint = natural_dtype(values[0])
    else:
        hint = next((natural_dtype(v) for v in values if is_tensor(v)), None)
    if strict and hint is not None:
        for v in values:
            if not is_tensor(v) and not _fits(v, hint):
                raise TypeError(f"Cannot convert {v!r} to EagerTensor of dtype {hint.name}")
    nodes = [tensor(v, hint) for v in values]
    first_dtype = nodes[0].dtype
    for i, node in enumerate(nodes[1:], 1):
        if node.dtype != first_dtype:
            raise DTypeError(f"cannot compute {op} as input #{i}(zero-based) was expected to "
                             f"be a {first_dtype.name} tensor but is a {node.dtype.name} tensor")
    return nodes


def broadcast(*values, op: str = "op", first: bool = False, strict: bool = False) -> list[Node]:
    """``operands`` broadcast to one shape (TensorFlow's binary ops)."""
    nodes = operands(*values, op=op, first=first, strict=strict)
    return ew.coerce(nodes, nodes[0].dtype)


def dtype_arg(dtype) -> np.dtype | None:
    """A ``dtype=`` argument (tf.DType, numpy dtype, string) as np.dtype."""
    return _tf.as_np_dtype(dtype)


def host_int(value):
    """An ``axis=``-like argument as Python ints: tensors (lazy arrays too)
    are read to the host, as TensorFlow reads them."""
    if value is None or isinstance(value, int):
        return value
    if is_tensor(value) or isinstance(value, (np.ndarray, np.generic)):
        host = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        return int(host) if host.ndim == 0 else tuple(int(v) for v in host.ravel())
    if isinstance(value, (list, tuple)):
        return tuple(host_int(v) for v in value)
    return int(value)


def axes(axis, ndim: int) -> tuple[int, ...] | None:
    """A reduction's ``axis=`` (int, list, tensor or None) as normalized axes."""
    axis = host_int(axis)
    return None if axis is None else caxes.normalize_axes(axis, ndim)


def check(node: Node, kinds: str, api: str) -> Node:
    """``node`` when its dtype category (``dt.category``) is in ``kinds``, the
    kernel's type list; else TensorFlow's InvalidArgumentError (as a core
    DTypeError): ``tf.math.sin`` of int32."""
    if dt.category(node.dtype) not in kinds:
        raise DTypeError(f"Value for attr 'T' of {node.dtype.name} is not in the list of "
                         f"allowed values for {api}")
    return node


def is_float(node: Node) -> bool:
    return dt.is_inexact(node.dtype)
