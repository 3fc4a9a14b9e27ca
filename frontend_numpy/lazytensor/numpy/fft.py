"""``lazytensor.numpy.fft``: numpy.fft on the core's transforms
(``lazytensor.core.composite.signal.fft``, shared with torch.fft).

Only numpy's conventions live here: ``n``/``s`` crop or zero-pad the input
along each transformed axis, ``norm`` ("backward", "ortho", "forward")
scales the forward or the inverse direction, and the result dtype is
numpy 2's: single precision stays single (complex64/float32), everything
else is double. ``fftfreq``/``rfftfreq`` are host arithmetic on Python
numbers, uploaded once.

>>> import numpy as np
>>> import lazytensor.numpy as lnp
>>> np.round(np.abs(lnp.fft.rfft(lnp.asarray([1.0, 0.0, -1.0, 0.0]))), 6).tolist()
[0.0, 2.0, 0.0]
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from lazytensor.core import dtypes as dt
from lazytensor.core import metrics
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise import ufuncs as cuf
from lazytensor.core.composite.reduce.axes import normalize_axis
from lazytensor.core.composite.signal import fft as fourier
from lazytensor.core.ir import Node
from lazytensor.numpy._base import from_host, node_of, wrap
from lazytensor.numpy._dispatch import NUMPY_DIRS, implements
from lazytensor.numpy._ufuncs import finish

import numpy as np

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]

# numpy's norm keyword -> the core's scaling of (forward, inverse) transforms
_NORMS = {None: ("none", "n"), "backward": ("none", "n"), "ortho": ("ortho", "ortho"),
          "forward": ("n", "none")}
_SINGLE = (dt.float16, dt.float32, dt.complex64)


def fft_implements(*names):
    return implements(*names, namespace=np.fft)


def _scaling(norm, forward: bool) -> str:
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or '
                         f'"forward".')
    return _NORMS[norm][0 if forward else 1]


def _complex(x: Node) -> Node:
    """``x`` as numpy 2's fft computes it: complex64 from single precision, else complex128."""
    return ew.convert(x, dt.complex64 if x.dtype in _SINGLE else dt.complex128)


def _real(x: Node) -> Node:
    if dt.is_complex(x.dtype):
        raise TypeError(f"ufunc 'rfft' not supported for the input type {x.dtype}")
    return ew.convert(x, dt.float32 if x.dtype in _SINGLE else dt.float64)


_S_WITHOUT_AXES = (
    "`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0). In a future "
    "version of NumPy, this will raise an error and `s[i]` will correspond to the size along "
    "the transformed axis specified by `axes[i]`. To retain current behaviour, pass a "
    "sequence [0, ..., k-1] to `axes` for an array of dimension k.")
_S_WITH_NONE = (
    "Passing an array containing `None` values to `s` is deprecated in NumPy 2.0 and will "
    "raise an error in a future version of NumPy. To use the default behaviour of the "
    "corresponding 1-D transform, pass the value matching the default for its `n` parameter. "
    "To use the default behaviour for every axis, the `s` argument can be omitted.")


def _plan(x: Node, s, axes) -> tuple[tuple[int, ...], tuple[int | None, ...]]:
    """numpy's (axes, sizes) of an n-dimensional transform: ``axes`` default
    to the last ``len(s)`` axes (all without ``s``); sizes None keep the input's."""
    if axes is None:
        if s is not None:
            warnings.warn(_S_WITHOUT_AXES, DeprecationWarning,
                          stacklevel=metrics.user_stacklevel(NUMPY_DIRS))
        axes = range(x.ndim) if s is None else range(x.ndim - len(s), x.ndim)
    axes = tuple(normalize_axis(a, x.ndim) for a in axes)
    if s is None:
        return axes, (None,) * len(axes)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if any(n is None for n in s):
        warnings.warn(_S_WITH_NONE, DeprecationWarning,
                      stacklevel=metrics.user_stacklevel(NUMPY_DIRS))
    return axes, tuple(None if n is None or n == -1 else n for n in s)  # -1: the input's


def _check_sizes(x: Node, axes: Sequence[int], sizes: Sequence[int | None]) -> None:
    for axis, size in zip(axes, sizes, strict=True):
        if (x.shape[axis] if size is None else size) < 1:
            raise ValueError(f"Invalid number of FFT data points ({size or 0}) specified.")


def _one(n) -> tuple[int] | None:
    """A 1-d transform's ``n`` as ``s`` (where -1 would mean the input's length)."""
    if n is not None and n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return None if n is None else (n,)


def _finish(node: Node, out):
    """numpy.fft's ``out``: an array of exactly the result's shape, same_kind cast."""
    if out is not None:
        if not hasattr(out, "__array_function__"):
            raise TypeError("return array must be of ArrayType")
        if out.shape != node.shape:
            raise ValueError(f"output array has wrong shape {out.shape}, expected {node.shape}")
        if not np.can_cast(node.dtype, out.dtype, "same_kind"):
            raise TypeError(f"Cannot cast fft output from {node.dtype} to {out.dtype} with "
                            "casting rule 'same_kind'")
    return finish(node, out)


# ---------------------------------------------------------------- complex

def _c2c(a, s, axes, norm, forward: bool, out=None):
    x = _complex(node_of(a))
    axes, sizes = _plan(x, s, axes)
    _check_sizes(x, axes, sizes)
    return _finish(fourier.fftn(x, axes, sizes, forward, _scaling(norm, forward)), out)


@fft_implements("fft")
def fft(a, n=None, axis=-1, norm=None, out=None):
    return _c2c(a, _one(n), (axis,), norm, True, out=out)


@fft_implements("ifft")
def ifft(a, n=None, axis=-1, norm=None, out=None):
    return _c2c(a, _one(n), (axis,), norm, False, out=out)


@fft_implements("fftn")
def fftn(a, s=None, axes=None, norm=None, out=None):
    return _c2c(a, s, axes, norm, True, out=out)


@fft_implements("ifftn")
def ifftn(a, s=None, axes=None, norm=None, out=None):
    return _c2c(a, s, axes, norm, False, out=out)


@fft_implements("fft2")
def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _c2c(a, s, axes, norm, True, out=out)


@fft_implements("ifft2")
def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _c2c(a, s, axes, norm, False, out=out)


# ------------------------------------------------------------------- real

def _r2c(a, s, axes, norm, out=None):
    x = _real(node_of(a))
    axes, sizes = _plan(x, s, axes)
    _check_sizes(x, axes, sizes)
    return _finish(fourier.rfftn(x, axes, sizes, _scaling(norm, True)), out)


def _c2r(a, s, axes, norm, out=None):
    given = node_of(a)
    x = _complex(given)
    axes, sizes = _plan(x, s, axes)
    last = fourier.irfftn_size(x, axes, sizes)
    if last < 1:
        raise ValueError(f"Invalid number of FFT data points ({last}) specified.")
    _check_sizes(x, axes[:-1], sizes[:-1])
    result = fourier.irfftn(x, axes, sizes, _scaling(norm, False))
    if len(axes) == 1 and given.dtype == dt.float16:  # numpy's 1-d irfft keeps half input half
        result = ew.convert(result, dt.float16)
    return _finish(result, out)


@fft_implements("rfft")
def rfft(a, n=None, axis=-1, norm=None, out=None):
    return _r2c(a, _one(n), (axis,), norm, out=out)


@fft_implements("irfft")
def irfft(a, n=None, axis=-1, norm=None, out=None):
    return _c2r(a, _one(n), (axis,), norm, out=out)


@fft_implements("rfftn")
def rfftn(a, s=None, axes=None, norm=None, out=None):
    return _r2c(a, s, axes, norm, out=out)


@fft_implements("irfftn")
def irfftn(a, s=None, axes=None, norm=None, out=None):
    return _c2r(a, s, axes, norm, out=out)


@fft_implements("rfft2")
def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _r2c(a, s, axes, norm, out=out)


@fft_implements("irfft2")
def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _c2r(a, s, axes, norm, out=out)


_SWAPPED = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


@fft_implements("hfft")
def hfft(a, n=None, axis=-1, norm=None, out=None):
    """The real spectrum of a Hermitian-symmetric signal: irfft of its conjugate."""
    return irfft(wrap(cuf.conj(_complex(node_of(a)))), n, axis, _SWAPPED.get(norm, norm), out)


@fft_implements("ihfft")
def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of hfft: the conjugate of rfft."""
    spectrum = rfft(a, n, axis, _SWAPPED.get(norm, norm))
    return _finish(cuf.conj(spectrum._h.node), out)


# ------------------------------------------------------------ helpers

@fft_implements("fftshift")
def fftshift(x, axes=None):
    return _shift(x, axes, False)


@fft_implements("ifftshift")
def ifftshift(x, axes=None):
    return _shift(x, axes, True)


def _shift(x, axes, inverse: bool):
    node = node_of(x)
    axes = None if axes is None else (axes,) if isinstance(axes, int) else tuple(axes)
    if axes is not None:
        axes = tuple(normalize_axis(a, node.ndim) for a in axes)
    return wrap(fourier.fftshift(node, axes, inverse))


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """numpy.fft.fftfreq, as a lazy array (host arithmetic, uploaded once);
    ``dtype=`` as the Array API standard's (2025.12; float64 by default)."""
    out = np.fft.fftfreq(n, d)
    return from_host(out if dtype is None else out.astype(dtype))


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """numpy.fft.rfftfreq, as a lazy array (host arithmetic, uploaded once);
    ``dtype=`` as fftfreq's."""
    out = np.fft.rfftfreq(n, d)
    return from_host(out if dtype is None else out.astype(dtype))
