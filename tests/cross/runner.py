"""Run a neutral program through one frontend, eagerly or lazily."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from frontends import ALL
from program import Program, render

TOLERANCE = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-12)}
EXACT = dict(rtol=0, atol=0)


def make_data(program: Program, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    data = []
    for shape, dtype in program.inputs:
        if np.dtype(dtype).kind == "f":
            data.append(rng.uniform(-2, 2, shape).astype(dtype))
        else:
            data.append(rng.integers(-5, 6, shape).astype(dtype))
    return data


@dataclass
class Result:
    outputs: list  # numpy arrays
    graph_key: int | None  # lazy runs: the core graph hash before materializing
    source: str


def run(program: Program, frontend: str, data: list, lazy: bool,
        observe_early: bool = False) -> Result:
    fe = ALL[frontend]
    source = render(program, frontend)
    namespace = fe.namespace(lazy)
    for k, array in enumerate(data):
        namespace[f"v{k}"] = fe.make_input(array, lazy)
    if observe_early:  # materialize every intermediate as it is made
        source = _with_barriers(source, frontend)
        namespace["_observe"] = fe.to_numpy
    with np.errstate(all="ignore"):  # inf/nan are results to compare, not warnings
        exec(compile(source, f"<{frontend} program>", "exec"), namespace)
    outputs = namespace["outputs"]
    key = None
    if lazy and not observe_early:
        from lazytensor.core import debug

        key = debug.graph_key(*[fe.handle(o) for o in outputs])
    return Result([fe.to_numpy(o) for o in outputs], key, source)


def _with_barriers(source: str, frontend: str) -> str:
    lines = []
    for line in source.splitlines():
        lines.append(line)
        stripped = line.strip()
        if stripped.startswith("v") and "=" in stripped:
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(f"{indent}_observe({stripped.split('=')[0].strip()})")
    return "\n".join(lines)


def assert_same(expected: list, actual: list, precision: str, context: str) -> None:
    """Same shapes and dtypes, values within ``precision``'s tolerance for
    inexact results (the precision the program computed in), exact otherwise."""
    assert len(expected) == len(actual), context
    for e, a in zip(expected, actual, strict=True):
        e, a = np.asarray(e), np.asarray(a)
        assert a.shape == e.shape, f"shape {a.shape} != {e.shape}\n{context}"
        assert a.dtype == e.dtype, f"dtype {a.dtype} != {e.dtype}\n{context}"
        # the looser of the program's precision and the result's own dtype
        # (a float64 program's argmax, then tanh, is float32 in torch)
        own = e.dtype.name if e.dtype.name in TOLERANCE else "float32"
        tol = EXACT if e.dtype.kind not in "fc" else \
            TOLERANCE["float64" if precision == own == "float64" else "float32"]
        np.testing.assert_allclose(a, e, equal_nan=True, err_msg=context, **tol)
