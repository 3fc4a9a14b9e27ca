"""The VJP op: a vector-Jacobian product of a recorded sub-graph.

Operands: the sub-graph's inputs (values from outside it, the differentiated
leaves among them), then the cotangent. Attrs:
``program``: per inner node ``(op, attrs, shape, dtype, refs)``, where a ref
``r < n_inputs`` names operand ``r`` and ``r >= n_inputs`` names inner node
``r - n_inputs``; ``diff``: the refs differentiated (one output each);
``output``: the ref of the differentiated value. Built by
``lazytensor.core.autodiff.grad``; lowered by replaying ``program`` inside
``jax.vjp``.
"""

from __future__ import annotations

from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, register


def _aval(operands, program, ref: int) -> tuple:
    n_inputs = len(operands) - 1
    if not 0 <= ref < n_inputs + len(program):
        raise ShapeError(f"VJP: ref {ref} is outside the program")
    if ref < n_inputs:
        return operands[ref].shape, operands[ref].dtype
    _, _, shape, dtype, _ = program[ref - n_inputs]
    return shape, dtype


def _vjp_rule(operands, attrs):
    program, diff, output = attrs
    if not operands:
        raise ShapeError("VJP: needs a cotangent operand")
    cotangent = operands[-1]
    out_shape, out_dtype = _aval(operands, program, output)
    if (cotangent.shape, cotangent.dtype) != (out_shape, out_dtype):
        raise DTypeError(
            f"VJP: cotangent {cotangent.dtype}{list(cotangent.shape)} does not match the "
            f"output {out_dtype}{list(out_shape)}"
        )
    avals = [_aval(operands, program, ref) for ref in diff]
    return tuple(a[0] for a in avals), tuple(a[1] for a in avals)


register(Op.VJP, None, ("program", "diff", "output"), _vjp_rule)
