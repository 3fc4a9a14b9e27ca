"""Run TensorFlow's own tf.experimental.numpy tests with ``lazytensor.tf.numpy``.

TensorFlow's source tree has tnp's tests (``tensorflow/python/ops/numpy_ops/
*_test.py`` and ``tests/``: a port of JAX's numpy tests); the pip package does
not ship them. Given a folder that holds them laid out as in TF's tree
(``--source DIR``, with ``DIR/tensorflow/python/ops/numpy_ops/...``), this
copies them into a scratch folder, rewrites the imports of tnp's modules
(``np_array_ops``, ``np_math_ops``, ``np_arrays``, ``np_random``, the tests'
``np_wrapper`` and ``tensorflow.experimental.numpy``) to ``lazytensor.tf.
numpy``, and runs each module with pytest (they are ``tf.test.TestCase``
classes; pytest collects those). TensorFlow itself stays TensorFlow:
``ops.convert_to_tensor`` still builds ``tf.Tensor`` inputs, which is the
interoperation a user relies on, and ``np_arrays.ndarray`` becomes the lazy
array type, which is what the tests' ``assertIsInstance`` checks mean.

The tests' ``if __name__ == "__main__"`` set TF's global state (the legacy
dtype conversion mode, numpy methods on ``tf.Tensor``, tensor equality); a
conftest does the same, since pytest never runs those blocks.

Failures are expected where the tests check TF internals rather than tnp:
``tf.function`` tracing (``def_function.function``, ``input_signature``,
``jit_compile``), virtual CPU devices and ``backing_device``,
tnp methods monkey-patched onto ``tf.Tensor`` (the ``np_arrays_test`` module is
mostly that), and ``np_interop_test``'s checks that a tnp array is a
``tf.Tensor``.
docs/tf_support.md lists them.

    python ci/tf_conformance.py --source /tmp/tftests
    python ci/tf_conformance.py --source /tmp/tftests --modules np_math_ops_test.py --failures
    python ci/tf_conformance.py --source /tmp/tftests --modules tests/np_test.py -k ReductionTest
"""

from __future__ import annotations

import argparse
import functools
import re
import shutil
import sys
import tempfile
from pathlib import Path

from _suites import report, run_module

PACKAGE = Path("tensorflow/python/ops/numpy_ops")
MODULES = (
    "np_array_ops_test.py", "np_math_ops_test.py", "np_logic_test.py", "np_arrays_test.py",
    "np_random_test.py", "np_interop_test.py", "tests/np_indexing_test.py",
    "tests/np_einsum_test.py", "tests/np_test.py",
)

CONFTEST = '''\
# what the tests' __main__ blocks do before test.main()
from tensorflow.python.framework import dtypes, ops, tensor
from tensorflow.python.ops.numpy_ops import np_dtypes, np_math_ops

if not hasattr(np_dtypes, "bfloat16"):  # the tests are TF master's; older np_dtypes lack it
    np_dtypes.bfloat16 = dtypes.bfloat16.as_numpy_dtype
tensor.enable_tensor_equality()
ops.set_dtype_conversion_mode("legacy")
np_math_ops.enable_numpy_methods_on_tensor()

# np_interop_test's three virtual CPUs: its setUp adds them only while TensorFlow
# has not started, which under pytest (ReadmeTest runs first) it has
from tensorflow.python.eager import context
from tensorflow.python.framework import config

config.set_logical_device_configuration(
    config.list_physical_devices("CPU")[0], [context.LogicalDeviceConfiguration()] * 3)
'''

_TNP = "lazytensor.tf.numpy"
_NP_OPS = r"tensorflow\.python\.ops\.numpy_ops"
# (pattern, replacement): tnp's modules -> lazytensor.tf.numpy; np_dtypes stays
# TensorFlow's: its dtypes are numpy's and its modes (allow_float64,
# prefer_float32) are TensorFlow's global state, which lazytensor reads
TNP_RULES = (
    (rf"^from {_NP_OPS} import (np_array_ops|np_math_ops|np_arrays|np_utils)\b",
     rf"import {_TNP} as \1"),
    (rf"^from {_NP_OPS} import np_random\b", f"from {_TNP} import random as np_random"),
    (r"^import tensorflow\.experimental\.numpy as (\w+)", rf"import {_TNP} as \1"),
    (r"^from tensorflow\.python\.ops import numpy_ops as (\w+)", rf"import {_TNP} as \1"),
    (r"^from tensorflow\.experimental import numpy as (\w+)", rf"import {_TNP} as \1"),
    (r"^(\w+) = tf\.experimental\.numpy$", rf"import {_TNP} as \1"),  # np_interop_test
)
# the tests' own helpers (config, test_util, extensions) are imported from the scratch folder
HELPER_RULES = (
    (rf"^from {_NP_OPS}\.tests import (\w+)", r"import \1"),
    (rf"^import {_NP_OPS}\.tests\.(\w+) as (\w+)", r"import \1 as \2"),
    (rf"^from {_NP_OPS}\.tests\.(\w+) import", r"from \1 import"),
)
# tests/np_wrapper.py (the ``tnp`` of the JAX-port tests): TF's numpy behavior
# switched on, as the original does, and tnp's namespace (lazytensor.tf.numpy,
# or with --reference tensorflow.experimental.numpy: the original's star
# imports of TF's private modules miss names such as result_type in TF 2.21)
WRAPPER = '''\
import numpy as onp
from tensorflow.python.ops.numpy_ops import np_dtypes as _tf_dtypes
from tensorflow.python.ops.numpy_ops import np_random
from tensorflow.python.ops.numpy_ops.np_config import enable_numpy_behavior

import {module} as _tnp

np_random.DEFAULT_RANDN_DTYPE = onp.float32
enable_numpy_behavior()


def __getattr__(name):
    # tnp's functions, arrays and dtypes; np_wrapper's extra dtype helpers
    # (canonicalize_dtype, default_float_type) are np_dtypes'
    try:
        return getattr(_tnp, name)
    except AttributeError:
        return getattr(_tf_dtypes, name)
'''
# tests/extensions.py serves test_util's _CompileAndCheck (tf.function and XLA
# compilation of the test function) and a few tests (grad, sort_key_val).
# Without the file in --source: lazytensor compiles implicitly, so ``jit`` runs
# the function once per argument tuple and returns that result on a repeat
# call (the check that a compiled function does not rerun Python), the
# no-retrace check is skipped, ``eval_on_shapes`` runs the function, and a test
# that uses anything else is skipped.
EXTENSIONS_STUB = '''\
import unittest


def most_precise_int_dtype(x):
    return object()  # never equal: the no-retrace check is tf.function's


def jit(f=None, static_argnums=(), **kwargs):
    if f is None:
        return lambda g: jit(g, static_argnums, **kwargs)
    results = {}

    def run(*args, **kw):
        key = (tuple(map(id, args)), tuple(sorted(kw)))
        if key not in results:
            results[key] = f(*args, **kw)
        return results[key]

    return run


def eval_on_shapes(f, static_argnums=()):
    return f


def __getattr__(name):
    raise unittest.SkipTest(f"extensions.{name}: tests/extensions.py not in --source")
'''


def rewrite(source: str, rules=TNP_RULES + HELPER_RULES) -> str:
    for pattern, replacement in rules:
        source = re.sub(pattern, replacement, source, flags=re.M)
    return source


def prepare(source: Path, folder: Path, modules: list[str], reference: bool = False) -> list[Path]:
    """Rewritten copies of ``modules`` (paths under numpy_ops) and the
    ``tests/`` helpers they import, flat in ``folder``; with ``reference``
    the tests keep TensorFlow's own tnp (only the helpers' imports move)."""
    root = source / PACKAGE
    edit = functools.partial(rewrite, rules=HELPER_RULES) if reference else rewrite
    (folder / "conftest.py").write_text(CONFTEST)
    helpers = root / "tests"
    if helpers.is_dir():
        for helper in helpers.glob("*.py"):
            if not helper.name.endswith("_test.py"):
                (folder / helper.name).write_text(edit(helper.read_text()))
        if not (helpers / "extensions.py").is_file():
            (folder / "extensions.py").write_text(EXTENSIONS_STUB)
        module = "tensorflow.experimental.numpy" if reference else _TNP
        (folder / "np_wrapper.py").write_text(WRAPPER.format(module=module))
    copies = []
    for module in modules:
        suffix = "_tf" if reference else "_lazy"
        copy = folder / f"{module.replace('/', '_').removesuffix('.py')}{suffix}.py"
        copy.write_text(edit((root / module).read_text()))
        copies.append(copy)
    return copies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True,
                        help="folder holding tensorflow/python/ops/numpy_ops/ from TF's sources")
    parser.add_argument("--modules", help="comma-separated paths inside numpy_ops")
    parser.add_argument("-k", dest="select", help="pytest -k expression (e.g. one class)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per module")
    parser.add_argument("--json", help="write per-module counts here")
    parser.add_argument("--failures", action="store_true", help="list the failing tests")
    parser.add_argument("--reference", action="store_true",
                        help="run the tests against TensorFlow's own tnp (what TF itself passes)")
    parser.add_argument("--keep", help="copy the rewritten folder here (to rerun one test)")
    args = parser.parse_args(argv)
    modules = args.modules.split(",") if args.modules else list(MODULES)
    source = Path(args.source)
    missing = [m for m in modules if not (source / PACKAGE / m).is_file()]
    if missing:
        parser.error(f"not under {source / PACKAGE}: {', '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp:
        copies = prepare(source, Path(tmp), modules, args.reference)
        if args.keep:
            shutil.copytree(tmp, args.keep, dirs_exist_ok=True)
        results = [run_module(c, args.failures, args.select, args.timeout) for c in copies]
    report(results, "", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
