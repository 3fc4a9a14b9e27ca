"""Lowering: one table from core op to a ``jax.lax`` function.

Each entry is ``fn(node, *operand_values) -> value``; it reads the node's
attrs and its already-inferred shape/dtype and never re-infers them. Only
this module, ``lazytensor.core.compiler`` and ``lazytensor.core.placement``
(device layouts) import jax.
"""

from __future__ import annotations

import functools
from typing import Callable

import jax
import jax.numpy as jnp  # only for dtype-generic constants in a few lowerings
from jax import lax
from lazytensor.core import dtypes as dt
from lazytensor.core import placement
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op

Lowering = Callable[..., object]
PRECISION = lax.Precision.HIGHEST  # match the frameworks' fp32 matmuls, not TF32/bf16 passes


def _unary(fn) -> Lowering:
    return lambda node, x: fn(x)


def _binary(fn) -> Lowering:
    return lambda node, x, y: fn(x, y)


def unpack_bank(bank) -> list:
    """A scalar bank (1-d) as its 0-d values, in one split (indexing each
    value through jax.numpy costs about three times the tracing time)."""
    n = bank.shape[0]
    return [lax.reshape(part, ()) for part in lax.split(bank, [1] * n)] if n > 1 else \
        [lax.reshape(bank, ())]


def lower_scalar(node: Node, value):
    """A SCALAR leaf: one value from its dtype's bank, filled to the node's shape."""
    return lax.broadcast_in_dim(value, node.shape, ()) if node.shape else value


def _pow(node: Node, x, y):
    if dt.is_inexact(node.dtype):
        return lax.pow(x, y)
    # integers: square-and-multiply over the exponent's bits
    acc, base = jnp.ones_like(x), x
    for _ in range(8 * node.dtype.itemsize):
        acc = lax.select(lax.bitwise_and(y, jnp.ones_like(y)) == 1, acc * base, acc)
        base = base * base
        y = lax.shift_right_logical(y, jnp.ones_like(y))
    return acc


# float -> these ints wraps through int64, as numpy and torch do on x86
# ((img * 1.5).astype(uint8): 300.7 -> 44, -1.0 -> 255); XLA alone saturates
_WRAPPED_INTS = (dt.int8, dt.int16, dt.uint8, dt.uint16, dt.uint32)


def _convert(node: Node, x):
    if node.dtype in _WRAPPED_INTS and jnp.issubdtype(x.dtype, jnp.floating):
        x = lax.convert_element_type(x, jnp.int64)
    return lax.convert_element_type(x, node.dtype)


def _mode(mode: str) -> lax.GatherScatterMode:
    return {
        "clip": lax.GatherScatterMode.CLIP,
        "fill": lax.GatherScatterMode.FILL_OR_DROP,
        "promise_in_bounds": lax.GatherScatterMode.PROMISE_IN_BOUNDS,
    }[mode]


def _gather(node: Node, x, indices):
    offset, collapsed, start_map, op_batch, idx_batch, slice_sizes, mode = node.attrs
    dnums = lax.GatherDimensionNumbers(offset, collapsed, start_map, op_batch, idx_batch)
    return lax.gather(x, indices, dnums, slice_sizes, mode=_mode(mode))


_SCATTERS = {
    "set": lax.scatter, "add": lax.scatter_add, "mul": lax.scatter_mul,
    "min": lax.scatter_min, "max": lax.scatter_max,
}


# bools add as OR and multiply as AND (numpy's and torch's bool arithmetic);
# XLA has no add or multiply for them
_BOOL_SCATTERS = {"add": "max", "mul": "min"}


def _scatter(node: Node, x, indices, updates):
    window, inserted, to_operand, op_batch, idx_batch, kind, mode = node.attrs
    if dt.is_bool(node.dtype):
        kind = _BOOL_SCATTERS.get(kind, kind)
    dnums = lax.ScatterDimensionNumbers(window, inserted, to_operand, op_batch, idx_batch)
    return _SCATTERS[kind](x, indices, updates, dnums, mode=_mode(mode))


def _nan_propagating(reducer, x, axes):
    """max/min reductions whose result is NaN where any input is (numpy,
    torch and tnp agree). XLA's CPU backend drops NaNs in vectorized
    reductions of about 1000 elements or more, so the NaN is put back."""
    out = reducer(x, axes)
    if not jnp.issubdtype(x.dtype, jnp.inexact) or not axes:
        return out
    has_nan = lax.reduce_or(lax.ne(x, x), axes)
    return lax.select(has_nan, lax.full_like(out, jnp.nan), out)


def _reduce_window(combine) -> Lowering:
    def lower(node: Node, x, init):
        dims, strides, padding, base_dil, win_dil = node.attrs
        return lax.reduce_window(x, init, combine, dims, strides, padding, base_dil, win_dil)

    return lower


def _key(raw):
    return jax.random.wrap_key_data(raw, impl="threefry2x32")


def _rng(sample) -> Lowering:
    def lower(node: Node, raw):
        shape, dtype = node.attrs
        return sample(_key(raw), shape, dtype)

    return lower


def _sort(node: Node, x):
    axis, descending, stable = node.attrs
    if descending:
        return lax.rev(lax.sort(x, dimension=axis, is_stable=stable), (axis,))
    return lax.sort(x, dimension=axis, is_stable=stable)


def _argsort(node: Node, x):
    axis, descending, stable, index_dtype = node.attrs
    n = x.shape[axis]
    src = lax.rev(x, (axis,)) if descending else x
    iota = lax.broadcasted_iota(index_dtype, x.shape, axis)
    _, perm = lax.sort((src, iota), dimension=axis, is_stable=stable, num_keys=1)
    if descending:  # stable descending: sort the reversed array, map indices back
        perm = (n - 1) - lax.rev(perm, (axis,))
    return perm


def _dot_general(node: Node, a, b):
    dims, out_dtype = node.attrs
    return lax.dot_general(a, b, dims, precision=PRECISION, preferred_element_type=out_dtype)


def _conv(node: Node, lhs, rhs):
    strides, padding, lhs_dil, rhs_dil, dnums, groups, batch_groups = node.attrs
    return lax.conv_general_dilated(
        lhs, rhs, strides, padding, lhs_dil, rhs_dil, dnums, groups, batch_groups,
        precision=PRECISION,
    )


def _triangular_solve(node: Node, a, b):
    left_side, lower, transpose_a, unit_diagonal = node.attrs
    return lax.linalg.triangular_solve(
        a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
        unit_diagonal=unit_diagonal,
    )


def _log_add(terms: list):
    """log(sum(exp(terms))), -inf with zero gradients where every term is -inf."""
    top = terms[0]
    for t in terms[1:]:
        top = lax.max(top, t)
    shift = jnp.where(top == -jnp.inf, jnp.zeros_like(top), top)
    total = sum(lax.exp(t - shift) for t in terms)
    empty = total == 0
    out = shift + lax.log(jnp.where(empty, jnp.ones_like(total), total))
    return jnp.where(empty, jnp.full_like(out, -jnp.inf), out)


def _ctc_alpha(node: Node, emit, skip, lengths):
    """The CTC forward recursion as one ``lax.scan`` over frames: each
    state is reached from itself, the one before, and (where ``skip``) two
    before; a sample's alphas stop changing after its own length. One loop
    body compiles in constant time; unrolled over 50 frames with its
    gradient, XLA took minutes."""
    n, length = skip.shape
    state = lax.broadcasted_iota(jnp.int32, (n, length), 1)
    neg_inf = jnp.full((n, length), -jnp.inf, emit.dtype)

    def shifted(alpha, k):
        return lax.concatenate([neg_inf[:, :k], alpha[:, :length - k]], 1)

    def step(alpha, frame):
        t, e = frame
        new = _log_add([alpha, shifted(alpha, 1), jnp.where(skip, shifted(alpha, 2), neg_inf)])
        alpha = jnp.where((t < lengths)[:, None], new + e, alpha)
        return alpha, alpha

    first = jnp.where(state < 2, emit[0], neg_inf)
    frames = jnp.arange(1, emit.shape[0], dtype=lengths.dtype)
    _, rest = lax.scan(step, first, (frames, emit[1:]))
    return lax.concatenate([first[None], rest], 0)


def _vjp(node: Node, *values):
    """Replay the recorded sub-graph in ``node.attrs`` with this table inside
    ``jax.vjp``; pull the cotangent (last operand) back to the ``diff`` refs.
    A differentiated inner node gets a zero perturbation added, so paths
    through it still reach differentiated nodes below it."""
    program, diff, output = node.attrs
    *inputs, cotangent = values
    n_inputs = len(inputs)
    nodes = [Node(Op.DATA, (), (), tuple(v.shape), v.dtype) for v in inputs]  # placeholders
    inner = []
    for op, attrs, shape, dtype, refs in program:  # skeletons with operands, as the compiler's
        nodes.append(Node(op, tuple(nodes[r] for r in refs), attrs, shape, dtype))
        inner.append((nodes[-1], refs))

    def forward(*diff_values):
        vals = list(inputs) + [None] * len(inner)
        perturb = {}
        for ref, value in zip(diff, diff_values, strict=False):
            if ref < n_inputs:
                vals[ref] = value
            else:
                perturb[ref] = value
        for j, (skeleton, refs) in enumerate(inner):
            value = LOWERINGS[skeleton.op](skeleton, *[vals[r] for r in refs])
            ref = n_inputs + j
            vals[ref] = value + perturb[ref] if ref in perturb else value
        return vals[output]

    primals = [inputs[r] if r < n_inputs else jnp.zeros(inner[r - n_inputs][0].shape,
                                                         inner[r - n_inputs][0].dtype)
               for r in diff]
    _, pullback = jax.vjp(forward, *primals)
    return tuple(pullback(cotangent))


def _zero_safe_grad(node: Node, *xs):
    """The wrapped op's lowering (given this node: the same operands, for its
    eager barrier) with gradients that are 0 where the cotangent is 0
    (``jax.custom_vjp``; the pullback is the op's own, masked)."""
    inner = functools.partial(LOWERINGS[Op[node.attrs[0]]], node)

    @jax.custom_vjp
    def fn(*vs):
        return inner(*vs)

    def backward(vs, cotangent):
        grads = jax.vjp(inner, *vs)[1](cotangent)
        return tuple(jnp.where(cotangent == 0, jnp.zeros_like(g), g) for g in grads)

    fn.defvjp(lambda *vs: (inner(*vs), vs), backward)
    return fn(*xs)


_FFT_TYPES = {"fft": lax.FftType.FFT, "ifft": lax.FftType.IFFT, "rfft": lax.FftType.RFFT,
              "irfft": lax.FftType.IRFFT}


def _exps(operands: tuple) -> bool:
    return bool(operands) and all(o.op is Op.EXP for o in operands)


def _square(operands: tuple) -> bool:
    product = operands[0] if operands else None
    return product is not None and product.op is Op.MUL and \
        product.operands[0].key == product.operands[1].key


def _inexact(operands: tuple) -> bool:
    return dt.is_inexact(operands[0].dtype)


# XLA's algebraic simplifier rewrites expressions into forms that change what
# every eager framework computes step by step. Matched on the core graph,
# their operands pass an optimization barrier (gone again before fusion, so
# the ops still fuse) and the lazy result stays the eager one.
_EAGER_BARRIERS: dict[Op, Callable[[tuple], bool]] = {
    # identities that overflow step by step (inf, not the exact value)
    Op.LOG: _exps,  # log(exp(x)) -> x
    Op.MUL: _exps,  # exp(a) * exp(b) -> exp(a + b)
    Op.SQRT: _square,  # sqrt(x * x) -> |x|
    # float division: x / broadcast(c) -> x * (1/c), x / sqrt(b) -> x * rsqrt(b),
    # (a/b)/c -> a/(b*c), x / exp(b) -> x * exp(-b): an ulp off (x / 3.0
    # printed other digits than numpy) or overflowing where eager code is not
    Op.DIV: _inexact,
}


def _with_eager_barrier(op: Op, lowering: Lowering) -> Lowering:
    """``lowering``, with its operands behind a barrier where they match
    ``_EAGER_BARRIERS``."""
    matches = _EAGER_BARRIERS[op]

    def lower(node: Node, *values):
        if matches(node.operands):
            values = lax.optimization_barrier(values)
        return lowering(node, *values)

    return lower


def _fft(node: Node, x):
    fft_type, lengths = node.attrs
    return lax.fft(x, _FFT_TYPES[fft_type], lengths)


LOWERINGS: dict[Op, Lowering] = {
    Op.NEG: _unary(lax.neg), Op.ABS: _unary(lax.abs), Op.SIGN: _unary(lax.sign),
    Op.EXP: _unary(lax.exp), Op.EXP2: _unary(lax.exp2), Op.EXPM1: _unary(lax.expm1),
    Op.LOG: _unary(lax.log), Op.LOG1P: _unary(lax.log1p), Op.SQRT: _unary(lax.sqrt),
    Op.RSQRT: _unary(lax.rsqrt), Op.CBRT: _unary(lax.cbrt), Op.SIN: _unary(lax.sin),
    Op.COS: _unary(lax.cos), Op.TAN: _unary(lax.tan), Op.ASIN: _unary(lax.asin),
    Op.ACOS: _unary(lax.acos), Op.ATAN: _unary(lax.atan), Op.SINH: _unary(lax.sinh),
    Op.COSH: _unary(lax.cosh), Op.TANH: _unary(lax.tanh), Op.ASINH: _unary(lax.asinh),
    Op.ACOSH: _unary(lax.acosh), Op.ATANH: _unary(lax.atanh), Op.FLOOR: _unary(lax.floor),
    Op.CEIL: _unary(lax.ceil),
    Op.ROUND_EVEN: _unary(lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)),
    Op.ROUND_AWAY: _unary(lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO)),
    Op.LOGISTIC: _unary(lax.logistic), Op.ERF: _unary(lax.erf), Op.ERFC: _unary(lax.erfc),
    Op.ERF_INV: _unary(lax.erf_inv), Op.LGAMMA: _unary(lax.lgamma),
    Op.DIGAMMA: _unary(lax.digamma),
    Op.BESSEL_I0E: _unary(lax.bessel_i0e), Op.BESSEL_I1E: _unary(lax.bessel_i1e),
    Op.IGAMMA: _binary(lax.igamma), Op.IGAMMAC: _binary(lax.igammac),
    Op.ZETA: _binary(lax.zeta),
    Op.NOT: _unary(lax.bitwise_not),
    Op.POPCNT: _unary(lax.population_count), Op.CLZ: _unary(lax.clz),
    Op.CONJ: _unary(lax.conj), Op.IS_FINITE: _unary(lax.is_finite),
    Op.REAL: _unary(lax.real), Op.IMAG: _unary(lax.imag),
    Op.ADD: _binary(lax.add), Op.SUB: _binary(lax.sub), Op.MUL: _binary(lax.mul),
    Op.DIV: _binary(lax.div), Op.REM: _binary(lax.rem), Op.POW: _pow,
    Op.MAX: _binary(lax.max), Op.MIN: _binary(lax.min), Op.ATAN2: _binary(lax.atan2),
    Op.NEXTAFTER: _binary(lax.nextafter), Op.AND: _binary(lax.bitwise_and),
    Op.OR: _binary(lax.bitwise_or), Op.XOR: _binary(lax.bitwise_xor),
    Op.SHIFT_LEFT: _binary(lax.shift_left),
    Op.SHIFT_RIGHT_ARITHMETIC: _binary(lax.shift_right_arithmetic),
    Op.SHIFT_RIGHT_LOGICAL: _binary(lax.shift_right_logical),
    Op.COMPLEX: _binary(lax.complex),
    Op.EQ: _binary(lax.eq), Op.NE: _binary(lax.ne), Op.LT: _binary(lax.lt),
    Op.LE: _binary(lax.le), Op.GT: _binary(lax.gt), Op.GE: _binary(lax.ge),
    Op.SELECT: lambda node, p, a, b: lax.select(p, a, b),
    Op.CLAMP: lambda node, lo, x, hi: lax.clamp(lo, x, hi),
    Op.CONVERT: _convert,
    Op.BITCAST_CONVERT: lambda node, x: lax.bitcast_convert_type(x, node.dtype),
    Op.BROADCAST_IN_DIM: lambda node, x: lax.broadcast_in_dim(x, *node.attrs),
    Op.RESHAPE: lambda node, x: lax.reshape(x, node.shape),
    Op.TRANSPOSE: lambda node, x: lax.transpose(x, *node.attrs),
    Op.REV: lambda node, x: lax.rev(x, *node.attrs),
    Op.SLICE: lambda node, x: lax.slice(x, *node.attrs),
    Op.DYNAMIC_SLICE: lambda node, x, *idx: lax.dynamic_slice(x, idx, *node.attrs),
    Op.DYNAMIC_UPDATE_SLICE: lambda node, x, u, *idx: lax.dynamic_update_slice(x, u, idx),
    Op.CONCATENATE: lambda node, *xs: lax.concatenate(xs, *node.attrs),
    Op.PAD: lambda node, x, v: lax.pad(x, v, node.attrs[0]),
    Op.GATHER: _gather,
    Op.SCATTER: _scatter,
    Op.REDUCE_SUM: lambda node, x: lax.reduce_sum(x, node.attrs[0]),
    Op.REDUCE_PROD: lambda node, x: lax.reduce_prod(x, node.attrs[0]),
    Op.REDUCE_MAX: lambda node, x: _nan_propagating(lax.reduce_max, x, node.attrs[0]),
    Op.REDUCE_MIN: lambda node, x: _nan_propagating(lax.reduce_min, x, node.attrs[0]),
    Op.REDUCE_AND: lambda node, x: lax.reduce_and(x, node.attrs[0]),
    Op.REDUCE_OR: lambda node, x: lax.reduce_or(x, node.attrs[0]),
    Op.ARGMAX: lambda node, x: lax.argmax(x, *node.attrs),
    Op.ARGMIN: lambda node, x: lax.argmin(x, *node.attrs),
    Op.CUMSUM: lambda node, x: lax.cumsum(x, *node.attrs),
    Op.CUMPROD: lambda node, x: lax.cumprod(x, *node.attrs),
    Op.CUMMAX: lambda node, x: lax.cummax(x, *node.attrs),
    Op.CUMMIN: lambda node, x: lax.cummin(x, *node.attrs),
    Op.CUMLOGSUMEXP: lambda node, x: lax.cumlogsumexp(x, *node.attrs),
    Op.REDUCE_WINDOW_SUM: _reduce_window(lax.add),
    Op.REDUCE_WINDOW_MAX: _reduce_window(lax.max),
    Op.REDUCE_WINDOW_MIN: _reduce_window(lax.min),
    Op.DOT_GENERAL: _dot_general,
    Op.CONV: _conv,
    Op.IOTA: lambda node: lax.broadcasted_iota(*node.attrs),
    Op.RNG_UNIFORM: _rng(jax.random.uniform),
    Op.RNG_NORMAL: _rng(jax.random.normal),
    Op.RNG_BITS: _rng(lambda key, shape, dtype: jax.random.bits(key, shape, dtype)),
    Op.RNG_FOLD: lambda node, raw, d: jax.random.key_data(jax.random.fold_in(_key(raw), d)),
    Op.SORT: _sort,
    Op.ARGSORT: _argsort,
    Op.TOP_K: lambda node, x: tuple(lax.top_k(x, node.attrs[0])),
    Op.CHOLESKY: lambda node, x: lax.linalg.cholesky(x),
    Op.TRIANGULAR_SOLVE: _triangular_solve,
    Op.EIGH: lambda node, x: tuple(lax.linalg.eigh(x)),
    Op.QR: lambda node, x: tuple(lax.linalg.qr(x, full_matrices=node.attrs[0])),
    Op.SVD: lambda node, x: tuple(lax.linalg.svd(x, full_matrices=node.attrs[0])),
    Op.LU: lambda node, x: tuple(lax.linalg.lu(x)),
    Op.LU_PIVOTS_TO_PERMUTATION: lambda node, p: lax.linalg.lu_pivots_to_permutation(
        p, node.attrs[0]),
    Op.FFT: _fft,
    Op.CTC_ALPHA: _ctc_alpha, Op.ZERO_SAFE_GRAD: _zero_safe_grad,
    Op.TUPLE_GET: lambda node, x: x[node.attrs[0]],
    Op.VJP: _vjp,
    Op.SHARD: lambda node, x: jax.lax.with_sharding_constraint(x, placement.to_jax(node.attrs[0])),
}
# op by op (``compiler.interpret``) nothing rewrites across ops: no barriers
OP_BY_OP_LOWERINGS: dict[Op, Lowering] = dict(LOWERINGS)
LOWERINGS.update({op: _with_eager_barrier(op, LOWERINGS[op]) for op in _EAGER_BARRIERS})
