"""torch.fft's ATen primitives (``_fft_r2c``, ``_fft_c2c``, ``_fft_c2r``) on
the core's transforms (``lazytensor.core.composite.fourier``). Only torch's
conventions live here: dim lists and its normalization codes (0: none,
1: 1/sqrt(n), 2: 1/n). Every ``torch.fft`` function is a composite of these
three."""

from __future__ import annotations

from lazytensor.core import Node
from lazytensor.core.composite import fourier
from lazytensor.torch._tensor import wrap
from lazytensor.torch.aten._common import aten, dim, node

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


TABLE = {aten._fft_c2c: _fft_c2c, aten._fft_r2c: _fft_r2c, aten._fft_c2r: _fft_c2r}
