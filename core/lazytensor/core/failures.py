"""Failure atomicity: a barrier that fails changes no value.

A sync either completes (every handle re-pointed at its result) or leaves
every value as it was: its handles stay pending, for the next barrier
(``Runtime.sync`` puts them back), device data stays valid, and no buffer
is donated. What can fail, and where:

- planning, lowering (an exception in a lowering rule), compiling (XLA
  errors), a ``KeyboardInterrupt`` during any of them: before dispatch,
  so nothing was donated;
- running out of memory: XLA consumes a call's donated buffers even when
  the call then fails to allocate its outputs. ``fits_in_memory`` predicts
  it from the executable's memory analysis; a graph that would not fit is
  run without donations (and fails harmlessly, or runs if the prediction
  was pessimistic);
- a ``KeyboardInterrupt`` between dispatch and the last re-pointed handle
  would lose outputs whose inputs were donated: ``interrupts_deferred``
  holds it until the handles are re-pointed, then raises it (the graph has
  run: its values are there).
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager

# A graph whose footprint is below this share of its device's total memory
# is never checked (reading the free memory costs about 20 us).
CHECK_SHARE = 1 / 16


@contextmanager
def interrupts_deferred():
    """Hold SIGINT (Ctrl-C) inside the block; deliver it at the end. Only the
    main thread receives signals; elsewhere, and under a handler that is not
    Python's, this does nothing."""
    previous = signal.getsignal(signal.SIGINT) \
        if threading.current_thread() is threading.main_thread() else None
    if not callable(previous):
        yield
        return
    caught: list = []
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        previous(signal.SIGINT, caught[0])  # Python's default raises KeyboardInterrupt


def fits_in_memory(executable, arrays: list) -> bool:
    """Whether ``executable`` (its outputs and temporaries, less what its
    donated inputs cover) fits in the free memory of the device that holds
    ``arrays`` (the call's inputs); True when that is unknown."""
    need = footprint(executable)
    if not need:
        return True
    device = _device(arrays)
    total, free = _memory(device, need)
    return total is None or need < total * CHECK_SHARE or free is None or need <= free


def footprint(executable) -> int:
    """Bytes a call of ``executable`` allocates (0 when XLA cannot say);
    computed once per executable."""
    need = getattr(executable, "footprint", None)
    if need is None:
        try:
            stats = executable.compiled.memory_analysis()
            need = stats.output_size_in_bytes + stats.temp_size_in_bytes \
                - stats.alias_size_in_bytes
        except Exception:  # an executable without an analysis: never checked
            need = 0
        executable.footprint = need
    return need


def _device(arrays: list):
    for array in arrays:
        devices = getattr(array, "devices", None)
        if devices is not None:
            return next(iter(devices()))
    return None


def _memory(device, need: int) -> tuple[int | None, int | None]:
    """The device's total and free bytes (None where unknown); the host's
    memory for the CPU (or no device), read only for a large ``need``."""
    if device is not None and device.platform != "cpu":
        stats = device.memory_stats() or {}
        limit = stats.get("bytes_limit")
        if limit is None:
            return None, None
        return limit, limit - stats.get("bytes_in_use", 0)
    total = _host_total()
    if total is None or need < total * CHECK_SHARE:
        return total, None
    return total, _host_free()


def _host_total() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _host_free() -> int | None:
    """Available memory plus free swap (Linux); None elsewhere."""
    try:
        with open("/proc/meminfo") as f:
            fields = dict(line.split(":", 1) for line in f)
    except OSError:
        return None
    kib = [int(fields[k].split()[0]) for k in ("MemAvailable", "SwapFree") if k in fields]
    return 1024 * sum(kib) if kib else None
