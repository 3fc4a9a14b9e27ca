"""Shrunk failing programs found by the cross-frontend tests, kept as
regression tests: neutral programs (program.py) re-checked with the property
that found them, and single expressions compared lazy vs eager.

An ``xfail(strict=True)`` entry is a bug not fixed yet, in a file owned
elsewhere: its reason names the file and function at fault. When the fix
lands the test passes, strict xfail turns that into a failure, and the mark
must go.
"""

from __future__ import annotations

import checks
import numpy as np
import pytest
from differences import Difference
from frontends import available
from program import Program, Step
from test_differences import assert_outcome, evaluate


def _needs(*frontends: str):
    missing = [fe for fe in frontends if not available(fe)]
    return pytest.mark.skipif(bool(missing), reason=f"needs frontends {missing}")


def _xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


# ------------------------------------------------ same graph hash (property 3)
HASH_PROGRAMS = [
    pytest.param(
        Program([((1,), "float32")], [Step("exp", (0,)), Step("index", (0,), (("index", "::2"),))]),
        id="strided-slice-of-one-element",
        # fixed: core/composite/movement/shape.py::slice_axis now writes numpy indexing's
        # canonical SLICE attrs (limit after the last element, stride 1 for one)
    ),
    pytest.param(
        Program([((1, 1), "float32")], [Step("transpose", (0,), (("perm", (0, 1)),))]),
        id="identity-permute",
        # fixed: frontend_torch aten/views.py::_permute goes through the core's
        # shape.transpose, which records nothing for the identity permutation
    ),
    pytest.param(
        Program([((6, 2), "float32")], [Step("index", (0,), (("index", "1::2"),))]),
        id="strided-slice-limit"),
]


@_needs("numpy", "torch")
@pytest.mark.parametrize("program", HASH_PROGRAMS)
def test_same_graph_hash(program):
    checks.same_graph_hash(program)


# --------------------------------- early materialization (property 5) and (1)
OVERFLOW_PROGRAM = Program([((2, 2, 3), "int32")], [
    Step("exp", (0,)), Step("exp", (0,)), Step("exp", (1,)), Step("log", (3,))])


@_needs("torch")
@pytest.mark.parametrize("check", [checks.early_materialization_changes_nothing,
                                   checks.lazy_equals_eager])
def test_log_of_overflowing_exp(check):
    """Shrunk from test_early_materialization_changes_nothing[torch]: XLA
    rewrote log(exp(y)) to y, so the whole graph gave exp(x) where eager (and
    early materialization) gave inf. Fixed in core/lowering.py
    (_EAGER_BARRIERS: an optimization barrier keeps the eager steps)."""
    check(OVERFLOW_PROGRAM, "torch", 0)


# ------------------------------------------- lazy equals eager (property 1)
UINT8 = np.array([0, 1, 2], np.uint8)
BOOLS = np.array([True, False, True])
INT32 = np.array([7, -7, 3], np.int32)


def _expr(name: str, frontend: str, source: str, *inputs) -> Difference:
    return Difference(name, "", {frontend: source}, inputs, {})


HUGE = np.array([-1.0, 0.0, 1e30, 100.0], np.float32)

EXPRESSIONS = [
    *[pytest.param(_expr(f"XLA identity {source}", "numpy", source, HUGE), id=f"identity-{name}")
      for name, source in [("log-exp", "np.log(np.exp(x))"), ("sqrt-square", "np.sqrt(x * x)"),
                           ("exp-times-exp", "np.exp(x) * np.exp(x)"),
                           ("exp-over-exp", "np.exp(x) / np.exp(x + 1)")]],
    # fixed: core/runtime.py::scalar wraps an out-of-range integer parameter as
    # torch and TensorFlow do (it failed at materialization: 'Python integer -1
    # out of bounds for uint8', and kept failing every later barrier)
    pytest.param(_expr("uint8 + negative int", "torch", "x + (-1)", UINT8), id="torch-uint8-wrap"),
    pytest.param(_expr("uint8 + negative int", "tnp", "x + (-1)", UINT8), id="tnp-uint8-wrap"),
    pytest.param(_expr("uint8 + negative int", "numpy", "x + (-1)", UINT8),
                 id="numpy-uint8-overflow-error"),
    # fixed: torch's aten.add ORs bools (frontend_torch aten/elementwise.py::_add)
    pytest.param(_expr("bool + bool", "torch", "x + y", BOOLS, BOOLS), id="torch-bool-add"),
    # fixed: tf.Tensor's `+` refuses bools though tnp.add ORs them
    # (frontend_tf numpy/_methods.py::_BOOL_REFUSED)
    pytest.param(_expr("bool + bool", "tnp", "x + y", BOOLS, BOOLS),
                 id="tnp-bool-add-operator"),
    pytest.param(
        _expr("argmax over NaN", "tnp", "tnp.argmax(tnp.sqrt(x), axis=0)",
              np.array([0.54784673, -0.92085314], np.float32)),
        id="tnp-argmax-nan",
        # shrunk from test_lazy_equals_eager[tnp]: sqrt gives NaN, eager tnp
        # skips it; fixed in frontend_tf numpy/_math.py::_argminmax
    ),
    # fixed: frontend_tf numpy/_math.py::_power refuses a negative host exponent
    pytest.param(_expr("int ** negative int", "tnp", "x ** -1", INT32),
                 id="tnp-int-negative-power"),
]


@pytest.mark.parametrize("row", EXPRESSIONS)
def test_lazy_expression_equals_eager(row):
    (frontend,) = row.sources
    if not available(frontend):
        pytest.skip(f"{frontend} not installed")
    want = evaluate(row, frontend, lazy=False)
    assert_outcome(evaluate(row, frontend, lazy=True), want,
                   f"{row.name} in {frontend}: {row.sources[frontend]}")
