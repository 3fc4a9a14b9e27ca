"""pytest plugin for the reuse report: counts, per core op, how many nodes a
test run builds (every non-leaf node goes through ``registry.make``, which
looks up ``OPDEFS[op]`` and calls its rule, so wrapping the rules sees them
all). Writes ``{op name: count}`` as JSON to ``$LAZYTENSOR_OP_USAGE``.

    LAZYTENSOR_OP_USAGE=ops.json PYTHONPATH=ci python -m pytest -p op_usage_plugin ...
"""

from __future__ import annotations

import json
import os
from collections import Counter

COUNTS: Counter = Counter()
_ENV = "LAZYTENSOR_OP_USAGE"


def _counting(op, rule):
    name = op.name

    def rule_and_count(operands, attrs):
        COUNTS[name] += 1
        return rule(operands, attrs)

    return rule_and_count


def install() -> None:
    """Wrap every registered op's rule (idempotent per op)."""
    from dataclasses import replace

    from lazytensor.core import registry

    for op, opdef in list(registry.OPDEFS.items()):
        if getattr(opdef.rule, "__name__", "") != "rule_and_count":
            registry.OPDEFS[op] = replace(opdef, rule=_counting(op, opdef.rule))


def pytest_configure(config) -> None:
    install()


def pytest_collection_finish(session) -> None:
    install()  # ops registered while test modules were imported


def pytest_unconfigure(config) -> None:
    path = os.environ.get(_ENV)
    if path:
        with open(path, "w") as f:
            json.dump(dict(COUNTS), f, indent=1, sort_keys=True)
