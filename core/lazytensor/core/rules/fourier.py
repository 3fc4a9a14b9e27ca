"""Fast Fourier transforms over the trailing dimensions (StableHLO's fft).

Attrs: ``fft_type`` is "fft" / "ifft" (complex -> complex), "rfft" (real ->
complex, the last dimension becomes n // 2 + 1) or "irfft" (complex ->
real, the last dimension becomes ``fft_lengths[-1]``); ``fft_lengths`` are
the transform lengths of the trailing dimensions. The inverses include the
1/n factor (as XLA and numpy's default normalization)."""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, register

FFT_TYPES = ("fft", "ifft", "rfft", "irfft")


def _fft(operands, attrs):
    (x,), (fft_type, lengths) = operands, attrs
    k = len(lengths)
    if fft_type not in FFT_TYPES or not 1 <= k <= min(3, x.ndim):
        raise ShapeError(f"FFT: bad type {fft_type!r} or lengths {lengths} for rank {x.ndim}")
    lead, tail = x.shape[:x.ndim - k], x.shape[x.ndim - k:]
    if fft_type == "rfft":
        if not dt.is_float(x.dtype) or tuple(tail) != tuple(lengths):
            raise DTypeError(f"FFT rfft: expected a real input of trailing shape {lengths}")
        return lead + tuple(lengths[:-1]) + (lengths[-1] // 2 + 1,), dt.complex_dtype(x.dtype)
    if not dt.is_complex(x.dtype):
        raise DTypeError(f"FFT {fft_type}: expected a complex input, got {x.dtype}")
    if fft_type == "irfft":
        if tuple(tail[:-1]) != tuple(lengths[:-1]) or tail[-1] != lengths[-1] // 2 + 1:
            raise ShapeError(f"FFT irfft: trailing shape {tail} does not fit lengths {lengths}")
        return lead + tuple(lengths), dt.real_dtype(x.dtype)
    if tuple(tail) != tuple(lengths):
        raise ShapeError(f"FFT {fft_type}: trailing shape {tail} differs from lengths {lengths}")
    return x.shape, x.dtype


register(Op.FFT, 1, ("fft_type", "fft_lengths"), _fft)
