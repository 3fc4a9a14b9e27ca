"""Shared helpers of the TensorFlow frontend tests. Importing this module
turns tnp's numpy behaviour on (as tnp's documentation asks; it is global
TensorFlow state): every test runs with it, except the subprocess tests of
the other modes in test_tf_modes.py."""

from __future__ import annotations

import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import lazytensor.tf as ltf  # noqa: E402
import lazytensor.tf.numpy as lnp  # noqa: E402
import tensorflow as tf  # noqa: E402
import tensorflow.experimental.numpy as tnp  # noqa: E402
from lazytensor.core import metrics  # noqa: E402

tnp.experimental_enable_numpy_behavior()


def to_numpy(value):
    """A tnp/lnp result (array, Python scalar, list/tuple of them) as numpy."""
    if isinstance(value, (list, tuple)):
        return type(value)(to_numpy(v) for v in value)
    if hasattr(value, "numpy"):
        return value.numpy()
    return value


def dtype_name(value) -> str:
    """The dtype a result reports (tf.DType for arrays), by name."""
    if isinstance(value, (list, tuple)):
        return ",".join(dtype_name(v) for v in value)
    dtype = getattr(value, "dtype", None)
    return getattr(dtype, "name", type(value).__name__)


TOLERANCE = {"float16": 5e-3, "bfloat16": 2e-2, "float32": 2e-5, "complex64": 2e-5}


def assert_same(got, want, context: str = "", precision: str | None = None) -> None:
    """Values, dtype and shape of a lazy result equal tnp's. The tolerance is
    the result dtype's, or ``precision``'s when the inputs were less precise
    (a float64 result computed from float32 values carries float32 error)."""
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), context
        for g, w in zip(got, want, strict=False):
            assert_same(g, w, context, precision)
        return
    assert dtype_name(got) == dtype_name(want), f"{context}: dtype {dtype_name(got)} vs " \
                                                f"{dtype_name(want)}"
    g, w = np.asarray(to_numpy(got)), np.asarray(to_numpy(want))
    assert g.shape == w.shape, f"{context}: shape {g.shape} vs {w.shape}"
    tol = max(TOLERANCE.get(w.dtype.name, 1e-12), TOLERANCE.get(precision, 0.0))
    if w.dtype.kind in "fc":
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=context)
    else:
        np.testing.assert_array_equal(g, w, err_msg=context)


__all__ = ["assert_same", "lnp", "tf", "tnp", "to_numpy"]


def same_as_tnp(fn, name: str, tape=None, fallbacks: bool = False,
                precision: str | None = None) -> None:
    """A user program ``fn(np_like, Variable, GradientTape, constant)`` run on
    eager tnp and lazily gives the same values, dtypes and shapes, with no
    eager fallback unless ``fallbacks``. ``tape``: the lazy run's tape class
    (lazytensor.tf.GradientTape unless given)."""
    import lazytensor.tf as ltf
    from lazytensor.core import metrics

    want = fn(tnp, tf.Variable, tf.GradientTape, tf.constant)
    metrics.reset()
    got = fn(lnp, ltf.Variable, tape or ltf.GradientTape, lnp.asarray)
    if not fallbacks:
        assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert_same(got, want, name, precision)


def channels_first(op):
    """``op``, written for channels-last data, applied to channels-first data
    (NCW, NCHW) through transposes. Eager TensorFlow on a CPU without oneDNN
    (an AMD machine, for one) pools and convolves only channels-last data, so
    the references of channels-first cases are computed this way everywhere."""
    def run(t, x, *rest):
        n = len(x.shape)
        last = t.transpose(x, [0, *range(2, n), 1])
        return t.transpose(op(t, last, *rest), [0, n - 1, *range(1, n - 1)])
    return run


def dilate_kernel(w, rate: int):
    """A convolution kernel (spatial dims first) with ``rate - 1`` zeros
    between its taps: a convolution with it equals one with ``dilations=rate``,
    which eager TensorFlow's CPU kernels without oneDNN refuse for
    conv2d_transpose."""
    w = to_numpy(w)
    spatial = w.ndim - 2
    out = np.zeros([(k - 1) * rate + 1 for k in w.shape[:spatial]] + list(w.shape[spatial:]),
                   w.dtype)
    out[tuple(slice(None, None, rate) for _ in range(spatial))] = w
    return tf.constant(out)


def same_lazily(fn, name: str = "", precision: str | None = None):
    """fn(const) with tf.constant, then lazily with lnp.asarray: the same
    results, and no eager fallback in the lazy run."""
    want = fn(tf.constant)
    metrics.reset()
    got = fn(lnp.asarray)
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    assert_same(got, want, name, precision)
    return got


def lazy_and_eager(fn, *arrays, precision=None):
    """fn on lazy arrays (a lazy result, no fallback) and on eager tensors."""
    metrics.reset()
    got = fn(*[lnp.asarray(a) for a in arrays])
    for g in got if isinstance(got, (list, tuple)) else [got]:
        assert isinstance(g, ltf.Tensor), type(g)
    assert not metrics.as_dict()["fallbacks"], metrics.as_dict()["fallbacks"]
    want = fn(*[tf.constant(a) for a in arrays])
    assert_same(got, want, precision=precision)
    return got


def normal_f32(seed: int, *shape) -> np.ndarray:
    """Standard normal float32 values of ``shape`` from ``seed``."""
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
