"""``tf.signal`` on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``), on the core's transforms and framing
(``lazytensor.core.composite.fourier``, shared with numpy.fft and torch.fft).

Only TensorFlow's conventions live here: its transforms run over the
innermost 1, 2 or 3 dims of a complex input, the inverse scales by 1/n,
and ``stft``/``inverse_stft`` frame, window (``window_fn`` is called for
the window, a constant) and transform the last axis with ``fft_length``
(default: the next power of two of ``frame_length``).

``tf.signal.rfft``/``irfft`` (and their 2-d/3-d forms) offer no dispatch in
TensorFlow (no ``dispatch_for_api`` hook): on lazy arrays they convert their
inputs and run eagerly, as any API outside the tables does; ``stft`` and
``inverse_stft``, which use them, record lazily here.
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite import fourier
from lazytensor.core.composite import stft as core_stft
from lazytensor.core.ir import Node
from lazytensor.core.registry import DTypeError, ShapeError
from lazytensor.tf import _tf
from lazytensor.tf.tf_api._dispatch import host_int, tensor

_COMPLEX = (dt.complex64, dt.complex128)
_REAL = (dt.float32, dt.float64)


def _complex(x, rank: int, op: str) -> Node:
    node = tensor(x)
    if node.dtype not in _COMPLEX:
        raise DTypeError(f"Value for attr 'Tcomplex' of {node.dtype.name} is not in the list "
                         f"of allowed values: complex64, complex128 [Op:{op}]")
    if node.ndim < rank:
        raise ShapeError(f"Input must have rank of at least {rank} but got: "
                         f"{list(node.shape)} [Op:{op}]")
    return node


def _c2c(rank: int, forward: bool):
    op = ("FFT" if forward else "IFFT") + (f"{rank}D" if rank > 1 else "")

    def impl(input, name=None):
        x = _complex(input, rank, op)
        axes = tuple(range(x.ndim - rank, x.ndim))
        return fourier.fft(x, axes, forward, "none" if forward else "n")

    impl.__name__ = op.lower()
    return impl


def _axes(x: Node, axes) -> tuple[int, ...] | None:
    axes = host_int(axes)
    if axes is None:
        return None
    return tuple(a % x.ndim for a in ((axes,) if isinstance(axes, int) else axes))


def _shift(inverse: bool):
    def impl(x, axes=None, name=None):
        node = tensor(x)
        return fourier.fftshift(node, _axes(node, axes), inverse=inverse)

    return impl


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    x = tensor(signal)
    if x.ndim < 1:
        raise ValueError("input must have rank at least 1")
    length, step = host_int(frame_length), host_int(frame_step)
    return fourier.frame(x, length, step, host_int(axis) % x.ndim, bool(pad_end),
                         _tf.host_value(pad_value).item())


def _fft_length(frame_length: int, fft_length) -> int:
    if fft_length is None:
        return 1 << max(0, (frame_length - 1).bit_length())  # the next power of two
    return host_int(fft_length)


_HANN = "hann_window"  # TensorFlow's default window_fn (not imported before it is needed)


def _window(window_fn, frame_length: int, dtype: np.dtype) -> Node | None:
    """``window_fn``'s window (computed by TensorFlow: it has no tensor inputs)."""
    if window_fn is None:
        return None
    if window_fn is _HANN:
        window_fn = _tf.tf().signal.hann_window
    return tensor(window_fn(frame_length, dtype=_tf.as_tf_dtype(dtype)))


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=_HANN, pad_end=False,
         name=None):
    x = tensor(signals)
    if x.dtype not in _REAL:
        raise DTypeError(f"stft: signals must be float32 or float64, got {x.dtype.name}")
    length, step = host_int(frame_length), host_int(frame_step)
    return core_stft.stft(x, length, step, _fft_length(length, fft_length),
                          _window(window_fn, length, x.dtype), bool(pad_end))


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=_HANN,
                 name=None):
    x = tensor(stfts)
    if x.dtype not in _COMPLEX:
        raise DTypeError(f"inverse_stft: stfts must be complex64 or complex128, got "
                         f"{x.dtype.name}")
    length, step = host_int(frame_length), host_int(frame_step)
    return core_stft.inverse_stft(x, length, step, _fft_length(length, fft_length),
                                  _window(window_fn, length, dt.real_dtype(x.dtype)))


def overlap_and_add(signal, frame_step, name=None):
    x = tensor(signal)
    if x.ndim < 2:
        raise ValueError("signal must have at least 2 dimensions")
    return fourier.overlap_and_add(x, host_int(frame_step))


APIS = {
    "signal.fft": _c2c(1, True), "signal.ifft": _c2c(1, False),
    "signal.fft2d": _c2c(2, True), "signal.ifft2d": _c2c(2, False),
    "signal.fft3d": _c2c(3, True), "signal.ifft3d": _c2c(3, False),
    "signal.fftshift": _shift(False), "signal.ifftshift": _shift(True), "signal.frame": frame,
    "signal.stft": stft, "signal.inverse_stft": inverse_stft,
    "signal.overlap_and_add": overlap_and_add,
}
