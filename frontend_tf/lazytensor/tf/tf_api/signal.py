"""``tf.signal`` on lazy arrays (the table ``APIS``; see
``lazytensor.tf.tf_api``), on the core's transforms, framing and DCT-II/III
(``lazytensor.core.composite.signal.fft``, shared with numpy.fft and torch.fft).

Only TensorFlow's conventions live here: its transforms run over the
innermost 1, 2 or 3 dims of a complex input, the inverse scales by 1/n,
and ``stft``/``inverse_stft`` frame, window (``window_fn`` is called for
the window, a constant) and transform the last axis with ``fft_length``
(default: the next power of two of ``frame_length``).

``tf.signal.rfft``/``irfft`` (and their 2-d/3-d forms) offer no dispatch in
TensorFlow (no ``dispatch_for_api`` hook): ``_dispatch.install`` wraps their
public names so that lazy arrays reach ``_r2c``/``_c2r`` here. Their
``fft_length`` crops or zero-pads the innermost dims (for the inverse, the
last one to ``fft_length[-1] // 2 + 1`` entries), float32 <-> complex64
and float64 <-> complex128.
"""

from __future__ import annotations

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.signal import fft as fourier
from lazytensor.core.composite.signal import stft as core_stft
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
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


def _lengths(fft_length, rank: int) -> tuple[int, ...] | None:
    if fft_length is None:
        return None
    lengths = host_int(fft_length)
    if isinstance(lengths, int):  # TensorFlow iterates over fft_length
        raise TypeError("'numpy.int32' object is not iterable")
    if len(lengths) != rank:
        raise ShapeError(f"fft_length must have {rank} elements, got {len(lengths)}")
    return lengths


def _r2c(rank: int):
    op = "RFFT" + (f"{rank}D" if rank > 1 else "")

    def impl(input_tensor, fft_length=None, name=None):
        x = tensor(input_tensor, dt.float32)
        if x.dtype not in _REAL:
            raise ValueError(f"{op[:4]} requires tf.float32 or tf.float64 inputs, got: "
                             f"{x.dtype.name} tensor of shape {list(x.shape)}")
        if x.ndim < rank:
            raise ValueError(f"Shape {tuple(x.shape)} must have rank at least {rank}")
        lengths = _lengths(fft_length, rank) or x.shape[x.ndim - rank:]
        if 0 in x.shape or 0 in lengths:
            raise NotImplementedError(f"{op} of an empty input")  # TensorFlow's own
        return fourier.rfftn(x, tuple(range(x.ndim - rank, x.ndim)), lengths)

    impl.__name__ = op.lower()
    return impl


def _c2r(rank: int):
    op = "IRFFT" + (f"{rank}D" if rank > 1 else "")

    def impl(input_tensor, fft_length=None, name=None):
        x = tensor(input_tensor, dt.complex64)
        if x.ndim < rank:
            raise ValueError(f"Shape {tuple(x.shape)} must have rank at least {rank}")
        if x.dtype not in _COMPLEX:
            raise ValueError(f"{op[:5]} requires tf.complex64 or tf.complex128 inputs, got: "
                             f"{x.dtype.name} tensor of shape {list(x.shape)}")
        lengths = _lengths(fft_length, rank)
        if lengths is None:
            lengths = (*x.shape[x.ndim - rank:-1], max(0, 2 * (x.shape[-1] - 1)))
        if 0 in x.shape or 0 in lengths:
            raise NotImplementedError(f"{op} of an empty input")  # TensorFlow's own
        return fourier.irfftn(x, tuple(range(x.ndim - rank, x.ndim)), lengths, "n")

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


# ------------------------------------------------------------ DCT

def _dct_args(x: Node, dct_type, n, axis, norm) -> Node:
    """TensorFlow's argument checks; x fitted to ``n`` along the last axis."""
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if dct_type not in (2, 3) or x.dtype not in _REAL or not x.ndim:
        raise NotImplementedError(f"DCT type {dct_type} of {x.dtype.name}")  # TF's own
    return x if n is None else fourier.fit(x, x.ndim - 1, n)


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    x = _dct_args(tensor(input), type, n, axis, norm)
    return (fourier.dct2 if type == 2 else fourier.dct3)(x, norm == "ortho")


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """``dct`` of the inverse type (3 for 2, 2 for 3), unscaled as
    TensorFlow's: ``idct(dct(x))`` is 2N x without ``norm``."""
    x = _dct_args(tensor(input), type, n, axis, norm)
    return (fourier.dct3 if type == 2 else fourier.dct2)(x, norm == "ortho")


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    x = tensor(log_mel_spectrograms)
    if x.ndim and x.shape[-1] == 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {log_mel_spectrograms}")
    out = dct(x)
    return ew.apply(Op.MUL, out, float(1.0 / np.sqrt(np.float32(x.shape[-1]) * 2.0)),
                    dtype=out.dtype)


APIS = {
    "signal.dct": dct, "signal.idct": idct,
    "signal.mfccs_from_log_mel_spectrograms": mfccs_from_log_mel_spectrograms,
    "signal.fft": _c2c(1, True), "signal.ifft": _c2c(1, False),
    "signal.fft2d": _c2c(2, True), "signal.ifft2d": _c2c(2, False),
    "signal.fft3d": _c2c(3, True), "signal.ifft3d": _c2c(3, False),
    "signal.rfft": _r2c(1), "signal.irfft": _c2r(1), "signal.rfft2d": _r2c(2),
    "signal.irfft2d": _c2r(2), "signal.rfft3d": _r2c(3), "signal.irfft3d": _c2r(3),
    "signal.fftshift": _shift(False), "signal.ifftshift": _shift(True), "signal.frame": frame,
    "signal.stft": stft, "signal.inverse_stft": inverse_stft,
    "signal.overlap_and_add": overlap_and_add,
}
