"""Moving values between the host and the device, and the switch of the
persistent compile cache (``disk_cache``: executables kept on disk across
processes)."""

from __future__ import annotations

import jax
import numpy as np
from lazytensor.core.compiler import disk_cache
from lazytensor.core.placement import select_platform

# numpy, torch and tnp all have real 64-bit types; JAX narrows them unless told.
jax.config.update("jax_enable_x64", True)
select_platform()  # LAZYTENSOR_PLATFORM, before JAX's backend starts


def enable_persistent_cache(directory: str | None = None) -> str | None:
    """Keep compiled executables on disk across processes in ``directory``
    (by default where the environment says: ``disk_cache.default_directory``;
    the cache is on by default, this moves it); returns the directory."""
    cache = disk_cache.configure(directory or disk_cache.default_directory())
    return None if cache is None else str(cache.directory)


def persistent_cache() -> disk_cache.DiskCache | None:
    """The process's persistent compile cache (None when it is off)."""
    return disk_cache.active()


def to_device(value) -> jax.Array:
    """A host value as a fresh device array (always a copy: a buffer that we
    may donate later must never alias memory the user holds)."""
    return jax.device_put(np.array(value, copy=True))


def to_host(array: jax.Array) -> np.ndarray:
    """A device array as a fresh, writable host array."""
    return np.array(array, copy=True)


def block(arrays: list) -> None:
    jax.block_until_ready(arrays)
