"""Cross-frontend properties of random programs (issue 5).

1. every frontend's lazy result equals that framework's eager result;
2. the frontends agree with each other where their semantics agree;
3. the same program yields the same core graph hash from every frontend;
4. re-running with new data of the same shapes compiles nothing;
5. materializing early never changes a result.

The properties themselves are in checks.py; a failure prints the shrunk
program as source in each frontend's API. Deliberate differences between
the frontends are in differences.py (test_differences.py).
"""

from __future__ import annotations

import checks
import pytest
from frontends import available
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import programs

FRONTENDS = [pytest.param(name, marks=pytest.mark.skipif(
    not available(name), reason=f"frontend {name} is not installed in this environment"))
    for name in ("numpy", "torch", "tnp")]
TWO = pytest.mark.skipif(len(checks.BUILT) < 2, reason="needs two frontends")
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = st.integers(0, 2**16)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(program=programs(dtypes=("float32", "float64", "int32")), seed=SEEDS)
def test_lazy_equals_eager(frontend, program, seed):
    checks.lazy_equals_eager(program, frontend, seed)


@TWO
@SETTINGS
@given(program=programs(integer_steps=False), seed=SEEDS)
def test_frontends_agree(program, seed):
    checks.frontends_agree(program, seed)


@TWO
@SETTINGS
@given(program=programs(integer_steps=False))
def test_same_meaning_same_graph_hash(program):
    checks.same_graph_hash(program)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(program=programs(dtypes=("float32", "int32")))
def test_new_data_compiles_nothing(frontend, program):
    checks.new_data_compiles_nothing(program, frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(program=programs(dtypes=("float32", "int32")), seed=SEEDS)
def test_early_materialization_changes_nothing(frontend, program, seed):
    checks.early_materialization_changes_nothing(program, frontend, seed)
