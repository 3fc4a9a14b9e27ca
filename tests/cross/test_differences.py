"""The deliberate differences between numpy, torch and tnp (differences.py)
hold in each framework eagerly and in its lazy frontend, and really differ;
the look-alike agreements really agree."""

from __future__ import annotations

import numpy as np
import pytest
from differences import AGREEMENTS, DIFFERENCES, Difference, Outcome
from frontends import ALL, available

FRONTENDS = ("numpy", "torch", "tnp")


def evaluate(row: Difference, frontend: str, lazy: bool) -> Outcome:
    """Run the row's expression in ``frontend``; its outcome."""
    fe = ALL[frontend]
    namespace = fe.namespace(lazy)
    namespace.update(zip("xy", [fe.make_input(a, lazy) for a in row.inputs], strict=False))
    namespace["dev"] = _torch_device(lazy) if frontend == "torch" else None
    try:
        with np.errstate(all="ignore"):
            value = eval(row.sources[frontend], namespace)
    except Exception as error:  # the outcome may be an error
        return Outcome(error=type(error).__name__)
    host = fe.to_numpy(value)
    return Outcome(host.dtype.name, host.tolist() if host.shape else host.item())


def _torch_device(lazy: bool):
    if not lazy:
        return "cpu"
    import lazytensor.torch as lt

    return lt.device()


def assert_outcome(got: Outcome, want: Outcome, context: str) -> None:
    assert (got.error, got.dtype) == (want.error, want.dtype), f"{context}: {got} vs {want}"
    if not want.error:
        np.testing.assert_allclose(np.asarray(got.values, float), np.asarray(want.values, float),
                                   rtol=1e-6, err_msg=context)


def _marks(row: Difference, frontend: str, lazy: bool) -> list:
    marks = [pytest.mark.skipif(not available(frontend), reason=f"{frontend} not installed")]
    if lazy and frontend in row.lazy_bugs:
        marks.append(pytest.mark.xfail(strict=True, reason=row.lazy_bugs[frontend]))
    return marks


ROWS = [pytest.param(row, fe, lazy, marks=_marks(row, fe, lazy),
                     id=f"{row.name.replace(' ', '_')}-{fe}-{'lazy' if lazy else 'eager'}")
        for row in DIFFERENCES + AGREEMENTS for fe in FRONTENDS for lazy in (False, True)]


@pytest.mark.parametrize(("row", "frontend", "lazy"), ROWS)
def test_outcome_holds(row, frontend, lazy):
    assert_outcome(evaluate(row, frontend, lazy), row.outcomes[frontend],
                   f"{row.name} ({frontend}, {'lazy' if lazy else 'eager'}): {row.why}")


@pytest.mark.parametrize("row", DIFFERENCES, ids=lambda r: r.name.replace(" ", "_"))
def test_differences_differ(row):
    assert len({repr(o) for o in row.outcomes.values()}) > 1, f"{row.name} is no difference"
    assert set(row.outcomes) == set(row.sources) == set(FRONTENDS)


@pytest.mark.parametrize("row", AGREEMENTS, ids=lambda r: r.name.replace(" ", "_"))
def test_agreements_agree(row):
    assert len({repr(o) for o in row.outcomes.values()}) == 1, f"{row.name} differs"


def test_names_are_unique():
    names = [row.name for row in DIFFERENCES + AGREEMENTS]
    assert len(names) == len(set(names))
