"""Bad input gets numpy's exception type (and numpy's words) at the call
site: each case runs on numpy and on lazy arrays and compares."""

from __future__ import annotations

import traceback

import lazytensor.numpy as lnp
import numpy as np
import pytest

A = np.arange(6.0).reshape(2, 3)
I8 = np.arange(6, dtype=np.int8).reshape(2, 3)

# name -> fn(xp, a, i8): must raise the same type under numpy and lazytensor
CASES = {
    "broadcast": lambda xp, a, i: a + xp.ones(4),
    "broadcast_inplace": lambda xp, a, i: a.__iadd__(xp.ones((3, 3))),
    "matmul_core_dims": lambda xp, a, i: a @ a,
    "reshape_size": lambda xp, a, i: a.reshape(4, 2),
    "reshape_two_unknown": lambda xp, a, i: a.reshape(-1, -1),
    "concatenate_shapes": lambda xp, a, i: xp.concatenate([a, xp.ones((2, 4))], axis=0),
    "stack_shapes": lambda xp, a, i: xp.stack([a, a.T]),
    "sum_axis": lambda xp, a, i: xp.sum(a, axis=2),
    "mean_axis": lambda xp, a, i: a.mean(axis=-3),
    "argmax_axis": lambda xp, a, i: xp.argmax(a, axis=5),
    "cumsum_axis": lambda xp, a, i: xp.cumsum(a, axis=2),
    "expand_dims_axis": lambda xp, a, i: xp.expand_dims(a, 4),
    "squeeze_not_one": lambda xp, a, i: xp.squeeze(a, axis=0),
    "swapaxes_axis": lambda xp, a, i: xp.swapaxes(a, 0, 3),
    "transpose_axes": lambda xp, a, i: xp.transpose(a, (0, 0)),
    "bitwise_float": lambda xp, a, i: a & a,
    "invert_float": lambda xp, a, i: ~a,
    "shift_float": lambda xp, a, i: i << 1.5,
    "bool_negative": lambda xp, a, i: -(a > 1),
    "inplace_unsafe_cast": lambda xp, a, i: i.__iadd__(1.5),
    "out_unsafe_cast": lambda xp, a, i: xp.multiply(i, 2.5, out=i),
    "overflow_int": lambda xp, a, i: i * 1000,
    "index_out_of_bounds": lambda xp, a, i: a[5],
    "index_too_many": lambda xp, a, i: a[0, 0, 0],
    "index_array_bounds": lambda xp, a, i: a[:, [0, 3]],
    "index_float": lambda xp, a, i: a[1.5],
    "mask_shape": lambda xp, a, i: a[np.array([True, False, True])],
    "setitem_shape": lambda xp, a, i: a.__setitem__(slice(None), xp.ones(4)),
    "len_0d": lambda xp, a, i: len(a.sum()),
    "bool_ambiguous": lambda xp, a, i: bool(a),
    "float_of_array": lambda xp, a, i: float(a),
    "split_unequal": lambda xp, a, i: xp.split(a, 2, axis=1),
    "max_empty": lambda xp, a, i: xp.max(a[:, :0], axis=1),
    "nonbroadcast_out": lambda xp, a, i: xp.add(a, 1, out=xp.zeros(3)),
}


def _outcome(fn, xp, a, i):
    try:
        fn(xp, a, i)
    except Exception as exc:  # noqa: BLE001
        return exc
    return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_exception_type_as_numpy(name):
    fn = CASES[name]
    expected = _outcome(fn, np, A.copy(), I8.copy())
    assert expected is not None, f"numpy does not raise for {name}"
    got = _outcome(fn, lnp, lnp.asarray(A), lnp.asarray(I8))
    assert got is not None, f"lazytensor does not raise for {name} ({expected!r})"
    assert type(got) is type(expected) or isinstance(got, type(expected)), (got, expected)


@pytest.mark.parametrize("name", ["broadcast", "reshape_size", "sum_axis", "concatenate_shapes",
                                  "overflow_int", "inplace_unsafe_cast", "bitwise_float",
                                  "index_out_of_bounds"])
def test_same_message_as_numpy(name):
    fn = CASES[name]
    expected = _outcome(fn, np, A.copy(), I8.copy())
    got = _outcome(fn, lnp, lnp.asarray(A), lnp.asarray(I8))
    assert str(got).strip() == str(expected).strip()


def test_axis_error_is_numpys_class():
    with pytest.raises(np.exceptions.AxisError):
        lnp.sum(lnp.ones((2, 2)), axis=3)
    with pytest.raises(np.exceptions.AxisError):
        np.mean(lnp.ones((2, 2)), axis=-3)


def test_error_is_raised_at_the_callers_line():
    x = lnp.ones((2, 3))
    try:
        x + lnp.ones(4)  # the line the traceback must name
    except ValueError as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        assert frames[0].name == "test_error_is_raised_at_the_callers_line"
        assert "x + lnp.ones(4)" in frames[0].line
        assert exc.__cause__ is None and exc.__suppress_context__
    else:
        pytest.fail("no error")


def test_read_only_views_refuse_writes():
    x = lnp.ones((2, 3))
    b = lnp.broadcast_to(x[0], (4, 3))
    with pytest.raises(ValueError, match="read-only"):
        b[0, 0] = 5.0
    d = lnp.diagonal(x)
    with pytest.raises(ValueError, match="read-only"):
        d += 1
    host = np.ones((2, 3))
    with pytest.raises(ValueError, match="read-only"):
        np.diagonal(host)[0] = 1  # numpy says the same


def test_copy_false_cannot_avoid_copy():
    with pytest.raises(ValueError):
        np.asarray(lnp.ones(3), copy=False)
    with pytest.raises(ValueError):
        lnp.reshape(lnp.ones((2, 3)).T, (6,), copy=False)
