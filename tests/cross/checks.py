"""The five cross-frontend properties as plain functions of one program, so
that the hypothesis tests (test_properties.py) and the shrunk regression
programs (test_regressions.py) check exactly the same thing.

Every failure, an assertion or an exception raised inside a frontend, carries
the program as source code in each installed frontend's API (an exception
note), which is what hypothesis prints for the shrunk example.
"""

from __future__ import annotations

from contextlib import contextmanager

from frontends import available
from program import FRONTEND_DIFFERS, STRUCTURE_VARIES, Program, render
from runner import assert_same, make_data, run

BUILT = [name for name in ("numpy", "torch", "tnp") if available(name)]


def sources(program: Program) -> str:
    """The program in every installed frontend's API, each under its name,
    after a line naming its inputs."""
    inputs = ", ".join(f"v{k}: {dtype}{list(shape)}"
                       for k, (shape, dtype) in enumerate(program.inputs))
    return f"# inputs {inputs}\n" + "\n\n".join(
        f"# {fe}\n{render(program, fe)}" for fe in BUILT)


@contextmanager
def showing(program: Program):
    """Attach the program's sources to any failure raised inside."""
    try:
        yield
    except Exception as error:
        error.add_note(f"program, in each frontend's API:\n{sources(program)}")
        raise


def precision(program: Program) -> str:
    """The precision a program computes in: float64 only when every input is
    (integer inputs meet float32 in torch, and float scalars in every frontend)."""
    return "float64" if all(d == "float64" for _, d in program.inputs) else "float32"


def lazy_equals_eager(program: Program, frontend: str, seed: int = 0) -> None:
    """(1) the frontend's lazy result equals the framework's eager result."""
    with showing(program):
        data = make_data(program, seed)
        eager = run(program, frontend, data, lazy=False)
        lazy = run(program, frontend, data, lazy=True)
        assert_same(eager.outputs, lazy.outputs, precision(program),
                    f"{frontend}: lazy vs eager")


def frontends_agree(program: Program, seed: int = 0) -> None:
    """(2) every frontend computes the same values, dtypes and shapes (for
    programs inside the semantics that numpy, torch and tnp share)."""
    with showing(program):
        data = make_data(program, seed)
        results = {fe: run(program, fe, data, lazy=True) for fe in BUILT}
        first, *others = BUILT
        for fe in others:
            assert_same(results[first].outputs, results[fe].outputs, precision(program),
                        f"{first} vs {fe}")


def same_graph_hash(program: Program) -> None:
    """(3) the same meaning gives the same core graph from every frontend
    (the graph below the outputs; what a barrier cuts also holds the live
    intermediates, which differ where a frontend's result is a view)."""
    if any(step.op in STRUCTURE_VARIES for step in program.steps):
        return
    with showing(program):
        data = make_data(program, 0)
        differs = {FRONTEND_DIFFERS.get(step.op) for step in program.steps}
        keys = {fe: run(program, fe, data, lazy=True).graph_key
                for fe in BUILT if fe not in differs}
        assert len(set(keys.values())) == 1, f"graph keys differ {keys}"


def new_data_compiles_nothing(program: Program, frontend: str) -> None:
    """(4) running again on new data of the same shapes compiles nothing."""
    from lazytensor.core.runtime import get_runtime

    with showing(program):
        run(program, frontend, make_data(program, 1), lazy=True)
        misses = get_runtime().metrics.counters["cache_misses"]
        run(program, frontend, make_data(program, 2), lazy=True)
        after = get_runtime().metrics.counters["cache_misses"]
        assert after == misses, f"{frontend} recompiled: {get_runtime().metrics.miss_reasons[-1]}"


def early_materialization_changes_nothing(program: Program, frontend: str,
                                          seed: int = 0) -> None:
    """(5) observing every intermediate value gives the same results."""
    with showing(program):
        data = make_data(program, seed)
        whole = run(program, frontend, data, lazy=True)
        early = run(program, frontend, data, lazy=True, observe_early=True)
        assert_same(whole.outputs, early.outputs, precision(program),
                    f"{frontend}: observed early vs not")
