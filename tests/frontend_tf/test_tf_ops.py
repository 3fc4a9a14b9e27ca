"""Every lowered tnp function against eager tnp: values, dtype and shape over
the op database's samples; where tnp raises, lnp raises the same type. The
elementwise functions all three frontends share are checked by the
cross-frontend tables tests/cross/test_elementwise_table.py and
test_binary_table.py instead."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from lazytensor.tf import sync as lnp_sync
from tf_helpers import assert_same, lnp, tnp
from tf_opdb import OPS, Host

sys.path.insert(0, str(Path(__file__).parents[1] / "cross"))
import test_binary_table  # noqa: E402
import test_elementwise_table  # noqa: E402

# checked by tests/cross/test_elementwise_table.py and test_binary_table.py
CROSS_TABLE = test_elementwise_table.covered("tnp") | test_binary_table.covered("tnp")


def convert(ns, value):
    """Sample arguments for namespace ``ns``: numpy arrays become its arrays."""
    if isinstance(value, Host):
        return value.value
    if isinstance(value, np.ndarray):
        return ns.asarray(value)
    if isinstance(value, list) and value and isinstance(value[0], np.ndarray):
        return [convert(ns, v) for v in value]
    return value


def call(ns, name, args, kwargs):
    args = tuple(convert(ns, a) for a in args)
    kwargs = {k: convert(ns, v) for k, v in kwargs.items()}
    return getattr(ns, name)(*args, **kwargs)


def outcome(ns, name, args, kwargs):
    try:
        return call(ns, name, args, kwargs), None
    except Exception as error:  # noqa: BLE001  (compared between namespaces)
        return None, error


def _least_precise(args) -> str | None:
    """The least precise float dtype among the sample's arrays."""
    names = {getattr(getattr(a, "value", a), "dtype", None) for a in args}
    for name in ("float16", "float32", "complex64"):
        if np.dtype(name) in names:
            return name
    return None


def test_every_lowered_function_has_samples():
    missing = sorted(set(lnp.LOWERED) - set(OPS) - CROSS_TABLE)
    assert not missing, f"lowered without samples in opdb.OPS or the cross table: {missing}"


@pytest.mark.parametrize("name", sorted(set(lnp.LOWERED) - CROSS_TABLE))
def test_matches_tnp(name, fresh_metrics):
    samples = OPS[name]()
    # record every lazy sample first: one graph (one compile) per function
    runs = [(args, kwargs, outcome(tnp, name, args, kwargs), outcome(lnp, name, args, kwargs))
            for args, kwargs in samples]
    lnp_sync()
    for i, (args, kwargs, (want, want_error), (got, got_error)) in enumerate(runs):
        context = f"{name} sample {i}: {[getattr(a, 'dtype', a) for a in args]} {kwargs}"
        if want_error is not None:
            assert got_error is not None, f"{context}: tnp raised {want_error!r}, lnp did not"
            assert isinstance(got_error, type(want_error)), \
                f"{context}: tnp raised {type(want_error).__name__}, lnp {got_error!r}"
            continue
        assert got_error is None, f"{context}: lnp raised {got_error!r}"
        assert_same(got, want, context, _least_precise(args))
    assert fresh_metrics.as_dict()["counters"]["eager_fallbacks"] == 0
