"""torch.fft's ATen primitives (``_fft_r2c``, ``_fft_c2c``, ``_fft_c2r``) on
the core's transforms (``lazytensor.core.composite.signal.fft``). Only torch's
conventions live here: dim lists and its normalization codes (0: none,
1: 1/sqrt(n), 2: 1/n). Every ``torch.fft`` function is a composite of these
three.

``fft_fftfreq`` has its own kernel: torch's composite one writes the
negative frequencies by resizing an *empty* slice of its output into the
storage behind it, which a lazy view does not share (it gave 0..n-1)."""

from __future__ import annotations

from lazytensor.core import Node
from lazytensor.core.composite.creation.arrays import arange
from lazytensor.core.composite.movement.shape import concatenate
from lazytensor.core.composite.signal import fft as fourier
from lazytensor.torch._tensor import NUMPY_OF, scalar_type_name, wrap
from lazytensor.torch.aten._common import aten, dim, node

import torch

NORMS = {0: "none", 1: "ortho", 2: "n"}


def _dims(x: Node, dims) -> tuple[int, ...]:
    return tuple(dim(d, x.ndim) for d in dims)


def _fft_c2c(x, dims, normalization, forward):
    n = node(x)
    return wrap(fourier.fft(n, _dims(n, dims), forward, NORMS[normalization]))


def _fft_r2c(x, dims, normalization, onesided):
    n = node(x)
    return wrap(fourier.rfft(n, _dims(n, dims), NORMS[normalization], onesided))


def _fft_c2r(x, dims, normalization, last_dim_size):
    n = node(x)
    return wrap(fourier.irfft(n, _dims(n, dims), last_dim_size, NORMS[normalization]))


def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, pin_memory=None):
    """torch.fft.fftfreq: [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1],
    made in ``dtype`` and then scaled by 1 / (n * d) as torch's kernel does."""
    if dtype is None:
        dtype = torch.get_default_dtype()
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("fftfreq requires a floating point or complex dtype")
    target = NUMPY_OF[dtype]
    if dtype.is_complex:  # (torch's kernel fills it with arange)
        name = scalar_type_name(target)
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{name}'")
    counts = concatenate([arange(0, (n + 1) // 2, dtype=target),
                          arange(-(n // 2), 0, dtype=target)])
    return wrap(counts).mul_(1.0 / (n * d))


def _fftfreq_out(n, d=1.0, *, out):
    from lazytensor.torch._dispatch import resize_out, write

    result = fftfreq(n, d, dtype=out.dtype)
    if tuple(out.shape) != (n,):
        resize_out(out, (n,))
    write(out, result)
    return out


TABLE = {aten._fft_c2c: _fft_c2c, aten._fft_r2c: _fft_r2c, aten._fft_c2r: _fft_c2r,
         aten.fft_fftfreq.out: _fftfreq_out}  # (fftfreq itself: a Lazy-key kernel, _device)
