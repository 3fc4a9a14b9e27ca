"""The glue of ``lazytensor.tf.tf_api`` (TensorFlow's own ops on lazy
arrays) and the debugging tools on tf arrays; the ops themselves are tested
per table in test_tf_api_math.py, test_tf_api_nn.py, test_tf_api_linalg.py."""

from __future__ import annotations

import subprocess
import sys

import lazytensor.tf as ltf
import lazytensor.tf.numpy as lnp
import numpy as np
import pytest
import tf_helpers  # noqa: F401  (numpy behaviour on, as in every tf test)
from lazytensor.core import debug, metrics
from lazytensor.tf import tf_api
from lazytensor.tf.tf_api import _dispatch

ORDERS = {
    "tensorflow first": "import tensorflow as tf; import lazytensor.tf.numpy as lnp",
    "lazytensor first": "import lazytensor.tf.numpy as lnp; import tensorflow as tf",
}


@pytest.mark.parametrize("imports", list(ORDERS.values()), ids=list(ORDERS))
def test_tf_ops_take_lazy_arrays_whatever_the_import_order(imports):
    """The very first TensorFlow op on a lazy array records lazily, whether
    TensorFlow was imported before or after the frontend."""
    code = (f"{imports}; x = lnp.ones(3, dtype=lnp.float32); y = tf.math.sin(x); "
            "print(type(y).__module__, y.dtype.name, float(y[0]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": ""})
    assert proc.returncode == 0, proc.stderr[-2000:]
    module, dtype, value = proc.stdout.split()
    assert module == "lazytensor.tf._array" and dtype == "float32"
    assert float(value) == pytest.approx(np.sin(1.0), rel=1e-6)


def test_every_table_entry_is_one_distinct_tensorflow_api():
    """Aliases (tf.add is tf.math.add) may be listed once only: TensorFlow
    refuses two dispatch targets for one API."""
    apis = tf_api.tables()
    resolved = {}
    for path in apis:
        api = _dispatch.resolve(path)
        assert callable(api), path
        assert id(api) not in resolved, f"tf.{path} is tf.{resolved.get(id(api))}"
        resolved[id(api)] = path


def test_operands_follow_tensorflow_dtype_rules():
    """Non-tensors take the tensors' dtype when they fit (else TensorFlow's
    int32/float32); tensors of different dtypes are an error."""
    from lazytensor.core.registry import DTypeError

    x = lnp.asarray(np.array([1.0, 2.0], np.float32))
    assert [n.dtype for n in _dispatch.operands(x, 2)] == [np.float32, np.float32]
    assert [n.dtype for n in _dispatch.operands(2, x)] == [np.float32, np.float32]
    assert [n.dtype for n in _dispatch.operands([1, 2], [3, 4])] == [np.int32, np.int32]
    assert _dispatch.operands(np.float64(1.5), x)[0].dtype == np.float32
    with pytest.raises(DTypeError, match="input #1"):
        _dispatch.operands(3, 2.5)
    i = lnp.asarray(np.array([1, 2], np.int32))
    with pytest.raises(DTypeError, match="expected to be a int32 tensor but is a float32"):
        _dispatch.operands(i, x)
    with pytest.raises(DTypeError):
        _dispatch.operands(i, 2.5)  # a float does not fit an int tensor


def test_axis_arguments_are_read_from_tensors():
    assert _dispatch.host_int(lnp.asarray(1)) == 1
    assert _dispatch.host_int(lnp.asarray([0, 2])) == (0, 2)
    assert _dispatch.host_int([np.int64(1), 2]) == (1, 2)
    assert _dispatch.host_int(None) is None


def _program():
    x = lnp.asarray(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    return lnp.sum(lnp.tanh(x * 2.0), axis=0)


def test_debug_tools_take_tf_arrays():
    """``lazytensor.core.debug`` reads a pending tnp graph: text, graphviz,
    StableHLO, and a structural key that ignores the data."""
    y = _program()
    text = debug.dump(y)
    assert "TANH" in text and "REDUCE_SUM" in text and "parameter 0 : float32[2,3]" in text
    assert text.splitlines()[-1].startswith("return %")
    dot = debug.to_dot(y)
    assert dot.startswith("digraph lazytensor {") and "TANH" in dot and dot.count("->") >= 3
    assert "stablehlo.tanh" in debug.stablehlo(y)
    assert debug.graph_key(y) == debug.graph_key(ltf.handle_of(y)) == debug.graph_key(_program())
    other = lnp.sum(lnp.tanh(lnp.ones((2, 3), dtype=lnp.float32) * 2.0), axis=1)
    assert debug.graph_key(y) != debug.graph_key(other)
    want = np.tanh(2 * np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)).sum(0)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)


def test_metrics_report_counts_a_tf_program():
    metrics.reset()
    _program().numpy()
    counts = metrics.as_dict()
    report = metrics.report()
    assert counts["counters"]["graphs_executed"] == 1, counts
    assert counts["counters"]["ops_recorded"] >= 3, counts  # mul, tanh, sum
    assert counts["counters"]["eager_fallbacks"] == 0, counts
    assert "graphs_executed" in report


def test_arguments_a_table_does_not_lower_run_eagerly_and_are_counted():
    """An argument combination an implementation does not lower (here
    diagonal bands) runs in TensorFlow, warned and counted, never wrong."""
    import tensorflow as tf

    data = np.arange(16, dtype=np.float32).reshape(4, 4)
    metrics.reset()
    with pytest.warns(UserWarning, match="tf.linalg.diag_part"):
        got = tf.linalg.diag_part(lnp.asarray(data), k=(-1, 1))
    want = tf.linalg.diag_part(tf.constant(data), k=(-1, 1))
    assert isinstance(got, ltf.Tensor)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert metrics.as_dict()["fallbacks"] == {"tf.linalg.diag_part": 1}
    assert "tf.linalg.diag_part" in metrics.report()


def test_a_real_tensorflow_tape_still_sees_its_variables():
    """With TensorFlow's own GradientTape recording a tf.Variable, TensorFlow
    runs the op (lazy arrays enter as constants), so its gradient is there;
    without a TensorFlow tape the same op records lazily."""
    import tensorflow as tf

    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
    x = lnp.asarray(np.ones((4, 3), np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.matmul(x, w))
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), np.full((3, 2), 4.0))
    assert isinstance(tf.matmul(x, w), ltf.Tensor)
