"""Where numpy, torch and tf.experimental.numpy deliberately differ: the ONE
list of them (issue 5), each a small expression with its outcome in every
frontend. test_differences.py checks that each outcome holds eagerly (the
framework itself) AND lazily (our frontend), and that the outcomes really
differ; ``AGREEMENTS`` lists look-alike places where they do not differ.

tnp runs with its numpy behaviour on (``frontends._tnp``); under
``prefer_float32`` its Python floats become float32 (tests/frontend_tf/
test_tf_modes.py covers that mode).

Why the cross-frontend property tests (test_properties.py) compare the
frontends with each other on float32 programs only: integer inputs meet
float scalars and float reductions, and every row below shows the dtypes then
differ by design (values still agree, see ``Outcome``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

INTS = np.array([7, -7, 3], np.int32)
DIVISORS = np.array([2, 2, -2], np.int32)
FLOATS = np.array([1.5, -2.0, 0.25], np.float32)
MATRIX = np.ones((2, 3), np.float32)


@dataclass(frozen=True)
class Outcome:
    """A result's dtype name and values, or the name of the error raised."""

    dtype: str = ""
    values: tuple | float | None = None
    error: str = ""


@dataclass(frozen=True)
class Difference:
    """One expression per frontend over inputs ``x``/``y`` (namespaces
    ``np``/``torch``/``tnp``; ``dev`` is torch's device) and its outcomes."""

    name: str
    why: str
    sources: dict  # frontend -> expression
    inputs: tuple  # host arrays bound to x, y
    outcomes: dict  # frontend -> Outcome
    lazy_bugs: dict = field(default_factory=dict)  # frontend -> why its lazy run differs


def _same(expression: str) -> dict:
    return {"numpy": expression, "torch": expression, "tnp": expression}


def _call(numpy_name: str, torch_name: str, args: str) -> dict:
    return {"numpy": f"np.{numpy_name}({args})", "torch": f"torch.{torch_name}({args})",
            "tnp": f"tnp.{numpy_name}({args})"}


TRUE_DIVISION = (3.5, -3.5, -1.5)
MIXED_SUM = (8.5, -9.0, 3.25)

DIFFERENCES = [
    Difference(
        "true division of integers",
        "numpy and tnp divide int32 in float64; torch in its default float32",
        _same("x / y"), (INTS, DIVISORS),
        {"numpy": Outcome("float64", TRUE_DIVISION), "torch": Outcome("float32", TRUE_DIVISION),
         "tnp": Outcome("float64", TRUE_DIVISION)}),
    Difference(
        "int32 array with float32 array",
        "numpy's table (used by tnp) needs float64 to hold every int32; torch keeps float32",
        _same("x + y"), (INTS, FLOATS),
        {"numpy": Outcome("float64", MIXED_SUM), "torch": Outcome("float32", MIXED_SUM),
         "tnp": Outcome("float64", MIXED_SUM)}),
    Difference(
        "integer array times a Python float",
        "a weak float scalar over integers takes the default float: float64 / float32",
        _same("x * 1.5"), (INTS,),
        {"numpy": Outcome("float64", (10.5, -10.5, 4.5)),
         "torch": Outcome("float32", (10.5, -10.5, 4.5)),
         "tnp": Outcome("float64", (10.5, -10.5, 4.5))}),
    Difference(
        "float32 array with a float64 0-d array",
        "NEP 50: a 0-d array is strong in numpy and tnp; torch's 0-d tensors do not "
        "raise the dtype within a category",
        _same("x + y"), (FLOATS, np.array(2.0)),
        {"numpy": Outcome("float64", (3.5, 0.0, 2.25)),
         "torch": Outcome("float32", (3.5, 0.0, 2.25)),
         "tnp": Outcome("float64", (3.5, 0.0, 2.25))}),
    Difference(
        "int32 array with an int64 0-d array",
        "as above, for integers: numpy/tnp int64, torch int32",
        _same("x + y"), (INTS, np.array(2)),
        {"numpy": Outcome("int64", (9, -5, 5)), "torch": Outcome("int32", (9, -5, 5)),
         "tnp": Outcome("int64", (9, -5, 5))}),
    Difference(
        "exp of integers",
        "float functions of integers compute in the default float",
        _call("exp", "exp", "x"), (INTS,),
        {"numpy": Outcome("float64", tuple(np.exp(INTS.astype(np.float64)))),
         "torch": Outcome("float32", tuple(np.exp(INTS.astype(np.float32)))),
         "tnp": Outcome("float64", tuple(np.exp(INTS.astype(np.float64))))}),
    Difference(
        "floor of integers",
        "numpy 2 and torch return integers unchanged; tnp computes in float64",
        _call("floor", "floor", "x"), (INTS,),
        {"numpy": Outcome("int32", tuple(INTS)), "torch": Outcome("int32", tuple(INTS)),
         "tnp": Outcome("float64", tuple(INTS))}),
    Difference(
        "std's default degrees of freedom",
        "numpy and tnp: population (ddof=0); torch: sample (correction=1)",
        _call("std", "std", "x"), (FLOATS,),
        {"numpy": Outcome("float32", float(np.std(FLOATS))),
         "torch": Outcome("float32", float(np.std(FLOATS, ddof=1))),
         "tnp": Outcome("float32", float(np.std(FLOATS)))}),
    Difference(
        "argmax with NaN",
        "numpy and torch take NaN as the maximum; TensorFlow's ArgMax skips NaN",
        _call("argmax", "argmax", "x"), (np.array([1.0, np.nan, 3.0, np.nan], np.float32),),
        {"numpy": Outcome("int64", 1), "torch": Outcome("int64", 1), "tnp": Outcome("int64", 2)}),
    Difference(
        "mean of integers",
        "numpy and tnp average integers in float64; torch refuses integer input",
        _call("mean", "mean", "x"), (INTS,),
        {"numpy": Outcome("float64", 1.0), "torch": Outcome(error="RuntimeError"),
         "tnp": Outcome("float64", 1.0)}),
    Difference(
        "squeezing an axis whose size is not 1",
        "numpy raises ValueError, tnp InvalidArgumentError; torch returns the input",
        _call("squeeze", "squeeze", "x, 0"), (MATRIX,),
        {"numpy": Outcome(error="ValueError"), "torch": Outcome("float32", MATRIX.tolist()),
         "tnp": Outcome(error="InvalidArgumentError")}),
    Difference(
        "floor division of floats by an inexact divisor",
        "numpy and torch round Python's way (from fmod: 1.0 // 0.1 is 9); TensorFlow's "
        "FloorDiv, which tnp uses, is floor(x / y), and 1.0 / 0.1 rounds to 10",
        _same("x // y"), (np.array([1.0, -7.5, 0.7], np.float32),
                          np.array([0.1, 2.0, 0.1], np.float32)),
        {"numpy": Outcome("float32", (9.0, -4.0, 6.0)),
         "torch": Outcome("float32", (9.0, -4.0, 6.0)),
         "tnp": Outcome("float32", (10.0, -4.0, 7.0))}),
    Difference(
        "default dtype of a list of Python floats",
        "numpy and tnp: float64; torch: its default float32",
        {"numpy": "np.asarray([1.5, 2.0])", "torch": "torch.tensor([1.5, 2.0], device=dev)",
         "tnp": "tnp.asarray([1.5, 2.0])"}, (),
        {"numpy": Outcome("float64", (1.5, 2.0)), "torch": Outcome("float32", (1.5, 2.0)),
         "tnp": Outcome("float64", (1.5, 2.0))}),
]

# look-alikes that do NOT differ (integer division rounds to floor everywhere)
AGREEMENTS = [
    Difference(
        "integer floor division", "all three round toward negative infinity",
        _same("x // y"), (INTS, DIVISORS),
        {fe: Outcome("int32", (3, -4, -2)) for fe in ("numpy", "torch", "tnp")}),
    Difference(
        "integer modulo", "all three take the divisor's sign",
        _same("x % y"), (INTS, DIVISORS),
        {fe: Outcome("int32", (1, 1, -1)) for fe in ("numpy", "torch", "tnp")}),
    Difference(
        "sum of int8", "all three accumulate small integers in int64",
        _call("sum", "sum", "x"), (np.array([100, 100, 100], np.int8),),
        {fe: Outcome("int64", 300) for fe in ("numpy", "torch", "tnp")}),
]
