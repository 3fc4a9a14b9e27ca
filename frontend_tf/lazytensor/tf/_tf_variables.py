"""The TensorFlow side of a lazytensor ``GradientTape``: tf.Variables
(Keras weights) and TensorFlow APIs that run eagerly on lazy arrays.

Keras layers and tf.Variables compute in TensorFlow (a variable's read,
``tf.cast(layer.kernel, ...)``, ``var[0]``), and so does an eager fallback
(an API no table lowers: its lazy arguments are converted); their results
enter the lazy graph as data. While a lazytensor tape records, it runs a
TensorFlow tape of its own (persistent; watching accessed variables as the
lazytensor tape does). A lazy array converted to TensorFlow is an *exit
point*: the TensorFlow tape watches the converted tensor. A floating
TensorFlow tensor that enters the lazy graph once that tape has watched
something is a *leaf*: an alias node the lazytensor tape differentiates.
``gradient`` then alternates (``bridged``): lazy gradients of the leaves
are the TensorFlow tape's output gradients, TensorFlow's gradients of the
exit points are the next lazy step's. Gradients with respect to TensorFlow
variables are TensorFlow's own tensors (``tf.IndexedSlices`` for gathered
rows), as ``tf.GradientTape`` gives them; each crossing reads values back.
"""

from __future__ import annotations

import functools
import sys

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.reduce import reduction
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.core.runtime import get_runtime
from lazytensor.tf import _tf


def tf_variable(value):
    """The tf.Variable that ``value`` is or wraps (a Keras variable's
    ``value``), or None."""
    if "tensorflow" not in sys.modules:
        return None
    tf = _tf.tf()
    if isinstance(value, tf.Variable):
        return value
    return value.value if _tf.keras_variable(value) else None


def tf_source(value, tf_tape):
    """The TensorFlow-side source that ``value`` is for a gradient: a
    tf.Variable (``tf_variable``), or a tf.Tensor when TensorFlow's tape
    ``tf_tape`` was asked to watch tensors (TensorFlow's own
    ``tf.GradientTape``: ``_tf_tape``); None otherwise."""
    variable = tf_variable(value)
    if variable is not None or not getattr(tf_tape, "watching", False):
        return variable
    return value if isinstance(value, _tf.tf().Tensor) else None


def new_tape(watch_accessed_variables: bool):
    """The TensorFlow tape a lazytensor tape runs while it records (None
    before TensorFlow is loaded: no TensorFlow value can take part then)."""
    if "tensorflow" not in sys.modules:
        return None
    tape = _tf.tf().GradientTape(persistent=True,
                                 watch_accessed_variables=watch_accessed_variables)
    tape._lazytensor_inner = True  # no lazytensor tape of its own (``_tf_tape``)
    return tape


def leaf(value, tapes: list) -> Node | None:
    """``value`` (a tf.Tensor or tf.Variable) as a leaf of the recording
    ``tapes`` (lazytensor tapes) whose TensorFlow tape has watched a
    variable, a tensor or an exit point; None when there are none (a tensor computed
    before anything was watched cannot depend on it) or it is not floating."""
    tf = _tf.tf()
    if not tf.executing_eagerly():
        return None
    tensor = tf.convert_to_tensor(value) if isinstance(value, tf.Variable) else value
    if not dt.is_inexact(_tf.as_np_dtype(tensor.dtype)):
        return None
    takers = [t for t in tapes if t._tf_tape is not None and (
        t._exits or getattr(t._tf_tape, "watching", False) or t._tf_tape.watched_variables())]
    if not takers:
        return None
    data = get_runtime().from_host(_tf.eager_value(tensor)).node
    alias = make(Op.CONVERT, (data,), data.dtype)
    for tape in takers:
        tape._leaves.append((tensor, alias))
    return alias


def exit_point(array, tensor) -> None:
    """``array`` (lazy) converted to the TensorFlow ``tensor`` while tapes
    record (an eager fallback's input, Keras converting it): their
    TensorFlow tapes watch ``tensor``, so gradients flow back through what
    TensorFlow computes from it (``bridged``)."""
    from lazytensor.tf._array import RECORDING

    if RECORDING.active is None or not dt.is_inexact(_tf.as_np_dtype(tensor.dtype)):
        return
    tapes = [t for t in RECORDING.tapes if t._tf_tape is not None]
    if tapes:
        node = array._node()
        for tape in tapes:
            tape._tf_tape.watch(tensor)
            tape._exits.append((node, tensor))


def _host_tensor(value):
    """A lazy gradient as a tf.Tensor: read back; while outer tapes record,
    an exit point of theirs (``exit_point``: second-order gradients cross
    the boundary as the first-order ones do)."""
    from lazytensor.tf._array import RECORDING

    if RECORDING.tapes:
        return _tf.tf().convert_to_tensor(value)
    return _tf.tf().constant(value.numpy())


def _entering(tensor) -> Node:
    """A TensorFlow gradient entering the lazy graph: data, or a leaf of the
    tapes that still record (``leaf``)."""
    from lazytensor.tf._array import RECORDING

    node = leaf(tensor, RECORDING.tapes) if RECORDING.active is not None else None
    return node if node is not None else get_runtime().from_host(tensor.numpy()).node


def _added(a, b):
    if a is None or b is None:
        return b if a is None else a
    return a + b


def bridged(tape, output: Node | None, wrt: list, variables: list, tf_targets: list,
            lazy_grads) -> list:
    """Gradients across the TensorFlow boundary, one per source (``wrt``:
    the lazy sources' nodes; ``variables``: tf.Variables or None). Reverse
    mode alternates: the lazy graph's gradients (``lazy_grads``) with respect
    to the lazy sources and the leaves (TensorFlow tensors that entered it),
    then TensorFlow's tape from the leaves (and TensorFlow-side targets) to
    the variables and to the exit points (lazy arrays converted to
    TensorFlow), whose gradients start the next lazy step, until no new
    gradient crosses."""
    tf = _tf.tf()
    leaves, exits = list(tape._leaves), list(tape._exits)
    tf_vars = [v for v in variables if v is not None]
    lazy_totals: list = [None] * len(wrt)
    tf_totals: list = [None] * len(tf_vars)
    objective, pairs = output, list(tf_targets)
    for _ in range(len(exits) + 2):
        if objective is not None:
            grads = lazy_grads(objective, wrt + [[alias] for _, alias in leaves])
            lazy_totals = [_added(t, g) for t, g in zip(lazy_totals, grads, strict=False)]
            pairs += [(t, _host_tensor(g)) for (t, _), g in zip(leaves, grads[len(wrt):],
                                                                strict=True) if g is not None]
        if not pairs:
            break
        found = tape._tf_tape.gradient([t for t, _ in pairs], tf_vars + [t for _, t in exits],
                                       output_gradients=[g for _, g in pairs])
        tf_totals = [_added(t, g) for t, g in zip(tf_totals, found, strict=False)]
        terms = []
        for (node, _), g in zip(exits, found[len(tf_vars):], strict=True):
            if g is not None:
                data = _entering(tf.convert_to_tensor(g))
                terms.append(_total(make(Op.MUL, (node, data))))
        objective = functools.reduce(lambda a, b: make(Op.ADD, (a, b)), terms) if terms \
            else None
        pairs = []
        if objective is None:
            break
    tf_iter = iter(tf_totals)
    return [next(tf_iter) if v is not None else g
            for g, v in zip(lazy_totals, variables, strict=True)]


def _total(node: Node) -> Node:
    return node if node.shape == () else reduction.reduce("sum", node)


def install_module_tracking() -> None:
    """``tf.Module``'s ``variables`` and ``trainable_variables`` (which Keras
    and user models read to build their update lists) also collect
    lazytensor Variables: tf.Module finds variables by
    ``isinstance(obj, tf.Variable)``, which a lazytensor Variable is not."""
    from lazytensor.tf.tape import Variable
    from tensorflow.python.module import module

    original = module._is_variable
    if getattr(original, "_lazytensor", False):
        return

    def is_variable(obj) -> bool:
        return isinstance(obj, Variable) or original(obj)

    is_variable._lazytensor = True
    module._is_variable = is_variable


def install_checkpointing() -> None:
    """lazytensor Variables become TensorFlow Trackables (a base class added
    once TensorFlow is loaded), so ``tf.train.Checkpoint``,
    ``CheckpointManager`` (of a ``tf.Module`` or a Keras model holding
    them) save a Variable's current value and restore into it, as a tf.Variable's
    (they found nothing to save in a lazytensor Variable before)."""
    from lazytensor.tf.tape import Variable
    from tensorflow.python.trackable import base

    if issubclass(Variable, base.Trackable):
        return

    class Checkpointed(base.Trackable):
        def _serialize_to_tensors(self):
            _refuse_graph(self)
            return {base.VARIABLE_VALUE_KEY: _tf.tf().constant(self.numpy())}

        def _restore_from_tensors(self, restored_tensors):
            _refuse_graph(self)
            value = restored_tensors[base.VARIABLE_VALUE_KEY]
            shape = tuple(self._h.node.shape)
            if tuple(value.shape) != shape:
                raise ValueError(f"Received incompatible tensor with shape {value.shape} when "
                                 f"attempting to restore variable with shape {shape} and name "
                                 f"{self.name}.")
            self.assign(_tf.tf().cast(value, self._h.node.dtype))

        def _copy_trackable_to_cpu(self, object_map):
            object_map.setdefault(self, Variable(self.numpy(), self.trainable))
            object_map[self].assign(self)

    Variable.__bases__ = (*Variable.__bases__, Checkpointed)


def _refuse_graph(variable) -> None:
    """A traced save or restore (``tf.saved_model.save`` traces both; so does
    a checkpoint written inside a tf.function) cannot read or write a
    lazytensor Variable: TensorFlow's graphs hold tf.Variables only."""
    if not _tf.tf().executing_eagerly():
        raise ValueError(f"the lazytensor Variable {variable.name!r} cannot be saved or restored "
                         f"by a traced TensorFlow graph (tf.saved_model.save, a checkpoint "
                         f"inside a tf.function): save it eagerly with tf.train.Checkpoint or "
                         f"tf.train.CheckpointManager, or export tf.Variable copies "
                         f"(tf.Variable(v.numpy())).")
