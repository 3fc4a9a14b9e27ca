"""Python scalars as parameters: few of a dtype travel in one bank array,
many as one parameter each (XLA compiles hundreds of slices of one bank
superlinearly); either way a new value reuses the compiled executable."""

import numpy as np
import pytest
from lazytensor.core import Handle, Op, compiler, make
from lazytensor.core.leaves import scalar
from lazytensor.core.runtime import use_runtime


def _chain(x: Handle, floats: list[float], ints: list[int]) -> Handle:
    node = x.node
    for f in floats:
        node = make(Op.ADD, (make(Op.MUL, (node, scalar(f, node.dtype, node.shape))),
                             scalar(1.0, node.dtype, node.shape)))
    total = scalar(0, np.dtype("int32"))
    for i in ints:
        total = make(Op.ADD, (total, scalar(i, np.dtype("int32"))))
    converted = make(Op.CONVERT, (total,), node.dtype)
    return Handle(make(Op.ADD, (node, make(Op.BROADCAST_IN_DIM, (converted,), node.shape, ()))))


def _expected(x: np.ndarray, floats: list[float], ints: list[int]) -> np.ndarray:
    for f in floats:
        x = x * np.float32(f) + np.float32(1.0)
    return x + np.float32(sum(ints))


@pytest.mark.parametrize("n_floats", [3, compiler.BANK_LIMIT + 1, 4 * compiler.BANK_LIMIT])
def test_values_and_reuse_on_both_sides_of_the_bank_limit(n_floats):
    with use_runtime() as rt:
        host = np.linspace(-1, 1, 8, dtype=np.float32)
        for step in range(2):  # new values, same structure: one compile
            floats = [0.5 + 0.01 * (i + step) for i in range(n_floats)]
            ints = list(range(step, step + 5))
            out = _chain(rt.from_host(host), floats, ints).numpy()
            np.testing.assert_allclose(out, _expected(host, floats, ints), rtol=1e-5)
        assert rt.metrics.counters["cache_misses"] == 1
        assert rt.metrics.counters["cache_hits"] == 1


def test_many_scalars_are_separate_parameters():
    values = [float(i) for i in range(compiler.BANK_LIMIT + 1)]
    assert len(compiler._scalar_args(values, np.dtype("float32"))) == len(values)
    assert len(compiler._scalar_args(values[:-1], np.dtype("float32"))) == 1
