"""lazytensor.core: the shared IR, op table, lowering to XLA, runtime and metrics."""

from lazytensor.core import metrics
from lazytensor.core import rules as _rules  # noqa: F401  (registers every op)
from lazytensor.core.ir import Node
from lazytensor.core.leaves import constant, scalar
from lazytensor.core.ops import Op
from lazytensor.core.registry import CoreError, DTypeError, ShapeError, make
from lazytensor.core.runtime import Handle, Runtime, ViewHandle, get_runtime, sync, use_runtime

__all__ = [
    "CoreError", "DTypeError", "Handle", "Node", "Op", "Runtime", "ShapeError", "ViewHandle",
    "constant", "get_runtime", "make", "metrics", "scalar", "sync", "use_runtime",
]
