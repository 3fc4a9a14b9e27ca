"""``tf.math`` and TensorFlow's top-level array ops on lazy arrays (the
table ``APIS``; see ``lazytensor.tf.tf_api``)."""

from __future__ import annotations

from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.tf.tf_api._dispatch import broadcast, tensor


def _unary(op: Op):
    def impl(x, name=None):
        node = tensor(x)
        return make(op, (node,))

    return impl


def _binary(op: Op, tf_name: str):
    def impl(x, y, name=None):
        a, b = broadcast(x, y, op=tf_name)
        return make(op, (a, b))

    return impl


APIS = {
    "math.sin": _unary(Op.SIN),
    "math.add": _binary(Op.ADD, "AddV2"),
}
