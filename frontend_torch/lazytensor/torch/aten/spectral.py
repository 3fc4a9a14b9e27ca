"""torch.fft's ATen primitives (``_fft_r2c``, ``_fft_c2c``, ``_fft_c2r``) on
the core's FFT op: the transformed dims move to the end, XLA transforms the
trailing dims, and torch's normalization (0: none, 1: 1/sqrt(n), 2: 1/n)
is applied to the unnormalized transform. Every ``torch.fft`` function is a
composite of these three."""

from __future__ import annotations

import math

from lazytensor.core import Node, Op, make
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import as_node, convert
from lazytensor.torch._tensor import wrap
from lazytensor.torch.aten._common import aten, dim, node

MAX_DIMS = 3  # XLA transforms at most three trailing dims at once


def _to_end(n: Node, dims: tuple[int, ...]) -> tuple[Node, tuple[int, ...]]:
    """``n`` with ``dims`` moved last (in order), and the inverse permutation."""
    perm = tuple(d for d in range(n.ndim) if d not in dims) + dims
    inverse = [0] * n.ndim
    for i, p in enumerate(perm):
        inverse[p] = i
    moved = n if perm == tuple(range(n.ndim)) else make(Op.TRANSPOSE, (n,), perm)
    return moved, tuple(inverse)


def _back(n: Node, inverse: tuple[int, ...]) -> Node:
    return n if inverse == tuple(range(n.ndim)) else make(Op.TRANSPOSE, (n,), inverse)


def _scaled(n: Node, factor: float) -> Node:
    return n if factor == 1 else make(Op.MUL, (n, as_node(factor, n.dtype, n.shape)))


def _norm(normalization: int, count: int) -> float:
    return {0: 1.0, 1: 1.0 / math.sqrt(count), 2: 1.0 / count}[normalization]


def _dims(x: Node, dims) -> tuple[int, ...]:
    return tuple(dim(d, x.ndim) for d in dims)


def _fft_c2c(x, dims, normalization, forward):
    n = node(x)
    dims = _dims(n, dims)
    out = n
    for start in range(0, len(dims), MAX_DIMS):  # separable: groups of three dims
        group = dims[start:start + MAX_DIMS]
        moved, inverse = _to_end(out, group)
        lengths = tuple(moved.shape[-len(group):])
        out = _back(make(Op.FFT, (moved,), "fft" if forward else "ifft", lengths), inverse)
    count = math.prod(n.shape[d] for d in dims)
    unnormalized = 1.0 if forward else float(count)  # XLA's ifft includes 1/n
    return wrap(_scaled(out, unnormalized * _norm(normalization, count)))


def _fft_r2c(x, dims, normalization, onesided):
    n = node(x)
    dims = _dims(n, dims)
    if len(dims) > MAX_DIMS or not onesided:
        complex_in = convert(n, dt.complex_dtype(n.dtype))
        full = _fft_c2c(wrap(complex_in), dims, normalization, True)
        if onesided:
            return _half(full, dims[-1])
        return full
    moved, inverse = _to_end(n, dims)
    lengths = tuple(moved.shape[-len(dims):])
    out = _back(make(Op.FFT, (moved,), "rfft", lengths), inverse)
    return wrap(_scaled(out, _norm(normalization, math.prod(lengths))))


def _half(full, last: int):
    n = node(full)
    limit = list(n.shape)
    limit[last] = n.shape[last] // 2 + 1
    return wrap(make(Op.SLICE, (n,), (0,) * n.ndim, tuple(limit), (1,) * n.ndim))


def _fft_c2r(x, dims, normalization, last_dim_size):
    n = node(x)
    dims = _dims(n, dims)
    if len(dims) > MAX_DIMS:
        raise NotImplementedError("irfft over more than three dims")
    moved, inverse = _to_end(n, dims)
    lengths = tuple(moved.shape[-len(dims):-1]) + (last_dim_size,)
    half = lengths[-1] // 2 + 1
    if moved.shape[-1] != half:  # torch trims or zero-pads the half spectrum
        moved = _fit_last(moved, half)
    out = _back(make(Op.FFT, (moved,), "irfft", lengths), inverse)
    count = math.prod(lengths)
    return wrap(_scaled(out, float(count) * _norm(normalization, count)))


def _fit_last(n: Node, size: int) -> Node:
    have = n.shape[-1]
    if have > size:
        limit = n.shape[:-1] + (size,)
        return make(Op.SLICE, (n,), (0,) * n.ndim, limit, (1,) * n.ndim)
    cfg = ((0, 0, 0),) * (n.ndim - 1) + ((0, size - have, 0),)
    return make(Op.PAD, (n, as_node(0, n.dtype)), cfg)


TABLE = {aten._fft_c2c: _fft_c2c, aten._fft_r2c: _fft_r2c, aten._fft_c2r: _fft_c2r}
