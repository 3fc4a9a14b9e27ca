"""A 10-op elementwise chain on 1e6 and 1e7 float32 elements, steady state:
numpy eager vs lazytensor.numpy vs jax.jit of the same function.

Every system runs the same source, ``chain(np_like, x, y)``, as a rebinding
update ``x = chain(x, y)`` (the way a numpy loop is written), so a runtime may
reuse the dead input's buffer. ``jax.jit`` is the reference and runs without
donation, as ``jax.jit(f)`` does by default; ``jax.jit+donate`` shows what
buffer reuse is worth. Each lazy system checks its first step against numpy
before it is timed.

    python bench/elementwise.py [--rounds N] [--json out.json] [--quick]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import bench_args, compare, module_available  # noqa: E402

SIZES = (10**6, 10**7)
TARGET_VS_JIT = {10**6: 1.1, 10**7: 0.5}  # lazytensor.numpy vs jax.jit (issue 23)


def chain(np, x, y):
    """Ten elementwise ops, written as a numpy user writes them."""
    a = x * y + 1.5  # 1, 2
    b = np.tanh(a)  # 3
    c = b * b - x  # 4, 5
    d = np.abs(c) + 1.0  # 6, 7
    e = np.sqrt(d) * 0.5  # 8, 9
    return np.maximum(e, x)  # 10


def inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return (rng.standard_normal(n, dtype=np.float32),
            rng.standard_normal(n, dtype=np.float32))


def _check(got: np.ndarray, n: int) -> None:
    x, y = inputs(n)
    want = chain(np, x, y)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


class _Loop:
    """A step that rebinds ``x = chain(ns, x, y)`` and then waits."""

    def __init__(self, ns, x, y, finish) -> None:
        self.ns, self.x, self.y, self.finish = ns, x, y, finish

    def __call__(self) -> None:
        self.x = chain(self.ns, self.x, self.y)
        self.finish(self.x)


# ------------------------------------------------------------------ systems


def setup_numpy(n: int):
    return _Loop(np, *inputs(n), finish=lambda x: None)


def setup_jax(n: int, donate: bool = False):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x, y: chain(jnp, x, y), donate_argnums=(0,) if donate else ())
    x, y = (jax.device_put(a) for a in inputs(n))
    _check(np.asarray(f(x.copy(), y)), n)
    state = {"x": x}

    def step() -> None:
        state["x"] = f(state["x"], y)
        state["x"].block_until_ready()

    return step


def setup_jax_donate(n: int):
    return setup_jax(n, donate=True)


def block_lazy(array) -> None:
    """Wait until a lazy array's value is computed (lazytensor's dispatch is
    asynchronous, like JAX's): its core handle's device array."""
    import jax

    jax.block_until_ready(array._h.value())


def setup_lazy_numpy(n: int):
    import lazytensor.numpy as lnp
    from lazytensor.core import metrics

    x, y = (lnp.asarray(a) for a in inputs(n))
    _check(np.asarray(chain(np, x, y)), n)
    metrics.reset()

    def finish(out) -> None:
        lnp.sync()
        block_lazy(out)

    step = _Loop(np, x, y, finish=finish)
    step.info = lambda: metrics.as_dict()["counters"]
    return step


def setup_lazy_numpy_capture(n: int):
    """The chain as a step captured with ``lnp.capture`` (replayed without
    running its Python once two traced steps agree)."""
    import lazytensor.numpy as lnp
    from lazytensor.core import metrics

    x, y = (lnp.asarray(a) for a in inputs(n))
    body = lnp.capture(lambda x, y: chain(lnp, x, y))
    _check(np.asarray(body(x.copy(), y)), n)
    metrics.reset()
    state = {"x": x}

    def step() -> None:
        state["x"] = body(state["x"], y)
        block_lazy(state["x"])

    step.info = lambda: metrics.as_dict()["counters"]
    return step


def setup_lazy_core(n: int):
    import _core_ns as ns
    from lazytensor.core import metrics

    x, y = (ns.asarray(a) for a in inputs(n))
    _check(chain(ns, x, y).numpy(), n)
    metrics.reset()
    step = _Loop(ns, x, y, finish=lambda x: x.block())
    step.info = lambda: metrics.as_dict()["counters"]
    return step


SYSTEMS = {
    "numpy (eager)": setup_numpy,
    "lazytensor.numpy": setup_lazy_numpy,
    "lazytensor.numpy capture": setup_lazy_numpy_capture,
    "lazytensor.core direct": setup_lazy_core,
    "jax.jit": setup_jax,
    "jax.jit+donate": setup_jax_donate,
}


def main() -> int:
    args = bench_args(__doc__.splitlines()[0])
    systems = dict(SYSTEMS)
    if module_available("lazytensor.numpy"):  # the stand-in is only for a missing frontend
        del systems["lazytensor.core direct"]
    else:
        print("lazytensor.numpy is not installed yet: measuring the core directly")
        del systems["lazytensor.numpy"], systems["lazytensor.numpy capture"]
    results = []
    for n in SIZES:
        result = compare(systems, params={"n": n}, rounds=args.rounds,
                         min_round_seconds=args.min_round_seconds,
                         baseline="numpy (eager)", reference="jax.jit",
                         title=f"\n10-op elementwise chain, {n:.0e} float32 elements")
        results.append(result.as_dict())
        for name, res in result.systems.items():
            if res.info:
                print(f"  {name}: {res.info}")
    lazy = "lazytensor.numpy" if "lazytensor.numpy" in systems else "lazytensor.core direct"
    for n, result in zip(SIZES, results, strict=True):
        for name in (lazy, "lazytensor.numpy capture"):
            if name in result["systems"]:
                ratio = result["systems"][name]["vs_reference"]
                verdict = "meets" if ratio <= TARGET_VS_JIT[n] else "MISSES"
                print(f"{name} at {n:.0e}: {ratio:.2f}x jax.jit ({verdict} the "
                      f"{TARGET_VS_JIT[n]}x target)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
