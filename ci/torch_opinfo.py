"""Run PyTorch's OpInfo database through lazytensor.torch and compare with eager.

For every OpInfo in ``torch.testing._internal.common_methods_invocations.op_db``
that supports the dtype under test (``--dtype``, float32 by default) on the CPU,
every sample input runs twice: eagerly on the CPU and on the lazy device (tensors
moved with ``.to(lazytensor.torch.device())``). A sample is *correct* when both
agree: same value (a tolerance per dtype, see ``TOLERANCES``; integers and bool
exact; NaN equal to NaN), dtype and shape for every tensor output, equal
non-tensor outputs, or both raise. A correct sample *fell back* when any ATen op it used ran through
the eager CPU fallback (metrics ``eager_fallbacks``). An op is *fully lowered*
when all its samples are correct and none fell back.

    python ci/torch_opinfo.py                # every op (slow: run it in the background)
    python ci/torch_opinfo.py --ops add,mm   # some ops (names or name.variant)
    python ci/torch_opinfo.py --json out.json
    python ci/torch_opinfo.py --dtype int64     # samples in another dtype
    python ci/torch_opinfo.py --max-samples 0   # every sample (default: the first 60)

Each sample compiles its own graph (new shapes), so a few ops with a thousand
samples (pooling) would dominate the run; by default each op contributes its
first 60 samples, in the order its OpInfo generates them.

Targets (issue 3): >= 95% of samples correct, >= 60% of ops fully lowered.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field

import lazytensor.torch as lt
import torch
from lazytensor.core import get_runtime
from torch.utils._pytree import tree_flatten, tree_map

# values of these ops are random or uninitialized: compare dtype and shape only
UNCHECKED_VALUES = (
    "empty", "rand", "bernoulli", "normal", "dropout", "multinomial", "uniform",
    "exponential", "geometric", "cauchy", "log_normal", "poisson", "randint", "fractional",
    "rrelu", "lowrank",
)
# positional arguments that OpInfo makes on the CPU whatever the device under
# test, because torch requires them there (tensor_split's tensor of indices)
CPU_ARGS = {"tensor_split": 0}
# (rtol, atol) of floating and complex outputs, by the output's dtype: float32
# with a margin for XLA's transcendental kernels; float64 tight; float16 and
# bfloat16 loose, as torch's own toleranceOverride for low precision (XLA may
# round intermediates where eager CPU kernels accumulate in float32)
TOLERANCES = {
    torch.float32: (1.3e-5, 1e-4), torch.complex64: (1.3e-5, 1e-4),
    torch.float64: (1e-7, 1e-7), torch.complex128: (1e-7, 1e-7),
    torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 5e-2),
}
RTOL, ATOL = TOLERANCES[torch.float32]  # Python floats
# ops returning (values, indices), or indices, whose indices of equal values may differ
# from eager's (torch fixes no order among ties; integer samples have many):
# an index counts as correct when it points at eager's value. The number is
# the position of ``dim`` among the sample's positional arguments.
TIED_INDICES = {"topk": 1, "kthvalue": 1, "mode": 0, "sort": 0, "argsort": 0}


@dataclass
class OpResult:
    name: str
    samples: int = 0
    correct: int = 0
    fell_back: int = 0
    failures: list[str] = field(default_factory=list)
    fallback_ops: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def status(self) -> str:
        if self.correct < self.samples:
            return "fail"
        return "fell back" if self.fell_back else "pass"


def op_name(op) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def supported_ops(names: list[str] | None = None, dtype: torch.dtype = torch.float32) -> list:
    """The OpInfos (all, or those named) that support ``dtype`` on the CPU."""
    from torch.testing._internal.common_methods_invocations import op_db

    wanted = set(names or [])
    out = []
    for op in op_db:
        if wanted and op_name(op) not in wanted and op.name not in wanted:
            continue
        try:
            if dtype not in op.supported_dtypes("cpu"):
                continue
        except Exception:  # noqa: BLE001  (an OpInfo without CPU dtypes)
            continue
        out.append(op)
    return out


def _to_lazy(x):
    if isinstance(x, torch.Tensor) and x.device.type == "cpu" and x.layout == torch.strided:
        return x.to(lt.device())
    if isinstance(x, torch.device) or x == "cpu":
        return lt.device()
    return x


def _to_cpu(x):
    return x.cpu() if isinstance(x, torch.Tensor) and x.device.type == "lazy" else x


def _outputs_to_cpu(out):
    if isinstance(out, torch.Size):
        return out
    return tree_map(_to_cpu, out)


def _use_lazy_mark_step() -> None:
    """torch.testing's RNG wrappers call ``torch._lazy.mark_step()`` for
    outputs on the lazy device (torch's own TorchScript lazy backend); here
    the lazy device is ours, so its step marker is ours too."""
    import torch._lazy

    torch._lazy.mark_step = lambda *args, **kwargs: lt.mark_step()


def _same(expected, actual, exact_values: bool) -> str | None:
    """None when outputs agree, else a short reason."""
    exp_leaves, exp_spec = tree_flatten(expected)
    act_leaves, act_spec = tree_flatten(actual)
    if exp_spec != act_spec:
        return f"structure {exp_spec} vs {act_spec}"
    for e, a in zip(exp_leaves, act_leaves, strict=False):
        if isinstance(e, torch.Tensor):
            if not isinstance(a, torch.Tensor):
                return f"expected a tensor, got {type(a).__name__}"
            if e.dtype != a.dtype or e.shape != a.shape:
                return f"{e.dtype}{list(e.shape)} vs {a.dtype}{list(a.shape)}"
            if exact_values and not _close(e, a):
                return f"values differ (max |diff| {_max_diff(e, a)})"
        elif isinstance(e, float) and isinstance(a, float):
            if not (e == a or (math.isnan(e) and math.isnan(a)) or
                    abs(e - a) <= ATOL + RTOL * abs(e)):
                return f"{e} vs {a}"
        elif exact_values and e != a:
            return f"{e!r} vs {a!r}"
    return None


def _close(e: torch.Tensor, a: torch.Tensor) -> bool:
    if e.dtype == torch.bool or not (e.is_floating_point() or e.is_complex()):
        return torch.equal(e, a)
    rtol, atol = TOLERANCES.get(e.dtype, (RTOL, ATOL))
    return torch.allclose(e, a, rtol=rtol, atol=atol, equal_nan=True)


def _max_diff(e: torch.Tensor, a: torch.Tensor):
    try:
        return (e.double() - a.double()).abs().nan_to_num(0).max().item()
    except Exception:  # noqa: BLE001
        return "?"


def run_sample(op, sample, check_values: bool) -> tuple[bool, list[str], str]:
    """(correct, fallback op names, failure reason) of one sample."""
    keep = CPU_ARGS.get(op.name)

    def call(mapper):
        inp = mapper(sample.input)
        args = tuple(a if i == keep else tree_map(mapper, a) for i, a in enumerate(sample.args))
        kwargs = {k: (mapper(v) if k == "device" else tree_map(mapper, v))
                  for k, v in sample.kwargs.items()}
        return op(inp, *args, **kwargs)

    fix = (lambda e, a: _tied_indices(op, sample, e, a)) if op.name in TIED_INDICES else None
    return compare(lambda: call(lambda x: x), lambda: _outputs_to_cpu(call(_to_lazy)),
                   check_values, fix)


def _tied_indices(op, sample, expected, actual):
    """``actual`` with eager's indices where its own point at the same values
    (ties: torch documents no order among equal elements unless stable)."""
    x, pair = sample.input, isinstance(expected, tuple)
    indices, wanted = (actual[1], expected[1]) if pair else (actual, expected)
    if not isinstance(indices, torch.Tensor) or indices.shape != wanted.shape or \
            x.dim() == 0 or sample.kwargs.get("stable"):
        return actual
    spot = TIED_INDICES[op.name]
    dim = sample.args[spot] if len(sample.args) > spot else sample.kwargs.get("dim", -1)
    if indices.dim() < x.dim():  # keepdim=False
        indices, wanted = indices.unsqueeze(dim), wanted.unsqueeze(dim)
    values = expected[0].unsqueeze(dim) if pair and expected[0].dim() < x.dim() else \
        expected[0] if pair else x.gather(dim, wanted)
    if indices.numel() and not torch.equal(x.gather(dim, indices), values):
        return actual
    return type(actual)((actual[0], expected[1])) if pair else expected


def compare(eager, lazy, check_values: bool, fix=None) -> tuple[bool, list[str], str]:
    """(correct, fallback op names, failure reason) of running ``eager()`` and
    ``lazy()`` (its outputs on the CPU); both raising counts as correct.
    ``check_values``: values count, not only dtypes and shapes; ``fix(expected,
    actual)``: the lazy outputs made comparable (tied indices)."""
    try:
        expected, eager_error = eager(), None
    except Exception as exc:  # noqa: BLE001
        expected, eager_error = None, exc
    metrics = get_runtime().metrics
    before = dict(metrics.fallbacks)
    try:
        actual, lazy_error = lazy(), None
    except Exception as exc:  # noqa: BLE001
        actual, lazy_error = None, exc
    fell = [k for k, v in metrics.fallbacks.items() if v > before.get(k, 0)]
    if eager_error is not None:
        ok = lazy_error is not None
        return ok, fell, "" if ok else f"eager raised {type(eager_error).__name__}, lazy did not"
    if lazy_error is not None:
        return False, fell, f"{type(lazy_error).__name__}: {str(lazy_error).splitlines()[0][:160]}"
    if fix is not None:
        actual = fix(expected, actual)
    reason = _same(expected, actual, check_values)
    return reason is None, fell, reason or ""


def run_op(op, max_samples: int = 60, dtype: torch.dtype = torch.float32) -> OpResult:
    name = op_name(op)
    result = OpResult(name)
    start = time.perf_counter()
    check_values = not any(word in op.name for word in UNCHECKED_VALUES)
    try:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))
        if max_samples:
            samples = samples[:max_samples]
    except Exception as exc:  # noqa: BLE001
        result.failures.append(f"sample_inputs raised {type(exc).__name__}")
        return result
    for sample in samples:
        result.samples += 1
        random = (sample.kwargs.get("dropout_p", 0) > 0  # attention with dropout
                  or sample.kwargs.get("training") is True)
        ok, fell, reason = run_sample(op, sample, check_values and not random)
        result.correct += ok
        result.fell_back += bool(fell) and ok
        result.fallback_ops.extend(f for f in fell if f not in result.fallback_ops)
        if not ok and len(result.failures) < 3:
            result.failures.append(reason)
    result.seconds = time.perf_counter() - start
    return result


@dataclass
class Totals:
    ops: int
    samples: int
    correct: int
    fully_lowered: int
    fell_back_ops: int
    failed_ops: int

    @property
    def sample_rate(self) -> float:
        return self.correct / max(self.samples, 1)

    @property
    def lowered_rate(self) -> float:
        return self.fully_lowered / max(self.ops, 1)


def totals(results: list[OpResult]) -> Totals:
    return Totals(
        ops=len(results), samples=sum(r.samples for r in results),
        correct=sum(r.correct for r in results),
        fully_lowered=sum(r.status == "pass" for r in results),
        fell_back_ops=sum(r.status == "fell back" for r in results),
        failed_ops=sum(r.status == "fail" for r in results),
    )


def run(names: list[str] | None = None, verbose: bool = True,
        max_samples: int = 60, dtype: torch.dtype = torch.float32,
        ) -> tuple[list[OpResult], Totals]:
    results = []
    _use_lazy_mark_step()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in supported_ops(names, dtype):
            r = run_op(op, max_samples, dtype)
            results.append(r)
            if verbose:
                detail = "; ".join(r.failures) if r.status == "fail" else \
                    ", ".join(r.fallback_ops) if r.status == "fell back" else ""
                print(f"{r.status:<10} {r.name:<45} {r.correct:>3}/{r.samples:<3} "
                      f"{r.seconds:6.1f}s  {detail[:200]}", flush=True)
    return results, totals(results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", help="comma-separated op names (default: all)")
    parser.add_argument("--json", help="write per-op results and totals here")
    parser.add_argument("--max-samples", type=int, default=60,
                        help="samples per op (0: all)")
    parser.add_argument("--dtype", default="float32",
                        help="dtype of the samples (float32, float64, int64, bool, ...)")
    args = parser.parse_args()
    names = args.ops.split(",") if args.ops else None
    dtype = getattr(torch, args.dtype, None)
    if not isinstance(dtype, torch.dtype):
        parser.error(f"--dtype: {args.dtype!r} is not a torch dtype")
    results, t = run(names, max_samples=args.max_samples, dtype=dtype)
    print(f"\ndtype: {dtype}  ops: {t.ops}  "
          f"fully lowered: {t.fully_lowered} ({t.lowered_rate:.1%})  "
          f"correct with fallback: {t.fell_back_ops}  failing: {t.failed_ops}")
    print(f"samples: {t.samples}  correct: {t.correct} ({t.sample_rate:.1%})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"totals": asdict(t), "ops": [asdict(r) | {"status": r.status}
                                                    for r in results]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
