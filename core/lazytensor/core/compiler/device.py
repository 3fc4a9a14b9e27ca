"""Moving values between the host and the device, and XLA's persistent
compilation cache (compiled executables kept on disk across processes)."""

from __future__ import annotations

import os

import jax
import numpy as np
from lazytensor.core.placement import select_platform

_CACHE_DIR_ENV = "LAZYTENSOR_CACHE_DIR"

# numpy, torch and tnp all have real 64-bit types; JAX narrows them unless told.
jax.config.update("jax_enable_x64", True)
select_platform()  # LAZYTENSOR_PLATFORM, before JAX's backend starts


def enable_persistent_cache(directory: str | None = None) -> str | None:
    """Keep compiled executables on disk across processes (XLA's own cache),
    in ``directory`` or ``$LAZYTENSOR_CACHE_DIR``."""
    directory = directory or os.environ.get(_CACHE_DIR_ENV)
    if directory:
        jax.config.update("jax_compilation_cache_dir", directory)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return directory


def to_device(value) -> jax.Array:
    """A host value as a fresh device array (always a copy: a buffer that we
    may donate later must never alias memory the user holds)."""
    return jax.device_put(np.array(value, copy=True))


def to_host(array: jax.Array) -> np.ndarray:
    """A device array as a fresh, writable host array."""
    return np.array(array, copy=True)


def block(arrays: list) -> None:
    jax.block_until_ready(arrays)
