"""A data-parallel numpy MLP for the launcher tests: 5 steps over every
device of the run; process 0 writes the losses and weights as JSON to
argv[1]. ``--die-at STEP``: process 1 kills itself (SIGKILL) at that step."""

import json
import os
import signal
import sys

import lazytensor.numpy as lnp
import numpy as np
from lazytensor.launch import device_count, process_index

F32 = np.float32


def main(out: str, die_at: int | None) -> None:
    n = device_count()
    mesh = lnp.Mesh(range(n), (n,), ("data",))
    rng = np.random.default_rng(0)
    w1 = lnp.asarray((rng.normal(size=(8, 16)) * 0.3).astype(F32))
    w2 = lnp.asarray((rng.normal(size=(16, 4)) * 0.3).astype(F32))
    losses = []
    for step in range(5):
        if step == die_at and process_index() == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        x = lnp.shard(lnp.asarray(rng.normal(size=(16, 8)).astype(F32)), mesh, ("data", None))
        y = lnp.shard(lnp.asarray(rng.normal(size=(16, 4)).astype(F32)), mesh, ("data", None))
        h = lnp.tanh(x @ w1)
        d = h @ w2 - y
        g = d * F32(2.0 / d.size)
        gh = (g @ w2.T) * (1 - h ** 2)
        w2 -= F32(0.1) * (h.T @ g)
        w1 -= F32(0.1) * (x.T @ gh)
        losses.append(float((d ** 2).mean()))
    whole_x = np.asarray(x)  # split over the processes: every one reads it (a collective)
    if process_index() == 0:
        with open(out, "w") as f:
            json.dump({"devices": n, "losses": losses, "x": whole_x.tolist(),
                       "w1": np.asarray(w1).tolist(), "w2": np.asarray(w2).tolist()}, f)


if __name__ == "__main__":
    die = sys.argv.index("--die-at") if "--die-at" in sys.argv else None
    main(sys.argv[1], None if die is None else int(sys.argv[die + 1]))
