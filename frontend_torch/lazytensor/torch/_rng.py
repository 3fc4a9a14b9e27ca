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
from lazytensor.core.capture import note_scalar

import torch

_UINT32 = np.dtype(np.uint32)


def next_key(generator: torch.Generator | None = None) -> Node:
    """A fresh core RNG key node (a captured step draws again at each replay)."""
    draw = scalar(_draw(generator), _UINT32)
    note_scalar(draw, lambda: _draw(generator))
    return make(Op.RNG_FOLD, (get_runtime().rng.key, draw))


def _draw(generator: torch.Generator | None) -> int:
    return torch.empty((), dtype=torch.int64).random_(generator=generator).item() & 0xFFFFFFFF
