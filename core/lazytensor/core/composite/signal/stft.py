"""Short-time Fourier transforms on the core's framing and FFTs
(``composite.signal.fft``): frame the last axis, multiply each frame by a
window, transform each frame (``stft``); and back: inverse-transform each
frame, cut it to the frame length, window it again and overlap-add the
frames (``inverse_stft``, TensorFlow's: its window compensation is the
caller's, ``tf.signal.inverse_stft_window_fn``). The window is a node (a
frontend computes it with its own window function) or None for none.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.zeros((2, 100)), np.dtype("float32"))
>>> s = stft(x, 16, 8, 16)
>>> s.shape, s.dtype, inverse_stft(s, 16, 8, 16).shape
((2, 11, 9), dtype('complex64'), (2, 96))
"""

from __future__ import annotations

from lazytensor.core.composite.signal import fft as fourier
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def windowed(frames: Node, window: Node | None) -> Node:
    """``frames`` (..., length) times the (length,) ``window`` (None: as is)."""
    if window is None:
        return frames
    shape = frames.shape
    return make(Op.MUL, (frames, make(Op.BROADCAST_IN_DIM, (window,), shape, (len(shape) - 1,))))


def stft(x: Node, length: int, step: int, fft_length: int, window: Node | None = None,
         pad_end: bool = False) -> Node:
    """The one-sided spectrum of each ``length``-sample frame (every ``step``
    samples along x's last axis, windowed, fit to ``fft_length``).

    Shape rule: x.shape[:-1] + (frames, fft_length // 2 + 1), complex."""
    frames = windowed(fourier.frame(x, length, step, x.ndim - 1, pad_end), window)
    last = frames.ndim - 1
    return fourier.rfft(fourier.fit(frames, last, fft_length), (last,))


def inverse_stft(x: Node, length: int, step: int, fft_length: int,
                 window: Node | None = None) -> Node:
    """Frames from each spectrum of x's last axis (``fft_length`` samples, cut
    to ``length``, windowed), overlap-added every ``step`` samples.

    Shape rule: x.shape[:-2] + ((frames - 1) * step + length,), real."""
    frames = fourier.irfft(x, (x.ndim - 1,), fft_length, "n")
    frames = windowed(fourier.fit(frames, frames.ndim - 1, length), window)
    return fourier.overlap_and_add(frames, step)


__all__ = ["inverse_stft", "stft", "windowed"]
