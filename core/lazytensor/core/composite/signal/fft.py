"""Discrete Fourier transforms over any set of axes, on the core's FFT op.

XLA transforms only the trailing (at most three) axes, so the transformed
axes move to the end and back, and transforms over more axes run in
separable groups. ``norm`` says how the result is scaled relative to the
unnormalized transform, in the direction taken: ``"none"`` (1),
``"ortho"`` (1/sqrt(n)) or ``"n"`` (1/n); numpy's ``norm=`` keywords and
torch's normalization codes both map onto these three. Also the helpers
around the transforms that numpy.fft, torch.fft and tf.signal share:
cropping/zero-padding to a transform length, fftshift, framing, and the
DCT-II/III written as real transforms of twice the length.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import apply, as_node, convert
from lazytensor.core.composite.indexing.take import take
from lazytensor.core.composite.movement.rearrange import roll
from lazytensor.core.composite.movement.shape import moveaxis, slice_axis
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, make
from lazytensor.core.runtime import get_runtime

MAX_DIMS = 3  # XLA transforms at most three trailing dims at once
_FACTORS = {"none": lambda n: 1.0, "ortho": lambda n: 1.0 / math.sqrt(n),
            "n": lambda n: 1.0 / n}


def _to_end(x: Node, axes: tuple[int, ...]) -> tuple[Node, tuple[int, ...]]:
    """``x`` with ``axes`` moved last (in order), and the inverse permutation."""
    perm = tuple(d for d in range(x.ndim) if d not in axes) + axes
    inverse = [0] * x.ndim
    for i, p in enumerate(perm):
        inverse[p] = i
    moved = x if perm == tuple(range(x.ndim)) else make(Op.TRANSPOSE, (x,), perm)
    return moved, tuple(inverse)


def _back(x: Node, inverse: tuple[int, ...]) -> Node:
    return x if inverse == tuple(range(x.ndim)) else make(Op.TRANSPOSE, (x,), inverse)


def _scaled(x: Node, factor: float) -> Node:
    return x if factor == 1 else make(Op.MUL, (x, as_node(factor, x.dtype, x.shape)))


def norm_factor(norm: str, count: int) -> float:
    """The scale of a transform over ``count`` points for ``norm``.

    >>> norm_factor("ortho", 4), norm_factor("n", 4), norm_factor("none", 4)
    (0.5, 0.25, 1.0)
    """
    return _FACTORS[norm](count)


def fft(x: Node, axes: Sequence[int], forward: bool, norm: str = "none") -> Node:
    """Complex-to-complex transform of ``x`` over ``axes`` (non-negative);
    shape and dtype are ``x``'s (a complex dtype).

    >>> from lazytensor.core.composite.elementwise.apply import as_node
    >>> fft(as_node(1, dt.complex64, (2, 4)), (1,), True).shape
    (2, 4)
    """
    axes = tuple(axes)
    out = x
    for start in range(0, len(axes), MAX_DIMS):  # separable: groups of three dims
        group = axes[start:start + MAX_DIMS]
        moved, inverse = _to_end(out, group)
        lengths = tuple(moved.shape[-len(group):])
        out = _back(make(Op.FFT, (moved,), "fft" if forward else "ifft", lengths), inverse)
    count = math.prod(x.shape[d] for d in axes)
    unnormalized = 1.0 if forward else float(count)  # XLA's ifft includes 1/n
    return _scaled(out, unnormalized * norm_factor(norm, count))


def rfft(x: Node, axes: Sequence[int], norm: str = "none", onesided: bool = True) -> Node:
    """Real-to-complex transform over ``axes``; the last axis keeps
    n // 2 + 1 entries when ``onesided``.

    >>> from lazytensor.core.composite.elementwise.apply import as_node
    >>> rfft(as_node(1.0, dt.float32, (3, 8)), (0, 1)).shape
    (3, 5)
    """
    axes = tuple(axes)
    if len(axes) > MAX_DIMS or not onesided:
        full = fft(convert(x, dt.complex_dtype(x.dtype)), axes, True, norm)
        return half_spectrum(full, axes[-1]) if onesided else full
    moved, inverse = _to_end(x, axes)
    lengths = tuple(moved.shape[-len(axes):])
    out = _back(make(Op.FFT, (moved,), "rfft", lengths), inverse)
    return _scaled(out, norm_factor(norm, math.prod(lengths)))


def half_spectrum(x: Node, axis: int) -> Node:
    """The first n // 2 + 1 entries of ``x`` along ``axis``."""
    limit = list(x.shape)
    limit[axis] = x.shape[axis] // 2 + 1
    return make(Op.SLICE, (x,), (0,) * x.ndim, tuple(limit), (1,) * x.ndim)


def irfft(x: Node, axes: Sequence[int], last_size: int, norm: str = "none") -> Node:
    """Complex-to-real inverse transform over ``axes`` (at most three); the
    half spectrum along the last axis is trimmed or zero-padded to
    ``last_size`` // 2 + 1 entries and the output has ``last_size`` there.

    >>> from lazytensor.core.composite.elementwise.apply import as_node
    >>> irfft(as_node(1, dt.complex64, (5,)), (0,), 8).shape
    (8,)
    """
    axes = tuple(axes)
    if len(axes) > MAX_DIMS:
        raise NotImplementedError("irfft over more than three dims")
    moved, inverse = _to_end(x, axes)
    lengths = tuple(moved.shape[-len(axes):-1]) + (last_size,)
    half = lengths[-1] // 2 + 1
    moved = fit(moved, moved.ndim - 1, half)
    out = _back(make(Op.FFT, (moved,), "irfft", lengths), inverse)
    count = math.prod(lengths)
    return _scaled(out, float(count) * norm_factor(norm, count))


def fit(x: Node, axis: int, size: int) -> Node:
    """``x`` cropped or zero-padded at the end of (non-negative) ``axis`` to
    ``size`` entries (the transform length asked for).

    >>> fit(as_node(1.0, dt.float32, (2, 5)), 1, 8).shape
    (2, 8)
    """
    have = x.shape[axis]
    if have == size:
        return x
    if have > size:
        limit = tuple(size if d == axis else s for d, s in enumerate(x.shape))
        return make(Op.SLICE, (x,), (0,) * x.ndim, limit, (1,) * x.ndim)
    cfg = tuple((0, size - have if d == axis else 0, 0) for d in range(x.ndim))
    return make(Op.PAD, (x, as_node(0, x.dtype)), cfg)


def fitted(x: Node, axes: Sequence[int], sizes: Sequence[int | None]) -> Node:
    """``fit`` along each of ``axes`` (a size None keeps that axis)."""
    for axis, size in zip(axes, sizes, strict=True):
        if size is not None:
            x = fit(x, axis, size)
    return x


def fftn(x: Node, axes: Sequence[int], sizes: Sequence[int | None], forward: bool,
         norm: str = "none") -> Node:
    """``fft`` of x fitted (``fitted``) to ``sizes`` along ``axes``
    (non-negative); an axis listed twice is transformed once per listing,
    last first, as numpy's n-d transforms (1-d ones in sequence) do.

    >>> from lazytensor.core.composite.elementwise.apply import as_node
    >>> fftn(as_node(1, dt.complex64, (2, 4)), (1, 0), (6, None), True).shape
    (2, 6)
    """
    if len(set(axes)) < len(axes):
        for axis, size in reversed(tuple(zip(axes, _sizes(x, axes, sizes), strict=True))):
            x = fftn(x, (axis,), (size,), forward, norm)
        return x
    return fft(fitted(x, axes, sizes), axes, forward, norm)


def _sizes(x: Node, axes: Sequence[int], sizes: Sequence[int | None]) -> list[int]:
    """``sizes`` with None as x's size along that axis (before any transform)."""
    return [x.shape[a] if n is None else n for a, n in zip(axes, sizes, strict=True)]


def rfftn(x: Node, axes: Sequence[int], sizes: Sequence[int | None],
          norm: str = "none") -> Node:
    """``rfft`` of real x fitted to ``sizes`` along ``axes``; with an axis
    listed twice, the real transform over the last axis, then ``fftn`` over
    the others (numpy's order; a size None is x's size along that axis, so
    the half spectrum is padded back to it).

    >>> from lazytensor.core.composite.elementwise.apply import as_node
    >>> rfftn(as_node(1.0, dt.float32, (3, 8)), (0, 1), (None, 6)).shape
    (3, 4)
    """
    if len(set(axes)) < len(axes):
        sizes = _sizes(x, axes, sizes)
        x = rfft(fitted(x, axes[-1:], sizes[-1:]), axes[-1:], norm)
        return fftn(x, axes[:-1], sizes[:-1], True, norm)
    return rfft(fitted(x, axes, sizes), axes, norm)


def irfftn_size(x: Node, axes: Sequence[int], sizes: Sequence[int | None]) -> int:
    """The real output length along the last of ``axes``: its size, or
    2 * (m - 1) for a half spectrum of m entries (numpy's and torch's default)."""
    return sizes[-1] if sizes[-1] is not None else 2 * (x.shape[axes[-1]] - 1)


def irfftn(x: Node, axes: Sequence[int], sizes: Sequence[int | None],
           norm: str = "none") -> Node:
    """``irfft`` of complex x fitted to ``sizes`` along all but the last of
    ``axes``, the output ``irfftn_size`` long along the last one.

    >>> from lazytensor.core.composite.elementwise.apply import as_node
    >>> irfftn(as_node(1, dt.complex64, (4, 5)), (0, 1), (None, None)).shape
    (4, 8)
    """
    last = irfftn_size(x, axes, sizes)
    return irfft(fitted(x, axes[:-1], sizes[:-1]), axes, last, norm)


def fftshift(x: Node, axes: Sequence[int] | None = None, inverse: bool = False) -> Node:
    """The zero frequency moved to the middle of each of ``axes`` (all when
    None), or back with ``inverse`` (ifftshift): a roll by n // 2.

    >>> fftshift(as_node(1.0, dt.float32, (4, 5)), (1,)).shape
    (4, 5)
    """
    axes = tuple(range(x.ndim)) if axes is None else tuple(axes)
    if not axes:
        return x
    shifts = [(-(x.shape[a] // 2) if inverse else x.shape[a] // 2) for a in axes]
    return roll(x, shifts, axes)


def frame_count(n: int, length: int, step: int, pad_end: bool) -> int:
    """How many frames of ``length`` every ``step`` samples fit in ``n``
    samples (all that start inside with ``pad_end``).

    >>> frame_count(10, 4, 3, False), frame_count(10, 4, 3, True)
    (3, 4)
    """
    if pad_end:
        return -(-n // step)
    return max(0, 1 + (n - length) // step)


def frame(x: Node, length: int, step: int, axis: int, pad_end: bool = False,
          pad_value: float = 0) -> Node:
    """Overlapping frames of ``length`` samples every ``step`` along
    (non-negative) ``axis``: that axis becomes (frames, length); with
    ``pad_end`` the end is padded with ``pad_value`` so that every sample
    is in a frame (tf.signal.frame; torch.Tensor.unfold without padding).

    >>> frame(as_node(1.0, dt.float32, (2, 10)), 4, 3, 1).shape
    (2, 3, 4)
    """
    n = x.shape[axis]
    count = frame_count(n, length, step, pad_end)
    need = (count - 1) * step + length if count else 0
    if pad_end and need > n:
        cfg = tuple((0, need - n if d == axis else 0, 0) for d in range(x.ndim))
        x = make(Op.PAD, (x, as_node(pad_value, x.dtype)), cfg)
    starts = np.arange(count, dtype=np.int64)[:, None] * step
    index = starts + np.arange(length, dtype=np.int64)[None, :]
    return take(x, index.reshape(count, length), axis)


def sliding_windows(x: Node, windows: Sequence[int], axes: Sequence[int]) -> Node:
    """numpy's ``sliding_window_view``: every window of ``windows[i]``
    consecutive elements (stride 1) along (non-negative) ``axes[i]``; each
    such axis shrinks to ``n - w + 1`` and a window axis is appended, in
    order (an axis may repeat). One ``frame`` per axis.

    >>> sliding_windows(as_node(1.0, dt.float32, (5, 6)), (2, 3), (0, 1)).shape
    (4, 4, 2, 3)
    """
    for axis, w in zip(axes, windows, strict=True):
        x = moveaxis(frame(x, int(w), 1, axis), axis + 1, -1)
    return x


def overlap_and_add(frames: Node, step: int) -> Node:
    """The inverse of ``frame`` up to a window: frames (..., count, length)
    laid out every ``step`` samples and summed where they overlap; shape
    (..., (count - 1) * step + length). Written as ceil(length / step)
    shifted copies of step-long segments, summed.

    >>> overlap_and_add(as_node(1.0, dt.float32, (2, 5, 8)), 4).shape
    (2, 24)
    """
    *batch, count, length = frames.shape
    if count == 0:
        return as_node(0, frames.dtype, (*batch, max(0, length - step)))
    pieces = -(-length // step)
    x = fit(frames, frames.ndim - 1, pieces * step)
    x = make(Op.RESHAPE, (x,), (*batch, count, pieces, step))
    nb = len(batch)
    total = None
    for j in range(pieces):  # segment j of frame f lands at output segment f + j
        seg = make(Op.SLICE, (x,), (0,) * (nb + 1) + (j, 0), (*batch, count, j + 1, step),
                   (1,) * (nb + 3))
        seg = make(Op.RESHAPE, (seg,), (*batch, count, step))
        cfg = ((0, 0, 0),) * nb + ((j, pieces - 1 - j, 0), (0, 0, 0))
        seg = make(Op.PAD, (seg, as_node(0, x.dtype)), cfg)
        total = seg if total is None else make(Op.ADD, (total, seg))
    flat = make(Op.RESHAPE, (total,), (*batch, (count + pieces - 1) * step))
    return fit(flat, flat.ndim - 1, (count - 1) * step + length)


def _upload(values: np.ndarray) -> Node:
    """Host-computed weights as device data (hashed by shape and dtype)."""
    return get_runtime().from_host(values).node


def _phases(x: Node, sign: float) -> np.ndarray:
    """2 exp(sign i pi k / 2N), k < N = x's last axis, in x's complex dtype."""
    size, real = x.shape[-1], x.dtype.type
    if x.dtype not in (dt.float32, dt.float64):
        raise DTypeError(f"dct: a float32 or float64 input is needed, got {x.dtype.name}")
    k = np.arange(size, dtype=real) * real(np.pi * 0.5) / real(size)
    return (2.0 * np.exp(sign * 1j * k)).astype(dt.complex_dtype(x.dtype))


def dct2(x: Node, ortho: bool = False) -> Node:
    """DCT-II along the last axis of real ``x`` (N samples):
    y_k = 2 sum_n x_n cos(pi k (2n + 1) / 2N), computed as
    real(rfft(x, 2N)[:N] * 2 exp(-i pi k / 2N)); ``ortho`` scales y_0 by
    1 / (2 sqrt(N)) and the others by 1 / sqrt(2N). Shape and dtype are
    ``x``'s (float32 or float64).

    >>> dct2(as_node(1.0, dt.float32, (3, 8))).shape
    (3, 8)
    """
    scale = _phases(x, -1.0)
    size, real = x.shape[-1], x.dtype.type
    half = slice_axis(rfftn(x, (x.ndim - 1,), (2 * size,)), x.ndim - 1, 0, size)
    out = make(Op.REAL, (apply(Op.MUL, half, _upload(scale), dtype=half.dtype),))
    if ortho:
        first = real(0.5) / np.sqrt(real(size))
        weights = np.full(size, first * real(np.sqrt(2.0)), x.dtype)
        weights[0] = first
        out = apply(Op.MUL, out, _upload(weights), dtype=x.dtype)
    return out


def dct3(x: Node, ortho: bool = False) -> Node:
    """DCT-III along the last axis of real ``x`` (N samples), the inverse
    of ``dct2`` up to 2N (exactly with ``ortho``):
    y_k = x_0 + 2 sum_{n>0} x_n cos(pi n (2k + 1) / 2N), computed as
    irfft(2 exp(i pi k / 2N) * w x, 2N)[:N] with w = N (``ortho``:
    sqrt(N) for x_0, sqrt(N / 2) for the others). Shape and dtype are
    ``x``'s (float32 or float64).

    >>> dct3(as_node(1.0, dt.float64, (8,)), ortho=True).shape
    (8,)
    """
    scale = _phases(x, 1.0)
    size, real = x.shape[-1], x.dtype.type
    if ortho:
        first = np.sqrt(real(size))
        weights = np.full(size, first * real(np.sqrt(0.5)), x.dtype)
        weights[0] = first
    else:
        weights = np.full(size, size, x.dtype)
    x = apply(Op.MUL, x, _upload(weights), dtype=x.dtype)
    spectrum = apply(Op.MUL, convert(x, scale.dtype), _upload(scale), dtype=scale.dtype)
    return slice_axis(irfftn(spectrum, (x.ndim - 1,), (2 * size,), "n"), x.ndim - 1, 0, size)
