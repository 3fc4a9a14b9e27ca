"""The counters and timers one runtime keeps (``Metrics``), with a text
report and a dict form. ``lazytensor.core.metrics`` reads the active
runtime's.

>>> m = Metrics()
>>> m.count("cache_hits", 2)
>>> m.as_dict()["counters"]["cache_hits"]
2
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field

COUNTERS = (
    "ops_recorded", "graphs_executed", "nodes_executed", "cache_hits", "cache_misses",
    "auto_cuts", "transfers_to_device", "transfers_to_host", "donated_buffers",
    "eager_fallbacks", "graphs_interpreted", "host_reads", "persistent_cache_hits",
    "steps_traced", "steps_replayed",
)
TIMERS = ("compile", "execute", "interpret", "trace_plan")
MAX_MISS_REASONS = 50


@dataclass
class Metrics:
    counters: Counter = field(default_factory=Counter)
    timers: dict = field(default_factory=dict)  # name -> [calls, seconds]
    fallbacks: Counter = field(default_factory=Counter)  # op name -> calls
    miss_reasons: list = field(default_factory=list)
    capture_notes: list = field(default_factory=list)  # guard misses, steps never replayed

    def count(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    def add_time(self, name: str, seconds: float) -> None:
        entry = self.timers.setdefault(name, [0, 0.0])
        entry[0] += 1
        entry[1] += seconds

    @contextmanager
    def timed(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add_time(name, time.perf_counter() - start)

    def fallback(self, op_name: str) -> None:
        self.counters["eager_fallbacks"] += 1
        self.fallbacks[op_name] += 1

    def miss(self, reason: str) -> None:
        self.counters["cache_misses"] += 1
        self.miss_reasons.append(reason)
        del self.miss_reasons[:-MAX_MISS_REASONS]

    def capture_note(self, text: str) -> None:
        """Why a captured step was traced again, or is never replayed."""
        self.capture_notes.append(text)
        del self.capture_notes[:-MAX_MISS_REASONS]

    def reset(self) -> None:
        self.capture_notes.clear()
        self.counters.clear()
        self.timers.clear()
        self.fallbacks.clear()
        self.miss_reasons.clear()

    def as_dict(self) -> dict:
        return {
            "counters": {name: self.counters.get(name, 0) for name in COUNTERS}
            | dict(self.counters),
            "timers": {name: {"calls": c, "seconds": s} for name, (c, s) in self.timers.items()},
            "fallbacks": dict(self.fallbacks),
            "cache_miss_reasons": list(self.miss_reasons),
            "capture_notes": list(self.capture_notes),
        }

    def report(self) -> str:
        d = self.as_dict()
        lines = ["lazytensor metrics", "  counters:"]
        lines += [f"    {k:<22}{v:>12}" for k, v in d["counters"].items()]
        lines.append("  timers:")
        for name, t in d["timers"].items():
            mean = t["seconds"] / t["calls"] * 1e3 if t["calls"] else 0.0
            lines.append(
                f"    {name:<22}{t['calls']:>6} calls {t['seconds'] * 1e3:>10.1f} ms"
                f" (mean {mean:.3f} ms)"
            )
        if d["fallbacks"]:
            lines.append("  eager fallbacks by op:")
            lines += [f"    {k:<40}{v:>8}" for k, v in sorted(d["fallbacks"].items())]
        if d["cache_miss_reasons"]:
            lines.append("  cache misses (latest last):")
            lines += [f"    - {r}" for r in d["cache_miss_reasons"][-10:]]
        if d["capture_notes"]:
            lines.append("  captured steps (latest last):")
            lines += [f"    - {r}" for r in d["capture_notes"][-10:]]
        return "\n".join(lines)
