"""``tf.TensorArray`` holding lazy arrays (eager mode).

An eager TensorArray is a Python list of tensors: ``write`` converted a
lazy value to a ``tf.Tensor`` (materialized it, a counted fallback, once
per step of a Python loop that collects states) and ``stack`` packed the
list. Here ``write`` keeps a lazy value as it is, after TensorFlow's own
checks (index range and growth, dtype, element shape: they run on a
stand-in of the value's dtype and shape), and ``stack`` of a list that
holds lazy arrays is ``tf.stack``: lazy, in one graph with the loop.
``read``, ``gather``, ``concat`` and ``unstack`` already call TensorFlow
ops that record lazily.
"""

from __future__ import annotations

import functools


def install() -> None:
    """Patch TensorFlow's ``_EagerTensorArray`` (once)."""
    from lazytensor.tf import _tf
    from lazytensor.tf._array import ndarray
    from tensorflow.python.ops import tensor_array_ops

    cls = tensor_array_ops._EagerTensorArray  # noqa: SLF001  (eager TensorArray's class)
    if getattr(cls._write, "_lazytensor", False):
        return
    write, stack = cls._write, cls.stack
    tf = _tf.tf()

    @functools.wraps(write)
    def _write(self, index, value):
        if not isinstance(value, ndarray):
            return write(self, index, value)
        write(self, index, tf.zeros(value.shape, value.dtype))  # TensorFlow's checks
        self._tensor_array[int(index)] = value
        return None

    @functools.wraps(stack)
    def _stack(self, name=None):
        if not any(isinstance(t, ndarray) for t in self._tensor_array):
            return stack(self, name)
        return tf.stack([self._maybe_zero(i) for i in range(len(self._tensor_array))])

    _write._lazytensor = True
    cls._write, cls.stack = _write, _stack
