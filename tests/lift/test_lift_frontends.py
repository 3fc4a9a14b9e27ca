"""A lifted program runs lazily through every frontend: on each frontend's
arrays it records core nodes (pending until observed) and returns that
frontend's array type, equal to the numpy result."""

import loops
import numpy as np
import pytest
from lazytensor.core.ops import LEAVES
from lazytensor.lift import lift

# meant to keep the module on one xdist worker (--dist loadgroup), so that its
# module fixture lifts the five programs once; pytest-xdist 3.8 under pytest 9
# ignores the group (it renames item._nodeid, no longer item.nodeid), so each
# worker that gets tests of this module lifts them (a few seconds)
pytestmark = pytest.mark.xdist_group("test_lift_frontends")


@pytest.fixture(scope="module")
def programs():
    return {name: lift(getattr(loops, name), loops.examples(name), time_limit=30)
            for name in ("softmax", "fir", "overlay", "histogram", "matvec_flat")}


def _inputs(name):
    return loops.EXAMPLES[name](np.random.default_rng(3), 9)


def _numpy_frontend(x):
    import lazytensor.numpy as lnp
    return lnp.asarray(x), lambda v: np.asarray(v)


def _torch_frontend(x):
    import lazytensor.torch as lt
    import torch
    return torch.from_numpy(np.array(x, copy=True)).to(lt.device()), \
        lambda v: v.detach().cpu().numpy()


def _tnp_frontend(x):
    import lazytensor.tf.numpy as ltnp
    return ltnp.asarray(x), lambda v: np.asarray(v)


FRONTENDS = {"numpy": _numpy_frontend, "torch": _torch_frontend, "tnp": _tnp_frontend}


@pytest.mark.parametrize("frontend", sorted(FRONTENDS))
@pytest.mark.parametrize("name", ["softmax", "fir", "overlay", "histogram", "matvec_flat"])
def test_lifted_program_records_lazily_in_each_frontend(programs, frontend, name):
    prog = programs[name]
    host = _inputs(name)
    want = prog(*[np.array(a, copy=True) for a in host])
    lazy, to_numpy = zip(*[FRONTENDS[frontend](a) for a in host], strict=True)
    got = prog(*lazy)
    assert type(got) is type(lazy[0])  # the frontend's own array type
    assert got._h.node.op not in LEAVES  # recorded, not computed
    np.testing.assert_allclose(to_numpy[0](got), want, rtol=1e-9, atol=1e-12)


def test_lift_imports_no_framework():
    import subprocess
    import sys
    code = ("import sys, lazytensor.lift; "
            "print(any(m in sys.modules for m in ('torch', 'tensorflow')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
