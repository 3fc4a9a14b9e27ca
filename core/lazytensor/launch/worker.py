"""The process side of a launch: join the run (``initialize``), then run
the script as ``__main__``. The launcher passes the run's shape in
environment variables, so that several machines can be joined by setting
them (see ``lazytensor.launch``)."""

from __future__ import annotations

import os
import runpy
import sys
from dataclasses import dataclass

ENV_COORDINATOR = "LAZYTENSOR_COORDINATOR"
ENV_NUM_PROCESSES = "LAZYTENSOR_NUM_PROCESSES"
ENV_PROCESS_ID = "LAZYTENSOR_PROCESS_ID"
ENV_LOCAL_DEVICES = "LAZYTENSOR_LOCAL_DEVICES"
ENV_HEARTBEAT = "LAZYTENSOR_HEARTBEAT_SECONDS"
ENV_INIT_TIMEOUT = "LAZYTENSOR_INIT_TIMEOUT_SECONDS"


@dataclass(frozen=True, slots=True)
class Role:
    coordinator: str
    num_processes: int
    process_id: int
    local_devices: int | None
    heartbeat: int
    init_timeout: int

    @classmethod
    def from_env(cls, env=os.environ) -> Role | None:
        if ENV_COORDINATOR not in env:
            return None
        local = env.get(ENV_LOCAL_DEVICES)
        return cls(env[ENV_COORDINATOR], int(env[ENV_NUM_PROCESSES]), int(env[ENV_PROCESS_ID]),
                   int(local) if local else None, int(env.get(ENV_HEARTBEAT, "10")),
                   int(env.get(ENV_INIT_TIMEOUT, "60")))

    def as_env(self) -> dict:
        env = {ENV_COORDINATOR: self.coordinator, ENV_NUM_PROCESSES: str(self.num_processes),
               ENV_PROCESS_ID: str(self.process_id), ENV_HEARTBEAT: str(self.heartbeat),
               ENV_INIT_TIMEOUT: str(self.init_timeout)}
        if self.local_devices:
            env[ENV_LOCAL_DEVICES] = str(self.local_devices)
        return env


def initialize(role: Role) -> None:
    """Join the run: CPU collectives over gloo, the local CPU device count,
    then ``jax.distributed.initialize`` (process 0 serves the coordinator)."""
    import jax

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    if role.local_devices:
        jax.config.update("jax_num_cpu_devices", role.local_devices)
    jax.distributed.initialize(
        coordinator_address=role.coordinator, num_processes=role.num_processes,
        process_id=role.process_id, initialization_timeout=role.init_timeout,
        heartbeat_timeout_seconds=role.heartbeat,
        shutdown_timeout_seconds=max(2 * role.heartbeat, 10))


def process_index() -> int:
    """This process's id in the run (0 without the launcher)."""
    import jax

    return jax.process_index()


def process_count() -> int:
    import jax

    return jax.process_count()


def device_count() -> int:
    """Devices over every process of the run."""
    import jax

    return jax.device_count()


def main(argv: list[str]) -> None:
    role = Role.from_env()
    if role is not None:
        initialize(role)
    script, *args = argv
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")

