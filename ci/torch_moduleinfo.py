"""Run PyTorch's ModuleInfo database through lazytensor.torch and compare with eager.

PyTorch's own conformance data for ``torch.nn`` modules
(``torch.testing._internal.common_modules.module_db``: every module class with
the constructor arguments and forward inputs its tests use). For every
module input, in training and (where they differ) eval mode, one module is
built on the CPU and a deep copy of it is moved to the lazy device; both run
the same forward, then ``backward`` of the sum of their floating outputs. A
sample is *correct* when the outputs, the gradients of the parameters and of
the inputs, and the buffers afterwards (BatchNorm's running statistics) agree
with eager (float32 tolerance; dtype and shape exactly), or when both raise.
It *fell back* when an ATen op ran through the counted eager fallback.

    python ci/torch_moduleinfo.py                      # every module (a few minutes)
    python ci/torch_moduleinfo.py --modules nn.LSTM,nn.Conv2d
    python ci/torch_moduleinfo.py --json out.json
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from dataclasses import asdict

import lazytensor.torch as lt
import torch
from torch.utils._pytree import tree_flatten, tree_map

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from torch_opinfo import OpResult, _outputs_to_cpu, compare  # noqa: E402

# modules whose outputs are random in training mode: compare dtype and shape only
RANDOM_IN_TRAINING = ("Fractional", "RReLU", "Dropout", "Transformer", "MultiheadAttention")


def _lazy_input(x):
    if isinstance(x, torch.Tensor) and x.layout == torch.strided:
        return x.detach().to(lt.device()).requires_grad_(x.requires_grad)
    return x


def _float_outputs(out) -> list[torch.Tensor]:
    leaves, _ = tree_flatten(out)
    return [t for t in leaves if isinstance(t, torch.Tensor) and t.requires_grad]


def _run(module: torch.nn.Module, args, kwargs, leaves: list[bool]):
    """(outputs, parameter grads, input grads, buffers) of forward + backward;
    ``leaves`` says which inputs are leaves in the eager sample (the others,
    made from a leaf by the sample's own ops, have no ``grad`` in eager)."""
    out = module(*args, **kwargs)
    floats = _float_outputs(out)
    if floats:
        sum(t.sum() for t in floats).backward()
    tensors = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)]
    inputs = [t.grad if leaf and t.requires_grad else None
              for t, leaf in zip(tensors, leaves, strict=True)]
    params = [p.grad for p in module.parameters()]
    buffers = [b for b in module.buffers()]
    return out, params, inputs, buffers


def run_sample(info, sample, training: bool) -> tuple[bool, list[str], str]:
    torch.manual_seed(0)
    ctor = sample.constructor_input
    try:
        module = info.module_cls(*ctor.args, **ctor.kwargs).train(training)
    except Exception as exc:  # noqa: BLE001  (a constructor the CPU refuses too)
        return True, [], f"constructor raised {type(exc).__name__}"
    lazy_module = copy.deepcopy(module).to(lt.device())
    fwd = sample.forward_input
    leaves = [t.is_leaf for t in tree_flatten((fwd.args, fwd.kwargs))[0]
              if isinstance(t, torch.Tensor)]
    random = training and any(word in info.name for word in RANDOM_IN_TRAINING)
    return compare(lambda: _run(module, fwd.args, fwd.kwargs, leaves),
                   lambda: _outputs_to_cpu(_run(lazy_module, *tree_map(
                       _lazy_input, (fwd.args, fwd.kwargs)), leaves)),
                   not random)


def run_module(info, max_samples: int) -> OpResult:
    result = OpResult(info.name)
    start = time.perf_counter()
    for training in ((True, False) if info.train_and_eval_differ else (True,)):
        try:
            samples = info.module_inputs_func(info, device="cpu", dtype=torch.float32,
                                              requires_grad=True, training=training)
        except Exception as exc:  # noqa: BLE001
            result.failures.append(f"module_inputs_func raised {type(exc).__name__}")
            continue
        for sample in samples[:max_samples or None]:
            result.samples += 1
            ok, fell, reason = run_sample(info, sample, training)
            result.correct += ok
            result.fell_back += bool(fell) and ok
            result.fallback_ops.extend(f for f in fell if f not in result.fallback_ops)
            if not ok and len(result.failures) < 3:
                result.failures.append(f"{'train' if training else 'eval'} "
                                       f"{sample.desc or ''}: {reason}")
            lt.mark_step()
    result.seconds = time.perf_counter() - start
    return result


def main(argv: list[str] | None = None) -> int:
    from torch.testing._internal.common_modules import module_db

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", help="comma-separated ModuleInfo names (nn.LSTM,...)")
    parser.add_argument("--max-samples", type=int, default=40,
                        help="module inputs per mode (0: all)")
    parser.add_argument("--json", help="write per-module results here")
    args = parser.parse_args(argv)
    wanted = set(args.modules.split(",")) if args.modules else None
    infos = [m for m in module_db if (wanted is None or m.name in wanted)
             and torch.float32 in m.dtypes and not m.is_lazy]
    results = [run_module(info, args.max_samples) for info in infos]
    for r in results:
        line = f"{r.status:9} {r.name:32} {r.correct}/{r.samples}"
        if r.fallback_ops:
            line += f"  fallbacks: {', '.join(sorted(r.fallback_ops))}"
        print(line)
        for failure in r.failures:
            print(f"          {failure}")
    samples, correct = sum(r.samples for r in results), sum(r.correct for r in results)
    full = sum(r.status == "pass" for r in results)
    print(f"\n{full}/{len(results)} modules fully lowered, "
          f"{sum(r.status == 'fell back' for r in results)} with a fallback, "
          f"{sum(r.status == 'fail' for r in results)} failing; "
          f"{correct}/{samples} samples correct")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) | {"status": r.status} for r in results], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
