"""Compile step: a cut graph becomes a jitted function over its parameters,
compiled once per graph signature and kept in an executable cache.

One module per concern: ``planning`` (a graph's signature and arguments),
``structures`` (the plan cache: a repeated structure planned from one walk),
``donation`` (which input buffers the outputs may take; the recycle pool),
``replay`` (a plan's graph as ``jax.lax`` calls), ``executables`` (jit,
compile, the executable cache and its explanations), ``interpreter`` (op by
op, without a whole-graph compile) and ``device`` (host transfers, the
persistent cache).
"""

from lazytensor.core.compiler.device import (
    block,
    enable_persistent_cache,
    persistent_cache,
    to_device,
    to_host,
)
from lazytensor.core.compiler.donation import RecyclePool, is_unreferenced
from lazytensor.core.compiler.executables import Executable, ExecutableCache, build, lower_text, run
from lazytensor.core.compiler.interpreter import distinct_operations, interpret
from lazytensor.core.compiler.planning import (
    BANK_LIMIT,
    Plan,
    _scalar_args,
    add_scratch,
    fill_scratch,
    plan,
)
from lazytensor.core.compiler.structures import PlanCache

__all__ = [
    "BANK_LIMIT", "Executable", "ExecutableCache", "Plan", "RecyclePool", "_scalar_args",
    "PlanCache", "add_scratch", "block", "build", "distinct_operations", "enable_persistent_cache",
    "fill_scratch",
    "interpret", "is_unreferenced", "lower_text", "persistent_cache", "plan", "run", "to_device",
    "to_host",
]
