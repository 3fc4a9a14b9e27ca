"""Lifting loop functions: each lifted program is verified, equals the loop
code on fresh inputs of other sizes, and prints in index notation."""

import loops
import numpy as np
import pytest
from lazytensor.lift import LiftError, lift

# meant to keep the module on one xdist worker (--dist loadgroup), so that its
# module fixture lifts every program once; pytest-xdist 3.8 under pytest 9
# ignores the group (it renames item._nodeid, no longer item.nodeid), so each
# worker that gets tests of this module lifts them (a few seconds)
pytestmark = pytest.mark.xdist_group("test_lift_search")


NAMES = ["saxpy", "softmax", "fir", "overlay", "histogram", "matvec_flat"]


@pytest.fixture(scope="module")
def lifted():
    return {name: lift(getattr(loops, name), loops.examples(name), time_limit=30)
            for name in NAMES}


def _outputs(fn, args):
    args = tuple(np.array(a, copy=True) for a in args)
    result = fn(*args)
    return result, args


@pytest.mark.parametrize("name", NAMES)
def test_lifted_program_equals_loops_on_fresh_inputs(lifted, name):
    prog = lifted[name]
    assert prog.verification.passed, str(prog)
    r = np.random.default_rng(7)
    for n in (1, 5, 13):
        args = loops.EXAMPLES[name](r, n)
        want, after = _outputs(getattr(loops, name), args)
        got_args = tuple(np.array(a, copy=True) for a in args)
        got = prog(*got_args)
        if want is None:  # updated in place: the program returns and writes the new values
            np.testing.assert_array_equal(np.asarray(got), after[-1])
            np.testing.assert_array_equal(got_args[-1], after[-1])
        else:
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
            assert np.asarray(got).dtype == np.asarray(want).dtype


def test_printed_program_is_index_notation_and_says_how_it_was_verified(lifted):
    text = str(lifted["fir"])
    assert "y[i] = sum[k](x[i + k] * h[k])" in text
    assert "verified" in text and "fresh inputs" in text
    assert "sizes 1..3 exhaustive" in text
    softmax = [s.name for s in lifted["softmax"].statements]
    assert softmax[-1] == "y" and len(softmax) > 1  # temporaries feed the output
    assert "all 65536 value combinations" in str(lifted["overlay"])


def test_histogram_is_a_scatter_add_and_flat_buffer_a_reshape(lifted):
    assert "where(values[i] == bin, 1, 0)" in str(lifted["histogram"])
    assert "a[i * m + j]" in str(lifted["matvec_flat"])


def test_unliftable_function_raises_one_clear_error():
    with pytest.raises(LiftError) as info:
        lift(loops.smooth, loops.examples("smooth"), time_limit=2)
    text = str(info.value)
    assert "smooth" in text and "`out`" in text
    assert "searched every candidate up to cost" in text and "candidates" in text


def test_proposer_candidates_are_read_and_tried_first():
    seen = []

    def proposer(source):
        seen.append(source)
        return ["y[i] = sum[k](h[k] * x[i + k])", "not a program ((("]

    prog = lift(loops.fir, loops.examples("fir"), time_limit=30, proposer=proposer)
    assert "def fir" in seen[0]
    assert str(prog.statements[0].term) == "sum[k](h[k] * x[i + k])"
    assert prog.verification.passed


def test_triangular_nest_is_refused_with_its_reason():
    A = np.ones((4, 4))
    with pytest.raises(LiftError, match=r"range\(i\), depends on the loop variable i"):
        lift(loops.lower_row_sums, [(A,)], time_limit=5)


def test_local_copy_of_an_argument_reads_as_that_argument():
    x = np.linspace(-1, 1, 7)
    prog = lift(loops.clip_copy, [(x,), (x[:5],)], time_limit=20)
    assert str(prog.statements[0].term) == "where(x[i] < 0, 0.0, x[i])"
    np.testing.assert_array_equal(prog(np.array([-2.0, 3.0])), [0.0, 3.0])


def test_argument_updated_beside_a_return_value_is_lifted_and_checked():
    r = np.random.default_rng(1)
    prog = lift(loops.energy_and_scale, [(r.normal(size=4), r.normal(size=3)),
                                         (r.normal(size=6), r.normal(size=5))], time_limit=20)
    assert prog.inplace == ["y"] and prog.outputs
    x, y = np.arange(3.0), np.ones(2)
    assert float(prog(x, y)) == 5.0
    np.testing.assert_array_equal(y, [2.0, 2.0])
    assert "updates in place: y" in str(prog)
