"""The op table is complete and consistent: every op has exactly one rule
and a lowering (leaves excepted), rules raise at construction."""

import lazytensor.core as lc
import numpy as np
import pytest
from lazytensor.core.lowering import LOWERINGS
from lazytensor.core.ops import LEAVES, Op
from lazytensor.core.registry import OPDEFS, CoreError, DTypeError, ShapeError, make, register
from lazytensor.core.runtime import get_runtime

F32 = np.dtype("float32")


def test_every_op_has_a_rule_and_a_lowering():
    missing_rules = [op.name for op in Op if op not in OPDEFS]
    missing_lowerings = [op.name for op in Op if op not in LEAVES and op not in LOWERINGS]
    assert missing_rules == []
    assert missing_lowerings == []


def test_registering_twice_raises():
    with pytest.raises(KeyError, match="registered twice"):
        register(Op.ADD, 2, (), lambda operands, attrs: ((), F32))


def _leaf(shape, dtype=F32):
    return get_runtime().from_host(np.zeros(shape, dtype)).node


def test_shape_error_raised_when_node_is_made():
    with pytest.raises(ShapeError, match="operand shapes differ"):
        make(Op.ADD, (_leaf((2, 3)), _leaf((3, 2))))


def test_strict_dtypes():
    with pytest.raises(DTypeError, match="dtypes differ"):
        make(Op.ADD, (_leaf((2,)), _leaf((2,), np.dtype("float64"))))
    with pytest.raises(DTypeError, match="floating"):
        make(Op.EXP, (_leaf((2,), np.dtype("int32")),))


def test_arity_and_attr_checks():
    with pytest.raises(CoreError, match="takes 1 operands"):
        make(Op.NEG, (_leaf((2,)), _leaf((2,))))
    with pytest.raises(CoreError, match="attrs"):
        make(Op.RESHAPE, (_leaf((2,)),))


def test_structural_key_ignores_data_but_not_structure():
    a, b = _leaf((2, 3)), _leaf((2, 3))
    assert a.key == b.key
    assert make(Op.ADD, (a, b)).key == make(Op.ADD, (b, a)).key
    assert make(Op.ADD, (a, b)).key != make(Op.SUB, (a, b)).key
    assert _leaf((3, 2)).key != a.key


def test_scalar_parameters_hash_by_dtype():
    assert lc.scalar(1.0, F32).key == lc.scalar(2.0, F32).key
    assert lc.scalar(1.0, F32).key != lc.scalar(1.0, np.dtype("float64")).key
    assert lc.constant(1.0, F32).key != lc.constant(2.0, F32).key
