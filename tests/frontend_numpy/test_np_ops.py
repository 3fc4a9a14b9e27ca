"""Every op of the op database against eager numpy: values (dtype-fitting
tolerance), dtype and shape, over the dtypes and broadcasting shapes of its
entry, and Python scalars where the entry says so. Where numpy raises, the
lazy call must raise the same exception type.

All cases of one op are recorded first and materialized in one graph (one
compile per op keeps the suite fast).
"""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_opdb import CROSS_TABLE, OPS, OpInfo, sample, tolerance, xfail_reason

PY_SCALARS = (2, 3.5, True)


def _inputs(op: OpInfo, dtype: str, shapes: tuple, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [sample(dtype, shape, op.domain, rng) for shape in shapes]


def _cases(op: OpInfo, exhaustive: bool):
    """(label, inputs) per case. The default sweep rotates through the shapes
    and Python scalars (each dtype gets the first shape and one other); the
    exhaustive sweep runs every combination."""
    seed = 0
    for i, dtype in enumerate(op.dtypes):
        if xfail_reason(op, dtype):
            continue
        shapes = op.cases()
        if not exhaustive:  # every dtype: the first case; every other dtype: one more
            extra = shapes[(i // 2 + 1) % len(shapes)] if i % 2 == 0 else shapes[0]
            shapes = tuple(dict.fromkeys((shapes[0], extra)))
        for case in shapes:
            seed += 1
            yield f"{dtype}{case}", _inputs(op, dtype, case, seed)
        if op.scalars:
            x = _inputs(op, dtype, ((3, 4),), seed)[0]
            scalars = PY_SCALARS if exhaustive else (PY_SCALARS[i % len(PY_SCALARS)],)
            for j, s in enumerate(scalars):
                if exhaustive or (i + j) % 2 == 0:
                    yield f"{dtype} op {s!r}", [x, s]
                if exhaustive or (i + j) % 2 == 1:
                    yield f"{s!r} op {dtype}", [s, x]


def _run_numpy(op: OpInfo, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return op.fn(np, *args), None
        except Exception as exc:  # noqa: BLE001  (the type is what we compare)
            return None, exc


def _lazy_args(args):
    return [lnp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a for a in args]


def _outputs(result) -> list:
    return list(result) if isinstance(result, tuple) else [result]


def _compare(label: str, op: OpInfo, expected, actual) -> list[str]:
    problems = []
    exp_list, act_list = _outputs(expected), _outputs(actual)
    if len(exp_list) != len(act_list):
        return [f"{label}: {len(act_list)} outputs, numpy gives {len(exp_list)}"]
    for want, got in zip(exp_list, act_list, strict=False):
        if not isinstance(got, lnp.ndarray):
            problems.append(f"{label}: result is {type(got).__name__}, not a lazy array")
            continue
        want = np.asarray(want)
        host = np.asarray(got)
        if host.dtype != want.dtype:
            problems.append(f"{label}: dtype {host.dtype}, numpy gives {want.dtype}")
        elif host.shape != want.shape:
            problems.append(f"{label}: shape {host.shape}, numpy gives {want.shape}")
        else:
            rtol, atol = tolerance(want.dtype, op)
            try:
                np.testing.assert_allclose(host, want, rtol=rtol, atol=atol, equal_nan=True)
            except AssertionError as exc:
                problems.append(f"{label}: values differ\n{exc}")
    return problems


def _check(op: OpInfo, exhaustive: bool) -> None:
    pending, problems = [], []
    for label, args in _cases(op, exhaustive):
        expected, error = _run_numpy(op, args)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                actual = op.fn(np, *_lazy_args(args))
        except Exception as exc:  # noqa: BLE001
            if error is None or not isinstance(exc, type(error)):
                problems.append(f"{label}: raised {type(exc).__name__}: {exc}; numpy "
                                f"{'raises ' + type(error).__name__ if error else 'does not'}")
            continue
        if error is not None:
            problems.append(f"{label}: numpy raises {type(error).__name__}: {error}; lazy "
                            "does not")
            continue
        pending.append((label, expected, actual))
    lnp.sync()  # one graph for all cases of this op
    for label, expected, actual in pending:
        problems += _compare(label, op, expected, actual)
    assert not problems, f"{op.name}:\n" + "\n".join(problems[:12])


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_op_matches_numpy(op: OpInfo):
    _check(op, exhaustive=False)


@pytest.mark.slow
@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_op_matches_numpy_exhaustive(op: OpInfo):
    """Every dtype x every broadcasting case x every Python scalar."""
    _check(op, exhaustive=True)


def test_every_ufunc_in_the_table_has_an_entry():
    """An entry here or a row of tests/cross/test_elementwise_table.py."""
    names = {op.name for op in OPS} | CROSS_TABLE
    from lazytensor.numpy._ufunc_table import UFUNCS

    missing = [u.__name__ for u in UFUNCS if u.__name__ not in names]
    assert not missing, missing
