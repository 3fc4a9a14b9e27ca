"""tf.signal on lazy arrays: rfft/irfft, dct/idct, mfccs, and their errors.
Each check runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy,
lazytensor.tf) and compares values, dtypes and shapes, or the exception
type."""


from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import lazy_and_eager, lnp, tf

RNG = np.random.default_rng(6)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


RFFT = {
    "rfft": lambda x: tf.signal.rfft(x), "rfft_crop": lambda x: tf.signal.rfft(x, [5]),
    "rfft_pad": lambda x: tf.signal.rfft(x, fft_length=[12]),
    "rfft_tensor_length": lambda x: tf.signal.rfft(x, tf.constant([6])),
    "irfft": lambda x: tf.signal.irfft(tf.signal.rfft(x)),
    "irfft_odd": lambda x: tf.signal.irfft(tf.signal.rfft(x), [7]),
    "irfft_pad": lambda x: tf.signal.irfft(tf.signal.rfft(x), [20]),
    "rfft2d": lambda x: tf.signal.rfft2d(x), "rfft2d_len": lambda x: tf.signal.rfft2d(x, [3, 6]),
    "irfft2d": lambda x: tf.signal.irfft2d(tf.signal.rfft2d(x)),
    "irfft2d_len": lambda x: tf.signal.irfft2d(tf.signal.rfft2d(x), [4, 5]),
    "rfft3d": lambda x: tf.signal.rfft3d(x),
    "irfft3d": lambda x: tf.signal.irfft3d(tf.signal.rfft3d(x)),
}


DCT = {
    "dct": lambda x: tf.signal.dct(x), "dct_ortho": lambda x: tf.signal.dct(x, norm="ortho"),
    "dct3": lambda x: tf.signal.dct(x, type=3), "dct3_ortho": lambda x: tf.signal.dct(
        x, type=3, norm="ortho"),
    "dct_n_crop": lambda x: tf.signal.dct(x, n=6), "dct_n_pad": lambda x: tf.signal.dct(x, n=14),
    "idct": lambda x: tf.signal.idct(x), "idct_ortho": lambda x: tf.signal.idct(x, norm="ortho"),
    "idct3": lambda x: tf.signal.idct(x, type=3, n=7),
    "round_trip": lambda x: tf.signal.idct(tf.signal.dct(x, norm="ortho"), norm="ortho"),
    "mfcc": tf.signal.mfccs_from_log_mel_spectrograms,
}


@pytest.mark.sweep("dtype", reason="every transform case in one dtype, dtypes "
                   "in turn; the dtype product is slow")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(RFFT))
def test_tf_signal_rfft_irfft_record_lazily(case, dtype):
    """``tf.signal.rfft``/``irfft`` (2-d, 3-d) converted lazy arrays and
    ran eagerly (their exports have no dispatch); now the core's fourier
    transforms with TensorFlow's fft_length (crop / zero-pad) and dtypes
    (float32 <-> complex64, float64 <-> complex128)."""
    lazy_and_eager(RFFT[case], RNG.standard_normal((2, 4, 8)).astype(dtype),
                    precision="float32")


def test_tf_signal_rfft_errors_as_tensorflow():
    for fn, value in ((tf.signal.rfft, np.arange(4, dtype=np.int32)),
                      (tf.signal.rfft, np.float32(1.0)),
                      (tf.signal.irfft, np.ones(4, np.float32)),
                      (tf.signal.rfft, np.ones(4, np.float16))):
        with pytest.raises(ValueError):
            fn(tf.constant(value))
        with pytest.raises(ValueError):
            fn(lnp.asarray(value))


@pytest.mark.sweep("dtype", reason="every transform case in one dtype, dtypes "
                   "in turn; the dtype product is slow")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(DCT))
def test_tf_signal_dct_idct_mfcc_record_lazily(case, dtype):
    """``tf.signal.dct``/``idct`` (types 2 and 3) and
    ``mfccs_from_log_mel_spectrograms`` of lazy arrays materialized them
    and returned eager tensors (not in the signal table); now TensorFlow's
    rfft-based formulas on the core's transforms."""
    lazy_and_eager(DCT[case], RNG.standard_normal((2, 3, 10)).astype(dtype),
                    precision="float32")


def test_tf_signal_dct_bad_arguments_as_tensorflow():
    x = _f32(2, 8)
    for kwargs, error in ((dict(type=5), ValueError), (dict(norm="x"), ValueError),
                          (dict(n=0), ValueError), (dict(axis=0), NotImplementedError)):
        for c in (tf.constant, lnp.asarray):
            with pytest.raises(error):
                tf.signal.dct(c(x), **kwargs)
