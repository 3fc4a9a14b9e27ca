"""Random keys for lazy RNG ops (``tf.nn.dropout``), seeded by TensorFlow.

Each random op takes one 31-bit draw from TensorFlow's own generator
(``tf.random.uniform`` with the op's ``seed``, so ``tf.random.set_seed``
and op seeds make lazy streams reproducible run to run) and folds it into
the runtime's RNG key (``get_runtime().rng``). The draw is a scalar
parameter: every step gets a fresh key and a new draw never recompiles.
The numbers differ from eager TensorFlow's: its kernels' stream cannot be
reproduced lazily.
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import Node, Op, get_runtime, make, scalar
from lazytensor.core.capture import note_scalar
from lazytensor.tf import _tf

_UINT32 = np.dtype(np.uint32)


def next_key(seed: int | None = None) -> Node:
    """A fresh core RNG key node (``seed``: TensorFlow's op seed)."""
    draw = scalar(_draw(seed), _UINT32)
    note_scalar(draw, lambda: _draw(seed))  # a captured step draws again at each replay
    return make(Op.RNG_FOLD, (get_runtime().rng.key, draw))


def _draw(seed: int | None) -> int:
    tf = _tf.tf()
    return int(tf.random.uniform((), 0, 2**31 - 1, dtype=tf.int32, seed=seed))
