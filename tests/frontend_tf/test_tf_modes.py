"""tnp's global modes, each in a fresh process (TensorFlow cannot switch them
back): numpy behaviour off (TensorFlow's strict operators), on, and on with
prefer_float32. The same expressions run through tnp and lnp; results must
have the same dtype and shape, or both must raise the same error type."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXPRESSIONS = [
    "np.asarray(1.0)", "np.asarray([1.0, 2])", "np.asarray(1)", "np.ones(3)", "np.zeros(2)",
    "np.arange(5)", "np.arange(5.0)", "np.linspace(0, 1, 5)", "np.eye(2)",
    "np.add(np.ones(3, dtype=np.int32), 1.5)", "np.add(np.ones(3, dtype=np.float16), 1.5)",
    "np.add(np.ones(3, dtype=np.int32), np.ones(3, dtype=np.float32))",
    "np.add(np.ones(3, dtype=np.int8), 200)", "np.true_divide(np.ones(3, dtype=np.int32), 2)",
    "np.exp(1)", "np.exp(1.0)", "np.sqrt(np.ones(3, dtype=np.float32))",
    "np.mean(np.ones(3, dtype=np.int32))", "np.sum(np.ones(3, dtype=np.int8))",
    "np.add(np.ones(3, dtype=np.float32), onp.float64(1))",
    "np.ones(3, dtype=np.float32) + 2.0", "np.ones(3, dtype=np.int32) + 2",
    "np.ones(3, dtype=np.int32) + 1.5", "2.5 * np.ones(3, dtype=np.float16)",
    "np.ones(3, dtype=np.int32) + np.ones(3, dtype=np.float32)",
    "np.ones(3, dtype=np.float32) + onp.float64(1)", "np.ones(3, dtype=np.float32) * onp.ones(3)",
    "np.ones(3, dtype=np.int32) / 2", "np.ones(3, dtype=np.int32) // 2",
    "np.ones(3, dtype=np.float32) ** 2", "np.ones(3) < 2", "-np.ones(3, dtype=np.int32)",
    "np.ones((2, 3), dtype=np.float32) @ np.ones((3, 2), dtype=np.float32)",
]

# (mode, expression): why lnp deliberately differs from tnp there
DEVIATIONS = {
    ("off", "np.exp(1)"): "tnp needs numpy behaviour for integer input (it calls .astype, "
                          "which tf.Tensor lacks without it); lnp computes float64",
}

SCRIPT = """
import json, sys
import numpy as onp
import tensorflow.experimental.numpy as tnp
import lazytensor.tf.numpy as lnp
mode = sys.argv[1]
if mode == "numpy":
    tnp.experimental_enable_numpy_behavior()
elif mode == "prefer_float32":
    lnp.experimental_enable_numpy_behavior(prefer_float32=True)
out = []
for expr in json.loads(sys.argv[2]):
    row = []
    for np in (tnp, lnp):
        try:
            value = eval(expr)
            row.append([value.dtype.name, list(value.shape)])
        except Exception as error:
            row.append(["error", type(error).__name__])
    out.append([expr] + row)
print(json.dumps(out))
"""


@pytest.mark.parametrize("mode", ["off", "numpy", "prefer_float32"])
def test_mode_matches_tnp(mode):
    proc = subprocess.run([sys.executable, "-c", SCRIPT, mode, json.dumps(EXPRESSIONS)],
                          capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parent,
                          env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": ""})
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads(proc.stdout.strip().splitlines()[-1])
    mismatches = [f"{expr}: tnp {want} vs lnp {got}" for expr, want, got in rows
                  if want != got and (mode, expr) not in DEVIATIONS]
    assert not mismatches, f"mode {mode}:\n" + "\n".join(mismatches)


def test_import_does_not_load_tensorflow():
    code = "import sys, lazytensor.tf.numpy as lnp; x = lnp.ones(3) + 1; x.numpy(); " \
           "print('tensorflow' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.stdout.strip() == "False", proc.stderr[-2000:]
