"""The failed sync of issue 24 in numpy: a pending ``w -= 1.0`` and, in the
same graph, an array too large to allocate. The sync raises; ``w`` stays
pending with its buffer intact, and the next sync computes it."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core import Op, use_runtime


def test_a_sync_that_runs_out_of_memory_keeps_what_was_pending():
    with use_runtime():
        w = lnp.zeros(4, dtype=np.float32)
        lnp.sync()
        w -= 1.0
        z = lnp.zeros((10**6, 10**6)) + 1.0  # 8 TB
        with pytest.raises(Exception, match="RESOURCE_EXHAUSTED|[Oo]ut of memory"):
            lnp.sync()
        del z
        lnp.sync()
        assert w._h.node.op is Op.DATA  # computed by the barrier, not when read
        np.testing.assert_array_equal(np.asarray(w), np.full(4, -1.0))
