"""``tf.case``, ``tf.switch_case`` and the monotonicity checks on lazy
arrays (the table ``APIS``; see ``lazytensor.tf.tf_api``).

TensorFlow's eager ``case``/``switch_case`` require their predicates and
branch index to be ``tf.Tensor`` instances (a lazy array was a TypeError).
Choosing a branch needs the value on the host, as ``tf.cond`` does with a
lazy predicate (it calls ``bool``): the lazy predicates / index are read
back (a barrier) and TensorFlow's own function runs with them, so its
checks (``exclusive``, the default branch, out-of-range indices) are its
own; the branches themselves record lazily.

``tf.math.is_non_decreasing`` / ``is_strictly_increasing`` reshape their
input with ``tf.reshape`` (lowered: a lazy array) and then refused it as
not a ``tf.Tensor``; here they compare neighbours lazily.
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import reduction
from lazytensor.core.composite import shape as cs
from lazytensor.core.composite.creation import const
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.tf import _tf
from lazytensor.tf._array import ndarray
from lazytensor.tf.tf_api._dispatch import holds_lazy, tensor


def _eager(value):
    """A lazy array as an eager tf.Tensor (read back: a barrier)."""
    return _tf.tf().constant(value.numpy()) if isinstance(value, ndarray) else value


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    if not holds_lazy([pred_fn_pairs]):
        raise NotImplementedError("case without lazy predicates")  # not expected here
    pairs = [(_eager(pred), fn) for pred, fn in pred_fn_pairs]
    return _tf.tf().case(pairs, default=default, exclusive=exclusive, strict=strict,
                         name=name)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    return _tf.tf().switch_case(_eager(branch_index), branch_fns, default=default, name=name)


def _monotonic(op: Op, api: str):
    def impl(x, name=None):
        node = tensor(x)
        if dt.category(node.dtype) == "c":
            raise NotImplementedError(f"{api} of complex")  # TensorFlow's own error
        if dt.category(node.dtype) not in "iuf":
            raise TypeError(f"Expected x to be numeric, instead found: {x}")
        flat = cs.reshape(node, (-1,))
        n = flat.shape[0]
        if n < 2:
            return const(True, dt.bool_)
        ok = make(op, (cs.slice_axis(flat, 0, 1, n), cs.slice_axis(flat, 0, 0, n - 1)))
        return reduction.reduce("all", ok)

    impl.__name__ = api
    return impl


APIS: dict[str, object] = {
    "case": case, "switch_case": switch_case,
    "math.is_non_decreasing": _monotonic(Op.GE, "is_non_decreasing"),
    "math.is_strictly_increasing": _monotonic(Op.GT, "is_strictly_increasing"),
}

__all__ = ["APIS"]
