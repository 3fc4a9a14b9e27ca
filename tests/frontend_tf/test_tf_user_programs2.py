"""Bugs found by running more tnp user programs (see test_tf_programs.py for
the format): each case runs eagerly (tnp, tf) and lazily (lnp,
lazytensor.tf) and must give the same values, dtypes and shapes."""

from __future__ import annotations

import subprocess
import sys

import lazytensor.tf as ltf
import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp

A = np.arange(120).reshape(2, 3, 4, 5)


@pytest.mark.parametrize("key", [
    (1, slice(None), [0, 3]), (slice(None), 1, slice(None), [0, 1, 2]),
    (1, [0, 2], slice(None), [1, 3]), (None, 1, slice(None), [0, 2]), (Ellipsis, 1, [0, 2]),
    (np.array([0, 1]), slice(None), 2, np.array([3, 4])), (1, slice(None, None, -1), [0, 1]),
], ids=str)
def test_scalar_indices_apply_before_array_indices_as_tnp(key):
    # tnp: x[1, :, [0, 4]] is (4, 2) (scalars are a strided slice first); numpy gives (2, 4)
    assert_same(lnp.asarray(A)[key], tnp.asarray(A)[key], str(key))


def test_scalar_array_index_applies_first():
    got = lnp.asarray(A)[lnp.asarray(1), :, [1, 2]]
    assert_same(got, tnp.asarray(A)[tnp.asarray(1), :, [1, 2]])


def batch_jacobians(np_, t):
    x = np_.asarray(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32))
    w = t.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 5)
    with t.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np_.tanh(np_.matmul(x, w))
        q = np_.sum(x * x, axis=1)[:, None] * x
    return [tape.batch_jacobian(y, x), tape.batch_jacobian(q, x), tape.jacobian(y, w)]


def test_batch_jacobian_matches_tf():
    assert_same(batch_jacobians(lnp, ltf), batch_jacobians(tnp, tf))


def test_batch_jacobian_needs_rank_two():
    for np_, t in ((tnp, tf), (lnp, ltf)):
        x = np_.ones((3, 2))
        with t.GradientTape() as tape:
            tape.watch(x)
            y = np_.sum(x, axis=1)
        with pytest.raises(ValueError):
            tape.batch_jacobian(y, x)


def test_format_specs_read_the_value_as_tf_tensor():
    # print(f"loss {loss:.4f}") is how training loops report; f"{x}" shows the value
    for spec in (".4f", "", "8.2e"):
        want = format(tnp.asarray(1.23456, tnp.float32), spec)
        assert format(lnp.asarray(1.23456, lnp.float32), spec) == want
    assert f"{lnp.arange(3)}" == f"{tnp.arange(3)}"
    with pytest.raises(TypeError):
        format(lnp.arange(3), ".2f")


def sliced_variable_updates(np_, t):
    """``v[i].assign(x)`` (TensorFlow's sliced assignment) and the variable's
    scatter_nd_* methods write into the variable."""
    v = t.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))
    first = v[0, 1].assign(-1.0).numpy()
    v[1:, ::2].assign(np_.zeros((2, 2), dtype=np_.float32))
    v[np_.asarray(2), :].assign([5.0, 6.0, 7.0, 8.0])
    v.scatter_nd_update([[0, 0], [1, 1]], [9.0, 9.0])
    v.scatter_nd_add([[2]], np.ones((1, 4), np.float32))
    v.scatter_nd_sub([[0, 3]], [0.5])
    return [first, v.read_value(), v[1]]


def test_sliced_variable_assignment_matches_tf():
    assert_same(sliced_variable_updates(lnp, ltf), sliced_variable_updates(tnp, tf))


def traced_functions(np_):
    """tf.function around tnp code: its arguments are graph tensors there,
    which tnp (lnp: by handing the op to tnp) and TensorFlow's ops trace."""
    x = np_.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    captured = np_.ones(3, dtype=np_.float32)

    @tf.function
    def f(a):
        h = np_.tanh(np_.matmul(a, np_.transpose(a)) / 10.0)
        return np_.sum(h * 2.0, axis=1) + tf.reduce_max(a * captured) + a[0, 1]

    @tf.function
    def g(a):
        return tf.reduce_sum(tf.nn.relu(captured * a - 2.0)) + np_.mean(captured)

    return [f(x), f(x + 1.0), g(x)]


def test_tf_function_around_lazy_code_traces_as_tnp():
    assert_same(traced_functions(lnp), traced_functions(tnp))


def test_named_results_as_tensorflow():
    x = np.eye(3) + 0.1
    for f in (tf.linalg.qr, tf.linalg.lu,
              lambda a: tf.nn.max_pool_with_argmax(a[None, :, :, None], 2, 1, "VALID")):
        got, want = f(lnp.asarray(x)), f(tf.constant(x))
        assert type(got).__name__ == type(want).__name__ and got._fields == want._fields
        assert_same(list(got), list(want))


PREFER_FLOAT32 = """
import numpy as np, tensorflow.experimental.numpy as tnp, lazytensor.tf.numpy as lnp
tnp.experimental_enable_numpy_behavior(prefer_float32=True)
x = np.array([0.25, 1.3, -2.7, 0.55])
for f in (lambda n: n.asarray(x) * 0.1, lambda n: n.mod(n.asarray(x), 0.7),
          lambda n: n.asarray(x) / np.float64(0.1), lambda n: n.log2(n.abs(n.asarray(x))),
          lambda n: n.asarray(x) - [0.1, 0.2, 0.3, 0.4], lambda n: n.asarray(x, n.float32) + 0.1):
    got, want = f(lnp), f(tnp)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
print("ok")
"""


def test_prefer_float32_scalars_convert_once_to_the_result_dtype():
    # tnp converts a Python / numpy float operand straight to the promoted
    # dtype: float64 array * 0.1 is not rounded through float32 first
    proc = subprocess.run([sys.executable, "-c", PREFER_FLOAT32], capture_output=True,
                          text=True, timeout=300, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": ""})
    assert proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


STRICT_OPERATORS = """
import tensorflow as tf, lazytensor.tf.numpy as lnp
ti, li = tf.constant([1, 2, 3]), lnp.asarray([1, 2, 3], dtype=lnp.int32)
for expr in ("X * 1.5", "X - 1.5", "X / 1.5", "X < 1.5", "X == 1.5", "1.5 + X", "X + 1.5",
             "X ** 1j"):
    raised = []
    for X in (ti, li):
        try:
            eval(expr)
            raised.append(None)
        except Exception as error:
            raised.append(type(error).__name__)
    assert raised[0] == raised[1], (expr, raised)
print("ok")
"""


def test_strict_operators_raise_tensorflows_error_types():
    # without numpy behaviour, int32 tensor * 1.5 is TensorFlow's TypeError (x + 1.5:
    # InvalidArgumentError, the kernel's)
    proc = subprocess.run([sys.executable, "-c", STRICT_OPERATORS], capture_output=True,
                          text=True, timeout=300, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": ""})
    assert proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]
