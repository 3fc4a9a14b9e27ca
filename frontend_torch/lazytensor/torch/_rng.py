"""Random keys for lazy RNG ops, seeded by torch's own generator.

Each random op takes one 32-bit draw from torch's CPU generator (the
default one, or the ``generator=`` passed) and folds it into the runtime's
RNG key (``get_runtime().rng``). So ``torch.manual_seed`` (and
``fork_rng``/``set_rng_state``) make lazy random streams reproducible, as
does ``lazytensor.torch.manual_seed``, which also reseeds the runtime key.
The draw is a scalar parameter: a new draw never recompiles. The streams
differ from eager torch's (torch does not promise equal masks across
devices either).
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import Node, Op, get_runtime, make, scalar

import torch

_UINT32 = np.dtype(np.uint32)


def next_key(generator: torch.Generator | None = None) -> Node:
    """A fresh core RNG key node."""
    draw = torch.empty((), dtype=torch.int64).random_(generator=generator).item()
    return make(Op.RNG_FOLD, (get_runtime().rng.key, scalar(draw & 0xFFFFFFFF, _UINT32)))
