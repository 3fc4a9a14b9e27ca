"""``python -m lazytensor.launch --nproc N script.py [args]``: run a
lazytensor program as N cooperating processes (one SPMD program over the
devices of all of them), through ``jax.distributed``.

Each process runs the script unchanged, after ``worker.initialize`` has
joined it to the others: ``jax.distributed.initialize`` with a coordinator
(process 0 serves it), CPU collectives over gloo, and
``--devices-per-process`` virtual CPU devices when JAX runs on the CPU. A
mesh over ``range(device_count())`` then spans every process; each process
passes the same whole values to ``shard``/``mark_sharding`` and keeps its
own devices' shards. Reading a value split over several processes gathers
it from all of them, so every process must read it (as every process runs
every step); a replicated value (a loss) is read locally. Run without the
launcher, the same script is one process over its local devices.

Several machines: run the launcher on each, with the same ``--nnodes``,
``--coordinator host:port`` (an address of machine 0 that the others reach)
and each machine's ``--node-rank`` (0 .. nnodes-1); process ids are
``node_rank * nproc + local rank``. Nothing in the script changes.

Failure: when a process exits with an error or is killed, the launcher
stops the others (SIGTERM, then SIGKILL after ``--grace`` seconds) and exits
with an error naming it; ``--timeout`` bounds the whole run (a hung
process). Inside the processes, JAX's heartbeat (``--heartbeat`` seconds)
makes the survivors of a lost peer fail rather than wait forever.
"""

from lazytensor.launch.launcher import LaunchError, launch
from lazytensor.launch.worker import device_count, process_count, process_index

__all__ = ["LaunchError", "device_count", "launch", "process_count", "process_index"]
