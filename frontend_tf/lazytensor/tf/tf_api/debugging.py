"""``tf.debugging`` checks that return their input, on lazy arrays (the table
``APIS``; see ``lazytensor.tf.tf_api``): ``check_numerics``,
``assert_all_finite`` and ``tf.ensure_shape``.

TensorFlow's converted the lazy input (materialized it) and returned an
eager copy, so the rest of the program left the lazy graph (and a tape's
path through it). Here ``ensure_shape`` checks the static shape only (no
read) and the finiteness checks read one boolean back (a barrier, as an
assertion must look at the values); each returns its lazy input. A check
that fails runs TensorFlow's own op on the materialized value, so the
error is TensorFlow's, word for word.

The other ``tf.debugging.assert_*`` functions return no tensor: their
conversions are observations (``lazytensor.tf._tf``), not fallbacks.
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.reduce import reduction
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.tf import _tf
from lazytensor.tf._array import wrap
from lazytensor.tf.numpy._lower import to_eager
from lazytensor.tf.tf_api._dispatch import tensor


def _finite_or_tensorflows_error(x: Node, check, *args) -> Node:
    """``x`` when all of it is finite (one boolean read back); else
    TensorFlow's ``check`` on the materialized value raises its error."""
    if not dt.is_inexact(x.dtype):
        raise NotImplementedError("a finiteness check of integers")  # TensorFlow's error
    if not bool(wrap(reduction.reduce("all", make(Op.IS_FINITE, (x,)))).numpy()):
        check(to_eager(wrap(x)), *args)
    return x


def _check_numerics(tensor_, message, name=None):
    return _finite_or_tensorflows_error(tensor(tensor_), _tf.tf().debugging.check_numerics,
                                        message)


def _assert_all_finite(x, message, name=None):
    return _finite_or_tensorflows_error(tensor(x), _tf.tf().debugging.assert_all_finite,
                                        message)


def _ensure_shape(x, shape, name=None):
    node = tensor(x)
    if not _tf.tf().TensorShape(shape).is_compatible_with(node.shape):
        _tf.tf().ensure_shape(to_eager(wrap(node)), shape)  # raises TensorFlow's error
    return node


APIS = {
    "debugging.check_numerics": _check_numerics,
    "debugging.assert_all_finite": _assert_all_finite,
    "ensure_shape": _ensure_shape,
}

__all__ = ["APIS"]
