"""The lazy ``ndarray`` of ``lazytensor.tf.numpy`` and the conversions
between it and everything tnp accepts (tf.Tensor, numpy, lists, scalars).

An array holds a core ``Handle`` (its value, materialized at barriers) and,
when it was made while a ``GradientTape`` records, its *symbolic* node: a
barrier re-points the handle at device data, but gradients still need the
recorded graph, so operations inside the recording session build on the
symbolic nodes (``node_of``). Operators and numpy-behaviour methods are
attached from tables in ``lazytensor.tf.numpy._methods``.
"""

from __future__ import annotations

import sys
import threading
import weakref

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.arrays import HandleArray
from lazytensor.core.autodiff import stop_gradient as detach  # (a recorded array's node, cut)
from lazytensor.core.ir import Node
from lazytensor.core.leaves import scalar
from lazytensor.core.runtime import Handle, get_runtime
from lazytensor.tf import _tf

WEAK = (bool, int, float, complex)


class _DonationHold:
    """While a recording session keeps symbolic nodes, the runtime must not
    donate buffers: a barrier inside a tape (or between the tape and its
    ``gradient``) runs a graph whose leaves the symbolic nodes still name (a
    variable's previous value, under its pending update), and the gradient
    replays them later. The first live session pauses donation, the last
    one released restores the runtime's own setting."""

    sessions = 0
    runtime = None
    saved = True
    lock = threading.RLock()  # sessions of several threads (``give`` may run in a collection)

    @classmethod
    def take(cls) -> None:
        with cls.lock:
            if cls.sessions == 0:
                cls.runtime = get_runtime()
                cls.saved, cls.runtime.donate = cls.runtime.donate, False
            cls.sessions += 1

    @classmethod
    def give(cls) -> None:
        with cls.lock:
            cls.sessions -= 1
            if cls.sessions == 0 and cls.runtime is not None:
                cls.runtime.donate, cls.runtime = cls.saved, None


class Session:
    """One stretch of time during which at least one tape records. Arrays
    made in it keep their symbolic node (``_sym``) for its tapes; once it has
    closed and none of its tapes can compute a gradient any more, ``release``
    drops them, so that kept results (``losses.append(loss)``) do not keep
    their step's graph and buffers alive. Buffer donation pauses while a
    session lives (``_DonationHold``)."""

    __slots__ = ("arrays", "tapes", "closed", "_hold", "__weakref__")

    def __init__(self) -> None:
        self.arrays: list[weakref.ref] = []
        self.tapes: list[weakref.ref] = []
        self.closed = False
        _DonationHold.take()
        self._hold = weakref.finalize(self, _DonationHold.give)  # runs once: release or GC

    def keep(self, array: ndarray) -> None:
        self.arrays.append(weakref.ref(array))

    def release_if_done(self) -> None:
        tapes = [t() for t in self.tapes]
        if not self.closed or any(t is not None and t.may_differentiate() for t in tapes):
            return
        for ref in self.arrays:
            array = ref()
            if array is not None and array._session is self:
                array._sym = array._session = None
        self.arrays.clear()
        self._hold()


class Recording(threading.local):
    """Which tapes record now, in this thread (TensorFlow's tapes are per
    thread): ``active`` is the current session (None when no tape records);
    ``aliases`` maps a variable to the node its reads give in the session."""

    def __init__(self) -> None:
        self.tapes: list = []
        self.active: Session | None = None
        self.aliases: dict = {}


RECORDING = Recording()


class ndarray(HandleArray):  # noqa: N801  (tnp's name)
    """A lazy tf.experimental.numpy array with tf.Tensor's numpy-behaviour
    methods and operators; ``numpy()`` / ``tf.convert_to_tensor`` run it."""

    # _keras_logits: Keras' softmax/sigmoid store their input on the output
    # (its losses then compute from the logits), as on a tf.Tensor
    __slots__ = ("_h", "_sym", "_session", "_keras_logits", "__weakref__")
    __array_priority__ = 100.0

    def _node(self) -> Node:
        """The node that operations build on (see the module docstring).
        Outside its recording session (after the tape, in ``stop_recording``,
        under a later tape) a recorded array is a constant to the tapes, as
        in TensorFlow: its node is detached from the recorded graph."""
        session = self._session
        if session is None:
            return self._h.node
        if session is RECORDING.active:
            return self._sym
        return detach(self._h.node)

    # ------------------------------------------------------------ properties
    @property
    def shape(self):
        """``tf.TensorShape``, as on a tf.Tensor."""
        return _tf.tf().TensorShape(self._h.node.shape)

    def get_shape(self):
        return self.shape

    def set_shape(self, shape) -> None:
        """tf.Tensor's: a check only (an eager shape is fully known);
        ValueError when ``shape`` does not fit."""
        tf = _tf.tf()
        if not tf.TensorShape(shape).is_compatible_with(self._h.node.shape):
            raise ValueError(f"Tensor's shape {self._h.node.shape} is not compatible with "
                             f"supplied shape {tuple(tf.TensorShape(shape).as_list())}.")

    @property
    def size(self):
        """``np.prod`` of the shape, as tnp's ``ndarray.size`` (numpy's int64;
        float64 1.0 for a 0-d array, numpy's empty product)."""
        return np.prod(list(self._h.node.shape))

    @property
    def dtype(self):
        """``tf.DType``, as on a tf.Tensor."""
        return _tf.as_tf_dtype(self._h.node.dtype)

    @property
    def data(self) -> ndarray:
        return self

    # ---------------------------------------------------------- observation
    def numpy(self) -> np.ndarray:
        """A host copy of the value (runs what is pending)."""
        return self._h.numpy()

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        host = self._h.numpy()
        return host if dtype is None else host.astype(dtype, copy=False)

    def __tf_tensor__(self, dtype=None, name=None):
        """TensorFlow's conversion protocol: ``tf.convert_to_tensor(x)`` and
        every TF op accept a lazy array (it materializes). A TensorFlow API
        that no table lowers converting it is an eager fallback: counted in
        the metrics under that API's name and warned once."""
        return self._to_tf(dtype, name, sys._getframe(1))

    def _to_tf(self, dtype, name, frame):
        """``__tf_tensor__`` called from ``frame``."""
        tf = _tf.tf()
        if _tf.keras_shape_inference():  # shapes only: nothing to compute or count
            node = self._h.node
            return tf.compat.v1.placeholder(_tf.as_tf_dtype(node.dtype), node.shape, name)
        api = _tf.unlowered_caller(frame, self)
        if api is not None:
            from lazytensor.tf.numpy._lower import note_fallback

            note_fallback(f"tf {api}", "is not lowered: TensorFlow runs it eagerly")
        tensor = tf.constant(self._h.numpy(), name=name)
        if dtype is not None and not tf.as_dtype(dtype).is_compatible_with(tensor.dtype):
            # a tf.Tensor's conversion never casts (tf.Variable.assign of a
            # float64 value to a float32 variable, int64 partitions...)
            raise ValueError(f"Tensor conversion requested dtype {tf.as_dtype(dtype).name} for "
                             f"Tensor with dtype {tensor.dtype.name}: {tensor!r}")
        if RECORDING.tapes:
            from lazytensor.tf import _tf_variables

            _tf_variables.exit_point(self, tensor)
        return tensor

    def is_tensor_like(self) -> bool:
        """TensorFlow's tensor-like protocol (``tensor_util.IsTensorLike``, as
        WeakTensor uses it): ``tf.is_tensor(x)`` is True for a lazy array as
        for a tf.Tensor, and TensorFlow's ops take its dtype as a tensor's
        (``tf.math.divide(2, x)`` converts 2 to x's dtype)."""
        return True

    def __repr__(self) -> str:
        node = self._h.node
        return (f"<lazytensor.tf.Tensor: shape={node.shape}, dtype={node.dtype.name}, "
                f"numpy={self.numpy()!r}>")

    def __str__(self) -> str:
        return f"lazytensor.tf.Tensor({self.numpy()}, shape={self._h.node.shape}, " \
               f"dtype={self._h.node.dtype.name})"

    def __bool__(self) -> bool:
        return bool(self.numpy())

    def __index__(self) -> int:
        if not dt.is_int(self._h.node.dtype) or self._h.node.shape:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.numpy())

    def __len__(self) -> int:
        shape = self._h.node.shape
        if not shape:
            raise TypeError("len is not well defined for a rank-0 Tensor")
        return shape[0]

    def __iter__(self):
        shape = self._h.node.shape
        if not shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(shape[0]))

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self) -> Reference:
        """A hashable reference to this array (``x.ref().deref() is x``), the
        dictionary / set key tf.Tensor offers since tensors are unhashable."""
        return Reference(self)

    experimental_ref = ref

    def __copy__(self) -> ndarray:
        return self

    def __deepcopy__(self, memo) -> ndarray:
        return self


class Reference:
    """tf.Tensor.ref()'s object: hashed and compared by the array's identity."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped: ndarray) -> None:
        self._wrapped = wrapped

    def deref(self) -> ndarray:
        return self._wrapped

    def __hash__(self) -> int:
        return id(self._wrapped)

    def __eq__(self, other) -> bool:
        return isinstance(other, Reference) and self._wrapped is other._wrapped

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._wrapped!r}>"


_new = object.__new__


def wrap(node: Node, cls: type = ndarray) -> ndarray:
    """A fresh lazy array (a ``cls``) holding ``node`` (symbolic too, while recording)."""
    out = _new(cls)
    out._h = Handle(node)
    session = RECORDING.active
    out._session = session
    if session is None:
        out._sym = None
    else:
        out._sym = node
        session.keep(out)
    return out


def from_host(value, dtype: np.dtype | None = None) -> ndarray:
    """Device data copied from a host value (a parameter, never a constant)."""
    out = _new(ndarray)
    out._h = get_runtime().from_host(np.asarray(value, dtype=dtype))
    out._session = out._sym = None
    return out


def _host_dtype(value, target: np.dtype | None = None) -> np.dtype:
    """The dtype tnp gives host data: numpy's, with Python floats (and numpy
    float scalars, which are floats too) float32 under prefer_float32. Real
    values bound for a float ``target`` are converted to it at once, as tnp
    does (0.1 into float64 is not rounded through float32 first)."""
    if target is not None and target.kind in "fc" and np.asarray(value).dtype.kind in "biuf":
        return target
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in _tf.NON_NUMERIC:
        raise _tf.NonNumeric(
            f"Cannot convert {value!r} to a lazytensor.tf array (dtype {value.dtype})")
    if isinstance(value, np.ndarray) or (
            isinstance(value, np.generic) and not isinstance(value, (float, complex))):
        return value.dtype
    dtype = np.asarray(value).dtype
    if dtype.kind not in "biufc":
        raise _tf.NonNumeric(f"Cannot convert {value!r} to a lazytensor.tf array (dtype {dtype})")
    if _tf.prefer_float32():
        return {dt.float64: dt.float32, dt.complex128: dt.complex64}.get(dtype, dtype)
    return dtype


def lift(value, dtype: np.dtype | None = None) -> Node:
    """Anything ``tnp.asarray`` accepts, as a node (of ``dtype`` if given)."""
    if isinstance(value, ndarray):
        node = value._node()
    elif isinstance(value, Node):
        node = value
    elif type(value) in WEAK or isinstance(value, np.generic):
        host_dtype = _host_dtype(value, dtype)
        node = scalar(np.asarray(value, host_dtype).item(), host_dtype)
    elif _tf.is_tf_value(value) or _tf.keras_variable(value):
        node = tf_value_node(value)
    elif _tf.indexed_slices(value):
        node = _dense_of_slices(value)
    elif isinstance(value, (list, tuple)) and _holds_arrays(value):
        return _stack(weak_joined(value), dtype)
    else:
        node = get_runtime().from_host(np.asarray(value, _host_dtype(value, dtype))).node
    if dtype is not None and node.dtype != dtype:
        from lazytensor.core.composite.elementwise.apply import convert

        node = convert(node, dtype)
    return node


def _dense_of_slices(value) -> Node:
    """A tf.IndexedSlices as its dense tensor: the value rows summed into the
    rows that ``indices`` name (its values may be lazy arrays)."""
    from lazytensor.core.composite.nn import functional as nn

    if value.dense_shape is None:
        raise ValueError("Tensor conversion requested for IndexedSlices without dense_shape")
    rows = int(np.asarray(_tf.host_value(value.dense_shape)).ravel()[0])
    return nn.segment_reduce(lift(value.values), lift(value.indices), rows)


def tf_value_node(value) -> Node:
    """A tf.Tensor's or tf.Variable's value as a node; while a lazytensor
    tape records, a leaf that its gradient chains to TensorFlow's tape
    (``_tf_variables``: gradients with respect to tf.Variables, Keras
    weights)."""
    if _tf.keras_variable(value):
        value = value.value  # its tf.Variable
    if RECORDING.active is not None and RECORDING.tapes:
        from lazytensor.tf import _tf_variables

        node = _tf_variables.leaf(value, RECORDING.tapes)
        if node is not None:
            return node
    if not _tf.holds_numbers(value):
        raise _tf.NonNumeric(f"Cannot convert a {value.dtype.name} tensor to a lazytensor.tf array")
    return get_runtime().from_host(_tf.eager_value(value)).node


def _holds_arrays(values) -> bool:
    return any(isinstance(v, ndarray) or _tf.is_tf_value(v)
               or (isinstance(v, (list, tuple)) and _holds_arrays(v)) for v in values)


def _stack(nodes: list[Node], dtype: np.dtype | None) -> Node:
    from lazytensor.core.composite.elementwise.promotion import TNP
    from lazytensor.core.composite.movement import shape as core_shape

    return core_shape.stack(nodes, 0, dtype, TNP)


def operand(value):
    """An elementwise operand: a node (strong), or a Python scalar that stays
    weak; under prefer_float32 Python floats are strong float32, as in tnp."""
    if isinstance(value, ndarray):
        return value._node()
    kind = type(value)
    if kind is Node:
        return value
    if kind is int or kind is bool:
        return value
    if (kind is float or kind is complex) and not _tf.prefer_float32():
        return value
    return lift(value)


_SCALAR_KINDS = (bool, int, float, complex)  # lowest kind first


def weak_stand_in(value):
    """The Python scalar a list/tuple of Python scalars promotes as, else
    None. tnp's ``result_type`` flattens lists into their elements, which are
    weak: ``float32 array * [2.0, 0.5]`` stays float32, ``int8 array + [1, 2]``
    stays int8 (an array of the list would be a strong int64/float64)."""
    if type(value) is not list and type(value) is not tuple:
        return None
    best, pending = -1, [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is list or kind is tuple:
            pending.extend(item)
        elif kind in _SCALAR_KINDS:
            best = max(best, _SCALAR_KINDS.index(kind))
        else:
            return None
    return None if best < 0 else _SCALAR_KINDS[best](0)


def weak_joined(values) -> list[Node]:
    """Values to be joined (stacked, concatenated) as nodes: Python scalars
    and lists of them among arrays are weak, as in tnp's ``result_type``
    (``asarray([float32 array, 1.0])`` is float32), so they are lifted at the
    dtype the others promote to."""
    stand_ins = [v if type(v) in WEAK else weak_stand_in(v) for v in values]
    if all(s is None for s in stand_ins):
        return [lift(v) for v in values]
    kinds = [lift(v) if s is None else operand(s) for v, s in zip(values, stand_ins, strict=True)]
    from lazytensor.core.composite.elementwise.apply import promote
    from lazytensor.core.composite.elementwise.promotion import TNP

    dtype = promote(TNP, *kinds)
    return [k if s is None else lift(v, dtype)
            for k, s, v in zip(kinds, stand_ins, values, strict=True)]


def handle_of(array: ndarray) -> Handle:
    """The core storage handle behind a lazy array (for debugging tools such
    as ``lazytensor.core.debug``)."""
    if not isinstance(array, ndarray):
        raise TypeError(f"handle_of needs a lazytensor.tf array, got {type(array).__name__}")
    return array._h


def node_of(value) -> Node:
    """``value``'s node when it is a lazy array, else ``lift(value)``."""
    return value._node() if isinstance(value, ndarray) else lift(value)
