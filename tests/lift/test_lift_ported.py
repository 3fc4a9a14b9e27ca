"""Loops written as someone porting C code would (locals reassigned in
if/elif chains, running values written each iteration, index tracking, two
passes, borders skipped, Horner's rule, early exits): each lifted program
equals the loop code on fresh inputs, numpy and lazytensor.numpy alike, and
an early ``break`` is refused with a LiftError."""

import numpy as np
import pytest
from lazytensor.lift import LiftError, lift
from tasks_ported import (
    argmax_loop,
    box_blur,
    clip_elif,
    first_negative,
    horner,
    prefix_sum,
    variance,
)


def running_max_rows(a):
    n, m = a.shape
    out = np.zeros_like(a)
    for i in range(n):
        best = a[i, 0]
        for j in range(m):
            if a[i, j] > best:
                best = a[i, j]
            out[i, j] = best
    return out


def product_plain(x):  # `p = p * x[i]`, not `p *= x[i]`; a counted while
    p = 1.0
    i = 0
    while i < len(x):
        p = p * x[i]
        i = i + 1
    return p


def _vec(r, n):
    return (r.standard_normal(n),)


ARGS = {
    clip_elif: lambda r, n: (r.standard_normal(n), np.array(-0.5), np.array(0.5)),
    prefix_sum: _vec,
    running_max_rows: lambda r, n: (r.standard_normal((n, n + 1)),),
    argmax_loop: lambda r, n: (r.integers(-3, 4, n),),  # ties: the first one wins
    variance: _vec,
    box_blur: lambda r, n: (r.standard_normal((n + 2, n + 3)),),
    product_plain: lambda r, n: (r.random(n) + 0.5,),
    horner: lambda r, n: (r.standard_normal(4), r.standard_normal(n)),
}


@pytest.mark.parametrize("fn", list(ARGS), ids=lambda f: f.__name__)
def test_ported_loop_lifts_and_equals_loops(fn):
    r = np.random.default_rng(11)
    prog = lift(fn, [ARGS[fn](r, 4), ARGS[fn](r, 7)], time_limit=20)
    assert prog.verification.passed, str(prog)
    for n in (1, 3, 12):
        args = ARGS[fn](r, n)
        want = fn(*[np.array(a, copy=True) for a in args])
        np.testing.assert_allclose(prog(*args), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("fn", [prefix_sum, argmax_loop, box_blur, product_plain],
                         ids=lambda f: f.__name__)
def test_ported_loop_runs_on_lazy_arrays(fn):
    import lazytensor.numpy as lnp
    r = np.random.default_rng(5)
    prog = lift(fn, [ARGS[fn](r, 5)], time_limit=20)
    args = ARGS[fn](r, 9)
    got = prog(*[lnp.asarray(a) for a in args])
    assert type(got).__module__.startswith("lazytensor.numpy")
    np.testing.assert_allclose(np.asarray(got), fn(*args), rtol=1e-9)


def test_early_break_is_refused():
    with pytest.raises(LiftError, match="Break"):
        lift(first_negative, [(np.array([1.0, -2.0, 3.0]),)], time_limit=5)
