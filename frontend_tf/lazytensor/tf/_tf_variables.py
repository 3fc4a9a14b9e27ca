"""TensorFlow variables (Keras weights) under a lazytensor ``GradientTape``.

Keras layers and tf.Variables compute in TensorFlow: a variable's read,
``tf.cast(layer.kernel, ...)``, ``var[0]`` run eagerly there, and their
results enter the lazy graph as data. While a lazytensor tape records, it
runs a TensorFlow tape of its own (persistent; watching accessed variables
as the lazytensor tape does), and every floating TensorFlow tensor that
enters the lazy graph once that TensorFlow tape has watched a variable
becomes a *leaf*: an alias node the lazytensor tape can differentiate.
``gradient(loss, tf_variables)`` then chains the two: the lazy graph's
gradients with respect to the leaves are the TensorFlow tape's output
gradients (``tf_tape.gradient(leaves, variables, output_gradients=...)``).
Gradients with respect to TensorFlow variables are TensorFlow's own tensors
(``tf.IndexedSlices`` for gathered rows), as ``tf.GradientTape`` gives them.
"""

from __future__ import annotations

import sys

from lazytensor.core import dtypes as dt
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


def new_tape(watch_accessed_variables: bool):
    """The TensorFlow tape a lazytensor tape runs while it records (None
    before TensorFlow is loaded: no TensorFlow value can take part then)."""
    if "tensorflow" not in sys.modules:
        return None
    return _tf.tf().GradientTape(persistent=True,
                                 watch_accessed_variables=watch_accessed_variables)


def leaf(value, tapes: list) -> Node | None:
    """``value`` (a tf.Tensor or tf.Variable) as a leaf of the recording
    ``tapes`` (lazytensor tapes) whose TensorFlow tape has watched a
    variable; None when there are none (a tensor computed before any
    variable was watched cannot depend on one) or the value is not floating."""
    tf = _tf.tf()
    if not tf.executing_eagerly():
        return None
    tensor = tf.convert_to_tensor(value) if isinstance(value, tf.Variable) else value
    if not dt.is_inexact(_tf.as_np_dtype(tensor.dtype)):
        return None
    takers = [t for t in tapes if t._tf_tape is not None and t._tf_tape.watched_variables()]
    if not takers:
        return None
    data = get_runtime().from_host(_tf.eager_value(tensor)).node
    alias = make(Op.CONVERT, (data,), data.dtype)
    for tape in takers:
        tape._leaves.append((tensor, alias))
    return alias


def chain(tf_tape, leaves: list, leaf_grads: list, variables: list, zeros: bool) -> list:
    """The variables' gradients: the TensorFlow tape's, with the lazy
    gradients of the leaves as its output gradients."""
    tf = _tf.tf()
    unconnected = tf.UnconnectedGradients.ZERO if zeros else tf.UnconnectedGradients.NONE
    pairs = [(t, g) for (t, _), g in zip(leaves, leaf_grads, strict=True) if g is not None]
    if not pairs:
        return [tf.zeros_like(v) if zeros else None for v in variables]
    return tf_tape.gradient([t for t, _ in pairs], variables,
                            output_gradients=[tf.convert_to_tensor(g) for _, g in pairs],
                            unconnected_gradients=unconnected)
