"""Cross-frontend properties of random programs (issue 5).

1. every frontend's lazy result equals that framework's eager result;
2. the frontends agree with each other where their semantics agree;
3. the same program yields the same core graph hash from every frontend;
4. re-running with new data of the same shapes compiles nothing;
5. materializing early never changes a result.

A failure prints the program as source in each frontend's API.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontends import available
from program import STRUCTURE_VARIES, render
from runner import assert_same, make_data, run
from strategies import programs

FRONTENDS = [pytest.param(name, marks=pytest.mark.skipif(
    not available(name), reason=f"frontend {name} is not installed in this environment"))
    for name in ("numpy", "torch", "tnp")]
BUILT = [name for name in ("numpy", "torch", "tnp") if available(name)]
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _sources(program) -> str:
    return "\n\n".join(f"# {fe}\n{render(program, fe)}" for fe in BUILT)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(program=programs(), seed=st.integers(0, 2**16))
def test_lazy_equals_eager(frontend, program, seed):
    data = make_data(program, seed)
    eager = run(program, frontend, data, lazy=False)
    lazy = run(program, frontend, data, lazy=True)
    assert_same(eager.outputs, lazy.outputs, "float32", f"program:\n{lazy.source}")


@pytest.mark.skipif(len(BUILT) < 2, reason="needs two frontends")
@SETTINGS
@given(program=programs(), seed=st.integers(0, 2**16))
def test_frontends_agree(program, seed):
    data = make_data(program, seed)
    results = {fe: run(program, fe, data, lazy=True) for fe in BUILT}
    first, *others = BUILT
    for fe in others:
        assert_same(results[first].outputs, results[fe].outputs, "float32",
                    f"{first} vs {fe}; programs:\n{_sources(program)}")


@pytest.mark.skipif(len(BUILT) < 2, reason="needs two frontends")
@SETTINGS
@given(program=programs())
def test_same_meaning_same_graph_hash(program):
    if any(step.op in STRUCTURE_VARIES for step in program.steps):
        return
    data = make_data(program, 0)
    keys = {fe: run(program, fe, data, lazy=True).graph_key for fe in BUILT}
    assert len(set(keys.values())) == 1, f"graph keys differ {keys}; programs:\n" \
        f"{_sources(program)}"


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(program=programs())
def test_new_data_compiles_nothing(frontend, program):
    from lazytensor.core.runtime import get_runtime

    run(program, frontend, make_data(program, 1), lazy=True)
    misses = get_runtime().metrics.counters["cache_misses"]
    run(program, frontend, make_data(program, 2), lazy=True)
    assert get_runtime().metrics.counters["cache_misses"] == misses, \
        f"recompiled: {get_runtime().metrics.miss_reasons[-1]}\nprogram:\n" \
        f"{render(program, frontend)}"


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(program=programs(), seed=st.integers(0, 2**16))
def test_early_materialization_changes_nothing(frontend, program, seed):
    data = make_data(program, seed)
    whole = run(program, frontend, data, lazy=True)
    early = run(program, frontend, data, lazy=True, observe_early=True)
    assert_same(whole.outputs, early.outputs, "float32", f"program:\n{early.source}")
